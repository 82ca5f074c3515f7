"""How a sheet prints: the paper, the scale, where its pages break and what repeats on each page.

The page breaks are decided here, not left to the spreadsheet: rows have explicit heights and columns explicit
widths, so the pages a sheet prints on are known at build time (a chart is never cut across two pages, a
section heading never ends a page, a year of a monthly timeline prints on one page across) and a test can
compare them with the pages LibreOffice prints. Every sheet is printed at an explicit scale with explicit breaks
(a "fit to pages" setting would make Excel ignore the breaks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from workbook.excel.styles import PAGE_HEADER

MARGIN_SIDE, MARGIN_TOP, MARGIN_BOTTOM, MARGIN_HEADER = 0.4, 0.7, 0.5, 0.3  # inches
SLACK = 0.94  # of the printable area a plan uses: room for the spreadsheet's own rounding of widths and heights
ROW_HEIGHT = 15.0  # points: the height of a row of 10-point text
TITLE_HEIGHT = 21.0  # points: a sheet's 14-point title row
LINE_HEIGHT = 12.75  # points per line of wrapped 10-point text
DEFAULT_WIDTH = 8.43  # a column's width in characters where none is set
ORPHAN, SHRINK, MIN_SCALE = 0.25, 0.15, 45  # a last page under a quarter full is avoided by printing up to 15%
# smaller, never below 45%


@dataclass(frozen=True)
class Paper:
    """A paper size, printed landscape."""

    name: str
    code: int  # the spreadsheet's paper number
    long_in: float
    short_in: float

    @property
    def width(self) -> float:
        """Printable width in points (landscape)."""
        return (self.long_in - 2 * MARGIN_SIDE) * 72 * SLACK

    @property
    def height(self) -> float:
        """Printable height in points below the page header (landscape)."""
        return (self.short_in - MARGIN_TOP - MARGIN_BOTTOM) * 72 * SLACK


PAPERS = {"a4": Paper("A4", 9, 297 / 25.4, 210 / 25.4), "letter": Paper("Letter", 1, 11.0, 8.5)}  # by print.paper


def column_points(width: float) -> float:
    """A column of `width` characters in points, as xlsxwriter stores it (7 pixels a character plus 5)."""
    pixels = 0 if width <= 0 else (int(width * 7 + 0.5) + 5 if width >= 1 else int(width * 12 + 0.5))
    return pixels * 0.75


def wrapped_lines(text: str, width: float) -> int:
    """How many lines `text` takes wrapped in a column `width` characters wide (words kept whole)."""
    per_line = max(1, int(width * 1.45) - 1)  # 10-point Carlito/Calibri text in a column sized for 11-point digits
    lines, used = 1, 0
    for word in text.split():
        need = len(word) if used == 0 else used + 1 + len(word)
        if need > per_line and used:
            lines, used = lines + 1, len(word)
        else:
            used = need
    return lines


@dataclass
class PagePlan:
    """Where one sheet's pages break; rows and columns are zero-based, a break is the first row/column of a page."""

    scale: int
    last_row: int
    last_col: int
    row_breaks: list[int] = field(default_factory=list)
    col_breaks: list[int] = field(default_factory=list)
    repeat_rows: int | None = None  # the header row printed on every page
    repeat_cols: int | None = None  # the columns 0..n printed on every page across
    kept: list[tuple[int, int]] = field(default_factory=list)  # row spans never cut by a break (charts)
    repeat_from: int | None = None  # the first row printed on every page, where more than the header repeats

    @property
    def pages(self) -> int:
        return (len(self.row_breaks) + 1) * (len(self.col_breaks) + 1)


def fit_scale(needed: float, available: float, cap: int = 100) -> int:
    """The largest whole percentage at which `needed` points fit in `available`."""
    return max(10, min(cap, math.floor(available / needed * 100)))


