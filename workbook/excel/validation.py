"""An input cell's data validation: the range Excel holds a typed value to, the site file's (formula.ranges)."""

from __future__ import annotations

from typing import Any

from workbook.excel.layout import VALUE
from workbook.formula.line import Line
from workbook.formula.ranges import shown
from workbook.site.values import TINY


def allowed(line: Line) -> tuple[float | None, float | None] | None:
    """The closed range a value typed into an input's cell must lie in (None: no bound that side), as strict as the
    site file: the input's bounds (the model's, tightened by templates/limits.yaml), an open lower bound closed at the
    next whole number for a count (GPUs per node: at least 1) or at the smallest magnitude a site file accepts
    otherwise (inputs.TINY). None for an input with no bounds at all (the Sensitivity table's record of the inputs
    as built)."""
    return line.bounds.closed(line.integer, TINY)


def validate(ws: Any, line: Line, row: int, col: int = VALUE) -> None:
    """An input cell's data validation: its allowed range (allowed), in words when a typed value is refused."""
    span = allowed(line)
    if span is None:
        return
    lo, hi, lo_open = line.bounds
    kind = "integer" if line.integer else "decimal"
    percent = "%" in line.fmt
    if lo is not None and lo_open and line.integer:  # a count above 0 is at least 1
        lo, lo_open = span[0], False
    parts = [f"{'greater than' if lo_open else 'at least'} {shown(lo, percent)}" if lo is not None else "",
             f"at most {shown(hi, percent)}" if hi is not None else ""]
    words = " and ".join(p for p in parts if p)
    if lo is not None and hi is not None and not lo_open:
        words = f"between {shown(lo, percent)} and {shown(hi, percent)}"
    if span[0] is not None and span[1] is not None:
        rule = {"criteria": "between", "minimum": span[0], "maximum": span[1]}
    elif span[0] is not None:
        rule = {"criteria": ">=", "value": span[0]}
    else:
        rule = {"criteria": "<=", "value": span[1]}
    unit = f" {line.unit_text}" if line.unit_text and not percent else ""
    ws.data_validation(row, col, row, col, {
        "validate": kind, **rule,
        "input_title": line.label[:32],
        "input_message": f"{'A whole number' if line.integer else 'A number'} {words}{unit}."[:255],
        "error_title": "Out of range",
        "error_message": f"{line.label}: {words}{unit}."[:255],
    })
