"""The spreadsheet arithmetic of workbook.formula.spreadsheet, for rows, faster and to the same bits.

spreadsheet.py transcribes LibreOffice vectorised over a batch of sites: each step of a compensated (Kahan) sum
along a row is a dozen numpy calls on a column of the batch. For a batch of one site (a workbook) or a few, the
numpy call overhead is almost all of the time, so here the same steps run on Python floats, row by row: IEEE
addition, subtraction, multiplication and division are correctly rounded in both, so the results are the
same bits (tests/test_evaluation_speed.py proves it on random and special values). Large batches keep the numpy
steps. Anything that is not plain arithmetic (pow) is still computed by numpy, called exactly as spreadsheet.py
calls it: numpy's SIMD pow can differ in the last bit depending on the shape of the call.

- row_sum, row_sumif: SUM and SUMIF of a row (spreadsheet.row_sum, row_sumif); row_sumifs: SUMIF for many keys
  (a roll-up's years) at once; row_lagged: SUMIF for each column's own key (a lag);
- irr: IRR of a row (spreadsheet.irr), with Newton's steps taken only for the rows not yet converged;
- scalar approx_equal / approx_add / approx_sub / compare: the rules of spreadsheet.py for two Python floats;
- approx_add / approx_sub / compare of arrays: spreadsheet.py's, on those Python floats where each operand holds
  one value (a cell of a workbook: the numpy calls cost far more than the arithmetic).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from workbook.formula import spreadsheet
from workbook.formula.spreadsheet import E44, E48, IRR_EPS, IRR_MAX_ITER, MAX_INT, Kahan, approx_equal

SMALL = 32  # up to this many rows, a row's running sum is taken in Python floats rather than numpy columns


def _f(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=float)


# ---------------------------------------------------------------- two Python floats (spreadsheet.py's rules)


def _integer(x: float) -> bool:
    """representable_integer for x >= 0 (or NaN)."""
    return x <= MAX_INT and math.floor(x) == x


def approx_equal_s(a: float, b: float) -> bool:
    if a == b:
        return True
    d = abs(a - b)
    aa, ba = abs(a), abs(b)
    if not (a != 0 and b != 0 and math.isfinite(d) and d <= aa * E44 and d <= ba * E44):
        return False
    if _integer(d) and _integer(aa) and _integer(ba):
        return False
    return d < aa * E48 and d < ba * E48


def approx_add_s(a: float, b: float) -> float:
    if ((a < 0 and b > 0) or (b < 0 and a > 0)) and approx_equal_s(a, -b):
        return 0.0
    return a + b


def approx_sub_s(a: float, b: float) -> float:
    if ((a < 0 and b < 0) or (a > 0 and b > 0)) and approx_equal_s(a, b):
        return 0.0
    return a - b


def compare_s(op: str, a: float, b: float) -> bool:
    eq = approx_equal_s(a, b)
    less = not eq and a - b < 0
    if op == "=":
        return eq
    if op == "<>":
        return not eq
    if op == "<":
        return less
    if op == "<=":
        return eq or less
    if op == ">":
        return not eq and not less
    return not less  # ">="


def divide_s(a: float, b: float) -> float:
    """a / b as numpy divides (inf or NaN for a zero divisor, no exception)."""
    try:
        return a / b
    except ZeroDivisionError:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.divide(np.float64(a), np.float64(b)))


def maximum_s(*v: float) -> float:
    """np.maximum.reduce: NaN wins; of two equal values (0 and -0) the later."""
    acc = v[0]
    for b in v[1:]:
        acc = acc if (acc > b or acc != acc) else b
    return acc


def minimum_s(*v: float) -> float:
    acc = v[0]
    for b in v[1:]:
        acc = acc if (acc < b or acc != acc) else b
    return acc


# ---------------------------------------------------------------- two operands of any shape


def _one_value_each(a: Any, b: Any) -> tuple[float, float, tuple[int, ...]] | None:
    """Two operands of one value each (a single line, a constant) as Python floats, and the shape numpy gives their
    result (all ones: the longer shape); None otherwise."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size != 1 or b.size != 1:
        return None
    return float(a.item()), float(b.item()), a.shape if a.ndim >= b.ndim else b.shape


def approx_add(a: Any, b: Any) -> np.ndarray:
    """spreadsheet.approx_add; on two Python floats where each operand holds one value (the usual cell)."""
    one = _one_value_each(a, b)
    return spreadsheet.approx_add(a, b) if one is None else np.full(one[2], approx_add_s(one[0], one[1]))


