"""Lines and the book that holds them: the one definition of every row of the workbook.

A line is a label, a unit, a formula (or an input value) and a note. Its formula is converted to the declared
unit when the line is defined, so a dimension error fails the build naming the line. Lines are defined in
dependency order (a formula can only name lines that already exist), which is also the evaluation order.

The book has one timeline: column 0 is time 0 (the start: the order date, when a deposit is paid), then one
column per month, each flow at the month's end. A monthly line has the same formula in every column; a line
that reads a previous column (prev) gives its column-0 value separately (its opening). Yearly lines are roll-ups
of monthly ones (the start, then one column per year), for the views finance reads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pint

from workbook.formula.expr import (
    MONTHS,
    YEARS,
    Env,
    FormulaError,
    Guard,
    Node,
    Operand,
    Prev,
    Ref,
    UnitError,
    as_node,
    convert,
    unit_errors,
)
from workbook.units import unit as parse_unit

INPUTS_SHEET = "Inputs"
CHECKS_SHEET = "Checks"

COUNT = "#,##0"
NUMBER = "#,##0.00"
PERCENT = "0.0%"
BOOL = "BOOLEAN"


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
    bounds: tuple[float | None, float | None, bool] = (None, None, False)  # lo, hi, lo excluded
    integer: bool = False
    section: str = ""
    axis: str | None = None  # MONTHS or YEARS for a row, None for a single value
    opening: Node | None = None  # a monthly row's value at time 0 (column 0), where it uses prev()
    recursive: bool = False  # uses its own previous period: evaluated one period at a time
    validity: bool = False  # a check the model's own numbers need (e.g. the life fits the timeline)

    def node(self) -> Node:
        return Ref(self)

    def cloned(self, line_id: str, label: str, sheet: str, section: str) -> Line:
        """The same line under another id (a scenario's copy); the caller re-points its formula."""
        return dataclasses.replace(self, id=line_id, label=label, sheet=sheet, section=section)

    @property
    def series(self) -> bool:
        """True for a row of periods (monthly or yearly)."""
        return self.axis is not None

    @property
    def name(self) -> str:
        """The Excel defined name: the line id with dots as underscores (power.it_load -> power_it_load)."""
        return self.id.replace(".", "_")

    @property
    def guard_message(self) -> str | None:
        """The text a guarded formula shows instead of an error (safe_div, irr)."""
        if isinstance(self.formula, Ref):  # =other_line shows the other line's message as it is
            return self.formula.line.guard_message
        return getattr(self.formula, "message", None)


@dataclass
class Section:
    title: str


@dataclass
class Text:
    """A sentence on a sheet (a convention, how to read a block), in the label column."""

    text: str


@dataclass
class Chart:
    """A native chart of some lines' values, labelled by the lines' labels."""

    sheet: str
    title: str
    kind: str  # xlsxwriter chart type: "pie", "bar", "column", "line", "scatter"
    lines: list[Line]  # one series over these lines' values; or, for series lines, one series per line
    y_title: str = ""
    x_title: str = ""
    categories: list[Line] | None = None  # x values from these lines (default: the lines' labels)
    extra: list[list[Line]] = field(default_factory=list)  # more series of the same shape as `lines`
    marker: Line | None = None  # a series line drawn as columns over a line chart (e.g. break-even)


@dataclass
class View:
    """A table that only shows lines side by side (each cell is =name of a line): no calculation of its own."""

    sheet: str
    title: str
    note: str
    rows: list[str]  # row labels
    units: list[str]
    fmts: list[str]
    columns: list[tuple[str, str, list[Line]]]  # (header, what the column changes, one line per row)
    chart_rows: list[int] = field(default_factory=list)  # rows drawn as series of a column chart
    chart_title: str = ""


@dataclass
class Book:
    """Every line of one site's workbook, in definition (= evaluation) order, and the sheets they sit on."""

    site: str
    lines: dict[str, Line] = field(default_factory=dict)
    sheets: dict[str, list[Line | Section | Text]] = field(default_factory=dict)
    settings: list[Any] = field(default_factory=list)  # structural choices from the site file
    charts: list[Chart] = field(default_factory=list)
    periods: int = 0  # the one timeline: its columns, the start (time 0) and then each month
    years: int = 0  # its yearly roll-up: the start and then each year
    tables: list[Any] = field(default_factory=list)  # build-time value tables (e.g. sensitivity)
    scenarios: dict[str, dict[str, Line]] = field(default_factory=dict)  # name -> base id -> scenario line
    views: list[View] = field(default_factory=list)

    def timeline(self, months: int) -> None:
        """Set the workbook's one timeline: the start (time 0) and `months` months after it."""
        if self.periods:
            raise FormulaError("a workbook has one timeline; it is already set")
        if months < 1:
            raise FormulaError("a timeline needs at least one month")
        self.periods = months + 1
        self.years = -(-months // 12) + 1

    def columns(self, axis: str | None) -> int:
        return {None: 1, MONTHS: self.periods, YEARS: self.years}[axis]

    def sheet(self, title: str, prefix: str) -> SheetBuilder:
        self.sheets.setdefault(title, [])
        return SheetBuilder(self, title, prefix)

    def _add(self, line: Line) -> Line:
        if line.id in self.lines:
            raise FormulaError(f"line {line.id} is defined twice")
        self.lines[line.id] = line
        self.sheets.setdefault(line.sheet, []).append(line)
        return line

    def _section(self, sheet: str, title: str) -> None:
        self.sheets.setdefault(sheet, []).append(Section(title))

    def _text(self, sheet: str, text: str) -> None:
        self.sheets.setdefault(sheet, []).append(Text(text))

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, overrides: dict[str, Any] | None = None, *, strict: bool = True) -> dict[str, np.ndarray]:
        """Every line's magnitude (in its declared unit) as an array (batch, columns).

        `overrides` replaces input values, e.g. with arrays of many sampled sites at once. A line with no finite
        value (an unguarded division by zero) raises, unless `strict` is off: then the caller finds the cases
        that have none (non_finite_cases) and reports them.
        """
        env = Env(sizes={MONTHS: self.periods, YEARS: self.years})
        overrides = overrides or {}
        batch = 1
        for key, v in overrides.items():
            if key not in self.lines or self.lines[key].kind != "input":
                raise KeyError(f"{key} is not an input of this book")
            batch = max(batch, np.size(v))
        for line in self.lines.values():
            if line.kind == "input":
                v = overrides.get(line.id, line.value)
                env.values[line.id] = np.asarray(v, dtype=float).reshape(-1, 1)
                continue
            width = self.columns(line.axis)
            v = self._row(line, env, batch) if line.axis == MONTHS else np.asarray(line.formula.evaluate(env))
            v = np.broadcast_to(v, np.broadcast_shapes(v.shape, (batch, width)))
            if not line.is_bool:
                v = v.astype(float)
                bad = np.isinf(v) if line.guard_message is not None else ~np.isfinite(v)
                if strict and bad.any():
                    raise FormulaError(
                        f"line {line.id} ({line.label}) has no finite value for these inputs "
                        "(a division by zero?); guard it with safe_div or fix the inputs"
                    )
            env.values[line.id] = v
        return env.values

    def non_finite_cases(self, values: dict[str, np.ndarray]) -> list[str]:
        """For each case of a non-strict evaluation, the label of the first line with no finite value, or ''."""
        batch = max(v.shape[0] for v in values.values())
        out = [""] * batch
        for line in self.lines.values():
            if line.kind == "input" or line.is_bool:
                continue
            v = np.broadcast_to(values[line.id], (batch, values[line.id].shape[1]))
            bad = np.isinf(v) if line.guard_message is not None else ~np.isfinite(v)
            for c in np.flatnonzero(bad.any(axis=1)):
                out[c] = out[c] or f"no value for {line.label.lower()}"
        return out

    def _row(self, line: Line, env: Env, batch: int) -> np.ndarray:
        """A monthly line: column 0 from its opening (if it has one), the rest from its formula, all at once or,
        for a line that reads its own previous column, one column at a time."""
        n = self.periods
        if line.opening is None:
            return np.asarray(line.formula.evaluate(env))
        env.column = 0
        first = np.broadcast_to(np.asarray(line.opening.evaluate(env), float), (batch, 1))
        if line.recursive:
            v = np.full((batch, n), np.nan)
            v[:, :1] = first
            env.values[line.id] = v
            for t in range(1, n):
                env.column = t
                v[:, t : t + 1] = line.formula.evaluate(env)
            env.column = None
            return v
        env.column, env.window = None, slice(1, n)
        rest = np.asarray(line.formula.evaluate(env), float)
        env.window = None
        return np.concatenate([first, np.broadcast_to(rest, (batch, n - 1))], axis=1)


def as_stored(x: float) -> float:
    """The number an input cell of the .xlsx holds: xlsxwriter writes 16 significant digits, and a double can
    need 17 (1.2 kW is 1200.0000000000002 W). Python computes from the same number the spreadsheet reads, or
    the two part in the last bits, and a later near-cancellation (a PUE of 1.000000002) magnifies that."""
    return float(f"{float(x):.16g}")


class SheetBuilder:
    """Adds lines to one sheet of a book, with ids prefixed by the model's name."""

    def __init__(self, book: Book, title: str, prefix: str):
        self.book, self.title, self.prefix = book, title, prefix
        self.group = title  # the model an input row belongs to (its section on the Inputs sheet)

    def _id(self, key: str) -> str:
        return f"{self.prefix}.{key}"

    def section(self, title: str) -> None:
        self.book._section(self.title, title)

    def text(self, text: str) -> None:
        self.book._text(self.title, text)

    def input(
        self,
        key: str,
        label: str,
        unit_text: str,
        value: float,
        note: str = "",
        *,
        fmt: str = NUMBER,
        bounds: tuple[float | None, float | None, bool] = (None, None, False),
        integer: bool = False,
    ) -> Line:
        return self.book._add(
            Line(self._id(key), label, unit_text, parse_unit(_pint_text(unit_text)), "input",
                 INPUTS_SHEET, note, fmt=fmt, value=np.asarray(as_stored(value), dtype=float),
                 bounds=bounds, integer=integer, section=self.group)
        )

    def calc(self, key: str, label: str, unit_text: str, formula: Any, note: str = "",
             *, fmt: str = NUMBER, opening: Any = None) -> Line:
        """A calculated line. `formula` may be a function of the line itself, for a line that uses its own
        previous period (`lambda me: prev(me) + flow`). A line that reads any previous period needs an
        `opening`: its value at time 0 (column 0)."""
        line_id = self._id(key)
        u = parse_unit(_pint_text(unit_text))
        line = Line(line_id, label, unit_text, u, "calc", self.title, note, None, fmt, section=self.title)
        if opening is not None:
            line.opening = _finalise(as_node(opening), u, line_id, f"{label} (at the start)", unit_text)
            if line.opening.axis not in (None, MONTHS) or _reads_previous(line.opening):
                raise FormulaError(f"line {line_id}: an opening is the value at the start: no prev(), no years")
        if callable(formula) and not isinstance(formula, Operand):
            line.axis = MONTHS  # refers to its own previous period
            node = as_node(formula(line))
            line.recursive = any(isinstance(n, Prev) and n.line is line for n in node.walk())
        else:
            node = as_node(formula)
        line.formula = _finalise(node, u, line_id, label, unit_text)
        line.axis = line.formula.axis
        line.is_bool = line.formula.is_bool
        if line.series and not self.book.periods:
            raise FormulaError(f"line {line_id} runs over periods, but the book has no timeline")
        if _reads_previous(line.formula) and line.opening is None:
            raise FormulaError(f"line {line_id} reads a previous period (prev), so it needs an opening value")
        if line.opening is not None and line.axis != MONTHS:
            raise FormulaError(f"line {line_id}: only a monthly row has an opening value")
        return self.book._add(line)

    def show(self, line: Line, key: str | None = None, label: str | None = None) -> Line:
        """A line that only shows another (=its name), with its unit and format: for presentation sheets."""
        return self.calc(key or line.id.replace(".", "_"), label or line.label, line.unit_text, line, fmt=line.fmt)

    def check(self, key: str, label: str, condition: Any, note: str = "", *, validity: bool = False) -> Line:
        """A TRUE/FALSE invariant on the Checks sheet. `validity`: when FALSE, the model's numbers themselves
        cannot be trusted (not only the design), so computed cases that break it are shown as n/a."""
        node = as_node(condition)
        errors = unit_errors(node)
        if errors:
            raise UnitError(f"check {self._id(key)} ({label}): {errors[0]}")
        if not node.is_bool:
            raise UnitError(f"check {self._id(key)} ({label}) must be a comparison, TRUE when all is well")
        if node.series:
            raise FormulaError(f"check {self._id(key)} ({label}) must be one value; use all_over() for a row")
        return self.book._add(
            Line(self._id(key), label, "TRUE/FALSE", parse_unit(""), "check", CHECKS_SHEET, note,
                 node, BOOL, is_bool=True, section=self.title, validity=validity)
        )


# Units columns show words a reader expects; pint reads the unit behind them.
_SHOWN_AS = {
    "TRUE/FALSE": "", "TR": "ton_of_refrigeration", "share/year": "1/fyear", "FTE": "", "flag": "",
    "months": "fmonth", "years": "fyear",
    "USD/month": "USD/fmonth",
    "USD/year": "USD/fyear", "GPU-h": "GPU*hour", "USD/GPU-h": "USD/GPU/hour", "kW-month": "kW*fmonth",
    "USD/kW-month": "USD/kW/fmonth", "GPU-h/month": "GPU*hour/fmonth",
    "GPUs": "GPU", "nodes": "", "racks": "", "count": "", "ratio": "", "%": "", "blocks": "",
    "nodes/rack": "", "GPU/MW": "GPU/MW", "switches": "", "links": "", "CDUs": "", "units": "", "rows": "",
    "hosts": "", "PDUs": "", "PDUs/rack": "", "CDUs/rack": "", "tiers": "",
}


def _reads_previous(node: Node) -> bool:
    return any(isinstance(n, Prev) for n in node.walk())


def _pint_text(unit_text: str) -> str:
    return _SHOWN_AS.get(unit_text, unit_text)


def _finalise(node: Node, u: pint.Unit, line_id: str, label: str, unit_text: str) -> Node:
    for inner in node.walk():
        if getattr(inner, "message", None) and inner is not node:
            raise FormulaError(f"line {line_id}: a guarded formula (safe_div, irr) must be the whole formula")
    what = f"declared unit {unit_text or '(pure number)'}"
    node = node.converted(u, what) if isinstance(node, Guard) else convert(node, u, what)
    errors = unit_errors(node)
    if errors:
        raise UnitError(f"line {line_id} ({label}): {errors[0]}")
    return node
