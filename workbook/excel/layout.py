"""Where each line sits: one row per line, the same columns on every sheet.

The layout is decided before anything is written, so a formula can name a cell on a sheet that comes later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xlsxwriter.utility import xl_rowcol_to_cell

from workbook.formula.expr import MONTHS, YEARS
from workbook.formula.line import CHECKS_SHEET, INPUTS_SHEET, Book, Line, Section, Text

COVER = "Cover"
HEADER_ROW = 3  # title, subtitle, blank, then the column headers
FIRST_ROW = HEADER_ROW + 1
COLUMNS = ("Label", "Name", "Unit", "Value", "Note / source")
LABEL, NAME, UNIT, VALUE, NOTE = range(5)
FIRST_PERIOD = NOTE + 1  # a row's columns run from here: the start (time 0), then each month or year


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

    @property
    def last_row(self) -> int:
        return self.rows[-1][0] if self.rows else FIRST_ROW


@dataclass
class Layout:
    sheets: dict[str, SheetLayout]
    cells: dict[str, tuple[str, int, int]]  # line id -> (sheet, row, col) of its (first) value, zero-based
    widths: dict[str | None, int] = field(default_factory=dict)  # columns of each axis

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

    def last_column(self, sheet: str) -> int:
        """The sheet's last used column: the note column, or the last period of its rows."""
        axis = self.sheets[sheet].axis
        return NOTE if axis is None else FIRST_PERIOD + self.widths[axis] - 1


def sheet_order(book: Book) -> list[str]:
    """Cover, Inputs, Summary, the model sheets in definition order, Checks."""
    models = [t for t in book.sheets if t not in (INPUTS_SHEET, CHECKS_SHEET, "Summary")]
    order = [INPUTS_SHEET, "Summary", *models, CHECKS_SHEET]
    return [t for t in order if t in book.sheets]


def plan(book: Book) -> Layout:
    sheets: dict[str, SheetLayout] = {}
    cells: dict[str, tuple[str, int, int]] = {}
    for title in sheet_order(book):
        items = book.sheets[title]
        tables = [t for t in book.tables if t.sheet == title]
        views = [v for v in book.views if v.sheet == title]
        if not items and not tables and not views and title not in (INPUTS_SHEET, CHECKS_SHEET):
            continue  # a model with no lines for this site has no sheet
        if title == CHECKS_SHEET:
            items = _checks_items(book)
        elif title == INPUTS_SHEET:
            items = _grouped(items)
        sl = SheetLayout(title, tables=tables, views=views)
        row = FIRST_ROW
        for item in items:
            if isinstance(item, Section):
                if sl.rows:
                    row += 1  # a blank row before each section but the first
                sl.rows.append((row, item))
            elif isinstance(item, Text):
                sl.rows.append((row, item))
            else:
                sl.rows.append((row, item))
                cells[item.id] = (title, row, FIRST_PERIOD if item.series else VALUE)
                if item.series:
                    if sl.axis not in (None, item.axis):
                        raise ValueError(f"sheet {title!r} holds monthly and yearly rows; give each its own sheet")
                    sl.axis = item.axis
            row += 1
        sheets[title] = sl
    return Layout(sheets, cells, {None: 1, MONTHS: book.periods, YEARS: book.years})


def _grouped(items: list[Line | Section | Text]) -> list[Line | Section | Text]:
    """Inputs under one section per model, whatever order they were declared in."""
    out: list[Line | Section | Text] = []
    current = None
    for item in items:
        if not isinstance(item, Line):
            continue
        if item.section != current:
            current = item.section
            out.append(Section(current))
        out.append(item)
    return out


def _checks_items(book: Book) -> list[Line | Section]:
    """The master check first, then each model's checks under its name."""
    items: list[Line | Section] = []
    master = [x for x in book.sheets[CHECKS_SHEET] if isinstance(x, Line) and x.kind == "calc"]
    if master:
        items.append(Section("All checks"))
        items.extend(master)
    current = None
    for line in book.sheets[CHECKS_SHEET]:
        if isinstance(line, Line) and line.kind == "check":
            if line.section != current:
                current = line.section
                items.append(Section(current))
            items.append(line)
    return items
