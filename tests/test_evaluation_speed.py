"""Evaluation (workbook.formula.evaluation, workbook.formula.kernels): the faster evaluation computes the same
bits as the straightforward one, computes only what is asked for, stores a row shared by every case once, and
evaluates many sites in bounded chunks.

The straightforward evaluation is kept here as the reference (`reference_evaluate`): every line in book order,
broadcast to the batch, a line that reads its own previous period one column at a time through its whole
formula, and spreadsheet.py's row functions (SUM, SUMIF, IRR)."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.helpers import example_model, site_model
from workbook.analysis.sensitivity import validity_checks
from workbook.book.book import Book
from workbook.formula import evaluation, kernels
from workbook.formula import spreadsheet as ss
from workbook.formula.expr import MONTHS, YEARS, Env, FormulaError

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)
SITES = sorted((ROOT / "inputs").glob("*.yaml"))

# ---------------------------------------------------------------- the reference evaluation

def _each_sumif(keys: Any, targets: Any, row: Any) -> np.ndarray:
    """A roll-up's SUMIF of each header in turn, by spreadsheet.py (what kernels.row_sumifs does at once)."""
    return np.concatenate([ss.row_sumif(keys, float(k), row) for k in np.ravel(targets)], axis=1)


_SPREADSHEET = {kernels.irr: ss.irr, kernels.row_sum: ss.row_sum, kernels.row_sumif: ss.row_sumif,
                kernels.row_sumifs: _each_sumif}


@contextlib.contextmanager
def spreadsheet_row_functions(book: Book) -> Iterator[None]:
    """The book's SUM, SUMIF and IRR computed by spreadsheet.py's functions while inside."""
    changed = []
    for line in book.lines.values():
        for root in (line.formula, line.opening):
            for node in () if root is None else root.walk():
                fn = getattr(node, "fn", None)
                if fn in _SPREADSHEET:
                    changed.append((node, fn))
                    node.fn = _SPREADSHEET[fn]
    saved = kernels.irr
    kernels.irr = ss.irr  # the annualised IRR calls it by name
    try:
        yield
    finally:
        kernels.irr = saved
        for node, fn in changed:
            node.fn = fn


def reference_evaluate(book: Book, overrides: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    with spreadsheet_row_functions(book):
        env = Env(sizes={MONTHS: book.periods, YEARS: book.years})
        overrides = overrides or {}
        batch = max([np.size(v) for v in overrides.values()] + [1])
        n = book.periods
        for line in book.lines.values():
            if line.kind == "input":
                env.values[line.id] = np.asarray(overrides.get(line.id, line.value), dtype=float).reshape(-1, 1)
                continue
            if line.axis == MONTHS and line.opening is not None:
                env.column = 0
                first = np.broadcast_to(np.asarray(line.opening.evaluate(env), float), (batch, 1))
                if line.recursive:
                    v = np.full((batch, n), np.nan)
                    v[:, :1] = first
                    env.values[line.id] = v
                    for t in range(1, n):
                        env.column = t
                        v[:, t : t + 1] = line.formula.evaluate(env)
                    env.column = None
                else:
                    env.column, env.window = None, slice(1, n)
                    rest = np.asarray(line.formula.evaluate(env), float)
                    env.window = None
                    v = np.concatenate([first, np.broadcast_to(rest, (batch, n - 1))], axis=1)
            else:
                v = np.asarray(line.formula.evaluate(env))
            v = np.broadcast_to(v, np.broadcast_shapes(v.shape, (batch, book.columns(line.axis))))
            env.values[line.id] = v if line.is_bool else v.astype(float)
        return env.values


def assert_same_bits(got: dict[str, np.ndarray], want: dict[str, np.ndarray], keys: Any = None) -> None:
    for key in want if keys is None else keys:
        g, w = got[key], want[key]
        assert g.shape == w.shape, (key, g.shape, w.shape)
        assert np.array_equal(g, w, equal_nan=True), (key, g, w)


@pytest.fixture(scope="module")
def books() -> dict[str, Book]:
    return {path.name: site_model(path.name).book for path in SITES}


def _random_overrides(book: Book, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for key, lo, hi in (("tco.utilisation", 0.7, 1.3), ("tco.electricity_price", 0.5, 2.0),
                        ("power.gpu_tdp", 0.8, 1.2), ("tco.cost_of_capital", 0.0, 2.0),
                        ("tco.rent_price_change", 0.0, 2.0), ("tco.on_demand_price", 0.5, 1.5)):
        if key in book.lines:
            out[key] = float(book.lines[key].value.reshape(-1)[0]) * rng.uniform(lo, hi, n)
    return out


# ---------------------------------------------------------------- the same bits


@pytest.mark.slow
@pytest.mark.parametrize("site", [p.name for p in SITES])
def test_every_line_of_every_site_is_the_reference_to_the_bit(books: dict[str, Book], site: str) -> None:
    book = books[site]
    assert_same_bits(book.evaluate(), reference_evaluate(book))


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 40, -6])  # rows on Python floats (a few), numpy columns (many); -6: six cases,
# some the same (as scenarios that do not change a line), which the row functions and a recursive row compute once
@pytest.mark.parametrize("site", ["example.yaml", "b200-liquid-build.yaml"])  # b200: a loan's recursive rows
def test_a_batch_is_the_reference_to_the_bit(books: dict[str, Book], site: str, n: int) -> None:
    book = books[site]
    overrides = _random_overrides(book, abs(n), seed=abs(n))
    if n < 0:
        overrides = {k: v[[0, 1, 0, 2, 2, 1]] for k, v in overrides.items()}
    # some values beyond an input's range too: the arithmetic is what is compared
    assert_same_bits(book.evaluate(overrides, ranges=False), reference_evaluate(book, overrides))


