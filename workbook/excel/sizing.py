"""The size of a sheet of lines: its column widths and row heights from what it holds, and so its printed pages.

Widths follow the content and the paper: the label column as wide as the longest label up to a limit (longer ones
wrap), the notes as wide as the page leaves at the sheet's readable scale (workbook.excel.pages.min_scale), the
Name column as the longest name (it is not printed). Every row gets an explicit height from its wrapped text, so
the page breaks computed from them are the ones the spreadsheet prints. A timeline prints up to its last period
with money in it (the rest of the timeline holds none, and a footer says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbook.book.presentation import Section, Text
from workbook.excel.charts import CHART_PIXELS, ROWS_PER_CHART, chart_row
from workbook.excel.layout import (
    COUNTER_ROW,
    FIRST_PERIOD,
    HEADER_ROW,
    LABEL,
    NAME,
    NOTE,
    TOTAL_COLUMN,
    UNIT,
    VALUE,
    Layout,
    SheetLayout,
    has_total,
)
from workbook.excel.pages import (
    BODY_FONT,
    CHART_FONT,
    DEFAULT_WIDTH,
    LINE_HEIGHT,
    ROW_HEIGHT,
    TITLE_HEIGHT,
    Across,
    PagePlan,
    Paper,
    apply,
    column_breaks,
    column_points,
    min_scale,
    plan_pages,
    set_heights,
    title_height,
    wrapped_lines,
)
from workbook.excel.text_width import text_points
from workbook.formula.expr import MONTHS
from workbook.formula.line import Line
from workbook.formula.units import unit

LABEL_MAX, LABEL_TIMELINE, LABEL_MIN = 58, 40, 24  # a label wraps beyond these (a timeline's label repeats on
# every page across, so it is narrower)
NOTE_WIDE, NOTE_TIMELINE, NOTE_MIN, NOTE_NARROW = 70, 40, 24, 12
NOTE_MONTHLY = 90  # a monthly timeline's notes fill its first page across: the fewer lines, the fewer pages down
VALUE_WIDTH, VALUE_MAX = 18, 50  # a value column widens for a message shown instead of a number
PERIOD_WIDTH = 10.5  # -41,752,700 whole, and "31 Jan 2027"
TOTAL_WIDTH = 13.0  # a total of many periods: -1,417,527,000 whole
NAME_CHAR = 1.05  # a 9-point monospaced character (Consolas, or DejaVu Sans Mono where it is missing) in column units
MONTHS_PER_PAGE = tuple(range(12, 2, -1))  # a page across holds a year of a monthly timeline, else as many months
# as fit beside a label of LABEL_MIN and the unit (11 on the upgrade's sheets, whose units are long)
MONEY = unit("USD").dimensionality


def chars(points: float) -> float:
    """The widest column (in characters, to a half) that takes no more than `points` (column_points inverted)."""
    return max(0.0, math.floor(((points / 0.75 - 5) / 7) * 2) / 2)


def _room(paper: Paper, smallest: float) -> float:
    """The points of columns a page holds at the sheet's readable scale."""
    return paper.width * 100 / min_scale(smallest)


def _shown_width(text: str) -> float:
    """The column width that shows `text` on one line."""
    return math.ceil((text_points(text) + 6) / 5.25)


