"""Tables outside the one-row-per-line layout: build-time value tables (the sensitivity tornado), labelled as
values, and side-by-side views whose every cell is a reference (=name) to a line."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xlsxwriter

from workbook.book import formats
from workbook.excel.cells import cached
from workbook.excel.fast_formulas import write_formula
from workbook.excel.pages import (
    CHART_FONT,
    LINE_HEIGHT,
    ROW_HEIGHT,
    Across,
    Block,
    PagePlan,
    Paper,
    above_span,
    apply,
    column_breaks,
    column_points,
    lines_height,
    min_scale,
    plan_pages,
    wrapped_lines,
    write_above,
    write_title,
)
from workbook.excel.styles import Styles
from workbook.excel.text_width import room, text_points

CURRENT_ROW = 3  # the line between the note and the table saying where the table's currency check is
FACTS_ROW = CURRENT_ROW + 2  # figures above the table (the break-even points), one a row, after a blank row
# Column widths of a build-time table, in characters: the input's label and unit, its low, base and high values
# (numbers, so narrow), then each result column as wide as its largest figure; their headers wrap to as many lines
# as they take ("Owned cost per GPU-hour used (USD/GPU-h): change at high").
LABEL_WIDTH, UNIT_WIDTH, INPUT_VALUE_WIDTH, RESULT_WIDTH = 40, 12, 9, 13
CHART_ROWS = 20  # rows a 360-pixel chart takes, with a gap
# a tornado chart is 360 pixels for up to 16 inputs and 16 pixels more for each further one, so that every input's
# label shows (a spreadsheet skips every other category label where they would overlap)
TORNADO_HEIGHT, TORNADO_BARS, BAR_PIXELS = 360, 16, 16
TORNADO_WIDTH, VIEW_CHART_WIDTH = 960, 720  # pixels
# a view's case columns: wide enough for a figure, or for a guard's words
VIEW_WIDTH, VIEW_TEXT_MAX = 20, 44


def _plan_across(paper: Paper, widths: list[float], chart_px: int) -> tuple[Across, int]:
    """The columns repeated on each page across (the label and unit), no break under a chart that starts at the
    first column `chart_px` pixels wide; and the last column of the first page across."""
    px, whole = 0.0, 0
    for c, w in enumerate(widths):
        if px >= chart_px:
            break
        px, whole = px + column_points(w) / 0.75, c
    across = Across(repeat=(0, 1), whole=((0, whole),) if chart_px else ())
    breaks = column_breaks([column_points(w) for w in widths], 0, paper.width * 100 / min_scale(CHART_FONT), across)
    return across, (breaks or [len(widths)])[0] - 1


def write_table(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, table: Any, paper: Paper,
                plans: dict[str, PagePlan], values: dict[str, np.ndarray]) -> None:
    """A build-time table: its title, what it is, where its live currency check is, the figures above it (each
    live or labelled a build-time value), the rows (each input's values in that input's own number format, each
    result in the result's) and a tornado chart per result. It prints at its charts' readable scale, as many
    pages across as that takes (the label and unit on each); the text above the table wraps on the first."""
    widths = table_widths(table)
    across, first_page = _plan_across(paper, widths, TORNADO_WIDTH if table.charts else 0)
    title_span, text_span = (above_span(widths, across.repeat, first_page, title=t) for t in (True, False))
    title_row = write_title(ws, table.title, 0, title_span, widths, styles.title, styles.title_wrap)
    note_span = text_span or (0, first_page)
    ws.merge_range(1, note_span[0], 1, note_span[1], table.note, styles.text)
    note_height = lines_height(table.note, sum(widths[note_span[0]:note_span[1] + 1]))
    current_height = ROW_HEIGHT
    if table.current and text_span:
        write_above(ws, CURRENT_ROW, table.current, styles.bold_wrap, text_span)
        current_height = lines_height(table.current, sum(widths[text_span[0]:text_span[1] + 1]), bold=True)
    elif table.current:
        ws.write_string(CURRENT_ROW, 0, table.current, styles.bold)
    fact_heights = _write_facts(ws, styles, table, values, widths[:first_page + 1])
    head = table_row(table)
    for col, header in enumerate(table.header):
        ws.write_string(head, col, header, styles.header_wrap)
    row_heights = _write_rows(ws, styles, table, head, widths)
    for col, width in enumerate(widths):
        ws.set_column(col, col, width)
    head_height = lines_height(table.header, widths, bold=True)
    ws.set_row(head, head_height, styles.header)
    first, last = head + 1, head + len(table.rows)
    height = TORNADO_HEIGHT + BAR_PIXELS * max(0, len(table.rows) - TORNADO_BARS)
    chart_rows = CHART_ROWS + math.ceil((height - TORNADO_HEIGHT) / (ROW_HEIGHT * 4 / 3))  # 4/3 pixels a point
    heights = [ROW_HEIGHT] * (last + 3 + chart_rows * len(table.charts))
    reasons = sorted({v[5:] for row in table.rows for v in row if isinstance(v, str) and v.startswith("n/a: ")})
    if reasons:  # a cell's reason is cut by its neighbour: the row above the charts says each one whole
        text = f"n/a: the case breaks a check the model relies on: {'; '.join(reasons)}"
        ws.merge_range(last + 2, 0, last + 2, first_page, text, styles.text)
        heights[last + 2] = lines_height(text, sum(widths[:first_page + 1]))
    for k, spec in enumerate(table.charts):
        chart = _tornado_chart(wb, ws.name, spec, first, last, height)
        ws.insert_chart(last + 3 + k * chart_rows, 0, chart, {"y_offset": 3})  # below the edge a page breaks at
    ws.freeze_panes(head + 1, 1)
    heights[0], heights[1], heights[head], heights[CURRENT_ROW] = title_row, note_height, head_height, current_height
    for row, height in {**fact_heights, **row_heights}.items():
        heights[row] = height
    for row, height in enumerate(heights):
        if row not in (head,):
            ws.set_row(row, height)
    spans = [(last + 3 + k * chart_rows, last + 2 + (k + 1) * chart_rows) for k in range(len(table.charts))]
    # what prints: the table on every page across; the reasons' row and the charts on the first only
    blocks = [Block((0, last), (0, len(widths) - 1)), *(Block(span, (0, first_page)) for span in spans)]
    if reasons:
        blocks.append(Block((last + 2, last + 2), (0, first_page)))
    apart = (last + 2 if reasons else last + 3,) if table.charts else ()
    plans[ws.name] = plan = plan_pages(paper, widths, heights, header_row=head, across=across, keep=spans,
                                       smallest=CHART_FONT, blocks=blocks, across_first=True, apart=apart)
    apply(ws, paper, plan)


def table_row(table: Any) -> int:
    """The row of the table's header: under the figures above it and a blank row."""
    return FACTS_ROW + len(table.facts) + 1 if table.facts else CURRENT_ROW + 1


def _write_facts(ws: Any, styles: Styles, table: Any, values: dict[str, np.ndarray],
                 widths: list[float]) -> dict[int, float]:
    """One row per figure above the table: label, unit, the figure (=its line, or the build-time value) and what
    it is, wrapped across the columns to the right (those of the first page across, `widths`). Returns the rows'
    heights."""
    last = len(widths) - 1
    note_width = sum(widths[3:])
    heights = {}
    for k, fact in enumerate(table.facts):
        r = FACTS_ROW + k
        ws.write_string(r, 0, fact.label, styles.bold_wrap)
        ws.write_string(r, 1, fact.unit, styles.unit)
        fmt = styles.value(fact.fmt, "calc")
        if fact.line is not None:
            write_formula(ws, r, 2, f"={fact.line.name}", fmt, cached(fact.line, values[fact.line.id], values=values))
        elif isinstance(fact.value, str):
            ws.write_string(r, 2, fact.value, styles.bold_top)
        else:
            ws.write_number(r, 2, fact.value, styles.value(fact.fmt, "calc"))
        ws.merge_range(r, 3, r, last, fact.note, styles.text)
        heights[r] = max(ROW_HEIGHT, max(wrapped_lines(fact.note, note_width),
                                         wrapped_lines(fact.label, widths[0], bold=True)) * LINE_HEIGHT + 3)
    return heights


def table_widths(table: Any) -> list[float]:
    """Each column's width (characters): the page plan's and the sheet's."""
    return [LABEL_WIDTH, UNIT_WIDTH] + [INPUT_VALUE_WIDTH] * 3 + [RESULT_WIDTH] * (len(table.header) - 5)


def _write_rows(ws: Any, styles: Styles, table: Any, head: int, widths: list[float]) -> dict[int, float]:
    """The rows: text as text (an n/a case with its reason), each number in its column's or its input's format; a
    text wider than its column wraps. Returns the rows' heights."""
    heights = {}
    for k, row in enumerate(table.rows):
        r = head + 1 + k
        lines = 1
        for col, value in enumerate(row):
            fmt = table.row_formats[k] if 2 <= col <= 4 and table.row_formats else table.formats[col]
            if isinstance(value, float) and math.isnan(value):
                ws.write_string(r, col, "n/a", styles.label)
            elif isinstance(value, str):
                wraps = text_points(value) > room(widths[col])
                ws.write_string(r, col, value, styles.text if wraps else styles.label)
                lines = max(lines, wrapped_lines(value, widths[col]))
            else:
                ws.write_number(r, col, value, styles.value(fmt, "calc") if fmt else styles.label)
        heights[r] = max(ROW_HEIGHT, LINE_HEIGHT * lines + 3)
    return heights


def _tornado_chart(wb: xlsxwriter.Workbook, sheet: str, spec: dict[str, Any], first: int, last: int,
                   height: int) -> Any:
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
    chart.set_x_axis({"num_format": spec["fmt"], "num_font": {"size": CHART_FONT},  # readable at its scale
                      "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": TORNADO_WIDTH, "height": height})
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
    """Rows of figures, one column per case; every cell is =name of a line, with its cached value. It prints at
    its chart's readable scale, as many pages across as the cases take (the label and unit on each)."""
    head, first_col = CURRENT_ROW, 2
    cases = [_case_width([cached(line, values[line.id], values=values) for line in lines])
             for _, _, lines in view.columns]
    label_width = min(52, max(30, *(len(r) + 1 for r in view.rows)))
    shown = [_row_shown(view, r, values) for r in range(len(view.rows))]
    unit_width = max([12, *(len(x.unit) + 2 for x in shown)])
    widths = [label_width, unit_width, *cases]
    across, first_page = _plan_across(paper, widths, VIEW_CHART_WIDTH if view.chart_rows else 0)
    title = f"{view.title}: {site}"
    title_span, note_span = (above_span(widths, across.repeat, first_page, title=t) for t in (True, False))
    title_row = write_title(ws, title, 0, title_span, widths, styles.title, styles.title_wrap)
    note_span = note_span or (0, first_page)
    ws.merge_range(1, note_span[0], 1, note_span[1], view.note, styles.text)
    ws.write(head, 0, "Label", styles.header)
    ws.write(head, 1, "Unit", styles.header)
    ws.write(head + 1, 0, view.changes_label, styles.header_wrap)
    ws.write(head + 1, 1, "", styles.header_wrap)
    for k, (header, changes, _) in enumerate(view.columns):
        ws.write(head, first_col + k, header, styles.header)
        ws.write(head + 1, first_col + k, changes, styles.header_wrap)
    changes_height = max(45.0, lines_height([view.changes_label, *(c for _, c, _ in view.columns)],
                                             [label_width, *cases], bold=True))
    first_row = head + 2
    heights = [ROW_HEIGHT] * (first_row + len(view.rows) + 2 + (CHART_ROWS if view.chart_rows else 0))
    for r, label in enumerate(view.rows):
        wraps = text_points(label) > room(label_width)
        ws.write_string(first_row + r, 0, label, styles.text if wraps else styles.label)
        heights[first_row + r] = lines_height(label, label_width)
        ws.write_string(first_row + r, 1, shown[r].unit, styles.unit)
        for k, (_, _, lines) in enumerate(view.columns):
            line = lines[r]
            write_formula(ws, first_row + r, first_col + k, f"={line.name}", styles.value(shown[r].fmt, "calc"),
                          cached(line, values[line.id], values=values))
    last_col = first_col + len(view.columns) - 1
    last_row = first_row + len(view.rows) - 1
    for c, width in enumerate(widths):
        ws.set_column(c, c, width)
    if view.chart_rows:
        ws.insert_chart(last_row + 3, 0, _view_chart(wb, ws.name, view, shown, (head, first_row, first_col, last_col)),
                        {"y_offset": 3})
    ws.freeze_panes(first_row, first_col)
    heights[0] = title_row
    heights[1] = lines_height(view.note, sum(widths[note_span[0]:note_span[1] + 1]))
    heights[head + 1] = changes_height
    for row, height in enumerate(heights):
        ws.set_row(row, height)
    spans = [(last_row + 3, last_row + 2 + CHART_ROWS)] if view.chart_rows else []
    blocks = [Block((0, last_row), (0, last_col)), *(Block(span, (0, first_page)) for span in spans)]
    plans[ws.name] = plan = plan_pages(paper, widths, heights, header_row=head, across=across, keep=spans,
                                       smallest=CHART_FONT, blocks=blocks, across_first=True,
                                       apart=tuple(lo for lo, _ in spans))
    apply(ws, paper, plan)


def _view_chart(wb: xlsxwriter.Workbook, sheet: str, view: Any, shown: list[formats.Shown],
                at: tuple[int, int, int, int]) -> Any:
    """The view's column chart: a series per chart row, a bar per case, from zero, its axis in the first row's
    format (`at`: the header row, the first row, the first and last case columns)."""
    head, first_row, first_col, last_col = at
    chart = wb.add_chart({"type": "column"})
    for r in view.chart_rows:
        chart.add_series({
            "name": [sheet, first_row + r, 0],
            "categories": [sheet, head, first_col, head, last_col],
            "values": [sheet, first_row + r, first_col, first_row + r, last_col],
        })
    chart.set_title({"name": view.chart_title, "name_font": {"size": 11}})
    axis = shown[view.chart_rows[0]]
    # bars from zero: their lengths compare
    chart.set_y_axis({"name": axis.unit, "num_format": axis.fmt, "num_font": {"size": 9}, "min": 0})
    chart.set_x_axis({"name": view.cases})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": VIEW_CHART_WIDTH, "height": 360})
    return chart
