"""The range an input may take, and how a bound or a share is shown: one rule for every reader.

A site file's value, a cell typed in Excel (its data validation), a reviewer's returned edit and a tornado's swing
are all held to the same range: the model's bounds tightened by templates/limits.yaml. Each of those readers asks
this type, so a bound is never coded twice.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class Range(NamedTuple):
    """lo..hi (None: no bound on that side), lo itself excluded when lo_open (a count above 0, a positive price)."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False

    @property
    def bounded(self) -> bool:
        return self.lo is not None or self.hi is not None

    def below(self, x: float) -> bool:
        """Whether x is under the low end (or on it, where the low end is open)."""
        return self.lo is not None and (x < self.lo or (self.lo_open and x == self.lo))

    def above(self, x: float) -> bool:
        return self.hi is not None and x > self.hi

    def holds(self, x: float) -> bool:
        return not (self.below(x) or self.above(x))

    def in_words(self) -> str:
        """The range as a message says it: "from 0 to 1", "above 0", "at most 64"; "" where it has no bound."""
        low = "" if self.lo is None else f"{'above' if self.lo_open else 'from'} {self.lo:,.10g}"
        high = "" if self.hi is None else f"{'to' if self.lo is not None else 'at most'} {self.hi:,.10g}"
        return " ".join(t for t in (low, high) if t)

    def tightened(self, lo: float | None, hi: float | None) -> Range:
        """The stricter of this range and lo..hi on each side (a limit of templates/limits.yaml): a low limit above
        an open low end closes it."""
        lo_open = self.lo_open
        if lo is not None and (self.lo is None or lo > self.lo):
            lo_open = False
        else:
            lo = self.lo
        hi = hi if self.hi is None or (hi is not None and hi < self.hi) else self.hi
        return Range(lo, hi, lo_open)

    def closed(self, integer: bool, tiny: float) -> tuple[float | None, float | None] | None:
        """The closed range a typed value must lie in (a spreadsheet's validation has no open end): an open low end
        closed at the next whole number for a count, or `tiny` above it (relative, at least absolute) otherwise.
        None when there is no bound at all."""
        if not self.bounded:
            return None
        low = None if self.lo is None else float(self.lo)
        if low is not None and self.lo_open:
            low = math.floor(low) + 1 if integer else low + max(abs(low), 1.0) * tiny
        return low, None if self.hi is None else float(self.hi)

    def clipped(self, values: np.ndarray, fallback: float) -> np.ndarray:
        """`values` moved into the range; a value on or under an open low end becomes `fallback` (it cannot be
        reached: a swing that would need it does not move)."""
        out = np.clip(values, -np.inf if self.lo is None else self.lo, np.inf if self.hi is None else self.hi)
        if self.lo_open and self.lo is not None:
            out = np.where(out <= self.lo, fallback, out)
        return out


def shown(x: float, percent: bool) -> str:
    """A bound or a value as a reader types it: a share as a percentage (0.2 -> 20%), anything else as %g."""
    return f"{x * 100:g}%" if percent else f"{x:g}"


ANY = Range()  # no bound on either side
