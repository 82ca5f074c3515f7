"""The site file's optional `risk:` section, read and validated like any input: each distribution's parameters in
its input's unit and within that input's range, the relations between them (low <= mode <= high), and the rank
correlations forming a valid correlation matrix. A problem is an InputError naming the file, the key
(`risk.inputs.tco.utilisation.mode`), the value and what was expected.

    risk:
      samples: 10000            # optional (templates/defaults.yaml)
      seed: 20261205            # optional: the same seed, the same figures
      inputs:
        tco.utilisation: {distribution: triangular, low: 0.5, mode: 0.7, high: 0.85, source: "..."}
        tco.lead_time: {distribution: discrete, values: [3 months, 6 months], weights: [0.7, 0.3], source: "..."}
      correlations:
        - {between: [tco.on_demand_price, tco.rent_price_change], rank: 0.5, source: "..."}
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from workbook.formula.echo import clip
from workbook.formula.units import is_offset
from workbook.site.errors import InputError, did_you_mean, raise_all
from workbook.site.examples import example_for
from workbook.site.spec import Site, Spec, hidden
from workbook.site.templates import load_defaults, with_limits
from workbook.site.values import expected_value, parse_value
from workbook.site.yaml_reader import MAX_DIGITS

SECTION = "risk"
KEY = f"{SECTION}.inputs"

# Each distribution's parameters: those it needs, then those it may have (the PERT's shape has a default).
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "uniform": (("low", "high"), ()),
    "triangular": (("low", "mode", "high"), ()),
    "pert": (("low", "mode", "high"), ("shape",)),
    "normal": (("mean", "sd", "low", "high"), ()),  # truncated to [low, high]: a bounded input has no tails
    "lognormal": (("median", "sigma", "low", "high"), ()),  # sigma: of the value's logarithm (0.25 = about 25%)
    "discrete": (("values", "weights"), ()),
}
FIELDS = ("samples", "seed", "inputs", "correlations")
MAX_INPUTS = 40  # each is a column of every sample: more would not be read, and a typo'd list is found sooner
MAX_CHOICES = 50  # values of one discrete distribution

SETTINGS = with_limits([
    Spec("risk.samples", "Risk: samples drawn", "", "a whole number of samples", "10000", lo=100, hi=1_000_000,
         integer=True),
    Spec("risk.seed", "Risk: seed of the random draws", "", "a whole number", "20261205", lo=0, hi=2**32 - 1,
         integer=True),
])
SHAPE = Spec("risk.pert_shape", "PERT shape", "", "a positive number", "4", lo=0, lo_open=True, hi=100)
SIGMA = Spec("risk.sigma", "Lognormal sigma", "", "a positive number (the log's standard deviation)", "0.25",
             lo=0, lo_open=True, hi=3)
WEIGHT = Spec("risk.weight", "Weight", "", "a weight of at least 0", "0.5", lo=0, hi=1e6)
RANK = Spec("risk.rank", "Rank correlation", "", "a rank correlation from -1 to 1", "0.5", lo=-1, hi=1)


@dataclass(frozen=True)
class Distribution:
    """One input's distribution, its parameters in the input's unit (`params`: name -> value; a discrete one's
    `values` and `weights`, the weights summing to 1)."""

    key: str
    kind: str
    params: tuple[tuple[str, float], ...]
    source: str
    values: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()

    def param(self, name: str) -> float:
        return dict(self.params)[name]


@dataclass(frozen=True)
class Correlation:
    first: str
    second: str
    rank: float
    source: str


@dataclass(frozen=True)
class RiskPlan:
    """What the `risk:` section asks for: the samples, the seed, each input's distribution and the correlations."""

    samples: int
    seed: int
    inputs: tuple[Distribution, ...]
    correlations: tuple[Correlation, ...] = ()
    file: Path | None = None  # the site file it was read from, for an error about the whole section

    def matrix(self) -> np.ndarray:
        """The target rank correlation matrix, in the order of `inputs`."""
        index = {d.key: k for k, d in enumerate(self.inputs)}
        c = np.eye(len(self.inputs))
        for corr in self.correlations:
            i, j = index[corr.first], index[corr.second]
            c[i, j] = c[j, i] = corr.rank
        return c

    def scores_matrix(self) -> np.ndarray:
        """The correlation of normal scores whose rank correlation is the plan's: 2 sin(pi rho / 6) (Pearson, 1907,
        for a bivariate normal); Iman-Conover induces this one, so the samples' rank correlation is the target."""
        return 2 * np.sin(np.pi * self.matrix() / 6)


