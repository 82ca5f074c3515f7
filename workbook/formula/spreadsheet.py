"""What a spreadsheet engine computes, in numpy: LibreOffice 7.4's arithmetic, transcribed.

Python evaluates every formula with these functions so that the cached values written into a workbook are the
numbers LibreOffice computes, not merely close to them. Each function here is a vectorised transcription of the
C++ in LibreOffice 7.4.7 (Debian 12's version), named in its docstring; `tests/lo_transcription.py` holds a
line-by-line scalar transcription of the same code, and property tests prove the two agree.

Where Excel and LibreOffice differ from IEEE arithmetic:
- `a + b`, `a - b` are 0 when the two cancel to about 15 digits (approxAdd / approxSub);
- comparisons treat values equal to about 15 digits as equal (approxEqual), except representable integers;
- ROUNDUP / ROUNDDOWN first round to 15 significant digits (approxValue), but not above 2^41;
- SUM, SUMIF, NPV and IRR add with a compensated (Neumaier) sum that remembers the last value added;
- PMT uses exp(n log1p(r)) and expm1, accurate at tiny rates where (1 + r)^n - 1 is not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

E44, E48 = 2.0**-44, 2.0**-48
MAX_INT = float(2**53 - 1)  # sal_Int64 kMaxInt in isRepresentableInteger
BIG_INT = 2.0**41  # approxValue leaves values above this alone
TWO52 = 2.0**52
IRR_EPS, IRR_MAX_ITER = 1e-7, 20  # ScIRR's Newton iteration: SCdEpsilon, nIterationsMax


def _f(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=float)


def representable_integer(x_abs: Any) -> np.ndarray:
    """isRepresentableInteger (sal/rtl/math.cxx): a whole number no larger than 2^53 - 1."""
    x_abs = _f(x_abs)
    with np.errstate(invalid="ignore"):
        return (x_abs <= MAX_INT) & (np.trunc(x_abs) == x_abs)


def approx_equal(a: Any, b: Any) -> np.ndarray:
    """rtl_math_approxEqual: equal, or both non-zero and within 2^-48 of each other, but never two different
    representable integers. A pair further apart than 2^-44 of |a| can be neither; the rule runs only on the rest
    (in a batch, few pairs: a cheap first pass, the same answer)."""
    a, b = _f(a), _f(b)
    with np.errstate(invalid="ignore", over="ignore"):
        d = a - b
        out = np.atleast_1d(a == b)
        # not equal, and not further apart than 2^-44 |a| (NaN stays in: the rule decides it)
        maybe = np.atleast_1d(~(np.abs(d) > np.abs(a) * E44) & (d != 0)) & ~out
    if maybe.any():
        a, b = _alike(a, b, maybe.shape)
        out[maybe] = _approx_equal_rule(a[maybe], b[maybe])
    return out.reshape(np.shape(d))


def _alike(a: np.ndarray, b: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Both operands at the shape of their result (at least one dimension), for picking out its elements: only
    where a few elements need the rule, so the usual call broadcasts nothing itself (numpy's operators do)."""
    return np.broadcast_to(a, shape), np.broadcast_to(b, shape)


