"""EOMONTH and YEAR in the formula core: hand-worked dates, a property against Python's own calendar, and every case
of a grid (and of random draws) equal to LibreOffice's, exactly; rendered through a book, they verify too."""

from __future__ import annotations

import calendar
import datetime
import itertools
import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest
import xlsxwriter
from hypothesis import given, settings
from hypothesis import strategies as st

from workbook.book.book import Book
from workbook.excel.writer import write_book
from workbook.formula.dates import FIRST_DATE, LAST_DATE, eomonth, year
from workbook.formula.expr import FormulaError
from workbook.formula.functions import eomonth as eomonth_of
from workbook.formula.functions import year_of
from workbook.libreoffice.sheet_reader import as_number
from workbook.libreoffice.verify import recalculate, verify_files
from workbook.site.spec import Site
from workbook.site.values import serial


def day(text: str) -> float:
    return serial(datetime.date.fromisoformat(text))


@pytest.mark.parametrize(("start", "months", "end"), [
    ("2027-01-15", 0, "2027-01-31"),  # month 1 of a timeline ordered on 15 January 2027
    ("2027-01-15", 1, "2027-02-28"),
    ("2027-01-15", 11, "2027-12-31"),
    ("2027-01-15", 12, "2028-01-31"),
    ("2028-01-31", 1, "2028-02-29"),  # a leap year
    ("2100-01-31", 1, "2100-02-28"),  # not one (divisible by 100, not by 400)
    ("2000-01-31", 1, "2000-02-29"),  # one (divisible by 400)
    ("2027-03-15", -1, "2027-02-28"),
    ("2027-03-15", -13, "2026-02-28"),
    ("2027-03-15", 1.9, "2027-04-30"),  # months cut toward zero: 1.9 is 1
    ("2027-03-15", -1.9, "2027-02-28"),  # and -1.9 is -1
    ("2027-03-15", 0.9999999999, "2027-03-31"),  # 0.9999999999 is 0 (not within 15 digits of 1)
    ("2027-03-15", 0.99999999999999989, "2027-04-30"),  # within 15 digits of 1: it is 1
])
def test_eomonth_hand_worked(start: str, months: float, end: str) -> None:
    assert eomonth(day(start), months).item() == day(end)


def test_year_hand_worked() -> None:
    assert year([day("2027-01-01"), day("2027-12-31"), day("2028-01-01")]).tolist() == [2027, 2027, 2028]
    assert year(day("2027-12-31") + 0.75).item() == 2027  # a time of day: the date's year
    assert year(day("2027-12-31") + 0.99999999999999) .item() == 2028  # within 15 digits of the next day: it


def test_outside_excels_dates_there_is_no_value() -> None:
    """Excel gives #NUM! before 1900-03-01 and after 9999-12-31, where LibreOffice computes on: no number."""
    assert math.isnan(eomonth(60, 0).item()) and math.isnan(year(60).item())
    assert math.isnan(eomonth(LAST_DATE + 1, 0).item()) and math.isnan(eomonth(LAST_DATE, 1).item())
    assert math.isnan(eomonth(day("2027-01-01"), 2.0**31).item())  # months beyond a 32-bit integer: #VALUE!
    assert eomonth(FIRST_DATE, 0).item() == day("1900-03-31") and eomonth(LAST_DATE, 0).item() == LAST_DATE


def python_eomonth(start: float, months: int) -> float:
    """The end of the month `months` after `start`'s, from Python's calendar."""
    d = datetime.date(1899, 12, 30) + datetime.timedelta(days=int(start))
    total = d.year * 12 + d.month - 1 + months
    y, m = divmod(total, 12)
    return serial(datetime.date(y, m + 1, calendar.monthrange(y, m + 1)[1]))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(int(FIRST_DATE), int(LAST_DATE) - 400 * 366), st.integers(-1200, 1200))
def test_eomonth_is_the_last_day_of_the_month_months_later(start: int, months: int) -> None:
    got = eomonth(start, months).item()
    if python_eomonth(start, months) < FIRST_DATE:
        assert math.isnan(got)
    else:
        assert got == python_eomonth(start, months)
        assert year(got).item() == (datetime.date(1899, 12, 30) + datetime.timedelta(days=int(got))).year


