"""A site file's value read against its Spec: a number, a quantity as text (700 W, 0.08 USD/kWh, 30 degC), a word
for a choice, a redundancy scheme, a date or a text; and what a value must be, in words, for an error."""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

import pint

from workbook.formula.ranges import shown
from workbook.formula.units import Q_, described, factor, information_differs, is_information, unit
from workbook.site.errors import InputError, Where, place
from workbook.site.examples import example_for
from workbook.site.spec import Spec, hidden

_TEMPERATURE = re.compile(r"^\s*([-+]?[0-9.]+(?:[eE][-+]?\d+)?)\s*(degC|degF|°C|°F|K)\s*$")
_REDUNDANCY = re.compile(r"^\s*(\d*)\s*N\s*(?:\+\s*(\d+))?\s*$")


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


def expected_unit(spec: Spec) -> str | None:
    """The unit a key's value is written in, or None for a pure number or a word."""
    if spec.choices or spec.text or spec.redundancy or not spec.pint_unit.dimensionality:
        return None
    return writable_unit(spec)


def fail(where: Where, key: str, raw: Any, problem: str, spec: Spec | None = None) -> InputError:
    expected = expected_value(spec, key) if spec is not None else None
    unit_text = expected_unit(spec) if spec is not None else None
    return InputError(problem, key=key, value=raw, expected=expected, unit=unit_text, **place(where))


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
        raise fail(where, key, raw, "is not a number", spec)
    if isinstance(raw, int | float):
        if target.dimensionality or is_information(target):  # a count stays a plain number, a size never is
            raise fail(where, key, raw, "has no unit", spec)
        if abs(raw) > HUGE:  # before float(), which overflows above 1e308; the key's own range first
            raise fail(where, key, raw, _outside(spec, raw) or f"is outside {TINY:g} to {HUGE:g} (a typo?)", spec)
        q = Q_(float(raw), "dimensionless")
    elif isinstance(raw, str):
        q = _text_quantity(raw)
        if q is None:
            raise fail(where, key, raw, "is not one number followed by a unit", spec)
    else:
        raise fail(where, key, raw, "is not a number", spec)
    try:
        if information_differs(q.units, target):  # "16" for bytes is not 16 bits, "128 byte" not 1,024 GPUs
            raise pint.DimensionalityError(q.units, target)
        mag = float(q.to(target).magnitude)
    except pint.DimensionalityError:
        found = described(q.units)
        raise fail(where, key, raw, f"is {found if found == 'a pure number' else 'in ' + found}, which is not "
                    f"{spec.expect}", spec) from None
    except Exception:
        raise fail(where, key, raw, "is not a number with a unit", spec) from None
    outside = _outside(spec, mag)  # the key's own range first (1e400 too): its reason says more than a typo's
    if outside is not None:
        raise fail(where, key, raw, outside, spec)
    if not math.isfinite(mag):
        raise fail(where, key, raw, "is not a finite number", spec)
    if mag != 0 and not TINY <= abs(mag) <= HUGE:
        raise fail(where, key, raw, f"is outside {TINY:g} to {HUGE:g} {spec.unit} (a typo?)".rstrip(), spec)
    if spec.integer and not float(mag).is_integer():
        raise fail(where, key, raw, "is not a whole number", spec)
    if spec.even and mag % 2 != 0:
        raise fail(where, key, raw, "is not an even number", spec)
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
            raise fail(where, key, raw, "is not a known choice", spec)
        return raw.strip().lower()
    if spec.text:
        return _words(raw, spec, where, key)
    if spec.redundancy:
        m = _REDUNDANCY.match(str(raw)) if isinstance(raw, str) else None
        if m is None or (m.group(1) and int(m.group(1)) < 1):
            raise fail(where, key, raw, "is not a redundancy scheme the tool knows", spec)
        return (int(m.group(1) or 1), int(m.group(2) or 0))
    if spec.date:
        return _date(raw, spec, where, key)
    return _quantity(raw, spec, where, key)


def _words(raw: Any, spec: Spec, where: Where, key: str) -> str:
    """A text value (a site file is untrusted): one line of at most spec.text characters, no control or format
    characters, one of spec.alone or else beginning with one of spec.starts (where given) followed by more words
    (an Incoterms rule is followed by its named place); a date text is a date written YYYY-MM-DD or one of
    spec.alone."""
    if isinstance(raw, datetime.date) and spec.date:
        raw = raw.isoformat()
    if not isinstance(raw, str):
        raise fail(where, key, raw, "is not text (write it in quotes)", spec)
    text = " ".join(raw.split())  # tabs, newlines and runs of spaces: one space
    if not text:
        raise fail(where, key, raw, "is empty", spec)
    problem = hidden(text)
    if problem is not None:
        raise fail(where, key, raw, problem, spec)
    if len(text) > spec.text:
        raise fail(where, key, raw, f"is longer than {spec.text} characters", spec)
    if text in spec.alone:  # e.g. "to be agreed"
        return text
    if spec.date:
        _date(text, spec, where, key)
    elif spec.starts and text in spec.starts:
        raise fail(where, key, raw, f"is {text} alone, without the named place that follows it", spec)
    elif spec.starts and not any(text.startswith(w + " ") for w in spec.starts):
        raise fail(where, key, raw, f"does not begin with one of {', '.join(spec.starts)}", spec)
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
            raise fail(where, key, raw, "is not a date written YYYY-MM-DD", spec)
        raw = day
    if not datetime.date(2000, 1, 1) <= raw <= datetime.date(2100, 12, 31):
        raise fail(where, key, str(raw), "is not a date between 2000-01-01 and 2100-12-31", spec)
    return serial(raw)
