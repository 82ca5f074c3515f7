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
from workbook.excel.text_width import wrapped_lines

__all__ = ["wrapped_lines"]  # re-exported: the modules that size rows import it with the page constants

MARGIN_SIDE, MARGIN_TOP, MARGIN_BOTTOM, MARGIN_HEADER = 0.4, 0.7, 0.5, 0.3  # inches
READABLE = 8.0  # points: no text prints smaller (DESIGN 4: "nothing printed below 8 pt")
BODY_FONT = 10.0  # points: the cells' text (workbook.excel.styles); a sheet of it prints at 80% or more
CHART_FONT = 9.0  # points: the smallest text of the charts, their axis numbers; a sheet with one prints at 89%+
SLACK = 0.94  # of the printable area a plan uses: room for the spreadsheet's own rounding of widths and heights
ROW_HEIGHT = 15.0  # points: the height of a row of 10-point text
TITLE_HEIGHT = 21.0  # points: a sheet's 14-point title row
TITLE_LINE = 18.0  # points per line of a wrapped 14-point title
LINE_HEIGHT = 12.75  # points per line of wrapped 10-point text
DEFAULT_WIDTH = 8.43  # a column's width in characters where none is set
SHRINK = 0.15  # a sheet prints up to 15% smaller where that saves a page, never below its readable scale


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


@dataclass(frozen=True)
class Block:
    """A rectangle of a sheet that prints something (its table, a chart): a page that meets none is empty, and the
    spreadsheets print no empty page. Rows and columns zero-based, both ends included."""

    rows: tuple[int, int]
    cols: tuple[int, int]


@dataclass
class PagePlan:
    """Where one sheet's pages break; rows and columns are zero-based, a break is the first row/column of a page."""

    scale: int
    last_row: int
    last_col: int
    row_breaks: list[int] = field(default_factory=list)
    col_breaks: list[int] = field(default_factory=list)
    repeat_rows: int | None = None  # the header row printed on every page
    repeat_cols: tuple[int, int] | None = None  # the columns printed again on every page across (first, last)
    kept: list[tuple[int, int]] = field(default_factory=list)  # row spans never cut by a break (charts)
    repeat_from: int | None = None  # the first row printed on every page, where more than the header repeats
    first_col: int = 0  # the print area's first column (the Name column left of it is not printed)
    across_first: bool = False  # pages printed over, then down (a chart's page follows its figures' page)
    blocks: list[Block] = field(default_factory=list)  # what prints; empty: everything in the print area
    smallest: float = BODY_FONT  # the smallest text the sheet prints, in points before scaling
    footer: str = ""  # a line at the foot of every page: what the print area leaves out, and why

    def page_rows(self) -> list[tuple[int, int]]:
        """Each page's first and last row, down."""
        starts = [0, *self.row_breaks]
        return [(a, b - 1) for a, b in zip(starts, [*self.row_breaks, self.last_row + 1], strict=True)]

    def page_cols(self) -> list[tuple[int, int]]:
        """Each page's first and last column, across."""
        starts = [self.first_col, *self.col_breaks]
        return [(a, b - 1) for a, b in zip(starts, [*self.col_breaks, self.last_col + 1], strict=True)]

    @property
    def pages(self) -> int:
        """The pages printed: those that meet a block (all of them where the plan has none)."""
        grid = [(r, c) for r in self.page_rows() for c in self.page_cols()]
        if not self.blocks:
            return len(grid)
        return sum(any(_meets(b.rows, r) and _meets(b.cols, c) for b in self.blocks) for r, c in grid)


