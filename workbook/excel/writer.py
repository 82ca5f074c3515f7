"""Render a book to .xlsx: formulas with their Python results cached, inputs styled and validated.

The workbook is rendered in memory and put on disk all or nothing (excel.output); document dates are fixed so
the same inputs give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell

from workbook.analysis.risk.analysis import RiskResult
from workbook.book import formats
from workbook.book.book import Book
from workbook.book.constants import is_constant
from workbook.book.document import Document
from workbook.book.presentation import Section, Text
from workbook.book.sheets import CHECKS as CHECKS_SHEET
from workbook.book.sheets import COVER, RISK, SUMMARY
from workbook.book.sheets import INPUTS as INPUTS_SHEET
from workbook.excel import sizing
from workbook.excel.cells import CellContext, ColumnTemplate, cached, filled
from workbook.excel.charts import add_charts
from workbook.excel.cover import write_cover
from workbook.excel.fast_formulas import write_formula
from workbook.excel.grids import write_grids
from workbook.excel.layout import (
    COLUMNS,
    FIRST_PERIOD,
    HEADER_ROW,
    LABEL,
    NAME,
    NOTE,
    UNIT,
    VALUE,
    Layout,
    SheetLayout,
    has_total,
    plan,
)
from workbook.excel.pages import PAPERS, Paper, write_above
from workbook.excel.risk_sheet import write_risk
from workbook.excel.styles import Styles
from workbook.excel.tables import write_table, write_view
from workbook.excel.timeline import write_headers, write_total
from workbook.excel.validation import validate
from workbook.formula.line import Line
from workbook.site.output import write_atomically
from workbook.site.spec import Site
from workbook.version import __version__

FIXED_DATE = datetime(2026, 1, 1)
SUBTITLES = {
    INPUTS_SHEET: "Inputs: the only typed-in numbers of the workbook (blue on yellow). Change them here. The unit "
                  "conversion factors at the end are constants, not inputs.",
    CHECKS_SHEET: "Checks: each row is TRUE when all is well; the first row is the AND of all of them but the "
                  "Sensitivity section's (a notice that the build-time table is stale, not a design check).",
    SUMMARY: "Summary: the figures to read first; every cell is a formula linked to the workings.",
}
VALUE_NOTE = "Value, not a formula: it is computed from lines this copy does not hold."


def write_book(book: Book, values: dict[str, np.ndarray], site: Site, out: Path,
               document: Document | None = None) -> Layout:
    """Write a document of the book (the full workbook unless another is given) to `out`, all or nothing (see
    excel.output); returns where every line went."""
    layout = plan(book, document)
    buffer = io.BytesIO()
    _write(book, values, site, layout, buffer)
    write_atomically(Path(out), buffer.getvalue())
    return layout


def _check_risk_sampled(book: Book, document: Document) -> None:
    """A book whose risk: section was not sampled (workbook.api.load(..., risk=False)) has no figures for the
    Summary's odds nor for the Risk sheet: a document holding either is not written (ValueError), never with
    empty figures."""
    unsampled = any(isinstance(t, RiskResult) and not t.sampled for t in book.tables)
    if unsampled and {SUMMARY, RISK} & set(document.sheets):
        raise ValueError(f"{book.site}: its risk: section was not sampled (load(..., risk=False)): a document with "
                         "the Summary or the Risk sheet needs its figures; load the site with risk=True")


def render_book(book: Book, values: dict[str, np.ndarray], site: Site, document: Document | None = None) -> bytes:
    """The document's .xlsx bytes, rendered in memory (write_book puts them on disk; build -j renders in workers)."""
    buffer = io.BytesIO()
    _write(book, values, site, plan(book, document), buffer)
    return buffer.getvalue()


def _write(book: Book, values: dict[str, np.ndarray], site: Site, layout: Layout, target: io.BytesIO) -> None:
    _check_risk_sampled(book, layout.document)
    wb = xlsxwriter.Workbook(target, {"strings_to_numbers": False, "strings_to_formulas": False,
                                      "in_memory": True})
    wb.set_properties({
        "title": f"GPU site workbook: {site.name}",
        "subject": "GPU cluster power, cooling, fabric and cost plan",
        "author": "gpu-site-workbook",
        "comments": f"Built by gpu-site-workbook {__version__} from {site.path.name} (SHA-256 {site.digest})",
        "created": FIXED_DATE,
    })
    wb.set_calc_mode("auto")
    document = layout.document
    styles = Styles(wb, unlock_inputs=document.protect)
    paper = paper_of(site)
    cover = wb.add_worksheet(COVER) if document.cover else None  # first in the pack; written once all are planned
    sheets = {}
    w = _Writing(wb, styles, layout, values, site, paper)
    for title, sl in layout.sheets.items():
        sheets[title] = ws = wb.add_worksheet(title)
        WRITERS[sl.kind](w, ws, sl)
    if cover is not None:
        headline = [(line, values[line.id]) for line in book.headline if line.id in layout.cells]
        risk = next((t for t in book.tables if isinstance(t, RiskResult)), None)
        odds = None if risk is None else (f"{formats.odds_shown(risk.probability_buy_wins)} of {risk.samples:,} "
                                          "samples of the risk: section's ranges")
        write_cover(cover, styles, site, layout, paper, headline, values, odds)
    add_charts(wb, sheets, layout, values)
    wb.close()


