"""A timeline sheet's column headers and its total column.

Without a calendar each period column is headed by its number (Start, M1, M2... or Y1, Y2...). With one
(models.calendar), that number moves to the row above and the header becomes a live formula of it: a month's
column shows the month's end date ("Jan 2027", the Start column the order date), a year's column its fiscal year
("FY2027"), which is also the key its roll-ups sum by. After the last period, a flow row's total: SUM of its
periods, the Start column included (layout.has_total says which rows are flows).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbook.excel.cells import CellContext
from workbook.excel.fast_formulas import write_formula
from workbook.excel.layout import COUNTER_ROW, FIRST_PERIOD, HEADER_ROW, NOTE, TOTAL, Layout
from workbook.excel.styles import Styles
from workbook.formula import kernels
from workbook.formula.expr import MONTHS, YEARS, Env, Node, Ref
from workbook.formula.functions import total
from workbook.formula.line import Line
from workbook.models.calendar import DAY_SHOWN, FISCAL_SHOWN, MONTH_SHOWN

COUNTER_LABEL = {MONTHS: "Month of the timeline:", YEARS: "Fiscal year of the timeline:"}


def write_headers(ws: Any, styles: Styles, layout: Layout, sheet: str, values: dict[str, np.ndarray]) -> None:
    """The period columns' headers (and, on a dated timeline, their numbers above them) and the total's."""
    axis = layout.sheets[sheet].axis
    n = layout.widths[axis]
    monthly = axis == MONTHS
    calendar = layout.calendar
    if calendar is None:
        for t in range(n):
            ws.write_number(HEADER_ROW, FIRST_PERIOD + t, t, styles.period_header(monthly))
    else:
        ws.write_string(COUNTER_ROW, NOTE, COUNTER_LABEL[axis], styles.counter_label)
        for t in range(n):
            ws.write_number(COUNTER_ROW, FIRST_PERIOD + t, t, styles.period_counter(monthly))
        node, shown = dated(calendar, axis, values, layout)
        live = all(line.id in layout.cells and line.id not in layout.as_values for line in _reads(node))
        for t in range(n):
            col = FIRST_PERIOD + t
            fmt = styles.dated_header(DAY_SHOWN if t == 0 else MONTH_SHOWN) if monthly else \
                styles.dated_header(FISCAL_SHOWN)
            if live:
                write_formula(ws, HEADER_ROW, col, "=" + node.render(CellContext(layout, sheet, col)), fmt,
                              float(shown[t]))
            else:
                ws.write_number(HEADER_ROW, col, float(shown[t]), fmt)
    ws.write_string(HEADER_ROW, layout.total_column(axis), TOTAL, styles.total_header)


def dated(calendar: Any, axis: str, values: dict[str, np.ndarray], layout: Layout) -> tuple[Node, np.ndarray]:
    """The header's formula on an axis and its values: a month's end date (the month-end row), or a fiscal
    year (the calendar's yearly keys, 0 for the start)."""
    if axis == MONTHS:
        return Ref(calendar.month_end), np.asarray(values[calendar.month_end.id])[0]
    env = Env(values, {MONTHS: layout.widths[MONTHS], YEARS: layout.widths[YEARS]})
    shown = np.broadcast_to(np.asarray(calendar.year_header.evaluate(env), dtype=float), (1, layout.widths[YEARS]))
    return calendar.year_header, shown[0]


def _reads(node: Node) -> list[Line]:
    return [line for n in node.walk() for line in n.lines()]


def write_total(ws: Any, styles: Styles, layout: Layout, sheet: str, line: Line, value: np.ndarray, row: int,
                frozen: bool, fmt_text: str | None = None) -> None:
    """A flow row's total after its last period: =SUM(its row), or its value where the row is written as
    values; in the row's number format (`fmt_text`, the line's own by default)."""
    col = layout.total_column(line.axis)
    v = float(kernels.row_sum(np.atleast_2d(value)[:1])[0, 0])
    fmt = styles.total(fmt_text or line.fmt)
    if frozen:
        ws.write_number(row, col, v, fmt)
    else:
        write_formula(ws, row, col, "=" + total(line).render(CellContext(layout, sheet, col)), fmt, v)
