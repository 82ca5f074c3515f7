"""The financing, beside the decision and never in it: a loan drawn with the capex, interest during construction
capitalised (IAS 23; IRC 263A(f)) and depreciated with the IT, level payments from the start of service, an
arrangement fee; the equity's cash flows and IRR; sources and uses of funds by the start of service.

The decision is discounted at the WACC, which already holds the debt's interest tax shield: the shield is not
added again (no APV adjustment). It is shown, marked as inside the WACC."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.expr import Const
from workbook.formula.functions import all_over, any_, close, flag, lagged, max_, not_, pmt, prev, total, where
from workbook.formula.line import COUNT, Line
from workbook.models.base import Inputs
from workbook.models.tco.inputs import USD
from workbook.models.tco.owning import Capex, Owning, Running
from workbook.models.tco.returns import Search, proven_irr
from workbook.models.tco.schedule import MONTH, Schedule

DOLLAR = Const(1, "USD")  # the tolerance of a tie-out: to the dollar


@dataclass(frozen=True)
class Debt:
    drawn: Line
    paid: Line
    interest: Line  # accrued each month (during construction too)
    capitalised: Line  # single value: interest during construction
    interest_expensed: Line
    capitalised_depreciation: Line
    fee: Line
    tax_accrued: Line
    tax: Line
    financing: Line
    equity: Line
    balance: Line


def loan(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, own: Owning, span: Line) -> Debt:
    """The loan's schedule: drawn with the capex, interest capitalised until service, then level payments."""
    s.section("Financing (beside the decision, not in it)")
    rate = s.calc("loan_monthly_rate", "Loan rate per month", "%", (1 + i.loan_rate) ** (Const(1) / 12) - 1,
                  "(1 + annual rate)^(1/12) - 1", fmt="0.000%")
    term = s.calc("loan_term_months", "Loan term", "months", i.loan_term, fmt="#,##0.0")
    c.section("Loan: drawn with the capex, interest capitalised until service, then level payments")
    drawn = c.calc("loan_draw_flow", "Loan drawn", "USD", i.loan_share * (own.it + own.facility),
                   "loan share x capex paid", fmt=USD)
    built = c.calc("loan_construction_balance", "Loan balance until service starts", "USD",
                   lambda me: (prev(me) * (1 + rate) + drawn) * flag(when.month <= when.lead),
                   "drawn so far with interest added monthly, until delivery", opening=drawn, fmt=USD)
    accrued = c.calc("loan_construction_interest", "Interest capitalised until service starts", "USD",
                     prev(built) * rate * flag(when.month <= when.lead), opening=0, fmt=USD)
    amount = s.calc("loan_amount", "Loan drawn", "USD", total(drawn), fmt=USD)
    idc = s.calc("loan_interest_during_construction", "Interest during construction (capitalised)", "USD",
                 total(accrued), fmt=USD)
    principal = s.calc("loan_principal", "Loan at the start of service (with interest during construction)", "USD",
                       amount + idc, fmt=USD)
    payment = s.calc("loan_payment", "Loan payment per month", "USD", -pmt(rate, term / MONTH, principal),
                     "-PMT(monthly rate, term in months, loan at the start of service)", fmt=USD)
    end = when.lead + term
    repaying = c.calc("loan_repaying_flag", "Repaying (flag)", "flag",
                      flag(when.month > when.lead) * flag(when.month <= end), fmt=COUNT)
    balance = c.calc("loan_balance", "Loan balance", "USD",
                     lambda me: where(when.month >= end, 0 * DOLLAR,
                                      prev(me) * (1 + rate) + drawn - repaying * payment),
                     "previous balance with a month's interest + drawn - the level payment; closed (0) at the end of "
                     "the term, where the last payment clears what is left", opening=drawn, fmt=USD)
    paid = c.calc("loan_payment_flow", "Loan payments", "USD", prev(balance) * (1 + rate) + drawn - balance,
                  "what the balance fell by, with the month's interest and draw: the level payment, and in the "
                  "last month whatever is left", opening=0, fmt=USD)
    interest = c.calc("loan_interest_flow", "Loan interest (accrued)", "USD", prev(balance) * rate, opening=0,
                      fmt=USD)
    _loan_checks(s, c, i, when, paid, payment, end, span)
    return _debt_tax(s, c, i, when, own, drawn, paid, interest, idc, amount, balance)


def _loan_checks(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, paid: Line, payment: Line,
                 end: object, span: Line) -> None:
    last = c.calc("loan_last_payment_ok", "Last payment within 1 USD of the level payment", "TRUE/FALSE",
                  any_(not_(close(when.month, end)), max_(paid - payment, payment - paid) < DOLLAR),
                  "TRUE except in the last month of the term, where the payment that clears the loan must be the "
                  "level payment (the PMT schedule repays the loan exactly)", fmt="BOOLEAN")
    s.check("loan_repaid_in_term", "The level payments repay the loan by the end of its term (to 1 USD)",
            all_over(last), validity=True)
    s.check("loan_within_timeline", "The lead time and the loan term fit the timeline",
            when.lead + i.loan_term <= span, validity=True)
    s.check("loan_within_life", "The loan is repaid within the IT's useful life (a lender's condition)",
            i.loan_term <= i.useful_life, "loan term <= useful life: repayments after the IT is retired are not "
            "secured by working assets")


