"""The vendor's quoting copy: a request for quotation, made from the bill of materials, that goes outside.

Its first sheet is the request: the reference, the vendor, the one date it is issued, the lines asked for, the
site's terms (delivery site and country, required-by date, quotes due by, buyer contact, Incoterms, payment
terms: workbook.models.bom.terms), the quote validity asked for, and how to fill the quote in. Its second sheet
holds only what a vendor needs to quote, in the BOM's groups: each line's key, item, spec and quantity (values,
locked), empty unlocked cells for the unit price, the lead time and a comment, and the line totals and the grand
total as live formulas. Nothing else of ours: no budget prices, no TCO, no notes or sources, no names but its own.

A copy may ask for a subset of the lines (a network vendor is not asked for GPU nodes): `quote --groups network`
or `--lines nodes,racks`. Its reference is unique to the site's bill of materials, the vendor, the issue date and
the lines asked for, and cannot be made from the file's name: a keyed hash (HMAC-SHA-256) whose key is the
SHA-256 of every line the site's bill of materials asks to quote (key, item, spec, quantity, unit) and the
site's name, over the vendor, the date and the lines of this copy, shown as 12 hexadecimal digits. A vendor
holding a subset cannot make another copy's reference; import-quote makes it again from the site as it is now
and refuses a copy whose reference, vendor, date or lines do not match.

A copy is issued only with the buyer's company, the buyer contact and the date quotes are due
(workbook.models.bom.terms.REQUIRED); `quote --draft` writes one without them, for review: every page of each of
its sheets carries DRAFT in its header, its first sheet says so and which terms are missing, and its reference
is not an issued copy's (import-quote refuses it).

The copy is a small book of its own, written by the same grid writer as the BOM sheet: each quantity is an
input line shown as a locked value, each price and lead time an input line left blank for the vendor, each
line total a formula line (quantity x unit price) defined once, in Python, like every other formula.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xlsxwriter

from workbook.book.book import Book
from workbook.book.document import Document
from workbook.book.presentation import Blank, Entry, Fixed, Grid, GridColumn, Section
from workbook.excel.grids import write_grids
from workbook.excel.layout import plan
from workbook.excel.pages import MARGIN_HEADER, PAPERS
from workbook.excel.styles import Styles
from workbook.formula.functions import added
from workbook.formula.line import COUNT, Line
from workbook.formula.ranges import Range
from workbook.formula.units import unit as parse_unit
from workbook.model import Model
from workbook.models.bom.bom import GROUPS
from workbook.models.bom.terms import TERMS, missing
from workbook.site.quotes import MAX_COMMENT, quote_limits

QUOTE_SHEET = "Quote"
INSTRUCTIONS_SHEET = "Instructions"
PREFIX = "quote"
TOTAL_KEY = "total"
# the quote sheet's columns; the import reads them by these positions
KEY, ITEM, SPEC, QTY, UNIT, PRICE, LEAD, COMMENT, TOTAL = range(9)
COLUMNS = [GridColumn("Line", 26), GridColumn("Item", 32, wrap=True), GridColumn("Part / spec", 52, wrap=True),
           GridColumn("Quantity", 10), GridColumn("Unit", 12, wrap=True),
           GridColumn("Unit price (USD, excl. tax)", 14, wrap=True),
           GridColumn("Lead time (weeks from order)", 12, wrap=True), GridColumn("Comment", 36, wrap=True),
           GridColumn("Line total (USD)", 16)]
# the request sheet: what is asked, on what terms, and how to answer (labels in column 0, the words in column 1)
REFERENCE, VENDOR, ISSUED, STATUS = "Reference", "Vendor", "Issued", "Status"
QUOTE_DATE = "Date of your quote"  # the vendor's own date (a yellow cell): a quote's validity runs from it
DRAFT = "DRAFT"
# a draft's page header: the sheet's name, DRAFT in bold in the middle, the page number (as styles.PAGE_HEADER)
DRAFT_HEADER = '&L&A&C&"-,Bold"DRAFT: not issued, not for return&R&P / &N'
HOW = [
    ("Unit price", "In US dollars per unit, excluding taxes, on the delivery terms above. Leave it empty for a line "
                   "you do not supply; a price of 0 needs a comment saying where the line is included."),
    ("Shipping", "Each group ends with its shipping and insurance line (one lot): price it, or price it 0 with a "
                 "comment where your unit prices include delivery."),
    ("Support", "Each group's support and warranty line is priced per year of cover; its quantity is the years "
                "asked for. Say in the comment what the cover includes."),
    ("Quote date", f"Type the date of your quote (YYYY-MM-DD) beside \"{QUOTE_DATE}\" above: its validity runs "
                   "from that date."),
    ("Lead time", "In weeks from our order to delivery at the delivery site, for every line you price."),
    ("Comment", "Text only: the part number you offer where it differs from the spec, minimum order quantities, "
                "anything we should know."),
    ("Locked cells", "The lines, specs and quantities are what we ask you to quote. Do not add, remove or reorder "
                     "rows: a changed quantity or spec cannot be read back."),
    ("Returning it", "Fill the yellow cells on the Quote sheet and return this file as .xlsx (no macros, no links "
                     "to other files) to the buyer contact by the date quotes are due."),
]


@dataclass(frozen=True)
class QuoteRow:
    """One line a vendor is asked to quote: what the import checks the returned file against."""

    key: str
    group: str
    item: str
    spec: str
    qty: float
    unit: str


def quote_rows(book: Book, values: dict[str, np.ndarray]) -> list[QuoteRow]:
    """The BOM's priced lines with a quantity above zero, as built, in its groups' order; a cable's spec says its
    length class, a term licence's its years of cover."""
    rows = []
    for item, qty, length in book.bom.rows:
        n = float(values[qty.id].reshape(-1)[0])
        if item.price is None or not n > 0:
            continue
        spec = item.spec
        if length is not None:
            spec = f"{spec}, {float(values[length.id].reshape(-1)[0]):g} m length class"
        cover = book.bom.covers.get(item.key)
        if cover is not None:
            spec = f"{spec}, for {float(values[cover.id].reshape(-1)[0]):g} years of cover"
        rows.append(QuoteRow(item.key, item.group, item.label, spec, n, item.unit))
    return rows