def widths(sl: SheetLayout, periods: int, charts: int, shown: dict[int, str], paper: Paper) -> dict[int, float]:
    """Column widths in characters. `periods`: the timeline's columns printed (0 for a sheet of single values);
    `shown`: the text a value cell shows instead of a number (a guard's message), by row."""
    lines = [item for _, item in sl.rows if isinstance(item, Line)]
    longest = max((len(x.label) for x in lines), default=30)
    singles = any(not x.series for x in lines)
    value = VALUE_WIDTH if singles else 6  # a timeline's rows have no single value
    value = min(VALUE_MAX, max([value, *(_shown_width(t) for t in shown.values())]))
    out: dict[int, float] = {
        NAME: max(12, round(max((len(x.name) for x in lines), default=0) * NAME_CHAR) + 2),
        UNIT: max(8, max((len(x.unit_text) for x in lines), default=0) + 2),
        VALUE: value,
    }
    noted = any(x.note for x in lines)
    if sl.has_series:
        _timeline_widths(out, longest, periods, sl.axis == MONTHS, paper)
    else:
        out[LABEL] = min(LABEL_MAX, max(30, longest + 1))
        room = _room(paper, CHART_FONT if charts else BODY_FONT)
        used = sum(column_points(out[c]) for c in (LABEL, UNIT, VALUE))
        out[NOTE] = min(NOTE_WIDE, chars(room - used)) if noted else NOTE_NARROW
        if out[NOTE] < NOTE_MIN and noted:  # a long value: the label gives way
            out[LABEL] = max(LABEL_MIN, out[LABEL] - (NOTE_MIN - out[NOTE]))
            out[NOTE] = min(NOTE_WIDE, chars(room - sum(column_points(out[c]) for c in (LABEL, UNIT, VALUE))))
    if charts:  # the charts below the table sit over its printed columns: as wide as a chart at least
        short = CHART_PIXELS * 0.75 - sum(column_points(out[c]) for c in (LABEL, UNIT, VALUE, NOTE))
        if short > 0:
            out[NOTE] += math.ceil(short / 0.75 / 7)
    return out


def _timeline_widths(out: dict[int, float], longest: int, periods: int, monthly: bool, paper: Paper) -> None:
    """A timeline's label, note, total and period columns: a yearly one on one page across if it can be (the note
    and then the label give way), a monthly one with as many months a page across as fit beside the label."""
    room = _room(paper, BODY_FONT)
    unit_pt, period_pt = column_points(out[UNIT]), column_points(PERIOD_WIDTH)
    out[TOTAL_COLUMN] = TOTAL_WIDTH
    for t in range(periods):
        out[FIRST_PERIOD + t] = PERIOD_WIDTH
    label = min(LABEL_TIMELINE, max(LABEL_MIN, longest + 1))
    if monthly:
        per_page = next((k for k in MONTHS_PER_PAGE if column_points(LABEL_MIN) + unit_pt + k * period_pt <= room),
                        MONTHS_PER_PAGE[-1])
        label = min(label, max(LABEL_MIN, chars(room - unit_pt - per_page * period_pt)))
        shown_first = 1  # the first page across: the labels, the note, the total and the start
    else:
        shown_first = periods
    out[LABEL] = label
    fixed = sum(column_points(out[c]) for c in (LABEL, UNIT, VALUE, TOTAL_COLUMN)) + shown_first * period_pt
    out[NOTE] = min(NOTE_MONTHLY if monthly else NOTE_TIMELINE, chars(room - fixed))
    if out[NOTE] < NOTE_MIN:
        out[LABEL] = max(LABEL_MIN, label - (NOTE_MIN - out[NOTE]))
        fixed += column_points(out[LABEL]) - column_points(label)
        out[NOTE] = max(NOTE_MIN, min(NOTE_TIMELINE, chars(room - fixed)))


def months_per_page(cols: dict[int, float], paper: Paper) -> int:
    """A monthly timeline's months on each page across after the first: beside the repeated label and unit."""
    room = _room(paper, BODY_FONT) - column_points(cols[LABEL]) - column_points(cols[UNIT])
    period = column_points(PERIOD_WIDTH)
    return next((k for k in MONTHS_PER_PAGE if k * period <= room), MONTHS_PER_PAGE[-1])


