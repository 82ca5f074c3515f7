"""Helpers the tests share, one per job."""

from __future__ import annotations

from fractions import Fraction


def binomial_quantile_exactly(n: int, p: float, level: float) -> int:
    """The smallest k with P(X <= k) >= level for X ~ Binomial(n, p), in exact rational arithmetic: the
    definition, not an algorithm, to check a spreadsheet's CRITBINOM and the spares sized with it."""
    p_, level_ = Fraction(p), Fraction(level)
    q = 1 - p_
    if q == 0:
        return n  # every trial succeeds
    total, term = Fraction(0), q**n
    for k in range(n + 1):
        if k:
            term = term * (n - k + 1) / k * p_ / q
        total += term
        if total >= level_:
            return k
    return n
