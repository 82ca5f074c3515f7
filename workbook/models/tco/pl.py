"""The yearly P&L and cash view (roll-ups of the monthly rows), tied to each other year by year:
cash out = cost after tax + change in the assets' book value - change in debt - change in deferred tax - change in
tax payable (the books' tax on straight-line depreciation, the cash tax on the tax method and its lag)."""

from __future__ import annotations

from workbook.book.sheets import CASH as CASH_SHEET
from workbook.book.sheets import PL as PL_SHEET
from workbook.formula.functions import added, all_over, max_, rollup
from workbook.formula.line import Line
from workbook.models.base import Inputs, Scope
from workbook.models.tco.financing import DOLLAR, Debt
from workbook.models.tco.inputs import USD
from workbook.models.tco.owning import Owning
from workbook.models.tco.schedule import Schedule


def rollup_by(row: Line, when: Schedule) -> object:
    """A monthly row summed by fiscal year (the P&L's columns; models.calendar)."""
    return rollup(row, when.fiscal_year)


def profit_and_loss(scope: Scope, i: Inputs, when: Schedule, own: Owning, debt: Debt | None) -> None:
    c = scope.sheet(CASH_SHEET)
    v = own.values
    c.section("For the P&L: capex, and the changes in assets, debt and tax balances")
    capex_flow = c.calc("capex_flow", "Capex paid", "USD", own.it + own.facility, fmt=USD)
    additions = [capex_flow, own.working_capital, -v.depreciation, -v.book_left]
    tax_accrued, tax_paid = [own.tax_accrued], [own.tax]
    if debt is not None:
        additions += [debt.interest - debt.interest_expensed, -debt.capitalised_depreciation]
        tax_accrued.append(debt.tax_accrued)
        tax_paid.append(debt.tax)
    assets = c.calc("asset_change_flow", "Change in assets' book value", "USD", added(additions),
                    "capex + working capital (+ interest capitalised) - depreciation - book value written off at exit",
                    fmt=USD, balance_change=True)
    payable = c.calc("tax_payable_change_flow", "Change in tax payable (tax arisen - tax paid)", "USD",
                     added(tax_accrued) - added(tax_paid), "the tax lag's balance", fmt=USD, balance_change=True)
    y = scope.sheet(PL_SHEET)
    y.section("P&L: the cost of the cluster by year (no revenue; costs positive)")
    lines = [y.calc(f"pl_{key}", label, "USD", rollup_by(getattr(own, key), when), fmt=USD)
             for key, label in (("energy", "Energy"), ("facility_opex", "Colocation or facility maintenance"),
                                ("support", "Hardware support"), ("staff", "Staff"))]
    opex = y.calc("pl_opex", "Operating costs (EBITDA-style cost)", "USD", added(lines), fmt=USD)
    parts = [opex, y.calc("pl_depreciation", "Depreciation (straight line)", "USD", rollup_by(v.depreciation, when),
                          fmt=USD)]
    if debt is not None:
        parts += [y.calc("pl_interest", "Interest (from the start of service)", "USD",
                         rollup_by(debt.interest_expensed, when), fmt=USD),
                  y.calc("pl_capitalised_interest", "Depreciation of the capitalised interest", "USD",
                         rollup_by(debt.capitalised_depreciation, when), fmt=USD),
                  y.calc("pl_fee", "Arrangement fee", "USD", rollup_by(debt.fee, when), fmt=USD)]
    parts.append(y.calc("pl_exit", "Loss (gain) at exit", "USD", rollup_by(v.book_exit_loss, when), fmt=USD))
    before_tax = y.calc("pl_cost", "Cost before tax", "USD", added(parts), fmt=USD)
    after_tax = y.calc("pl_cost_after_tax", "Cost after tax", "USD", before_tax * (1 - i.tax_rate),
                       "cost before tax - tax at the tax rate (the books' tax: straight-line depreciation)", fmt=USD)
    cash = _cash_view(y, when, own, capex_flow, debt)
    _tie_out(y, c, when, after_tax, cash, assets, v.deferred_tax_change, payable, debt)


def _cash_view(y: object, when: Schedule, own: Owning, capex_flow: Line, debt: Debt | None) -> Line:
    y.section("Cash view by year (what is paid; the decision's flows)")
    y.calc("cash_capex", "Capex paid", "USD", rollup_by(capex_flow, when), fmt=USD)
    y.calc("cash_working_capital", "Working capital (in, then back at exit)", "USD",
           rollup_by(own.working_capital, when), fmt=USD)
    y.calc("cash_opex", "Running costs paid", "USD", rollup_by(own.opex, when), fmt=USD)
    y.calc("cash_tax", "Tax saved, as paid", "USD", rollup_by(own.tax, when), fmt=USD)
    y.calc("cash_residual", "Values received at exit, before tax", "USD", rollup_by(own.proceeds, when), fmt=USD)
    cash = y.calc("cash_own", "Owning: cash out (unlevered)", "USD", rollup_by(own.own, when), fmt=USD)
    if debt is not None:
        y.calc("cash_financing", "Financing: paid + fee - drawn - tax saved", "USD", rollup_by(debt.financing, when),
               fmt=USD)
        cash = y.calc("cash_equity", "Equity: cash out", "USD", rollup_by(debt.equity, when), fmt=USD)
    return cash


def _tie_out(y: object, c: object, when: Schedule, after_tax: Line, cash: Line, assets: Line, deferred: Line,
             payable: Line, debt: Debt | None) -> None:
    y.section("Tie-out: cash out = cost after tax + change in assets - change in debt - change in tax balances")
    asset_change = y.calc("pl_asset_change", "Change in assets' book value", "USD", rollup_by(assets, when),
                          fmt=USD, balance_change=True)
    taxes = y.calc("pl_tax_balances_change", "Change in deferred tax and tax payable", "USD",
                   rollup_by(deferred, when) + rollup_by(payable, when), fmt=USD, balance_change=True)
    explained = after_tax + asset_change - taxes
    if debt is not None:
        change = c.calc("debt_change_flow", "Change in debt", "USD", debt.drawn + debt.interest - debt.paid,
                        "drawn + interest - paid", fmt=USD, balance_change=True)
        explained = explained - y.calc("pl_debt_change", "Change in debt", "USD", rollup_by(change, when), fmt=USD,
                                       balance_change=True)
    total = y.calc("pl_explained_cash", "Cost after tax + change in assets - change in debt - change in tax "
                   "balances", "USD", explained, "should equal the cash out above", fmt=USD)
    ties = y.calc("pl_ties", "Ties to the cash out, to the dollar", "TRUE/FALSE",
                  max_(cash - total, total - cash) < DOLLAR, fmt="BOOLEAN")
    y.check("pl_ties_to_cash", "The yearly P&L ties to the cash flows (to the dollar, every year)", all_over(ties),
            validity=True)
