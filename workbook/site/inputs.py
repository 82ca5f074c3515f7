"""Site YAML -> validated quantities, with one-line errors that name the file, the key, the value and the unit.

A site file has a `site:` name, an optional `catalog:` choice of hardware (whose values become defaults, each
with its source), and one section per model (`power:`, ...) of `key: value` pairs. A value is a number, a
quantity as text (`700 W`, `0.08 USD/kWh`, `30 degC`), a word for a choice, or `{value: ..., source: ...}`.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import difflib
import functools
import hashlib
import math
import operator
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pint

from workbook.formula.echo import clip, echo
from workbook.formula.ranges import Range, shown
from workbook.formula.units import Q_, described, factor, information_differs, is_information, unit
from workbook.site.yaml_reader import YamlError, read_yaml

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
CATALOG_PATH = TEMPLATES / "catalog.yaml"
DEFAULTS_PATH = TEMPLATES / "defaults.yaml"
LIMITS_PATH = TEMPLATES / "limits.yaml"
_TEMPERATURE = re.compile(r"^\s*([-+]?[0-9.]+(?:[eE][-+]?\d+)?)\s*(degC|degF|°C|°F|K)\s*$")
_REDUNDANCY = re.compile(r"^\s*(\d*)\s*N\s*(?:\+\s*(\d+))?\s*$")


_NO_VALUE: Any = object()  # an error about no value in particular (None is a value: YAML's null)


class InputError(ValueError):
    """Bad site input. Its message is one line, ready to print: the file, the key, the value, the problem and what
    was expected, composed from the same parts held as attributes:

    file      the file at fault (the site file; the catalog or defaults file a value came from), or None
    key       where in it: a dotted key ("power.gpu_tdp", "catalog.gpu", "site"), or None (the whole file)
    value     the offending value as the file gives it, or None (no value in particular, or YAML's null)
    expected  what was expected, in words, with the unit and an example where there is one, or None
    unit      the unit the value must be in, as a site file may write it ("W", "USD/GPU/hour"), or None
    problem   the short reason: "is not a whole number", "unknown key (did you mean power.gpu_tdp?)"
    line      the line of the file, from 1, where the file is not a site file's YAML (and column, the column), or None
    others    the other (key, value) pairs the error is about: the second key of a rule between two keys
    scenario  the scenario whose change is at fault, or None for the base case
    """

    def __init__(self, problem: str, *, file: Path | str | None = None, key: str | None = None,
                 value: Any = _NO_VALUE, expected: str | None = None, unit: str | None = None,
                 line: int | None = None, column: int | None = None, others: tuple[tuple[str, Any], ...] = (),
                 scenario: str | None = None, where: str | None = None):
        """`where`: how the message names the place, when the file alone does not (a catalog entry, a scenario)."""
        self.problem = _one_line(problem)
        self.file = Path(file) if file is not None else None
        self.key, self.expected, self.unit, self.line, self.column = key, expected, unit, line, column
        self.value = None if value is _NO_VALUE else value
        self.others, self.scenario, self.where = tuple(others), scenario, where
        self._has_value = value is not _NO_VALUE
        place = where if where is not None else (str(file) if file is not None else None)
        subject = key
        if key is not None and self._has_value:
            subject = " and ".join(f"{k} = {echo(v)}" for k, v in ((key, value), *self.others))
        reason = "; ".join(t for t in (self.problem, f"expected {expected}" if expected else "") if t)
        super().__init__(_one_line(": ".join(t for t in (place, subject, reason) if t)))

    def located(self, **changes: Any) -> InputError:
        """The same error with its place (file, key, where...) given or replaced."""
        fields = {k: getattr(self, k) for k in ("file", "key", "expected", "unit", "line", "column", "others",
                                                "scenario", "where")}
        if self._has_value:
            fields["value"] = self.value
        return InputError(self.problem, **{**fields, **changes})


class InputErrors(InputError):
    """Every problem found in one read of a site file, at once: `errors`, each an InputError with its attributes.
    Its message has one line per problem, in the order found (what the file gives, then what it lacks). Its own
    attributes (file, key, problem...) are the first problem's, so a caller that handles one InputError still reads
    a true one; a single problem is raised as that InputError itself."""

    def __init__(self, errors: list[InputError] | tuple[InputError, ...]):
        self.errors = tuple(errors)
        if not self.errors:
            raise ValueError("InputErrors needs at least one error")
        self.__dict__.update({k: v for k, v in self.errors[0].__dict__.items() if k != "errors"})
        ValueError.__init__(self, "\n".join(str(e) for e in self.errors))


def raise_all(problems: list[InputError]) -> None:
    """Nothing if there is no problem; the one InputError if there is one; InputErrors for several."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputErrors(problems)


@dataclass(frozen=True)
class Spec:
    """One input key: what it means, its unit, the range it must lie in, when it applies."""

    key: str  # "power.gpu_tdp"
    label: str
    unit: str  # as shown in the units column and stored on the Inputs sheet
    expect: str  # in words, for error messages: "a power"
    example: str  # "700 W"
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False  # lo itself is not allowed
    integer: bool = False
    even: bool = False  # a whole number divisible by 2 (e.g. a switch radix: half its ports down, half up)
    choices: tuple[str, ...] = ()  # a word input that shapes the model (e.g. "pue" / "itemised")
    redundancy: bool = False  # "N", "N+1", "2N": becomes a multiplier and a number of spares
    when: tuple[str, str] | None = None  # only used when another (choice) key has this value
    fmt: str = "#,##0.00"
    help: str = ""
    structural: bool = False  # a number that shapes the workbook (e.g. timeline length): not a live input
    why: str = ""  # why lo..hi is the range a real site can have (templates/limits.yaml)
    optional: bool = False  # may be absent: the model then uses another line (e.g. the annual PUE -> the design PUE)
    date: bool = False  # a calendar date (2026-12-01), stored as a spreadsheet date: days since 1899-12-30
    text: int = 0  # words of at most this many characters (a node's name, an address): shown, in no formula
    starts: tuple[str, ...] = ()  # a text that must begin with one of these words, then more (an Incoterms rule)
    alone: tuple[str, ...] = ()  # texts allowed as they are, in place of a date or of starts' words ("to be agreed")
    liquid: bool = False  # needed only where a part is liquid-cooled (LIQUID_SHARES): else a stand-in, not REQUIRED

    @property
    def bounds(self) -> Range:
        return Range(self.lo, self.hi, self.lo_open)

    @property
    def pint_unit(self) -> pint.Unit:
        from workbook.formula.line import pint_text

        return unit(pint_text(self.unit))


@dataclass
class Value:
    magnitude: float | str | tuple[int, int]  # number in the spec's unit, choice word, (multiplier, spares)
    given: str  # the value as written
    source: str  # where it came from: the site file, the catalog entry and its source


@dataclass
class Site:
    path: Path
    name: str
    description: str
    values: dict[str, Value]
    digest: str  # SHA-256 of the site file's bytes, shown on the Cover
    scenarios: dict[str, dict[str, Any]] = field(default_factory=dict)
    generation: Any = None  # the raw `generation:` section (workbook.models.generation.inputs reads it)
    parts: dict[str, str] = field(default_factory=dict)  # catalog kind -> the entry's description (the BOM's specs)
    quotes: Any = None  # the raw `quotes:` section: the vendor chosen per BOM line (workbook.site.quotes reads it)
    risk: Any = None  # the raw `risk:` section: input distributions (workbook.analysis.risk.section reads it)
    models: dict[str, str] = field(default_factory=dict)  # catalog kind -> the entry chosen ("switch": "QM9700")

    def get(self, key: str) -> Value | None:
        return self.values.get(key)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# Where a value comes from: a file (its path, as text or a Path), or (file, how messages name the place) for a part of
# a file ("catalog.yaml H100-SXM"). Text of the form "FILE: scenarios.NAME" is a scenario's change in FILE.
Where = str | Path | tuple[Path | str, str]
_SCENARIO_PLACE = re.compile(r"^(?P<file>.+): scenarios\.(?P<name>[a-z0-9_]+)$")


def _place(where: Where) -> dict[str, Any]:
    """An error's file, and the scenario and the message's wording of the place where those are not the file."""
    if isinstance(where, tuple):
        return {"file": where[0], "where": where[1]}
    m = _SCENARIO_PLACE.match(str(where))
    if m:
        return {"file": m["file"], "scenario": m["name"], "where": str(where)}
    return {"file": where}


def expected_value(spec: Spec, key: str | None = None) -> str:
    """What a key's value must be, in words, with its unit and an example of that key's own (example_for);
    `key`: the key as the message names it, where it is not the spec's (a scenario's, a fleet's)."""
    name = (key or spec.key).split(".")[-1]
    if spec.choices:
        return f"one of {', '.join(spec.choices)}, e.g. {name}: {example_for(spec)[0]}"
    if spec.redundancy:
        return f"a redundancy scheme such as N, N+1, N+2, 2N or 2N+1, e.g. {name}: {example_for(spec)[0]}"
    if spec.text:
        return f"{spec.expect}, e.g. {name}: {spec.example}"
    return f"{spec.expect}{_in_unit(spec)}, e.g. {name}: {example_for(spec)[0]}"


# The project's example sites, whose values are each key's example where the tool has no default: the example
# site first, then the build site for what it does not use (an own build, a loan, an itemised overhead).
EXAMPLE_SITES = (TEMPLATES.parent / "inputs" / "example.yaml", TEMPLATES.parent / "inputs" / "b200-liquid-build.yaml")


# the node's parts whose heat cold plates may take: a site whose shares are all 0 has no coolant loop
LIQUID_SHARES = ("cooling.gpu_liquid_share", "cooling.cpu_liquid_share", "cooling.baseboard_liquid_share",
                 "cooling.nic_liquid_share")
AIR_COOLED = ("not used: no part is liquid-cooled (" + ", ".join(k.split(".")[1] for k in LIQUID_SHARES)
              + " all 0), so no coolant loop; the example's value stands in for the rows that do not apply")


def air_cooled(raw: Callable[[str], Any]) -> bool:
    """Whether every part's liquid share is 0, from each share's raw value as written (`raw(key)`, None where it is
    not known): a key only a liquid-cooled part needs (Spec.liquid) is then neither REQUIRED nor missing."""
    for key in LIQUID_SHARES:
        value = raw(key)
        value = value.get("value") if isinstance(value, dict) else value
        if isinstance(value, str):
            value = value.strip().rstrip("%").strip()
        try:
            if isinstance(value, bool) or value is None or float(value) != 0:
                return False
        except (TypeError, ValueError):
            return False
    return True


def example_for(spec: Spec) -> tuple[str, str]:
    """A value for this key, as a site file writes it, and where it comes from: the key's default
    (templates/defaults.yaml), else the value an example site has for it (given, or from the catalog entry it
    chose), else the Spec's own example. Never a generic value of the unit: `cable_price` is shown 150 USD (the
    example site's cable), not the price of a server."""
    if spec.key in _default_examples():
        return _default_examples()[spec.key]
    return _site_examples().get(spec.key, (spec.example, ""))


@functools.cache
def _default_examples() -> dict[str, tuple[str, str]]:
    try:
        defaults = load_defaults()
        return {key: (written(raw), f"{DEFAULTS_PATH.name}: {source}") for key, (raw, source) in defaults.items()}
    except InputError:
        return {}


@functools.cache
def _site_examples() -> dict[str, tuple[str, str]]:
    """key -> (value as written, where it comes from) over the example sites, the first site's value kept."""
    out: dict[str, tuple[str, str]] = {}
    for path in EXAMPLE_SITES:
        try:
            data, _ = read_yaml(path)
            catalog = load_catalog()
        except (OSError, YamlError, InputError):
            continue
        if not isinstance(data, dict):
            continue
        found: dict[str, tuple[str, str]] = {}
        for kind, name in (data.get("catalog") or {}).items():
            entry = (catalog.get(catalog_table(str(kind))) or {}).get(name) if isinstance(name, str) else None
            for key, raw in ((entry.get("values") if isinstance(entry, dict) else None) or {}).items():
                value, source = _value_source(raw)
                found[key] = (written(value), f"{path.name}, catalog {kind} {name}: {source}")
        for section, body in data.items():
            if section in TOP_LEVEL or not isinstance(body, dict):
                continue
            for key, raw in body.items():
                value, source = _value_source(raw)
                found[f"{section}.{key}"] = (written(value), f"{path.name}: {source}" if source else path.name)
        out = {**found, **out}
    return out


def _value_source(raw: Any) -> tuple[Any, str]:
    return (raw.get("value"), _one_line(raw.get("source") or "")) if isinstance(raw, dict) else (raw, "")


def written(raw: Any) -> str:
    """A value as a site file writes it: 1024, 0.075, 70000000000, 41 kW."""
    if isinstance(raw, float):
        return f"{raw:.12g}"
    return _one_line(str(raw))


def expected_unit(spec: Spec) -> str | None:
    """The unit a key's value is written in, or None for a pure number or a word."""
    if spec.choices or spec.text or spec.redundancy or not spec.pint_unit.dimensionality:
        return None
    return writable_unit(spec)


def _fail(where: Where, key: str, raw: Any, problem: str, spec: Spec | None = None) -> InputError:
    expected = expected_value(spec, key) if spec is not None else None
    unit_text = expected_unit(spec) if spec is not None else None
    return InputError(problem, key=key, value=raw, expected=expected, unit=unit_text, **_place(where))


def _in_unit(spec: Spec) -> str:
    if spec.unit == "%":
        return " (such as 0.7, or 70%)"
    return f" in {writable_unit(spec)}" if spec.pint_unit.dimensionality else ""


def writable_unit(spec: Spec) -> str:
    """The spec's unit as a site file may write it: the Inputs sheet's spelling (USD/GPU-h) reads well but is not
    one the parser takes, so the example's unit (USD/GPU/hour) is named instead."""
    if _text_quantity(f"1 {spec.unit}") is not None:
        return spec.unit
    m = _NUMBER.match(spec.example)
    shown = m.group(2) if m else spec.unit
    return f"1{shown.replace(' ', '')}" if shown.startswith("/") else shown


def _amount(spec: Spec, x: float) -> str:
    """A bound as the reader wrote it: 100% for a fraction, 41 kW for a power, 2 for a count, and for a count the
    sheet shows scaled, the count the file gives with the sheet's figure beside it: 1e+06 (0.001 B params)."""
    if spec.unit == "%":
        return shown(x, percent=True)
    if spec.pint_unit.dimensionality or is_information(spec.pint_unit):
        return f"{x:g} {spec.unit}"
    scale = factor(spec.pint_unit, unit(""))
    return f"{x * scale:g} ({x:g} {spec.unit})" if scale != 1 else f"{x:g}"


def _finance_time(text: str) -> str:
    """Years and months in a site file are finance's: 8760 h and 730 h (pint's year is 365.25 days)."""
    text = re.sub(r"\b(years?|yr)\b", "fyear", text)
    return re.sub(r"\b(months?|mo)\b", "fmonth", text)


# One number, then a unit whose only digits are exponents: pint alone would read "1 024 kW" as 24 kW.
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")
_UNIT_DIGITS = re.compile(r"(?<![\^*])\b\d|(?<=[a-zA-Z])\d")
TINY, HUGE = 1e-9, 1e15  # non-zero magnitudes outside this range are typos, and overflow spreadsheets


def _text_quantity(raw: str) -> pint.Quantity | None:
    m = _TEMPERATURE.match(raw)
    if m:
        return Q_(float(m.group(1)), m.group(2).replace("°C", "degC").replace("°F", "degF"))
    m = _NUMBER.match(raw)
    if m is None:
        return None
    number, unit_text = m.groups()
    unit_text = _finance_time(unit_text.replace("%", "percent"))
    if unit_text.startswith("/"):
        unit_text = "1" + unit_text
    if _UNIT_DIGITS.search(unit_text.lstrip("1")) or re.search(r"[,;]", unit_text):
        return None
    try:
        return Q_(float(number), unit(unit_text))
    except Exception:
        return None


def _quantity(raw: Any, spec: Spec, where: Where, key: str) -> float:
    target = spec.pint_unit
    if isinstance(raw, bool) or raw is None:
        raise _fail(where, key, raw, "is not a number", spec)
    if isinstance(raw, int | float):
        if target.dimensionality or is_information(target):  # a count stays a plain number, a size never is
            raise _fail(where, key, raw, "has no unit", spec)
        if abs(raw) > HUGE:  # before float(), which overflows above 1e308; the key's own range first
            raise _fail(where, key, raw, _outside(spec, raw) or f"is outside {TINY:g} to {HUGE:g} (a typo?)", spec)
        q = Q_(float(raw), "dimensionless")
    elif isinstance(raw, str):
        q = _text_quantity(raw)
        if q is None:
            raise _fail(where, key, raw, "is not one number followed by a unit", spec)
    else:
        raise _fail(where, key, raw, "is not a number", spec)
    try:
        if information_differs(q.units, target):  # "16" for bytes is not 16 bits, "128 byte" not 1,024 GPUs
            raise pint.DimensionalityError(q.units, target)
        mag = float(q.to(target).magnitude)
    except pint.DimensionalityError:
        found = described(q.units)
        raise _fail(where, key, raw, f"is {found if found == 'a pure number' else 'in ' + found}, which is not "
                    f"{spec.expect}", spec) from None
    except Exception:
        raise _fail(where, key, raw, "is not a number with a unit", spec) from None
    outside = _outside(spec, mag)  # the key's own range first (1e400 too): its reason says more than a typo's
    if outside is not None:
        raise _fail(where, key, raw, outside, spec)
    if not math.isfinite(mag):
        raise _fail(where, key, raw, "is not a finite number", spec)
    if mag != 0 and not TINY <= abs(mag) <= HUGE:
        raise _fail(where, key, raw, f"is outside {TINY:g} to {HUGE:g} {spec.unit} (a typo?)".rstrip(), spec)
    if spec.integer and not float(mag).is_integer():
        raise _fail(where, key, raw, "is not a whole number", spec)
    if spec.even and mag % 2 != 0:
        raise _fail(where, key, raw, "is not an even number", spec)
    return mag


def _outside(spec: Spec, x: float) -> str | None:
    """How a value lies outside the key's own range, with the range's reason; None inside it (or for a NaN)."""
    why = f" ({spec.why})" if spec.why else ""
    if spec.bounds.below(x):
        return f"must be {'greater than' if spec.lo_open else 'at least'} {_amount(spec, spec.lo)}{why}"
    if spec.bounds.above(x):
        return f"must be at most {_amount(spec, spec.hi)}{why}"
    return None


def parse_value(raw: Any, spec: Spec, where: Where, key: str) -> float | str | tuple[int, int]:
    """The value of one key, or an InputError naming `where` (see Where), the key, the value and what is expected."""
    if spec.choices:
        if not isinstance(raw, str) or raw.strip().lower() not in spec.choices:
            raise _fail(where, key, raw, "is not a known choice", spec)
        return raw.strip().lower()
    if spec.text:
        return _words(raw, spec, where, key)
    if spec.redundancy:
        m = _REDUNDANCY.match(str(raw)) if isinstance(raw, str) else None
        if m is None or (m.group(1) and int(m.group(1)) < 1):
            raise _fail(where, key, raw, "is not a redundancy scheme the tool knows", spec)
        return (int(m.group(1) or 1), int(m.group(2) or 0))
    if spec.date:
        return _date(raw, spec, where, key)
    return _quantity(raw, spec, where, key)


# Characters a site file's text may not hold: controls (whitespace is folded to single spaces first), format
# characters (bidirectional overrides that make a text read other than it is), line and paragraph separators.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


def hidden(text: str) -> str | None:
    """What is wrong with a text from outside, or None: the first character it may not hold (a control, a format
    character such as a bidirectional override, a line or paragraph separator, a lone surrogate), said as
    "holds the control or format character U+001B"."""
    ch = next((ch for ch in text if unicodedata.category(ch) in _HIDDEN), None)
    return None if ch is None else f"holds the control or format character U+{ord(ch):04X}"


def _words(raw: Any, spec: Spec, where: Where, key: str) -> str:
    """A text value (a site file is untrusted): one line of at most spec.text characters, no control or format
    characters, one of spec.alone or else beginning with one of spec.starts (where given) followed by more words
    (an Incoterms rule is followed by its named place); a date text is a date written YYYY-MM-DD or one of
    spec.alone."""
    if isinstance(raw, datetime.date) and spec.date:
        raw = raw.isoformat()
    if not isinstance(raw, str):
        raise _fail(where, key, raw, "is not text (write it in quotes)", spec)
    text = " ".join(raw.split())  # tabs, newlines and runs of spaces: one space
    if not text:
        raise _fail(where, key, raw, "is empty", spec)
    problem = hidden(text)
    if problem is not None:
        raise _fail(where, key, raw, problem, spec)
    if len(text) > spec.text:
        raise _fail(where, key, raw, f"is longer than {spec.text} characters", spec)
    if text in spec.alone:  # e.g. "to be agreed"
        return text
    if spec.date:
        _date(text, spec, where, key)
    elif spec.starts and text in spec.starts:
        raise _fail(where, key, raw, f"is {text} alone, without the named place that follows it", spec)
    elif spec.starts and not any(text.startswith(w + " ") for w in spec.starts):
        raise _fail(where, key, raw, f"does not begin with one of {', '.join(spec.starts)}", spec)
    return text


EPOCH = datetime.date(1899, 12, 30)  # a spreadsheet's day 0: day 1 is 1900-01-01 after Excel's 1900 leap-day bug
_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s*$")


def serial(day: datetime.date) -> float:
    """A date as a spreadsheet stores it: days since 1899-12-30 (Excel and LibreOffice agree from 1900-03-01)."""
    return float((day - EPOCH).days)


def _date(raw: Any, spec: Spec, where: Where, key: str) -> float:
    """A calendar date written YYYY-MM-DD (YAML may already have read it as a date)."""
    if isinstance(raw, datetime.datetime):
        raw = raw.date()
    if not isinstance(raw, datetime.date):
        m = _DATE.match(raw) if isinstance(raw, str) else None
        try:
            day = datetime.date(int(m[1]), int(m[2]), int(m[3])) if m else None
        except ValueError:
            day = None
        if day is None:
            raise _fail(where, key, raw, "is not a date written YYYY-MM-DD", spec)
        raw = day
    if not datetime.date(2000, 1, 1) <= raw <= datetime.date(2100, 12, 31):
        raise _fail(where, key, str(raw), "is not a date between 2000-01-01 and 2100-12-31", spec)
    return serial(raw)


def split_value(raw: Any) -> tuple[Any, str]:
    """A value and its source, from either `x` or `{value: x, source: ...}`."""
    if isinstance(raw, dict) and "value" in raw:
        extra = set(raw) - {"value", "source", "note"}
        if extra:
            raise InputError(clip(f"unknown field(s) {', '.join(sorted(map(str, extra)))} beside value/source"),
                             value=raw, expected="{value: ..., source: ...} (and an optional note)")
        source = _one_line(raw.get("source", "") or raw.get("note", ""))
        problem = hidden(source)
        if problem is not None:
            raise InputError(f"its source {problem}", value=raw, expected="a source in plain text")
        return raw["value"], source
    return raw, ""


def _read_yaml(path: Path) -> Any:
    try:
        return read_yaml(path)
    except OSError as e:
        raise InputError(f"cannot read the file ({e.strerror or e})", file=path) from None
    except YamlError as e:
        raise InputError(e.problem, file=path, key=e.key, line=e.line, column=e.column) from None


def _read_template(path: Path) -> Any:
    """A template's data, parsed once per content: every site's load reads the catalog and the defaults (a batch
    build or a test run loads hundreds of sites), and parsing them took a quarter of a site's load. Keyed on the
    bytes, so an edited template is read again; a deep copy, so no caller changes another's."""
    try:
        raw = Path(path).read_bytes()
    except OSError:
        raw = None
    if raw is None or (Path(path), raw) not in _TEMPLATES:
        data, read = _read_yaml(path)
        for old in [key for key in _TEMPLATES if key[0] == Path(path)]:
            del _TEMPLATES[old]  # one version of each template is enough
        _TEMPLATES[(Path(path), read)] = data
        return copy.deepcopy(data)
    return copy.deepcopy(_TEMPLATES[(Path(path), raw)])


_TEMPLATES: dict[tuple[Path, bytes], Any] = {}


def load_catalog(path: Path = CATALOG_PATH) -> dict[str, Any]:
    data = _read_template(path)
    if not isinstance(data, dict):
        raise InputError("the catalog must be a mapping of kinds (gpus, nodes, ...)", file=path)
    return data


def load_defaults(path: Path = DEFAULTS_PATH) -> dict[str, tuple[Any, str]]:
    """The defaults of keys no site file or catalog entry gives: key -> (value, source)."""
    data = _read_template(path)
    if not isinstance(data, dict):
        raise InputError("defaults must be a mapping of key: {value, source}", file=path)
    out = {}
    for key, raw in data.items():
        try:
            value, source = split_value(raw)
        except InputError as e:
            raise e.located(file=path, key=str(key)) from None
        if not source:
            raise InputError("every default needs its source", file=path, key=str(key), value=raw,
                             expected="{value: ..., source: where it comes from}")
        out[str(key)] = (value, source)
    return out


@functools.cache
def load_limits(path: Path = LIMITS_PATH) -> dict[str, tuple[float | None, float | None, str]]:
    """The range a real site's input can have: key -> (lo, hi, why), in the key's unit."""
    data, _ = _read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("limits must be a mapping of key: {lo, hi, why}", file=path)
    out = {}
    for key, entry in data.items():
        ok = isinstance(entry, dict) and set(entry) <= {"lo", "hi", "why"} and entry.get("why")
        bounds = [entry.get(b) for b in ("lo", "hi")] if ok else []
        if not ok or not all(b is None or (isinstance(b, int | float) and math.isfinite(b)) for b in bounds):
            raise InputError("is not a range with its reason", file=path, key=str(key), value=entry,
                             expected="{lo: number, hi: number, why: the reason}")
        out[str(key)] = (bounds[0], bounds[1], str(entry["why"]))
    return out


def with_limits(specs: list[Spec]) -> list[Spec]:
    """The specs with the ranges of templates/limits.yaml: the tighter of the model's bound and the limit."""
    limits = load_limits()
    out = []
    for spec in specs:
        if spec.key not in limits:
            out.append(spec)
            continue
        lo, hi, why = limits[spec.key]
        lo, hi, lo_open = spec.bounds.tightened(lo, hi)
        out.append(dataclasses.replace(spec, lo=lo, hi=hi, lo_open=lo_open, why=why))
    return out


def closest(key: str, known: Iterable[str]) -> str | None:
    """The known name a typed one most likely means: the shortest that contains it (HGX-H200 -> HGX-H200-Supermicro,
    not the nearer spelling DGX-H100), for three characters or more; else the closest spelling; else None."""
    names = [str(k) for k in known]
    typed = str(key).lower()
    holding = sorted((n for n in names if len(typed) >= 3 and typed in n.lower() and n.lower() != typed), key=len)
    if holding:
        return holding[0]
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """The hint " (did you mean X?)" for the name meant (closest), or no hint."""
    meant = closest(key, known)
    return f" (did you mean {meant}?)" if meant else ""


TOP_LEVEL = {"site", "description", "catalog", "scenarios", "generation", "quotes", "risk"}  # read by their own modules
MAX_NAME = 100  # characters of a site name: it titles every sheet and the file's properties
MAX_SCENARIOS = 20  # each clones the lines its changes reach: more would not be read, and slow every build


def load_site(path: Path | str, specs: list[Spec], catalog_path: Path = CATALOG_PATH,
              rules: list[Rule] | tuple[Rule, ...] = ()) -> Site:
    """Read and validate a site file against the specs and cross-key rules of every model. Every problem is
    found in one read: raises the InputError of a single problem, or InputErrors naming them all (a file that
    cannot be read as YAML, or is not a mapping, is one problem)."""
    site, problems = read_site(path, specs, catalog_path, rules)
    raise_all(problems)
    assert site is not None
    return site


def read_site(path: Path | str, specs: list[Spec], catalog_path: Path = CATALOG_PATH,
              rules: list[Rule] | tuple[Rule, ...] = ()) -> tuple[Site | None, list[InputError]]:
    """The site as far as it reads, and every problem of it (its scenarios' keys, values and rules among them), so
    a caller can add the problems of what it reads next (the risk: section) and report all at once. The site is
    None where the file is no mapping."""
    path = Path(path)
    data, raw_bytes = _read_yaml(path)
    if not isinstance(data, dict):
        return None, [InputError("is not a mapping", file=path,
                                 expected="a mapping with site:, catalog: and one section per model")]
    problems: list[InputError] = []
    by_key = {s.key: s for s in specs}
    given, faulty = _given(data, path, by_key, problems)
    name = _site_name(data, path, problems)
    catalog = load_catalog(catalog_path) if isinstance(data.get("catalog"), dict) else {}  # read once a build
    defaults, unresolved = _catalog_defaults(data.get("catalog"), path, catalog_path, catalog, problems)
    unresolved |= faulty
    values = _resolve(specs, by_key, given, defaults, unresolved, path, bool(data.get("catalog")), problems)
    problems.extend(broken_rules(path, values, rules))
    scenarios, description = _scenarios(data, path, problems), _description(data, path, problems)
    problems.extend(scenario_problems(path, scenarios, values, by_key, rules, {e.key for e in problems}))
    parts = catalog_parts(data.get("catalog"), catalog)
    models = {str(kind): str(entry) for kind, entry in (data.get("catalog") or {}).items() if str(kind) in parts}
    site = Site(path, name, description, values, hashlib.sha256(raw_bytes).hexdigest(), scenarios,
                data.get("generation"), parts, data.get("quotes"), data.get("risk"), models)
    return site, problems


SCENARIO_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


def scenario_problems(path: Path, scenarios: dict[Any, Any], values: dict[str, Value], by_key: dict[str, Spec],
                      rules: list[Rule] | tuple[Rule, ...], refused: set[str | None] = frozenset()) -> list[InputError]:
    """Each scenario's problems, found with the file's others: a name that is no name, a change that is no
    mapping, a key that is no live input of this site (with the one meant), a value its input refuses, a rule
    between keys it breaks (with the base values of the keys it does not change). A key whose base value is
    `refused` has been said once: a scenario's change of it is not said again as no live input."""
    live = [k for k in values if k in by_key and not (by_key[k].choices or by_key[k].structural or by_key[k].text)]
    out: list[InputError] = []
    for name, changes in scenarios.items():
        where = f"{path}: scenarios.{clip(name)}"
        if not isinstance(name, str) or not SCENARIO_NAME.match(name):
            out.append(InputError(f"{echo(name)} is not a scenario name", file=path, key="scenarios",
                                  expected="lowercase letters, digits and _, e.g. low_utilisation"))
            continue
        if not isinstance(changes, dict) or not changes:
            out.append(InputError("is empty" if isinstance(changes, dict) else "is not a mapping", file=path,
                                  key=f"scenarios.{name}", value=changes, scenario=name,
                                  expected="a mapping of input key to value, e.g. tco.utilisation: 0.4"))
            continue
        changed = dict(values)
        for key, raw in changes.items():
            if key in refused:
                continue
            if key not in live:
                out.append(InputError(f"not a live input of this site{did_you_mean(str(key), live)}", file=path,
                                      where=where, key=clip(key), scenario=name))
                continue
            try:
                value, source = split_value(raw)
                changed[key] = Value(parse_value(value, by_key[key], where, key), clip(value), source)
            except InputError as e:
                out.append(e.located(file=path, where=where, key=key, scenario=name))
        out.extend(broken_rules(where, changed, [r for r in rules if r[0] in changes or r[2] in changes]))
    return out


def _given(data: dict[Any, Any], path: Path, by_key: dict[str, Spec],
           problems: list[InputError]) -> tuple[dict[str, tuple[Any, str]], set[str]]:
    """The values the file gives, each with its source; unknown sections and keys are problems. Also the keys
    given in a form at fault (a misspelt section's keys under the section meant): not reported missing too."""
    sections = sorted({k.split(".")[0] for k in by_key})
    given: dict[str, tuple[Any, str]] = {}
    faulty: set[str] = set()
    for top, body in data.items():
        if top in TOP_LEVEL:
            continue
        if top not in sections:
            meant = difflib.get_close_matches(str(top), sections, n=1, cutoff=0.6)
            faulty |= {f"{meant[0]}.{k}" for k in body} if meant and isinstance(body, dict) else set()
            problems.append(InputError(f"unknown section{did_you_mean(str(top), sections + sorted(TOP_LEVEL))}",
                                       file=path, key=clip(top), expected=f"one of the sections {', '.join(sections)}"))
            continue
        if not isinstance(body, dict):
            if body is not None:  # an empty section (every key commented out) gives nothing
                faulty |= {k for k in by_key if k.startswith(f"{top}.")}
                problems.append(InputError("is not a mapping", file=path, key=top, value=body,
                                           expected=f"a mapping of key: value under {top}:"))
            continue
        for k, raw in body.items():
            key = f"{top}.{k}"
            if key not in by_key:
                problems.append(InputError(f"unknown key{did_you_mean(key, list(by_key))}", file=path, key=clip(key),
                                           value=raw))
                faulty |= set(difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.6))  # the key meant
                continue
            try:
                value, source = split_value(raw)
            except InputError as e:
                problems.append(e.located(file=path, key=key))
                faulty.add(key)
                continue
            given[key] = (value, source or f"site file {path.name}")
    return given, faulty


