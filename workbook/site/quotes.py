"""Vendor quotes kept beside a site: `inputs/quotes/<site>.yaml`, written by `python -m workbook import-quote`.

The file lists each imported quote (vendor, date, the returned file's name and SHA-256) with its price, lead
time and comment per BOM line. A build reads it: for a line quoted by several vendors it takes the one the site
file names under `quotes:` (`quotes: {nodes: Acme}`), else the cheapest. The quoted prices, lead times and dates
become inputs on the Inputs sheet (section "Vendor quotes", defined by workbook.models.bom.quotes), which the BOM
uses in place of the budget prices.
Text (vendor names, comments) is stored and shown as text only: it is never written as a formula.
"""

from __future__ import annotations

import datetime
import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbook.formula.ranges import Range
from workbook.site.errors import InputError
from workbook.site.spec import Site, hidden
from workbook.site.templates import load_limits
from workbook.site.values import serial
from workbook.site.yaml_reader import YamlError, read_yaml

MAX_COMMENT = 500  # characters of a vendor's comment: the copy's cell is validated to it, and a longer one refused
SECTION = "Vendor quotes"


@dataclass(frozen=True)
class Quote:
    """One vendor's price and lead time for one BOM line, as imported (workbook.site.quotes)."""

    vendor: str
    date: float  # a spreadsheet date (days since 1899-12-30)
    date_text: str  # YYYY-MM-DD
    unit_price: float  # USD
    lead_weeks: float
    quantity: float  # the quantity the vendor was asked to quote
    comment: str
    file: str  # the returned file's name
    sha256: str


def quotes_path(site_path: Path) -> Path:
    """Where a site's quotes live: a `quotes/` folder beside it (not `inputs/*.yaml`, which are sites)."""
    return site_path.parent / "quotes" / f"{site_path.stem}.yaml"


def read_quotes(path: Path) -> list[dict[str, Any]]:
    """Every quote of a quotes file (validated: one-line errors naming the file and the key)."""
    if not path.exists():
        return []
    try:
        data, _ = read_yaml(path)
    except YamlError as e:
        raise InputError(e.problem, file=path, key=e.key, line=e.line, column=e.column) from None
    except OSError as e:
        raise InputError(f"cannot read the file ({e.strerror or e})", file=path) from None
    return parse_quotes(data, path)


def parse_quotes(data: Any, path: Path) -> list[dict[str, Any]]:
    """A quotes file's content, validated (the file's path names it in errors)."""
    entries = data.get("quotes") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputError("has no list of quotes", file=path, key="quotes", expected="quotes: [{vendor: ..., ...}]")
    return [_entry(path, k, e) for k, e in enumerate(entries)]


@functools.lru_cache(maxsize=1)
def _quote_limits() -> dict[str, tuple[Range, str]]:
    """templates/limits.yaml's quote ranges, read once per process."""
    limits = load_limits()
    return {field: (Range(limits[f"quote.{field}"][0], limits[f"quote.{field}"][1]), limits[f"quote.{field}"][2])
            for field in ("unit_price", "lead_time_weeks")}


def quote_limits() -> dict[str, Range]:
    """The range of a quoted unit price (USD) and lead time (weeks), from templates/limits.yaml: the same for the
    quoting copy's cells, import-quote and the build's reading of the quotes file."""
    return {field: bounds for field, (bounds, _) in _quote_limits().items()}


def comment_too_long(text: str) -> str | None:
    """What is wrong with a vendor's comment (its whitespace folded) for its length, or None: it is kept whole or
    refused, never cut."""
    if len(text) <= MAX_COMMENT:
        return None
    return f"is a comment of {len(text):,} characters, over the {MAX_COMMENT} a quote keeps; shorten it"


def out_of_range(field: str, v: float) -> str | None:
    """What is wrong with a quote's `field` (unit_price, lead_time_weeks) of value v, with the reason of its range,
    or None: one wording for the returned copy's cell and the quotes file's entry."""
    bounds, why = _quote_limits()[field]
    if math.isfinite(v) and bounds.holds(v):
        return None
    unit = UNITS[field]
    return f"is not a {unit[1]} from {_figure(bounds.lo)} to {_figure(bounds.hi)} {unit[0]} ({why})"


