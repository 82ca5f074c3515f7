"""`python -m workbook import-quote RETURNED.xlsx --site SITE.yaml`: a vendor's returned copy, read back safely.

The returned file is untrusted (workbook.returned.safe_xlsx refuses macros, links, embedded objects, XML attacks
and zip bombs). Then it must be a copy we issued, for the site as it is now: its lines are all or some of the
site's bill of materials (a subset copy asks for some), each row the row we sent (the same line, item, spec,
quantity and unit: a tampered quantity or a changed spec is refused, as is a site whose bill of materials has
changed since the copy was made), in the copy's layout (group headings, lines, total), and its reference is the
one the site, its vendor, its issue date and its lines make (workbook.returned.vendor_copy.reference: a changed vendor,
date or set of lines is refused). Only the price, lead time and comment cells are read; a price is a finite
number of at least 0, typed, never a formula; a lead time comes with every price. Every problem of the file is
said at once, a line each (an InputErrors), once its layout is the copy's. Nothing is written unless the
whole file passes; then the quote is added to the site's quotes file (workbook.site.quotes) with the vendor, its
date (the vendor's own quote date from the request sheet, from which its staleness runs; the copy's issue date
where the vendor gave none), the day it was imported and the file's SHA-256, and the next build prices its
lines at the quote (the lines it does not hold keep their budget or other vendors' quotes).
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from workbook.book.formats import singular
from workbook.excel.layout import GRID_HEADER_ROW
from workbook.formula.echo import clip
from workbook.returned.safe_xlsx import Cell, read_returned
from workbook.returned.vendor_copy import (
    COLUMNS,
    COMMENT,
    DRAFT,
    INSTRUCTIONS_SHEET,
    ISSUED,
    ITEM,
    KEY,
    LEAD,
    PRICE,
    QTY,
    QUOTE_DATE,
    QUOTE_SHEET,
    REFERENCE,
    SPEC,
    STATUS,
    TOTAL,
    UNIT,
    VENDOR,
    QuoteRow,
    layout,
    quote_rows,
    reference,
)
from workbook.site.errors import InputError, InputErrors, raise_all
from workbook.site.output import locked, write_all_atomically
from workbook.site.quotes import comment_too_long, out_of_range, parse_quotes, quotes_path, read_quotes
from workbook.site.spec import hidden
from workbook.site.values import EPOCH
from workbook.site.yaml_reader import YamlError, parse_yaml, read_yaml

FIRST_ROW = GRID_HEADER_ROW + 1
HEADER = "# Vendor quotes for {site}, added by `python -m workbook import-quote`. The build uses them.\n"


KINDS = ("wrong-sheets", "reference", "tampered", "structure", "bad-price", "bad-lead", "formula", "no-prices",
         "duplicate", "bad-text", "bad-date")


class QuoteRefused(InputError):
    """A returned quote that is a safe file but not a quote we can take: `kind` says why (one of KINDS; an unsafe
    file is an UntrustedFile, with its own kinds)."""

    def __init__(self, problem: str, *, file: Path, kind: str, **parts: Any):
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
        super().__init__(problem, file=file, **parts)
        self.kind = kind


def import_quote(returned: Path | str, site_path: Path | str, vendor: str | None = None,
                 today: datetime.date | None = None) -> tuple[Path, dict[str, Any]]:
    """Read a returned copy against the site's bill of materials and add its quote to the quotes file; returns
    the quotes file and the entry added."""
    from workbook.api import load

    returned, site_path = Path(returned), Path(site_path)
    got = read_returned(returned, [INSTRUCTIONS_SHEET, QUOTE_SHEET])
    if got.sheets != (INSTRUCTIONS_SHEET, QUOTE_SHEET):
        raise QuoteRefused(f"has the sheets {clip(', '.join(got.sheets))}, not the quoting copy's "
                           f"{INSTRUCTIONS_SHEET} and {QUOTE_SHEET}", file=returned, kind="wrong-sheets")
    model = load(site_path, risk=False)  # its bill of materials: no risk figure is read
    everything = quote_rows(model.book, model.values)
    cells = got.cells[QUOTE_SHEET]
    asked = _asked(returned, cells, everything)  # the layout: without it no row can be read
    cover = _cover(got.cells[INSTRUCTIONS_SHEET])
    day = today or datetime.datetime.now(datetime.UTC).date()
    problems: list[InputError] = []  # every problem of the file, said at once
    issued = _at_once(problems, _check_reference, returned, site_path, cover, model.site.name, everything, asked)
    dated = _at_once(problems, _quote_date, returned, got.cells[INSTRUCTIONS_SHEET], issued, day)
    who = _at_once(problems, _vendor, returned, vendor, cover[VENDOR])
    lines = _read_lines(returned, cells, asked, problems)
    if not lines and not problems:
        problems.append(QuoteRefused("has no unit price filled in", file=returned, kind="no-prices"))
    raise_all(problems)
    assert isinstance(issued, datetime.date) and isinstance(who, str)
    path = quotes_path(site_path)
    entry = {"vendor": " ".join(who.split())[:100], "date": (dated or issued).isoformat(),
             "dated": "the vendor's quote date" if dated else "the copy's issue date (the vendor gave no quote date)",
             "imported": day.isoformat(), "file": returned.name, "reference": cover[REFERENCE], "sha256": got.sha256,
             "lines": lines}
    with locked(site_path.parent):  # read, add, write back: two imports at once take turns, neither is lost
        entries = _existing(path)
        for earlier in entries:
            if isinstance(earlier, dict) and earlier.get("sha256") == got.sha256:
                raise QuoteRefused(f"was imported already (on {earlier.get('date')})", file=returned,
                                   kind="duplicate")
        text = HEADER.format(site=site_path.name) + yaml.safe_dump({"quotes": [*entries, entry]}, sort_keys=False,
                                                                   allow_unicode=True, width=1000)
        write_all_atomically([(path, _readable(returned, path, text))])
    return path, entry


def _at_once(problems: list[InputError], check: Any, *args: Any) -> Any:
    """A check's result, or None with its refusal added to `problems` (said with the others)."""
    try:
        return check(*args)
    except InputErrors as many:
        problems.extend(many.errors)
    except QuoteRefused as one:
        problems.append(one)
    return None


