"""The timeline in the formula core: time 0 and monthly columns, prev() and openings, flags, SUM, PMT, IRR, the
yearly roll-up (SUMIF), row checks; against numpy-financial and against LibreOffice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy_financial as npf
import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook.book.book import Book
from workbook.excel.layout import FIRST_PERIOD, HEADER_ROW, TOTAL, TOTAL_COLUMN, plan
from workbook.excel.writer import write_book
from workbook.formula.expr import FormulaError
from workbook.formula.functions import all_over, ceil, flag, irr, max_, pmt, prev, rollup, total, where
from workbook.formula.line import COUNT
from workbook.libreoffice.verify import verify_files
from workbook.site.spec import Site

MONTHS = 30  # 31 columns: the start (time 0) and 30 months


def make_book(capex: float = 1000.0, flow: float = 60.0, rate: float = 0.01, life: float = 18) -> Book:
    """Capex paid at time 0, a saving each month in service, its cumulative, payback, yearly sums."""
    book = Book("timeline test")
    book.timeline(MONTHS)
    i = book.sheet("Inputs", "t")
    capex_in = i.input("capex", "Capex", "USD", capex)
    flow_in = i.input("flow", "Monthly saving", "USD", flow)
    rate_in = i.input("rate", "Monthly rate", "%", rate)
    life_in = i.input("life", "Life", "count", life)
    s = book.sheet("Timeline", "t")
    month = s.calc("month", "Month", "count", lambda me: prev(me) + 1, opening=0, fmt=COUNT)
    year = s.calc("year", "Year", "count", ceil(month / 12), fmt=COUNT)
    live = s.calc("in_service", "In service", "flag", flag(month > 0) * flag(month <= life_in), fmt=COUNT)
    start = s.calc("start", "Start", "flag", flag(month.eq(0)), fmt=COUNT)
    cash = s.calc("cash", "Cash flow", "USD", live * flow_in - start * capex_in)
    cum = s.calc("cum", "Cumulative cash", "USD", lambda me: prev(me) + cash, opening=cash)
    s.calc("paid_back", "Paid back (running max of the flag)", "flag",
           lambda me: max_(prev(me), flag(cum >= 0)), opening=0, fmt=COUNT)
    s.calc("loan", "Loan payment", "USD", where(month <= life_in, -pmt(rate_in, life_in, capex_in), 0))
    df = s.calc("df", "Discount factor", "ratio", 1 / (1 + rate_in) ** month)
    pv = s.calc("pv", "Cash, discounted", "USD", cash * df)
    s.calc("total_cash", "Total cash", "USD", total(cash))
    s.calc("npv", "NPV (from time 0)", "USD", total(pv))
    s.calc("irr", "IRR (monthly)", "%", irr(cash, rate_in, "no IRR"))
    s.calc("irr_annual", "IRR (annual)", "%", irr(cash, rate_in, "no IRR", per_year=12))
    positive = s.calc("positive", "Cumulative cash not below -capex", "TRUE/FALSE", cum >= -capex_in, fmt="BOOLEAN")
    s.check("always", "Cumulative cash never below -capex", all_over(positive))
    y = book.sheet("Years", "t")
    y.calc("cash_by_year", "Cash by year", "USD", rollup(cash, year))
    return book


def site(tmp: Path) -> Site:
    return Site(tmp / "t.yaml", "timeline test", "", {}, "0" * 64)


def _cash(capex: float, flow: float, life: float) -> np.ndarray:
    month = np.arange(MONTHS + 1)
    return np.where((month > 0) & (month <= life), flow, 0.0) - np.where(month == 0, capex, 0.0)


def test_series_evaluate_like_numpy_financial() -> None:
    v = make_book().evaluate()
    cash = _cash(1000.0, 60.0, 18)
    assert v["t.month"][0].tolist() == list(range(MONTHS + 1))
    assert np.allclose(v["t.cum"][0], np.cumsum(cash))
    assert v["t.total_cash"][0, 0] == pytest.approx(cash.sum())
    # numpy-financial's npv treats its first value as time 0, as our SUM of discounted cash does
    assert v["t.npv"][0, 0] == pytest.approx(npf.npv(0.01, cash), rel=1e-12)
    assert v["t.irr"][0, 0] == pytest.approx(npf.irr(cash), rel=1e-9)
    assert v["t.irr_annual"][0, 0] == pytest.approx((1 + npf.irr(cash)) ** 12 - 1, rel=1e-9)
    assert v["t.loan"][0, 0] == pytest.approx(-npf.pmt(0.01, 18, 1000.0))
    assert np.array_equal(v["t.paid_back"][0], np.maximum.accumulate(np.cumsum(cash) >= 0).astype(float))
    # by year: the start (time 0) alone, then months 1-12, 13-24, 25-30
    assert v["t.cash_by_year"][0].tolist() == pytest.approx([-1000.0, 720.0, 360.0, 0.0])
    assert v["t.always"][0, 0]


def test_batch_of_series_equals_single_runs() -> None:
    flows = np.array([0.0, 60.0, 200.0])
    batch = make_book().evaluate({"t.flow": flows})
    for k, f in enumerate(flows):
        single = make_book(flow=f).evaluate()
        for key in ("t.cum", "t.npv", "t.paid_back", "t.cash_by_year"):
            assert np.array_equal(batch[key][k], single[key][0], equal_nan=True), key
    assert np.isnan(batch["t.irr"][0, 0])  # no inflow at all: no IRR, the guard's message in the cell
    assert not np.isnan(batch["t.irr"][1:, 0]).any()


def test_rendering_same_formula_in_every_period_and_the_opening(tmp_path: Path) -> None:
    book = make_book()
    layout = plan(book)
    write_book(book, book.evaluate(), site(tmp_path), tmp_path / "t.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "t.xlsx")
    ws = wb["Timeline"]
    _, row, col = layout.cells["t.cum"]
    cash_row = layout.cells["t.cash"][1] + 1
    assert col == FIRST_PERIOD
    # column G is time 0 (F holds the row's total): the opening (here the time-0 cash); then the same formula
    # shifted one column at a time
    assert ws.cell(row + 1, FIRST_PERIOD + 1).value == f"=G{cash_row}"
    assert ws.cell(row + 1, FIRST_PERIOD + 2).value == f"=G{row + 1}+H{cash_row}"
    assert ws.cell(row + 1, FIRST_PERIOD + 3).value == f"=H{row + 1}+I{cash_row}"
    # a line without an opening has the same formula in column G too
    _, crow, _ = layout.cells["t.cash"]
    assert ws.cell(crow + 1, FIRST_PERIOD + 1).value.replace("G", "H") == ws.cell(crow + 1, FIRST_PERIOD + 2).value
    _, nrow, ncol = layout.cells["t.npv"]
    assert ws.cell(nrow + 1, ncol + 1).value == "=SUM(t_pv)"
    # the yearly roll-up selects by the column's header (a number shown as Start, Y1, Y2...)
    years = wb["Years"]
    _, yrow, _ = layout.cells["t.cash_by_year"]
    assert years.cell(yrow + 1, FIRST_PERIOD + 2).value == "=SUMIF(t_year,H$4,t_cash)"
    assert [years.cell(4, FIRST_PERIOD + 1 + k).value for k in range(4)] == [0, 1, 2, 3]


def test_timeline_matches_libreoffice(libreoffice: str, tmp_path: Path) -> None:
    paths = []
    for k, (capex, flow, rate, life) in enumerate(
        [(1000, 60, 0.01, 18), (1000, 10, 0.0, 24), (5000, 400, 0.02, 12), (1, 0, 0.5, 1), (1e6, 9e4, 1e-9, 30)]
    ):
        book = make_book(capex, flow, rate, life)
        path = tmp_path / f"t{k}.xlsx"
        write_book(book, book.evaluate(), site(tmp_path), path)
        paths.append(path)
    reports = verify_files(paths)
    assert [r.problems for r in reports] == [[]] * len(paths)
    assert sum(r.compared for r in reports) > 5 * 8 * MONTHS


def test_prev_needs_an_opening() -> None:
    book = Book("x")
    book.timeline(2)
    s = book.sheet("S", "s")
    with pytest.raises(FormulaError, match="opening"):
        s.calc("c", "C", "USD", lambda me: prev(me) + 1)


def test_an_opening_cannot_read_a_previous_period() -> None:
    book = Book("x")
    book.timeline(3)
    s = book.sheet("S", "s")
    month = s.calc("m", "Month", "count", lambda me: prev(me) + 1, opening=0)
    with pytest.raises(FormulaError, match="opening"):
        s.calc("c", "C", "count", lambda me: prev(me) + 1, opening=prev(month))


def test_monthly_and_yearly_rows_do_not_mix() -> None:
    book = make_book()
    s = book.sheet("Mixed", "m")
    with pytest.raises(FormulaError, match="monthly and yearly"):
        s.calc("bad", "Bad", "USD", book.lines["t.cash"] + book.lines["t.cash_by_year"])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(flows=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=MONTHS + 1, max_size=MONTHS + 1))
def test_rollup_is_the_sum_of_each_years_months(flows: list[float]) -> None:
    book = Book("roll-up")
    book.timeline(MONTHS)
    i = book.sheet("Inputs", "t")
    ins = [i.input(f"f{k}", f"flow {k}", "USD", v) for k, v in enumerate(flows)]
    at = [i.input(f"m{k}", f"month {k}", "count", k) for k in range(len(flows))]  # literals are not allowed
    s = book.sheet("S", "s")
    month = s.calc("month", "Month", "count", lambda me: prev(me) + 1, opening=0)
    year = s.calc("year", "Year", "count", ceil(month / 12))
    flow = s.calc("flow", "Flow", "USD", sum((flag(month.eq(at[k])) * x for k, x in enumerate(ins[1:], 1)),
                                             ins[0] * 0), opening=ins[0])
    y = book.sheet("Y", "y")
    y.calc("by_year", "By year", "USD", rollup(flow, year))
    v = book.evaluate()
    months = np.arange(MONTHS + 1)
    years = np.ceil(months / 12)
    want = [np.array(flows)[years == k].sum() for k in range(book.years)]
    assert v["y.by_year"][0] == pytest.approx(want, rel=1e-12, abs=1e-6)


def test_a_check_over_a_row_holds_in_every_period_and_rolls_up_to_one_cell() -> None:
    """A series condition becomes a TRUE/FALSE row on the model's sheet and one AND on the Checks sheet."""
    book = Book("t")
    book.timeline(3)
    s = book.sheet("Workings", "m")
    limit = book.sheet("Inputs", "m").input("limit", "Limit", "kW", 2.5)
    step = book.sheet("Inputs", "m").input("step", "Step", "kW", 1.25)
    load = s.calc("load", "Load", "kW", lambda me: prev(me) + step, opening=0)  # 0, 1.25, 2.5, 3.75
    check = s.check("within", "Load within the limit", load <= limit)
    assert check.kind == "check" and not check.series and check.sheet == "Checks"
    row = book.lines["m.within_each_period"]
    assert row.series and row.is_bool and row.sheet == "Workings"
    values = book.evaluate()
    assert values["m.within_each_period"].tolist() == [[True, True, True, False]]
    assert not values["m.within"].item()
    assert book.evaluate({"m.limit": 4.0})["m.within"].item()


def test_a_book_without_a_calendar_keeps_numbered_columns(tmp_path: Path) -> None:
    """A book with a timeline but no calendar (a model's own test book): its headers are the period numbers."""
    book: Book = make_book()
    write_book(book, book.evaluate(), site(tmp_path), tmp_path / "t.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "t.xlsx")["Years"]
    assert [ws.cell(HEADER_ROW + 1, FIRST_PERIOD + 1 + k).value for k in range(4)] == [0, 1, 2, 3]
    assert ws.cell(HEADER_ROW + 1, TOTAL_COLUMN + 1).value == TOTAL  # the total before the periods
