"""Functions a formula may call: each has one numpy meaning and one Excel rendering that agree.

Only functions that Excel, LibreOffice and Google Sheets compute the same are offered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbook.formula.expr import (
    DIMENSIONLESS,
    Const,
    FormulaError,
    Func,
    Guard,
    Node,
    Prev,
    RowAgg,
    UnitError,
    as_node,
    convert,
    excel_rounddown,
    excel_roundup,
)
from workbook.formula.line import Line


def _count(x: Any, name: str) -> Node:
    return convert(as_node(x), DIMENSIONLESS, f"{name}() rounds a pure number (a count)")


def ceil(x: Any) -> Node:
    """Round up to a whole number (away from zero, as ROUNDUP(x,0)); for counts of things."""
    return Func("ROUNDUP", [_count(x, "ceil")], excel_roundup, DIMENSIONLESS, extra=",0")


def floor(x: Any) -> Node:
    """Round down to a whole number (toward zero, as ROUNDDOWN(x,0)); for how many fit."""
    return Func("ROUNDDOWN", [_count(x, "floor")], excel_rounddown, DIMENSIONLESS, extra=",0")


def _alike(args: tuple[Any, ...], name: str) -> list[Node]:
    nodes = [as_node(a) for a in args]
    return [nodes[0]] + [convert(n, nodes[0].unit, f"{name}() needs like units") for n in nodes[1:]]


def max_(*args: Any) -> Node:
    nodes = _alike(args, "max")
    return Func("MAX", nodes, lambda *v: np.maximum.reduce(np.broadcast_arrays(*v)), nodes[0].unit)


def min_(*args: Any) -> Node:
    nodes = _alike(args, "min")
    return Func("MIN", nodes, lambda *v: np.minimum.reduce(np.broadcast_arrays(*v)), nodes[0].unit)


def where(cond: Any, then: Any, otherwise: Any) -> Node:
    """IF(cond, then, otherwise); both branches in one unit."""
    c = as_node(cond)
    if not c.is_bool:
        raise UnitError("where() needs a comparison as its condition")
    a, b = _alike((then, otherwise), "where")
    return Func("IF", [c, a, b], lambda c, a, b: np.where(c, a, b), a.unit, is_bool=a.is_bool)


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


def not_(cond: Any) -> Node:
    return Func("NOT", _bools((cond,), "not_"), np.logical_not, DIMENSIONLESS, is_bool=True)


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
    """SUM over the timeline."""
    return RowAgg("SUM", line, lambda row: row.sum(axis=1, keepdims=True), line.unit)


def _npv(rate: np.ndarray, row: np.ndarray) -> np.ndarray:
    t = np.arange(1, row.shape[1] + 1)
    return (row / np.power(1.0 + np.asarray(rate, float), t)).sum(axis=1, keepdims=True)


def npv(rate: Any, line: Line) -> Node:
    """NPV(rate, row): as Excel, the first period is discounted by one period (flows at period ends)."""
    r = convert(as_node(rate), DIMENSIONLESS, "npv() rate per period")
    return RowAgg("NPV", line, _npv, line.unit, before=[r])


def _pmt(rate: np.ndarray, nper: np.ndarray, pv: np.ndarray) -> np.ndarray:
    rate, nper, pv = (np.asarray(x, float) for x in (rate, nper, pv))
    with np.errstate(divide="ignore", invalid="ignore"):
        growth = np.power(1.0 + rate, nper)
        annuity = -pv * growth * rate / (growth - 1.0)
    return np.where(rate == 0, -pv / nper, annuity)


def pmt(rate: Any, nper: Any, pv: Any) -> Node:
    """PMT(rate, nper, pv): the level payment per period; negative for a positive pv, as Excel."""
    r = convert(as_node(rate), DIMENSIONLESS, "pmt() rate per period")
    n = convert(as_node(nper), DIMENSIONLESS, "pmt() number of periods")
    p = as_node(pv)
    return Func("PMT", [r, n, p], _pmt, p.unit)


IRR_EPS, IRR_MAX_ITER = 1e-7, 20  # LibreOffice ScIRR's Newton iteration


def _irr(row: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """IRR as LibreOffice computes it: Newton from the guess, at most 20 steps, converged when a step < 1e-7."""
    row = np.asarray(row, float)
    t = np.arange(row.shape[1], dtype=float)
    x = np.broadcast_to(np.asarray(guess, float), (row.shape[0], 1)).copy()
    eps = np.full_like(x, 1.0)
    with np.errstate(all="ignore"):
        for _ in range(IRR_MAX_ITER):
            active = eps > IRR_EPS
            if not active.any():
                break
            nom = (row / np.power(1.0 + x, t)).sum(axis=1, keepdims=True)
            denom = (-t * row / np.power(1.0 + x, t + 1.0)).sum(axis=1, keepdims=True)
            x_new = x - nom / denom
            eps = np.where(active, np.abs(x_new - x), eps)
            x = np.where(active, x_new, x)
    return np.where(eps < IRR_EPS, x, np.nan)


class Irr(RowAgg):
    """IRR of a row, annualised from months if asked, or a message where it has none.

    Newton stops once a step is below 1e-7, so where it stops depends on the engine's rounding; a second IRR
    started from the first's answer lands on the root to machine precision in every engine."""

    def __init__(self, line: Line, guess: Node, message: str, per_year: int):
        if per_year not in (1, 12):
            raise FormulaError("irr(): periods per year is 1 or 12")
        self.message = message
        first = RowAgg("IRR", line, _irr, DIMENSIONLESS, after=[guess])
        fn = _irr if per_year == 1 else (lambda row, g: np.power(1.0 + _irr(row, g), 12) - 1.0)
        text = message.replace('"', '""')
        wrap = ("IFERROR(", f',"{text}")') if per_year == 1 else ("IFERROR((1+", f')^12-1,"{text}")')
        super().__init__("IRR", line, fn, DIMENSIONLESS, wrap=wrap, after=[first])


def irr(line: Line, guess: Any, message: str, per_year: int = 1) -> Node:
    """Internal rate of return per period of a series of flows (annualised when per_year is 12).

    Newton's method needs a starting point near the answer: pass the cost of capital per period."""
    return Irr(line, convert(as_node(guess), DIMENSIONLESS, "irr() guess"), message, per_year)