def _site_name(data: dict[Any, Any], path: Path, problems: list[InputError]) -> str:
    name = data.get("site")
    unseen = hidden(_one_line(name)) if isinstance(name, str) else None  # whitespace folds as ever
    if isinstance(name, str) and name.strip() and len(name.strip()) <= MAX_NAME and unseen is None:
        return name.strip()
    expected = f"the site's name as text of at most {MAX_NAME} characters, e.g. site: Example colo"
    if "site" not in data:
        problems.append(InputError("is missing", file=path, key="site", expected=expected))
    else:
        problem = ("is not text" if not isinstance(name, str) else "is empty" if not name.strip()
                   else unseen if unseen is not None
                   else f"is longer than {MAX_NAME} characters")
        problems.append(InputError(problem, file=path, key="site", value=name, expected=expected))
    return ""


def _resolve(specs: list[Spec], by_key: dict[str, Spec], given: dict[str, tuple[Any, str]],
             defaults: dict[str, tuple[Any, str, Where]], unresolved: set[str], path: Path, has_catalog: bool,
             problems: list[InputError]) -> dict[str, Value]:
    """Each key's value: the file's, else its catalog entry's, else the tool's default. A key another (choice)
    key does not switch on is left out; a key whose value cannot be known (its choice or its catalog entry is
    at fault, itself a problem) is neither missing nor parsed."""
    tool_defaults = load_defaults()
    values: dict[str, Value] = {}
    unknown = set(unresolved)  # keys at fault: what depends on them is not judged
    found: list[InputError] = []  # reported in the models' order of keys, as the init skeleton lists them
    # Choices first (those that apply always, then those that depend on another): they decide which keys apply.
    for spec in sorted(specs, key=lambda s: (not s.choices, s.when is not None)):
        if spec.when is not None:
            other, wanted = spec.when
            if other in unknown and other not in values:
                unknown.add(spec.key)
                continue
            # a choice of a model this file has no section for (a fleet file has no reliability:) restricts nothing
            if other in by_key and (other not in values or values[other].magnitude != wanted):
                if spec.key in given:
                    now = values[other].magnitude if other in values else "not used here"
                    found.append(InputError(f"only used when {other} is {wanted} (it is {now}); remove it or "
                                            f"change {other}", file=path, key=spec.key, value=given[spec.key][0]))
                continue
        origin: Where
        if spec.key in given:
            (raw, source), origin = given[spec.key], path
        elif spec.key in defaults:
            raw, source, origin = defaults[spec.key]
        elif spec.key in tool_defaults:
            raw, source = tool_defaults[spec.key]
            origin, source = (DEFAULTS_PATH, f"{DEFAULTS_PATH.name} {spec.key}"), f"default: {source}"
        elif spec.liquid and air_cooled(lambda k: next((d[k][0] for d in (given, defaults, tool_defaults)
                                                        if k in d), None)):
            raw, source = example_for(spec)[0], AIR_COOLED
            origin = (DEFAULTS_PATH, f"{spec.key}: {AIR_COOLED}")
        else:
            if not spec.optional and spec.key not in unknown:
                hint = " (not in the site file nor in its catalog entries)" if has_catalog else ""
                found.append(InputError(f"is missing{hint}", file=path, key=spec.key,
                                        expected=expected_value(spec), unit=expected_unit(spec)))
            unknown.add(spec.key)
            continue
        try:
            if raw is None and origin == path:
                raise InputError("has no value", file=path, key=spec.key, expected=expected_value(spec),
                                 unit=expected_unit(spec))
            values[spec.key] = Value(parse_value(raw, spec, origin, spec.key), _one_line(str(raw)), source)
        except InputError as e:
            found.append(e)
            unknown.add(spec.key)
    order = {spec.key: n for n, spec in enumerate(specs)}
    problems.extend(sorted(found, key=lambda e: order.get(e.key or "", len(order))))
    return values


