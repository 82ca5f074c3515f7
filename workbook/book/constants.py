"""Unit conversion factors as named constants: a formula names the cell that holds a factor, not the number.

A reviewer cannot tell what `*2118.88000328932` means; `*units_cfm_per_m3_s` says it, and its row on the Inputs
sheet gives the label, the unit, the value and its definition. Exact powers of ten (`/1000`) stay in formulas.

Each constant of templates/unit_constants.yaml is one line (`units.<key>`), made once per process and shared by
every book: a calculated line whose formula is the number itself (so the recalculation checks it too), on the
Inputs sheet in its own section. `expr.convert` asks `lookup` for the constant that does a conversion; the node
it builds reads the constant's line, so a book adds the constant before the first line that reads it
(Book._add), scenarios and documents see the dependency, and a fleet under a namespace shares the constants.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pint

from workbook.book.sheets import INPUTS
from workbook.formula.expr import Constant, use_conversions, use_tolerance
from workbook.formula.line import Line, pint_text, reads
from workbook.formula.units import factor, power_of_ten, unit
from workbook.site.yaml_reader import read_yaml

PATH = Path(__file__).resolve().parents[2] / "templates" / "unit_constants.yaml"
METHOD_PATH = PATH.with_name("method_constants.yaml")  # the method's own numbers (a tolerance, a search range)
PREFIX = "units"  # ids `units.<key>`, names `units_<key>`: a model's ids have three parts under a namespace
METHOD = "method"  # ids `method.<key>`: the method's numbers
SECTION = "Constants: unit conversion factors and the method's numbers (not inputs)"
TOLERANCE = f"{METHOD}.check_tolerance"  # the relative tolerance of every computed equality or limit


@dataclass(frozen=True)
class Match:
    """How a conversion uses a constant: magnitude x `residual` (a power of ten, 1 when none) into `middle`,
    then times or divided by the constant."""

    line: Line
    divide: bool
    residual: float
    middle: pint.Unit


def _fmt(value: float) -> str:
    """Every digit of the value the cell holds (a thousands separator only for whole numbers)."""
    decimals = len(np.format_float_positional(value).split(".")[1])  # the shortest text that reads back exactly
    return "0." + "0" * decimals if decimals else "#,##0"


@dataclass(frozen=True)
class _Definition:
    line: Line
    of: pint.Unit  # value = how many `of` make one `per`
    per: pint.Unit


def _definition(key: str, entry: dict[str, str]) -> _Definition:
    of, per = unit(entry["of"]), unit(entry["per"])
    value = factor(per, of)  # the float the cell holds and the Python evaluation multiplies or divides by
    u = of / per
    note = f"{entry['definition']} Source: {entry['source']}."
    line = Line(f"{PREFIX}.{key}", entry["label"], entry["unit"], u, "calc", INPUTS, note, Constant(value, u),
                _fmt(value), section=SECTION)
    return _Definition(line, of, per)


def _read_table() -> dict[str, _Definition]:
    data, _ = read_yaml(PATH)
    return {d.line.id: d for d in (_definition(key, entry) for key, entry in data.items())}


def _method_line(key: str, entry: dict[str, object]) -> Line:
    value = float(entry["value"])  # type: ignore[arg-type]
    u = unit(pint_text(str(entry["unit"])))
    note = f"{entry['definition']} Source: {entry['source']}."
    fmt = "0.0%" if entry["unit"] == "%" else _fmt(value)
    return Line(f"{METHOD}.{key}", str(entry["label"]), str(entry["unit"]), u, "calc", INPUTS, note,
                Constant(value, u), fmt, section=SECTION)


def _read_methods() -> dict[str, Line]:
    data, _ = read_yaml(METHOD_PATH)
    return {line.id: line for line in (_method_line(key, entry) for key, entry in data.items())}


# Read when the program loads, before any site is: the constants are the method's, the same for every site and
# every book of a process, so no step after loading (defining a book above all) reads a file for them.
_TABLE, _METHODS = _read_table(), _read_methods()


def _table() -> dict[str, _Definition]:
    return _TABLE


def _methods() -> dict[str, Line]:
    return _METHODS


def constants() -> dict[str, Line]:
    """Every constant's line by id: the conversion factors, then the method's numbers, in the data files' order."""
    return {**{k: d.line for k, d in _table().items()}, **_methods()}


def constant(line_id: str) -> Line | None:
    """The constant with this id, or None."""
    d = _table().get(line_id)
    return d.line if d is not None else _methods().get(line_id)


def method(key: str) -> Line:
    """One of the method's numbers (templates/method_constants.yaml), by its key: `method("irr_search_low")`."""
    return _methods()[f"{METHOD}.{key}"]


def is_constant(line: Line) -> bool:
    return constant(line.id) is line


def _residual(a: pint.Unit, b: pint.Unit) -> float | None:
    """The factor from a to b where it is 1 or a power of ten, else None (also for unlike dimensions)."""
    try:
        r = factor(a, b)
    except pint.DimensionalityError:
        return None
    return r if power_of_ten(r) else None


@functools.cache
def lookup(src: pint.Unit, dst: pint.Unit) -> Match | None:
    """The constant that converts a magnitude in `src` into `dst`: `of = value x per`, so src -> dst is
    (src/per -> dst/of) times the value, or (src/of -> dst/per) divided by it. One that does it exactly wins
    over one that needs a power of ten besides; None when no constant does it."""
    found: list[tuple[bool, Match]] = []
    for d in _table().values():
        for divide, (a, b) in ((False, (d.per, d.of)), (True, (d.of, d.per))):
            r = _residual(src / a, dst / b)
            if r is not None:
                found.append((r != 1.0, Match(d.line, divide, r, dst * a / b)))
    return min(found, key=lambda x: x[0])[1] if found else None


def read_by(lines: Iterable[Line]) -> set[str]:
    """The ids of the constants these lines' formulas read."""
    return {other for line in lines for other in reads(line) if constant(other) is not None}


def with_constants(all_lines: Iterable[Line], holds: Callable[[Line], bool],
                   keep: Callable[[str], bool]) -> Callable[[str], bool]:
    """A document's `keep` that also keeps each constant a line it holds reads (else that line's formula would
    become its value)."""
    needed = read_by(line for line in all_lines if not is_constant(line) and holds(line))

    def keep_with_constants(key: str) -> bool:
        return key in needed or keep(key)

    return keep_with_constants


use_conversions(lookup)  # formulas built once this module is imported name the constants (the book imports it)
use_tolerance(lambda: _methods()[TOLERANCE])  # and every check of a computed equality or limit names its tolerance