def _quote_date(file: Path, cells: dict[tuple[int, int], Cell], issued: datetime.date | None,
                today: datetime.date) -> datetime.date | None:
    """The vendor's own quote date, from its cell beside QUOTE_DATE (a date, or text YYYY-MM-DD): from the copy's
    issue date to today; None where the vendor left it empty (the copy's issue date is taken: a quote is no older)."""
    at = next(((r, 1) for (r, c), cell in cells.items() if c == 0 and _text(cell) == QUOTE_DATE), None)
    cell = cells.get(at) if at is not None else None
    where = f"{INSTRUCTIONS_SHEET}!{_cell_name(*at)}" if at is not None else f"{INSTRUCTIONS_SHEET}!{QUOTE_DATE}"
    if cell is None or cell.value in (None, ""):
        return None
    v = cell.value
    day: datetime.date | None = None
    if isinstance(v, float) and not isinstance(v, bool) and math.isfinite(v) and 1 <= v <= 2958465:
        day = EPOCH + datetime.timedelta(days=int(v))
    elif isinstance(v, str):
        try:
            day = datetime.date.fromisoformat(v.strip())
        except ValueError:
            day = None
    if day is None:
        raise QuoteRefused("is not a date (YYYY-MM-DD)", file=file, kind="bad-date", key=where, value=v,
                           expected="the date of your quote, e.g. 2026-12-10")
    if (issued is not None and day < issued) or day > today:
        since = f"from the copy's issue date {issued.isoformat()} " if issued is not None else ""
        raise QuoteRefused(f"is not a date {since}to today, {today.isoformat()}", file=file, kind="bad-date",
                           key=where, value=day.isoformat(), expected="the date of your quote")
    return day


def _readable(returned: Path, path: Path, text: str) -> bytes:
    """The quotes file's bytes, once the build's own reader (the site loader's YAML rules, then the quotes'
    ranges and text rules) has read them back: a file the build would refuse is never written."""
    try:
        data = text.encode("utf-8")
        parse_quotes(parse_yaml(data, path), path)
    except (UnicodeEncodeError, YamlError, InputError) as e:
        why = e.problem if isinstance(e, YamlError | InputError) else "holds text that is not Unicode"
        raise QuoteRefused(f"would make a quotes file the build cannot read ({why})", file=returned,
                           kind="bad-text") from None
    return data


def _vendor(returned: Path, given: str | None, on_cover: str) -> str:
    """The vendor the quote is recorded under: the cover's name, or --vendor where the cover has none; a --vendor
    that differs from the cover's name is refused (the copy was issued to the cover's vendor)."""
    cover = " ".join(on_cover.split())
    named = " ".join((given or "").split())
    if named and cover and named != cover:
        raise QuoteRefused(f"was issued to {clip(cover)!r}, not {clip(named)!r} (--vendor): import it under the "
                           "cover's name, or issue a copy to the other vendor", file=returned, kind="reference",
                           key=f"{INSTRUCTIONS_SHEET}!{VENDOR}")
    who = named or cover or "unnamed vendor"
    problem = hidden(who)
    if problem is not None:
        raise QuoteRefused(f"names a vendor that {problem}", file=returned, kind="bad-text",
                           key=f"{INSTRUCTIONS_SHEET}!{VENDOR}", value=who)
    return who