def row_breaks(heights: list[float], scale: int, paper: Paper, first: int, keep: list[tuple[int, int]],
               sections: set[int], repeat: float) -> list[int]:
    """Rows that start a new page: as late as each page allows, moved up so that no kept span (a chart) is cut
    and no section heading ends a page. `heights` in points from row 0; `repeat` is the height of the rows
    printed again on each page."""
    room = paper.height * 100 / scale
    breaks: list[int] = []
    start, used = 0, 0.0
    row = 0
    while row < len(heights):
        if used + heights[row] > room - (repeat if breaks else 0) and row > max(start, first):
            cut = _moved(row, start, keep, sections)
            breaks.append(cut)
            start, used, row = cut, 0.0, cut
            continue
        used += heights[row]
        row += 1
    return breaks


def _moved(row: int, start: int, keep: list[tuple[int, int]], sections: set[int]) -> int:
    """The break at `row`, moved up to the start of a kept span it would cut and above a heading just before it."""
    moved = True
    while moved:
        moved = False
        for lo, hi in keep:
            if lo < row <= hi and lo > start:
                row, moved = lo, True
        if row - 1 in sections and row - 1 > start:
            row, moved = row - 1, True
    return row


def one_page_wide(paper: Paper, widths: list[float], heights: list[float], header_row: int | None,
                  keep: list[tuple[int, int]] = (), sections: set[int] = frozenset(),
                  one_page: bool = False, repeat_from: int | None = None) -> PagePlan:
    """A sheet printed one page wide (widths in characters, heights in points, one per column and row printed),
    broken into pages down without cutting a kept span; `header_row` repeats on every page (from `repeat_from`,
    where rows above it head the columns too). `one_page`: scaled to one page tall as well (the Cover)."""
    scale = fit_scale(sum(column_points(w) for w in widths), paper.width)
    if one_page:
        scale = min(scale, fit_scale(sum(heights), paper.height))
    repeat = repeated_height(heights, header_row, repeat_from)
    args = (paper, (header_row or 0) + 1, list(keep), set(sections), repeat)
    breaks = row_breaks(heights, scale, *args)
    if breaks and sum(heights[breaks[-1]:]) * scale / 100 < ORPHAN * paper.height:
        for smaller in range(scale - 1, max(MIN_SCALE, math.floor(scale * (1 - SHRINK))) - 1, -1):
            fewer = row_breaks(heights, smaller, *args)
            if len(fewer) < len(breaks):  # a last page of a few rows: printed a little smaller, it goes
                scale, breaks = smaller, fewer
                break
    return PagePlan(scale, len(heights) - 1, len(widths) - 1, breaks, [], header_row, None, list(keep), repeat_from)


def repeated_height(heights: list[float], header_row: int | None, repeat_from: int | None = None) -> float:
    """The height of the rows printed again at the top of every page: the header row, and those above it from
    `repeat_from`."""
    if header_row is None:
        return 0.0
    return sum(heights[header_row if repeat_from is None else repeat_from : header_row + 1])


def apply(ws: Any, paper: Paper, plan: PagePlan) -> None:
    """Write the plan's print settings on a worksheet."""
    ws.set_landscape()
    ws.set_paper(paper.code)
    ws.set_margins(left=MARGIN_SIDE, right=MARGIN_SIDE, top=MARGIN_TOP, bottom=MARGIN_BOTTOM)
    ws.set_header(PAGE_HEADER, {"margin": MARGIN_HEADER})
    ws.set_print_scale(plan.scale)
    if plan.repeat_rows is not None:
        ws.repeat_rows(plan.repeat_rows if plan.repeat_from is None else plan.repeat_from, plan.repeat_rows)
    if plan.repeat_cols is not None:
        ws.repeat_columns(0, plan.repeat_cols)
    if plan.row_breaks:
        ws.set_h_pagebreaks(plan.row_breaks)
    if plan.col_breaks:
        ws.set_v_pagebreaks(plan.col_breaks)
    ws.print_area(0, 0, plan.last_row, plan.last_col)