@pytest.mark.slow
def test_scenarios_as_rows_are_their_copies_evaluated_one_by_one(books: dict[str, Book]) -> None:
    for book in books.values():
        assert evaluation.scenarios_as_rows(book) is not None  # every site's scenarios are read as rows
        rows = book.evaluate()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(evaluation, "scenarios_as_rows", lambda book: None)
            one_by_one = book.evaluate()
        assert_same_bits(rows, one_by_one)


@pytest.mark.slow
def test_a_scenario_copy_that_is_not_its_base_formula_is_evaluated_as_written() -> None:
    book = example_model().book
    mapping = next(iter(book.scenarios.values()))
    copy = next(line for line in mapping.values() if line.kind == "calc" and line.axis is None)
    changed = book.replaced(dataclasses.replace(copy, formula=copy.formula * 2))  # not a row of its base line
    assert evaluation.scenarios_as_rows(changed) is None
    assert_same_bits(changed.evaluate(), reference_evaluate(changed))
    assert evaluation.scenarios_as_rows(book) is not None  # the book it was derived from is unchanged


# ---------------------------------------------------------------- only what is asked for


def test_lines_asked_for_are_computed_from_their_dependencies_alone(books: dict[str, Book]) -> None:
    book = books["example.yaml"]
    want = ["tco.owned_cost_per_gpu_hour", "tco.break_even_utilisation"]
    got = book.evaluate(lines=want)
    assert list(got) == want
    full = book.evaluate()
    assert_same_bits(got, full, want)
    computed = evaluation.evaluate(book, lines=want, with_dependencies=True)
    assert not any(key.startswith("scenario.") for key in computed)  # no scenario's copies
    assert "tco.irr_buy" not in computed and "cooling.air_flow" not in computed
    assert {"tco.npv_own", "power.nodes", "tco.month"} <= computed.keys()
    assert len(computed) < len(book.lines) / 2


def test_a_scenario_copy_asked_for_alone(books: dict[str, Book]) -> None:
    book = books["example.yaml"]
    copy = "scenario.low_utilisation.tco.npv_own"
    assert_same_bits(book.evaluate(lines=[copy]), book.evaluate(), [copy])