def _cover(cells: dict[tuple[int, int], Cell]) -> dict[str, str]:
    """The request sheet's reference, vendor and issue date, by their labels in its first column."""
    out = {REFERENCE: "", VENDOR: "", ISSUED: "", STATUS: ""}
    for (r, c), cell in sorted(cells.items()):
        label = _text(cell)
        if c == 0 and label in out and not out[label]:
            out[label] = _text(cells.get((r, 1)))
    return out


def _check_reference(file: Path, site_path: Path, cover: dict[str, str], site_name: str,
                     everything: list[QuoteRow], asked: list[QuoteRow]) -> datetime.date:
    """The reference on the cover is the one this site, the cover's vendor and date and the copy's lines make; a
    draft is not a request (its reference is no issued copy's either)."""
    if cover[STATUS].startswith(DRAFT):
        raise QuoteRefused("is a draft (quote --draft), not an issued request for quotation: a quote is taken only "
                           "on an issued copy", file=file, kind="reference", key=f"{INSTRUCTIONS_SHEET}!{STATUS}")
    try:
        issued = datetime.date.fromisoformat(cover[ISSUED])
    except ValueError:
        raise QuoteRefused("has no issue date written YYYY-MM-DD beside Issued", file=file, kind="reference",
                           key=f"{INSTRUCTIONS_SHEET}!{ISSUED}", value=cover[ISSUED]) from None
    want = reference(site_name, everything, cover[VENDOR], issued, [r.key for r in asked])
    if cover[REFERENCE] != want:
        raise QuoteRefused(f"is the request {clip(cover[REFERENCE]) or '(no reference)'!r}, not one "
                           f"{site_path.name} issued to this vendor on this date for these lines (another site, a "
                           "changed bill of materials, or a changed vendor, date or set of lines)", file=file,
                           kind="reference", key=f"{INSTRUCTIONS_SHEET}!{REFERENCE}")
    return issued


def _existing(path: Path) -> list[Any]:
    if not path.exists():
        return []
    read_quotes(path)  # validated before we add to it
    data, _ = read_yaml(path)
    return list(data["quotes"])


def _asked(file: Path, cells: dict[tuple[int, int], Cell], everything: list[QuoteRow]) -> list[QuoteRow]:
    """The lines the copy asks for, read from its first column (a subset copy lists some of the site's lines):
    the site's rows whose keys it holds, which must sit in the copy's layout (headings, lines, total)."""
    for c, column in enumerate(COLUMNS):
        if _text(cells.get((GRID_HEADER_ROW, c))) != column.header:
            raise QuoteRefused(f"column {column.header!r} is not where the quoting copy has it", file=file,
                               kind="structure", key=_where(GRID_HEADER_ROW, c))
    listed = {_text(cell) for (r, c), cell in cells.items() if c == KEY and r >= FIRST_ROW}
    asked = [row for row in everything if row.key in listed]
    for r, want in enumerate(layout(asked), start=FIRST_ROW):
        key = want.key if isinstance(want, QuoteRow) else want
        if _text(cells.get((r, KEY))) != key:
            raise QuoteRefused(f"reads {clip(_text(cells.get((r, KEY))))!r} where the quoting copy has {key!r}: "
                               "rows were added, removed or moved, or the bill of materials changed since the copy "
                               "was made",
                               file=file, kind="structure", key=_where(r, KEY))
    return asked


def _read_lines(file: Path, cells: dict[tuple[int, int], Cell], asked: list[QuoteRow],
                problems: list[InputError]) -> dict[str, Any]:
    """Check the sheet is the one we sent (rows, quantities, specs; formulas only in line totals; nothing in a
    heading row or outside the table) and read each filled price with its lead time and comment; every problem
    is added to `problems`, in the sheet's order, cell by cell."""
    rows = layout(asked)
    last = FIRST_ROW + len(rows) - 1  # the total row
    at = {r: row for r, row in enumerate(rows, start=FIRST_ROW)}
    formulas = set()  # rows with a formula where a value is typed: said once, not again as a missing price
    for (r, c), cell in sorted(cells.items()):
        row = at.get(r)
        if cell.formula is not None and not (c == TOTAL and (isinstance(row, QuoteRow) or r == last)):
            problems.append(QuoteRefused("holds a formula; type values only", file=file, kind="formula",
                                         key=_where(r, c), value=cell.formula))
            formulas.add(r)
            continue
        stray = r > last or c > TOTAL or (isinstance(row, str) and r != last and c != KEY)
        if stray and cell.value not in (None, ""):
            problems.append(QuoteRefused("is outside the quote's lines (rows or columns were added, or a heading row "
                                         "was written in)", file=file, kind="structure", key=_where(r, c),
                                         value=cell.value))
    out: dict[str, Any] = {}
    for r, row in at.items():
        if isinstance(row, QuoteRow):
            _at_once(problems, _same_row, file, cells, r, row)
            quoted = None if r in formulas else _at_once(problems, _line, file, cells, r, row)
            if quoted is not None:
                out[row.key] = quoted
    return out


