"""What differs between two versions of a site, in the order a reader meets it on the Inputs sheet: the site's
name, the catalog parts chosen, the structural choices, every input (value and source), the imported quotes
(by BOM line), the scenarios and the risk: section.

An input that both versions hold as a number can be put into the other version's book on its own (an overlay):
the bridge gives it its own step. Anything else (a part, a choice that decides which rows exist, a quote added or
removed, an input only one version has, a value that came with a catalog part that changed) changes the book's
structure, and is attributed together as one step (workbook.explain.bridge)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from workbook.explain.versions import Version
from workbook.formula.evaluation import scalar
from workbook.formula.line import Line
from workbook.site.quotes import Quote
from workbook.site.spec import Value
from workbook.site.values import EPOCH

SITE, PART, CHOICE, INPUT, QUOTE, SCENARIO, SECTION = "site", "part", "choice", "input", "quote", "scenario", "section"
SCENARIO_SECTION = "Scenario: "  # the Inputs sheet's copies of a scenario's inputs: not the base case's


@dataclass(frozen=True)
class Difference:
    """One thing that differs. `section`: the Inputs sheet's section of an input (the default step it joins);
    `overlay`: a number both versions hold, which the bridge can change on its own; `moves`: whether it can move
    the base case's outputs at all (a scenario's or the risk's ranges cannot)."""

    kind: str
    key: str
    label: str
    unit: str
    old: str  # as shown ("" where the version has none)
    new: str
    old_source: str
    new_source: str
    section: str = ""
    overlay: bool = False
    moves: bool = True
    old_value: float | None = None
    new_value: float | None = None


def differences(old: Version, new: Version) -> list[Difference]:
    """Every difference between the versions, in the Inputs sheet's order."""
    out: list[Difference] = []
    if old.loaded.site.name != new.loaded.site.name:
        out.append(Difference(SITE, "site", "Site name", "", old.loaded.site.name, new.loaded.site.name,
                              str(old.path), str(new.path), moves=False))
    out += _parts(old, new)
    out += _choices(old, new)
    out += _inputs(old, new)
    out += _quotes(old.loaded.quotes, new.loaded.quotes)
    out += _sections(old, new)
    return out


def _parts(old: Version, new: Version) -> list[Difference]:
    a, b = old.loaded.site.parts, new.loaded.site.parts
    return [Difference(PART, f"catalog.{kind}", f"Catalog {kind}", "", a.get(kind, ""), b.get(kind, ""),
                       "", "", section="Catalog")
            for kind in dict.fromkeys([*a, *b]) if a.get(kind) != b.get(kind)]


def _choices(old: Version, new: Version) -> list[Difference]:
    """The structural choices and the words (a node's name) that differ; words move no figure."""
    a = {s.key: s for s in old.book.settings}
    b = {s.key: s for s in new.book.settings}
    out = []
    for key in dict.fromkeys([*b, *a]):
        x, y = a.get(key), b.get(key)
        if x is None or y is None or x.value != y.value or not _same_source(x.source, y.source, old, new):
            either = y if y is not None else x
            out.append(Difference(CHOICE, key, either.label, "", x.value if x else "", y.value if y else "",
                                  x.source if x else "", y.source if y else "", section="Choices",
                                  moves=(x.value if x else None) != (y.value if y else None) and either.shapes))
    return out


def _inputs(old: Version, new: Version) -> list[Difference]:
    a, b = _input_lines(old), _input_lines(new)
    out = []
    for key in dict.fromkeys([*b, *a]):  # the new version's order, then what only the old one has
        x, y = a.get(key), b.get(key)
        xv, yv = (None if line is None else scalar(line.value) for line in (x, y))
        same_value = xv is not None and yv is not None and xv == yv
        if same_value and _same_source(x.note, y.note, old, new):
            continue
        either = y if y is not None else x
        out.append(Difference(INPUT, key, either.label, either.unit_text, shown(x, xv), shown(y, yv),
                              x.note if x is not None else "", y.note if y is not None else "", either.section,
                              overlay=xv is not None and yv is not None, moves=not same_value,
                              old_value=xv, new_value=yv))
    return out


def _same_source(a: str, b: str, old: Version, new: Version) -> bool:
    """Whether two sources say the same, a source naming its own site file ("site file example.yaml") read as
    naming the other version's."""
    return a == b or a.replace(old.path.name, new.path.name) == b


def _input_lines(v: Version) -> dict[str, Line]:
    return {k: line for k, line in v.book.lines.items()
            if line.kind == "input" and not line.section.startswith(SCENARIO_SECTION)}


