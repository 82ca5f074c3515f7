"""`python -m workbook import-quote RETURNED.xlsx --site SITE.yaml`: a vendor's returned copy, read back safely.

The returned file is untrusted (workbook.returned.safe_xlsx refuses macros, links, embedded objects, XML attacks
and zip bombs). Then every row must be the row we sent, for the site as it is now: the same line, item, spec,
quantity and unit (a tampered quantity or a changed spec is refused, as is a site whose bill of materials has
changed since the copy was made); only the price, lead time and comment cells are read; a price is a finite
number of at least 0, typed, never a formula; a lead time comes with every price. Nothing is written unless the
whole file passes; then the quote is added to the site's quotes file (workbook.quotes) with the vendor, the
date and the file's SHA-256, and the next build prices those lines at the quote.
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from workbook.excel.formats import singular
from workbook.excel.layout import GRID_HEADER_ROW
from workbook.excel.output import write_all_atomically
from workbook.inputs import InputError
from workbook.quotes import MAX_COMMENT, parse_quotes, quotes_path, read_quotes
from workbook.returned.safe_xlsx import Cell, read_returned
from workbook.vendor_copy import (
    COLUMNS,
    COMMENT,
    INSTRUCTIONS_SHEET,
    ITEM,
    KEY,
    LEAD,
    MAX_LEAD_WEEKS,
    PRICE,
    QTY,
    QUOTE_SHEET,
    SPEC,
    TOTAL,
    UNIT,
    QuoteRow,
    quote_rows,
    reference,
)
from workbook.yaml_reader import read_yaml

FIRST_ROW = GRID_HEADER_ROW + 1
VENDOR_ROW = FIRST_ROW + 1  # on the Instructions sheet: Reference, Vendor, Issued, Site
HEADER = "# Vendor quotes for {site}, added by `python -m workbook import-quote`. The build uses them.\n"


KINDS = ("wrong-sheets", "tampered", "structure", "bad-price", "bad-lead", "formula", "no-prices", "duplicate")


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
        raise QuoteRefused(f"has the sheets {', '.join(got.sheets)}, not the quoting copy's {INSTRUCTIONS_SHEET} "
                           f"and {QUOTE_SHEET}", file=returned, kind="wrong-sheets")
    model = load(site_path)
    expected = quote_rows(model.book, model.values)
    cover = got.cells[INSTRUCTIONS_SHEET]
    ref = _text(cover.get((FIRST_ROW, 1)))
    if ref != reference(model.site):
        raise QuoteRefused(f"is the quote {ref or '(no reference)'!r}, not one for {site_path.name}", file=returned,
                           kind="wrong-sheets", key=f"{INSTRUCTIONS_SHEET}!B{FIRST_ROW + 1}")
    lines = _read_lines(returned, got.cells[QUOTE_SHEET], expected)
    if not lines:
        raise QuoteRefused("has no unit price filled in", file=returned, kind="no-prices")
    who = vendor or _text(cover.get((VENDOR_ROW, 1))) or "unnamed vendor"
    day = today or datetime.datetime.now(datetime.UTC).date()
    path = quotes_path(site_path)
    entries = _existing(path)
    for entry in entries:
        if isinstance(entry, dict) and entry.get("sha256") == got.sha256:
            raise QuoteRefused(f"was imported already (on {entry.get('date')})", file=returned, kind="duplicate")
    entry = {"vendor": " ".join(who.split())[:100], "date": day.isoformat(), "file": returned.name,
             "sha256": got.sha256, "lines": lines}
    text = HEADER.format(site=site_path.name) + yaml.safe_dump({"quotes": [*entries, entry]}, sort_keys=False,
                                                               allow_unicode=True, width=1000)
    parse_quotes(yaml.safe_load(text), path)  # what we write reads back, before it is written
    path.parent.mkdir(parents=True, exist_ok=True)
    write_all_atomically([(path, text.encode())])
    return path, entry


def _existing(path: Path) -> list[Any]:
    if not path.exists():
        return []
    read_quotes(path)  # validated before we add to it
    data, _ = read_yaml(path)
    return list(data["quotes"])


def _read_lines(file: Path, cells: dict[tuple[int, int], Cell], expected: list[QuoteRow]) -> dict[str, Any]:
    """Check the sheet is the one we sent (headers, rows, quantities, specs; formulas only in line totals) and
    read each filled price with its lead time and comment."""
    for c, column in enumerate(COLUMNS):
        if _text(cells.get((GRID_HEADER_ROW, c))) != column.header:
            raise QuoteRefused(f"column {column.header!r} is not where the quoting copy has it", file=file,
                               kind="structure", key=_where(GRID_HEADER_ROW, c))
    last = FIRST_ROW + len(expected)  # the total row
    for (r, c), cell in cells.items():
        if cell.formula is not None and not (c == TOTAL and FIRST_ROW <= r <= last):
            raise QuoteRefused("holds a formula; type values only", file=file, kind="formula", key=_where(r, c),
                               value=cell.formula)
        if (r > last or c > TOTAL) and cell.value not in (None, ""):
            raise QuoteRefused("is outside the quote's rows and columns (rows or columns were added)", file=file,
                               kind="structure", key=_where(r, c), value=cell.value)
    if _text(cells.get((last, KEY))) != "total":
        raise QuoteRefused("the rows are not the quoting copy's (rows were added, removed or moved, or the bill of "
                           "materials changed since the copy was made)", file=file, kind="structure",
                           key=_where(last, KEY))
    out: dict[str, Any] = {}
    for r, row in enumerate(expected, start=FIRST_ROW):
        _same_row(file, cells, r, row)
        quoted = _line(file, cells, r, row)
        if quoted is not None:
            out[row.key] = quoted
    return out


def _same_row(file: Path, cells: dict[tuple[int, int], Cell], r: int, row: QuoteRow) -> None:
    unit = singular(row.unit, np.array([row.qty]))  # as the copy shows it: 1 switch, 2 switches
    for c, want in ((KEY, row.key), (ITEM, row.item), (SPEC, row.spec), (UNIT, unit)):
        if _text(cells.get((r, c))) != want:
            raise QuoteRefused(f"reads {_text(cells.get((r, c)))!r}, the bill of materials has {want!r} (a changed "
                               "spec, or rows moved)", file=file, kind="tampered", key=_where(r, c))
    got = cells.get((r, QTY))
    if got is None or isinstance(got.value, bool) or not isinstance(got.value, float) or got.value != row.qty:
        raise QuoteRefused(f"quantity of {row.key} is {got.value if got else None!r} in the returned file, {row.qty:g} "
                           "in the site's bill of materials now", file=file, kind="tampered", key=_where(r, QTY))


def _line(file: Path, cells: dict[tuple[int, int], Cell], r: int, row: QuoteRow) -> dict[str, Any] | None:
    """One row's price, lead time and comment; None when the vendor left the price empty."""
    price = _number(file, cells.get((r, PRICE)), _where(r, PRICE), "bad-price", "a unit price in USD", None)
    lead = _number(file, cells.get((r, LEAD)), _where(r, LEAD), "bad-lead", "a lead time in weeks", MAX_LEAD_WEEKS)
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
    if price == 0 and not text:
        raise QuoteRefused(f"prices {row.key} at 0 without a comment: say where it is included", file=file,
                           kind="bad-price", key=_where(r, PRICE))
    return {"unit_price": price, "lead_time_weeks": lead, "quantity": row.qty, "comment": text[:MAX_COMMENT]}


def _number(file: Path, cell: Cell | None, where: str, kind: str, expected: str, hi: float | None) -> float | None:
    if cell is None or cell.value is None or cell.value == "":
        return None
    v = cell.value
    if cell.error or isinstance(v, bool) or not isinstance(v, float):
        raise QuoteRefused("is not a number", file=file, kind=kind, key=where, value=v, expected=expected)
    if not math.isfinite(v) or v < 0 or (hi is not None and v > hi):
        bound = f" of at most {hi:g}" if hi is not None else ""
        raise QuoteRefused(f"is not a finite number of at least 0{bound}", file=file, kind=kind, key=where, value=v,
                           expected=expected)
    return v


def _text(cell: Cell | None) -> str:
    return "" if cell is None or cell.value is None or isinstance(cell.value, bool) else str(cell.value).strip()


def _where(r: int, c: int) -> str:
    from xlsxwriter.utility import xl_rowcol_to_cell

    return f"{QUOTE_SHEET}!{xl_rowcol_to_cell(r, c)}"


