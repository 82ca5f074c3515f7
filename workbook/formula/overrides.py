"""Overrides given through the API, held to what the site file is held to.

`Book.evaluate({"tco.electricity_price": Q_(110, "USD/MWh")})` must price electricity at 0.11 USD/kWh, not 110: a
pint quantity is converted to the input's unit (a wrong dimension is refused, not stripped with a warning); a
plain number is a magnitude in the input's unit, as the Inputs sheet shows it. Each value must be finite and lie in
the input's range (the one Range of the site file, a cell's validation and a reviewer's edit); a whole number where
the input is a count. A key that is not an input says which input it may have meant.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pint

from workbook.formula.dates import NULL_DATE
from workbook.formula.echo import clip, echo
from workbook.formula.units import described, information_differs, is_information, ureg

if TYPE_CHECKING:
    from workbook.formula.line import Book, Line

class UnknownInput(KeyError):
    """An override of a key that is not an input of the book (`close`: the input id it may have meant, or None)."""

    def __init__(self, key: str, close: str | None):
        self.key, self.close = key, close
        hint = f" (did you mean {close}?)" if close else ""
        super().__init__(f"{clip(key)} is not an input of this book{hint}")  # the key escaped and clipped

    def __str__(self) -> str:  # KeyError quotes its message; this one is a sentence
        return str(self.args[0])


class OverrideError(ValueError):
    """An override whose value the input cannot take: `key`, the `value` given, the `problem` and what is
    `expected`."""

    def __init__(self, key: str, value: Any, problem: str, expected: str, shown: str | None = None):
        self.key, self.value, self.problem, self.expected = key, value, problem, expected
        super().__init__(f"{key} = {echo(value) if shown is None else clip(shown)}: {problem}; expected {expected}")


def input_line(book: Book, key: str) -> Line:
    """The input line `key` names, or UnknownInput with the closest input id."""
    line = book.lines.get(key)
    if line is None or line.kind != "input":
        known = [k for k, v in book.lines.items() if v.kind == "input"]
        close = difflib.get_close_matches(str(key), known, n=1)
        raise UnknownInput(str(key), close[0] if close else None)
    return line


def magnitude(line: Line, value: Any) -> np.ndarray:
    """A value as the line holds it, a float array: a quantity converted to the line's unit, a number as given; one
    value, or one per case (an array of one dimension, or of one that is not 1: a (cases, 1) column)."""
    if isinstance(value, pint.Quantity) and not isinstance(value, ureg.Quantity):
        raise OverrideError(line.id, value, "is a quantity of another pint registry, whose units this book cannot "
                            "trust", f"{_expected(line)} of workbook.formula.units.ureg (Q_)")
    if isinstance(value, pint.Quantity):
        try:
            if information_differs(cast(pint.Unit, value.units), line.unit):
                raise pint.DimensionalityError(value.units, line.unit)
            value = value.to(line.unit).magnitude
        except pint.DimensionalityError:
            raise OverrideError(line.id, value, f"is {_in(value.units)}, which is not {_unit(line)}",
                                _expected(line)) from None
    if isinstance(value, str | bytes | bool | np.bool_):
        raise OverrideError(line.id, value, "is not a number", _expected(line))
    try:
        out = np.asarray(value, dtype=float)
    except OverflowError:  # an int of 400 digits
        raise OverrideError(line.id, value, "is too large for a number of this book (a float: at most 1.8e308)",
                            _expected(line)) from None
    except (TypeError, ValueError):
        raise OverrideError(line.id, value, "is not a number or an array of numbers", _expected(line)) from None
    if out.size == 0:
        raise OverrideError(line.id, value, "is an empty array", f"{_expected(line)}: one value, or one per case")
    if sum(n > 1 for n in out.shape) > 1:
        raise OverrideError(line.id, value, f"is an array of shape {out.shape}",
                            f"{_expected(line)}: one value, or one per case (a 1-D array)")
    return out


def checked(book: Book, overrides: Mapping[str, Any] | None, *, ranges: bool = True) -> dict[str, np.ndarray]:
    """The overrides as the evaluator takes them (float arrays in each input's unit), each checked: an input of
    the book, a number or quantity of its dimension, finite, and (unless `ranges` is False, for speed where the
    caller has checked) within its range and whole where it counts."""
    out: dict[str, np.ndarray] = {}
    for key, value in (overrides or {}).items():
        line = input_line(book, key)
        v = magnitude(line, value)
        check_values(line, v, value, ranges=ranges)
        out[key] = v
    return out


def check_values(line: Line, v: np.ndarray, given: Any, *, ranges: bool = True) -> None:
    """Every value of `v` finite and (unless `ranges` is False) within the line's range and whole where it counts;
    else OverrideError naming the first that is not. The batch's least and greatest value decide it for a batch
    that holds (a NaN makes both NaN), so a million sampled cases cost two reductions; only a refusal looks for
    the first bad case."""
    if v.size:
        least, most = float(np.min(v)), float(np.max(v))
        if math.isfinite(least) and math.isfinite(most) and (not ranges or (
                line.bounds.holds(least) and line.bounds.holds(most)
                and (not line.integer or bool(np.all(v == np.floor(v)))))):
            return
    bad = ~np.isfinite(v)
    problem = "is not a finite number"
    if not bad.any():
        lo, hi, lo_open = line.bounds
        with np.errstate(invalid="ignore"):
            if lo is not None:
                bad = (v <= lo) if lo_open else (v < lo)
            if hi is not None:
                bad = bad | (v > hi)
        problem = "is outside the input's range"
        if not bad.any() and line.integer:
            bad = v != np.floor(v)
            problem = "is not a whole number"
    if bad.any():
        case = int(np.flatnonzero(bad.reshape(-1))[0])
        first = float(v.reshape(-1)[case])
        shown = f"{first:g}" if v.size == 1 else f"{first:g} (case {case} of {v.size})"
        raise OverrideError(line.id, given, problem, _expected(line), shown)


def _unit(line: Line) -> str:
    shown = described(line.unit)
    return shown if shown in ("a pure number", line.unit_text) else f"{line.unit_text} ({shown})"


def _in(u: pint.Unit) -> str:
    shown = described(u)
    return shown if shown == "a pure number" else f"in {shown}"


def expected(line: Line) -> str:
    """What an input's value must be, in words: "a whole number from 1 to 1,000,000 (GPUs)", "a number above 0 in
    kW", "a number from 0 to 1 (a share: 0.7 is 70%)"; for an override of it, or a reviewer's edit of its cell. A
    date is said as dates, then as the number its cell holds (days since 1899-12-30)."""
    if line.unit_text == "date":
        lo, hi, _ = line.bounds
        if lo is not None and hi is not None:
            return (f"a date from {_day(lo)} to {_day(hi)}, as a spreadsheet holds it: days since 1899-12-30 "
                    f"({lo:,.0f} to {hi:,.0f})")
        return "a date, as a spreadsheet holds it: days since 1899-12-30"
    if line.unit_text == "%":
        unit = " (a share: 0.7 is 70%)"
    elif line.unit_text:
        measured = line.unit.dimensionality or is_information(line.unit)  # else a count: "(GPUs)"
        unit = f" in {line.unit_text}" if measured else f" ({line.unit_text})"
    else:
        unit = ""
    span = line.bounds.in_words()
    return f"{'a whole number' if line.integer else 'a number'}{' ' + span if span else ''}{unit}"


def _day(serial: float) -> str:
    """A date input's serial number as the date it is: 36526 is 2000-01-01."""
    return str(NULL_DATE + np.timedelta64(int(serial), "D"))


def _expected(line: Line) -> str:
    return f"{expected(line)}, or a pint quantity of its dimension"