def read(site: Site, specs: list[Spec]) -> RiskPlan | None:
    """The site's risk plan, or None where its file has no `risk:` section. Every problem is found in one read."""
    raw = site.risk
    if raw is None:
        return None
    path = site.path
    if not isinstance(raw, dict):
        raise InputError("is not a mapping", file=path, key=SECTION, value=raw,
                         expected="a mapping of samples:, seed:, inputs: and correlations:")
    problems: list[InputError] = []
    for k in raw:
        if k not in FIELDS:
            problems.append(InputError(f"unknown key{did_you_mean(str(k), list(FIELDS))}", file=path,
                                       key=clip(f"{SECTION}.{k}"), value=raw[k]))
    samples, seed = (_setting(site, raw, spec, problems) for spec in SETTINGS)
    inputs = _inputs(site, raw.get("inputs"), {s.key: s for s in specs}, problems)
    given = {str(k) for k in raw["inputs"]} if isinstance(raw.get("inputs"), dict) else set()
    correlations = _correlations(site, raw.get("correlations"), inputs, problems, given)
    raise_all(problems)
    return RiskPlan(int(samples), int(seed), tuple(inputs), correlations, path)


def _setting(site: Site, raw: dict[Any, Any], spec: Spec, problems: list[InputError]) -> float:
    name = spec.key.split(".")[-1]
    try:
        return setting(raw.get(name, load_defaults()[spec.key][0]), spec, site.path)
    except InputError as e:
        problems.append(e)
        return 0.0


def setting(raw: Any, spec: Spec, where: Path | str) -> float:
    """The number of samples or the seed (a SETTINGS spec), from the section or the command line, checked. A
    whole number written in ASCII digits is read as one (exactly, where a float would round a seed); anything else
    as any value is (a superscript ², which str.isdigit takes and int refuses, is not a number)."""
    if isinstance(raw, str) and re.fullmatch(r"\s*-?[0-9]+\s*", raw):
        if len(raw.strip().lstrip("-")) > MAX_DIGITS:  # Python refuses to read more than 4,300 digits
            raise InputError(f"has more than {MAX_DIGITS:,} digits", file=where, key=spec.key, value=raw,
                             expected=expected_value(spec))
        raw = int(raw)
    return float(parse_value(raw, spec, where, spec.key))


def _inputs(site: Site, raw: Any, specs: dict[str, Spec], problems: list[InputError]) -> list[Distribution]:
    if not isinstance(raw, dict) or not raw:
        problems.append(InputError("is missing or empty" if not raw else "is not a mapping", file=site.path, key=KEY,
                                   value=raw, expected="a mapping of input key: {distribution: ..., source: ...}"))
        return []
    if len(raw) > MAX_INPUTS:
        problems.append(InputError(f"has {len(raw)} inputs", file=site.path, key=KEY, expected=f"at most {MAX_INPUTS}"))
        return []
    out = []
    for key, entry in raw.items():
        try:
            spec = _eligible(site, str(key), specs)
            out.append(_distribution(site, spec, entry))
        except InputError as e:
            problems.append(e)
    return out


def _eligible(site: Site, key: str, specs: dict[str, Spec]) -> Spec:
    """The spec of an input a distribution may vary: a number of the site's (not one that shapes the workbook,
    a choice, a date, words, a redundancy scheme or an absolute temperature, which cannot be scaled)."""
    where = f"{KEY}.{key}"
    spec = specs.get(key)
    if spec is None:
        raise InputError(f"is not an input{did_you_mean(key, list(specs))}", file=site.path, key=clip(where))
    why = ("shapes the workbook (its rows), so it cannot vary between samples" if spec.structural else
           "is a choice" if spec.choices else "is a date" if spec.date else "is words" if spec.text else
           "is a redundancy scheme" if spec.redundancy else
           "is an absolute temperature (vary a difference instead)" if is_offset(spec.pint_unit) else "")
    if why:
        raise InputError(f"{why}: no distribution", file=site.path, key=where, expected="a numeric input")
    if key not in site.values:
        raise InputError("is not used by this site (its choice switches it off)", file=site.path, key=where)
    return spec