def test_the_tornado_reads_no_scenario_line(books: dict[str, Book]) -> None:

    book = books["example.yaml"]
    targets = ["tco.owned_cost_per_gpu_hour", "tco.break_even_utilisation", *(c.id for c in validity_checks(book))]
    order = evaluation.needed(book, targets)
    assert not any(line.id.startswith("scenario.") for line in order)


# ---------------------------------------------------------------- rows shared by every case, stored once


def test_a_row_the_same_for_every_site_is_stored_once(books: dict[str, Book]) -> None:
    book = books["example.yaml"]
    tdp = np.array([500.0, 700.0, 1000.0])
    compact = evaluation.evaluate(book, {"power.gpu_tdp": tdp}, compact=True)
    assert compact["tco.month"].shape == (1, book.periods)  # the timeline does not depend on the TDP
    assert compact["tco.discount_factor"].shape == (1, book.periods)
    assert compact["power.node_gpu_power"].shape == (3, 1)
    assert compact["tco.own_flow"].shape == (3, book.periods)  # energy depends on it
    full = book.evaluate({"power.gpu_tdp": tdp})  # callers see the batch: a view of the one row, no copies
    assert full["tco.month"].shape == (3, book.periods) and full["tco.month"].strides[0] == 0
    assert np.array_equal(full["tco.month"][2], compact["tco.month"][0])


def test_evaluate_refuses_inputs_of_different_lengths(books: dict[str, Book]) -> None:
    book = books["example.yaml"]
    with pytest.raises(ValueError):
        book.evaluate({"power.gpu_tdp": np.ones(3), "power.pue": np.ones(4)})


# ---------------------------------------------------------------- many sites, a chunk at a time


@pytest.mark.slow
@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_chunks_give_the_batch_values(books: dict[str, Book], chunk: int) -> None:
    book = books["example.yaml"]
    n = 129 if chunk > 1 else 5  # 129 = whole chunks and a last one of a single site
    overrides = _random_overrides(book, n, seed=chunk)
    lines = ["power.it_load", "tco.month", "tco.npv_own", "tco.irr_buy", "tco.payback_month", "tco.own_cumulative"]
    whole = book.evaluate(overrides, lines=lines)
    many = evaluation.evaluate_many(book, overrides, lines, chunk=chunk)
    assert list(many) == list(whole)
    assert_same_bits(many, whole)
    compact = evaluation.evaluate_many(book, overrides, lines, chunk=chunk, compact=True)
    assert compact["tco.month"].shape == (1, book.periods)  # the same for every site: stored once
    assert compact["tco.npv_own"].shape == (n, 1)


# ---------------------------------------------------------------- the row functions: spreadsheet.py's bits

special = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, 0.2, -0.3, 1e16, -1e16, 2.0**53, 1e-300, 1e308, -1e308,
                           math.inf, -math.inf, math.nan])
cells = st.one_of(st.floats(-1e12, 1e12), special, st.integers(-1000, 1000).map(float))
rows = st.integers(1, 40).flatmap(lambda n: st.lists(st.lists(cells, min_size=n, max_size=n), min_size=1,
                                                     max_size=4))


@pytest.mark.slow
@SETTINGS
@given(rows)
def test_row_sum_is_spreadsheets(values: list[list[float]]) -> None:
    row = np.array(values)
    twice = np.concatenate([row, row[::-1]])  # cases that share a row: each distinct row is summed once
    with np.errstate(all="ignore"):
        assert np.array_equal(kernels.row_sum(row), ss.row_sum(row), equal_nan=True)
        assert np.array_equal(kernels.row_sum(twice), ss.row_sum(twice), equal_nan=True)


@SETTINGS
@given(rows, st.sampled_from([0.0, 1.0, 2.0, 3.5, -1.0, 2.0**52]), st.integers(0, 2**31))
def test_row_sumif_is_spreadsheets(values: list[list[float]], key: float, seed: int) -> None:
    row = np.array(values)
    rng = np.random.default_rng(seed)
    keys = rng.choice([0.0, 1.0, 2.0, 3.5, 2.0**52, 3.0, np.nan, 1.0 + 2**-50], row.shape[1])[None, :]
    with np.errstate(all="ignore"):
        assert np.array_equal(kernels.row_sumif(keys, key, row), ss.row_sumif(keys, key, row), equal_nan=True)