def _same_row(file: Path, cells: dict[tuple[int, int], Cell], r: int, row: QuoteRow) -> None:
    unit = singular(row.unit, np.array([row.qty]))  # as the copy shows it: 1 switch, 2 switches
    for c, want in ((KEY, row.key), (ITEM, row.item), (SPEC, row.spec), (UNIT, unit)):
        if _text(cells.get((r, c))) != want:
            raise QuoteRefused(f"reads {clip(_text(cells.get((r, c))))!r}, the bill of materials has {want!r} (a "
                               "changed spec, or rows moved)", file=file, kind="tampered", key=_where(r, c))
    got = cells.get((r, QTY))
    if got is None or isinstance(got.value, bool) or not isinstance(got.value, float) or got.value != row.qty:
        raise QuoteRefused(f"quantity of {row.key} is {clip(repr(got.value if got else None))} in the returned "
                           f"file, {row.qty:g} in the site's bill of materials now", file=file, kind="tampered",
                           key=_where(r, QTY))


def _line(file: Path, cells: dict[tuple[int, int], Cell], r: int, row: QuoteRow) -> dict[str, Any] | None:
    """One row's price, lead time and comment; None when the vendor left the price empty."""
    problems: list[InputError] = []
    price = _at_once(problems, _number, file, cells.get((r, PRICE)), _where(r, PRICE), "bad-price",
                     "a unit price in USD", "unit_price")
    lead = _at_once(problems, _number, file, cells.get((r, LEAD)), _where(r, LEAD), "bad-lead",
                    "a lead time in weeks", "lead_time_weeks")
    raise_all(problems)  # a row's price and lead time both said
    if price is None:
        if lead is not None:
            raise QuoteRefused(f"gives a lead time for {row.key} but no unit price", file=file, kind="bad-price",
                               key=_where(r, PRICE))
        return None
    if lead is None:
        raise QuoteRefused(f"gives a unit price for {row.key} but no lead time", file=file, kind="bad-lead",
                           key=_where(r, LEAD))
    comment = cells.get((r, COMMENT))
    text = " ".join(("" if comment is None or comment.value is None else str(comment.value)).split())
    problem = hidden(text) or comment_too_long(text)
    if problem is not None:
        raise QuoteRefused(problem, file=file, kind="bad-text", key=_where(r, COMMENT), value=text)
    if price == 0 and not text:
        raise QuoteRefused(f"prices {row.key} at 0 without a comment: say where it is included", file=file,
                           kind="bad-price", key=_where(r, PRICE))
    return {"unit_price": price, "lead_time_weeks": lead, "quantity": row.qty, "comment": text}


def _number(file: Path, cell: Cell | None, where: str, kind: str, expected: str, field: str) -> float | None:
    """A price or lead time as typed: a finite number within its range (quotes.out_of_range)."""
    if cell is None or cell.value is None or cell.value == "":
        return None
    v = cell.value
    if cell.error or isinstance(v, bool) or not isinstance(v, float):
        raise QuoteRefused("is not a number", file=file, kind=kind, key=where, value=v, expected=expected)
    if cell.date:  # 2025-01-01 typed into a price cell is the number 45658, shown as a date
        raise QuoteRefused("is a date (the cell shows it as one), not a number", file=file, kind=kind, key=where,
                           value=v, expected=expected)
    problem = out_of_range(field, v)
    if problem is not None:
        raise QuoteRefused(problem, file=file, kind=kind, key=where, value=v, expected=expected)
    return v + 0.0  # a -0 typed is 0 (never "-0.00 USD")


def _text(cell: Cell | None) -> str:
    return "" if cell is None or cell.value is None or isinstance(cell.value, bool) else str(cell.value).strip()


def _cell_name(r: int, c: int) -> str:
    from xlsxwriter.utility import xl_rowcol_to_cell

    return str(xl_rowcol_to_cell(r, c))


def _where(r: int, c: int) -> str:
    return f"{QUOTE_SHEET}!{_cell_name(r, c)}"


