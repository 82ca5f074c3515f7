"""Functions a formula may call: each has one numpy meaning and one Excel rendering that agree.

Only functions that Excel, LibreOffice and Google Sheets compute the same are offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from workbook.formula import dates, kernels, spreadsheet
from workbook.formula.expr import (
    DIMENSIONLESS,
    Const,
    FormulaError,
    Func,
    Guard,
    Lagged,
    Node,
    Npv,
    Period,
    Prev,
    Rollup,
    RowAgg,
    Shown,
    UnitError,
    as_node,
    convert,
    tolerance,
)
from workbook.formula.line import Line
from workbook.formula.units import unit

DAY = unit("day")  # a date: days since 1899-12-30, as a spreadsheet stores it


def _count(x: Any, name: str) -> Node:
    return convert(as_node(x), DIMENSIONLESS, f"{name}() rounds a pure number (a count)")


def _sign(x: Node) -> Node:
    """SIGN(x): -1, 0 or 1."""
    return _twin(Func("SIGN", [x], np.sign, DIMENSIONLESS), lambda v: float((v > 0) - (v < 0)))


def ceil(x: Any) -> Node:
    """Round up to a whole number (away from zero, as ROUNDUP(x,0)); for counts of things. Float noise first comes
    off within the method's tolerance (the value moved toward zero by at most tolerance x MAX(1, |x|), never past
    it): 15.000000000000002 links is 15 in every engine, where LibreOffice and Excel round to 15 digits before
    rounding up and Gnumeric does not (16)."""
    n = _count(x, "ceil")
    noise = min_(abs_(n), tolerance() * max_(1, abs_(n)))
    return Func("ROUNDUP", [n - _sign(n) * noise], spreadsheet.round_up, DIMENSIONLESS, extra=",0")


def floor(x: Any) -> Node:
    """Round down to a whole number (toward zero, as ROUNDDOWN(x,0)); for how many fit. Float noise first comes
    off within the method's tolerance (the value moved away from zero by tolerance x MAX(1, |x|)): 14.999999999999998
    is 15 in every engine (see ceil)."""
    n = _count(x, "floor")
    return Func("ROUNDDOWN", [n + _sign(n) * tolerance() * max_(1, abs_(n))], spreadsheet.round_down, DIMENSIONLESS,
                extra=",0")


def binomial_quantile(trials: Any, probability: Any, level: Any) -> Node:
    """The smallest k with P(X <= k) >= level for X ~ Binomial(trials, probability), as CRITBINOM(n, p, level):
    the stock that covers a count of independent units at a service level (the units in a repair pipeline)."""
    args = [convert(as_node(a), DIMENSIONLESS, f"binomial_quantile() takes a pure number ({what})")
            for a, what in ((trials, "trials"), (probability, "probability"), (level, "level"))]
    return Func("CRITBINOM", args, spreadsheet.crit_binom, DIMENSIONLESS)


def eomonth(date: Any, months: Any) -> Node:
    """EOMONTH(date, months): the last day of the month `months` months after the date's month (a date is days
    since 1899-12-30; months are cut to a whole number toward zero). For month-end dates on the timeline."""
    d = convert(as_node(date), DAY, "eomonth() takes a date")
    m = convert(as_node(months), DIMENSIONLESS, "eomonth() takes a number of months (a pure number)")
    return Func("EOMONTH", [d, m], dates.eomonth, DAY)


def year_of(date: Any) -> Node:
    """YEAR(date): the calendar year a date falls in, a pure number (2027)."""
    return Func("YEAR", [convert(as_node(date), DAY, "year_of() takes a date")], dates.year, DIMENSIONLESS)


def period(axis: str) -> Node:
    """The column's number on a timeline axis (MONTHS or YEARS): 0 at the start, then 1, 2... It is the number
    over the column's header, so a header can be a formula of it (a fiscal year: the first one + number - 1)."""
    return Period(axis)


def _twin(node: Func, scalar: Any) -> Func:
    """The function on Python floats (or booleans), with the same results bit for bit: a line that reads its own
    previous period is evaluated a column at a time on them (workbook.formula.evaluation)."""
    node.scalar = scalar
    return node


