"""A figure as text, as the workbook shows it: what `evaluate` and `risk` print, so a reader of a terminal sees what
a reader of the sheet sees (75%, -14.49 MUSD, 2027-01-15, never (over 100%)), not the number a cell holds
(0.75 beside "%", -1.44946e+07 USD).

The row's number format and unit come from workbook.book.formats.shown (money in kUSD or MUSD by its size, a
percentage as a percentage, no false precision); this module reads that format: decimals, a thousands separator,
the commas that divide by a thousand, a percent sign, a condition section ([>1]"never"), a date, the words of a
format that words its figure (the Summary's answer). Money shows one more decimal than the sheet (two in MUSD):
a terminal has room for it and a comparison of two runs needs it. Negatives print with a minus sign, not in
parentheses."""

from __future__ import annotations

import datetime
import math
import re

import numpy as np

from workbook.book import formats
from workbook.formula.line import Line

_CONDITION = re.compile(r'^\[(?P<op>[<>]=?|=)(?P<limit>-?[\d.]+)\]"(?P<words>[^"]*)"$')
_SECTION = re.compile(r'"[^"]*"|\\.|_.|\*.')  # literal text, escaped characters, padding: not digits
_DATE = re.compile(r"[ymd]")


def figure(line: Line, value: np.ndarray, words: str | None = None) -> str:
    """The line's value as its row shows it (a row of periods: its first and last, and how many). `words`: what the
    cell shows instead of a number (a guard's message), where the value is no number."""
    v = np.asarray(value, dtype=float).reshape(-1)
    if v.size > 1:
        return f"{_one(line, v[:1], v[0], words)} .. {_one(line, v[-1:], v[-1], words)} ({v.size} periods)"
    return _one(line, v, float(v[0]), words)


def _one(line: Line, row: np.ndarray, x: float, words: str | None) -> str:
    if line.is_bool:
        return "TRUE" if x else "FALSE"
    if math.isnan(x):
        return words or "n/a"
    shown = formats.shown(line, row)
    text = number(shown.fmt, x, money=line.unit_text in formats.MONEY)
    words_in = any(c.isalpha() for c in text)  # a worded figure (never, FY2027, the answer) says its own unit
    unit = "" if words_in or "%" in text or _is_date(shown.fmt) else shown.unit
    return f"{text} {unit}".rstrip()


def number(fmt: str, x: float, money: bool = False) -> str:
    """x as the number format `fmt` shows it (the section for its sign or condition; see the module)."""
    sections = _sections(fmt)
    for section in sections:
        m = _CONDITION.match(section)
        if m and _holds(m.group("op"), x, float(m.group("limit"))):
            return m.group("words")
    plain = [s for s in sections if not _CONDITION.match(s)]
    if not plain:
        return f"{x:g}"
    if "{n}" in fmt or ('"' in plain[0] and len(plain) >= 2 and any(c in plain[0] for c in "#0")):
        return _worded(plain, x)
    if _is_date(plain[0]):
        return _date(plain[0], x)
    return _digits(plain[0], x, money)


def _sections(fmt: str) -> list[str]:
    """The format's sections (split on ; outside quotes)."""
    out, cur, quoted = [], "", False
    for ch in fmt:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]


def _holds(op: str, x: float, limit: float) -> bool:
    return {">": x > limit, ">=": x >= limit, "<": x < limit, "<=": x <= limit, "=": x == limit}[op]


def _digits(section: str, x: float, money: bool) -> str:
    """A plain section: its decimals, grouping, a thousand's divisions and percent (or a scientific one: 0.0E+00)."""
    core = _SECTION.sub("", section).replace("(", "").replace(")", "")
    if "E+" in core.upper():
        mantissa = core.upper().split("E")[0]
        return f"{x:.{len(mantissa.split('.')[1]) if '.' in mantissa else 0}E}"
    percent = "%" in core
    body = core.replace("%", "")
    scale = len(body) - len(body.rstrip(","))
    decimals = len(body.split(".")[1].rstrip(",")) if "." in body else 0
    value = x * (100 if percent else 1) / 1000 ** scale
    if money and scale:
        decimals += 1
    grouped = "," in body.rstrip(",")
    text = f"{value:{',' if grouped else ''}.{decimals}f}"
    if text.lstrip("-").strip("0.,") == "":
        text = text.lstrip("-")  # no -0.0
    return text + ("%" if percent else "")


def _worded(sections: list[str], x: float) -> str:
    """A format that words its figure: the section for its sign, the figure in the section's digits."""
    section = sections[0] if x > 0 else sections[1] if x < 0 and len(sections) > 1 else sections[-1]
    parts = re.split(r'("[^"]*")', section)
    out = []
    for part in parts:
        if part.startswith('"'):
            out.append(part.strip('"'))
        elif part.strip():
            out.append(_digits(part, abs(x), money=True))
    return "".join(out)


def _is_date(section: str) -> bool:
    return bool(_DATE.search(_SECTION.sub("", section))) and "#" not in section and "0" not in section


def _date(section: str, serial: float) -> str:
    day = datetime.date(1899, 12, 30) + datetime.timedelta(days=math.floor(serial))
    if section == "yyyy-mm-dd":
        return day.isoformat()
    return day.strftime("%d %b %Y") if "d" in section else day.strftime("%b %Y")
