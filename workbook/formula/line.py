"""Lines: the one definition of every row of the workbook (the book that holds them is workbook.book.book).

A line is a label, a unit, a formula (or an input value) and a note. Its formula is converted to the declared
unit when the line is defined (finalise), so a dimension error fails the build naming the line.

The timeline: column 0 is time 0 (the start: the order date, when a deposit is paid), then one column per month,
each flow at the month's end. A monthly line has the same formula in every column; a line that reads a previous
column (prev) gives its column-0 value separately (its opening). Yearly lines are roll-ups of monthly ones (the
start, then one column per year), for the views finance reads.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pint

from workbook.formula.expr import (
    FormulaError,
    Guard,
    LineRef,
    Node,
    Operand,
    Prev,
    Ref,
    Shown,
    UnitError,
    convert,
    unit_errors,
)
from workbook.formula.ranges import ANY, Range

COUNT = "#,##0"
NUMBER = "#,##0.00"
PERCENT = "0.0%"
BOOL = "BOOLEAN"
BREAK_EVEN = '[>1]"never (over 100%)";0.0%'  # a break-even utilisation above 100% is never reached: said so
BREAK_EVEN_SHORT = '[>1]"never";0.0%'  # the same in a table's narrow column (its note says never is over 100%)


@dataclass(eq=False)
class Line(Operand):
    id: str
    label: str
    unit_text: str
    unit: pint.Unit
    kind: str  # "input", "calc" or "check"
    sheet: str
    note: str = ""
    formula: Node | None = None
    fmt: str = NUMBER
    is_bool: bool = False
    value: np.ndarray | None = None  # inputs only
    bounds: Range = ANY  # the values its cell may take (an input)
    integer: bool = False
    section: str = ""
    axis: str | None = None  # MONTHS or YEARS for a row, None for a single value
    opening: Node | None = None  # a monthly row's value at time 0 (column 0), where it uses prev()
    recursive: bool = False  # uses its own previous period: evaluated one period at a time
    validity: bool = False  # a check the model's own numbers need (e.g. the life fits the timeline)
    year_keys: Node | None = None  # a roll-up key row: each yearly column's key (its header); None: its number
    balance_change: bool = False  # a change in a balance (debt, book value, tax owed): it nets to 0 over the life
    position: bool = False  # a position on the timeline in months (a month's number), not an amount: no total

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_sealed"):
            raise FormulaError(f"is part of a book and cannot change ({name}); derive a changed copy with "
                               "Line.cloned", line=self.id, label=self.label)
        object.__setattr__(self, name, value)

    def seal(self) -> None:
        """Complete: the book that adds a line seals it, after which no field changes. What it reads is then
        computed once (`reads`), and every cache of the evaluator can trust a line's formula to stay the same."""
        if not self.__dict__.get("_sealed"):
            object.__setattr__(self, "_preds", _read_ids(self))
            object.__setattr__(self, "_sealed", True)

    @property
    def sealed(self) -> bool:
        return bool(self.__dict__.get("_sealed"))

    @property
    def reads(self) -> tuple[str, ...]:
        """The ids of the lines this line's formula and opening read (its predecessors), itself excluded."""
        return self.__dict__["_preds"] if self.__dict__.get("_sealed") else _read_ids(self)

    def node(self) -> Node:
        return Ref(self)

    def cloned(self, line_id: str, label: str, sheet: str, section: str) -> Line:
        """The same line under another id (a scenario's copy), not sealed: the caller re-points its formula
        before a book adds (and seals) it."""
        return dataclasses.replace(self, id=line_id, label=label, sheet=sheet, section=section)

    @property
    def series(self) -> bool:
        """True for a row of periods (monthly or yearly)."""
        return self.axis is not None

    @property
    def name(self) -> str:
        """The Excel defined name: the line id with dots as underscores (power.it_load -> power_it_load)."""
        return _defined_name(self.id)

    @property
    def guard_message(self) -> str | None:
        """The text a guarded formula shows instead of an error (safe_div, irr)."""
        if isinstance(self.formula, Ref):  # =other_line shows the other line's message as it is
            return self.formula.line.guard_message
        return getattr(self.formula, "message", None)


def message_at(line: LineRef, values: dict[str, np.ndarray] | None, period: int = 0) -> str | None:
    """The words a line's cell shows where its value is no number (NaN), or None: a guard's message; for a value
    shown only if a condition holds (only_if), its message where the condition fails, else what the value it
    shows says (read from `values`, which hold the condition's line)."""
    f = line.formula
    if isinstance(f, Ref):
        return message_at(f.line, values, period)
    if isinstance(f, Shown) and values is not None and isinstance(f.condition, Ref):
        held = values.get(f.condition.line.id)
        if held is not None:
            flat = held.reshape(held.shape[0], -1)[0] if held.ndim else held.reshape(-1)
            if bool(flat[min(period, flat.size - 1)]):
                return message_at(f.value.line, values, period) if isinstance(f.value, Ref) else None
            return f.message
    return getattr(f, "message", None)