def approx_sub(a: Any, b: Any) -> np.ndarray:
    """spreadsheet.approx_sub; on two Python floats where each operand holds one value."""
    one = _one_value_each(a, b)
    return spreadsheet.approx_sub(a, b) if one is None else np.full(one[2], approx_sub_s(one[0], one[1]))


def compare(op: str, a: Any, b: Any) -> np.ndarray:
    """spreadsheet.compare; on two Python floats where each operand holds one value."""
    one = _one_value_each(a, b)
    return spreadsheet.compare(op, a, b) if one is None else np.full(one[2], compare_s(op, one[0], one[1]))


# ---------------------------------------------------------------- compensated sums of one row, in Python floats


def _kahan(values: list[float], abs: Callable[[float], float] = abs) -> tuple[float, float, float]:
    """Kahan.add of each value in turn, from zero: (sum, err, mem). A float's truth is `!= 0` (NaN is true, both
    zeros false), the test Kahan.add makes; the hot loop of a few cases' sums, so written for CPython's speed."""
    s = err = mem = 0.0
    for x in values:
        if x:  # NaN too: only an exact 0 is skipped
            if mem:  # a value held back: add it to the sum, with its compensation
                t = s + mem
                if abs(s) >= abs(mem):
                    err += (s - t) + mem
                else:
                    err += (mem - t) + s
                s = t
            mem = x
    return s, err, mem


def _kahan_get(s: float, err: float, mem: float) -> float:
    total = s + err
    if mem == 0:
        return total
    if ((mem < 0 and total > 0) or (total < 0 and mem > 0)) and approx_equal_s(mem, -total):
        return 0.0
    t = s + mem
    comp = (s - t) + mem if abs(s) >= abs(mem) else (mem - t) + s
    return t + (err + comp)


def _row_sum_s(values: list[float]) -> float:
    """row_sum of one row: the running sum, then added part by part into the result's sum."""
    return _kahan_get(*_kahan(list(_kahan(values))))


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first of each distinct row (the same bits) and, for every row, which of those it is: a book's cases often
    share a row (the scenarios that do not change it), and a few cases' work in Python floats is done once each."""
    index: dict[bytes, int] = {}
    at = np.array([index.setdefault(r.tobytes(), len(index)) for r in rows], dtype=np.intp)
    first = np.full(len(index), -1, dtype=np.intp)
    first[at[::-1]] = np.arange(rows.shape[0], dtype=np.intp)[::-1]
    return first, at


def _each_distinct(rows: np.ndarray, fn: Callable[[np.ndarray], Any]) -> list[Any]:
    """fn of each row, computed once per distinct row."""
    first, at = distinct_rows(rows)
    done = [fn(rows[i]) for i in first]
    return [done[i] for i in at]


# ---------------------------------------------------------------- the row functions


def row_sum(row: Any) -> np.ndarray:
    """spreadsheet.row_sum (SUM over a row), shape (batch, 1)."""
    row = np.atleast_2d(_f(row))
    if row.shape[0] > SMALL:
        return spreadsheet.row_sum(row)
    return np.array(_each_distinct(row, lambda r: _row_sum_s(r.tolist())), dtype=float).reshape(-1, 1)


def row_sumif(keys: Any, key: float, row: Any) -> np.ndarray:
    """spreadsheet.row_sumif (SUMIF(keys, key, row)), shape (batch, 1)."""
    keys, row = np.broadcast_arrays(np.atleast_2d(_f(keys)), np.atleast_2d(_f(row)))
    match = _matches(keys, float(key))
    if row.shape[0] > SMALL:
        total = Kahan((row.shape[0],))
        for t in np.flatnonzero(match.any(axis=0)):
            total.add(np.where(match[:, t], row[:, t], 0.0))
        return total.get()[:, None]
    out = []
    for b in range(row.shape[0]):
        cols = np.flatnonzero(match[b])
        out.append(_kahan_get(*_kahan(row[b, cols].tolist())))
    return np.array(out, dtype=float).reshape(-1, 1)