@dataclass(frozen=True)
class _Writing:
    """What every sheet's writer reads: the workbook, its formats, the layout, the values, the site, the paper."""

    wb: xlsxwriter.Workbook
    styles: Styles
    layout: Layout
    values: dict[str, np.ndarray]
    site: Site
    paper: Paper


def _tables_sheet(w: _Writing, ws: Any, sl: SheetLayout) -> None:
    for table in sl.tables:
        if isinstance(table, RiskResult):
            write_risk(w.wb, ws, w.styles, table, w.paper, w.layout.pages, table.current)
        else:
            write_table(w.wb, ws, w.styles, table, w.paper, w.layout.pages, w.values)


def _views_sheet(w: _Writing, ws: Any, sl: SheetLayout) -> None:
    for view in sl.views:
        write_view(w.wb, ws, w.styles, view, w.values, w.site.name, w.paper, w.layout.pages)


def _grids_sheet(w: _Writing, ws: Any, sl: SheetLayout) -> None:
    write_grids(w.wb, ws, w.styles, w.layout, sl.grids, w.values, w.site.name, w.paper)


def _lines_sheet(w: _Writing, ws: Any, sl: SheetLayout) -> None:
    """A sheet of lines: written, its checks coloured, sized and planned to print."""
    title = sl.title
    shown = _shown(w.layout, title, w.values)
    columns = sizing.columns(w.layout, title, w.paper, w.values, shown)
    _write_rows(w.wb, ws, w.styles, w.layout, title, w.values, w.site.name, columns.across)
    if title in (CHECKS_SHEET, SUMMARY):
        _colour_checks(ws, w.styles, sl, w.layout.as_values)
    _size_and_print(ws, w.layout, title, w.paper, columns, shown, f"{title}: {w.site.name}" if columns.across else None)
    if w.layout.document.protect:
        ws.protect()


# each kind of sheet (SheetLayout.kind) and its writer
WRITERS: dict[str, Callable[[_Writing, Any, SheetLayout], None]] = {
    "tables": _tables_sheet, "views": _views_sheet, "grids": _grids_sheet, "lines": _lines_sheet}


def _write_rows(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, layout: Layout, title: str,
                values: dict[str, np.ndarray], site: str, across: bool = False) -> None:
    """A sheet of lines: its title, column headers, period headers, sections, sentences and lines with names.
    `across`: it prints more than one page across (its headings then wrap inside the repeated columns)."""
    sl = layout.sheets[title]
    span = sizing.spans(across)
    if across:
        write_above(ws, 0, f"{title}: {site}", styles.title_wrap, span["title"])
    else:
        ws.write(0, LABEL, f"{title}: {site}", styles.title)
    ws.merge_range(1, span["subtitle"][0], 1, span["subtitle"][1], subtitle(title),
                   _wrapped(styles, "subtitle", italic=True, font_color="#595959"))
    for col, head in enumerate(COLUMNS):
        ws.write(HEADER_ROW, col, head, styles.header)
    if sl.has_series:
        write_headers(ws, styles, layout, title, values)
    if title == INPUTS_SHEET and layout.settings:
        _write_settings(ws, styles, layout.settings)
    for row, item in sl.rows:
        if isinstance(item, Section):
            for col in range(len(COLUMNS)):
                ws.write_blank(row, col, None, styles.section)
            if across:
                write_above(ws, row, item.heading, styles.section_wrap, span["section"])
            else:
                ws.write(row, LABEL, item.heading, styles.section)
            continue
        if isinstance(item, Text):  # wrapped across the label-to-note columns: a page's edge would cut it
            ws.merge_range(row, span["text"][0], row, span["text"][1], item.text,
                           _wrapped(styles, "sentence", font_color="#404040"))
            continue
        _write_line(ws, styles, layout, title, item, values, row)
        target = layout.row_address(item) if item.series else layout.address(item.id, absolute=True)
        wb.define_name(item.name, f"={target}")


