"""Where each line sits: one row per line, the same columns on every sheet.

The layout is decided before anything is written, so a formula can name a cell on a sheet that comes later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xlsxwriter.utility import xl_rowcol_to_cell

from workbook.book import sheets
from workbook.book.book import Book
from workbook.book.document import Document, appendix_sheets, full_workbook
from workbook.book.presentation import Chart, Section, Text
from workbook.book.sheets import CHECKS as CHECKS_SHEET
from workbook.book.sheets import INPUTS as INPUTS_SHEET
from workbook.formula.expr import MONTHS, YEARS
from workbook.formula.line import Line
from workbook.formula.units import unit

HEADER_ROW = 3  # title, subtitle, blank, then the column headers
COUNTER_ROW = HEADER_ROW - 1  # on a dated timeline's sheets: each period's number over its date (Start, M1, M2...)
FIRST_ROW = HEADER_ROW + 1
# The Name column comes first, outside the print area: a formula's names are looked up on screen, and the
# printed page gives the room to the label, the figures and the notes (a page prints from the Label column).
COLUMNS = ("Name", "Label", "Unit", "Value", "Note / source")
NAME, LABEL, UNIT, VALUE, NOTE = range(5)
# A timeline row's total sits before its periods (the FAST Standard's column structure: constants, units, totals,
# then the timeline), so the total prints on the first page across however far the printed periods run.
TOTAL_COLUMN = NOTE + 1
FIRST_PERIOD = TOTAL_COLUMN + 1  # a row's columns run from here: the start (time 0), then each month or year
TOTAL = "Total"  # the header of the total column: the sum of a flow row's periods


# What a timeline row's total can add up: amounts that accumulate over the months (money paid in a month, energy
# used in it, a duration: months in service, GPU-hours, H100-eq-months). A rate or a level (kW, racks, GPUs in
# service, a price) is not summed across months.
ACCUMULATING = {unit("USD").dimensionality, unit("fmonth").dimensionality, unit("kWh").dimensionality}


def has_total(line: Line) -> bool:
    """Whether a row gets a total after its last period: a flow that accumulates over the months (cash in the
    month, GPU-hours used, months in service) does. A sum means nothing for a balance or a running total (a row
    that reads its own previous period), a level or a rate (power, racks, a price), a pure number (an index, a
    flag, a ratio, a counter, a fiscal year), a date, TRUE/FALSE, a row that shows a message instead of a
    number, or a change in a balance (debt, book value, tax owed), which nets to 0 over the life: its total would
    be the rounding left of a sum of 1e8s (1e-8), which no two spreadsheets round alike; nor a month's number
    (a position on the timeline: the month a term began, the last month behind)."""
    return (line.series and not line.is_bool and not line.recursive and line.guard_message is None
            and not line.balance_change and not line.position
            and line.unit.dimensionality in ACCUMULATING and line.unit_text != "date")


@dataclass
class SheetLayout:
    title: str
    rows: list[tuple[int, Line | Section | Text]] = field(default_factory=list)
    axis: str | None = None  # the axis of the sheet's rows (one per sheet), None without rows

    @property
    def has_series(self) -> bool:
        return self.axis is not None
    tables: list[Any] = field(default_factory=list)  # build-time value tables written on this sheet
    views: list[Any] = field(default_factory=list)  # side-by-side reference tables written on this sheet
    grids: list[Any] = field(default_factory=list)  # tables of lines, one cell each, written on this sheet

    collapsed: set[int] = field(default_factory=set)  # rows of the sections that do not apply: hidden, not printed

    @property
    def kind(self) -> str:
        """What the sheet holds, which decides its writer: build-time tables, views, grids, or lines."""
        return next((k for k in ("tables", "views", "grids") if getattr(self, k)), "lines")

    @property
    def last_row(self) -> int:
        return self.rows[-1][0] if self.rows else FIRST_ROW


@dataclass
class Layout:
    """Where every line of one document goes, and what else the document shows."""

    sheets: dict[str, SheetLayout]
    cells: dict[str, tuple[str, int, int]]  # line id -> (sheet, row, col) of its (first) value, zero-based
    widths: dict[str | None, int] = field(default_factory=dict)  # columns of each axis
    document: Document | None = None
    as_values: set[str] = field(default_factory=set)  # lines written as values (they read outside the document)
    charts: list[Chart] = field(default_factory=list)
    settings: list[Any] = field(default_factory=list)  # the site's structural choices the document shows
    pages: dict[str, Any] = field(default_factory=dict)  # sheet -> its PagePlan, filled as the sheets are written
    appendix: set[str] = field(default_factory=set)  # the monthly sheets the reviewer's PDF prints apart
    calendar: Any = None  # the book's calendar (models.calendar): dated headers over a counter row, else numbers

    def address(self, line_id: str, absolute: bool = False) -> str:
        sheet, row, col = self.cells[line_id]
        cell = xl_rowcol_to_cell(row, col, row_abs=absolute, col_abs=absolute)
        return f"'{sheet}'!{cell}"

    def row_address(self, line: Line) -> str:
        """A row's columns, from the start to the end, as its defined name points at it."""
        sheet, row, _ = self.cells[line.id]
        first = xl_rowcol_to_cell(row, FIRST_PERIOD, row_abs=True, col_abs=True)
        last = xl_rowcol_to_cell(row, FIRST_PERIOD + self.widths[line.axis] - 1, row_abs=True, col_abs=True)
        return f"'{sheet}'!{first}:{last}"

    def total_column(self, axis: str) -> int:
        """The column of a flow row's total on a sheet of this axis: before the periods."""
        return TOTAL_COLUMN