def _scenarios(data: dict[Any, Any], path: Path, problems: list[InputError]) -> dict[str, Any]:
    scenarios = data.get("scenarios") or {}
    if not isinstance(scenarios, dict):
        problems.append(InputError("is not a mapping", file=path, key="scenarios", value=scenarios,
                                   expected="a mapping of scenario name to changed inputs"))
        return {}
    if len(scenarios) > MAX_SCENARIOS:
        problems.append(InputError(f"has {len(scenarios)} scenarios", file=path, key="scenarios",
                                   expected=f"at most {MAX_SCENARIOS}"))
    return scenarios


def _description(data: dict[Any, Any], path: Path, problems: list[InputError]) -> str:
    description = data.get("description", "")
    if not isinstance(description, str | None):
        problems.append(InputError("is not text", file=path, key="description", value=description, expected="text"))
        return ""
    text = _one_line(description or "")
    problem = hidden(text)
    if problem is not None:
        problems.append(InputError(problem, file=path, key="description", value=description, expected="plain text"))
        return ""
    return text


# A rule between two keys of one unit, checked once every value is parsed (a Spec checks one key alone):
# (key, operator, other key, why), e.g. ("cooling.air_supply_temperature", "<", "cooling.air_return_temperature",
# "the air must leave the racks warmer than it arrives").
Rule = tuple[str, str, str, str]
_RULE_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
             "divides": lambda a, b: b % a == 0}