def _alike(args: tuple[Any, ...], name: str) -> list[Node]:
    """The arguments in one unit: that of the first that is not a bare 0 (zero is zero in any unit, so
    MAX(0, a - b) stays in a - b's unit rather than converting a - b to a number and back)."""
    nodes = [as_node(a) for a in args]
    unit_of = next((n.unit for n in nodes if not (isinstance(n, Const) and n.value == 0)), nodes[0].unit)
    return [convert(n, unit_of, f"{name}() needs like units") for n in nodes]


def max_(*args: Any) -> Node:
    nodes = _alike(args, "max")
    return _twin(Func("MAX", nodes, lambda *v: np.maximum.reduce(np.broadcast_arrays(*v)), nodes[0].unit),
                 kernels.maximum_s)


def min_(*args: Any) -> Node:
    nodes = _alike(args, "min")
    return _twin(Func("MIN", nodes, lambda *v: np.minimum.reduce(np.broadcast_arrays(*v)), nodes[0].unit),
                 kernels.minimum_s)


def where(cond: Any, then: Any, otherwise: Any) -> Node:
    """IF(cond, then, otherwise); both branches in one unit."""
    c = as_node(cond)
    if not c.is_bool:
        raise UnitError("where() needs a comparison as its condition")
    a, b = _alike((then, otherwise), "where")
    return _twin(Func("IF", [c, a, b], lambda c, a, b: np.where(c, a, b), a.unit, is_bool=a.is_bool),
                 lambda c, a, b: a if c else b)


def choose(index: Any, *values: Any) -> Node:
    """CHOOSE(index, v1, v2, ...): the index-th value (whole indices from 1; an error, NaN here, outside them). For
    a schedule by year (the MACRS rates by tax year), where nested IFs would do the same less readably."""
    idx = convert(as_node(index), DIMENSIONLESS, "choose() picks by a whole number")
    nodes = _alike(values, "choose")

    def pick(i: np.ndarray, *v: np.ndarray) -> np.ndarray:
        k, *arrays = np.broadcast_arrays(np.floor(spreadsheet.approx_value(np.asarray(i, float))), *v)
        ok = (k >= 1) & (k <= len(arrays))
        at = np.clip(np.nan_to_num(k, nan=1.0), 1, len(arrays)).astype(int) - 1
        got = np.take_along_axis(np.stack(arrays), at[None, ...], axis=0)[0]
        return np.where(ok, got, np.nan)

    return Func("CHOOSE", [idx, *nodes], pick, nodes[0].unit)


def _bools(args: tuple[Any, ...], name: str) -> list[Node]:
    nodes = [as_node(a) for a in args]
    for n in nodes:
        if not n.is_bool:
            raise UnitError(f"{name}() takes conditions (comparisons or checks)")
    return nodes


def all_(*conds: Any) -> Node:
    nodes = _bools(conds, "all_")
    return Func("AND", nodes, lambda *v: np.logical_and.reduce(np.broadcast_arrays(*v)),
                DIMENSIONLESS, is_bool=True)


def any_(*conds: Any) -> Node:
    nodes = _bools(conds, "any_")
    return Func("OR", nodes, lambda *v: np.logical_or.reduce(np.broadcast_arrays(*v)),
                DIMENSIONLESS, is_bool=True)


def false_on_error(cond: Any) -> Node:
    """A condition, FALSE where the spreadsheet meets an error computing it: IFERROR(cond,FALSE). An input typed past
    its validation (0 GPUs per node, pasted) turns thousands of cells into #DIV/0!; the master check built on this
    says FALSE instead of repeating the error. In Python a condition is never an error (a NaN compares FALSE)."""
    node = _bools((cond,), "false_on_error")[0]
    return Func("IFERROR", [node], lambda v: v, DIMENSIONLESS, is_bool=True, extra=",FALSE")


def not_(cond: Any) -> Node:
    return Func("NOT", _bools((cond,), "not_"), np.logical_not, DIMENSIONLESS, is_bool=True)


def added(items: Iterable[Any]) -> Node:
    """The items added left to right, as a spreadsheet adds a + b + c (each + its approximate add); 0 for none.
    One definition, so every total adds in the same order (and so the same bits) wherever it is written."""
    terms = list(items)
    out: Node = as_node(terms[0]) if terms else Const(0, DIMENSIONLESS)
    for term in terms[1:]:
        out = out + term
    return out


