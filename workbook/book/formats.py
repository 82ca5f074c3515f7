"""How a row's numbers are shown: the number format and the unit text a finance reader expects, decided when the
workbook is written from the row's unit, its format and its values at the build.

The conventions (stated on the Cover):
- Money (a row in USD, USD/month or USD/year) is shown in thousands (kUSD) or millions (MUSD) where the row is large:
  the number format divides (`#,##0,` shows 1,234,567 as 1,235) and the Unit column says kUSD or MUSD. The cell
  still holds USD, so a formula that reads it works in USD. A timeline's money rows are all in kUSD (one scale per
  statement); a single figure is in MUSD from 1 million, kUSD from 10,000, else USD. Inputs are shown as typed (USD):
  a value typed into a kUSD cell would be read as USD.
- Negatives in parentheses, zero money as "-": `#,##0_);(#,##0);"-"_)` (the `_)` keeps the figures aligned).
- No false precision: a calculated row of 1,000 or more shows no decimals, of 100 or more at most one (176,367 CFM,
  not 176,367.27); an input shows every decimal its value has, up to its format's (a price at least its cents).
- A count of one thing in the singular (1 NIC, 1 switch), where a single figure is 1 at the build.
Formats with sections of their own (dates, TRUE/FALSE, a guard's words, the break-even's "never") are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from workbook.formula.expr import Ref
from workbook.formula.line import Line

MONEY = ("USD", "USD/month", "USD/year")  # amounts and flows of money (prices per unit are not scaled)
MILLION, TEN_THOUSAND = 1e6, 1e4
_PLAIN = re.compile(r"^(?P<group>#,##)?0(?:\.(?P<dec>0+))?(?P<pct>%)?$")
SINGULAR = {
    "GPUs": "GPU", "nodes": "node", "racks": "rack", "switches": "switch", "links": "link", "CDUs": "CDU",
    "PDUs": "PDU", "hosts": "host", "cables": "cable", "cords": "cord", "manifolds": "manifold", "hoses": "hose",
    "appliances": "appliance", "modules": "module", "NICs": "NIC", "PSUs": "PSU", "fans": "fan", "parts": "part",
    "interruptions": "interruption", "blocks": "block", "rows": "row", "units": "unit", "tiers": "tier",
    "months": "month", "years": "year", "weeks": "week", "days": "day", "spares": "spare",
}


@dataclass(frozen=True)
class Shown:
    """A row as it is shown: its number format and its unit text."""

    fmt: str
    unit: str


def plain(decimals: int, percent: bool = False, grouped: bool = True, scale: str = "") -> str:
    """A number with `decimals` decimals (a percentage, grouped in thousands, divided by 1000 per comma of `scale`),
    negatives in parentheses."""
    body = ("#,##0" if grouped else "0") + ("." + "0" * decimals if decimals else "") + scale + ("%" if percent else "")
    return f"{body}_);({body})"


def money(scale: str) -> str:
    """Money shown in USD (scale ""), kUSD (",", whole) or MUSD (",,", one decimal): negatives in parentheses, zero
    as "-"."""
    body = {"": "#,##0", ",": "#,##0,", ",,": "#,##0.0,,"}[scale]
    return f'{body}_);({body});"-"_)'


def magnitude(value: np.ndarray) -> float:
    """The largest finite absolute value of a row (0 where it has none)."""
    v = np.abs(np.asarray(value, dtype=float).reshape(-1))
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else 0.0


def money_scale(value: np.ndarray, series: bool) -> str:
    """The commas a money row's format divides by: a timeline row in thousands, a single figure by its size."""
    if series:
        return ","
    m = magnitude(value)
    return ",," if m >= MILLION else "," if m >= TEN_THOUSAND else ""


def scaled_unit(unit_text: str, scale: str) -> str:
    return {"": "", ",": "k", ",,": "M"}[scale] + unit_text


def decimals_needed(value: np.ndarray, most: int, percent: bool) -> int:
    """The fewest decimals (up to `most`) that show every value of an input as typed (1,200 kg/m2, not 1,200.00)."""
    v = np.asarray(value, dtype=float).reshape(-1)
    v = v[np.isfinite(v)] * (100 if percent else 1)
    for d in range(most + 1):
        if np.all(np.abs(v * 10**d - np.round(v * 10**d)) < 1e-6 * np.maximum(1.0, np.abs(v * 10**d))):
            return d
    return most