def _lo_grid(tmp_path: Path, cases: list[tuple[float, float]]) -> list[tuple[float, float, float, float]]:
    """EOMONTH(date, months) and YEAR(date) of each case, as LibreOffice computes them."""
    path = tmp_path / "dates.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("S")
    for r, (d, m) in enumerate(cases):
        ws.write_number(r, 0, d)
        ws.write_number(r, 1, m)
        ws.write_formula(r, 2, f"=EOMONTH(A{r + 1},B{r + 1})", None, 0)
        ws.write_formula(r, 3, f"=YEAR(A{r + 1})", None, 0)
    wb.close()
    out = openpyxl.load_workbook(recalculate([path], tmp_path / "lo")[path.resolve()], data_only=True)["S"]
    return [(d, m, as_number(out.cell(r + 1, 3).value), as_number(out.cell(r + 1, 4).value))
            for r, (d, m) in enumerate(cases)]


def test_eomonth_and_year_equal_libreoffice_exactly(libreoffice: str, tmp_path: Path) -> None:
    """Dates across the range (month ends, leap days, times of day, a hair below a whole day) by whole, fractional
    and near-whole months either way, and random draws: every EOMONTH and YEAR equals LibreOffice's."""
    dates = [61, 366, 36526, 36891.5, 39141, 39142, 46387, 46387.99999999999, 46401, 46418, 47178, 51134, 73415,
             2958100, 2958465]
    months = [-1200, -25, -13, -12, -11.5, -1, -0.5, 0, 0.4, 0.9999999999, 0.99999999999999989, 1, 11, 12, 13,
              23.999, 24, 240, 1199]
    rng = np.random.default_rng(26)
    random = list(zip(rng.uniform(FIRST_DATE, 73415, 300).round(2), rng.integers(-600, 600, 300), strict=True))
    cases = [(float(d), float(m)) for d, m in [*itertools.product(dates, months), *random]]
    problems = []
    for d, m, lo_end, lo_year in _lo_grid(tmp_path, cases):
        mine = eomonth(d, m).item()
        outside = isinstance(lo_end, str) or not FIRST_DATE <= lo_end <= LAST_DATE  # Excel: #NUM!
        if not ((math.isnan(mine) and outside) or mine == lo_end):
            problems.append(f"EOMONTH({d!r},{m!r}): Python {mine!r}, LibreOffice {lo_end!r}")
        if year(d).item() != lo_year:
            problems.append(f"YEAR({d!r}): Python {year(d).item()!r}, LibreOffice {lo_year!r}")
    assert problems == []
    assert len(cases) > 500


def test_the_formula_core_renders_and_verifies_them(libreoffice: str, tmp_path: Path) -> None:
    """eomonth() and year_of() in lines: a date in, a date (or a year) out, the same in LibreOffice."""
    book = Book("dates")
    i = book.sheet("Inputs", "d")
    start = i.input("start", "Start", "date", day("2027-01-15"), fmt="yyyy-mm-dd")
    ends = i.input("ends", "Fiscal year ends in month", "month no.", 6)
    s = book.sheet("Dates", "d")
    first = s.calc("first_end", "End of the start's month", "date", eomonth_of(start, 0), fmt="d mmm yyyy")
    fiscal = s.calc("fiscal", "Fiscal year of that month", "count", year_of(eomonth_of(first, 12 - ends)))
    s.calc("year", "Year", "count", year_of(start))
    values = book.evaluate()
    assert values["d.first_end"].item() == day("2027-01-31")
    assert values["d.fiscal"].item() == 2027  # January 2027 is in the year ending June 2027
    assert first.formula.render(_Names()) == "EOMONTH(d_start,0)"
    assert fiscal.formula.render(_Names()) == "YEAR(EOMONTH(d_first_end,12-d_ends))"
    path = tmp_path / "dates.xlsx"
    write_book(book, values, Site(tmp_path / "d.yaml", "dates", "", {}, "0" * 64), path)
    [report] = verify_files([path])
    assert report.problems == [] and report.compared == 3


def test_a_date_argument_must_be_a_date() -> None:
    book = Book("dates")
    money = book.sheet("Inputs", "d").input("money", "Money", "USD", 1)
    with pytest.raises(FormulaError, match="eomonth"):
        book.sheet("S", "d").calc("bad", "Bad", "date", eomonth_of(money, 0))


class _Names:
    def ref(self, line):  # type: ignore[no-untyped-def]
        return line.name