def rule_holds(op: str, a: float, b: float) -> bool:
    return bool(_RULE_OPS[op](a, b))


def rule_holds_each(op: str, a: Any, b: Any) -> Any:
    """rule_holds for arrays of cases: a boolean array, one per case."""
    import numpy as np

    return np.asarray(_RULE_OPS[op](a, b), dtype=bool)


def check_rules(where: Where, values: dict[str, Value], rules: list[Rule] | tuple[Rule, ...]) -> None:
    """Refuse values that break a rule, naming both keys and values; rules on absent keys do not apply."""
    raise_all(broken_rules(where, values, rules))


def broken_rules(where: Where, values: dict[str, Value], rules: list[Rule] | tuple[Rule, ...]) -> list[InputError]:
    """One error per rule the values break (rules on absent keys do not apply)."""
    out = []
    for key, op, other, why in rules:
        a, b = values.get(key), values.get(other)
        if a is not None and b is not None and not _RULE_OPS[op](a.magnitude, b.magnitude):
            out.append(InputError(why, key=key, value=a.given, others=((other, b.given),),
                                  expected=f"{key} {op} {other}", **_place(where)))
    return out


def catalog_table(kind: str) -> str:
    """The catalog table of a kind: its English plural (gpu -> gpus, switch -> switches)."""
    return f"{kind}es" if kind.endswith(("s", "x", "z", "ch", "sh")) else f"{kind}s"


