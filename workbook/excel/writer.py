"""Render a book to .xlsx: formulas with their Python results cached, inputs styled and validated.

The file is written to a temporary name beside the target and renamed into place, so a failed build never
leaves a half-written workbook, and document dates are fixed so the same inputs give the same bytes.
"""

from __future__ import annotations

import math
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell

from workbook import __version__
from workbook.excel.charts import add_charts
from workbook.excel.cover import write_cover
from workbook.excel.layout import COLUMNS, HEADER_ROW, LABEL, NAME, NOTE, UNIT, VALUE, Layout, plan
from workbook.excel.styles import Styles
from workbook.formula.expr import Context
from workbook.formula.line import CHECKS_SHEET, INPUTS_SHEET, Book, Line, Section
from workbook.inputs import Site

FIXED_DATE = datetime(2026, 1, 1)
SUBTITLES = {
    INPUTS_SHEET: "Inputs: the only typed-in numbers of the workbook (blue on yellow). Change them here.",
    CHECKS_SHEET: "Checks: each row is TRUE when all is well; the first row is the AND of all of them.",
    "Summary": "Summary: the figures to read first; every cell is a formula linked to the workings.",
}
WIDTHS = {LABEL: 58, NAME: 32, UNIT: 11, VALUE: 16, NOTE: 90}


class NameContext(Context):
    """Scalar lines are referenced by their defined names, which read like the labels beside them."""

    def ref(self, line: Line) -> str:
        return line.name


def cached(line: Line, value: np.ndarray) -> Any:
    """The value Excel shows before it recalculates: a number, TRUE/FALSE, or the guard's message."""
    v = value.reshape(-1)[0]
    if line.is_bool:
        return bool(v)
    v = float(v)
    if math.isnan(v) and line.guard_message is not None:
        return line.guard_message
    return v


def write_book(book: Book, values: dict[str, np.ndarray], site: Site, out: Path) -> Layout:
    """Write the workbook atomically to `out`; returns where every line went."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    layout = plan(book)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-", suffix=".xlsx.tmp", dir=out.parent)
    os.close(fd)
    try:
        _write(book, values, site, layout, Path(tmp))
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return layout


def _write(book: Book, values: dict[str, np.ndarray], site: Site, layout: Layout, path: Path) -> None:
    wb = xlsxwriter.Workbook(str(path), {"strings_to_numbers": False, "strings_to_formulas": False})
    wb.set_properties({
        "title": f"GPU site workbook: {site.name}",
        "subject": "GPU cluster power, cooling, fabric and cost plan",
        "author": "gpu-site-workbook",
        "comments": f"Built by gpu-site-workbook {__version__} from {site.path.name} (SHA-256 {site.digest})",
        "created": FIXED_DATE,
    })
    wb.set_calc_mode("auto")
    styles = Styles(wb)
    write_cover(wb, styles, book, site, layout)
    ctx = NameContext()
    sheets = {}
    for title, sl in layout.sheets.items():
        ws = wb.add_worksheet(title)
        sheets[title] = ws
        ws.write(0, 0, f"{title}: {site.name}", styles.title)
        ws.write(1, 0, SUBTITLES.get(title, f"{title}: workings. Formulas only; inputs live on the Inputs sheet."),
                 styles.subtitle)
        for col, head in enumerate(COLUMNS):
            ws.write(HEADER_ROW, col, head, styles.header)
        if title == INPUTS_SHEET and book.settings:
            _write_settings(ws, styles, book)
        for row, item in sl.rows:
            if isinstance(item, Section):
                for col in range(len(COLUMNS)):
                    ws.write_blank(row, col, None, styles.section)
                ws.write(row, LABEL, item.title, styles.section)
                continue
            _write_line(ws, styles, ctx, item, values[item.id], row)
            wb.define_name(item.name, f"={layout.address(item.id, absolute=True)}")
        if title == CHECKS_SHEET or title == "Summary":
            _colour_checks(ws, styles, sl)
        for col, width in WIDTHS.items():
            ws.set_column(col, col, width)
        _page_setup(ws, sl.last_row)
    add_charts(wb, sheets, book, layout)
    wb.close()


def _write_line(ws: Any, styles: Styles, ctx: Context, line: Line, value: np.ndarray, row: int) -> None:
    ws.write_string(row, LABEL, line.label, styles.label)
    ws.write_string(row, NAME, line.name, styles.name)
    ws.write_string(row, UNIT, line.unit_text, styles.unit)
    if line.note:
        ws.write_string(row, NOTE, line.note, styles.note)
    fmt = styles.value(line.fmt, line.kind)
    if line.kind == "input":
        ws.write_number(row, VALUE, float(value.reshape(-1)[0]), fmt)
        _validate(ws, line, row)
    else:
        ws.write_formula(row, VALUE, "=" + line.formula.render(ctx), fmt, cached(line, value))


def _validate(ws: Any, line: Line, row: int) -> None:
    lo, hi, lo_open = line.bounds
    kind = "integer" if line.integer else "decimal"
    if lo is not None and hi is not None:
        rule = {"criteria": "between", "minimum": lo, "maximum": hi}
        words = f"between {lo:g} and {hi:g}"
    elif lo is not None:
        rule = {"criteria": ">" if lo_open else ">=", "value": lo}
        words = f"{'greater than' if lo_open else 'at least'} {lo:g}"
    elif hi is not None:
        rule = {"criteria": "<=", "value": hi}
        words = f"at most {hi:g}"
    else:
        return
    unit = f" {line.unit_text}" if line.unit_text else ""
    ws.data_validation(row, VALUE, row, VALUE, {
        "validate": kind, **rule,
        "input_title": line.label[:32],
        "input_message": f"{'A whole number' if line.integer else 'A number'} {words}{unit}."[:255],
        "error_title": "Out of range",
        "error_message": f"{line.label}: {words}{unit}."[:255],
    })


def _write_settings(ws: Any, styles: Styles, book: Book) -> None:
    """Structural choices sit to the right of the inputs: they decide which rows exist, so they are words
    from the site file, not live inputs."""
    col = NOTE + 2
    ws.write(HEADER_ROW, col, "Structure (set in the site file)", styles.header)
    ws.write(HEADER_ROW, col + 1, "Choice", styles.header)
    for k, setting in enumerate(book.settings, start=1):
        ws.write_string(HEADER_ROW + k, col, setting.label, styles.label)
        ws.write_string(HEADER_ROW + k, col + 1, setting.value, styles.input_text)
    ws.set_column(col, col, 34)
    ws.set_column(col + 1, col + 1, 14)


def _colour_checks(ws: Any, styles: Styles, sl: Any) -> None:
    for row, item in sl.rows:
        if isinstance(item, Line) and item.is_bool:
            cell = xl_rowcol_to_cell(row, VALUE)
            ws.conditional_format(cell, {"type": "cell", "criteria": "==", "value": "TRUE", "format": styles.ok})
            ws.conditional_format(cell, {"type": "cell", "criteria": "==", "value": "FALSE", "format": styles.bad})


def _page_setup(ws: Any, last_row: int) -> None:
    ws.freeze_panes(HEADER_ROW + 1, 1)
    ws.set_landscape()
    ws.set_paper(9)  # A4
    ws.fit_to_pages(1, 0)
    ws.repeat_rows(HEADER_ROW)
    ws.print_area(0, 0, last_row, NOTE)
    ws.set_header("&L&A&R&P / &N")
