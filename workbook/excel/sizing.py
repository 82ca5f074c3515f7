"""The size of a sheet of lines: its column widths and row heights from what it holds, and so its printed pages.

Widths follow the content (the Name column as wide as the sheet's longest name, so no name is cut off), long
labels and notes wrap, and every row gets an explicit height: the page breaks computed from them are then the
ones the spreadsheet prints.
"""

from __future__ import annotations

import itertools

from workbook.excel.charts import CHART_COLUMNS, ROWS_PER_CHART
from workbook.excel.layout import COUNTER_ROW, FIRST_PERIOD, HEADER_ROW, LABEL, NAME, NOTE, UNIT, VALUE, SheetLayout
from workbook.excel.pages import (
    DEFAULT_WIDTH,
    LINE_HEIGHT,
    ROW_HEIGHT,
    TITLE_HEIGHT,
    PagePlan,
    Paper,
    column_points,
    fit_scale,
    one_page_wide,
    repeated_height,
    row_breaks,
    wrapped_lines,
)
from workbook.formula.line import Line
from workbook.presentation import Section

LABEL_MAX, NOTE_WIDE, NOTE_TIMELINE, NOTE_NARROW = 58, 70, 40, 12
PERIOD_WIDTH = 10.5  # -41,752,700 whole, and "31 Jan 2027"
TOTAL_WIDTH = 13.0  # a total of many periods: -1,417,527,000 whole
NAME_CHAR = 1.05  # a 9-point monospaced character (Consolas, or DejaVu Sans Mono where it is missing) in column units
PERIODS_PER_PAGE = 12  # a monthly timeline prints a year on each page across


def widths(sl: SheetLayout, periods: int, charts: int) -> dict[int, float]:
    """Column widths in characters: the label column as wide as the longest label (up to LABEL_MAX, longer ones
    wrap), the Name column as the longest name, the note column wrapped at a fixed width (narrow on a sheet without
    notes, so the Summary's charts sit beside its figures)."""
    lines = [item for _, item in sl.rows if isinstance(item, Line)]
    longest = max((len(x.label) for x in lines), default=30)
    out: dict[int, float] = {
        LABEL: min(LABEL_MAX, max(30, longest + 1)),
        NAME: max(12, round(max((len(x.name) for x in lines), default=0) * NAME_CHAR) + 2),
        UNIT: max(8, max((len(x.unit_text) for x in lines), default=0) + 2),
        VALUE: 18 if any(not x.series for x in lines) else 6,  # a timeline's rows have no single value
        NOTE: NOTE_TIMELINE if sl.has_series else NOTE_WIDE,
    }
    if not sl.has_series and lines and not any(x.note for x in lines):
        out[NOTE] = NOTE_NARROW
    elif charts:  # the charts print beside the notes: narrower notes, more lines
        out[NOTE] = NOTE_TIMELINE
    for t in range(periods if sl.has_series else 0):
        out[FIRST_PERIOD + t] = PERIOD_WIDTH
    if sl.has_series:
        out[FIRST_PERIOD + periods] = TOTAL_WIDTH  # the total after the last period
    for k in range(CHART_COLUMNS if charts else 0):
        out[NOTE + 1 + k] = DEFAULT_WIDTH
    return out


def heights(sl: SheetLayout, cols: dict[int, float], notes: dict[int, str]) -> list[float]:
    """Each row's height in points, from row 0 to the sheet's last row: wrapped labels and notes make it taller."""
    out = [ROW_HEIGHT] * (sl.last_row + 1)
    out[0] = TITLE_HEIGHT
    for row, item in sl.rows:
        if isinstance(item, Line):
            lines = max(wrapped_lines(item.label, cols[LABEL]), wrapped_lines(notes.get(row, ""), cols[NOTE]))
            out[row] = max(ROW_HEIGHT, lines * LINE_HEIGHT + 2.25)
    return out


def chart_spans(charts: int) -> list[tuple[int, int]]:
    """The rows each chart of the sheet covers: charts stack from row 4, ROWS_PER_CHART rows apart (a chart is
    set a few pixels below its first row's edge, so it reaches into the last of its rows)."""
    spans = []
    for slot in range(charts):
        first = HEADER_ROW + 1 + slot * ROWS_PER_CHART
        spans.append((first, first + ROWS_PER_CHART - 1))
    return spans


def page_plan(sl: SheetLayout, cols: dict[int, float], row_heights: list[float], paper: Paper, charts: int,
              last_row: int, last_col: int, dated: bool = False) -> PagePlan:
    """One page wide for a sheet of single values or a yearly timeline; a monthly timeline prints the start on its
    first page across and then a year a page (the total with the last), with the labels, names and units
    repeated. A timeline's last column is its total; on a `dated` timeline the period numbers over the headers
    repeat with them."""
    rows = row_heights + [ROW_HEIGHT] * max(0, last_row + 1 - len(row_heights))
    sections = {row for row, item in sl.rows if isinstance(item, Section)}
    keep = chart_spans(charts)
    points = [column_points(cols.get(c, DEFAULT_WIDTH)) for c in range(last_col + 1)]
    repeat_from = COUNTER_ROW if dated and sl.has_series else None
    if not (sl.has_series and last_col - FIRST_PERIOD > PERIODS_PER_PAGE + 1):
        widths_printed = [cols.get(c, DEFAULT_WIDTH) for c in range(last_col + 1)]
        return one_page_wide(paper, widths_printed, rows, HEADER_ROW, keep, sections, repeat_from=repeat_from)
    col_breaks = list(range(FIRST_PERIOD + 1, last_col, PERIODS_PER_PAGE))
    starts = [0, *col_breaks, last_col + 1]
    first_page = sum(points[: starts[1]])
    repeated = sum(points[: UNIT + 1])  # Label, Name and Unit on every page across
    later = max(repeated + sum(points[a:b]) for a, b in itertools.pairwise(starts[1:]))
    scale = fit_scale(max(first_page, later), paper.width)
    breaks = row_breaks(rows, scale, paper, HEADER_ROW + 1, keep, sections,
                        repeated_height(rows, HEADER_ROW, repeat_from))
    return PagePlan(scale, last_row, last_col, breaks, col_breaks, HEADER_ROW, UNIT, keep, repeat_from)
