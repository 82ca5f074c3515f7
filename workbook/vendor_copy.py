"""The vendor's quoting copy: a second document, made from the bill of materials, that goes outside.

It holds only what a vendor needs to quote: each priced line's key, item, spec and quantity (values, locked),
empty unlocked cells for the unit price, the lead time and a comment, and the line totals and the grand total as
live formulas. Nothing else of ours: no budget prices, no TCO, no notes or sources, no names but its own.

The copy is a small book of its own, written by the same grid writer as the BOM sheet: each quantity is an
input line shown as a locked value, each price and lead time an input line left blank for the vendor, each
line total a formula line (quantity x unit price) defined once, in Python, like every other formula.
"""

from __future__ import annotations

import datetime
import hashlib
import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import xlsxwriter

from workbook.book import Book
from workbook.document import Document
from workbook.excel.grids import write_grids
from workbook.excel.layout import plan
from workbook.excel.pages import PAPERS
from workbook.excel.styles import Styles
from workbook.excel.writer import FIXED_DATE
from workbook.formula.functions import added
from workbook.formula.line import COUNT, Line
from workbook.presentation import Blank, Entry, Fixed, Grid, GridColumn
from workbook.units import unit as parse_unit

QUOTE_SHEET = "Quote"
INSTRUCTIONS_SHEET = "Instructions"
PREFIX = "quote"
MAX_LEAD_WEEKS = 520.0  # ten years: a longer lead time is a typo
# the quote sheet's columns; the import reads them by these positions
KEY, ITEM, SPEC, QTY, UNIT, PRICE, LEAD, COMMENT, TOTAL = range(9)
COLUMNS = [GridColumn("Line", 24), GridColumn("Item", 34, wrap=True), GridColumn("Part / spec", 48, wrap=True),
           GridColumn("Quantity", 11), GridColumn("Unit", 10),
           GridColumn("Unit price (USD, excl. tax, delivered)", 16, wrap=True),
           GridColumn("Lead time (weeks from order)", 15, wrap=True), GridColumn("Comment", 36, wrap=True),
           GridColumn("Line total (USD)", 16)]
INSTRUCTIONS = [
    "Please quote the lines on the Quote sheet:",
    "- Unit price: in US dollars per unit, excluding tax, delivered to site. Say in the comment whether installation "
    "and support are included. Leave it empty for a line you do not supply; a price of 0 needs a comment saying "
    "where the line is included.",
    "- Lead time: in weeks from our order to delivery, for every line you price.",
    "- Comment: anything we should know (part number offered, validity, minimum order). Text only.",
    "The other cells are locked: the line items, specs and quantities are what we ask you to quote. Do not add, "
    "remove or reorder rows; a changed quantity or spec cannot be read back.",
    "Return the file as .xlsx (no macros, no links to other files).",
]


@dataclass(frozen=True)
class QuoteRow:
    """One line a vendor is asked to quote: what the import checks the returned file against."""

    key: str
    item: str
    spec: str
    qty: float
    unit: str


def quote_rows(book: Book, values: dict[str, np.ndarray]) -> list[QuoteRow]:
    """The BOM's priced lines with a quantity above zero, as built; a cable's spec says its length class.
    (A lump sum such as the storage system is not a line a vendor quotes against a quantity.)"""
    rows = []
    for item, qty, length in book.bom.rows:
        n = float(values[qty.id].reshape(-1)[0])
        if item.price is None or item.unit == "lot" or not n > 0:
            continue
        spec = item.spec
        if length is not None:
            spec = f"{spec}, {float(values[length.id].reshape(-1)[0]):g} m length class"
        rows.append(QuoteRow(item.key, item.label, spec, n, item.unit))
    return rows


def reference(site: Any) -> str:
    """The quote's reference: a digest of the site file's name (it names neither the site nor the file; a site
    file keeps its reference as it is edited)."""
    return "RFQ-" + hashlib.sha256(site.path.stem.encode()).hexdigest()[:10].upper()


