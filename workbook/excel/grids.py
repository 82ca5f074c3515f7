"""Grids: tables whose rows are things and whose cells are lines or text (the bill of materials, the vendor's
quote). A line in a grid is written in its one cell, as a formula with its cached value (an input as a styled,
validated number), and its defined name points at that cell."""

from __future__ import annotations

from typing import Any

import numpy as np
import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell

from workbook.book import formats
from workbook.book.presentation import Blank, Entry, Fixed, Grid, Section
from workbook.excel.cells import CellContext, cached
from workbook.excel.fast_formulas import write_formula
from workbook.excel.layout import Layout, grid_first_row
from workbook.excel.pages import (
    BODY_FONT,
    LINE_HEIGHT,
    ROW_HEIGHT,
    Across,
    Block,
    Paper,
    above_span,
    apply,
    column_breaks,
    column_points,
    lines_height,
    min_scale,
    plan_pages,
    set_heights,
    wrapped_lines,
    write_title,
)
from workbook.excel.styles import Styles
from workbook.excel.text_width import room, text_points
from workbook.excel.validation import validate
from workbook.formula.line import Line

UNIT_HEADER = "Unit"  # a grid's unit column: after the quantity it names, in the singular for one


def write_grids(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, layout: Layout, grids: list[Grid],
                values: dict[str, np.ndarray], site: str, paper: Paper) -> None:
    """The sheet's grids one below the other, sized to their text and planned to print at a readable scale: as
    many pages across as that takes, the first printed column repeated on each, each band of rows printed across
    before the next. A leading column that is not printed (a key) is left out of the print area."""
    first_col = next(c for c, col in enumerate(grids[0].columns) if col.printed)
    widths = [max(g.columns[c].width for g in grids if c < len(g.columns))
              for c in range(max(len(g.columns) for g in grids))]
    across = Across(repeat=(first_col, first_col))
    breaks = column_breaks([column_points(w) for w in widths], first_col, paper.width * 100 / min_scale(BODY_FONT),
                           across)
    first_page = (breaks or [len(widths)])[0] - 1  # the last column of the first page across
    title = f"{grids[0].title}: {site}"
    title_span, note_span = (above_span(widths, (first_col, first_col), first_page, title=t) for t in (True, False))
    heights = [ROW_HEIGHT] * (grid_first_row(grids, len(grids)))
    heights[0] = write_title(ws, title, first_col, title_span, widths, styles.title, styles.title_wrap)
    note_span = note_span or (first_col, first_page)
    ws.merge_range(1, note_span[0], 1, note_span[1], grids[0].note, styles.text)
    heights[1] = lines_height(grids[0].note, sum(widths[note_span[0]:note_span[1] + 1]))
    # a heading in the repeated column wraps inside it where the sheet prints across (else it runs on)
    wrap = title_span is not None
    sections: set[int] = set()
    collapsed: set[int] = set()  # rows that do not apply to the site (a part of quantity 0): hidden, not printed
    for k, grid in enumerate(grids):
        head = grid_first_row(grids, k)
        if k:
            ws.write(head - 1, first_col, grid.title, styles.bold_wrap if wrap else styles.bold)
            heights[head - 1] = _heading_height(grid.title, widths[first_col], wrap)
        for c, column in enumerate(grid.columns):
            ws.write_string(head, c, column.header, styles.header_wrap)
        heights[head] = LINE_HEIGHT * max(wrapped_lines(col.header, widths[c], bold=True) for c, col in
                                          enumerate(grid.columns)) + 3
        for r, row in enumerate(grid.rows, start=head + 1):
            if isinstance(row, Section):
                for c in range(len(grid.columns)):
                    ws.write_blank(r, c, None, styles.section)
                ws.write_string(r, first_col, row.title, styles.section_wrap if wrap else styles.section)
                heights[r] = _heading_height(row.title, widths[first_col], wrap)
                sections.add(r)
                continue
            heights[r] = _write_row(wb, ws, styles, layout, grid, row, r, values, widths)
            if _zero(grid, row, values):
                collapsed.add(r)
    for c, width in enumerate(widths):
        ws.set_column(c, c, width)
    set_heights(ws, heights, collapsed)
    first = grid_first_row(grids, 0)
    ws.freeze_panes(first + 1, first_col + 1)
    printed = [0.0 if r in collapsed else h for r, h in enumerate(heights)]
    layout.pages[ws.name] = plan = plan_pages(paper, widths, printed, first_col=first_col, header_row=first,
                                              across=across, sections=sections, across_first=True,
                                              blocks=_blocks(grids, first_col, first_page))
    if collapsed:
        plan.footer = (f"{len(collapsed)} rows of quantity 0 do not apply to this site: they are collapsed (+ to show) "
                       "and not printed.")
    apply(ws, paper, plan)
    if layout.document is not None and layout.document.protect:
        ws.protect("", {"format_columns": True, "format_rows": True})


