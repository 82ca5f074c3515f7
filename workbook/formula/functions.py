"""Functions a formula may call: each has one numpy meaning and one Excel rendering that agree.

Only functions that Excel, LibreOffice and Google Sheets compute the same are offered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbook.formula.expr import (
    DIMENSIONLESS,
    Func,
    Guard,
    Node,
    UnitError,
    as_node,
    convert,
    excel_rounddown,
    excel_roundup,
)


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
