"""The Python API: the same definitions the workbook renders, evaluated with units."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from workbook.analysis.risk.analysis import RiskResult
from workbook.analysis.risk.section import SETTINGS, setting
from workbook.book.document import Document
from workbook.build import build_book, decision_risk, define_models, load_all
from workbook.excel.layout import Layout, plan
from workbook.excel.writer import write_book
from workbook.explain.bridge import Bridge
from workbook.explain.bridge import explain as explain_versions
from workbook.model import Model, plain
from workbook.site.errors import InputError

__all__ = ["Model", "build", "evaluation", "explain", "explain_versions", "load", "risk", "risk_json", "save"]


def load(site_path: Path | str, *, risk: bool = True) -> Model:
    """A site's model, every file read and validated before any model runs. `risk` False: its `risk:` section is
    not sampled (no risk figure is shown: the model can be evaluated, quoted and read, but not saved as a document
    with the Summary or the Risk sheet), which a million samples make the build's longest step."""
    loaded = load_all(site_path)
    book = build_book(loaded, risk=risk)
    return Model(loaded.site, book, book.evaluate())


def build(site_path: Path | str, out: Path | str) -> tuple[Model, Layout]:
    """Validate, evaluate and write; nothing is written unless all of that succeeded."""
    model = load(site_path)
    return model, save(model, out)


def save(model: Model, out: Path | str, document: Document | None = None) -> Layout:
    """Write a document of an evaluated model (the full workbook unless another is given) to `out`, all or
    nothing."""
    return write_book(model.book, model.values, model.site, Path(out), document)


def evaluation(model: Model) -> dict[str, Any]:
    """`evaluate --json`: every calculated line with its value, unit and cell."""
    layout = plan(model.book)
    lines = {}
    for line in model.book.lines.values():
        if line.kind == "input":
            continue
        lines[line.id] = {
            "label": line.label,
            "value": plain(line, model.values[line.id]),
            "unit": line.unit_text,
            "cell": layout.address(line.id),
        }
    return {"site": model.site.name, "values": JSON_VALUES, "lines": lines}


JSON_VALUES = ("each value as its cell holds it, in its line's unit: a share as a fraction (0.75 is 75%), money in "
               "USD (not the kUSD or MUSD the sheet shows), a date as days since 1899-12-30; null where the cell shows "
               "words")


def risk(site_path: Path | str, samples: int | str | None = None, seed: int | str | None = None) -> RiskResult:
    """The decision under the site's `risk:` section: the figures of its Risk sheet (`samples` and `seed` as the
    section says unless given). Its tables: .dataframe() (the outputs' percentiles) and .contributions_frame()."""
    loaded = load_all(site_path)
    if loaded.risk is None:
        raise InputError("has no risk: section", file=site_path, key="risk",
                         expected="a risk: section with the inputs' distributions (README, Risk ranges)")
    n, s = (None if v is None else int(setting(v, spec, site_path)) for v, spec in zip((samples, seed), SETTINGS,
                                                                                        strict=True))
    book, models = define_models(loaded)
    return decision_risk(book, loaded.risk, models.money, n, s, work=models.work)


def risk_json(result: RiskResult) -> dict[str, Any]:
    """`risk --json`: the Risk sheet's figures, every figure with no value (NaN, an infinity) as null: JSON has no
    NaN (Python's json would write it, and other readers refuse it)."""
    table = result.dataframe()
    return {
        "samples": result.samples, "seed": result.seed, "kept": result.kept, "excluded": result.excluded,
        "probability_buy_wins": _number(result.probability_buy_wins),
        "expected_shortfall": _number(result.expected_shortfall),
        "outputs": {k: {c: (_number(v) if isinstance(v, float) else v) for c, v in row.items()}
                    for k, row in table.to_dict("index").items()},
        "left_out": {stat.line_id: dict(stat.left_out) for stat in result.statistics if stat.left_out},
        "contributions": [{"input": c.key, "label": c.label, "variance_share": _number(c.share),
                           "rank_correlation": _number(c.rank), "partial_rank_correlation": _number(c.partial),
                           "source": c.distribution.source}
                          for c in result.contributions],
        "variance_explained": _number(result.explained),
        "histogram": [{"from": _number(a), "to": _number(b), "samples": n} for a, b, n in result.histogram],
        "convergence": [{"samples": c.samples, "probability_buy_wins": _number(c.probability),
                         "probability_error": _number(c.probability_error), "median": _number(c.median),
                         "median_error": _number(c.median_error)} for c in result.convergence],
        "correlations": [{"between": [a, b], "rank": t, "in_samples": _number(got)}
                         for a, b, t, got in result.achieved],
    }


def _number(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def explain(old: Path | str | None, new: Path | str, *, revision: str | None = None,
            groups: dict[str, list[str]] | None = None, by_input: bool = False) -> Bridge:
    """What differs between two versions of a site and how much each difference moved the headline outputs (its
    tables: .dataframe(); as data: workbook.explain.report.as_json). The old version is the file `old`, or `new`
    as it was at the git `revision`; `groups`: steps named by their input keys or sections (default: a step per
    section; `by_input`: per input)."""
    from workbook.explain import versions

    if revision is not None:
        with versions.scratch() as folder:
            before = versions.at_revision(revision, new, Path(folder))
    else:
        if old is None:
            raise InputError("has no old version to compare with", file=new,
                             expected="an old site file, or --from REV (a git revision of this one)")
        before = versions.version(old)
    return explain_versions(before, versions.version(new), groups or {}, by_input=by_input)