def abs_(x: Any) -> Node:
    """ABS(x): the size of a value without its sign, in its unit."""
    node = as_node(x)
    return _twin(Func("ABS", [node], np.abs, node.unit), abs)


def _within(a: Any, b: Any, op: str) -> Node:
    """a op b within the tolerance: |a - b| <= t x MAX(1, |a|, |b|) for "close", a - b <= that for "at_most"."""
    x, y = as_node(a), as_node(b)
    y = convert(y, x.unit, "a computed comparison needs like units")
    margin = tolerance() * max_(Const(1, x.unit), abs_(x), abs_(y))
    gap = abs_(x - y) if op == "close" else x - y
    return gap <= margin


def close(a: Any, b: Any) -> Node:
    """TRUE when two computed values agree within the method's tolerance (templates/method_constants.yaml):
    ABS(a-b) <= tolerance x MAX(1, ABS(a), ABS(b)), relative, or absolute below 1 in a's unit. Never = between two
    computed values: LibreOffice compares to about 15 digits, Gnumeric bit for bit, so `=` is engine-dependent."""
    return _within(a, b, "close")


def at_most(a: Any, b: Any) -> Node:
    """TRUE when a <= b, within the method's tolerance (a limit between computed values; see close)."""
    return _within(a, b, "at_most")


def at_least(a: Any, b: Any) -> Node:
    """TRUE when a >= b, within the method's tolerance (see close)."""
    return _within(b, a, "at_most")


def only_if(condition: Line, value: Any, message: str) -> Node:
    """`value` where the TRUE/FALSE line `condition` holds, else `message` in its cell (IF(condition, value,
    "message")); only as a line's whole formula. An answer that is a figure only when proven or valid."""
    if not isinstance(condition, Line) or not condition.is_bool:
        raise FormulaError("only_if() takes a TRUE/FALSE line as its condition (its cached words read it)")
    shown = Shown(condition, value, message)
    if shown.value.is_bool:
        raise FormulaError("only_if() shows a number or its message, not a TRUE/FALSE (a cell is one or the other)")
    return shown


def safe_div(a: Any, b: Any, message: str) -> Node:
    """a / b, showing `message` instead of #DIV/0! where b is zero (only as a line's whole formula)."""
    return Guard(a, b, message)


# ---------------------------------------------------------------- the timeline


def prev(line: Line) -> Node:
    """The line's value in the previous period (its opening value in the first period)."""
    return Prev(line)


def flag(cond: Any) -> Node:
    """A condition as 1 or 0 (FAST flags multiply; they are never nested IFs)."""
    c = as_node(cond)
    if not c.is_bool:
        raise UnitError("flag() takes a comparison")
    return c * Const(1)


def total(line: Line) -> Node:
    """SUM over the row, from the start (column 0) to the end."""
    return RowAgg("SUM", line, kernels.row_sum, line.unit)


def largest(line: Line) -> Node:
    """MAX over the row (e.g. the peak funding need)."""
    return RowAgg("MAX", line, lambda row: row.max(axis=1, keepdims=True), line.unit)


def smallest(line: Line) -> Node:
    """MIN over the row (e.g. the deepest point of a capacity trough)."""
    return RowAgg("MIN", line, lambda row: row.min(axis=1, keepdims=True), line.unit)


def all_over(line: Line) -> Node:
    """AND over a row of conditions: TRUE when the condition holds in every period (a check on a row)."""
    if not line.is_bool:
        raise UnitError(f"all_over() takes a row of conditions; {line.id} is not one")
    return RowAgg("AND", line, lambda row: row.astype(bool).all(axis=1, keepdims=True), DIMENSIONLESS,
                  is_bool=True)


def rollup(line: Line, years: Line) -> Node:
    """A monthly row summed by year (the start, then each year): SUMIF(years row, the column's year, row)."""
    return Rollup(line, years, kernels.row_sumifs)