def heights(sl: SheetLayout, cols: dict[int, float], notes: dict[int, str], shown: dict[int, str],
            subtitle: str = "", title: str | None = None) -> list[float]:
    """Each row's height in points, from row 0 to the sheet's last row: wrapped labels and notes, a sentence
    wrapped across the label-to-note columns, a message in the value column make it taller. `title`: the sheet's
    title where it prints across more than one page (headings then wrap inside the repeated columns, as
    `spans` says)."""
    span = spans(title is not None)
    width = {key: sum(cols[c] for c in range(lo, hi + 1)) for key, (lo, hi) in span.items()}
    out = [ROW_HEIGHT] * (sl.last_row + 1)
    out[0] = title_height(title, width["title"]) if title is not None else TITLE_HEIGHT
    out[1] = _height(wrapped_lines(subtitle, width["subtitle"]))
    for row, item in sl.rows:
        if isinstance(item, Line):
            lines = max(wrapped_lines(item.label, cols[LABEL]), wrapped_lines(notes.get(row, ""), cols[NOTE]),
                        wrapped_lines(shown.get(row, ""), cols[VALUE]))
            out[row] = _height(lines)
        elif isinstance(item, Text):
            out[row] = _height(wrapped_lines(item.text, width["text"]))
        elif isinstance(item, Section) and title is not None:
            out[row] = _height(wrapped_lines(item.heading, width["section"], bold=True))
    return out


def spans(across: bool) -> dict[str, tuple[int, int]]:
    """The columns a sheet of lines writes its title, subtitle, sentences and section headings across. Printed
    more than one page across, the label and unit columns repeat on each page after the first and print only
    their own width there, so nothing may run on from them: the title, headings and sentences wrap inside them;
    the subtitle goes beside them (printed once)."""
    if not across:
        return {"title": (LABEL, LABEL), "subtitle": (LABEL, NOTE), "text": (LABEL, NOTE), "section": (LABEL, LABEL)}
    return {"title": (LABEL, UNIT), "subtitle": (VALUE, NOTE), "text": (LABEL, UNIT), "section": (LABEL, UNIT)}


@dataclass(frozen=True)
class Columns:
    """A sheet of lines' columns, worked out once before it is written: their widths (characters), its charts,
    its timeline's `width` and the periods of it printed, and whether it prints more than one page across (its
    headings then wrap inside the repeated columns)."""

    cols: dict[int, float]
    charts: int
    width: int
    periods: int
    across: bool


def columns(layout: Layout, title: str, paper: Paper, values: dict[str, np.ndarray],
            shown: dict[int, str]) -> Columns:
    sl = layout.sheets[title]
    charts = sum(c.sheet == title for c in layout.charts)
    width = layout.widths[sl.axis] if sl.has_series else 0
    periods = printed_periods(sl, values, width) if sl.has_series else 0
    cols = widths(sl, periods, charts, shown, paper)
    across = False
    if sl.has_series:
        points = [column_points(cols.get(c, DEFAULT_WIDTH)) for c in range(FIRST_PERIOD + periods)]
        room = paper.width * 100 / min_scale(BODY_FONT)
        across = bool(column_breaks(points, LABEL, room, _across(sl, cols, paper, FIRST_PERIOD + periods - 1)))
    return Columns(cols, charts, width, periods, across)


def _across(sl: SheetLayout, cols: dict[int, float], paper: Paper, last_col: int) -> Across:
    """A timeline's columns across pages: the label and unit repeated; a monthly one's pages start a year each
    (or the part of one that fits)."""
    starts = None
    if sl.axis == MONTHS:
        starts = tuple(range(FIRST_PERIOD + 1, last_col + 1, months_per_page(cols, paper)))
    return Across(repeat=(LABEL, UNIT), starts=starts)


def _height(lines: int) -> float:
    return max(ROW_HEIGHT, lines * LINE_HEIGHT + 2.25)


def chart_spans(last_row: int, charts: int) -> list[tuple[int, int]]:
    """The rows each chart of the sheet covers: charts stack below the table, ROWS_PER_CHART rows apart (a chart
    is set a few pixels below its first row's edge, so it reaches into the last of its rows)."""
    return [(chart_row(last_row, slot), chart_row(last_row, slot) + ROWS_PER_CHART - 1) for slot in range(charts)]