@SETTINGS
@given(st.integers(1, 40), st.integers(1, 45), st.sampled_from([0.0, 1.0, 3.0, 12.0, -2.0, 0.5, 1e300]),
       st.sampled_from(["months", "shuffled", "repeated", "halves"]), st.integers(0, 2**31))
def test_a_lagged_sum_is_each_columns_sumif(n: int, batch: int, lag: float, keys_are: str, seed: int) -> None:
    """row_lagged (SUMIF(keys, key - lag, row) in each column) is spreadsheet.row_sumif column by column: on a
    timeline's distinct month numbers (its one-term path), shuffled, repeated or not whole (the general path);
    values with zeros of both signs, infinities and NaN; batches on both sides of kernels.SMALL."""
    rng = np.random.default_rng(seed)
    months = np.arange(1.0, n + 1)
    keys = {"months": months, "shuffled": rng.permutation(months) * 2, "repeated": np.floor(months / 2),
            "halves": months / 2}[keys_are][None, :]
    pool = np.array([0.0, -0.0, 1.0, -2.5, 1e16, -1e16, 1e-300, 1e308, math.inf, -math.inf, math.nan, 0.1, 0.2])
    row = np.where(rng.random((batch, n)) < 0.5, rng.choice(pool, (batch, n)), rng.uniform(-1e9, 1e9, (batch, n)))
    targets = keys - lag
    with np.errstate(all="ignore"):
        got = kernels.row_lagged(keys, targets, row)
        expected = np.concatenate([ss.row_sumif(keys, float(targets[0, t]), row) for t in range(n)], axis=1)
    assert np.array_equal(got, expected, equal_nan=True)


@SETTINGS
@given(st.integers(1, 40), st.integers(1, 45), st.integers(1, 6),
       st.sampled_from(["years", "fiscal", "shuffled", "halves", "few"]), st.integers(0, 2**31))
def test_a_rollup_is_each_years_sumif(n: int, batch: int, spare: int, keys_are: str, seed: int) -> None:
    """row_sumifs (a roll-up: SUMIF(keys, header, row) for every header at once) is spreadsheet.row_sumif header by
    header: on years of 12 months, fiscal years that start mid-year, shuffled keys, keys that are not whole, keys
    per case; headers that match nothing, that repeat, NaN; values with zeros of both signs, infinities and NaN;
    batches on both sides of kernels.SMALL."""
    rng = np.random.default_rng(seed)
    months = np.arange(0.0, n)
    keys = {"years": np.ceil(months / 12), "fiscal": 2026 + np.floor((months + 5) / 12),
            "shuffled": rng.permutation(np.ceil(months / 3)), "halves": np.ceil(months / 4) / 2,
            "few": rng.choice([1.0, 2.0, np.nan], n)}[keys_are]
    keys = keys[None, :] if rng.random() < 0.7 else keys[None, :] + rng.integers(0, 2, (batch, 1))
    headers = np.concatenate([np.unique(keys[np.isfinite(keys)]), rng.choice([-1.0, 1e9, np.nan, 1.0], spare)])
    pool = np.array([0.0, -0.0, 1.0, -2.5, 1e16, -1e16, 1e-300, 1e308, math.inf, -math.inf, math.nan, 0.1, 0.2])
    row = np.where(rng.random((batch, n)) < 0.5, rng.choice(pool, (batch, n)), rng.uniform(-1e9, 1e9, (batch, n)))
    row = shared_rows(rng, row)
    with np.errstate(all="ignore"):
        got = kernels.row_sumifs(keys, headers, row)
        expected = np.concatenate([ss.row_sumif(keys, float(h), row) for h in headers], axis=1)
    assert got.shape == (batch, headers.size)
    assert np.array_equal(got, expected, equal_nan=True)