def _heading_height(text: str, width: float, wrap: bool) -> float:
    """A bold heading's row: one line, or as many as it wraps to in its column."""
    return lines_height(text, width, bold=True) if wrap else ROW_HEIGHT


def _blocks(grids: list[Grid], first_col: int, first_page: int) -> list[Block]:
    """What each grid prints: its rows in its own columns (a narrower grid below a wide one prints nothing on the
    pages across it does not reach, and the spreadsheets print no empty page), and the title and note above."""
    spans = [Block((0, grid_first_row(grids, 0) - 1), (first_col, first_page))]
    for k, grid in enumerate(grids):
        head = grid_first_row(grids, k)
        spans.append(Block((head - (1 if k else 0), head + len(grid.rows)), (first_col, len(grid.columns) - 1)))
    return spans


def _zero(grid: Grid, row: list[Any], values: dict[str, np.ndarray]) -> bool:
    """Whether a row's cell in an `omit_zero` column (a quantity) is a line whose value is 0 in every case."""
    return any(grid.columns[c].omit_zero and isinstance(cell, Line) and not np.any(values[cell.id])
               for c, cell in enumerate(row) if c < len(grid.columns))


def _write_row(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, layout: Layout, grid: Grid, row: list[Any],
               r: int, values: dict[str, np.ndarray], widths: list[float]) -> float:
    """One row of a grid; returns its height (its longest wrapped text)."""
    lines = 1
    for c, cell in enumerate(row):
        if cell is None:
            continue
        if isinstance(cell, Entry):
            ws.write_blank(r, c, None, styles.entry)
            if cell.most is not None:
                ws.data_validation(r, c, r, c, {
                    "validate": "length", "criteria": "<=", "value": cell.most, "error_title": "Too long",
                    "error_message": f"At most {cell.most:,} characters: they are kept whole, or refused."})
            continue
        if isinstance(cell, Fixed | Blank):
            line = cell.line
            shown = formats.shown(line, values[line.id], scale_money=False).fmt
            if isinstance(cell, Fixed):
                ws.write_number(r, c, float(values[line.id].reshape(-1)[0]), styles.value(shown, "calc"))
            else:
                ws.write_blank(r, c, None, styles.value(formats.negatives_in_parentheses(line.fmt), "input"))
                validate(ws, line, r, c)
            wb.define_name(line.name, f"='{ws.name}'!{xl_rowcol_to_cell(r, c, row_abs=True, col_abs=True)}")
            continue
        if isinstance(cell, Line):
            value = values[cell.id]
            fmt = styles.value(formats.shown(cell, value, scale_money=False).fmt, cell.kind)
            if cell.kind == "input":
                ws.write_number(r, c, float(value.reshape(-1)[0]), fmt)
                validate(ws, cell, r, c)
            elif cell.id in layout.as_values:
                ws.write(r, c, cached(cell, value, values=values), fmt)
            else:
                write_formula(ws, r, c, "=" + cell.formula.render(CellContext(layout, ws.name)), fmt,
                              cached(cell, value, values=values))
            wb.define_name(cell.name, f"='{ws.name}'!{xl_rowcol_to_cell(r, c, row_abs=True, col_abs=True)}")
            continue
        text = str(cell)
        quantity = row[c - 1].line if c and isinstance(row[c - 1], Fixed) else row[c - 1] if c else None
        if grid.columns[c].header == UNIT_HEADER and isinstance(quantity, Line):  # 1 switch, 2 switches
            text = formats.singular(text, values[quantity.id])
        wrap = grid.columns[c].wrap or text_points(text) > room(widths[c])  # a text that would run over wraps
        ws.write_string(r, c, text, styles.text if wrap else styles.label)
        if wrap:
            lines = max(lines, wrapped_lines(text, widths[c]))
    return max(ROW_HEIGHT, LINE_HEIGHT * lines + 3)