def printed_periods(sl: SheetLayout, values: dict[str, np.ndarray], width: int) -> int:
    """The period columns a timeline sheet prints: up to the last period in which one of its flows in money is
    not 0 (the useful life's exit month, or the tax paid after it); all of them where it has no such flow. The
    periods after it are in the workbook, and the footer says they are not printed."""
    last = -1
    for _, item in sl.rows:
        if isinstance(item, Line) and has_total(item) and item.unit.dimensionality == MONEY:
            v = np.nan_to_num(np.asarray(values[item.id], dtype=float)[0])
            moved = np.nonzero(np.abs(v) > 1e-9)[0]
            if moved.size:
                last = max(last, int(moved[-1]))
    return width if last < 0 else last + 1


def page_plan(sl: SheetLayout, cols: dict[int, float], row_heights: list[float], paper: Paper, charts: int,
              last_row: int, periods: int, dated: bool = False) -> PagePlan:
    """A sheet of single values: one page wide, its charts below its figures. A timeline: the labels, units and
    notes, the total and the start on the first page across, then the periods (a year of months a page, or the
    part of one that fits), with the labels and units repeated on each."""
    rows = row_heights + [ROW_HEIGHT] * max(0, last_row + 1 - len(row_heights))
    sections = {row for row, item in sl.rows if isinstance(item, Section)}
    keep = chart_spans(sl.last_row, charts)
    repeat_from = COUNTER_ROW if dated and sl.has_series else None
    last_printed = sl.last_row
    if sl.has_series:
        last_col = FIRST_PERIOD + periods - 1
        across = _across(sl, cols, paper, last_col)
        widths_ = [cols.get(c, DEFAULT_WIDTH) for c in range(last_col + 1)]
        return plan_pages(paper, widths_, rows[:last_printed + 1], first_col=LABEL, header_row=HEADER_ROW,
                          repeat_from=repeat_from, across=across, keep=keep, sections=sections)
    widths_ = [cols.get(c, DEFAULT_WIDTH) for c in range(NOTE + 1)]
    height = keep[-1][1] if keep else last_printed
    return plan_pages(paper, widths_, rows[:height + 1], first_col=LABEL, header_row=HEADER_ROW,
                      across=Across(starts=()), keep=keep, sections=sections,
                      smallest=CHART_FONT if charts else BODY_FONT)


def size_and_print(ws: Any, layout: Layout, title: str, paper: Paper, columns: Columns, notes: dict[int, str],
                   shown: dict[int, str], subtitle: str, heading: str | None = None) -> PagePlan:
    """Set a sheet of lines' column widths and row heights from its content, then the pages it prints on.
    `heading`: the title written at its top where the sheet prints more than one page across."""
    sl = layout.sheets[title]
    cols, charts, width, periods = columns.cols, columns.charts, columns.width, columns.periods
    row_heights = heights(sl, cols, notes, shown, subtitle, heading)
    for col, w in cols.items():
        if col < FIRST_PERIOD:
            ws.set_column(col, col, w)
    if sl.has_series:
        ws.set_column(FIRST_PERIOD, FIRST_PERIOD + width - 1, PERIOD_WIDTH)
    set_heights(ws, row_heights, sl.collapsed)
    row_heights = [0.0 if r in sl.collapsed else h for r, h in enumerate(row_heights)]  # hidden: not printed
    last_row = chart_spans(sl.last_row, charts)[-1][1] if charts else sl.last_row
    plan = page_plan(sl, cols, row_heights, paper, charts, last_row, periods, dated=layout.calendar is not None)
    if periods < width:
        plan.footer = _unprinted(periods, width, sl.axis == MONTHS)
    layout.pages[title] = plan
    apply(ws, paper, plan)
    return plan


def _unprinted(periods: int, width: int, monthly: bool) -> str:
    """The footer of a timeline printed short: which periods are left out, and why."""
    kind, short = ("Months", "M") if monthly else ("Years", "Y")
    return (f"{kind} {short}{periods} to {short}{width - 1} are not printed: no money moves in them (the useful life "
            f"has ended); they are in the workbook.")
