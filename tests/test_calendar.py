"""The dated timeline: month columns headed by their month-end dates, yearly columns by fiscal year, the P&L summed
by fiscal year, a total after the last period of every flow row; hand-worked, and live in LibreOffice (an edited
start date moves every header and every roll-up)."""

from __future__ import annotations

import datetime
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import hand, site_file, v
from workbook.api import build, load
from workbook.build import define_models, load_all
from workbook.excel.layout import COUNTER_ROW, FIRST_PERIOD, HEADER_ROW, TOTAL, Layout, has_total
from workbook.formula import kernels
from workbook.formula.expr import FormulaError
from workbook.formula.functions import rollup
from workbook.libreoffice.sheet_reader import as_number, load_values
from workbook.libreoffice.verify import compare, recalculate
from workbook.site.errors import InputError
from workbook.site.values import serial


def day(text: str) -> float:
    return serial(datetime.date.fromisoformat(text))


def test_month_one_ends_at_the_end_of_the_order_month(tmp_path: Path) -> None:
    """Ordered on 15 January 2027: the Start column is that day; month 1 ends 31 January 2027, month 2 on 28
    February, month 12 on 31 December 2027, month 13 on 31 January 2028."""
    m = hand(tmp_path, start_date="2027-01-15")
    ends = v(m, "tco.month_end")
    assert ends[[0, 1, 2, 12, 13]].tolist() == [day(d) for d in ("2027-01-15", "2027-01-31", "2027-02-28",
                                                                 "2027-12-31", "2028-01-31")]
    assert ends.size == 37  # the start and 36 months


def test_a_fiscal_year_ending_in_june_runs_july_to_june(tmp_path: Path) -> None:
    """Year ending June: FY2027 covers July 2026 to June 2027, so from a January 2027 start months 1-6 (January to
    June 2027) are FY2027, months 7-18 FY2028, months 19-30 FY2029, months 31-36 FY2030. The yearly columns: the
    start (key 0), then FY2027 onwards, one for each fiscal year 36 months can touch (ceil(47 / 12) = 4)."""
    m = hand(tmp_path, start_date="2027-01-15", fiscal_year_end=6)
    fy = v(m, "tco.fiscal_year")
    assert fy[0] == 0
    assert fy[1:].tolist() == [2027] * 6 + [2028] * 12 + [2029] * 12 + [2030] * 6
    assert m.book.years == 5
    # depreciation 240,000 / 24 = 10,000 a month for months 1-24: 6, 12 and 6 months of it
    assert v(m, "tco.pl_depreciation").tolist() == pytest.approx([0, 60_000, 120_000, 60_000, 0])
    assert v(m, "tco.cash_own").tolist() == pytest.approx([240_000, 0, 0, 0, 0])
    assert v(m, "tco.pl_ties_to_cash")


@pytest.mark.slow
def test_a_calendar_year_from_a_july_start_takes_a_partial_first_year(tmp_path: Path) -> None:
    """Ordered 1 July 2027, year ending December: months 1-6 are July to December 2027 (FY2027), 7-18 FY2028,
    19-30 FY2029, 31-36 FY2030; depreciation 60,000, 120,000, 60,000, 0."""
    m = hand(tmp_path, start_date="2027-07-01")
    assert v(m, "tco.month_end")[1] == day("2027-07-31")
    assert v(m, "tco.pl_depreciation").tolist() == pytest.approx([0, 60_000, 120_000, 60_000, 0])


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.dates(datetime.date(2000, 1, 1), datetime.date(2100, 12, 31)), year_end=st.integers(1, 12))
def test_every_month_is_in_one_fiscal_year_column(tmp_path: Path, start: datetime.date, year_end: int) -> None:
    """Whatever the start date and year end: the yearly columns hold every month of the timeline once (their sum
    is the monthly row's), the fiscal years run on from the first, and the P&L ties to the cash."""
    model = hand(tmp_path, start_date=start.isoformat(), fiscal_year_end=year_end)
    monthly, yearly = v(model, "tco.own_flow"), v(model, "tco.cash_own")
    assert yearly.sum() == pytest.approx(monthly.sum(), rel=1e-12, abs=1e-6)
    fy = v(model, "tco.fiscal_year")[1:]
    assert np.all(np.diff(fy) >= 0) and fy[-1] - fy[0] + 1 <= model.book.years - 1
    first = start.year + (start.month > year_end)  # named by the calendar year it ends in
    assert fy[0] == first
    assert v(model, "tco.pl_ties_to_cash")


