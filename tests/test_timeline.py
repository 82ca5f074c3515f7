"""The timeline in the formula core: series lines, prev(), flags, SUM/NPV/PMT/IRR, against LibreOffice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook.excel.layout import FIRST_PERIOD, OPENING, plan
from workbook.excel.writer import write_book
from workbook.formula.expr import FormulaError
from workbook.formula.functions import flag, irr, max_, npv, pmt, prev, total, where
from workbook.formula.line import COUNT, Book
from workbook.inputs import Site
from workbook.verify import verify_files

PERIODS = 24


def make_book(capex: float = 1000.0, flow: float = 60.0, rate: float = 0.01, life: float = 18) -> Book:
    book = Book("timeline test")
    book.timeline([f"M{t}" for t in range(1, PERIODS + 1)])
    i = book.sheet("Inputs", "t")
    capex_in = i.input("capex", "Capex", "USD", capex)
    flow_in = i.input("flow", "Monthly saving", "USD", flow)
    rate_in = i.input("rate", "Monthly rate", "%", rate)
    life_in = i.input("life", "Life", "count", life)
    s = book.sheet("Timeline", "t")
    month = s.calc("month", "Month", "count", lambda me: prev(me) + 1, opening=0, fmt=COUNT)
    live = s.calc("in_service", "In service", "flag", flag(month <= life_in), fmt=COUNT)
    first = s.calc("first", "First month", "flag", flag(month.eq(1)), fmt=COUNT)
    cash = s.calc("cash", "Cash flow", "USD", live * flow_in - first * capex_in)
    cum = s.calc("cum", "Cumulative cash", "USD", lambda me: prev(me) + cash, opening=0)
    s.calc("paid_back", "Paid back (running max of the flag)", "flag",
           lambda me: max_(prev(me), flag(cum >= 0)), opening=0, fmt=COUNT)
    s.calc("loan", "Loan payment", "USD", where(month <= life_in, -pmt(rate_in, life_in, capex_in), 0))
    s.calc("total_cash", "Total cash", "USD", total(cash))
    s.calc("npv", "NPV", "USD", npv(rate_in, cash))
    s.calc("irr", "IRR (monthly)", "%", irr(cash, rate_in, "no IRR"))
    s.calc("irr_annual", "IRR (annual)", "%", irr(cash, rate_in, "no IRR", per_year=12))
    return book


def site(tmp: Path) -> Site:
    return Site(tmp / "t.yaml", "timeline test", "", {}, "0" * 64)


def test_series_evaluate_like_numpy_financial() -> None:
    book = make_book()
    v = book.evaluate()
    month = np.arange(1, PERIODS + 1)
    cash = np.where(month <= 18, 60.0, 0.0) - np.where(month == 1, 1000.0, 0.0)
    assert np.allclose(v["t.month"], month)
    assert np.allclose(v["t.cum"], np.cumsum(cash))
    assert v["t.total_cash"][0, 0] == pytest.approx(cash.sum())
    assert v["t.npv"][0, 0] == pytest.approx(npf.npv(0.01, np.r_[0.0, cash]))
    assert v["t.irr"][0, 0] == pytest.approx(npf.irr(cash), rel=1e-9)
    assert v["t.irr_annual"][0, 0] == pytest.approx((1 + npf.irr(cash)) ** 12 - 1, rel=1e-9)
    assert v["t.loan"][0, 0] == pytest.approx(-npf.pmt(0.01, 18, 1000.0))
    assert np.array_equal(v["t.paid_back"][0], np.maximum.accumulate(np.cumsum(cash) >= 0).astype(float))


def test_batch_of_series_equals_single_runs() -> None:
    flows = np.array([0.0, 60.0, 200.0])
    batch = make_book().evaluate({"t.flow": flows})
    for k, f in enumerate(flows):
        single = make_book(flow=f).evaluate()
        for key in ("t.cum", "t.npv", "t.paid_back"):
            assert np.allclose(batch[key][k], single[key][0], equal_nan=True)
    assert np.isnan(batch["t.irr"][0, 0])  # no inflow at all: no IRR, the guard's message in the cell
    assert not np.isnan(batch["t.irr"][1:, 0]).any()


def test_rendering_same_formula_in_every_period(tmp_path: Path) -> None:
    book = make_book()
    layout = plan(book)
    write_book(book, book.evaluate(), site(tmp_path), tmp_path / "t.xlsx")
    import openpyxl

    ws = openpyxl.load_workbook(tmp_path / "t.xlsx")["Timeline"]
    _, row, col = layout.cells["t.cum"]
    assert col == FIRST_PERIOD
    first = ws.cell(row + 1, FIRST_PERIOD + 1).value
    second = ws.cell(row + 1, FIRST_PERIOD + 2).value
    assert ws.cell(row + 1, OPENING + 1).value == "=0"
    # the same formula, shifted one column: prev() reads the opening column in period 1
    assert first == "=F{r}+G{c}".format(r=row + 1, c=layout.cells["t.cash"][1] + 1)
    assert second == "=G{r}+H{c}".format(r=row + 1, c=layout.cells["t.cash"][1] + 1)
    _, nrow, ncol = layout.cells["t.npv"]
    assert ws.cell(nrow + 1, ncol + 1).value == "=NPV(t_rate,t_cash)"


def test_timeline_matches_libreoffice(libreoffice: str, tmp_path: Path) -> None:
    paths = []
    for k, (capex, flow, rate, life) in enumerate(
        [(1000, 60, 0.01, 18), (1000, 10, 0.0, 24), (5000, 400, 0.02, 12), (1, 0, 0.5, 1)]
    ):
        book = make_book(capex, flow, rate, life)
        path = tmp_path / f"t{k}.xlsx"
        write_book(book, book.evaluate(), site(tmp_path), path)
        paths.append(path)
    reports = verify_files(paths)
    assert [r.problems for r in reports] == [[]] * len(paths)
    assert sum(r.compared for r in reports) > 4 * 7 * PERIODS


def test_prev_needs_an_opening() -> None:
    book = Book("x")
    book.timeline(["a", "b"])
    s = book.sheet("S", "s")
    with pytest.raises(FormulaError, match="opening"):
        s.calc("c", "C", "USD", lambda me: prev(me) + 1)


@settings(max_examples=50, deadline=None)
@given(flows=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=PERIODS, max_size=PERIODS),
       rate=st.floats(0, 0.2))
def test_npv_is_excel_npv(flows: list[float], rate: float) -> None:
    """Excel's NPV discounts the first value by one period: numpy-financial's npv of [0, flows...]."""
    from workbook.formula.functions import _npv

    got = _npv(np.array([[rate]]), np.array([flows]))[0, 0]
    assert got == pytest.approx(npf.npv(rate, [0.0, *flows]), rel=1e-9, abs=1e-6)