def as_stored(x: float) -> float:
    """The number an input cell of the .xlsx holds: xlsxwriter writes 16 significant digits, and a double can
    need 17 (1.2 kW is 1200.0000000000002 W). Python computes from the same number the spreadsheet reads, or
    the two part in the last bits, and a later near-cancellation (a PUE of 1.000000002) magnifies that."""
    return float(f"{float(x):.16g}")


# Units columns show words a reader expects; pint reads the unit behind them.
_SHOWN_AS = {
    "TRUE/FALSE": "", "TR": "ton_of_refrigeration", "share/year": "1/fyear", "FTE": "", "flag": "",
    "months": "fmonth", "years": "fyear", "date": "day",  # a date: days since 1899-12-30
    "USD/month": "USD/fmonth",
    "USD/year": "USD/fyear", "GPU-h": "GPU*hour", "USD/GPU-h": "USD/GPU/hour", "kW-month": "kW*fmonth",
    "USD/kW-month": "USD/kW/fmonth", "GPU-h/month": "GPU*hour/fmonth",
    "GPUs": "GPU", "nodes": "", "racks": "", "count": "", "ratio": "", "%": "", "blocks": "",
    "nodes/rack": "", "GPU/MW": "GPU/MW", "switches": "", "links": "", "CDUs": "", "units": "", "rows": "",
    "hosts": "", "PDUs": "", "PDUs/rack": "", "CDUs/rack": "", "tiers": "", "buses": "",
    "cords": "", "manifolds": "", "hoses": "", "cables": "", "appliances": "", "lot": "", "modules": "",  # the BOM
    "licences": "", "years of cover": "",  # the BOM's software licences and its support lines (priced per year)
    # delivered compute in H100-equivalents: GPUs weighted by their throughput relative to an H100 SXM
    "month no.": "", "no. of months": "",  # a month of the timeline, a count of months, as plans write them
    "H100-eq": "GPU", "H100-eq-months": "GPU*fmonth", "USD/H100-eq-month": "USD/GPU/fmonth", "H100-eq/MW": "GPU/MW",
    # reliability: a model's size in billions of parameters, interruption counts and rates, spare parts
    "B params": "Gparam", "interruptions": "", "/GPU-h": "1/GPU/hour",
    "/million GPU-h": "1/MGPU/hour",  # interruption rates: 9.23 per million GPU-hours, not 9.231E-06 per GPU-hour
    "parts": "", "parts/day": "1/day",
    "NICs": "", "PSUs": "", "fans": "",
    "TB usable": "",  # the BOM's capacity tier: a count of TB, priced per TB
    # the workload: tokens in trillions, bytes a parameter or a token holds
    "T tokens": "Ttoken",
}


@functools.lru_cache(maxsize=1 << 16)
def _defined_name(line_id: str) -> str:
    return line_id.replace(".", "_")


def reads_previous(node: Node) -> bool:
    return any(isinstance(n, Prev) for n in node.walk())


def pint_text(unit_text: str) -> str:
    return _SHOWN_AS.get(unit_text, unit_text)


def finalise(node: Node, u: pint.Unit, line_id: str, label: str, unit_text: str) -> Node:
    for inner in node.walk():
        if getattr(inner, "message", None) and inner is not node:
            raise FormulaError("a guarded formula (safe_div, irr) must be the whole formula", line=line_id,
                               label=label)
    what = f"declared unit {unit_text or '(pure number)'}"
    node = node.converted(u, what) if isinstance(node, Guard | Shown) else convert(node, u, what)
    errors = unit_errors(node)
    if errors:
        raise UnitError.of(node, line=line_id, label=label)
    return node


# ---------------------------------------------------------------- what each line reads


def reads(line: Line) -> tuple[str, ...]:
    """The ids of the lines a line's formula and opening read (values, previous periods, whole rows, roll-up
    keys), itself excluded: Line.reads, computed once when a book seals the line."""
    return line.reads


def _read_ids(line: Line) -> tuple[str, ...]:
    ids = dict.fromkeys(i for node in (line.formula, line.opening) if node is not None for i in node.read_ids)
    ids.pop(line.id, None)
    return tuple(ids)


class Book(Protocol):
    """What the formula core reads of a book (workbook.book.Book): its lines in order, the timeline's months and
    years, and the scenarios' copies of lines. A protocol, so the core names no module above it."""

    @property
    def lines(self) -> Mapping[str, Line]: ...

    @property
    def periods(self) -> int: ...

    @property
    def years(self) -> int: ...

    @property
    def scenarios(self) -> Mapping[str, Mapping[str, Line]]: ...

    @property
    def scenario_copies_are_rows(self) -> bool: ...