def row_sumifs(keys: Any, targets: Any, row: Any) -> np.ndarray:
    """row_sumif for each of `targets` (a roll-up's year headers) over the same keys and row, shape (batch, targets).

    The matches of every target are found at once. A few cases: each sum in Python floats, as row_sumif. More: one
    KahanSum per case and target, all taken together, the first matching column of each, then the second, and so
    on; a (case, target) with fewer matches adds 0 after its last, which is no step of a KahanSum (spreadsheet.Kahan
    skips it, as SUMIF skips a cell that does not match), so each sum sees its matches in column order alone."""
    keys, row = np.atleast_2d(_f(keys)), np.atleast_2d(_f(row))
    targets = _f(targets).reshape(-1)
    batch = np.broadcast_shapes(keys.shape, row.shape)[0]
    if not targets.size:
        return np.zeros((batch, 0))
    shared = keys.shape[0] == 1  # one pattern of matches for every case (one timeline): found once
    keys, row = np.broadcast_arrays(keys, row)
    match = _matches_each(keys[:1] if shared else keys, targets)  # (1 or batch, targets, columns)
    if batch <= SMALL and shared:
        return np.array(_each_distinct(row, lambda values: [_kahan_get(*_kahan(values[m].tolist()))
                                                            for m in match[0]]), dtype=float).reshape(batch, -1)
    if batch <= SMALL:
        return np.array([[_kahan_get(*_kahan(values[m].tolist())) for m in matched]
                         for values, matched in zip(row, match, strict=True)], dtype=float)
    most = int(match.sum(axis=2).max(initial=0))
    first = np.argsort(~match, axis=2, kind="stable")[:, :, :most]  # the matching columns first, in column order
    found = np.take_along_axis(match, first, axis=2)
    total = Kahan((batch, targets.size))
    for k in range(most):
        if shared:  # the same columns in every case: a gather of the row
            total.add(np.where(found[0, :, k], row[:, first[0, :, k]], 0.0))
        else:
            total.add(np.where(found[:, :, k], np.take_along_axis(row, first[:, :, k], axis=1), 0.0))
    return total.get()