def _meets(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def min_scale(smallest: float) -> int:
    """The smallest print scale at which text of `smallest` points prints at READABLE points or more."""
    return math.ceil(100 * READABLE / smallest - 1e-9)


def fit_scale(needed: float, available: float, cap: int = 100) -> int:
    """The largest whole percentage at which `needed` points fit in `available`."""
    return max(10, min(cap, math.floor(available / needed * 100)))


def row_breaks(heights: list[float], scale: int, paper: Paper, first: int, keep: list[tuple[int, int]],
               sections: set[int], repeat: float, apart: frozenset[int] = frozenset()) -> list[int]:
    """Rows that start a new page: as late as each page allows, moved up so that no kept span (a chart) is cut
    and no section heading ends a page; each row of `apart` starts one. `heights` in points from row 0;
    `repeat` is the height of the rows printed again on each page."""
    room = paper.height * 100 / scale
    breaks: list[int] = []
    start, used = 0, 0.0
    row = 0
    while row < len(heights):
        if row in apart and row > start:
            breaks.append(row)
            start, used = row, 0.0
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


@dataclass(frozen=True)
class Across:
    """How a sheet may print across pages: the columns repeated on each page after the first, where a page may
    start (None: at any column), and column spans no break may cut (a chart's)."""

    repeat: tuple[int, int] | None = None
    starts: tuple[int, ...] | None = None
    whole: tuple[tuple[int, int], ...] = ()


def above_span(widths: list[float], repeat: tuple[int, int], first_page: int, *,
               title: bool = False) -> tuple[int, int] | None:
    """The columns a text above a sheet's table wraps across, where the sheet prints more than one page across
    (None where it prints one page wide: the text runs on as it always has). The repeated columns print only
    their own width on each page after the first, so a text running on from them would be cut mid-word there:
    the title wraps inside them (and so heads every page across), any other text wraps in the first page's
    other columns (printed once)."""
    lo, hi = repeat
    if first_page >= len(widths) - 1 or hi >= first_page:
        return None
    return (lo, hi) if title else (hi + 1, first_page)


def write_above(ws: Any, row: int, text: str, fmt: Any, span: tuple[int, int]) -> None:
    """A text above a table, merged across `span` (above_span's) where that is more than one column."""
    if span[0] < span[1]:
        ws.merge_range(row, span[0], row, span[1], text, fmt)
    else:
        ws.write_string(row, span[0], text, fmt)


def lines_height(text: str | list[str], width: float | list[float], bold: bool = False) -> float:
    """The height of a row holding `text` wrapped at `width` (or of each text at its own column's width)."""
    texts, ws = ([text], [width]) if isinstance(text, str) else (text, width)
    lines = max(wrapped_lines(t, w, bold=bold) for t, w in zip(texts, ws, strict=False))
    return max(ROW_HEIGHT, LINE_HEIGHT * lines + 3)


def write_title(ws: Any, text: str, col: int, span: tuple[int, int] | None, widths: list[float], fmt: Any,
                wrap_fmt: Any) -> float:
    """A sheet's 14-point title in row 0: in column `col`, running on, or wrapped across `span` (above_span's,
    where the sheet prints across pages); returns the row's height."""
    if span is None:
        ws.write(0, col, text, fmt)
        return TITLE_HEIGHT
    write_above(ws, 0, text, wrap_fmt, span)
    return title_height(text, sum(widths[span[0]:span[1] + 1]))


def title_height(text: str, width: float) -> float:
    """A 14-point bold title's row, wrapped at `width` characters."""
    return max(TITLE_HEIGHT, TITLE_LINE * wrapped_lines(text, width, 14.0, True) + 3)


def column_breaks(points: list[float], first: int, room: float, across: Across) -> list[int]:
    """The fewest pages across whose columns fit `room` points each, and of those the breaks that make the widest
    page narrowest (so the sheet prints as large as it can). `points` per column from column 0."""
    last = len(points) - 1
    repeat = sum(points[across.repeat[0]:across.repeat[1] + 1]) if across.repeat else 0.0
    starts = set(across.starts) if across.starts is not None else set(range(first + 1, last + 1))
    starts = sorted(c for c in starts if first < c <= last and not any(lo < c <= hi for lo, hi in across.whole))

    def width(a: int, b: int) -> float:
        return (repeat if a != first else 0.0) + sum(points[a:b])

    ends = [*starts, last + 1]
    # for each end column: (the points by which pages overflow, pages, the widest page, the breaks), best first
    best: dict[int, tuple[float, int, float, list[int]]] = {first: (0.0, 0, 0.0, [])}
    for b in ends:
        options = []
        for a, (over, n, widest, cuts) in best.items():
            if a < b:
                w = width(a, b)
                options.append((over + max(0.0, w - room), n + 1, max(widest, w), cuts + ([a] if a != first else [])))
        best[b] = min(options, key=lambda o: (round(o[0], 6), o[1], o[2]))
    return best[last + 1][3]


def plan_pages(paper: Paper, widths: list[float], heights: list[float], *, first_col: int = 0,
               header_row: int | None = None, repeat_from: int | None = None, across: Across = Across(),
               keep: list[tuple[int, int]] = (), sections: set[int] = frozenset(), smallest: float = BODY_FONT,
               blocks: list[Block] = (), across_first: bool = False, apart: tuple[int, ...] = ()) -> PagePlan:
    """A sheet's pages (widths in characters per column from column 0, heights in points per row from row 0):
    printed no smaller than its smallest text allows (min_scale), as many pages across as that takes, the scale
    as large as those pages allow up to 100%; then broken down the pages without cutting a kept span (a chart) or
    leaving a section heading at a page's foot, a last page of a few rows avoided by printing a little smaller.
    Where it prints more than one page across, each row of `apart` starts a page: what starts there (a chart
    anchored in the repeated columns) is printed once, on the first page across, not again in the repeated
    columns beside the table's next columns (a page of nothing but repeated columns is not printed)."""
    points = [column_points(w) for w in widths]
    low = min_scale(smallest)
    breaks = column_breaks(points, first_col, paper.width * 100 / low, across)
    plan = PagePlan(100, len(heights) - 1, len(widths) - 1, [], breaks, header_row, across.repeat, list(keep),
                    repeat_from, first_col, across_first, list(blocks), smallest)
    repeat_w = sum(points[across.repeat[0]:across.repeat[1] + 1]) if across.repeat else 0.0
    pages = [(repeat_w if a != first_col else 0.0) + sum(points[a:b + 1]) for a, b in plan.page_cols()]
    plan.scale = max(min(fit_scale(w, paper.width) for w in pages), min(low, 100))
    repeat = repeated_height(heights, header_row, repeat_from)
    args = (paper, (header_row or 0) + 1, list(keep), set(sections), repeat, frozenset(apart if breaks else ()))
    plan.row_breaks = row_breaks(heights, plan.scale, *args)
    rows = plan.row_breaks
    if rows:  # a page fewer printed a little smaller (a last page of a few rows, a second chart on a page)
        for smaller in range(plan.scale - 1, max(low, math.floor(plan.scale * (1 - SHRINK))) - 1, -1):
            fewer = row_breaks(heights, smaller, *args)
            if len(fewer) < len(rows):
                plan.scale, plan.row_breaks = smaller, fewer
                break
    return plan


def set_heights(ws: Any, heights: list[float], collapsed: set[int]) -> None:
    """Each row's height; the `collapsed` rows hidden under an outline level (a + beside the row after them shows
    them), so they are not printed."""
    for row, h in enumerate(heights):
        if row in collapsed:
            ws.set_row(row, h, None, {"level": 1, "hidden": True})
        elif row - 1 in collapsed:
            ws.set_row(row, h, None, {"collapsed": True})
        else:
            ws.set_row(row, h)


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
    if plan.footer:
        ws.set_footer("&L" + plan.footer.replace("&", "&&"), {"margin": MARGIN_HEADER})
    if plan.across_first:
        ws.print_across()
    if plan.repeat_rows is not None:
        ws.repeat_rows(plan.repeat_rows if plan.repeat_from is None else plan.repeat_from, plan.repeat_rows)
    if plan.repeat_cols is not None:
        ws.repeat_columns(*plan.repeat_cols)
    if plan.row_breaks:
        ws.set_h_pagebreaks(plan.row_breaks)
    if plan.col_breaks:
        ws.set_v_pagebreaks(plan.col_breaks)
    ws.print_area(0, plan.first_col, plan.last_row, plan.last_col)