def test_a_roll_up_by_another_row_is_refused_with_a_calendar(tmp_path: Path) -> None:
    """With a calendar the yearly columns are fiscal years: summing by the timeline's year row would match none.
    (A book being defined: a built one is frozen and refuses any line.)"""
    book, _ = define_models(load_all(site_file(tmp_path)))
    with pytest.raises(FormulaError, match=r"roll up by tco\.fiscal_year"):
        book.sheet("P&L", "x").calc("bad", "Bad", "USD", rollup(book.lines["tco.own_flow"], book.lines["tco.year"]))
    with pytest.raises(FormulaError, match="one calendar"):
        book.set_calendar(book.calendar)


def test_a_scenario_cannot_move_the_calendar(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"tco\.start_date.*one timeline"):
        load(site_file(tmp_path, scenarios={"later": {"tco.start_date": "2028-01-01"}}))


# ---------------------------------------------------------------- the workbook


@dataclass
class Built:
    path: Path
    model: Any
    layout: Layout
    formulas: Any
    cached: Any


@pytest.fixture(scope="module")
def june(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The example ordered on 15 January 2027, its fiscal year ending in June."""
    tmp = tmp_path_factory.mktemp("june")
    path = tmp / "june.xlsx"
    model, layout = build(site_file(tmp, "june", tco={"start_date": "2027-01-15", "fiscal_year_end": 6}), path)
    return Built(path, model, layout, openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True))


@pytest.mark.slow
def test_month_columns_are_headed_by_their_end_dates(june: Built) -> None:
    for title in ("Cash flows", "Scenarios"):
        if title not in june.formulas.sheetnames:
            continue
        ws, cached = june.formulas[title], june.cached[title]
        head = [ws.cell(HEADER_ROW + 1, FIRST_PERIOD + 1 + t) for t in range(3)]
        assert [as_number(cached.cell(HEADER_ROW + 1, FIRST_PERIOD + 1 + t).value) for t in range(3)] == \
            [day("2027-01-15"), day("2027-01-31"), day("2027-02-28")]
        assert [c.number_format for c in head] == ["d mmm yyyy", "mmm yyyy", "mmm yyyy"]  # 15 Jan 2027, Jan 2027
        assert all(re.fullmatch(r"=('Cash flows'!)?[G-I]\d+", c.value) for c in head), [c.value for c in head]
        assert [ws.cell(COUNTER_ROW + 1, FIRST_PERIOD + 1 + t).value for t in range(3)] == [0, 1, 2]


def test_year_columns_are_headed_by_fiscal_year_and_summed_by_it(june: Built) -> None:
    ws, cached = june.formulas["P&L"], june.cached["P&L"]
    heads = [cached.cell(HEADER_ROW + 1, FIRST_PERIOD + 1 + k).value for k in range(june.model.book.years)]
    assert heads == [0, 2027, 2028, 2029, 2030, 2031, 2032, 2033, 2034, 2035]  # 96 months from January 2027
    assert ws.cell(HEADER_ROW + 1, FIRST_PERIOD + 2).number_format == '"FY"0;;"Start"'  # FY2027; Start for 0
    assert ws.cell(HEADER_ROW + 1, FIRST_PERIOD + 2).value == \
        "=IF(H$3=0,0,YEAR(EOMONTH(tco_start_date,12-tco_fiscal_year_end))+H$3-1)"
    _, row, _ = june.layout.cells["tco.pl_energy"]
    assert ws.cell(row + 1, FIRST_PERIOD + 2).value == "=SUMIF(tco_fiscal_year,H$4,tco_energy_flow)"
    # FY2027 is January to June 2027: the first six months of energy
    energy = june.model.values["tco.energy_flow"][0]
    assert june.model.values["tco.pl_energy"][0, 1] == pytest.approx(energy[1:7].sum(), rel=1e-12)


def test_every_flow_row_has_a_total_and_no_other_row_does(june: Built) -> None:
    """The total after the last period: =SUM of the row (the Start column included) on every flow row of the
    monthly and yearly sheets; none on a balance, a running total, an index, a flag, a ratio, a date, a counter or
    a TRUE/FALSE row."""
    totals = 0
    for line in june.model.book.lines.values():
        if not line.series:
            continue
        sheet, row, _ = june.layout.cells[line.id]
        col = june.layout.total_column(line.axis)
        assert june.formulas[sheet].cell(HEADER_ROW + 1, col + 1).value == TOTAL
        f = june.formulas[sheet].cell(row + 1, col + 1).value
        if not has_total(line):
            assert f is None, line.id
            continue
        assert f == f"=SUM({line.name})", line.id
        want = float(kernels.row_sum(june.model.values[line.id][:1])[0, 0])
        assert june.cached[sheet].cell(row + 1, col + 1).value == pytest.approx(want, rel=1e-15, abs=1e-300)
        totals += 1
    lines = june.model.book.lines
    for key in ("tco.own_flow", "tco.rent_flow", "tco.period_length", "tco.pl_energy", "tco.cash_own"):
        assert has_total(lines[key]), key
    for key in ("tco.month", "tco.month_end", "tco.fiscal_year", "tco.year", "tco.in_service", "tco.discount_factor",
                "tco.rent_index", "tco.own_cumulative", "tco.pl_ties", "tco.asset_change_flow",
                "tco.deferred_tax_change_flow", "tco.tax_payable_change_flow", "tco.pl_asset_change"):
        assert not has_total(lines[key]), key
    # a change in a balance nets to 0 over the life: what a total would show is the rounding of a sum of
    # tens of millions (no two spreadsheets round it alike: random sites showed 3e-8 in Python, 0 in LibreOffice)
    assets = june.model.values["tco.asset_change_flow"][0]
    assert abs(assets.sum()) < 1e-12 * np.abs(assets).sum() * len(assets)
    assert totals > 40
    assert june.model.values["tco.period_length"][0].sum() == 96  # hand-worked: the timeline's 96 months


def test_charts_and_names_read_only_the_periods(june: Built) -> None:
    """A row's defined name, and every chart's ranges, stop at the last period: the total is outside them."""
    last = FIRST_PERIOD + june.model.book.periods - 1  # zero-based: the last month's column
    letter = openpyxl.utils.get_column_letter(last + 1)
    row = june.layout.cells["tco.own_flow"][1] + 1
    assert june.formulas.defined_names["tco_own_flow"].attr_text.endswith(f":${letter}${row}")
    with zipfile.ZipFile(june.path) as z:
        refs = [r for n in z.namelist() if n.startswith("xl/charts/chart")
                for r in re.findall(r"<c:f>'?Cash flows'?!\$[A-Z]+\$\d+:\$([A-Z]+)\$\d+</c:f>", z.read(n).decode())]
    assert refs and all(openpyxl.utils.column_index_from_string(r) - 1 <= last for r in refs)


def test_the_dated_workbook_is_live_in_libreoffice(libreoffice: str, june: Built, tmp_path: Path) -> None:
    """As built, every formula cell (headers and totals included) equals LibreOffice's value. With the start date
    moved to 10 August 2027 in the workbook, LibreOffice heads month 1 "Aug 2027" and the first year FY2028 (the
    year ending June 2028), and the P&L still holds every month: the fiscal years' energy adds up to the months'."""
    wb = openpyxl.load_workbook(june.path)
    sheet, row, col = june.layout.cells["tco.start_date"]
    wb[sheet].cell(row + 1, col + 1).value = day("2027-08-10")
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    recalced = recalculate([june.path, edited], tmp_path / "lo")
    assert compare(june.path, recalced[june.path.resolve()]).problems == []
    lo = load_values(recalced[edited.resolve()])
    first_month = as_number(lo["Cash flows"].cell(HEADER_ROW + 1, FIRST_PERIOD + 2).value)
    assert first_month == day("2027-08-31")
    assert lo["P&L"].cell(HEADER_ROW + 1, FIRST_PERIOD + 2).value == 2028
    _, prow, _ = june.layout.cells["tco.pl_energy"]
    _, mrow, _ = june.layout.cells["tco.energy_flow"]
    years = [lo["P&L"].cell(prow + 1, FIRST_PERIOD + 1 + k).value for k in range(june.model.book.years)]
    months = [lo["Cash flows"].cell(mrow + 1, FIRST_PERIOD + 1 + t).value for t in range(june.model.book.periods)]
    assert sum(years) == pytest.approx(sum(months), rel=1e-12)
    _, trow, tcol = june.layout.cells["tco.pl_ties_to_cash"]
    assert lo["Checks"].cell(trow + 1, tcol + 1).value in (True, 1)