def _matches_each(keys: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """_matches of each target, shape (rows of keys, targets, columns): one comparison between whole numbers."""
    if _all_whole(keys) and _all_whole(targets):  # as _matches: exact equality between whole numbers
        return keys[:, None, :] == targets[None, :, None]
    return np.stack([_matches(keys, float(k)) for k in targets], axis=1)


def row_lagged(keys: Any, targets: Any, row: Any) -> np.ndarray:
    """SUMIF(keys, target, row) for each column's own target: column t holds the sum of the row where the key
    equals targets[:, t] (the month a lag reaches back to), shape (batch, columns). Each column is row_sumif: the
    columns' targets are row_sumifs' many keys."""
    keys, targets, row = np.broadcast_arrays(np.atleast_2d(_f(keys)), np.atleast_2d(_f(targets)),
                                             np.atleast_2d(_f(row)))
    same = (keys == keys[:1]).all() and (targets == targets[:1]).all()
    column = _one_match_each(keys[0], targets[0]) if same else None
    if column is not None:  # a timeline's distinct month numbers: each sum has one term at most
        return spreadsheet.kahan_one(np.where(column >= 0, row[:, np.maximum(column, 0)], 0.0))
    if same:  # one pattern of matches for every case (the usual: one timeline, one lag)
        return row_sumifs(keys[:1], targets[0], row)
    return np.concatenate([row_sumifs(keys[b : b + 1], targets[b], row[b : b + 1]) for b in range(row.shape[0])])


def _one_match_each(keys: np.ndarray, targets: np.ndarray) -> np.ndarray | None:
    """For each target, the one column whose key equals it (-1: none), when keys and targets are whole numbers
    below 2^52 (so matching is exact equality, as _matches says) and the keys are distinct; else None. A sum of
    one term is then Kahan.add of it alone, computed for every column at once."""
    if not (_all_whole(keys) and _all_whole(targets)) or np.unique(keys).size != keys.size:
        return None
    order = np.argsort(keys, kind="stable")
    at = np.clip(np.searchsorted(keys[order], targets), 0, keys.size - 1)
    found = order[at]
    return np.where(keys[found] == targets, found, -1)


def _matches(keys: np.ndarray, key: float) -> np.ndarray:
    """approx_equal(keys, key). Between whole numbers below 2^52 (years, periods) that is exact equality: their
    difference is exact and whole, and approxEqual never makes two different whole numbers equal."""
    if math.isfinite(key) and key == math.floor(key) and abs(key) < 2.0**52 and _all_whole(keys):
        return keys == key
    return approx_equal(keys, key)


def _all_whole(values: np.ndarray) -> bool:
    """Every value a whole number below 2^52 (NaN and infinities are not), where matching is exact equality."""
    with np.errstate(invalid="ignore"):
        return bool((np.abs(values) < 2.0**52).all() and (np.floor(values) == values).all())


def kahan_rows(terms: np.ndarray) -> np.ndarray:
    """Kahan.get of each row's values added in column order, shape (rows,)."""
    if terms.shape[0] > SMALL:
        k = Kahan((terms.shape[0],))
        for t in range(terms.shape[1]):
            k.add(terms[:, t])
        return k.get()
    return np.array([_kahan_get(*_kahan(r)) for r in terms.tolist()], dtype=float)


def irr(row: Any, guess: Any) -> np.ndarray:
    """spreadsheet.irr (ScIRR: Newton from the guess, at most 20 steps, converged below 1e-7, NaN where it does
    not converge), shape (batch, 1). Each step is taken only for the rows not yet converged, which is what
    spreadsheet.irr computes for them (a converged row's values are left alone there too)."""
    row = np.atleast_2d(_f(row))
    g = _f(guess).reshape(-1)
    batch = max(row.shape[0], g.size)
    row = np.broadcast_to(row, (batch, row.shape[1]))
    g = np.broadcast_to(g, (batch,)).copy()
    if 1 < batch <= SMALL:  # a few cases often share their cash flows and guess (the scenarios that do not
        first, at = distinct_rows(np.column_stack([row, g]))  # change them): each distinct case once
        if first.size < batch:
            return irr(row[first], g[first])[at]
    n = row.shape[1]
    x = np.where(g == -1.0, 0.1, g)
    eps = np.ones(batch)
    count = np.zeros(batch)
    minus_t = -np.arange(n, dtype=float)  # -0.0 first, as -float(0)
    todo = np.arange(batch)
    with np.errstate(all="ignore"):
        while True:
            todo = todo[(eps[todo] > IRR_EPS) & (count[todo] < IRR_MAX_ITER)]
            if not todo.size:
                break
            xa = x[todo]
            base = 1.0 + xa
            # (1 + x)^t for t = 0..n, each as spreadsheet.irr calls it: a contiguous column, a scalar exponent
            powers = np.stack([np.power(base, float(t)) for t in range(n + 1)], axis=1)
            values = row[todo]
            nom = kahan_rows(values / powers[:, :n])
            denom = kahan_rows(minus_t * values / powers[:, 1:])
            x_new = xa - nom / denom
            eps[todo] = np.abs(x_new - xa)
            x[todo] = x_new
            count[todo] += 1
    x = np.where((g == 0) & (np.abs(x) < IRR_EPS), 0.0, x)
    return np.where(eps < IRR_EPS, x, np.nan)[:, None]


def npv(rate: Any, row: Any) -> np.ndarray:
    """NPV(rate, row) for a rate in each column of `rate` (batch, columns): sum over t of row[:, t] / (1 + rate)^(t+1),
    shape (batch, columns). LibreOffice adds v / pow(1 + r, t + 1) in a KahanSum; here the discount is built by
    multiplying (1 + r) in and the terms are added in order: the same to about t x 1e-16 of each term, which the
    workbook only reads divided by the NPV of the row's absolute values (an IRR search's sign) or as a sign."""
    rate, row = np.atleast_2d(_f(rate)), np.atleast_2d(_f(row))
    batch = max(rate.shape[0], row.shape[0])
    if {rate.shape[0], row.shape[0]} - {1, batch}:
        raise ValueError(f"npv: {rate.shape[0]} cases of rates against {row.shape[0]} of values")
    out = np.empty((batch, rate.shape[1]))
    block = max(1, NPV_BLOCK // max(1, rate.shape[1]))  # cases at a time, so that a period's terms stay in the cache
    for lo in range(0, batch, block):
        hi = min(batch, lo + block)
        out[lo:hi] = _npv_block(rate if rate.shape[0] == 1 else rate[lo:hi], row if row.shape[0] == 1 else row[lo:hi],
                                hi - lo)
    return out


NPV_BLOCK = 16384  # values of a block of cases (x its rates): 128 kB a period, within a core's L2


def _npv_block(rate: np.ndarray, row: np.ndarray, cases: int) -> np.ndarray:
    """npv of `cases` cases; a rate shared by them (one row) is discounted once, not once a case."""
    growth = 1.0 + rate
    factor = np.ones(rate.shape)
    out = np.zeros((cases, rate.shape[1]))
    term = np.empty(out.shape)
    periods = np.ascontiguousarray(row.T)[:, :, None]  # a row shared by the cases stays one row
    empty = (row == 0).all(axis=0).tolist()  # periods with no value in any case (before the lead, after the exit)
    with np.errstate(all="ignore"):
        for t in range(row.shape[1]):  # in place: the same operations in the same order, without a new array each
            np.multiply(factor, growth, out=factor)
            if empty[t] and (factor > 0).all():
                continue  # each term is 0 / a positive factor, +-0.0, which leaves every sum as it is (never -0.0)
            np.divide(periods[t], factor, out=term)
            np.add(out, term, out=out)
    return out