UNITS = {"unit_price": ("USD", "unit price"), "lead_time_weeks": ("weeks", "lead time")}  # a field's unit, in words


def _figure(v: float) -> str:
    """A limit as a reader writes it: 10,000,000,000 (never 1e+10), 0.5."""
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,}"


def _text_field(path: Path, place: str, value: Any) -> None:
    """A text of a quote as the site file's texts are held: no control or format character, no lone surrogate."""
    problem = hidden(str(value))
    if problem is not None:
        raise InputError(problem, file=path, key=place, value=value)


def _entry(path: Path, k: int, entry: Any) -> dict[str, Any]:
    where = f"quotes[{k}]"
    if not isinstance(entry, dict):
        raise InputError("is not a mapping", file=path, key=where)
    for field in ("vendor", "date", "file", "sha256"):
        if not isinstance(entry.get(field), str | datetime.date) or not str(entry.get(field)).strip():
            raise InputError("is missing or not text", file=path, key=f"{where}.{field}")
        _text_field(path, f"{where}.{field}", entry[field])
    try:
        day = datetime.date.fromisoformat(str(entry["date"]))
    except ValueError:
        raise InputError("is not a date written YYYY-MM-DD", file=path, key=f"{where}.date",
                         value=entry["date"]) from None
    lines = entry.get("lines")
    if not isinstance(lines, dict) or not lines:
        raise InputError("has no quoted lines", file=path, key=f"{where}.lines")
    out = {}
    for key, line in lines.items():
        place = f"{where}.lines.{key}"
        if not isinstance(line, dict):
            raise InputError("is not a mapping", file=path, key=place)
        values = []
        for field in ("unit_price", "lead_time_weeks", "quantity"):
            v = line.get(field)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
                raise InputError("is not a finite number of at least 0", file=path, key=f"{place}.{field}", value=v)
            problem = out_of_range(field, float(v)) if field != "quantity" else None
            if problem is not None:
                raise InputError(problem, file=path, key=f"{place}.{field}", value=v)
            values.append(float(v))
        comment = line.get("comment") or ""
        if not isinstance(comment, str):
            raise InputError("is not text", file=path, key=f"{place}.comment", value=comment)
        _text_field(path, f"{place}.comment", comment)
        comment = " ".join(comment.split())
        if (problem := comment_too_long(comment)) is not None:
            raise InputError(problem, file=path, key=f"{place}.comment", value=comment)
        out[str(key)] = Quote(str(entry["vendor"]).strip(), serial(day), day.isoformat(), values[0], values[1],
                              values[2], comment, str(entry["file"]), str(entry["sha256"]))
    return {"vendor": str(entry["vendor"]).strip(), "lines": out}


def chosen_quotes(site: Site) -> dict[str, Quote]:
    """The quote used for each BOM line: the vendor the site file chooses under `quotes:`, else the cheapest.
    (The BOM refuses a line it does not have.)"""
    path = quotes_path(site.path)
    entries = read_quotes(path)
    choice = site.quotes or {}
    if not isinstance(choice, dict):
        raise InputError("is not a mapping", file=site.path, key="quotes",
                         expected="a mapping of BOM line to vendor, e.g. quotes: {nodes: Acme}")
    by_line: dict[str, list[Quote]] = {}
    for entry in entries:
        for key, quote in entry["lines"].items():
            by_line.setdefault(key, []).append(quote)
    out = {}
    for key, quotes in by_line.items():
        wanted = choice.get(key)
        if wanted is not None:
            named = [q for q in quotes if q.vendor == str(wanted)]
            if not named:
                raise InputError(f"no quote from this vendor in {path.name}", file=site.path, key=f"quotes.{key}",
                                 value=wanted, expected=f"one of {', '.join(sorted({q.vendor for q in quotes}))}")
            out[key] = min(named, key=lambda q: (-q.date, q.unit_price))  # that vendor's newest quote
        else:
            out[key] = min(quotes, key=lambda q: (q.unit_price, -q.date))
    for key in choice:
        if key not in by_line:
            raise InputError("has no quote to choose from", file=site.path, key=f"quotes.{key}", value=choice[key])
    return out
