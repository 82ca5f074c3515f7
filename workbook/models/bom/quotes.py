"""The chosen vendor quotes as input lines (price, lead time, quantity and date per BOM line, on the Inputs sheet):
the site's quotes file is read and checked by workbook.site.quotes; this defines what the BOM reads."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from workbook.book.book import Book
from workbook.book.sheets import INPUTS
from workbook.formula.ranges import Range
from workbook.site.quotes import SECTION, Quote, quotes_path
from workbook.site.spec import Site

__all__ = ["QUOTE_FIELDS", "quote_inputs", "quote_name", "quoted_line"]


QUOTE_FIELDS = ("price", "lead", "qty", "date")  # a quote's input lines, in the Inputs sheet's order


def quote_name(key: str, field: str) -> str:
    """The name of a quote's input line (`quote_nodes_price`): quote_inputs writes it, the BOM reads it."""
    return f"quote_{key}_{field}"


def quoted_line(quote_inputs: Any, key: str, field: str) -> Any:
    """A quote's input line (a field of QUOTE_FIELDS) from what quote_inputs returned."""
    return getattr(quote_inputs, quote_name(key, field))


def quote_inputs(book: Book, site: Site, quotes: dict[str, Quote], price_date: Any) -> Any:
    """The chosen quotes as input lines (price, lead time, date per line) and the date the plan is priced at
    (the site's `bom.price_date`, else the newest quote's date); None without quotes."""
    if not quotes:
        return None
    s = book.sheet(INPUTS, "bom", group=f"{SECTION} ({quotes_path(site.path).name})")
    s.section(s.group)
    lines: dict[str, Any] = {}
    for key, q in sorted(quotes.items()):
        origin = f"quoted by {q.vendor} on {q.date_text}: {q.file} (SHA-256 {q.sha256[:12]}...)"
        for field, label, unit, value, fmt in (("price", "Quoted unit price", "USD", q.unit_price, "#,##0.00"),
                                               ("lead", "Quoted lead time", "weeks", q.lead_weeks, "#,##0"),
                                               ("qty", "Quantity quoted", "count", q.quantity, "#,##0"),
                                               ("date", "Quote date", "days", q.date, "yyyy-mm-dd")):
            name = quote_name(key, field)
            lines[name] = s.input(name, f"{label}: {key}", unit, value, origin, fmt=fmt, bounds=Range(0))
    if price_date is None:  # the newest quote's date: a build does not depend on the day it runs
        newest = max(quotes.values(), key=lambda q: q.date)
        lines["price_date"] = s.input("price_date", "Date the plan is priced at (quotes' age is counted to it)",
                                      "days", newest.date, f"tool default: the newest quote's date ({newest.date_text}"
                                      f", {newest.vendor}); give bom.price_date in the site file to count the "
                                      "quotes' age to the day the plan is priced", fmt="yyyy-mm-dd")
    else:
        lines["price_date"] = price_date
    return SimpleNamespace(**lines)