def capped(decimals: int, value: np.ndarray, percent: bool) -> int:
    """A calculated row's decimals: none from 1,000, at most one from 100 (no false precision)."""
    m = magnitude(value) * (100 if percent else 1)
    if m >= 1000:
        return 0
    if m >= 100:
        return min(decimals, 1)
    return decimals


def shown(line: Line, value: np.ndarray, scale_money: bool = True, constant: bool = False) -> Shown:
    """How a line's row is shown. `scale_money`: False where the unit is in a column header (the BOM's USD);
    `constant`: a unit conversion factor, shown with every digit it has."""
    unit = singular(line.unit_text, value) if not line.series else line.unit_text
    if worded(line.fmt):
        scale = money_scale(value, series=False)
        number = {"": "#,##0", ",": "#,##0,", ",,": "#,##0.0,,"}[scale]
        unit = scaled_unit(line.unit_text, scale)
        return Shown(line.fmt.replace("{n}", number).replace("{u}", unit), unit)
    m = _PLAIN.match(line.fmt)
    if line.is_bool or m is None or constant:
        return Shown(line.fmt, unit)
    if scale_money and line.unit_text in MONEY and not _shows_input(line):
        scale = money_scale(value, line.series)
        return Shown(money(scale), scaled_unit(line.unit_text, scale))
    decimals, percent = len(m.group("dec") or ""), bool(m.group("pct"))
    if _shows_input(line):  # as typed; a price keeps its cents where its format has them (5.50 USD, not 5.5)
        cents = min(decimals, 2) if line.unit_text.startswith("USD/") else 0
        decimals = max(decimals_needed(value, decimals, percent), cents)
    else:
        decimals = capped(decimals, value, percent)
    return Shown(plain(decimals, percent, grouped=bool(m.group("group")) or (not percent and decimals == 0)), unit)


def _shows_input(line: Line) -> bool:
    """An input, or a line that only shows one (=its name): shown as typed."""
    return line.kind == "input" or (isinstance(line.formula, Ref) and line.formula.line.kind == "input")


def worded(fmt: str) -> bool:
    """A format that words its figure (the Summary's answer): `{n}` marks the figure, `{u}` its unit, each chosen
    by the figure's size as a money row's are."""
    return "{n}" in fmt


def singular(unit_text: str, value: np.ndarray) -> str:
    """A count's unit in the singular where the figure is 1 (1 NIC, not 1 NICs)."""
    v = np.asarray(value, dtype=float).reshape(-1)
    if unit_text in SINGULAR and v.size == 1 and v[0] == 1:
        return SINGULAR[unit_text]
    return unit_text


def signed(decimals: int, suffix: str = "", scale: str = "") -> str:
    """A change, its sign always shown (+1.2, -0.4, 0.0), divided by 1000 per comma of `scale`, with a unit word
    (`pp`: percentage points on the Sensitivity sheet)."""
    body = "#,##0" + ("." + "0" * decimals if decimals else "") + scale + (f'" {suffix}"' if suffix else "")
    return f"+{body};-{body};{body}"


def decimals(fmt: str) -> int:
    """The decimals of a plain number format (0 for any other)."""
    m = _PLAIN.match(fmt)
    return len(m.group("dec") or "") if m else 0


def negatives_in_parentheses(fmt: str) -> str:
    """A plain number format with its negatives in parentheses; any other format as it is."""
    m = _PLAIN.match(fmt)
    if m is None:
        return fmt
    d, percent = len(m.group("dec") or ""), bool(m.group("pct"))
    return plain(d, percent, grouped=bool(m.group("group")) or (not percent and d == 0))


def odds_shown(p: float) -> str:
    """A probability to the whole percent, never rounded to a certainty it is not: 0.3% is <1%, 99.6% is >99%."""
    if 0 < p < 0.01:
        return "<1%"
    if 0.99 < p < 1:
        return ">99%"
    return f"{p:.0%}"