def _debt_tax(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, own: Owning, drawn: Line, paid: Line,
              interest: Line, idc: Line, amount: Line, balance: Line) -> Debt:
    """Interest expensed after the start of service; interest during construction depreciated with the IT; the
    fee deducted when paid; their tax saved on the tax lag; the financing's and the equity's cash out."""
    c.section("Loan: interest, fee and their tax")
    expensed = c.calc("loan_interest_expensed_flow", "Interest expensed (from the start of service)", "USD",
                      interest * flag(when.month > when.lead), "interest during construction is capitalised", fmt=USD)
    idc_dep = c.calc("capitalised_interest_depreciation_flow", "Depreciation of the capitalised interest", "USD",
                     when.in_service * idc / (when.life / MONTH),
                     "interest during construction / useful life in months (IAS 23; IRC 263A(f)), books and tax",
                     fmt=USD)
    fee = c.calc("loan_fee_flow", "Arrangement fee", "USD", when.order * amount * i.loan_fee_share,
                 "fee share x loan, paid at time 0 (deducted when paid)", fmt=USD)
    accrued = c.calc("financing_tax_accrued_flow", "Tax saved on interest, capitalised interest and fee", "USD",
                     -i.tax_rate * (expensed + idc_dep + fee), fmt=USD)
    tax = c.calc("interest_tax_flow", "Tax saved on the financing, as paid (the tax lag later)", "USD",
                 lagged(accrued, when.month, i.tax_lag), fmt=USD)
    financing = c.calc("financing_flow", "Financing: cash out (paid + fee - drawn - tax saved)", "USD",
                       paid + fee - drawn + tax, fmt=USD)
    equity = c.calc("equity_flow", "Equity: cash out (owning + financing)", "USD", own.own + financing, fmt=USD)
    return Debt(drawn, paid, interest, idc, expensed, idc_dep, fee, accrued, tax, financing, equity, balance)


def equity_views(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, rate: Line, cap: Capex, run: Running,
                 own: Owning, rent: Line, project_irr: Line, debt: Debt | None, grid: Search, span: Line) -> None:
    """Sources and uses of funds by the start of service (tied by a check), the equity actually paid in, and the
    project and equity IRRs side by side with the debt."""
    s.section("Sources and uses of funds, by the start of service")
    capital = when.order + when.construction + when.first_service  # time 0, the works, the first month of service
    wc = s.calc("uses_working_capital", "Uses: working capital", "USD", run.opex * i.working_capital_months,
                "months of running costs at today's prices", fmt=USD)
    idc = debt.capitalised if debt is not None else 0 * DOLLAR
    fee = total(debt.fee) if debt is not None else 0 * DOLLAR
    uses = s.calc("uses_total", "Uses: capex + interest during construction + fees + working capital", "USD",
                  cap.capex + idc + fee + wc, "the funding the project needs by its first month of service", fmt=USD)
    at_delivery = (total(c.calc("loan_balance_at_delivery_flow", "Loan balance in the month of delivery", "USD",
                                when.delivery * debt.balance, fmt=USD)) if debt is not None else 0 * DOLLAR)
    debt_in = s.calc("sources_debt", "Sources: debt at the start of service (drawn + capitalised interest)", "USD",
                     at_delivery, "the loan balance at delivery, from the loan's own schedule", fmt=USD)
    loan_part = debt.fee - debt.drawn if debt is not None else 0 * DOLLAR
    paid_in = c.calc("equity_paid_in_flow", "Equity paid in (capex, fees and working capital - loan drawn)", "USD",
                     capital * (own.it + own.facility + own.working_capital + loan_part),
                     "from time 0 to the first month of service", fmt=USD)
    equity = s.calc("sources_equity", "Sources: equity paid in by the start of service", "USD", total(paid_in),
                    "capex, fees and working capital paid from time 0 to the first month of service, less the loan "
                    "drawn: from the cash flows", fmt=USD)
    s.calc("peak_funding", "Peak funding need (the uses, all paid by the start of service)", "USD", uses, fmt=USD)
    s.check("sources_equal_uses", "Sources equal uses at the start of service (to the dollar)",
            max_(debt_in + equity - uses, uses - debt_in - equity) < DOLLAR,
            "debt (the loan schedule's balance at delivery) + equity (the cash flows) = uses (capex, the interest "
            "accrued, fees, working capital)")
    s.section("Returns: the project's and the equity's, buying instead of renting")
    s.show(project_irr, "project_irr", "Project IRR (unlevered: the decision's)")
    if debt is None:
        return
    saved = c.calc("equity_savings_flow", "Buying with the loan instead of renting: the equity's net cash", "USD",
                   rent - debt.equity, "renting's cash out - the equity's", fmt=USD)
    proven_irr(s, c, "equity_irr", "Equity IRR", "the equity with the loan, against renting", saved, rate, span, grid,
               when.discount)
    s.calc("equity_hurdle", "Cost of equity (the equity IRR's hurdle)", "%", 1 * i.cost_of_equity,
           "the return the equity holders require for this risk: an equity IRR above it adds value for them",
           fmt="0.0%")
    s.show(i.loan_share, "debt_share_shown", "Debt: share of capex financed")
    s.show(i.loan_rate, "debt_rate_shown", "Debt: interest rate (annual)")
    s.show(i.loan_term, "debt_term_shown", "Debt: term (months)")
