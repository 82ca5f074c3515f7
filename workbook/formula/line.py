"""Lines and the book that holds them: the one definition of every row of the workbook.

A line is a label, a unit, a formula (or an input value) and a note. Its formula is converted to the declared
unit when the line is defined, so a dimension error fails the build naming the line. Lines are defined in
dependency order (a formula can only name lines that already exist), which is also the evaluation order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pint

from workbook.formula.expr import (
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
    series: bool = False  # runs across the timeline's periods
    opening: Node | None = None  # the value before the first period, for prev()
    recursive: bool = False  # uses its own previous period: evaluated one period at a time

    def node(self) -> Node:
        return Ref(self)

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
    sheets: dict[str, list[Line | Section]] = field(default_factory=dict)
    settings: list[Any] = field(default_factory=list)  # structural choices from the site file
    charts: list[Chart] = field(default_factory=list)
    periods: int = 0  # the one timeline: how many period columns
    period_labels: list[str] = field(default_factory=list)
    tables: list[Any] = field(default_factory=list)  # build-time value tables (e.g. sensitivity)
    scenarios: dict[str, dict[str, Line]] = field(default_factory=dict)  # name -> base id -> scenario line
    views: list[View] = field(default_factory=list)

    def timeline(self, labels: list[str]) -> None:
        """Set the workbook's one timeline (its period column labels)."""
        if self.periods and len(labels) != self.periods:
            raise FormulaError("a workbook has one timeline; it is already set")
        if len(labels) < 2:
            raise FormulaError("a timeline needs at least two periods")
        self.periods, self.period_labels = len(labels), list(labels)

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

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, overrides: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
        """Every line's magnitude (in its declared unit) as an array (batch, periods or 1).

        `overrides` replaces input values, e.g. with arrays of many sampled sites at once.
        """
        env = Env()
        overrides = overrides or {}
        batch = 1
        for key, v in overrides.items():
            if key not in self.lines or self.lines[key].kind != "input":
                raise KeyError(f"{key} is not an input of this book")
            batch = max(batch, np.size(v))
        openings = {}
        for line in self.lines.values():
            if line.kind == "input":
                v = overrides.get(line.id, line.value)
                env.values[line.id] = np.asarray(v, dtype=float).reshape(-1, 1)
                continue
            width = self.periods if line.series else 1
            if line.opening is not None:
                env.openings[line.id] = np.broadcast_to(
                    np.asarray(line.opening.evaluate(env), float), (batch, 1))
                openings[f"{line.id}#opening"] = env.openings[line.id]
            if line.recursive:
                v = np.full((batch, width), np.nan)
                env.values[line.id] = v
                for t in range(width):
                    env.column = t
                    v[:, t : t + 1] = line.formula.evaluate(env)
                env.column = None
            else:
                v = np.asarray(line.formula.evaluate(env))
            v = np.broadcast_to(v, np.broadcast_shapes(v.shape, (batch, width)))
            if not line.is_bool:
                v = v.astype(float)
                bad = np.isinf(v) if line.guard_message is not None else ~np.isfinite(v)
                if bad.any():
                    raise FormulaError(
                        f"line {line.id} ({line.label}) has no finite value for these inputs "
                        "(a division by zero?); guard it with safe_div or fix the inputs"
                    )
            env.values[line.id] = v
        return {**env.values, **openings}


class SheetBuilder:
    """Adds lines to one sheet of a book, with ids prefixed by the model's name."""

    def __init__(self, book: Book, title: str, prefix: str):
        self.book, self.title, self.prefix = book, title, prefix
        self.group = title  # the model an input row belongs to (its section on the Inputs sheet)

    def _id(self, key: str) -> str:
        return f"{self.prefix}.{key}"

    def section(self, title: str) -> None:
        self.book._section(self.title, title)

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
                 INPUTS_SHEET, note, fmt=fmt, value=np.asarray(value, dtype=float),
                 bounds=bounds, integer=integer, section=self.group)
        )

    def calc(self, key: str, label: str, unit_text: str, formula: Any, note: str = "",
             *, fmt: str = NUMBER, opening: Any = None) -> Line:
        """A calculated line. `formula` may be a function of the line itself, for a line that uses its own
        previous period (`lambda me: prev(me) + flow`); such a line needs an `opening` value."""
        line_id = self._id(key)
        u = parse_unit(_pint_text(unit_text))
        line = Line(line_id, label, unit_text, u, "calc", self.title, note, None, fmt, section=self.title)
        if opening is not None:
            line.opening = _finalise(as_node(opening), u, line_id, f"{label} (opening)", unit_text)
            if line.opening.series:
                raise FormulaError(f"line {line_id}: an opening value is a single value, not a series")
        if callable(formula) and not isinstance(formula, Operand):
            line.series = True  # refers to its own previous period
            node = as_node(formula(line))
            line.recursive = any(isinstance(n, Prev) and n.line is line for n in node.walk())
        else:
            node = as_node(formula)
        line.formula = _finalise(node, u, line_id, label, unit_text)
        line.series = line.formula.series
        line.is_bool = line.formula.is_bool
        if line.series and not self.book.periods:
            raise FormulaError(f"line {line_id} runs over periods, but the book has no timeline")
        return self.book._add(line)

    def show(self, line: Line, key: str | None = None, label: str | None = None) -> Line:
        """A line that only shows another (=its name), with its unit and format: for presentation sheets."""
        return self.calc(key or line.id.replace(".", "_"), label or line.label, line.unit_text, line, fmt=line.fmt)

    def check(self, key: str, label: str, condition: Any, note: str = "") -> Line:
        node = as_node(condition)
        errors = unit_errors(node)
        if errors:
            raise UnitError(f"check {self._id(key)} ({label}): {errors[0]}")
        if not node.is_bool:
            raise UnitError(f"check {self._id(key)} ({label}) must be a comparison, TRUE when all is well")
        if node.series:
            raise FormulaError(f"check {self._id(key)} ({label}) must be one value; use all_over() for a series")
        return self.book._add(
            Line(self._id(key), label, "TRUE/FALSE", parse_unit(""), "check", CHECKS_SHEET, note,
                 node, BOOL, is_bool=True, section=self.title)
        )


# Units columns show words a reader expects; pint reads the unit behind them.
_SHOWN_AS = {
    "TRUE/FALSE": "", "TR": "ton_of_refrigeration", "share/year": "1/fyear", "FTE": "", "flag": "",
    "months": "fmonth", "years": "fyear",
    "USD/month": "USD/fmonth",
    "USD/year": "USD/fyear", "GPU-h": "GPU*hour", "USD/GPU-h": "USD/GPU/hour", "kW-month": "kW*fmonth",
    "USD/kW-month": "USD/kW/fmonth", "GPU-h/month": "GPU*hour/fmonth",
    "GPUs": "GPU", "nodes": "", "racks": "", "count": "", "ratio": "", "%": "", "blocks": "",
    "nodes/rack": "", "GPU/MW": "GPU/MW", "switches": "", "links": "", "CDUs": "", "units": "",
}


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
