"""Depreciation for the books and for tax, and what the IT and the facility are worth at the end of the IT life.

Book depreciation is straight line while in service (IT over its life; the facility over its own, a colocation
fit-out over the IT's). Tax depreciation of the IT follows the site's method: straight line, or MACRS 5-year
property (half-year convention, IRS Publication 946 table A-1), with a bonus share deducted when it is placed in
service; the facility is depreciated for tax as for the books. The IT's resale value follows the rent market: its
residual share of capex at today's rent, moved by the rent index at exit. The facility's value at exit is the
site's method: book value (default), the annuity value left, zero, or a stated share.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.functions import ceil, choose, flag, max_, min_, pmt, total, where
from workbook.formula.line import Line
from workbook.models.base import Inputs
from workbook.models.tco.inputs import MACRS_YEARS, USD
from workbook.models.tco.schedule import MONTH, Schedule


@dataclass(frozen=True)
class ExitValues:
    it_depreciation: Line  # book, monthly rows
    facility_depreciation: Line
    depreciation: Line
    tax_depreciation: Line  # IT (by the tax method) + facility, monthly
    it_resale: Line  # monthly: the exit month holds it
    facility_value: Line
    tax_exit_loss: Line  # basis left - value received, in the exit month (for tax)
    book_exit_loss: Line  # book value left - value received, in the exit month (for the P&L)
    book_left: Line  # book value written off at exit, monthly
    deferred_tax_change: Line  # t x (tax - book depreciation, and the two bases' write-offs at exit)
    facility_book_left: Line  # single values, for the views
    facility_value_share: Line
    resale: Line
    shares: dict[str, Line]  # the facility's value at exit per USD of capex, by method


def exit_values(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, cap: object, rate: Line,
                rent_index: Line) -> ExitValues:
    """Book and tax depreciation, and the values received at exit with their book and tax bases."""
    build = i.choice("facility_model") == "build"
    life_n = when.life / MONTH
    fac_life = i.facility_life if build else when.life
    c.section("Depreciation: for the books (straight line while in service) and for tax")
    it_dep = c.calc("it_depreciation_flow", "Depreciation of IT capex (books)", "USD",
                    when.in_service * cap.it / life_n, "IT capex / useful life in months", fmt=USD)
    fac_dep = c.calc("facility_depreciation_flow", "Depreciation of facility capex (books and tax)", "USD",
                     when.in_service * flag(when.month <= when.lead + fac_life) * cap.facility / (fac_life / MONTH),
                     "facility capex / its life in months (the IT life for a colocation fit-out)", fmt=USD)
    dep = c.calc("depreciation_flow", "Depreciation (books)", "USD", it_dep + fac_dep, fmt=USD)
    it_tax = c.calc("it_tax_depreciation_flow", f"Depreciation of IT capex for tax ({i.choice('tax_depreciation')})",
                    "USD", cap.it * (when.first_service * i.bonus_share + (1 - i.bonus_share) * _tax_rate(c, i, when)),
                    "IT capex x (bonus share in the first month of service + (1 - bonus) x the method's monthly rate)",
                    fmt=USD)
    tax_dep = c.calc("tax_depreciation_flow", "Depreciation for tax", "USD", it_tax + fac_dep, fmt=USD)
    s.section("At the end of the IT life: values received and the bases written off")
    it_left = s.calc("it_tax_basis_left", "IT tax basis left at exit", "USD", cap.it - total(it_tax),
                     "IT capex - its tax depreciation (MACRS runs 6 tax years: a 5-year life leaves 5.76%)", fmt=USD)
    at_exit = c.calc("rent_index_exit_flow", "Rent price index in the last month of service", "ratio",
                     when.exit * rent_index, fmt="0.000")
    index_at_exit = s.calc("rent_index_at_exit", "Rent index at exit", "ratio", total(at_exit),
                           "the rent price index in the last month of service", fmt="0.000")
    resale = _it_resale(s, i, when, cap, rate, index_at_exit)
    fac = _facility_value(s, i, when, cap, rate, build)
    rows = _exit_rows(c, when, resale, it_left, fac)
    deferred = c.calc("deferred_tax_change_flow", "Change in deferred tax (tax basis below book value)", "USD",
                      i.tax_rate * (tax_dep - dep + when.exit * it_left),
                      "tax rate x (tax depreciation - book depreciation, and at exit the IT's tax basis left: the "
                      "books have written it all off over its life): the tax the books owe beyond the tax paid",
                      fmt=USD, balance_change=True)
    return ExitValues(it_dep, fac_dep, dep, tax_dep, rows["resale"], rows["facility"], rows["tax_loss"],
                      rows["book_loss"], rows["written_off"], deferred, fac["book_left"], fac["share"], resale,
                      fac["shares"])


_BASES = {
    "observed": ("the share observed today for equipment of the IT's age: it already holds the decline the market "
                 "expects, so it is not indexed again"),
    "flat-market": "the share the IT would fetch at exit in a flat market, moved by the rent index at exit",
}


def _it_resale(s: SheetBuilder, i: Inputs, when: Schedule, cap: object, rate: Line, index_at_exit: Line) -> Line:
    """The IT's resale value at exit by the site's basis for its residual share (observed today, or in a flat market
    then indexed), the value by the other basis, and what choosing the other would do to the NPV advantage: a
    share observed today indexed again would count the rent's decline twice."""
    basis = i.choice("residual_basis")
    indexed = {"flat-market": index_at_exit, "observed": 1 + 0 * index_at_exit}
    resale = s.calc("it_resale_value", "IT resale value at exit", "USD",
                    cap.it * i.residual_value * indexed[basis],
                    f"IT capex x residual share ({_BASES[basis]})"
                    + (" x the rent index at exit" if basis == "flat-market" else ""), fmt=USD)
    other = "observed" if basis == "flat-market" else "flat-market"
    alt = s.calc("it_resale_value_other_basis", f"IT resale value at exit if the share were {other.replace('-', ' ')}",
                 "USD", cap.it * i.residual_value * indexed[other], f"the other basis: {_BASES[other]}", fmt=USD)
    df_exit = 1 / (1 + rate) ** ((when.lead + when.life) / MONTH)
    after = 1 - i.tax_rate / (1 + rate) ** (i.tax_lag / MONTH)
    s.calc("residual_basis_effect", f"NPV advantage of buying: change if the share were {other.replace('-', ' ')}",
           "USD", (alt - resale) * df_exit * after,
           "(the other basis's value - this one's) x the exit month's discount factor x (1 - tax rate x the tax "
           "lag's discount): the value received at exit, after the tax on its gain", fmt=USD)
    return resale