def lagged(line: Line, months: Line, lag: Any) -> Node:
    """The monthly row `lag` months back (0 before the start): SUMIF(month row, this month - lag, row). A payment
    due in one month and made `lag` months later (tax); the lag is a live single value."""
    return Lagged(line, months, convert(as_node(lag), months.unit, "lagged() by a number of months"),
                  kernels.row_lagged)


def pmt(rate: Any, nper: Any, pv: Any) -> Node:
    """PMT(rate, nper, pv): the level payment per period; negative for a positive pv, as Excel."""
    r = convert(as_node(rate), DIMENSIONLESS, "pmt() rate per period")
    n = convert(as_node(nper), DIMENSIONLESS, "pmt() number of periods")
    p = as_node(pv)
    return Func("PMT", [r, n, p], spreadsheet.pmt, p.unit)


class Irr(RowAgg):
    """IRR of a row, annualised from months if asked, or a message where it has none.

    Newton stops once a step is below 1e-7, so where it stops depends on the engine's rounding; a second IRR
    started from the first's answer lands on the root to machine precision in every engine. So the cell is
    IRR(row, IRR(row, guess)), and Python computes both IRRs as the cell does (the second usually in one step).
    Each takes Newton's steps only for the cases not yet converged (kernels.irr)."""

    def __init__(self, line: Line, guess: Node, message: str, per_year: int):
        if per_year not in (1, 12):
            raise FormulaError("irr(): periods per year is 1 or 12")
        self.message = message
        first = RowAgg("IRR", line, kernels.irr, DIMENSIONLESS, after=[guess])
        if per_year == 1:
            fn, wrap = kernels.irr, ("IFERROR(", f',"{_quoted(message)}")')
        else:
            fn = _annual_irr
            wrap = ("IFERROR((1+", f')^12-1,"{_quoted(message)}")')
        super().__init__("IRR", line, fn, DIMENSIONLESS, wrap=wrap, after=[first])


def _quoted(text: str) -> str:
    return text.replace('"', '""')


def _annual_irr(row: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """(1 + monthly IRR)^12 - 1, with the spreadsheet's addition, power and subtraction."""
    growth = spreadsheet.approx_add(1.0, kernels.irr(row, guess))
    return spreadsheet.approx_sub(spreadsheet.power(growth, 12.0), 1.0)


def npv(rate: Any, line: Line) -> Node:
    """NPV(rate, row): the row discounted at `rate` per period, its first value (time 0) by one period, as Excel's
    NPV (multiply by 1 + rate for the value at time 0). `rate` may be a row: one rate in each column."""
    r = convert(as_node(rate), DIMENSIONLESS, "npv() rate per period")
    return Npv(r, line, kernels.npv)


class IrrFrom(RowAgg):
    """IRR(row, IRR(row, guess)), or the guess itself where IRR does not converge from it: a number in every case,
    which a check then proves a root (or not)."""

    def __init__(self, line: Line, guess: Node):
        super().__init__("IRR", line, _irr_or_guess, DIMENSIONLESS, after=[guess])

    def render(self, ctx: Any) -> str:
        row, guess = ctx.row_range(self.line), self.after[0].render(ctx)
        return f"IFERROR(IRR({row},IRR({row},{guess})),{guess})"


def _irr_or_guess(row: np.ndarray, guess: np.ndarray) -> np.ndarray:
    root = kernels.irr(row, kernels.irr(row, guess))
    g = np.broadcast_to(np.asarray(guess, float).reshape(-1, 1), root.shape)
    return np.where(np.isnan(root), g, root)


def irr_from(line: Line, guess: Any) -> Node:
    """The IRR per period Newton's method finds from `guess` (polished by a second IRR from the first's answer), or
    the guess where it finds none: seed it inside a bracket where the NPV changes sign, and prove the result."""
    return IrrFrom(line, convert(as_node(guess), DIMENSIONLESS, "irr_from() guess"))


def irr(line: Line, guess: Any, message: str, per_year: int = 1) -> Node:
    """Internal rate of return per period of a row of flows, the first at time 0 (annualised when per_year
    is 12). Newton's method needs a starting point near the answer: pass the cost of capital per period."""
    return Irr(line, convert(as_node(guess), DIMENSIONLESS, "irr() guess"), message, per_year)