def _npv_in_order(rate: float, values: list[float]) -> float:
    """kernels.npv's arithmetic for one case and rate: the discount multiplied in period by period, each value
    divided by it and added in order, in float64 scalars (0 / 0 is NaN, not an exception)."""
    growth, factor, total = np.float64(1.0) + np.float64(rate), np.float64(1.0), np.float64(0.0)
    for v in values:
        factor = factor * growth
        total = total + np.float64(v) / factor
    return float(total)


@SETTINGS
@given(st.integers(1, 30), st.integers(1, 12), st.integers(1, 20), st.booleans(), st.integers(1, 200),
       st.integers(0, 2**31))
def test_npv_is_its_terms_added_in_order(n: int, columns: int, batch: int, shared_rate: bool, block: int,
                                         seed: int) -> None:
    """kernels.npv (cases a block at a time; a period with no value in any case left out) is its arithmetic term by
    term: on rows with periods empty in every case (zeros of either sign), values with infinities and NaN, rates of
    -100% and below (a factor of 0 or below, where 0 / factor is NaN or -0.0), NaN and huge rates, one rate row
    shared by the cases or one per case, and blocks of any size."""
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0, 1.0, -2.5, 1e16, 1e308, math.inf, -math.inf, math.nan, 0.1])
    row = np.where(rng.random((batch, n)) < 0.3, rng.choice(pool, (batch, n)), rng.uniform(-1e9, 1e9, (batch, n)))
    empty = rng.random(n) < 0.4
    row[:, empty] = rng.choice([0.0, -0.0], (batch, int(empty.sum())))
    shape = (1 if shared_rate else batch, columns)
    rate = np.where(rng.random(shape) < 0.2, rng.choice([-1.0, -1.5, -0.5, 0.0, 1e300, math.nan], shape),
                    rng.uniform(-0.1, 0.2, shape))
    saved, kernels.NPV_BLOCK = kernels.NPV_BLOCK, block
    try:
        with np.errstate(all="ignore"):
            got = kernels.npv(rate, row)
            want = np.array([[_npv_in_order(rate[b % rate.shape[0], j], row[b].tolist()) for j in range(columns)]
                             for b in range(batch)])
    finally:
        kernels.NPV_BLOCK = saved
    assert np.array_equal(np.isnan(got), np.isnan(want))
    number = ~np.isnan(want)  # the same bits (zeros of either sign apart), NaN where NaN
    assert np.array_equal(got[number].view(np.uint64), want[number].view(np.uint64))


@st.composite
def cash_flows(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(2, 120))
    batch = draw(st.integers(1, 45))  # both sides of kernels.SMALL
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    capex = rng.uniform(1e3, 1e9, (batch, 1))
    flows = rng.uniform(-0.2, 1.0, (batch, n)) * capex / n * rng.uniform(0.5, 4, (batch, 1))
    flows[:, :1] = -capex
    wild = rng.random(batch) < 0.3
    flows[wild] = rng.uniform(-1e6, 1e6, (int(wild.sum()), n))
    return shared_rows(rng, flows)


def shared_rows(rng: np.random.Generator, rows: np.ndarray) -> np.ndarray:
    """Half the time, the batch's rows drawn again from its own rows: cases that share a row (as the scenarios that
    do not change a line do), which the kernels compute once per distinct row."""
    return rows[rng.integers(0, rows.shape[0], rows.shape[0])] if rng.random() < 0.5 else rows


@pytest.mark.slow
@SETTINGS
@given(cash_flows(), st.sampled_from([0.0, -1.0, 0.01, -0.02, 0.05]))
def test_irr_is_spreadsheets(flows: np.ndarray, guess: float) -> None:
    assert np.array_equal(kernels.irr(flows, guess), ss.irr(flows, guess), equal_nan=True)
    guesses = np.linspace(-0.02, 0.05, flows.shape[0])[:, None]
    assert np.array_equal(kernels.irr(flows, guesses), ss.irr(flows, guesses), equal_nan=True)