def _approx_equal_rule(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(a - b)
        # within 2^-44 of both and not equal (d > 0: then neither is 0; an infinite d is never within)
        near = (d <= np.minimum(np.abs(a), np.abs(b)) * E44) & (d > 0)
        out = a == b
        if near.any():
            dn, an, bn = d[near], np.abs(a[near]), np.abs(b[near])
            ints = representable_integer(dn) & representable_integer(an) & representable_integer(bn)
            out[near] = ~ints & (dn < an * E48) & (dn < bn * E48)
        return out


def approx_add(a: Any, b: Any) -> np.ndarray:
    """rtl::math::approxAdd: 0 where a and b have opposite signs and cancel to about 15 digits. Of a pair of
    opposite signs, only a sum smaller than |a| x 2^-48 (or NaN: inf + -inf) can be such a pair's, and an exact
    cancel is already +0.0: the rule runs on those alone (of a batch of cash flows of both signs, few)."""
    a, b = _f(a), _f(b)
    opposite = ((a < 0) & (b > 0)) | ((b < 0) & (a > 0))
    with np.errstate(invalid="ignore", over="ignore"):
        total = a + b
        out = np.atleast_1d(total)
        if not opposite.any():  # only values of opposite signs can cancel
            return out.reshape(np.shape(total))
        near = np.atleast_1d(opposite & ~(np.abs(total) >= np.abs(a) * E48) & (total != 0))
    if near.any():
        a1, b1 = _alike(a, b, out.shape)
        out[near] = np.where(approx_equal(a1[near], -b1[near]), 0.0, out[near])
    return out.reshape(np.shape(total))


def approx_sub(a: Any, b: Any) -> np.ndarray:
    """rtl::math::approxSub: 0 where a and b have the same sign and are equal to about 15 digits."""
    a, b = _f(a), _f(b)
    with np.errstate(invalid="ignore", over="ignore"):
        d = a - b
        out = np.atleast_1d(d)
        # only these can be approxEqual and not already 0 (NaN stays in: inf - inf is 0 when alike)
        maybe = ~(np.abs(out) > np.abs(a) * E44) & (out != 0)
    if maybe.any():
        a1, b1 = _alike(a, b, out.shape)
        am, bm = a1[maybe], b1[maybe]
        alike = ((am < 0) & (bm < 0)) | ((am > 0) & (bm > 0))
        out[maybe] = np.where(alike & _approx_equal_rule(am, bm), 0.0, out[maybe])
    return out.reshape(np.shape(d))


def compare(op: str, a: Any, b: Any) -> np.ndarray:
    """sc::CompareFunc for two numbers: equal when approxEqual, else ordered by the sign of a - b."""
    eq = approx_equal(a, b)
    if op in ("=", "<>"):
        return eq if op == "=" else ~eq
    with np.errstate(invalid="ignore"):
        less = ~eq & (_f(a) - _f(b) < 0)
    if op in ("<", ">="):
        return less if op == "<" else ~less
    greater = ~eq & ~less
    if op not in (">", "<="):
        raise KeyError(op)
    return greater if op == ">" else ~greater


def _bits_in_fraction(v: np.ndarray) -> np.ndarray:
    """getBitsInFracPart: how many binary digits a positive finite value has after the point."""
    mant, exp = np.frexp(v)  # v = mant * 2^exp, mant in [0.5, 1)
    significand = np.ldexp(mant, 53).astype(np.int64)  # the 53-bit integer significand
    low = significand & -significand
    trailing = np.frexp(low.astype(float))[1] - 1
    return np.maximum(52 - (exp - 1) - trailing, 0)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """std::round: halves away from zero (numpy's round is half to even)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_POW10 = np.array([float(f"1e{k}") for k in range(309)])  # getN10Exp's table n10s: exact decimal literals
_NEG_POW10 = np.array([float(f"1e-{k}") for k in range(324)])  # down to the smallest subnormal


def _log10(v: np.ndarray) -> np.ndarray:
    """log10 as glibc's correctly rounded log10 gives it. numpy's vectorised log10 can be an ulp off, which
    matters only where the result is next to a whole number (flooring it): those few go through math.log10."""
    lg = np.atleast_1d(np.log10(v))
    whole = np.round(lg)
    near = np.abs(lg - whole) < 1e-9
    if near.any():
        vs = np.broadcast_to(v, lg.shape)
        # an exact power of ten (1, 10, ... 1e22, each exact in binary) has the whole number as its log10, which
        # a correctly rounded log10 returns: only the others near a whole number need math.log10, one by one
        exact = near & (whole >= 0) & (whole <= 22)
        exact[exact] = vs[exact] == _POW10[whole[exact].astype(int)]
        lg[exact] = whole[exact]
        rest = near & ~exact
        if rest.any():
            lg[rest] = [math.log10(x) for x in vs[rest]]
    return lg.reshape(np.shape(v))


def approx_value(x: Any) -> np.ndarray:
    """rtl_math_approxValue: round to 15 significant digits. Left alone: zero, values above 2^41 (tested
    before the sign is taken, so not negative ones), representable integers and values with at most 11
    fraction bits. Only the values not left alone by the cheap tests are rounded."""
    x = _f(x)
    v = np.abs(x)
    with np.errstate(all="ignore"):
        todo = np.isfinite(v) & (v != 0) & (x <= BIG_INT) & ~representable_integer(v)
    return _only_where(x, todo, _approx_value)


def _only_where(x: np.ndarray, todo: np.ndarray, fn: Any) -> np.ndarray:
    """x with fn applied to the values where `todo` holds (fn of the rest would leave them as they are)."""
    if not todo.any():
        return x.copy()
    if x.ndim == 0:
        return fn(x)
    out = x.copy()
    out[todo] = fn(x[todo])
    return out


def _approx_value(x: np.ndarray) -> np.ndarray:
    """approx_value of finite non-zero values no larger than 2^41 that are not whole numbers."""
    v = np.abs(x)
    with np.errstate(all="ignore"):
        skip = _bits_in_fraction(v) <= 11
        n = 14 - np.floor(_log10(v))
        k = np.abs(n)
        fac = np.where(k <= 308, _POW10[np.minimum(k, 308).astype(int)], np.inf)
        scaled = np.where(n < 0, v / fac, v * fac)
        rounded = _round_half_away(scaled)
        back = np.where(n < 0, rounded * fac, rounded / fac)
        keep = skip | ~np.isfinite(scaled) | ~np.isfinite(back)
    return np.where(keep, x, np.copysign(back, x))


def round_up(x: Any) -> np.ndarray:
    """ROUNDUP(x, 0) (ScInterpreter::RoundNumber, then rtl_math_round(.., 0, Up)): a non-whole x is first
    rounded to 12 significant digits (tdf#124286), then away from zero after approxValue. So LibreOffice's
    ROUNDUP of 1234567890123.4 is 1234567890120: counts must stay well below 1e11 (the input ranges see to
    it), and values within 1e-12 of a whole number round to it."""
    return _round_whole(x, np.ceil)


def round_down(x: Any) -> np.ndarray:
    """ROUNDDOWN(x, 0): as ROUNDUP, toward zero."""
    return _round_whole(x, np.floor)


def _round_whole(x: Any, fn: Any) -> np.ndarray:
    """ROUNDUP or ROUNDDOWN to a whole number. Rounding to 12 significant digits moves |x| by at most
    0.5e-11 |x| and approxValue by 0.5e-14 |x|: where |x| is further than 1e-11 |x| from every whole number,
    neither moves it across one, and the answer is plain ceil or floor of |x| with x's sign (the same bits).
    A whole number below 2^52 is left as it is by both roundings (and by the spreadsheet's path). Only the values
    near a whole number, and the tiniest (whose 10^-e overflows in LibreOffice: ROUNDUP of 1e-300 is an overflow
    there), take the spreadsheet's path."""
    x = _f(x)
    v = np.abs(x)
    with np.errstate(all="ignore"):
        below = np.floor(v)
        fraction = v - below
        margin = v * 1e-11
        done = fraction > margin
        done &= (1.0 - fraction) > margin
        done &= v >= 1e-280
        done |= fraction == 0  # a whole number (or +-0): ceil and floor leave it, and so does the spreadsheet
        done &= v < TWO52
    if x.ndim == 0 or not done.any():
        return _round0(_twelve_digits(x), fn)
    out = np.copysign(below if fn is np.floor else fn(v), x)
    rest = ~done
    if rest.any():
        out[rest] = _round0(_twelve_digits(x[rest]), fn)
    return out


def _twelve_digits(x: Any) -> np.ndarray:
    """RoundSignificant(x, 12) where fmod(x, 1) != 0: std::round(x 10^-e) 10^e, e = approxFloor(log10|x|) - 11."""
    x = _f(x)
    with np.errstate(all="ignore"):
        fraction = np.isfinite(x) & (np.fmod(x, 1.0) != 0)
    return _only_where(x, fraction, _round_twelve)


def _round_twelve(x: np.ndarray) -> np.ndarray:
    """RoundSignificant(x, 12) of finite values with a fraction."""
    with np.errstate(all="ignore"):
        e = np.floor(approx_value(_log10(np.abs(x)))) + 1.0 - 12.0
        scaled = _pow10(-e) * x
        return _round_half_away(scaled) * _pow10(e)


def _pow10(k: np.ndarray) -> np.ndarray:
    """pow(10, k) for whole k, as glibc's correctly rounded pow gives it (exact decimal literals)."""
    k = np.asarray(k, dtype=float)
    up = np.clip(k, 0, 308).astype(int)
    down = np.clip(-k, 0, 323).astype(int)
    return np.where(k > 308, np.inf, np.where(k < -323, 0.0, np.where(k >= 0, _POW10[up], _NEG_POW10[down])))


def _round0(x: Any, fn: Any) -> np.ndarray:
    """rtl_math_round(x, 0, Up or Down)."""
    x = _f(x)
    v = np.abs(x)
    with np.errstate(invalid="ignore"):
        skip = ~np.isfinite(x) | (x == 0) | (v >= TWO52) | representable_integer(v)
        r = fn(approx_value(v))
    return np.where(skip, x, np.copysign(r, x))


def _glibc_pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except (ValueError, OverflowError):  # a negative base's fractional power, 0 to a negative power, overflow
        return math.nan


_GLIBC_POW = np.frompyfunc(_glibc_pow, 2, 1)
_DISTINCT_FROM = 256  # elements from which the pairs are made distinct first


def _glibc_pow_all(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """glibc's pow of each pair: math.pow mapped over the pairs (a quarter of the cost of a ufunc made from a Python
    function), and where one pair raises (a negative base's fractional power, 0 to a negative power, overflow),
    each pair alone."""
    try:
        return np.fromiter(map(math.pow, x.tolist(), y.tolist()), dtype=float, count=x.size)
    except (ValueError, OverflowError):
        return np.asarray(_GLIBC_POW(x, y), dtype=float)


def _cases_differ(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether a batch's cases (rows) hold pairs of their own, as the samples of a risk run do, so that making the
    pairs distinct first would cost more than it saves: told from the first column of up to 64 rows spread over the
    batch. Either answer gives the same values; this only chooses the faster way."""
    if a.ndim != 2 or a.shape[0] < 64:
        return False
    rows = np.linspace(0, a.shape[0] - 1, 64).astype(int)
    pairs = {(float(x), float(y)) for x, y in zip(a[rows, 0], b[rows, 0], strict=True)}
    return len(pairs) > 48


def _pow_each(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """glibc's pow of each pair, computed once per distinct pair: a batch repeats its pairs (a discount factor's
    rate is the same in every case but the one that moves it), and each pair is a call into Python. Pairs are
    told apart by a hash of their bits (so 0.0 and -0.0 stay apart), and every pair is checked against the one
    its hash stands for: a collision computes each pair. Where the cases hold pairs of their own (a risk run's
    samples), a pair that repeats the one before it in the row (a price index's year, the same for 12 months)
    takes its power."""
    x, y = (np.ascontiguousarray(v, dtype=float).reshape(-1) for v in (a, b))
    if x.size >= _DISTINCT_FROM:
        xb, yb = x.view(np.uint64), y.view(np.uint64)
        if not _cases_differ(a, b):
            _, first, where = np.unique(xb * np.uint64(0x9E3779B97F4A7C15) ^ yb, return_index=True,
                                        return_inverse=True)
            if np.array_equal(xb[first][where], xb) and np.array_equal(yb[first][where], yb):
                return _glibc_pow_all(x[first], y[first])[where].reshape(a.shape)
        else:
            new = np.empty(x.size, dtype=bool)
            new[0] = True
            np.not_equal(xb[1:], xb[:-1], out=new[1:])
            new[1:] |= yb[1:] != yb[:-1]
            starts = np.flatnonzero(new)
            if 2 * starts.size <= x.size:  # runs: each run's first pair (the same bits: the same power)
                return _glibc_pow_all(x[starts], y[starts])[np.cumsum(new) - 1].reshape(a.shape)
    return _glibc_pow_all(x, y).reshape(a.shape)


def power(a: Any, b: Any) -> np.ndarray:
    """sc::power: pow(), with an odd root of a negative number allowed, and an error (NaN here) where pow
    overflows, underflows or is undefined."""
    a, b = np.broadcast_arrays(_f(a), _f(b))
    with np.errstate(all="ignore"):
        # glibc's pow (LibreOffice's std::pow) element by element: numpy's vectorised pow differs from it in the last
        # bit for some arguments, and differently for a batch than for one site (its SIMD loops), so a batch would
        # not give what single evaluations give, nor LibreOffice
        r = _pow_each(a, b)
        negative = a < 0
        if negative.any():  # an odd root of a negative base (only such a base can have one)
            f = 1.0 / b + np.where(b < 0, -0.5, 0.5)
            i = np.trunc(np.where(np.isfinite(f) & (np.abs(f) < 9e18), f, 0.0))
            odd_root = negative & (b != 0) & (np.fmod(i, 2) != 0) & approx_equal(1.0 / np.where(i == 0, 1, i), b)
            if odd_root.any():
                r = np.where(odd_root, -_pow_each(-a, b), r)
        # an error where pow overflows or has no value, or underflows: 0 from a base that is not, or a subnormal
        kept = np.isfinite(r) & ((np.abs(r) >= np.finfo(float).tiny) | ((r == 0) & (a == 0)))
    return np.where(kept, r, np.nan)


# ---------------------------------------------------------------- compensated sums (sc/inc/kahan.hxx)


class Kahan:
    """KahanSum (sc/inc/kahan.hxx), vectorised over a batch: Neumaier's compensated sum that keeps the last
    value added in `mem` and adds it, approxAdd-style, only when the result is read."""

    def __init__(self, shape: tuple[int, ...]):
        self.sum = np.zeros(shape)
        self.err = np.zeros(shape)
        self.mem = np.zeros(shape)

    def add(self, x: Any) -> None:
        """add(x): 0 is skipped; the first non-zero value is only remembered, which here is a step like the others:
        until then sum, err and mem are +0.0, and the step adds 0.0 to each (the same bits), so that every case
        with a value takes one step without a selection."""
        x = _f(x)
        if x.shape != self.sum.shape:
            x = np.broadcast_to(x, self.sum.shape)
        active = x != 0  # add(0) returns at once
        every = bool(active.all())
        if every or active.any():
            s, mem = self.sum, self.mem
            t = s + mem
            big = np.abs(s) >= np.abs(mem)
            comp = np.where(big, s, mem)  # (s - t) + mem where |s| >= |mem|, else (mem - t) + s
            with np.errstate(invalid="ignore", over="ignore"):
                np.subtract(comp, t, out=comp)
                np.add(comp, np.where(big, mem, s), out=comp)
            if every:
                np.add(self.err, comp, out=self.err)
                self.sum, self.mem = t, x.copy()
            else:
                self.err = np.where(active, self.err + comp, self.err)
                self.sum, self.mem = np.where(active, t, s), np.where(active, x, mem)

    def add_sum(self, other: Kahan) -> None:
        """add(const KahanSum&): its sum, error and remembered value, one after the other."""
        self.add(other.sum)
        self.add(other.err)
        self.add(other.mem)

    def get(self) -> np.ndarray:
        total = self.sum + self.err
        m = self.mem
        cancels = (((m < 0) & (total > 0)) | ((total < 0) & (m > 0))) & approx_equal(m, -total)
        t = self.sum + m
        big = np.abs(self.sum) >= np.abs(m)
        with np.errstate(invalid="ignore", over="ignore"):
            comp = np.where(big, (self.sum - t) + m, (m - t) + self.sum)
        final = t + (self.err + comp)
        return np.where(m == 0, total, np.where(cancels, 0.0, final))


def kahan_one(x: Any) -> np.ndarray:
    """Kahan.get of a KahanSum that took x alone, element by element: x, 0.0 for either zero, and NaN for an
    infinity (the compensation of inf is inf - inf), as add and get compute it."""
    x = _f(x)
    with np.errstate(invalid="ignore"):
        return np.where(x == 0, 0.0, x + (x - x))


def row_sum(row: Any) -> np.ndarray:
    """SUM over one row of formula cells (ScSum -> IterateParameters, FuncSum): each cell is added into a
    running KahanSum, which is then added into the result's KahanSum part by part. Shape (batch, 1)."""
    row = np.atleast_2d(_f(row))
    running = Kahan((row.shape[0],))
    for t in range(row.shape[1]):
        running.add(row[:, t])
    result = Kahan((row.shape[0],))
    result.add_sum(running)
    return result.get()[:, None]


def row_sumif(keys: Any, key: float, row: Any) -> np.ndarray:
    """SUMIF(keys, key, row) with numeric keys (ScSumIf -> IterateParametersIf): the values whose key equals
    `key`, in column order, into one KahanSum. Shape (batch, 1). Cells that do not match are skipped, which is
    adding 0 (KahanSum ignores it), so only the columns where some row matches are visited."""
    keys, row = np.broadcast_arrays(np.atleast_2d(_f(keys)), np.atleast_2d(_f(row)))
    match = approx_equal(keys, key)
    total = Kahan((row.shape[0],))
    for t in np.flatnonzero(match.any(axis=0)):
        total.add(np.where(match[:, t], row[:, t], 0.0))
    return total.get()[:, None]


def pmt(rate: Any, nper: Any, pv: Any) -> np.ndarray:
    """PMT(rate, nper, pv) with fv = 0, paid in arrears (ScGetPMT): -(pv e^(n log1p r)) r / expm1(n log1p r),
    or -pv / n at a zero rate."""
    rate, nper, pv = np.broadcast_arrays(_f(rate), _f(nper), _f(pv))
    with np.errstate(all="ignore"):
        growth = nper * np.log1p(rate)
        payment = (pv * np.exp(growth)) * rate / np.expm1(growth)
        return -np.where(rate == 0, pv / nper, payment)


def irr(row: Any, guess: Any) -> np.ndarray:
    """IRR(row, guess) (ScIRR): Newton's method from the guess (0.1 when the guess is -1), KahanSums of the
    value and the derivative over the row, at most 20 steps, converged when a step is below 1e-7; NaN where
    it does not converge (the cell's error). Shape (batch, 1)."""
    row = np.atleast_2d(_f(row))
    batch, n = row.shape
    g = np.broadcast_to(_f(guess).reshape(-1), (batch,)).copy()
    x = np.where(g == -1.0, 0.1, g)
    eps = np.ones(batch)
    count = np.zeros(batch)
    with np.errstate(all="ignore"):
        while True:
            active = (eps > IRR_EPS) & (count < IRR_MAX_ITER)
            if not active.any():
                break
            nom, denom = Kahan((batch,)), Kahan((batch,))
            for t in range(n):
                v = row[:, t]
                nom.add(v / np.power(1.0 + x, float(t)))
                denom.add(-float(t) * v / np.power(1.0 + x, t + 1.0))
            x_new = x - nom.get() / denom.get()
            eps = np.where(active, np.abs(x_new - x), eps)
            x = np.where(active, x_new, x)
            count += active
    x = np.where((g == 0) & (np.abs(x) < IRR_EPS), 0.0, x)
    return np.where(eps < IRR_EPS, x, np.nan)[:, None]


# ---------------------------------------------------------------- the binomial quantile (interpr3.cxx)

DBL_MIN = float(np.finfo(float).tiny)


def crit_binom(n: Any, p: Any, alpha: Any) -> np.ndarray:
    """CRITBINOM(n, p, alpha) (ScCritBinom): the smallest k with P(X <= k) >= alpha for X ~ Binomial(n, p). It
    adds the probabilities term by term from the side where the distribution starts (k = 0 up when q > p, else
    n down) from pow(q, n) or pow(p, n); where that power underflows, from the beta density instead (scalar:
    `_crit_binom_by_beta`). NaN where the spreadsheet shows an error (n < 0, p or alpha outside [0, 1])."""
    n, p, alpha = np.broadcast_arrays(np.floor(approx_value(_f(n))), _f(p), _f(alpha))
    shape = n.shape
    n, p, alpha = (np.atleast_1d(a).ravel().copy() for a in (n, p, alpha))
    bad = ~((n >= 0) & (alpha >= 0) & (alpha <= 1) & (p >= 0) & (p <= 1))
    out = np.where(alpha == 1.0, np.where(p == 0, 0.0, n), 0.0)
    q = (0.5 - p) + 0.5
    up = q > p
    todo = ~bad & (alpha != 0.0) & (alpha != 1.0)
    start = np.array([math.pow(b, e) if t else 1.0
                      for b, e, t in zip(np.where(up, q, p), n, todo, strict=True)], dtype=float)
    beta = todo & (start <= DBL_MIN)
    out[beta] = [_crit_binom_by_beta(a, b, c) for a, b, c in zip(n[beta], p[beta], alpha[beta], strict=True)]
    for side in (True, False):
        rows = todo & ~beta & (up == side)
        if rows.any():
            out[rows] = _crit_binom_terms(n[rows], p[rows], q[rows], alpha[rows], start[rows], side)
    return np.where(bad, np.nan, out).reshape(shape)


def _crit_binom_terms(n: np.ndarray, p: np.ndarray, q: np.ndarray, alpha: np.ndarray, factor: np.ndarray,
                      up: bool) -> np.ndarray:
    """ScCritBinom's loops, every case at once: from 0 up, fFactor *= (n-i)/(i+1)*p/q and fSum += fFactor while
    fSum < alpha; from n down, fFactor *= (n-i)/(i+1)*q/p and fSum -= fFactor while fSum >= alpha."""
    last = np.floor(n)  # static_cast<sal_uInt32>(n)
    total = factor.copy() if up else 1.0 - factor
    i = np.zeros_like(n)
    active = (i < last) & ((total < alpha) if up else (total >= alpha))
    while active.any():
        step = factor * ((n - i) / (i + 1) * p / q if up else (n - i) / (i + 1) * q / p)
        factor = np.where(active, step, factor)
        total = np.where(active, total + step if up else total - step, total)
        i = np.where(active, i + 1, i)
        active &= (i < last) & ((total < alpha) if up else (total >= alpha))
    return i if up else n - i


def _crit_binom_by_beta(n: float, p: float, alpha: float) -> float:
    """ScCritBinom where pow(q, n) (or pow(p, n)) underflows: the binomial terms from the beta density,
    GetBetaDistPDF(p, i + 1, n - i + 1) / (n + 1), accumulated until they reach alpha."""
    q = (0.5 - p) + 0.5
    last = int(n)
    total, i = 0.0, 0
    if q > p:
        while i < last and total < alpha:
            total += beta_pdf(p, i + 1, n - i + 1) / (n + 1)
            i += 1
        return float(i - 1)
    alpha = 1 - alpha
    while i < last and total < alpha:
        total += beta_pdf(q, i + 1, n - i + 1) / (n + 1)
        i += 1
    return float(n - i + 1)


_LANCZOS_NUM = (23531376880.41075968857200767445163675473, 42919803642.64909876895789904700198885093,
                35711959237.35566804944018545154716670596, 17921034426.03720969991975575445893111267,
                6039542586.35202800506429164430729792107, 1439720407.311721673663223072794912393972,
                248874557.8620541565114603864132294232163, 31426415.58540019438061423162831820536287,
                2876370.628935372441225409051620849613599, 186056.2653952234950402949897160456992822,
                8071.672002365816210638002902272250613822, 210.8242777515793458725097339207133627117,
                2.506628274631000270164908177133837338626)
_LANCZOS_DENOM = (0.0, 39916800.0, 120543840.0, 150917976.0, 105258076.0, 45995730.0, 13339535.0, 2637558.0,
                  357423.0, 32670.0, 1925.0, 66.0, 1.0)
_LANCZOS_G = 6.024680040776729583740234375
_MAX_GAMMA_ARGUMENT = 171.624376956302


def _lanczos_sum(z: float) -> float:
    """lcl_getLanczosSum (boost's lanczos13m53): a rational function in z, or in 1/z above 1."""
    if z <= 1.0:
        num, denom = _LANCZOS_NUM[12], _LANCZOS_DENOM[12]
        for k in range(11, -1, -1):
            num = num * z + _LANCZOS_NUM[k]
            denom = denom * z + _LANCZOS_DENOM[k]
    else:
        inv = 1 / z
        num, denom = _LANCZOS_NUM[0], _LANCZOS_DENOM[0]
        for k in range(1, 13):
            num = num * inv + _LANCZOS_NUM[k]
            denom = denom * inv + _LANCZOS_DENOM[k]
    return num / denom


def _log_beta(alpha: float, beta: float) -> float:
    """GetLogBeta: log B(a, b) from the Lanczos sums."""
    a, b = (alpha, beta) if alpha > beta else (beta, alpha)
    gm = _LANCZOS_G - 0.5
    lanczos = _lanczos_sum(a)
    lanczos /= _lanczos_sum(a + b)
    lanczos *= _lanczos_sum(b)
    log_lanczos = math.log(lanczos)
    abgm = a + b + gm
    log_lanczos += 0.5 * (math.log(abgm) - math.log(a + gm) - math.log(b + gm))
    temp_a, temp_b = b / (a + gm), a / (b + gm)
    return -a * math.log1p(temp_a) - b * math.log1p(temp_b) - gm + log_lanczos


def _beta(alpha: float, beta: float) -> float:
    """GetBeta for a + b at or above the largest gamma argument (the only case the binomial quantile reaches:
    its beta densities have a + b = n + 2 with n in the hundreds at least)."""
    a, b = (alpha, beta) if alpha > beta else (beta, alpha)
    if a + b < _MAX_GAMMA_ARGUMENT:
        raise ValueError("GetBeta's gamma-function case is not transcribed")
    gm = _LANCZOS_G - 0.5
    lanczos = _lanczos_sum(a)
    lanczos /= _lanczos_sum(a + b)
    lanczos *= _lanczos_sum(b)
    abgm = a + b + gm
    lanczos *= math.sqrt((abgm / (a + gm)) / (b + gm))
    temp_a, temp_b = b / (a + gm), a / (b + gm)
    return math.exp(-a * math.log1p(temp_a) - b * math.log1p(temp_b) - gm) * lanczos


def beta_pdf(x: float, a: float, b: float) -> float:
    """GetBetaDistPDF(x, a, b) for 0 < x < 1 and b > 1 (the binomial quantile's case): x^(a-1) (1-x)^(b-1) / B(a, b),
    in logarithms where a part would over- or underflow."""
    if a == 1.0:
        if b == 2.0:
            return -2.0 * x + 2.0
        if x <= 0.01:
            return b + b * math.expm1((b - 1.0) * math.log1p(-x))
        return b * math.pow(0.5 - x + 0.5, b - 1.0)
    log_max, log_min = math.log(np.finfo(float).max), math.log(DBL_MIN)
    log_y = math.log1p(-x) if x < 0.1 else math.log(0.5 - x + 0.5)
    am1_log_x = (a - 1.0) * math.log(x)
    bm1_log_y = (b - 1.0) * log_y
    log_beta = _log_beta(a, b)
    if (log_min < am1_log_x < log_max and log_min < bm1_log_y < log_max and log_min < log_beta < log_max
            and log_min < am1_log_x + bm1_log_y < log_max):
        return math.pow(x, a - 1.0) * math.pow(0.5 - x + 0.5, b - 1.0) / _beta(a, b)
    return math.exp(am1_log_x + bm1_log_y - log_beta)
