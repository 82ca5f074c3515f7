"""Tables outside the one-row-per-line layout: build-time value tables (the sensitivity tornado), labelled as
values, and side-by-side views whose every cell is a reference (=name) to a line."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xlsxwriter

from workbook.excel import formats
from workbook.excel.cells import cached
from workbook.excel.fast_formulas import write_formula
from workbook.excel.pages import (
    LINE_HEIGHT,
    ROW_HEIGHT,
    TITLE_HEIGHT,
    PagePlan,
    Paper,
    apply,
    one_page_wide,
    wrapped_lines,
)
from workbook.excel.styles import Styles

CURRENT_ROW = 3  # the line between the note and the table saying where the table's currency check is
FACTS_ROW = CURRENT_ROW + 2  # figures above the table (the break-even points), one a row, after a blank row
# Column widths of a build-time table, in characters: the input's label and unit, its low, base and high values
# (numbers, so narrow), then each result column wide enough that its 45-point header (three wrapped lines) reads
# whole, e.g. "Owned cost per GPU-hour used (USD/GPU-h): change at high". Together as wide as 52, 12 and 17s.
LABEL_WIDTH, UNIT_WIDTH, INPUT_VALUE_WIDTH, RESULT_WIDTH = 52, 12, 9, 20
CHART_ROWS = 20  # rows a 360-pixel chart takes, with a gap
# a view's case columns: wide enough for a figure, or for a guard's words; a view prints on one page down to 60%
VIEW_WIDTH, VIEW_TEXT_MAX, VIEW_ONE_PAGE = 20, 44, 60


def write_table(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, table: Any, paper: Paper,
                plans: dict[str, PagePlan], values: dict[str, np.ndarray]) -> None:
    """A build-time table: its title, what it is, where its live currency check is, the figures above it (each
    live or labelled a build-time value), the rows (each input's values in that input's own number format, each
    result in the result's) and a tornado chart per result."""
    ws.write(0, 0, table.title, styles.title)
    ws.merge_range(1, 0, 2, 8, table.note, styles.text)
    ws.set_row(1, 30)
    if table.current:
        ws.write_string(CURRENT_ROW, 0, table.current, styles.bold)
    widths = table_widths(table)
    fact_heights = _write_facts(ws, styles, table, values, widths)
    head = table_row(table)
    for col, header in enumerate(table.header):
        ws.write_string(head, col, header, styles.header_wrap)
    _write_rows(ws, styles, table, head)
    for col, width in enumerate(widths):
        ws.set_column(col, col, width)
    ws.set_row(head, 45, styles.header)
    first, last = head + 1, head + len(table.rows)
    reasons = sorted({v[5:] for row in table.rows for v in row if isinstance(v, str) and v.startswith("n/a: ")})
    if reasons:  # a cell's reason is cut by its neighbour: the row above the charts says each one whole
        ws.write_string(last + 2, 0, f"n/a: the case breaks a check the model relies on: {'; '.join(reasons)}",
                        styles.sentence)
    for k, spec in enumerate(table.charts):
        chart = _tornado_chart(wb, ws.name, spec, first, last)
        ws.insert_chart(last + 3 + k * CHART_ROWS, 0, chart, {"y_offset": 3})  # below the edge a page breaks at
    ws.freeze_panes(head + 1, 1)
    heights = [ROW_HEIGHT] * (last + 3 + CHART_ROWS * len(table.charts))
    heights[0], heights[1], heights[head] = TITLE_HEIGHT, 30.0, 45.0
    for row, height in fact_heights.items():
        heights[row] = height
    spans = [(last + 3 + k * CHART_ROWS, last + 2 + (k + 1) * CHART_ROWS) for k in range(len(table.charts))]
    plans[ws.name] = plan = one_page_wide(paper, widths, heights, head, spans)
    apply(ws, paper, plan)


def table_row(table: Any) -> int:
    """The row of the table's header: under the figures above it and a blank row."""
    return FACTS_ROW + len(table.facts) + 1 if table.facts else CURRENT_ROW + 1


def _write_facts(ws: Any, styles: Styles, table: Any, values: dict[str, np.ndarray],
                 widths: list[float]) -> dict[int, float]:
    """One row per figure above the table: label, unit, the figure (=its line, or the build-time value) and what
    it is, wrapped across the columns to the right. Returns the rows' heights."""
    last = len(widths) - 1
    note_width = sum(widths[3:])
    heights = {}
    for k, fact in enumerate(table.facts):
        r = FACTS_ROW + k
        ws.write_string(r, 0, fact.label, styles.bold_top)
        ws.write_string(r, 1, fact.unit, styles.unit)
        fmt = styles.value(fact.fmt, "calc")
        if fact.line is not None:
            write_formula(ws, r, 2, f"={fact.line.name}", fmt, cached(fact.line, values[fact.line.id]))
        elif isinstance(fact.value, str):
            ws.write_string(r, 2, fact.value, styles.bold_top)
        else:
            ws.write_number(r, 2, fact.value, styles.value(fact.fmt, "calc"))
        ws.merge_range(r, 3, r, last, fact.note, styles.text)
        heights[r] = max(ROW_HEIGHT, wrapped_lines(fact.note, note_width) * LINE_HEIGHT + 3)
        ws.set_row(r, heights[r])
    return heights


def table_widths(table: Any) -> list[float]:
    """Each column's width (characters): the page plan's and the sheet's."""
    return [LABEL_WIDTH, UNIT_WIDTH] + [INPUT_VALUE_WIDTH] * 3 + [RESULT_WIDTH] * (len(table.header) - 5)


def _write_rows(ws: Any, styles: Styles, table: Any, head: int) -> None:
    """The rows: text as text (an n/a case with its reason), each number in its column's or its input's format."""
    for k, row in enumerate(table.rows):
        r = head + 1 + k
        for col, value in enumerate(row):
            fmt = table.row_formats[k] if 2 <= col <= 4 and table.row_formats else table.formats[col]
            if isinstance(value, float) and math.isnan(value):
                ws.write_string(r, col, "n/a", styles.label)
            elif isinstance(value, str):
                ws.write_string(r, col, value, styles.label)
            else:
                ws.write_number(r, col, value, styles.value(fmt, "calc") if fmt else styles.label)


def _tornado_chart(wb: xlsxwriter.Workbook, sheet: str, spec: dict[str, Any], first: int, last: int) -> Any:
    """One result's change per input: a bar at low and one at high side by side (neither hides the other when
    both move the same way), the inputs' labels at the left edge, clear of the bars either side of zero."""
    chart = wb.add_chart({"type": "bar"})
    for name, col in spec["columns"]:
        chart.add_series({
            "name": name,
            "categories": [sheet, first, 0, last, 0],
            "values": [sheet, first, col, last, col],
            "gap": 80,
            "overlap": 0,
        })
    chart.set_title({"name": spec["title"], "name_font": {"size": 10}})
    chart.set_y_axis({"reverse": True, "label_position": "low", "num_font": {"size": 9}})
    chart.set_x_axis({"num_format": spec["fmt"], "num_font": {"size": 8}, "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 960, "height": 360})
    return chart


def _case_width(shown: list[Any]) -> float:
    """A case column wide enough for its figures, or for a guard's words ("never recovers its cost...")."""
    words = [len(v) * 1.0 + 2 for v in shown if isinstance(v, str)]
    return min(VIEW_TEXT_MAX, max([VIEW_WIDTH, *words]))


def _row_shown(view: Any, r: int, values: dict[str, np.ndarray]) -> formats.Shown:
    """How a view's row is shown: as its first case's line would be, money scaled by every case's value (one
    scale along the row, the chart's too)."""
    lines = [lines[r] for _, _, lines in view.columns]
    return formats.shown(lines[0], np.concatenate([np.ravel(values[x.id]) for x in lines]))


def write_view(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, view: Any, values: dict[str, np.ndarray],
               site: str, paper: Paper, plans: dict[str, PagePlan]) -> None:
    """Rows of figures, one column per case; every cell is =name of a line, with its cached value."""

    ws.write(0, 0, f"{view.title}: {site}", styles.title)
    ws.write(1, 0, view.note, styles.subtitle)
    head, first_col = CURRENT_ROW, 2
    ws.write(head, 0, "Label", styles.header)
    ws.write(head, 1, "Unit", styles.header)
    ws.write(head + 1, 0, view.changes_label, styles.header_wrap)
    ws.write(head + 1, 1, "", styles.header_wrap)
    for k, (header, changes, _) in enumerate(view.columns):
        ws.write(head, first_col + k, header, styles.header)
        ws.write(head + 1, first_col + k, changes, styles.header_wrap)
    widths = [_case_width([cached(line, values[line.id]) for line in lines]) for _, _, lines in view.columns]
    changes_height = max(45.0, LINE_HEIGHT * max(wrapped_lines(c, w) for (_, c, _), w in
                                                zip(view.columns, widths, strict=True)) + 3)
    ws.set_row(head + 1, changes_height)
    first_row = head + 2
    shown = [_row_shown(view, r, values) for r in range(len(view.rows))]
    for r, label in enumerate(view.rows):
        ws.write_string(first_row + r, 0, label, styles.label)
        ws.write_string(first_row + r, 1, shown[r].unit, styles.unit)
        for k, (_, _, lines) in enumerate(view.columns):
            line = lines[r]
            write_formula(ws, first_row + r, first_col + k, f"={line.name}", styles.value(shown[r].fmt, "calc"),
                          cached(line, values[line.id]))
    last_col = first_col + len(view.columns) - 1
    last_row = first_row + len(view.rows) - 1
    ws.set_column(0, 0, 52)
    unit_width = max([12, *(len(x.unit) + 2 for x in shown)])
    ws.set_column(1, 1, unit_width)
    for k, width in enumerate(widths):
        ws.set_column(first_col + k, first_col + k, width)
    if view.chart_rows:
        chart = wb.add_chart({"type": "column"})
        for r in view.chart_rows:
            chart.add_series({
                "name": [ws.name, first_row + r, 0],
                "categories": [ws.name, head, first_col, head, last_col],
                "values": [ws.name, first_row + r, first_col, first_row + r, last_col],
            })
        chart.set_title({"name": view.chart_title, "name_font": {"size": 11}})
        axis = shown[view.chart_rows[0]]
        chart.set_y_axis({"name": axis.unit, "num_format": axis.fmt,
                          "num_font": {"size": 9}, "min": 0})  # bars from zero: their lengths compare
        chart.set_x_axis({"name": view.cases})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 720, "height": 360})
        ws.insert_chart(last_row + 3, 0, chart, {"y_offset": 3})
    ws.freeze_panes(first_row, first_col)
    heights = [ROW_HEIGHT] * (last_row + 3 + (CHART_ROWS if view.chart_rows else 0))
    heights[0], heights[head + 1] = TITLE_HEIGHT, changes_height
    spans = [(last_row + 3, last_row + 2 + CHART_ROWS)] if view.chart_rows else []
    plan = one_page_wide(paper, [52, unit_width, *widths], heights, head, spans, one_page=True)
    if plan.scale < VIEW_ONE_PAGE:  # too small on one page: as many pages as it takes
        plan = one_page_wide(paper, [52, unit_width, *widths], heights, head, spans)
    plans[ws.name] = plan
    apply(ws, paper, plan)
