"""What a site file holds: each input key's Spec, a Value read from it, the Site read, the rules between keys, and
a value with its source as the file writes it (split_value)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pint

from workbook.formula.echo import clip
from workbook.formula.ranges import Range
from workbook.formula.units import unit
from workbook.site.errors import InputError, one_line


@dataclass(frozen=True)
class Spec:
    """One input key: what it means, its unit, the range it must lie in, when it applies."""

    key: str  # "power.gpu_tdp"
    label: str
    unit: str  # as shown in the units column and stored on the Inputs sheet
    expect: str  # in words, for error messages: "a power"
    example: str  # "700 W"
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False  # lo itself is not allowed
    integer: bool = False
    even: bool = False  # a whole number divisible by 2 (e.g. a switch radix: half its ports down, half up)
    choices: tuple[str, ...] = ()  # a word input that shapes the model (e.g. "pue" / "itemised")
    redundancy: bool = False  # "N", "N+1", "2N": becomes a multiplier and a number of spares
    when: tuple[str, str] | None = None  # only used when another (choice) key has this value
    fmt: str = "#,##0.00"
    help: str = ""
    structural: bool = False  # a number that shapes the workbook (e.g. timeline length): not a live input
    why: str = ""  # why lo..hi is the range a real site can have (templates/limits.yaml)
    optional: bool = False  # may be absent: the model then uses another line (e.g. the annual PUE -> the design PUE)
    date: bool = False  # a calendar date (2026-12-01), stored as a spreadsheet date: days since 1899-12-30
    text: int = 0  # words of at most this many characters (a node's name, an address): shown, in no formula
    starts: tuple[str, ...] = ()  # a text that must begin with one of these words, then more (an Incoterms rule)
    alone: tuple[str, ...] = ()  # texts allowed as they are, in place of a date or of starts' words ("to be agreed")
    liquid: bool = False  # needed only where a part is liquid-cooled (LIQUID_SHARES): else a stand-in, not REQUIRED
    section_optional: bool = False  # a key of an optional model (workload:): read only where the file has its section

    @property
    def bounds(self) -> Range:
        return Range(self.lo, self.hi, self.lo_open)

    @property
    def pint_unit(self) -> pint.Unit:
        from workbook.formula.line import pint_text

        return unit(pint_text(self.unit))


@dataclass
class Value:
    magnitude: float | str | tuple[int, int]  # number in the spec's unit, choice word, (multiplier, spares)
    given: str  # the value as written
    source: str  # where it came from: the site file, the catalog entry and its source


@dataclass
class Site:
    path: Path
    name: str
    description: str
    values: dict[str, Value]
    digest: str  # SHA-256 of the site file's bytes, shown on the Cover
    scenarios: dict[str, dict[str, Value]] = field(default_factory=dict)  # name -> key -> its value, read
    generation: Any = None  # the raw `generation:` section (workbook.models.generation.inputs reads it)
    parts: dict[str, str] = field(default_factory=dict)  # catalog kind -> the entry's description (the BOM's specs)
    quotes: Any = None  # the raw `quotes:` section: the vendor chosen per BOM line (workbook.site.quotes reads it)
    risk: Any = None  # the raw `risk:` section: input distributions (workbook.analysis.risk.section reads it)
    models: dict[str, str] = field(default_factory=dict)  # catalog kind -> the entry chosen ("switch": "QM9700")

    def get(self, key: str) -> Value | None:
        return self.values.get(key)


# Characters a site file's text may not hold: controls (whitespace is folded to single spaces first), format
# characters (bidirectional overrides that make a text read other than it is), line and paragraph separators.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


def hidden(text: str) -> str | None:
    """What is wrong with a text from outside, or None: the first character it may not hold (a control, a format
    character such as a bidirectional override, a line or paragraph separator, a lone surrogate), said as
    "holds the control or format character U+001B"."""
    if text.isprintable():  # no character of category Other or Separator but the space: none of _HIDDEN (the rule's
        return None  # one pass in C; a text of ordinary words, a site file's every source, is never walked in Python)
    ch = next((ch for ch in text if unicodedata.category(ch) in _HIDDEN), None)
    return None if ch is None else f"holds the control or format character U+{ord(ch):04X}"


def split_value(raw: Any) -> tuple[Any, str]:
    """A value and its source, from either `x` or `{value: x, source: ...}`."""
    if isinstance(raw, dict) and "value" in raw:
        extra = set(raw) - {"value", "source", "note"}
        if extra:
            raise InputError(clip(f"unknown field(s) {', '.join(sorted(map(str, extra)))} beside value/source"),
                             value=raw, expected="{value: ..., source: ...} (and an optional note)")
        source = one_line(raw.get("source", "") or raw.get("note", ""))
        problem = hidden(source)
        if problem is not None:
            raise InputError(f"its source {problem}", value=raw, expected="a source in plain text")
        return raw["value"], source
    return raw, ""


TOP_LEVEL = {"site", "description", "catalog", "scenarios", "generation", "quotes", "risk"}  # read by their own modules


# A rule between two keys of one unit, checked once every value is parsed (a Spec checks one key alone):
# (key, operator, other key, why), e.g. ("cooling.air_supply_temperature", "<", "cooling.air_return_temperature",
# "the air must leave the racks warmer than it arrives").
Rule = tuple[str, str, str, str]