def catalog_kind(table: str) -> str:
    return table[:-2] if table.endswith("es") and catalog_table(table[:-2]) == table else table.removesuffix("s")


def catalog_parts(choice: Any, catalog: dict[str, Any]) -> dict[str, str]:
    """The chosen catalog entries by kind, as a bill of materials names a part: "NVIDIA DGX H100 (8x H100 ...)".
    (The choice is validated by _catalog_defaults.)"""
    if not isinstance(choice, dict):
        return {}
    out = {}
    for kind, entry_name in choice.items():
        entry = (catalog.get(catalog_table(str(kind))) or {}).get(entry_name) if isinstance(entry_name, str) else None
        if isinstance(entry, dict):
            out[str(kind)] = str(entry.get("description") or entry_name)
    return out


def _catalog_defaults(choice: Any, where: Path, catalog_path: Path, catalog: dict[str, Any],
                      problems: list[InputError]) -> tuple[dict[str, tuple[Any, str, Where]], set[str]]:
    """The values of the catalog entries a site chose: key -> (value, source, where it is written); and the keys
    a choice at fault would have given (not reported missing: the choice is the problem)."""
    if choice is None:
        return {}, set()
    every = {k for table in catalog.values() if isinstance(table, dict) for entry in table.values()
             if isinstance(entry, dict) for k in (entry.get("values") or {})}
    if not isinstance(choice, dict):
        problems.append(InputError("is not a mapping", file=where, key="catalog", value=choice,
                                   expected="a mapping such as {gpu: H100-SXM, node: DGX-H100}"))
        return {}, every
    out: dict[str, tuple[Any, str, Where]] = {}
    unresolved: set[str] = set()
    kinds = [catalog_kind(k) for k in catalog]
    for kind, entry_name in choice.items():
        table = catalog.get(catalog_table(str(kind)))
        if not isinstance(table, dict):
            problems.append(InputError(f"unknown kind{did_you_mean(str(kind), kinds)}", file=where,
                                       key=f"catalog.{clip(kind)}", expected=f"one of the kinds {', '.join(kinds)}"))
            unresolved |= every
            continue
        entry = table.get(entry_name) if isinstance(entry_name, str) else None
        if not isinstance(entry, dict):
            problems.append(InputError(f"not in {catalog_path.name}{did_you_mean(str(entry_name), list(table))}",
                                       file=where, key=f"catalog.{clip(kind)}", value=entry_name,
                                       expected=f"one of {', '.join(table)}"))
            unresolved |= {k for e in table.values() if isinstance(e, dict) for k in (e.get("values") or {})}
            continue
        origin = (catalog_path, f"{catalog_path.name} {entry_name}")
        for key, raw in (entry.get("values") or {}).items():
            try:
                value, source = split_value(raw)
            except InputError as e:
                raise e.located(file=catalog_path, key=str(key), where=origin[1]) from None
            out[key] = (value, f"catalog {kind} {entry_name}: {source}", origin)
    return out, unresolved
