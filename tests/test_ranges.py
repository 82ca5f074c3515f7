"""The one range rule: what a site file accepts is what a cell's validation, a returned edit and a swing accept."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook.formula.ranges import Range, shown
from workbook.site.values import TINY

SETTINGS = settings(max_examples=400, deadline=None, derandomize=True)
BOUND = st.none() | st.floats(-1e6, 1e6, allow_nan=False)
VALUE = st.floats(-2e6, 2e6, allow_nan=False)


@st.composite
def ranges(draw: st.DrawFn) -> Range:
    lo, hi = draw(BOUND), draw(BOUND)
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    return Range(lo, hi, draw(st.booleans()) and lo is not None and lo != hi)


def test_an_open_low_end_refuses_the_bound_itself() -> None:
    positive = Range(0.0, None, lo_open=True)
    assert not positive.holds(0.0) and positive.holds(1e-300) and not positive.holds(-1.0)
    share = Range(0.0, 1.0)
    assert share.holds(0.0) and share.holds(1.0) and not share.holds(1.0000001)


@SETTINGS
@given(ranges(), VALUE, st.booleans())
def test_a_value_the_validation_admits_is_one_the_site_file_admits(r: Range, x: float, integer: bool) -> None:
    """Excel's validation is closed on both ends: closing an open end must not let in what the file refuses."""
    span = r.closed(integer, TINY)
    if span is None:
        assert not r.bounded
        return
    lo, hi = span
    if integer:
        x = float(math.floor(x))
    if (lo is None or x >= lo) and (hi is None or x <= hi):
        assert r.holds(x), (r, span, x)


def test_a_count_above_0_is_validated_as_at_least_1_and_a_price_above_0_just_above_it() -> None:
    assert Range(0, None, True).closed(integer=True, tiny=TINY) == (1, None)
    low, high = Range(0.0, 5.0, True).closed(integer=False, tiny=TINY)
    assert low == TINY and high == 5.0
    assert Range(200.0, None, True).closed(integer=False, tiny=TINY)[0] == 200.0 + 200.0 * TINY


@SETTINGS
@given(ranges(), BOUND, BOUND, VALUE)
def test_a_limit_only_tightens(r: Range, lo: float | None, hi: float | None, x: float) -> None:
    """templates/limits.yaml narrows a model's range: what the tightened range holds, both hold."""
    tight = r.tightened(lo, hi)
    if tight.holds(x):
        assert r.holds(x)
        assert (lo is None or x >= lo) and (hi is None or x <= hi)


@SETTINGS
@given(ranges(), st.lists(VALUE, min_size=1, max_size=6), VALUE)
def test_a_swing_clipped_into_the_range_is_held_or_the_base(r: Range, values: list[float], base: float) -> None:
    out = r.clipped(np.array(values), base)
    for x in out:
        assert r.holds(float(x)) or x == base


def test_a_share_is_shown_as_a_percentage_and_anything_else_as_typed() -> None:
    assert shown(0.2, percent=True) == "20%" and shown(1.5, percent=False) == "1.5"
    assert shown(1e-6, percent=False) == "1e-06"


def test_a_range_in_words_as_a_refusal_says_it() -> None:
    assert Range(0.0, 1.0).in_words() == "from 0 to 1"
    assert Range(0.0, None, lo_open=True).in_words() == "above 0"
    assert Range(None, 1e6).in_words() == "at most 1,000,000"
    assert Range().in_words() == ""