def _write_line(ws: Any, styles: Styles, layout: Layout, sheet: str, line: Line,
                values: dict[str, np.ndarray], row: int) -> None:
    value = values[line.id]
    shown = formats.shown(line, value, constant=is_constant(line))
    ws.write_string(row, LABEL, line.label, styles.line_label)
    ws.write_string(row, NAME, line.name, styles.name)
    ws.write_string(row, UNIT, shown.unit, styles.unit)
    frozen = line.id in layout.as_values
    if formats.worded(line.fmt) and not line.series:  # a sentence: across the value and note columns
        fmt = styles.sentence_value(shown.fmt)
        ws.merge_range(row, VALUE, row, NOTE, "", fmt)
    else:
        note = _note(line, layout)
        if note:
            ws.write_string(row, NOTE, note, styles.note)
        fmt = styles.value(shown.fmt, line.kind)
    if line.kind == "input":
        ws.write_number(row, VALUE, float(value.reshape(-1)[0]), fmt)
        validate(ws, line, row)
        return
    if line.series and has_total(line):
        write_total(ws, styles, layout, sheet, line, value, row, frozen, shown.fmt)
    if frozen:  # it reads lines this document does not hold: its value, computed from the full book
        for t in range(value.shape[1] if line.series else 1):
            v = cached(line, value, t, values)
            shown = styles.fixed_check(fmt, v) if line.is_bool else fmt
            ws.write(row, (FIRST_PERIOD + t) if line.series else VALUE, v, shown)
        return
    if not line.series:
        write_formula(ws, row, VALUE, "=" + line.formula.render(CellContext(layout, sheet)), fmt,
                      cached(line, value, values=values))
        return
    template = None
    for t in range(value.shape[1]):
        col = FIRST_PERIOD + t
        if t == 0 and line.opening is not None:
            text = "=" + line.opening.render(CellContext(layout, sheet, col))
        else:
            template = template or "=" + line.formula.render(ColumnTemplate(layout, sheet))
            text = filled(template, col)
        write_formula(ws, row, col, text, fmt, cached(line, value, t, values))


def _note(line: Line, layout: Layout) -> str:
    return f"{VALUE_NOTE} {line.note}".strip() if line.id in layout.as_values else line.note


def paper_of(site: Site) -> Paper:
    """The paper the site file chose (print.paper), A4 where the site has none (a site loaded without it)."""
    choice = site.get("print.paper")
    return PAPERS[str(choice.magnitude) if choice is not None else "a4"]


def subtitle(title: str) -> str:
    """The line under a sheet's title: what the sheet is."""
    return SUBTITLES.get(title, f"{title}: workings. Formulas only; inputs live on the Inputs sheet.")


def _wrapped(styles: Styles, key: str, **props: Any) -> Any:
    """A format of 10-point text wrapped from the top of its cells (made once per workbook)."""
    cache = styles._cache
    if ("wrapped", key) not in cache:
        cache[("wrapped", key)] = styles.wb.add_format({**styles.base, "text_wrap": True, "valign": "top", **props})
    return cache[("wrapped", key)]


def _shown(layout: Layout, title: str, values: dict[str, np.ndarray]) -> dict[int, str]:
    """The text a value cell shows instead of a number (a guard's message), by row."""
    return {row: v for row, item in layout.sheets[title].rows if isinstance(item, Line) and not item.series
            and isinstance(v := cached(item, values[item.id], values=values), str)}


def _size_and_print(ws: Any, layout: Layout, title: str, paper: Paper, columns: sizing.Columns,
                    shown: dict[int, str], heading: str | None) -> None:
    """Column widths and row heights from the content, then the pages it prints on (workbook.excel.sizing)."""
    sl = layout.sheets[title]
    notes = {row: _note(item, layout) for row, item in sl.rows if isinstance(item, Line)}
    sizing.size_and_print(ws, layout, title, paper, columns, notes, shown, subtitle(title), heading)
    ws.freeze_panes(HEADER_ROW + 1, LABEL + 1)


def _write_settings(ws: Any, styles: Styles, settings: list[Any]) -> None:
    """Structural choices sit to the right of the inputs: they decide which rows exist, so they are words
    from the site file, not live inputs."""
    col = NOTE + 2
    ws.write(HEADER_ROW, col, "Structure (change it in the site file and rebuild)", styles.header)
    ws.write(HEADER_ROW, col + 1, "Choice", styles.header)
    for k, setting in enumerate(settings, start=1):  # plain text: editing it here would change nothing
        ws.write_string(HEADER_ROW + k, col, setting.label, styles.label)
        ws.write_string(HEADER_ROW + k, col + 1, setting.value, styles.label)
    ws.set_column(col, col, max(len(s.label) for s in settings) + 2)
    ws.set_column(col + 1, col + 1, max(14, *(len(s.value) + 2 for s in settings)))


def _colour_checks(ws: Any, styles: Styles, sl: Any, as_values: set[str]) -> None:
    """Checks turn green or red as they recalculate; a check written as its value has nothing to recalculate and
    keeps a fixed colour. (Every TRUE/FALSE cell has a number format, styles.BOOLEAN_SHOWN: without one, LibreOffice
    7.4's PDF export aborts on a page where such a cell's colour rule matches beside a cell in a substituted font.)"""
    for row, item in sl.rows:
        if isinstance(item, Line) and item.is_bool and item.id not in as_values:
            cell = xl_rowcol_to_cell(row, VALUE)
            ws.conditional_format(cell, {"type": "cell", "criteria": "==", "value": "TRUE", "format": styles.ok})
            ws.conditional_format(cell, {"type": "cell", "criteria": "==", "value": "FALSE", "format": styles.bad})