def _distribution(site: Site, spec: Spec, entry: Any) -> Distribution:
    where = f"{KEY}.{spec.key}"
    expected = (f"{{distribution: one of {', '.join(KINDS)}, its parameters, source: ...}}")
    if not isinstance(entry, dict):
        raise InputError("is not a mapping", file=site.path, key=where, value=entry, expected=expected)
    kind = entry.get("distribution")
    if not isinstance(kind, str) or kind not in KINDS:
        raise InputError("is not a known distribution", file=site.path, key=f"{where}.distribution",
                         value=kind, expected=f"one of {', '.join(KINDS)}")
    needs, may = KINDS[kind]
    extra = sorted(str(k) for k in entry if k not in (*needs, *may, "distribution", "source"))
    missing = [k for k in needs if entry.get(k) is None]
    if extra or missing:
        problem = f"unknown field {extra[0]}" if extra else f"has no {missing[0]}"
        raise InputError(clip(problem), file=site.path, key=where, expected=f"a {kind} with {', '.join(needs)}"
                         + (f" (and optionally {', '.join(may)})" if may else "") + " and source")
    source = entry.get("source")
    if not isinstance(source, str) or not source.strip() or hidden(source):
        raise InputError(hidden(source) if isinstance(source, str) and hidden(source) else "has no source",
                         file=site.path, key=f"{where}.source", value=source,
                         expected="where the range comes from, in plain text")
    if spec.integer and kind != "discrete":
        raise InputError(f"is a whole number ({spec.unit or 'a count'}): a {kind} distribution would give fractions",
                         file=site.path, key=f"{where}.distribution", value=kind, expected="discrete")
    if kind == "discrete":
        values, weights = _choices(site, spec, entry, where)
        return Distribution(spec.key, kind, (), " ".join(source.split()), values, weights)
    params = {name: _param(site, spec, name, entry[name], where) for name in needs}
    if kind == "pert":  # the weight on the mode: the tool's default unless the entry gives one
        shape = entry.get("shape", load_defaults()[SHAPE.key][0])
        params["shape"] = float(parse_value(shape, SHAPE, site.path, f"{where}.shape"))
    _ordered(site, spec, kind, params, entry, where)
    return Distribution(spec.key, kind, tuple(params.items()), " ".join(source.split()))


def _param(site: Site, spec: Spec, name: str, raw: Any, where: str) -> float:
    """A parameter in the input's unit and range; a spread (sd) in the unit, above 0; sigma a plain number."""
    key = f"{where}.{name}"
    if name == "sigma":
        return float(parse_value(raw, SIGMA, site.path, key))
    if name == "sd":
        spread = dataclasses.replace(spec, key=f"{spec.key}.sd", lo=0, lo_open=True, hi=None, why="",
                                     expect=f"a spread of {spec.expect}", example=_spread_example(spec))
        return float(parse_value(raw, spread, site.path, key))
    return float(parse_value(raw, spec, site.path, key))


def _spread_example(spec: Spec) -> str:
    """An example of a normal's sd for this input, as its own example is written: a tenth of that example's size, in
    its unit (0.01 for a rent change of -0.1 a year; the input's example itself may be negative, a spread never)."""
    number, _, unit_text = example_for(spec)[0].partition(" ")
    try:
        size = abs(float(number)) / 10
    except ValueError:
        size = 0.0
    return f"{size or 0.1:g}{' ' + unit_text if unit_text else ''}"


def _ordered(site: Site, spec: Spec, kind: str, p: dict[str, float], entry: dict[Any, Any], where: str) -> None:
    """low < high, and the mode, mean or median between them; a lognormal's values above 0."""
    def fail(name: str, problem: str) -> InputError:
        return InputError(problem, file=site.path, key=f"{where}.{name}", value=entry[name],
                          others=((f"{where}.{other}", entry[other]) for other in ("low", "high") if other != name))

    if not p["low"] < p["high"]:
        raise InputError("low must be below high", file=site.path, key=f"{where}.low", value=entry["low"],
                         others=((f"{where}.high", entry["high"]),), expected="low < high")
    middle = next((m for m in ("mode", "mean", "median") if m in p), None)
    if middle is not None and not p["low"] <= p[middle] <= p["high"]:
        raise fail(middle, "must lie from low to high")
    if kind == "lognormal" and p["low"] < 0:
        raise fail("low", "must be at least 0 (a lognormal value is positive)")
    if kind == "lognormal" and p["median"] <= 0:
        raise fail("median", "must be above 0 (a lognormal value is positive)")


WEIGHTS_TOLERANCE = 1e-9  # discrete weights are probabilities: they must sum to 1 (as written: 0.1 + 0.2 + 0.7 is not
# exactly 1 in binary), never rescaled silently