def test_irr_steps_only_the_rows_not_yet_converged(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = []
    real = kernels.kahan_rows
    monkeypatch.setattr(kernels, "kahan_rows", lambda terms: sizes.append(terms.shape[0]) or real(terms))
    flows = np.array([[-100.0] + [10.0] * 20, [-100.0] + [0.0] * 19 + [500.0]])
    guess = np.array([[float(ss.irr(flows[:1], 0.05)[0, 0])], [0.0]])  # the first starts at its answer
    got = kernels.irr(flows, guess)
    assert np.array_equal(got, ss.irr(flows, guess))
    assert sizes[:2] == [2, 2] and 1 in sizes  # after the first step, only the second row


pairs = st.tuples(st.one_of(st.floats(), special), st.one_of(st.floats(), special))


@SETTINGS
@given(pairs)
def test_scalar_arithmetic_is_spreadsheets(ab: tuple[float, float]) -> None:
    a, b = ab
    A, B = np.array([[a]]), np.array([[b]])

    def same(x: Any, y: Any) -> bool:  # NaN as NaN, and a zero with its sign (0 - 0 and -0 + -0 differ)
        return ((isinstance(x, float) and math.isnan(x) and math.isnan(float(y)))
                or (x == float(y) and math.copysign(1, x) == math.copysign(1, float(y))))

    with np.errstate(all="ignore"):
        assert kernels.approx_equal_s(a, b) == bool(ss.approx_equal(A, B)[0, 0])
        assert same(kernels.approx_add_s(a, b), ss.approx_add(A, B)[0, 0])
        assert same(kernels.approx_sub_s(a, b), ss.approx_sub(A, B)[0, 0])
        for op in ("=", "<>", "<", "<=", ">", ">="):
            assert kernels.compare_s(op, a, b) == bool(ss.compare(op, A, B)[0, 0]), op
        for x, y in ((A, B), (A, np.float64(b)), (np.array(a), B)):  # the array forms take the same path
            for got, want in ((kernels.approx_add(x, y), ss.approx_add(x, y)),
                              (kernels.approx_sub(x, y), ss.approx_sub(x, y)),
                              (kernels.compare("<=", x, y), ss.compare("<=", x, y))):
                assert got.shape == want.shape and got.dtype == want.dtype
                assert same(got.item(), want.item())
        assert same(kernels.divide_s(a, b), np.divide(A, B)[0, 0])
        mx = np.maximum.reduce(np.broadcast_arrays(A, B))[0, 0]
        mn = np.minimum.reduce(np.broadcast_arrays(A, B))[0, 0]
        for got, want in ((kernels.maximum_s(a, b), mx), (kernels.minimum_s(a, b), mn)):
            assert same(got, want)
            assert math.isnan(want) or math.copysign(1, got) == math.copysign(1, want)  # 0 and -0 as numpy




@pytest.mark.slow
def test_a_scenario_copy_that_still_reads_the_base_line_is_evaluated_as_written() -> None:
    """The batched scenarios may stand in for a copy only when it is its base formula re-pointed: a copy left
    reading the base case's line (a book derived with it) is evaluated as written (what LibreOffice computes); a
    line in a book cannot change, so the plan cached for a book stays true."""

    book = example_model().book
    copy = book.scenarios["low_utilisation"]["tco.energy_cost"]
    base = book.lines["tco.energy_cost"]
    batched = book.evaluate()[copy.id].item()
    changed = book.replaced(dataclasses.replace(copy, formula=base.formula))  # not re-pointed: the base case's
    assert changed.evaluate()[copy.id].item() == pytest.approx(book.evaluate()[base.id].item())
    assert changed.evaluate()[copy.id].item() != pytest.approx(batched)
    assert book.evaluate()[copy.id].item() == batched  # the book it was derived from is unchanged
    with pytest.raises(FormulaError):  # a line in a book never changes: the plan cached for it stays true
        copy.formula = base.formula
