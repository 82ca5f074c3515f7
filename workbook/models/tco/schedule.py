"""The TCO's one monthly timeline: flags for order, delivery, works, service and exit; the month of service; years;
price indices; the utilisation ramp; discounting."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.expr import Const
from workbook.formula.functions import ceil, close, flag, max_, prev, where
from workbook.formula.line import COUNT, Line
from workbook.models import calendar
from workbook.models.base import Inputs

MONTH = Const(1, "fmonth")  # one period of the timeline


@dataclass(frozen=True)
class Schedule:
    """The deployment and service timing, as monthly flags and single values."""

    month: Line
    year: Line
    lead: Line
    life: Line
    in_service: Line
    service_month: Line  # 1, 2, ... in the months of service, 0 elsewhere
    order: Line
    delivery: Line
    construction: Line
    first_service: Line
    exit: Line
    discount: Line
    length: Line
    ramp: Line  # the share of the target utilisation each month of service reaches
    fiscal_year: Line  # each month's fiscal year (the calendar): the key the P&L sums by


def schedule(c: SheetBuilder, i: Inputs, rate: Line, lead: Line) -> Schedule:
    """The monthly timeline: flags for order, delivery, construction, service and exit; years; discounting."""
    c.section("Timeline (the Start column is time 0, the order date)")
    month = c.calc("month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0, fmt=COUNT)
    dates = calendar.define(c, i.start_date, i.fiscal_year_end, month)
    length = c.calc("period_length", "Period length", "months", flag(month > 0 * MONTH) * MONTH, fmt=COUNT)
    year = c.calc("year", "Year of the timeline", "count", ceil(month / (12 * MONTH)),
                  "ROUNDUP(month / 12): 0 at the start, then 1, 2... (price indices step by it)", fmt=COUNT)
    life = i.useful_life
    end = lead + life
    in_service = c.calc("in_service", "In service (flag)", "flag", flag(month > lead) * flag(month <= end),
                        "after delivery (the lead time) until the end of the useful life", fmt=COUNT)
    served = c.calc("service_month", "Month of service (1 = the first)", "months", in_service * (month - lead),
                    "in service x (month - lead time)", fmt=COUNT, position=True)
    order = c.calc("order_flag", "Order, time 0 (flag)", "flag", flag(month.eq(0 * MONTH)), fmt=COUNT)
    delivery = c.calc("delivery_flag", "Delivery (flag)", "flag", flag(close(month, lead)),
                      "the end of the lead time: the capex balance is paid", fmt=COUNT)
    works = c.calc("construction_flag", "Facility works (flag)", "flag", flag(month > 0 * MONTH) * flag(month <= lead),
                   "the months of the lead time: facility capex paid in equal parts", fmt=COUNT)
    first = c.calc("first_service_flag", "First month of service (flag)", "flag", flag(close(served, MONTH)),
                   fmt=COUNT)
    exit_ = c.calc("exit_flag", "Last month of service (flag)", "flag", flag(close(month, end)),
                   "the residual value is received at its end", fmt=COUNT)
    discount = c.calc("discount_factor", "Discount factor at the cost of capital", "ratio",
                      1 / (1 + rate) ** (month / MONTH), "1 / (1 + monthly rate)^month", fmt="0.0000")
    ramp = c.calc("ramp", "Utilisation ramp: share of the target reached", "%",
                  in_service * where(served <= i.ramp_months, i.ramp_first_share
                                     + (1 - i.ramp_first_share) * (served - MONTH) / max_(MONTH, i.ramp_months), 1),
                  "in the ramp's months: first share + (1 - first share) x (month of service - 1) / ramp months "
                  "(3 months from 25%: 25%, 50%, 75%); the target after it", fmt="0%")
    return Schedule(month, year, lead, life, in_service, served, order, delivery, works, first, exit_, discount,
                    length, ramp, dates.fiscal_year)


def index(c: SheetBuilder, key: str, label: str, change: Line, year: Line) -> Line:
    """A price index on today's prices: (1 + change per year)^(year - 1), today's price in year 1."""
    return c.calc(key, label, "ratio", (1 + change) ** max_(0, year - 1),
                  "(1 + change per year)^(year - 1): today's price in year 1", fmt="0.000")