def _choices(site: Site, spec: Spec, entry: dict[Any, Any], where: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    values, weights = entry["values"], entry["weights"]
    for name, given in (("values", values), ("weights", weights)):
        if not isinstance(given, list) or not 1 <= len(given) <= MAX_CHOICES:
            raise InputError(f"is not a list of 1 to {MAX_CHOICES} entries", file=site.path, key=f"{where}.{name}",
                             value=given,
                             expected=f"a list of 1 to {MAX_CHOICES} entries, e.g. [3 months, 6 months]")
    if len(values) != len(weights):
        raise InputError(f"has {len(weights)} weights for {len(values)} values", file=site.path,
                         key=f"{where}.weights", value=weights, expected="one weight per value")
    xs = tuple(float(parse_value(v, spec, site.path, f"{where}.values[{k}]")) for k, v in enumerate(values))
    ws = tuple(float(parse_value(w, WEIGHT, site.path, f"{where}.weights[{k}]")) for k, w in enumerate(weights))
    if abs(math.fsum(ws) - 1.0) > WEIGHTS_TOLERANCE:
        raise InputError(f"sum to {math.fsum(ws):g}, not 1", file=site.path, key=f"{where}.weights", value=weights,
                         expected="probabilities that sum to 1 (to 1e-9): each weight is a value's chance, none "
                                  "rescaled")
    if len(set(xs)) != len(xs):
        raise InputError("repeat a value", file=site.path, key=f"{where}.values", value=values,
                         expected="each value once, with its weight")
    return xs, ws


def _correlations(site: Site, raw: Any, inputs: list[Distribution], problems: list[InputError],
                  given: set[str]) -> tuple[Correlation, ...]:
    """The correlations; one problem per entry at fault, but none for an entry naming an input whose distribution
    was refused (`given` but not among `inputs`: its own problem says why)."""
    if raw is None:
        return ()
    key = f"{SECTION}.correlations"
    expected = "a list of {between: [input, input], rank: -1 to 1, source: ...}"
    if not isinstance(raw, list):
        problems.append(InputError("is not a list", file=site.path, key=key, value=raw, expected=expected))
        return ()
    varied = [d.key for d in inputs]
    refused = given - set(varied)
    out: list[Correlation] = []
    seen: set[tuple[str, str]] = set()
    for k, entry in enumerate(raw):
        pair = entry.get("between") if isinstance(entry, dict) else None
        if isinstance(pair, list) and not refused.isdisjoint(x for x in pair if isinstance(x, str)):
            continue
        try:
            out.append(_correlation(site, entry, f"{key}[{k}]", varied, expected, seen))
            seen.add((out[-1].first, out[-1].second))
        except InputError as e:
            problems.append(e)
    if out and not problems:
        plan = RiskPlan(1, 0, tuple(inputs), tuple(out))
        if min(np.linalg.eigvalsh(plan.matrix()).min(), np.linalg.eigvalsh(plan.scores_matrix()).min()) <= 1e-9:
            problems.append(InputError("do not form a valid correlation matrix (it is not positive definite)",
                                       file=site.path, key=key, value=[[c.first, c.second, c.rank] for c in out],
                                       expected="correlations that can hold together (e.g. not +0.9, +0.9 and "
                                                "-0.9 among three inputs, nor exactly +/-1)"))
    return tuple(out)


def _correlation(site: Site, entry: Any, where: str, varied: list[str], expected: str,
                 seen: set[tuple[str, str]]) -> Correlation:
    if not isinstance(entry, dict) or set(entry) != {"between", "rank", "source"}:
        raise InputError("is not a correlation", file=site.path, key=where, value=entry, expected=expected)
    pair = entry["between"]
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
        raise InputError("is not two input keys", file=site.path, key=f"{where}.between", value=pair,
                         expected="[input, input], each given a distribution under risk.inputs")
    a, b = pair
    for x in pair:
        if x not in varied:
            raise InputError(f"names an input with no distribution{did_you_mean(x, varied)}", file=site.path,
                             key=f"{where}.between", value=clip(x), expected=f"one of {', '.join(varied)}")
    if a == b or (a, b) in seen or (b, a) in seen:
        raise InputError("repeats an input or a pair", file=site.path, key=f"{where}.between", value=pair,
                         expected="two different inputs, each pair once")
    rank = float(parse_value(entry["rank"], RANK, site.path, f"{where}.rank"))
    source = entry["source"]
    if not isinstance(source, str) or not source.strip() or hidden(source):
        raise InputError("has no source in plain text", file=site.path, key=f"{where}.source", value=source,
                         expected="why the two move together")
    return Correlation(a, b, rank, " ".join(source.split()))