def render(model: Any, vendor: str, issued: datetime.date) -> bytes:
    """The vendor's copy of a loaded model's bill of materials, as .xlsx bytes."""
    rows = quote_rows(model.book, model.values)
    book = Book(reference(model.site))
    book.sheets[INSTRUCTIONS_SHEET] = []  # first: the sheets' order is the order they are made in
    lines = _quote_lines(book, rows)
    cover = Grid(INSTRUCTIONS_SHEET, "Request for quotation", f"{reference(model.site)}, issued {issued.isoformat()}",
                 [GridColumn("", 24), GridColumn("", 110, wrap=True)])
    cover.rows = [["Reference", reference(model.site)], ["Vendor", vendor], ["Issued", issued.isoformat()],
                  *([["", text]] for text in INSTRUCTIONS)]
    grid = Grid(QUOTE_SHEET, "Quote", "Fill the yellow cells: unit price, lead time and comment.", COLUMNS)
    for row, (qty, price, lead, total) in zip(rows, lines["rows"], strict=True):
        grid.rows.append([row.key, row.item, row.spec, Fixed(qty), row.unit, Blank(price), Blank(lead),
                          Entry(row.key), total])
    grid.rows.append(["total", "Total", "", None, "", None, None, None, lines["total"]])
    book.grids = [cover, grid]
    document = Document("quote", (INSTRUCTIONS_SHEET, QUOTE_SHEET), cover=False, protect=True)
    return _write(book, book.evaluate(), document, vendor)


def _quote_lines(book: Book, rows: list[QuoteRow]) -> dict[str, Any]:
    """Per row: the quantity (a fixed value), the price and lead time (blank inputs) and the line total."""
    s = book.sheet(QUOTE_SHEET, PREFIX)
    out = []
    for k, row in enumerate(rows, start=1):
        qty = s._add(f"l{k}_qty", _input(f"{PREFIX}.l{k}_qty", row.item, row.unit, row.qty, COUNT, (0, None)))
        price = s._add(f"l{k}_price", _input(f"{PREFIX}.l{k}_price", f"{row.item}: unit price", "USD", 0.0,
                                             "#,##0.00", (0, None)))
        lead = s._add(f"l{k}_lead", _input(f"{PREFIX}.l{k}_lead", f"{row.item}: lead time", "weeks", 0.0, "#,##0",
                                           (0, MAX_LEAD_WEEKS)))
        total = s.calc(f"l{k}_total", f"{row.item}: line total", "USD", qty * price, "quantity x unit price",
                       fmt="#,##0.00")
        out.append((qty, price, lead, total))
    grand = added(total for *_, total in out)
    return {"rows": out, "total": s.calc("total", "Total", "USD", grand, "the line totals added", fmt="#,##0.00")}


def _input(line_id: str, label: str, unit_text: str, value: float, fmt: str, bounds: tuple[Any, Any]) -> Line:
    from workbook.formula.line import as_stored, pint_text

    return Line(line_id, label, unit_text, parse_unit(pint_text(unit_text)), "input", QUOTE_SHEET, "", fmt=fmt,
                value=np.asarray(as_stored(value), dtype=float), bounds=(bounds[0], bounds[1], False),
                section=QUOTE_SHEET)


def _write(book: Book, values: dict[str, np.ndarray], document: Document, vendor: str) -> bytes:
    buffer = io.BytesIO()
    wb = xlsxwriter.Workbook(buffer, {"strings_to_numbers": False, "strings_to_formulas": False,
                                      "in_memory": True})
    wb.set_properties({"title": "Request for quotation", "author": "", "created": FIXED_DATE,
                       "company": "", "comments": ""})
    wb.set_calc_mode("auto")
    styles = Styles(wb, unlock_inputs=True)
    layout = plan(book, document)
    paper = PAPERS["a4"]
    for title, sl in layout.sheets.items():
        ws = wb.add_worksheet(title)
        write_grids(wb, ws, styles, layout, sl.grids, values, vendor, paper)
    wb.close()
    return buffer.getvalue()
