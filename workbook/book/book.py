"""The book: every line of one site's workbook, the sheets they sit on and what else those sheets show.

Lines are defined in dependency order (a formula can only name lines that already exist), which is also the
evaluation order. The book has one timeline: column 0 is time 0 (the start), then one column per month; yearly
lines are roll-ups of monthly ones. A SheetBuilder adds a model's lines to one sheet, with ids under the
model's prefix. The formula core (workbook.formula) knows lines and expressions; the book adds the sheets and
their presentation (sections, sentences, charts, views, tables).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from workbook.book.constants import constant
from workbook.book.presentation import Chart, Grid, Section, Text, View
from workbook.book.sheets import CHECKS as CHECKS_SHEET
from workbook.book.sheets import INPUTS as INPUTS_SHEET
from workbook.formula.evaluation import evaluate, non_finite_cases
from workbook.formula.expr import (
    MONTHS,
    YEARS,
    Context,
    FormulaError,
    LineRef,
    Node,
    Operand,
    Prev,
    Rollup,
    UnitError,
    as_node,
    unit_errors,
)
from workbook.formula.functions import all_over
from workbook.formula.line import (
    BOOL,
    NUMBER,
    Line,
    as_stored,
    finalise,
    pint_text,
    reads,
    reads_previous,
)
from workbook.formula.overrides import checked
from workbook.formula.ranges import ANY, Range
from workbook.formula.units import unit as parse_unit


class FrozenBook(AttributeError):
    """A write to a book whose build has ended (Book.freeze)."""


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
    # each scenario copy is its base line's formula re-pointed at the scenario's lines, as add_scenarios makes it,
    # so the evaluator computes it as a row of its base line; a book derived with a calculation replaced cannot say
    # so of the copies downstream of it, and evaluates every copy as written
    scenario_copies_are_rows: bool = True
    views: list[View] = field(default_factory=list)
    headline: list[Line] = field(default_factory=list)  # the lines the Cover repeats under the site (the answer)
    grids: list[Grid] = field(default_factory=list)  # tables of lines, one cell each (the bill of materials)
    bom: Any = None  # the bill of materials' rows (models.bom.BomOut): the vendor's copy lists them
    calendar: Any = None  # the timeline's dates (models.calendar.Calendar): column headers, fiscal-year keys
    _names: dict[str, str] = field(default_factory=dict, repr=False)  # defined name -> line id (each once)
    _readers: tuple[int, dict[str, tuple[str, ...]]] = field(default=(0, {}), repr=False)  # (lines then, succs)
    _frozen: bool = field(default=False, repr=False)  # the build has ended: nothing in the book changes

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen"):
            raise FrozenBook(f"the book is frozen (its build has ended): {name} cannot be set; derive a changed "
                             "copy with Book.replaced")
        object.__setattr__(self, name, value)

    @property
    def frozen(self) -> bool:
        return bool(self.__dict__.get("_frozen"))

    def freeze(self) -> Book:
        """End the build: every line's value read-only, the lines, sheets and scenarios read-only mappings, what
        the sheets show tuples, the readers computed once. A write to the book after this raises (FrozenBook, or
        numpy's ValueError for a value array), so what evaluates it and what writes it read one book."""
        if self.frozen:
            return self
        for line in self.lines.values():
            if isinstance(line.value, np.ndarray):
                line.value.setflags(write=False)
        self._readers = self._successors()  # computed while it may still be set
        for name, value in (
                ("lines", MappingProxyType(dict(self.lines))),
                ("sheets", MappingProxyType({t: tuple(items) for t, items in self.sheets.items()})),
                ("scenarios", MappingProxyType({n: MappingProxyType(dict(m)) for n, m in self.scenarios.items()})),
                ("_names", MappingProxyType(dict(self._names)))):
            object.__setattr__(self, name, value)
        for name in ("settings", "charts", "tables", "views", "headline", "grids"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "_frozen", True)
        return self

    def timeline(self, months: int) -> None:
        """Set the workbook's one timeline: the start (time 0) and `months` months after it."""
        if self.periods:
            raise FormulaError("a workbook has one timeline; it is already set")
        if months < 1:
            raise FormulaError("a timeline needs at least one month")
        self.periods = months + 1
        self.years = -(-months // 12) + 1

    def set_calendar(self, calendar: Any) -> None:
        """Date the timeline: its monthly columns are headed by month-end dates and its yearly ones by fiscal
        year. Months 1..n touch at most ceil((n + 11) / 12) fiscal years, so there are that many yearly columns
        after the start, whatever start date the workbook is given later."""
        if not self.periods:
            raise FormulaError("a calendar dates the timeline: set the timeline first")
        if self.calendar is not None:
            raise FormulaError("a workbook has one calendar; it is already set")
        if any(line.axis == YEARS for line in self.lines.values()):
            raise FormulaError("set the calendar before the first yearly line: it decides the yearly columns")
        self.calendar = calendar
        self.years = -(-(self.periods - 1 + 11) // 12) + 1

    def columns(self, axis: str | None) -> int:
        return {None: 1, MONTHS: self.periods, YEARS: self.years}[axis]

    def sheet(self, title: str, prefix: str, defined: dict[str, Line] | None = None,
              group: str | None = None) -> SheetBuilder:
        """Adds lines to a sheet with ids `prefix.key`; each is also recorded in `defined` under its key (a
        model instance collects its outputs from there). `group`: the section its input rows belong to on the
        Inputs sheet (default: the sheet's title)."""
        self.sheets.setdefault(title, [])
        return SheetBuilder(self, title, prefix, defined, group)

    def add(self, line: Line) -> Line:
        """Add a complete line (a scenario's copy, a document's own input): sealed, its name defined once, after
        the conversion constants it reads. Refused once the book is frozen."""
        return self._add(line)

    def _add(self, line: Line) -> Line:
        if self.frozen:
            raise FrozenBook(f"the book is frozen (its build has ended): line {line.id} cannot be added")
        self._add_constants(line)
        if line.id in self.lines:
            raise FormulaError("is defined twice", line=line.id, label=line.label)
        other = self._names.get(line.name)
        if other is not None:
            raise FormulaError(f"has the defined name {line.name} of line {other}", line=line.id, label=line.label)
        self._check_rollups(line)
        line.seal()
        self._names[line.name] = line.id
        self.lines[line.id] = line
        self.sheets.setdefault(line.sheet, []).append(line)
        return line

    def replaced(self, line: Line) -> Book:
        """A copy of the book with `line` in place of the line of its id (on its sheet, in the scenarios that hold
        it), sealed; this book is unchanged. Formulas read lines by id, so its readers read the new line. The one
        way to derive a changed book: a line in a book never changes. With a calculation replaced, the scenario
        copies are evaluated as written (what a spreadsheet computes), no longer as rows of their base lines."""
        old = self.lines.get(line.id)
        if old is None:
            raise KeyError(f"{line.id} is not a line of this book")
        if line.axis != old.axis or line.is_bool != old.is_bool:
            raise FormulaError("a replacement must keep the line's periods and type", line=line.id, label=line.label)
        line.seal()
        swap = {line.id: line}
        out = dataclasses.replace(
            self, lines={k: swap.get(k, v) for k, v in self.lines.items()},
            sheets={t: [line if x is old else x for x in items] for t, items in self.sheets.items()},
            scenarios={n: {k: line if v is old else v for k, v in m.items()} for n, m in self.scenarios.items()},
            _names=dict(self._names), _readers=(0, {}), _frozen=False,
            scenario_copies_are_rows=self.scenario_copies_are_rows and (old.kind == "input" or not self.scenarios))
        return out.freeze() if self.frozen else out

    def readers(self, line_id: str) -> tuple[str, ...]:
        """The ids of the lines that read `line_id` (its successors, in book order): Line.reads turned round."""
        if line_id not in self.lines:
            raise KeyError(f"{line_id} is not a line of this book")
        if self._readers[0] != len(self.lines) and not self.frozen:  # lines are only added: rebuilt as it grows
            self._readers = self._successors()
        return self._readers[1].get(line_id, ())

    def _successors(self) -> tuple[int, dict[str, tuple[str, ...]]]:
        succs: dict[str, list[str]] = {}
        for line in self.lines.values():
            for pred in line.reads:
                succs.setdefault(pred, []).append(line.id)
        return len(self.lines), {k: tuple(v) for k, v in succs.items()}

    def _check_rollups(self, line: Line) -> None:
        """With a calendar, every yearly column is headed by its fiscal year: a roll-up must sum by the calendar's
        fiscal-year row, whose keys are those headers (another row's keys would match none of them)."""
        if self.calendar is None or line.axis != YEARS or line.formula is None:
            return
        for node in line.formula.walk():
            if isinstance(node, Rollup) and node.keys is not self.calendar.year_header:
                raise FormulaError(f"rolls {node.line.id} up by {node.by.id}; with a calendar the yearly columns "
                                   f"are fiscal years: roll up by {self.calendar.fiscal_year.id}", line=line.id,
                                   label=line.label)

    def _add_constants(self, line: Line) -> None:
        """The unit conversion factors the line's formula names, each added once, before its first reader (they
        are lines shared by every book; see workbook.book.constants)."""
        for other in reads(line):
            if other not in self.lines:
                found = constant(other)
                if found is not None:
                    self._add(found)

    def _section(self, sheet: str, title: str, unused: str = "") -> None:
        if self.frozen:
            raise FrozenBook("the book is frozen (its build has ended): no section can be added")
        self.sheets.setdefault(sheet, []).append(Section(title, unused))

    def _text(self, sheet: str, text: str) -> None:
        if self.frozen:
            raise FrozenBook("the book is frozen (its build has ended): no text can be added")
        self.sheets.setdefault(sheet, []).append(Text(text))

    # ------------------------------------------------------------------ evaluation (workbook.formula.evaluation)

    def evaluate(self, overrides: dict[str, Any] | None = None, *, strict: bool = True,
                 lines: list[str] | None = None, ranges: bool = True) -> dict[str, np.ndarray]:
        """Every line's magnitude (in its declared unit) as an array (batch, columns); with `lines`, only those
        (and only what they need is computed). See workbook.formula.evaluation.evaluate. Each override is an input
        id and a number or array in the input's unit, or a pint quantity (converted); a value outside the input's
        range is refused (OverrideError) unless `ranges` is False, and an id that is not an input says which one
        it may have meant (UnknownInput, a KeyError). See workbook.formula.overrides."""
        return evaluate(self, checked(self, overrides, ranges=ranges), lines, strict=strict)

    def non_finite_cases(self, values: dict[str, np.ndarray]) -> list[str]:
        """For each case of a non-strict evaluation, the label of the first line with no finite value, or ''."""
        return non_finite_cases(self, values)



class _Words(Context):
    """Renders a condition with each line's label in place of its cell: the rule of a check, in words."""

    def ref(self, line: LineRef) -> str:
        return f"[{line.label}]"

    prev_ref = row_range = ref

    def header(self) -> str:
        return "[the year]"

    def period(self) -> str:
        return "[the period number]"


def in_words(condition: Node) -> str:
    """A check's rule as its note, where the model gave none: `[Contracted utility feed] <= [Utility power
    available at the site]`; the Checks sheet then says what each TRUE compares."""
    try:
        text = condition.render(_Words())
    except (NotImplementedError, ValueError):
        return ""
    for op in ("<=", ">=", "<>"):
        text = text.replace(op, f" {op} ")
    text = re.sub(r"(?<![<>= ])([<>=])(?![<>= ])", r" \1 ", text)
    return text if len(text) <= 300 else ""


class SheetBuilder:
    """Adds lines to one sheet of a book, with ids prefixed by the model's name."""

    def __init__(self, book: Book, title: str, prefix: str, defined: dict[str, Line] | None = None,
                 group: str | None = None):
        self.book, self.title, self.prefix = book, title, prefix
        self.defined: dict[str, Line] = {} if defined is None else defined
        self.group = group or title  # the model an input row belongs to (its section on the Inputs sheet)

    def _id(self, key: str) -> str:
        return f"{self.prefix}.{key}"

    def _add(self, key: str, line: Line) -> Line:
        self.defined[key] = line
        return self.book._add(line)

    def section(self, title: str, unused: str = "") -> None:
        """A heading; `unused` says why the rows under it do not apply to the site (they are collapsed)."""
        self.book._section(self.title, title, unused)

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
        bounds: Range = ANY,
        integer: bool = False,
    ) -> Line:
        return self._add(key,
            Line(self._id(key), label, unit_text, parse_unit(pint_text(unit_text)), "input",
                 INPUTS_SHEET, note, fmt=fmt, value=np.asarray(as_stored(value), dtype=float),
                 bounds=bounds, integer=integer, section=self.group)
        )

    def calc(self, key: str, label: str, unit_text: str, formula: Any, note: str = "",
             *, fmt: str = NUMBER, opening: Any = None, balance_change: bool = False,
             year_keys: Node | None = None, position: bool = False) -> Line:
        """A calculated line. `formula` may be a function of the line itself, for a line that uses its own
        previous period (`lambda me: prev(me) + flow`). A line that reads any previous period needs an
        `opening`: its value at time 0 (column 0). `balance_change`: the row is a change in a balance, which
        nets to 0 over the life (its timeline total would show only rounding noise, so it gets none).
        `year_keys`: for a roll-up's key row, each yearly column's key (its header; default: its number).
        `position`: the row holds a month's number (a position on the timeline), not months that add up."""
        line_id = self._id(key)
        u = parse_unit(pint_text(unit_text))
        line = Line(line_id, label, unit_text, u, "calc", self.title, note, None, fmt, section=self.title,
                    balance_change=balance_change, year_keys=year_keys, position=position)
        if opening is not None:
            line.opening = finalise(as_node(opening), u, line_id, f"{label} (at the start)", unit_text)
            if line.opening.axis not in (None, MONTHS) or reads_previous(line.opening):
                raise FormulaError("an opening is the value at the start: no prev(), no years", line=line_id,
                                   label=label)
        if callable(formula) and not isinstance(formula, Operand):
            line.axis = MONTHS  # refers to its own previous period
            node = as_node(formula(line))
            line.recursive = any(isinstance(n, Prev) and n.line is line for n in node.walk())
        else:
            node = as_node(formula)
        line.formula = finalise(node, u, line_id, label, unit_text)
        line.axis = line.formula.axis
        line.is_bool = line.formula.is_bool
        if line.series and not self.book.periods:
            raise FormulaError("runs over periods, but the book has no timeline", line=line_id, label=label)
        if reads_previous(line.formula) and line.opening is None:
            raise FormulaError("reads a previous period (prev), so it needs an opening value", line=line_id,
                               label=label)
        if line.opening is not None and line.axis != MONTHS:
            raise FormulaError("only a monthly row has an opening value", line=line_id, label=label)
        return self._add(key, line)

    def show(self, line: Line, key: str | None = None, label: str | None = None) -> Line:
        """A line that only shows another (=its name), with its unit and format: for presentation sheets."""
        return self.calc(key or line.id.replace(".", "_"), label or line.label, line.unit_text, line, fmt=line.fmt)

    def check(self, key: str, label: str, condition: Any, note: str = "", *, validity: bool = False) -> Line:
        """A TRUE/FALSE invariant on the Checks sheet. `validity`: when FALSE, the model's numbers themselves
        cannot be trusted (not only the design), so computed cases that break it are shown as n/a."""
        node = as_node(condition)
        errors = unit_errors(node)
        if errors:
            raise UnitError.of(node, line=self._id(key), label=label, kind="check")
        if not node.is_bool:
            raise UnitError("must be a comparison, TRUE when all is well", line=self._id(key), label=label,
                            kind="check")
        note = note or in_words(node)
        if node.series:  # true in every period: the row on the model's sheet, its AND on the Checks sheet
            row = self.calc(f"{key}_each_period", f"{label} (each period)", "TRUE/FALSE", node, note, fmt=BOOL)
            node = all_over(row)
        return self._add(key,
            Line(self._id(key), label, "TRUE/FALSE", parse_unit(""), "check", CHECKS_SHEET, note,
                 node, BOOL, is_bool=True, section=self.title, validity=validity)
        )