def _tax_rate(c: SheetBuilder, i: Inputs, when: Schedule) -> Line:
    """The IT's monthly tax depreciation rate (before any bonus): straight line over the life, or MACRS 5-year
    property by tax year of service (a twelfth of the year's rate a month)."""
    if i.choice("tax_depreciation") == "straight-line":
        return c.calc("it_tax_rate", "IT tax depreciation rate per month (straight line)", "%",
                      when.in_service / (when.life / MONTH), "1 / useful life in months while in service", fmt="0.00%")
    year = c.calc("tax_year_of_service", "Tax year of service (MACRS)", "count",
                  max_(1, min_(ceil(when.service_month / (12 * MONTH)), 7)),
                  "ROUNDUP(month of service / 12), 1 to 7 (the 7th and later: nothing left)", fmt="#,##0")
    rates = [getattr(i, f"macrs_year_{n}") for n in range(1, MACRS_YEARS + 1)]
    return c.calc("it_tax_rate", "IT tax depreciation rate per month (MACRS 5-year, half-year convention)", "%",
                  when.in_service * choose(year, *rates, 0) / 12,
                  "in service x CHOOSE(tax year, the six MACRS rates, 0) / 12", fmt="0.00%")


def _facility_value(s: SheetBuilder, i: Inputs, when: Schedule, cap: object, rate: Line,
                    build: bool) -> dict[str, object]:
    """The facility's value at exit per USD of capex by each method, and the site's choice."""
    fac_n = (i.facility_life if build else when.life) / MONTH
    life_n = when.life / MONTH
    s.section("The facility at the end of the IT life")
    left_n = s.calc("facility_months_left", "Facility life left at exit", "count", max_(0, fac_n - life_n),
                    "its depreciation life in months - the IT life in months", fmt="#,##0.0")
    book = s.calc("facility_book_share", "Facility book value at exit, per USD of capex", "ratio", left_n / fac_n,
                  "life left / life", fmt="0.0000")
    book_left = s.calc("facility_book_left", "Facility book (and tax) value at exit", "USD", cap.facility * book,
                       "capex x (life left / life)", fmt=USD)
    shares = {"book": book}
    if build:
        shares["annuity"] = s.calc(
            "facility_annuity_share", "Facility value at exit by the annuity method, per USD of capex", "ratio",
            where(left_n > 0, pmt(rate, fac_n, 1) / pmt(rate, left_n, 1), 0),
            "the PV at exit of the level capital charges still to come: PMT(rate, life, 1) / PMT(rate, months left, "
            "1); at a high cost of capital it keeps almost all the capex (99.8% at 50%)", fmt="0.0000")
        method = i.choice("facility_residual")
        chosen = {"book": book, "annuity": shares["annuity"], "zero": 0 * book,
                  "stated": i.facility_exit_value if method == "stated" else None}[method]
        why = {"book": "book value (the method chosen: the hall is worth what is left of its cost)",
               "annuity": "the annuity value left (the method chosen)", "zero": "zero (the method chosen: the hall is "
               "not reused)", "stated": "the stated share (the method chosen)"}[method]
    else:
        chosen, why = 0 * book, "a colocation fit-out is worth nothing at exit"
    share = s.calc("facility_value_share", "Facility value at exit, per USD of capex", "ratio", 1 * chosen, why,
                   fmt="0.0000")
    value = s.calc("facility_value_left", "Facility value at exit", "USD", cap.facility * share,
                   "capex x value per USD of capex", fmt=USD)
    return {"book_left": book_left, "share": share, "shares": shares, "value": value}


def _exit_rows(c: SheetBuilder, when: Schedule, resale: Line, it_tax_left: Line,
               fac: dict[str, Line]) -> dict[str, Line]:
    """The exit month's values received and the bases written off against them, for tax and for the books."""
    c.section("At exit: values received and the bases written off")
    it_value = c.calc("it_resale_flow", "IT resale value received", "USD", when.exit * resale, fmt=USD)
    fac_value = c.calc("facility_value_flow", "Facility value at exit", "USD", when.exit * fac["value"], fmt=USD)
    received = it_value + fac_value
    tax_loss = c.calc("tax_exit_loss_flow", "Loss (gain) at exit over the tax bases", "USD",
                      when.exit * (it_tax_left + fac["book_left"]) - received,
                      "IT tax basis left + facility basis left - values received", fmt=USD)
    written_off = c.calc("book_written_off_flow", "Book value written off at exit", "USD",
                         when.exit * fac["book_left"], "the facility's book value left (the IT's is written off over "
                         "its life)", fmt=USD)
    book_loss = c.calc("exit_loss_flow", "Loss (gain) at exit, before tax (books)", "USD", written_off - received,
                       "book value written off - values received", fmt=USD)
    return {"resale": it_value, "facility": fac_value, "tax_loss": tax_loss, "book_loss": book_loss,
            "written_off": written_off}