def shown(line: Line | None, value: float | None) -> str:
    """An input's value as a reader writes it: a date as a date, a percentage as one, else the number and unit."""
    if line is None or value is None:
        return ""
    if "yyyy" in line.fmt:
        return (EPOCH + datetime.timedelta(days=round(value))).isoformat()
    if line.unit_text == "%":
        return f"{value * 100:.10g}%"
    text = f"{value:,.0f}" if value == round(value) and abs(value) < 1e15 else f"{value:,.10g}"
    return f"{text} {line.unit_text}".strip()


def _quote_text(q: Quote | None) -> str:
    if q is None:
        return ""
    return (f"{q.vendor}, {q.date_text}: {q.unit_price:,.2f} USD x {q.quantity:,.0f}, {q.lead_weeks:g} weeks "
            f"({q.file})")


def quote_key(line: str) -> str:
    """A quote's difference's key: `quotes.nodes` (the BOM line it prices)."""
    return f"quotes.{line}"


def _quotes(a: dict[str, Quote], b: dict[str, Quote]) -> list[Difference]:
    """A quote added, removed or from another vendor, file or day, by BOM line (its price, lead time and quantity
    are inputs as well: listed above, where each can change on its own)."""
    out = []
    for key in sorted({*a, *b}):
        x, y = a.get(key), b.get(key)
        if x != y:
            both = x is not None and y is not None
            out.append(Difference(QUOTE, quote_key(key), f"Quote for BOM line {key}", "", _quote_text(x),
                                  _quote_text(y), x.sha256[:12] if x else "", y.sha256[:12] if y else "",
                                  section="Quotes", moves=not both))
    return out


def _sections(old: Version, new: Version) -> list[Difference]:
    """The upgrade's plan (its zones, projects and plans: the `generation:` section's layout, beside its inputs
    above), each scenario, and the risk: section, each by the keys that differ. A scenario or the risk's ranges
    cannot move the base case the bridge explains; the upgrade's layout can change the book's rows."""
    a, b = old.loaded.site.scenarios, new.loaded.site.scenarios
    out = []
    layout = [_layout(v.loaded.upgrade) for v in (old, new)]
    if layout[0] != layout[1]:
        keys = changed_keys(*layout)
        out.append(Difference(SECTION, "generation", "Generation upgrade plan (zones, projects, plans)", "",
                              _listed(keys, "differs in") if layout[0] else "",
                              _listed(keys, "differs in") if layout[1] else "", "", "",
                              section="Generation upgrade"))
    out += [Difference(SCENARIO, f"scenarios.{name}", f"Scenario {name}", "", _changes(a.get(name)),
                       _changes(b.get(name)), "", "", section="Scenarios", moves=False)
            for name in dict.fromkeys([*b, *a]) if a.get(name) != b.get(name)]
    x, y = old.loaded.site.risk, new.loaded.site.risk
    if x != y:
        keys = changed_keys(x or {}, y or {})
        out.append(Difference(SECTION, "risk", "Risk ranges (risk: section)", "",
                              _listed(keys, "differs in") if x else "", _listed(keys, "differs in") if y else "",
                              "", "", section="Risk", moves=False))
    return out


def _layout(upgrade: Any) -> Any:
    if upgrade is None:
        return {}
    return {"zones": list(upgrade.zones), "projects": dict(upgrade.projects),
            "plans": {k: [[repr(e) for e in side] for side in v] for k, v in upgrade.plans.items()}}


def changed_keys(a: Any, b: Any) -> list[str]:
    """The dotted keys whose values differ between two mappings (nested mappings flattened)."""
    x, y = flat(a), flat(b)
    return [k for k in dict.fromkeys([*x, *y]) if x.get(k) != y.get(k)]


def flat(data: Any, prefix: str = "") -> dict[str, Any]:
    """A nested mapping as dotted keys and their values."""
    if isinstance(data, dict):
        return {k: v for key, value in data.items() for k, v in flat(value, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): data}


def _listed(keys: list[str], what: str) -> str:
    more = f" and {len(keys) - 4} more" if len(keys) > 4 else ""
    return f"{what} {', '.join(keys[:4])}{more}"


def _changes(scenario: dict[str, Value] | None) -> str:
    """A scenario's changes as its file writes them (each value as given)."""
    if scenario is None:
        return ""
    return ", ".join(f"{k}: {v.given}" for k, v in scenario.items())