def chosen(rows: list[QuoteRow], groups: Iterable[str] = (), lines: Iterable[str] = ()) -> list[QuoteRow]:
    """The rows of the given groups and lines (every row when neither is given), in the BOM's order."""
    groups, lines = set(groups), set(lines)
    if not groups and not lines:
        return list(rows)
    return [r for r in rows if r.group in groups or r.key in lines]


def layout(rows: Sequence[QuoteRow]) -> list[QuoteRow | str]:
    """The Quote sheet's rows below its header: each group's heading (where it has a line), its lines, and the
    total (TOTAL_KEY). The import expects exactly this."""
    out: list[QuoteRow | str] = []
    for group, heading in GROUPS.items():
        mine = [r for r in rows if r.group == group]
        if mine:
            out += [heading.split(" (")[0], *mine]  # a heading without our sheets' names
    return [*out, TOTAL_KEY]


def reference(site_name: str, everything: Sequence[QuoteRow], vendor: str, issued: datetime.date,
              keys: Sequence[str], draft: bool = False) -> str:
    """The copy's reference (see the module's docstring): RFQ-XXXX-XXXX-XXXX; a draft's is another than the issued
    copy's of the same lines."""
    bom = json.dumps([site_name, [[r.key, r.item, r.spec, r.qty, r.unit] for r in everything]])
    message = json.dumps([vendor, issued.isoformat(), list(keys), *([DRAFT] if draft else [])])
    digest = hmac.new(hashlib.sha256(bom.encode()).digest(), message.encode(), hashlib.sha256).hexdigest()
    short = digest[:12].upper()
    return f"RFQ-{short[:4]}-{short[4:8]}-{short[8:]}"


def unissued(model: Model) -> list[str]:
    """The site-file keys of the terms a copy is not issued without (bom_terms.REQUIRED) that the site leaves "to
    be agreed"."""
    return [t.key for t in missing(model.book.bom.terms)]


def term_specs(keys: Sequence[str]) -> list[tuple[str, Any]]:
    """The terms' specs (key, Spec) of these site-file keys, for what a refusal expects of each."""
    return [(t.key, t) for t in TERMS if t.key in keys]


def render(model: Model, vendor: str, issued: datetime.date, rows: Sequence[QuoteRow] | None = None,
           draft: bool = False) -> bytes:
    """The vendor's copy of a loaded model's bill of materials, as .xlsx bytes: `rows` (quote_rows, or a subset
    of them, `chosen`), every line by default; `issued` is its one date; a draft says DRAFT on every page (the
    caller refuses to issue a copy that is not a draft while unissued(model) names a term)."""
    everything = quote_rows(model.book, model.values)
    rows = list(everything if rows is None else rows)
    ref = reference(model.site.name, everything, vendor, issued, [r.key for r in rows], draft)
    book = Book(ref)
    book.sheets[INSTRUCTIONS_SHEET] = []  # first: the sheets' order is the order they are made in
    lines = _quote_lines(book, rows)
    dated = book.sheet(INSTRUCTIONS_SHEET, PREFIX)._add("quote_date", _input(
        f"{PREFIX}.quote_date", QUOTE_DATE, "days", 0.0, "yyyy-mm-dd", (None, None), INSTRUCTIONS_SHEET))
    title = f"Request for quotation ({DRAFT})" if draft else "Request for quotation"
    cover = Grid(INSTRUCTIONS_SHEET, title, f"Reference {ref}, issued {issued.isoformat()}",
                 [GridColumn("Request", 30, wrap=True), GridColumn("Details", 96, wrap=True)],
                 _cover_rows(model, ref, vendor, issued, rows, draft, dated))
    grid = Grid(QUOTE_SHEET, f"Quote ({DRAFT})" if draft else "Quote",
                f"Reference {ref}: fill the yellow cells (unit price, lead time, comment).", COLUMNS)
    values = iter(lines["rows"])
    for row in layout(rows):
        if isinstance(row, str) and row != TOTAL_KEY:
            grid.rows.append(Section(row))
        elif isinstance(row, QuoteRow):
            qty, price, lead, total = next(values)
            grid.rows.append([row.key, row.item, row.spec, Fixed(qty), row.unit, Blank(price), Blank(lead),
                              Entry(row.key, MAX_COMMENT), total])
    grid.rows.append([TOTAL_KEY, "Total", "", None, "", None, None, None, lines["total"]])
    book.grids = [cover, grid]
    book.freeze()
    document = Document("quote", (INSTRUCTIONS_SHEET, QUOTE_SHEET), cover=False, protect=True)
    return _write(book, book.evaluate(), document, vendor, issued, draft)


