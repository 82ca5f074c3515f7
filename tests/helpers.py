"""Helpers the tests share, one per job."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import yaml

from tests.conftest import EXAMPLE

BASE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())  # the example site file, as read




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


def site_with(changes: dict[str, Any] | None = None, remove: tuple[str, ...] = (), **top: Any) -> dict[str, Any]:
    """The example site with `section.key` values changed or removed, and top-level keys replaced."""
    data = copy.deepcopy(BASE)
    for dotted, v in (changes or {}).items():
        section, key = dotted.split(".", 1)
        data.setdefault(section, {})[key] = v
    for dotted in remove:
        section, key = dotted.split(".", 1)
        del data[section][key]
    data.update(top)
    return data