def sheet_order(book: Book, document: Document) -> list[str]:
    """The sheets the document holds in the workbook's order (workbook.book.sheets.ordered): the Summary first, the
    models, the Inputs behind the results, the Checks last."""
    return sheets.ordered([t for t in book.sheets if t in document.sheets])


def plan(book: Book, document: Document | None = None) -> Layout:
    """The layout of a document of the book (the full workbook unless another is given)."""
    document = document or full_workbook(book)
    sheets: dict[str, SheetLayout] = {}
    cells: dict[str, tuple[str, int, int]] = {}
    for title in sheet_order(book, document):
        items = _held(book.sheets[title], document)
        tables = [t for t in book.tables if t.sheet == title]
        views = [v for v in book.views if v.sheet == title
                 and all(document.holds(line) for _, _, lines in v.columns for line in lines)]
        if (tables or views) and any(isinstance(x, Line) for x in items):
            raise ValueError(f"sheet {title!r} holds a table or a view, and lines: give the lines their own sheet")
        grids = [g for g in book.grids if g.sheet == title]
        if grids:
            sheets[title] = SheetLayout(title, grids=grids)
            cells.update(_grid_cells(title, grids, items))
            continue
        if not items and not tables and not views and title not in (INPUTS_SHEET, CHECKS_SHEET):
            continue  # a model with no lines for this site has no sheet
        if title == CHECKS_SHEET:
            items = _checks_items(book, document)
        elif title == INPUTS_SHEET:
            items = _grouped(items)
        sl = SheetLayout(title, tables=tables, views=views)
        row, unused = FIRST_ROW, False
        for item in items:
            if isinstance(item, Section):
                if sl.rows:
                    row += 1  # a blank row before each section but the first
                unused = bool(item.unused)
            elif unused:
                sl.collapsed.add(row)
            sl.rows.append((row, item))
            if isinstance(item, Line):
                cells[item.id] = (title, row, FIRST_PERIOD if item.series else VALUE)
                if item.series:
                    if sl.axis not in (None, item.axis):
                        raise ValueError(f"sheet {title!r} holds monthly and yearly rows; give each its own sheet")
                    sl.axis = item.axis
            row += 1
        sheets[title] = sl
    charts = [c for c in book.charts if c.sheet in sheets and all(line.id in cells for line in _chart_lines(c))]
    return Layout(sheets, cells, {None: 1, MONTHS: book.periods, YEARS: book.years}, document,
                  document.as_values(book), charts, [s for s in book.settings if document.keep(s.key)],
                  appendix=set(appendix_sheets(book)) & set(sheets), calendar=book.calendar)


GRID_HEADER_ROW = 3  # a grid: title, note, blank, then its header row


def grid_first_row(grids: list[Any], k: int) -> int:
    """The sheet row of grid k's header: grids follow one another with two blank rows between."""
    row = GRID_HEADER_ROW
    for grid in grids[:k]:
        row += 1 + len(grid.rows) + 2
    return row


def _grid_cells(title: str, grids: list[Any], items: list[Line | Section | Text]) -> dict[str, tuple[str, int, int]]:
    """Where each line of a sheet of grids sits: the cell the grid gives it. Every line of the sheet must be in a
    grid (a line with no cell would be written nowhere)."""
    cells: dict[str, tuple[str, int, int]] = {}
    for k, grid in enumerate(grids):
        top = grid_first_row(grids, k) + 1
        for r, c, line in grid.lines():
            cells[line.id] = (title, top + r, c)
    stray = [x.id for x in items if isinstance(x, Line) and x.id not in cells]
    if stray:
        raise ValueError(f"sheet {title!r} holds grids and lines outside them: {', '.join(stray[:5])}")
    return cells


def _chart_lines(chart: Chart) -> list[Line]:
    extra = [line for series in chart.extra for line in series]
    marker = [chart.marker] if chart.marker is not None else []
    return [*chart.lines, *(chart.categories or []), *extra, *marker, *(chart.highlight or ())]


def _held(items: list[Line | Section | Text], document: Document) -> list[Line | Section | Text]:
    """The sheet's items the document holds. A section goes with its lines: kept where one of them is held, or
    where it has none (a block of text, such as the conventions)."""
    blocks: list[list[Line | Section | Text]] = [[]]
    for item in items:
        if isinstance(item, Section):
            blocks.append([])
        blocks[-1].append(item)
    out: list[Line | Section | Text] = []
    for block in blocks:
        lines = [x for x in block if isinstance(x, Line)]
        if lines and not any(document.holds(x) for x in lines):
            continue
        out.extend(x for x in block if not isinstance(x, Line) or document.holds(x))
    return out


def _grouped(items: list[Line | Section | Text]) -> list[Line | Section | Text]:
    """Inputs under one section per model, whatever order they were declared in; then the lines that are not
    inputs (the unit conversion factors formulas name, each added where a formula first reads it) in theirs."""
    lines = [item for item in items if isinstance(item, Line)]
    out: list[Line | Section | Text] = []
    current = None
    for item in [x for x in lines if x.kind == "input"] + [x for x in lines if x.kind != "input"]:
        if item.section != current:
            current = item.section
            out.append(Section(current))
        out.append(item)
    return out


def _checks_items(book: Book, document: Document) -> list[Line | Section]:
    """The master check first, then each model's checks under its name."""
    items: list[Line | Section] = []
    held = [x for x in book.sheets[CHECKS_SHEET] if isinstance(x, Line) and document.holds(x)]
    master = [x for x in held if x.kind == "calc"]
    if master:
        items.append(Section("All checks"))
        items.extend(master)
    current = None
    for line in held:
        if line.kind == "check":
            if line.section != current:
                current = line.section
                items.append(Section(current))
            items.append(line)
    return items