def _cover_rows(model: Model, ref: str, vendor: str, issued: datetime.date,
                rows: Sequence[QuoteRow], draft: bool, dated: Line) -> list[Any]:
    """The request: who and what (a draft's status first), the site's terms, the validity asked for, how to
    answer."""
    bom = model.book.bom
    days = float(model.values["bom.quote_validity"].reshape(-1)[0])
    asked = [GROUPS[g].split(":")[0] for g in GROUPS if any(r.group == g for r in rows)]
    out: list[Any] = [Section("The request")]
    if draft:
        lacking = [t.label for t in missing(bom.terms)]
        why = f"; {', '.join(lacking)}: to be agreed" if lacking else ""
        out.append([STATUS, f"{DRAFT}: for review, not issued{why}. Do not return it: a quote on a draft is not "
                            "imported."])
    out += [[REFERENCE, ref], [VENDOR, vendor], [ISSUED, issued.isoformat()],
            ["Lines to quote", f"{len(rows)} lines on the Quote sheet: {', '.join(asked)}"],
            [QUOTE_DATE, Blank(dated)], Section("Delivery and commercial terms")]
    out += [[term.label, term.text] for term in bom.terms]
    out += [["Quote validity", f"At least {days:g} days from the date of your quote"],
            ["Currency", "US dollars (USD), excluding taxes"], Section("How to quote")]
    return out + [[label, text] for label, text in HOW]


def _quote_lines(book: Book, rows: list[QuoteRow]) -> dict[str, Any]:
    """Per row: the quantity (a fixed value), the price and lead time (blank inputs) and the line total."""
    s = book.sheet(QUOTE_SHEET, PREFIX)
    limits = quote_limits()  # the cells' validation: the range import-quote and the build hold a quote to
    out = []
    for k, row in enumerate(rows, start=1):
        qty = s._add(f"l{k}_qty", _input(f"{PREFIX}.l{k}_qty", row.item, row.unit, row.qty, COUNT, (0, None)))
        price = s._add(f"l{k}_price", _input(f"{PREFIX}.l{k}_price", f"{row.item}: unit price", "USD", 0.0,
                                             "#,##0.00", (limits["unit_price"].lo, limits["unit_price"].hi)))
        lead = s._add(f"l{k}_lead", _input(f"{PREFIX}.l{k}_lead", f"{row.item}: lead time", "weeks", 0.0, "#,##0",
                                           (limits["lead_time_weeks"].lo, limits["lead_time_weeks"].hi)))
        total = s.calc(f"l{k}_total", f"{row.item}: line total", "USD", qty * price, "quantity x unit price",
                       fmt="#,##0.00")
        out.append((qty, price, lead, total))
    grand = added(total for *_, total in out)
    return {"rows": out, "total": s.calc("total", "Total", "USD", grand, "the line totals added", fmt="#,##0.00")}


def _input(line_id: str, label: str, unit_text: str, value: float, fmt: str, bounds: tuple[Any, Any],
           sheet: str = QUOTE_SHEET) -> Line:
    from workbook.formula.line import as_stored, pint_text

    return Line(line_id, label, unit_text, parse_unit(pint_text(unit_text)), "input", sheet, "", fmt=fmt,
                value=np.asarray(as_stored(value), dtype=float), bounds=Range(bounds[0], bounds[1]),
                section=sheet)


def _write(book: Book, values: dict[str, np.ndarray], document: Document, vendor: str,
           issued: datetime.date, draft: bool) -> bytes:
    buffer = io.BytesIO()
    wb = xlsxwriter.Workbook(buffer, {"strings_to_numbers": False, "strings_to_formulas": False,
                                      "in_memory": True})
    title = f"Request for quotation ({DRAFT})" if draft else "Request for quotation"
    wb.set_properties({"title": title, "author": "", "company": "", "comments": "",
                       "created": datetime.datetime.combine(issued, datetime.time())})  # its one date
    wb.set_calc_mode("auto")
    styles = Styles(wb, unlock_inputs=True)
    layout_ = plan(book, document)
    paper = PAPERS["a4"]
    for title, sl in layout_.sheets.items():
        ws = wb.add_worksheet(title)
        write_grids(wb, ws, styles, layout_, sl.grids, values, vendor, paper)
        if draft:  # on every printed page of every sheet, over the page plan's own header
            ws.set_header(DRAFT_HEADER, {"margin": MARGIN_HEADER})
    wb.close()
    return buffer.getvalue()
