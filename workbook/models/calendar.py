"""The timeline's calendar: the date each month ends, the fiscal year it falls in, and the column headers.

The timeline counts months from time 0, the order date (the start date). Month 1 is the calendar month the order
is placed in, so month t ends on EOMONTH(start, t - 1): an order on 15 January 2027 puts month 1 at 31 January
2027, month 12 at 31 December 2027. A fiscal year is named by the calendar year it ends in (a year ending in June:
FY2027 runs from July 2026 to June 2027), so a month-end date d falls in FY YEAR(EOMONTH(d, 12 - year-end month)).

The yearly sheets (P&L, Scenarios by year) sum the months by that fiscal year: their Start column holds time 0
alone (its key is 0), then one column per fiscal year from the fiscal year of month 1, each headed by it. The
months of the timeline touch at most ceil((months + 11) / 12) fiscal years, so the book has that many yearly
columns: a start date edited in the workbook never leaves a month out of the P&L (a fiscal year after the last
month shows zeros). Every header is a live formula of the start date; so is every roll-up's key.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.expr import YEARS, Const, Node
from workbook.formula.functions import eomonth, period, where, year_of
from workbook.formula.line import Line

MONTH = Const(1, "fmonth")
DAY_SHOWN = "d mmm yyyy"  # 31 Jan 2027: a date with its day (the order date, a month's last day)
MONTH_SHOWN = "mmm yyyy"  # Jan 2027: the header of a month's column
FISCAL_SHOWN = '"FY"0;;"Start"'  # FY2027, and Start for the time-0 column (key 0)


@dataclass(frozen=True)
class Calendar:
    """The dates of the one timeline, and what heads its columns."""

    start: Line  # the order date (time 0), an input
    year_end: Line  # the month the fiscal year ends in (12: December), an input
    month_end: Line  # each month's last day (the Start column: the order date): the monthly columns' headers
    fiscal_year: Line  # each month's fiscal year (0 at the start): the key the yearly roll-ups sum by
    year_header: Node  # each yearly column's fiscal year (0 for the start): its header and its roll-up key

    @property
    def inputs(self) -> tuple[str, str]:
        """The ids of the inputs the calendar reads: one calendar per workbook, so no scenario changes them."""
        return self.start.id, self.year_end.id


def define(c: SheetBuilder, start: Line, year_end: Line, month: Line) -> Calendar:
    """The calendar rows on the monthly sheet `c`, under the month counter `month` (0 at the start, then 1, 2...
    in months); registered on the book, which sizes its yearly columns from it."""
    month_end = c.calc("month_end", "Month ending (the Start column: the order date)", "date",
                       eomonth(start, month / MONTH - 1),
                       "EOMONTH(start date, month - 1): month 1 is the calendar month of the order, each flow at "
                       "its month's end", opening=start, fmt=DAY_SHOWN)
    first = year_of(eomonth(start, 12 - year_end))
    header = where(period(YEARS).eq(0), 0, first + period(YEARS) - 1)
    fiscal = c.calc("fiscal_year", "Fiscal year (the Start column: 0)", "count",
                    year_of(eomonth(month_end, 12 - year_end)),
                    "YEAR(EOMONTH(month end, 12 - fiscal year-end month)): a fiscal year is named by the calendar "
                    "year it ends in; the P&L sums the months by it (time 0 apart, as key 0)", opening=0,
                    fmt=FISCAL_SHOWN, year_keys=header)
    calendar = Calendar(start, year_end, month_end, fiscal, header)
    c.book.set_calendar(calendar)
    return calendar
