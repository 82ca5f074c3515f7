"""How a formula in a cell names the lines it reads, and the value a cell shows before it recalculates."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from xlsxwriter.utility import xl_col_to_name

from workbook.excel.layout import COUNTER_ROW, FIRST_PERIOD, HEADER_ROW, VALUE, Layout
from workbook.formula.expr import Context
from workbook.formula.line import Line, message_at

_letters = functools.lru_cache(maxsize=1 << 14)(xl_col_to_name)  # "C" from 2: each column's letters worked out once
_THIS, _PREVIOUS = "\x00", "\x01"  # a template's open column letters: its own column's, the previous column's


class CellContext(Context):
    """How a formula in one cell names the lines it uses.

    Single values go by their defined names, which read like the labels beside them. In a period column, a
    row is the cell of its row in the same column (the previous column for prev()); a whole row (SUM, IRR)
    goes by the row's defined name; a roll-up's year is the column's header cell.
    """

    def __init__(self, layout: Layout, sheet: str, col: int = VALUE):
        self.layout, self.sheet, self.col = layout, sheet, col

    def _letters(self, offset: int) -> str:
        """The letters of the column `offset` columns from this one (0 or -1)."""
        return _letters(self.col + offset)

    def _cell(self, line: Line, offset: int) -> str:
        sheet, row, _ = self.layout.cells[line.id]
        cell = f"{self._letters(offset)}{row + 1}"
        return cell if sheet == self.sheet else f"'{sheet}'!{cell}"

    def ref(self, line: Line) -> str:
        if line.series:
            if self.col < FIRST_PERIOD:
                raise ValueError(f"{line.id} is a series, referenced outside a period column")
            return self._cell(line, 0)
        return line.name

    def prev_ref(self, line: Line) -> str:
        return self._cell(line, -1)

    def row_range(self, line: Line) -> str:
        return line.name

    def header(self) -> str:
        if self.col < FIRST_PERIOD:
            raise ValueError("a roll-up is written in a period column")
        return f"{self._letters(0)}${HEADER_ROW + 1}"

    def period(self) -> str:
        """The column's period number: over the header on a dated timeline, else the header itself."""
        if self.col < FIRST_PERIOD:
            raise ValueError("a period number is read in a period column")
        row = COUNTER_ROW if self.layout.calendar is not None else HEADER_ROW
        return f"{self._letters(0)}${row + 1}"


class ColumnTemplate(CellContext):
    """A row's formula is the same in every period column but for the column letters: rendered once here with
    them left open, then `filled` for each column (a formula tree is walked once a row, not once a cell)."""

    def __init__(self, layout: Layout, sheet: str):
        super().__init__(layout, sheet, FIRST_PERIOD + 1)

    def _letters(self, offset: int) -> str:
        return _THIS if offset == 0 else _PREVIOUS


def filled(template: str, col: int) -> str:
    """A ColumnTemplate's text for the period column `col`."""
    return template.replace(_THIS, _letters(col)).replace(_PREVIOUS, _letters(col - 1))


def cached(line: Line, value: np.ndarray, period: int = 0, values: dict[str, np.ndarray] | None = None) -> Any:
    """The value Excel shows before it recalculates: a number, TRUE/FALSE, or the words it shows instead (a guard's
    message; for a value shown only where a condition holds, which of its messages, read from `values`)."""
    v = value[0, period] if value.ndim == 2 else value.reshape(-1)[period]
    if line.is_bool:
        return bool(v)
    v = float(v)
    if math.isnan(v) and line.guard_message is not None:
        return message_at(line, values, period) or line.guard_message
    return v
