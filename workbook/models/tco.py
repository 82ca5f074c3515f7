"""Rent vs buy: what owning costs against renting the same GPU-hours, as a CFO would sign it.

Conventions (stated on the TCO sheet too):
- Nominal USD. Costs and cash paid out are positive; money received (residual value, tax savings, loan draws)
  is negative.
- One monthly timeline: column 0 is time 0 (the order date); each month's flow is at the month's end.
  Capex is paid on the deployment schedule (a deposit at order, the balance on delivery, facility works during
  the lead time); service runs from the month after delivery for the useful life.
- The decision (NPV, IRR, equivalent annual cost, cost per GPU-hour, break-even) is on unlevered flows at the
  cost of capital (WACC): it does not depend on how the capex is financed. A loan is shown beside it, with
  its own value (APV) and the equity cash flows.
- Prices carry their basis: colocation per kW-month and build cost per MW of contracted critical IT capacity
  (or of the utility feed, if the site says so); energy is billed separately at the PUE. Prices move once a
  year: rent by its annual change, electricity and facility costs by their escalation.
- Tax (optional; 0 = pre-tax): savings on running costs, straight-line depreciation and interest, assumed
  usable against other profits; rent is deductible too; a residual value is taxed as a gain over book value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbook.book import Book, SheetBuilder
from workbook.formula.expr import Const, Node
from workbook.formula.functions import (
    all_over,
    any_,
    ceil,
    flag,
    irr,
    largest,
    max_,
    pmt,
    prev,
    rollup,
    safe_div,
    total,
    where,
)
from workbook.formula.line import COUNT, PERCENT, Line
from workbook.inputs import Spec, with_limits
from workbook.models import calendar
from workbook.models.base import Inputs, Scope, shown_value
from workbook.models.bom import BomOut
from workbook.models.power import PowerOut
from workbook.presentation import Chart, View
from workbook.sheets import CASH as CASH_SHEET
from workbook.sheets import COMPARISON, SUMMARY
from workbook.sheets import PL as PL_SHEET
from workbook.sheets import TCO as TITLE

PREFIX = "tco"
MONTH = Const(1, "fmonth")  # one period of the timeline
DOLLAR = Const(1, "USD")  # the tolerance of a tie-out: to the dollar
CURVE_POINTS = 10  # utilisation points on the cost curve: step, 2 x step, ...
USD = "#,##0"
BREAK_EVEN = '[>1]"never (over 100%)";0.0%'  # a break-even utilisation above 100% is never reached: said so
NO_SERVICE = "no month in service within the timeline"
NO_HOURS = "no GPU-hours used in the timeline (utilisation 0, or no month in service)"

_USD = dict(expect="an amount of money", example="270000 USD", lo=0.0, fmt=USD)
_SHARE = dict(expect="a fraction", example="0.1", lo=0.0, hi=1.0, fmt=PERCENT)
_PRICE = dict(expect="a price per GPU-hour", example="2.99 USD/GPU/hour", lo=0.0, lo_open=True, fmt="0.000")
_CHANGE = dict(expect="a fraction per year", example="0.03", lo=-0.9, hi=1.0, fmt=PERCENT)

INPUTS = with_limits([
    Spec("tco.horizon", "Timeline length (months after the start)", "months", "a duration", "96 months",
         lo=12, hi=240, integer=True, structural=True, fmt=COUNT),
    Spec("tco.facility_model", "Facility: colocation or own build", "", "a choice", "colo", choices=("colo", "build")),
    Spec("tco.financing", "Financing of the capex", "", "a choice", "cash", choices=("cash", "loan")),
    Spec("tco.facility_price_basis", "Capacity the facility price is charged on", "", "a choice", "critical-it",
         choices=("critical-it", "feed")),
    Spec("tco.start_date", "Start of the timeline: the order date (time 0)", "date", "a date", "2027-01-15",
         date=True, fmt="yyyy-mm-dd"),
    Spec("tco.fiscal_year_end", "Fiscal year ends in month (12 = December; FY named by the year it ends in)",
         "month no.", "a month number", "6", lo=1, hi=12, integer=True, fmt="0"),
    Spec("tco.sensitivity_swing", "Sensitivity swing (+/- on each input)", "%", "a fraction", "0.2",
         lo=0.01, hi=0.9, structural=True),
    Spec("tco.server_price", "Price per node (server, installed)", "USD", **_USD),  # the BOM's budget prices:
    Spec("tco.switch_price", "Price per network switch", "USD", **_USD),
    Spec("tco.transceiver_price", "Price per optical transceiver (multimode, the catalog optic)", "USD", **_USD),
    Spec("tco.single_mode_transceiver_price", "Price per single-mode transceiver (runs beyond multimode reach)",
         "USD", **_USD),
    Spec("tco.cable_price", "Price per cable", "USD", **_USD),
    Spec("tco.oob_switch_price", "Price per out-of-band management switch", "USD", **_USD),
    Spec("tco.storage_capex", "Shared storage capex (as given)", "USD",
         when=("reliability.storage_sizing", "given"), **_USD),  # else the BOM prices the sized tiers
    Spec("tco.fit_out_capex", "Colocation fit-out capex (cages, PDUs, containment)", "USD",
         when=("tco.facility_model", "colo"), **_USD),
    Spec("tco.colo_price", "Colocation price per kW-month of capacity (see its basis)", "USD/kW-month",
         "a price per kW-month", "184 USD/kW/month", lo=0.0, when=("tco.facility_model", "colo")),
    Spec("tco.build_cost", "Facility build cost per MW of capacity (see its basis)", "USD/MW", "a price per MW",
         "11.7e6 USD/MW", lo=0.0, when=("tco.facility_model", "build"), fmt=USD),
    Spec("tco.facility_life", "Facility depreciation life (whole months)", "months", "a duration", "20 years",
         lo=12, hi=720, integer=True, when=("tco.facility_model", "build"), fmt=COUNT),
    Spec("tco.facility_opex_rate", "Facility maintenance per year, share of build cost", "share/year",
         "a share per year", "0.02 / year", lo=0.0, hi=1.0, when=("tco.facility_model", "build"), fmt=PERCENT),
    Spec("tco.facility_residual", "Facility value at the end of the IT life", "", "a choice", "annuity",
         choices=("annuity", "stated"), when=("tco.facility_model", "build")),
    Spec("tco.facility_exit_value", "Facility value at the end of the IT life, share of build cost", "%",
         when=("tco.facility_residual", "stated"), **_SHARE),
    Spec("tco.lead_time", "Lead time from order to service (the site's: facility works, contracts)", "months",
         "a duration", "4 months", lo=0, hi=60,
         integer=True, fmt=COUNT),
    Spec("tco.deposit_share", "Deposit paid at order, share of IT capex", "%", **_SHARE),
    Spec("tco.cost_of_capital", "Cost of capital (WACC, nominal, annual)", "%", **{**_SHARE, "example": "0.1"}),
    Spec("tco.tax_rate", "Tax rate (0 = pre-tax)", "%", **{**_SHARE, "hi": 0.6, "example": "0.21"}),
    Spec("tco.loan_share", "Share of capex financed by the loan", "%", when=("tco.financing", "loan"), **_SHARE),
    Spec("tco.loan_rate", "Loan interest rate (annual)", "%", when=("tco.financing", "loan"), **_SHARE),
    Spec("tco.loan_term", "Loan term (whole months, repaid monthly from service start)", "months", "a duration",
         "4 years", lo=3, hi=360, integer=True, when=("tco.financing", "loan"), fmt=COUNT),
    Spec("tco.useful_life", "Useful life of the IT equipment (whole months)", "months", "a duration", "5 years",
         lo=3, hi=240, integer=True, fmt=COUNT),
    Spec("tco.residual_value", "Residual value at end of life, share of IT capex", "%", **_SHARE),
    Spec("tco.electricity_price", "Electricity price (today)", "USD/kWh", "a price of energy", "0.08 USD/kWh",
         lo=0.0, fmt="0.0000"),
    Spec("tco.electricity_escalation", "Electricity price change per year", "%", **_CHANGE),
    Spec("tco.facility_escalation", "Colocation price (or facility maintenance) change per year", "%", **_CHANGE),
    Spec("tco.idle_power_share", "Power drawn at idle, share of design IT load", "%", **_SHARE),
    Spec("tco.utilisation", "Utilisation (share of GPU-hours doing work)", "%", **_SHARE),
    Spec("tco.support_rate", "Hardware support per year, share of IT capex", "share/year", "a share per year",
         "0.08 / year", lo=0.0, hi=1.0, fmt=PERCENT),
    Spec("tco.staff_fte", "Operations staff", "FTE", "a head count", "4", lo=0.0, fmt="#,##0.0"),
    Spec("tco.staff_cost", "Cost per FTE per year", "USD/year", "a cost per year", "200000 USD/year", lo=0.0,
         fmt=USD),
    Spec("tco.on_demand_price", "Rent: on-demand price (today)", "USD/GPU-h", **_PRICE),
    Spec("tco.reserved_price", "Rent: reserved (committed) price (today)", "USD/GPU-h", **_PRICE),
    Spec("tco.reserved_share", "Rent: share of GPUs reserved (hours paid whether used or not)", "%", **_SHARE),
    Spec("tco.rent_price_change", "Rent: price change per year (negative: rent falls)", "%", **_CHANGE),
    Spec("tco.rent_extras", "Rent: storage and egress per month", "USD/month", "a cost per month",
         "20000 USD/month", lo=0.0, fmt=USD),
    Spec("tco.utilisation_step", "Cost curve: utilisation step", "%", "a fraction", "0.1", lo=0.01, hi=0.1,
         fmt=PERCENT),
])

CONVENTIONS = [
    "Money: nominal USD. Costs and cash paid out are positive; money received (residual value, tax savings, "
    "loan draws) is negative.",
    "Time: the Start column is time 0, the order date; each month's flow is at the month's end (month t ends on "
    "EOMONTH(start date, t - 1)). Capex follows the deployment schedule; service runs from the month after "
    "delivery for the useful life. The P&L sums the months by fiscal year, named by the year it ends in.",
    "Decision: NPV, IRR, equivalent annual cost, cost per GPU-hour and break-even are on unlevered flows "
    "discounted at the cost of capital (WACC); they do not depend on the financing, which is shown apart (APV).",
    "Prices: colocation per kW-month and build cost per MW of contracted capacity (its basis is an input); "
    "energy billed separately at the PUE; rent, electricity and facility prices change once a year from today's.",
    "Tax: at the tax rate (0% = pre-tax) on running costs, straight-line depreciation, interest and rent, "
    "assumed usable against other profits; a residual value is taxed as a gain over its book value.",
]


@dataclass
class Schedule:
    """The deployment and service timing, as monthly flags and single values."""

    month: Line
    year: Line
    lead: Line
    life: Line
    in_service: Line
    order: Line
    delivery: Line
    construction: Line
    exit: Line
    discount: Line
    length: Line
    fiscal_year: Line  # each month's fiscal year (the calendar): the key the P&L sums by


@dataclass(frozen=True)
class TcoOut:
    """The TCO's answers that the Summary, the scenario comparison and the tornado read."""

    owned_cost_per_gpu_hour: Line
    break_even_utilisation: Line
    npv_own: Line
    npv_rent: Line
    npv_advantage: Line
    irr_buy: Line
    payback_month: Line
    discounted_payback_month: Line
    delay_cost: Line
    capex: Line
    owned_annual_cost: Line
    delay_gpu_hours: Line
    own_cumulative: Line
    rent_cumulative: Line
    curve_utilisation: tuple[Line, ...]
    curve_owned: tuple[Line, ...]
    service_months: int  # lead time + useful life at build time: the months the cumulative chart shows
    financing_value: Line | None = None  # with a loan only
    apv_own: Line | None = None
    peak_funding: Line | None = None
    owned_cost_per_useful_gpu_hour: Line | None = None  # with the Reliability sheet's goodput

    @property
    def key_figures(self) -> list[Line]:
        return [self.owned_cost_per_gpu_hour, self.break_even_utilisation, self.npv_own, self.npv_rent,
                self.npv_advantage, self.irr_buy, self.payback_month, self.discounted_payback_month,
                self.delay_cost]


def define(scope: Scope, i: Inputs, p: Inputs, power: PowerOut, bom: BomOut, goodput: Line | None = None) -> TcoOut:
    """Rent against buy for the cluster the engineering models size and the bill of materials prices; `p` is the
    power chain's inputs (GPUs); `goodput` the useful share of the job's time (Reliability sheet)."""
    scope.book.timeline(int(i.choice("horizon")))
    s = scope.sheet(TITLE)
    s.section("Conventions")
    for text in CONVENTIONS:
        s.text(text)
    capex = _capex(s, i, power, bom)
    running = _running_costs(s, i, power, capex)
    rent = _rent(s, i, p)
    s.section("Timing and the cost of capital")
    rate = s.calc("monthly_rate", "Cost of capital per month", "%", (1 + i.cost_of_capital) ** (Const(1) / 12) - 1,
                  "(1 + annual rate)^(1/12) - 1", fmt="0.000%")
    c = scope.sheet(CASH_SHEET)
    when = _schedule(c, i, rate, capex["lead"])
    span = s.calc("timeline_length", "Timeline length after the start", "months", total(when.length),
                  "SUM of the period lengths", fmt=COUNT)
    s.check("life_within_timeline", "The lead time and the useful life fit the timeline",
            when.lead + when.life <= span, validity=True)
    flows = _owning_flows(s, c, i, when, capex, running, rate)
    rent_flows = _renting_flows(c, i, when, rent)
    answers = _answers(s, c, i, p, when, capex, running, rent, flows, rent_flows, rate)
    debt = (_financing(s, c, i, when, flows, span, answers["npv_own"]) if i.choice("financing") == "loan"
            else None)
    _profit_and_loss(scope, i, when, capex, flows, debt)
    if goodput is not None:
        _useful(s, scope.defined["pv_gpu_hours"], answers["npv_own"], goodput)
    curve = _cost_curve(s, i, answers)
    lead = scope.book.evaluate(lines=[capex["lead"].id])[capex["lead"].id]
    shown = float(lead.reshape(-1)[0] + i.useful_life.value.reshape(-1)[0])
    return scope.outputs(TcoOut, curve_utilisation=curve[0], curve_owned=curve[1], service_months=round(shown))


def _capex(s: SheetBuilder, i: Inputs, power: PowerOut, bom: BomOut) -> dict[str, Line]:
    s.section("Capex (paid on the deployment schedule)")
    lead = s.calc("service_lead", "Lead time from order to service (the longer of the two below)", "months",
                  max_(i.lead_time, bom.equipment_lead_months),
                  "MAX(the site's order-to-service lead time, the equipment's critical path from the BOM)", fmt=COUNT)
    it = s.calc("it_capex", "IT capex (the bill of materials' total)", "USD", bom.total,
                "BOM sheet: every quantity x its unit price, quoted where a vendor quoted", fmt=USD)
    critical = i.choice("facility_price_basis") == "critical-it"
    basis = power.critical_it_capacity if critical else power.contracted_feed
    capacity = s.calc("facility_capacity", "Capacity the facility is priced on", "kW", basis,
                      "contracted critical IT capacity (Power chain)" if critical else
                      "contracted utility feed (Power chain), facility overhead included", fmt=USD)
    if i.choice("facility_model") == "colo":
        facility = s.calc("facility_capex", "Facility capex (colocation fit-out)", "USD", i.fit_out_capex, fmt=USD)
    else:
        facility = s.calc("facility_capex", "Facility capex (build, per MW of capacity)", "USD",
                          capacity * i.build_cost, "capacity x build cost per MW", fmt=USD)
    capex = s.calc("capex", "Total capex", "USD", it + facility, fmt=USD)
    return {"it": it, "facility": facility, "capex": capex, "capacity": capacity, "lead": lead}


def _running_costs(s: SheetBuilder, i: Inputs, power: PowerOut, capex: dict[str, Line]) -> dict[str, Any]:
    pue, load = power.pue_energy, power.it_energy_load
    s.section("Running costs per month in service, at today's prices")
    idle = s.calc("energy_idle", "Energy at zero utilisation", "USD/month",
                  load * i.idle_power_share * pue * i.electricity_price,
                  "IT load at the component sum x idle share x annual PUE x price x hours in a month (8760/12)",
                  fmt=USD)
    slope = s.calc("energy_per_utilisation", "Energy per unit of utilisation", "USD/month",
                   load * (1 - i.idle_power_share) * pue * i.electricity_price,
                   "IT load at the component sum x (1 - idle share) x annual PUE x price x hours: energy rises "
                   "linearly with utilisation",
                   fmt=USD)
    energy = s.calc("energy_cost", "Energy", "USD/month", idle + slope * i.utilisation,
                    "at zero utilisation + per unit of utilisation x utilisation", fmt=USD)
    if i.choice("facility_model") == "colo":
        facility = s.calc("colo_cost", "Colocation (capacity x price per kW-month)", "USD/month",
                          capex["capacity"] * i.colo_price, fmt=USD)
    else:
        facility = s.calc("facility_opex", "Facility maintenance", "USD/month",
                          capex["facility"] * i.facility_opex_rate, fmt=USD)
    support = s.calc("support_cost", "Hardware support", "USD/month", capex["it"] * i.support_rate, fmt=USD)
    staff = s.calc("staff", "Staff", "USD/month", i.staff_fte * i.staff_cost, fmt=USD)
    opex = s.calc("opex", "Running costs", "USD/month", energy + facility + support + staff, fmt=USD)
    return {"idle": idle, "slope": slope, "energy": energy, "facility": facility, "support": support,
            "staff": staff, "opex": opex}


def _rent(s: SheetBuilder, i: Inputs, p: Inputs) -> dict[str, Line]:
    gpus = p.gpus
    s.section("Rent per month of the same service, at today's prices")
    used = s.calc("used_gpu_hours", "GPU-hours used", "GPU-h/month", gpus * i.utilisation,
                  "GPUs x utilisation x hours in a month", fmt=USD)
    committed = s.calc("committed_gpu_hours", "GPU-hours reserved (paid whether used or not)", "GPU-h/month",
                       gpus * i.reserved_share, fmt=USD)
    on_demand = s.calc("on_demand_gpu_hours", "GPU-hours bought on demand", "GPU-h/month",
                       max_(0, used - committed), "used hours beyond the reservation", fmt=USD)
    hourly = s.calc("rent_hours_cost", "Rent for GPU-hours", "USD/month",
                    committed * i.reserved_price + on_demand * i.on_demand_price,
                    "reserved hours x reserved price + on-demand hours x on-demand price", fmt=USD)
    rent = s.calc("rent_cost", "Rent", "USD/month", hourly + i.rent_extras, "GPU-hours + storage and egress",
                  fmt=USD)
    s.calc("rent_price_effective", "Rent per GPU-hour used", "USD/GPU-h",
           safe_div(rent, used, "no GPU-hours used (utilisation is 0)"), fmt="0.000")
    return {"used": used, "hourly": hourly, "rent": rent}


def _schedule(c: SheetBuilder, i: Inputs, rate: Line, lead: Line) -> Schedule:
    """The monthly timeline: flags for order, delivery, construction, service and exit; years; discounting."""
    c.section("Timeline (the Start column is time 0, the order date)")
    month = c.calc("month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0, fmt=COUNT)
    dates = calendar.define(c, i.start_date, i.fiscal_year_end, month)
    length = c.calc("period_length", "Period length", "months", flag(month > 0 * MONTH) * MONTH, fmt=COUNT)
    year = c.calc("year", "Year of the timeline", "count", ceil(month / (12 * MONTH)),
                  "ROUNDUP(month / 12): 0 at the start, then 1, 2... (the P&L sums by it)", fmt=COUNT)
    life = i.useful_life
    end = lead + life
    in_service = c.calc("in_service", "In service (flag)", "flag", flag(month > lead) * flag(month <= end),
                        "after delivery (the lead time) until the end of the useful life", fmt=COUNT)
    order = c.calc("order_flag", "Order, time 0 (flag)", "flag", flag(month.eq(0 * MONTH)), fmt=COUNT)
    delivery = c.calc("delivery_flag", "Delivery (flag)", "flag", flag(month.eq(lead)),
                      "the end of the lead time: the capex balance is paid", fmt=COUNT)
    works = c.calc("construction_flag", "Facility works (flag)", "flag", flag(month > 0 * MONTH) * flag(month <= lead),
                   "the months of the lead time: facility capex paid in equal parts", fmt=COUNT)
    exit_ = c.calc("exit_flag", "Last month of service (flag)", "flag", flag(month.eq(end)),
                   "the residual value is received at its end", fmt=COUNT)
    discount = c.calc("discount_factor", "Discount factor at the cost of capital", "ratio",
                      1 / (1 + rate) ** (month / MONTH), "1 / (1 + monthly rate)^month", fmt="0.0000")
    return Schedule(month, year, lead, life, in_service, order, delivery, works, exit_, discount, length,
                    dates.fiscal_year)


def _index(c: SheetBuilder, key: str, label: str, change: Line, year: Line) -> Line:
    return c.calc(key, label, "ratio", (1 + change) ** max_(0, year - 1),
                  "(1 + change per year)^(year - 1): today's price in year 1", fmt="0.000")


def _owning_flows(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, capex: dict[str, Line],
                  running: dict[str, Any], rate: Line) -> dict[str, Line]:
    """Owning's unlevered cash out per month (after tax at the tax rate)."""
    c.section("Prices over time (indices on today's prices)")
    elec = _index(c, "electricity_index", "Electricity price index", i.electricity_escalation, when.year)
    fac_index = _index(c, "facility_index", "Facility price index", i.facility_escalation, when.year)
    c.section("Owning: cash out per month (unlevered)")
    lead_n = when.lead / MONTH
    it_flow = c.calc("it_capex_flow", "IT capex paid", "USD",
                     capex["it"] * (i.deposit_share * when.order + (1 - i.deposit_share) * when.delivery),
                     "deposit at order, the balance on delivery", fmt=USD)
    fac_flow = c.calc("facility_capex_flow", "Facility capex paid", "USD",
                      capex["facility"] * where(lead_n > 0, when.construction / max_(1, lead_n), when.order),
                      "in equal parts over the lead time (at the start without one)", fmt=USD)
    live = when.in_service * MONTH
    energy = c.calc("energy_flow", "Energy", "USD", live * elec * running["energy"], fmt=USD)
    fac_opex = c.calc("facility_opex_flow", "Colocation or facility maintenance", "USD",
                      live * fac_index * running["facility"], fmt=USD)
    support = c.calc("support_flow", "Hardware support", "USD", live * running["support"], fmt=USD)
    staff = c.calc("staff_flow", "Staff", "USD", live * running["staff"], fmt=USD)
    opex = c.calc("opex_flow", "Running costs", "USD", energy + fac_opex + support + staff, fmt=USD)
    dep = _depreciation(s, c, i, when, capex, rate)
    tax = c.calc("tax_flow", "Tax saved on running costs and depreciation", "USD", -i.tax_rate * (opex + dep["flow"]),
                 "-(tax rate) x (running costs + depreciation)", fmt=USD)
    residual = c.calc("residual_flow", "Residual value received, after tax", "USD",
                      -when.exit * (capex["it"] * i.residual_value * (1 - i.tax_rate) + dep["exit_value"]),
                      "IT: residual share of capex, taxed (fully depreciated); facility: its value left, taxed "
                      "on the gain over book value", fmt=USD)
    own = c.calc("own_flow", "Owning: cash out", "USD", it_flow + fac_flow + opex + tax + residual, fmt=USD)
    return {"it": it_flow, "facility": fac_flow, "opex": opex, "energy": energy, "facility_opex": fac_opex,
            "support": support, "staff": staff, "tax": tax, "residual": residual, "own": own, "elec": elec,
            **dep}


def _depreciation(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, capex: dict[str, Line],
                  rate: Line) -> dict[str, Line]:
    """Straight-line depreciation while in service, and the facility's book and economic value at exit."""
    build = i.choice("facility_model") == "build"
    life_n = when.life / MONTH
    fac_life = i.facility_life if build else when.life
    fac_n = fac_life / MONTH
    c.section("Depreciation (straight line while in service)")
    it_dep = c.calc("it_depreciation_flow", "Depreciation of IT capex", "USD",
                    when.in_service * capex["it"] / life_n, "IT capex / useful life in months", fmt=USD)
    fac_dep = c.calc("facility_depreciation_flow", "Depreciation of facility capex", "USD",
                     when.in_service * flag(when.month <= when.lead + fac_life) * capex["facility"] / fac_n,
                     "facility capex / its life in months (the IT life for a colocation fit-out)", fmt=USD)
    dep = c.calc("depreciation_flow", "Depreciation", "USD", it_dep + fac_dep, fmt=USD)
    s.section("The facility at the end of the IT life")
    left_n = s.calc("facility_months_left", "Facility life left at exit", "count", max_(0, fac_n - life_n),
                    "its depreciation life in months - the IT life in months", fmt="#,##0.0")
    book_share = s.calc("facility_book_share", "Facility book value at exit, per USD of capex", "ratio",
                        left_n / fac_n, "life left / life", fmt="0.0000")
    book_left = s.calc("facility_book_left", "Facility book value at exit", "USD",
                       capex["facility"] * book_share, "capex x (life left / life)", fmt=USD)
    value_share = _facility_value_share(s, i, fac_n, left_n, build, rate)
    value_left = s.calc("facility_value_left", "Facility value at exit", "USD", capex["facility"] * value_share,
                        "capex x value left per USD of capex", fmt=USD)
    exit_value = s.calc("facility_exit_value_after_tax", "Facility value at exit, after tax on the gain", "USD",
                        value_left * (1 - i.tax_rate) + i.tax_rate * book_left,
                        "value x (1 - tax) + tax x book value: as a sale at that value", fmt=USD)
    return {"it_dep": it_dep, "fac_dep": fac_dep, "flow": dep, "book_left": book_left, "value_left": value_left,
            "book_share": book_share, "value_share": value_share,
            "exit_value": exit_value}


def _facility_value_share(s: SheetBuilder, i: Inputs, fac_n: Node, left_n: Line, build: bool, r: Line) -> Line:
    """The facility's value at exit per USD of its capex. A share, not an amount: the loss at exit is capex x
    (book share - value share), so where the two are nearly equal (a cost of capital near 0) the difference is
    taken between numbers that do not carry the rounding of the capex chain."""
    if build and i.choice("facility_residual") == "stated":
        return s.calc("facility_value_share", "Facility value at exit, per USD of capex (stated)", "ratio",
                      1 * i.facility_exit_value, "the stated exit value", fmt="0.0000")
    return s.calc("facility_value_share", "Facility value at exit, per USD of capex (annuity value left)",
                  "ratio", where(left_n > 0, pmt(r, fac_n, 1) / pmt(r, left_n, 1), 0),
                  "the PV at exit of the level capital charges still to come: PMT(rate, life, 1) / PMT(rate, "
                  "months left, 1); life left / life at a 0% cost of capital", fmt="0.0000")


def _renting_flows(c: SheetBuilder, i: Inputs, when: Schedule, rent: dict[str, Line]) -> dict[str, Line]:
    c.section("Renting: cash out per month (the same GPU-hours in the same months)")
    index = _index(c, "rent_index", "Rent price index", i.rent_price_change, when.year)
    flow = c.calc("rent_flow", "Renting: cash out", "USD",
                  when.in_service * MONTH * (index * rent["hourly"] + i.rent_extras) * (1 - i.tax_rate),
                  "in service x (GPU-hour rent x index + extras) x (1 - tax): rent is deductible", fmt=USD)
    return {"index": index, "rent": flow}


def _present_values(c: SheetBuilder, i: Inputs, p: Inputs, when: Schedule, running: dict[str, Any],
                    flows: dict[str, Line], rent_flows: dict[str, Line]) -> dict[str, Line]:
    c.section("Discounted (present value at time 0)")
    df, live = when.discount, when.in_service
    own = c.calc("own_pv", "Owning: cash out, discounted", "USD", flows["own"] * df, fmt=USD)
    rent = c.calc("rent_pv", "Renting: cash out, discounted", "USD", rent_flows["rent"] * df, fmt=USD)
    service = c.calc("service_pv", "Months in service, discounted", "months", live * df * MONTH, fmt="0.000")
    hours = c.calc("full_gpu_hours_pv", "GPU-hours at full use, discounted", "GPU-h",
                   live * p.gpus * MONTH * df, "GPUs x hours in the month x discount", fmt=USD)
    after_tax = 1 - i.tax_rate
    slope = c.calc("energy_slope_pv", "Energy per unit of utilisation, discounted", "USD",
                   live * MONTH * flows["elec"] * running["slope"] * after_tax * df, fmt=USD)
    on_demand = c.calc("on_demand_slope_pv", "On-demand rent per unit of utilisation, discounted", "USD",
                       live * MONTH * rent_flows["index"] * p.gpus * i.on_demand_price * after_tax * df,
                       "GPUs x hours x on-demand price x rent index x (1 - tax) x discount", fmt=USD)
    extras = c.calc("extras_pv", "Rent extras, discounted", "USD", live * MONTH * i.rent_extras * after_tax * df,
                    fmt=USD)
    return {"own": own, "rent": rent, "service": service, "hours": hours, "energy_slope": slope,
            "on_demand_slope": on_demand, "extras": extras}


def _payback(c: SheetBuilder, when: Schedule, own: Line, rent: Line, pv: dict[str, Line]) -> dict[str, Node]:
    """The first month in service when cumulative owning is at most cumulative renting, plain and discounted."""
    out = {}
    for key, label, own_row, rent_row in (("plain", "", own, rent),
                                          ("discounted", ", discounted", pv["own"], pv["rent"])):
        c.section(f"Payback{label}")
        tag = "" if key == "plain" else "_pv"
        cum_own = c.calc(f"own_cumulative{tag}", f"Owning: cumulative cash out{label}", "USD",
                         lambda me, row=own_row: prev(me) + row, opening=own_row, fmt=USD)
        cum_rent = c.calc(f"rent_cumulative{tag}", f"Renting: cumulative cash out{label}", "USD",
                          lambda me, row=rent_row: prev(me) + row, opening=rent_row, fmt=USD)
        crossed = c.calc(f"paid_back{tag}", f"Paid back{label} (flag, from the first such month)", "flag",
                         lambda me, a=cum_own, b=cum_rent: max_(prev(me), when.in_service * flag(a <= b)),
                         "running maximum: 1 from the first month in service when owning <= renting, cumulatively",
                         opening=0, fmt=COUNT)
        first = c.calc(f"payback_flag{tag}", f"Payback month{label} (flag)", "flag", crossed - prev(crossed),
                       opening=0, fmt=COUNT)
        at = c.calc(f"payback_month_flow{tag}", f"Payback month{label} (flag x month)", "months",
                    first * when.month, fmt=COUNT)
        out[key] = safe_div(total(at), total(first), "not within the timeline")
    return out


def _answers(s: SheetBuilder, c: SheetBuilder, i: Inputs, p: Inputs, when: Schedule, capex: dict[str, Line],
             running: dict[str, Any], rent: dict[str, Line], flows: dict[str, Line], rent_flows: dict[str, Line],
             rate: Line) -> dict[str, Line]:
    """Present values, payback both ways, and the decision's answers."""
    pv = _present_values(c, i, p, when, running, flows, rent_flows)
    payback = _payback(c, when, flows["own"], rent_flows["rent"], pv)
    c.section("Buying instead of renting")
    savings = c.calc("savings_flow", "Buying instead of renting: net cash", "USD", rent_flows["rent"] - flows["own"],
                     "renting's cash out - owning's: what buying saves each month (the IRR's flows)", fmt=USD)
    s.section("Answers: the decision (unlevered, at the cost of capital)")
    npv_own = s.calc("npv_own", "NPV of owning (cost)", "USD", total(pv["own"]),
                     "SUM of owning's discounted cash out", fmt=USD)
    npv_rent = s.calc("npv_rent", "NPV of renting (cost)", "USD", total(pv["rent"]), fmt=USD)
    s.calc("npv_advantage", "NPV advantage of buying (renting - owning)", "USD", npv_rent - npv_own,
           "positive: buying is cheaper", fmt=USD)
    s.calc("irr_buy", "IRR of buying instead of renting (annual)", "%",
           irr(savings, rate, "none: buying never recovers its cost against renting", per_year=12),
           "IRR of the monthly net cash from time 0 (Newton from the monthly cost of capital), annualised",
           fmt="0.0%")
    months = s.calc("pv_service_months", "Service months, discounted", "months", total(pv["service"]),
                    "SUM of the discount factor over the months in service: the annuity factor", fmt="#,##0.00")
    s.calc("owned_annual_cost", "Owned cost per year (equivalent annual cost)", "USD/year",
           safe_div(npv_own, months, NO_SERVICE),
           "NPV of owning / discounted service months x 12: the level cost per year of service with the same NPV",
           fmt=USD)
    full = s.calc("pv_full_gpu_hours", "GPU-hours at full use, discounted", "GPU-h", total(pv["hours"]), fmt=USD)
    hours = s.calc("pv_gpu_hours", "GPU-hours used, discounted", "GPU-h", i.utilisation * full, fmt=USD)
    s.calc("owned_cost_per_gpu_hour", "Owned cost per GPU-hour used (levelised)", "USD/GPU-h",
           safe_div(npv_own, hours, NO_HOURS),
           "NPV of owning / discounted GPU-hours used", fmt="0.000")
    energy = s.calc("npv_energy_per_utilisation", "NPV of energy per unit of utilisation", "USD",
                    total(pv["energy_slope"]), fmt=USD)
    on_demand = s.calc("npv_on_demand_per_utilisation", "NPV of on-demand rent per unit of utilisation", "USD",
                       total(pv["on_demand_slope"]), fmt=USD)
    fixed = s.calc("npv_own_without_utilisation", "NPV of owning at zero utilisation", "USD",
                   npv_own - i.utilisation * energy,
                   "NPV of owning - utilisation x NPV of the energy per unit of utilisation", fmt=USD)
    gap = s.calc("break_even_denominator", "NPV per unit of utilisation: on-demand rent - energy", "USD",
                 on_demand - energy, "what one more unit of utilisation saves by owning", fmt=USD)
    s.calc("break_even_utilisation", "Break-even utilisation (vs on-demand rent)", "%",
           safe_div(fixed - total(pv["extras"]), gap, "none: energy costs as much as on-demand rent"),
           "the utilisation at which the NPVs of owning and of renting on demand are equal: (NPV of owning at zero "
           "utilisation - NPV of rent extras) / (on-demand rent - energy, per unit); above 100%: never",
           fmt=BREAK_EVEN)
    s.calc("payback_month", "Payback month (undiscounted: ignores the cost of capital)", "months",
           payback["plain"], "the first month in service when cumulative owning <= cumulative renting", fmt=COUNT)
    s.calc("discounted_payback_month", "Payback month (discounted at the cost of capital)", "months",
           payback["discounted"], "the same on discounted cash: from here the NPV of buying is positive", fmt=COUNT)
    s.calc("total_own", "Owning: total cash out over the timeline", "USD", total(flows["own"]), fmt=USD)
    s.calc("total_rent", "Renting: total cash out over the timeline", "USD", total(rent_flows["rent"]), fmt=USD)
    _delay(s, i, capex, running, rent, rate)
    return {"npv_own": npv_own, "fixed": fixed, "energy": energy, "on_demand": on_demand, "full_hours": full}


def _useful(s: SheetBuilder, used: Line, npv_own: Line, goodput: Line) -> None:
    """The owned cost per GPU-hour of useful work: interruptions and checkpoints cost the job its goodput. Renting
    the same GPUs for the same job loses the same share, so the rent-vs-buy answers above keep their basis (GPU-hours
    used); this is the cost of the work those hours do."""
    s.section("Useful GPU-hours (utilisation x goodput: interruptions and checkpoints, Reliability sheet)")
    useful = s.calc("pv_useful_gpu_hours", "Useful GPU-hours, discounted", "GPU-h", used * goodput,
                    "GPU-hours used x goodput at the chosen checkpoint interval", fmt=USD)
    s.calc("owned_cost_per_useful_gpu_hour", "Owned cost per useful GPU-hour (levelised)", "USD/GPU-h",
           safe_div(npv_own, useful, "no useful GPU-hours (utilisation or goodput is 0)"),
           "NPV of owning / discounted useful GPU-hours: the rent-vs-buy comparison stays on GPU-hours used, since "
           "renting the same job loses the same share", fmt="0.000")


def _delay(s: SheetBuilder, i: Inputs, capex: dict[str, Line], running: dict[str, Any], rent: dict[str, Line],
           rate: Line) -> None:
    s.section("A month of delay (service starts one month later)")
    hours = s.calc("delay_gpu_hours", "A month of delay: GPU-hours lost", "GPU-h", rent["used"] * MONTH,
                   "GPU-hours the cluster would have delivered in the month", fmt=USD)
    replace = s.calc("delay_rent", "Renting the lost GPU-hours on demand", "USD", hours * i.on_demand_price,
                     fmt=USD)
    carry = s.calc("delay_carry", "Carry on the capital paid before service", "USD", capex["capex"] * rate,
                   "the capex waits one more month for its first service: a month at the cost of capital", fmt=USD)
    fixed = s.calc("delay_fixed_costs", "Fixed costs of a month without service", "USD",
                   (running["facility"] + running["staff"]) * MONTH,
                   "colocation (or facility maintenance) and staff are paid while the cluster waits", fmt=USD)
    s.calc("delay_cost", "A month of delay: cost", "USD", replace + carry + fixed,
           "rent for the lost GPU-hours + carry on the capital + fixed costs (today's prices)", fmt=USD)


def _financing(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, flows: dict[str, Line],
               span: Line, npv_own: Line) -> dict[str, Line]:
    """A loan drawn with the capex payments, interest capitalised until service starts, then repaid in level
    monthly payments over its term. Shown beside the decision: its own value (APV) and the equity's cash."""
    s.section("Financing (beside the decision, not in it)")
    rate = s.calc("loan_monthly_rate", "Loan rate per month", "%", (1 + i.loan_rate) ** (Const(1) / 12) - 1,
                  "(1 + annual rate)^(1/12) - 1", fmt="0.000%")
    term = s.calc("loan_term_months", "Loan term", "months", i.loan_term, fmt="#,##0.0")
    c.section("Loan: drawn with the capex, interest capitalised until service, then level payments")
    drawn = c.calc("loan_draw_flow", "Loan drawn", "USD", i.loan_share * (flows["it"] + flows["facility"]),
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
    shield = c.calc("interest_tax_flow", "Tax saved on interest", "USD", -i.tax_rate * interest, fmt=USD)
    debt_df = c.calc("loan_discount_factor", "Discount factor at the loan rate", "ratio",
                     1 / (1 + rate) ** (when.month / MONTH), fmt="0.0000")
    shield_pv = c.calc("interest_tax_pv", "Tax saved on interest, discounted at the loan rate", "USD",
                       shield * debt_df, fmt=USD)
    financing = c.calc("financing_flow", "Financing: cash out (paid - drawn - tax saved)", "USD",
                       paid - drawn + shield, fmt=USD)
    equity = c.calc("equity_flow", "Equity: cash out (owning + financing)", "USD", flows["own"] + financing, fmt=USD)
    cumulative = c.calc("equity_cumulative", "Equity: cumulative cash out", "USD", lambda me: prev(me) + equity,
                        opening=equity, fmt=USD)
    value = s.calc("financing_value", "Value of the financing (APV adjustment)", "USD", -total(shield_pv),
                   "PV of the tax saved on interest, at the loan rate. At its own rate the payments repay exactly "
                   "what is drawn (PV of drawn = PV of paid), so the tax shield is the financing's whole value",
                   fmt=USD)
    s.calc("apv_own", "Adjusted present value of owning (cost)", "USD", npv_own - value,
           "NPV of owning (unlevered) - the value of the financing", fmt=USD)
    s.calc("peak_funding", "Peak equity funding (largest cumulative cash out)", "USD", largest(cumulative), fmt=USD)
    last = c.calc("loan_last_payment_ok", "Last payment within 1 USD of the level payment", "TRUE/FALSE",
                  any_(when.month.ne(end), max_(paid - payment, payment - paid) < DOLLAR),
                  "TRUE except in the last month of the term, where the payment that clears the loan must be the "
                  "level payment (the PMT schedule repays the loan exactly)", fmt="BOOLEAN")
    s.check("loan_repaid_in_term", "The level payments repay the loan by the end of its term (to 1 USD)",
            all_over(last), validity=True)
    s.check("loan_within_timeline", "The lead time and the loan term fit the timeline", when.lead + term <= span,
            validity=True)
    return {"drawn": drawn, "paid": paid, "interest": interest, "shield": shield, "financing": financing,
            "equity": equity}


def _profit_and_loss(scope: Scope, i: Inputs, when: Schedule, capex: dict[str, Line], flows: dict[str, Line],
                     debt: dict[str, Line] | None) -> None:
    """The yearly P&L and cash view (roll-ups of the monthly rows), tied to each other year by year."""
    c = scope.sheet(CASH_SHEET)
    c.section("For the P&L: capex, the result at exit, and the changes in assets and debt")
    capex_flow = c.calc("capex_flow", "Capex paid", "USD", flows["it"] + flows["facility"], fmt=USD)
    exit_loss = c.calc("exit_loss_flow", "Loss (gain) at exit, before tax", "USD",
                       when.exit * (capex["facility"] * (flows["book_share"] - flows["value_share"])
                                    - capex["it"] * i.residual_value),
                       "book value written off - value received (facility value left + IT residual)", fmt=USD)
    assets = c.calc("asset_change_flow", "Change in assets' book value", "USD",
                    capex_flow - flows["flow"] - when.exit * flows["book_left"],
                    "capex - depreciation - book value written off at exit", fmt=USD)
    y = scope.sheet(PL_SHEET)
    years = when.fiscal_year  # the P&L's columns are fiscal years (models.calendar)
    y.section("P&L: the cost of the cluster by year (no revenue; costs positive)")
    lines = [y.calc(f"pl_{key}", label, "USD", rollup(flows[key], years), fmt=USD)
             for key, label in (("energy", "Energy"), ("facility_opex", "Colocation or facility maintenance"),
                                ("support", "Hardware support"), ("staff", "Staff"))]
    opex = y.calc("pl_opex", "Operating costs (EBITDA-style cost)", "USD", sum(lines[1:], lines[0]), fmt=USD)
    dep = y.calc("pl_depreciation", "Depreciation", "USD", rollup(flows["flow"], years), fmt=USD)
    parts = [opex, dep]
    if debt is not None:
        parts.append(y.calc("pl_interest", "Interest", "USD", rollup(debt["interest"], years), fmt=USD))
    parts.append(y.calc("pl_exit", "Loss (gain) at exit", "USD", rollup(exit_loss, years), fmt=USD))
    before_tax = y.calc("pl_cost", "Cost before tax", "USD", sum(parts[1:], parts[0]), fmt=USD)
    after_tax = y.calc("pl_cost_after_tax", "Cost after tax", "USD", before_tax * (1 - i.tax_rate),
                       "cost before tax - tax saved at the tax rate", fmt=USD)
    y.section("Cash view by year (what is paid; the decision's flows)")
    y.calc("cash_capex", "Capex paid", "USD", rollup(capex_flow, years), fmt=USD)
    y.calc("cash_opex", "Running costs paid", "USD", rollup(flows["opex"], years), fmt=USD)
    y.calc("cash_tax", "Tax saved on running costs and depreciation", "USD", rollup(flows["tax"], years), fmt=USD)
    y.calc("cash_residual", "Residual value received, after tax", "USD", rollup(flows["residual"], years),
           fmt=USD)
    cash = y.calc("cash_own", "Owning: cash out (unlevered)", "USD", rollup(flows["own"], years), fmt=USD)
    debt_change = None
    if debt is not None:
        y.calc("cash_financing", "Financing: paid - drawn - tax saved on interest", "USD",
               rollup(debt["financing"], years), fmt=USD)
        cash = y.calc("cash_equity", "Equity: cash out", "USD", rollup(debt["equity"], years), fmt=USD)
        change = c.calc("debt_change_flow", "Change in debt", "USD", debt["drawn"] + debt["interest"] - debt["paid"],
                        "drawn + interest - paid", fmt=USD)
        debt_change = y.calc("pl_debt_change", "Change in debt", "USD", rollup(change, years), fmt=USD)
    y.section("Tie-out: cash out = cost after tax + change in assets - change in debt")
    asset_change = y.calc("pl_asset_change", "Change in assets' book value", "USD", rollup(assets, years),
                          fmt=USD)
    reconciled = after_tax + asset_change if debt_change is None else after_tax + asset_change - debt_change
    explained = y.calc("pl_explained_cash", "Cost after tax + change in assets - change in debt", "USD", reconciled,
                       "should equal the cash out above", fmt=USD)
    ties = y.calc("pl_ties", "Ties to the cash out, to the dollar", "TRUE/FALSE",
                  max_(cash - explained, explained - cash) < DOLLAR, fmt="BOOLEAN")
    y.check("pl_ties_to_cash", "The yearly P&L ties to the cash flows (to the dollar, every year)", all_over(ties),
            validity=True)


def _cost_curve(s: SheetBuilder, i: Inputs, answers: dict[str, Line]) -> tuple[tuple[Line, ...], tuple[Line, ...]]:
    """Utilisation points and the owned cost at each (the Summary's chart)."""
    s.section("Cost per GPU-hour against utilisation (levelised, as the answers above)")
    step = i.utilisation_step
    points: list[Line] = []
    for k in range(1, CURVE_POINTS + 1):
        points.append(s.calc(f"curve_utilisation_{k}", f"Utilisation point {k}", "%",
                             points[-1] + step if points else step, fmt=PERCENT))
    owned = []
    for k, u in enumerate(points, start=1):
        owned.append(s.calc(f"curve_owned_{k}", f"Owned cost per GPU-hour at point {k}", "USD/GPU-h",
               safe_div(answers["fixed"] + u * answers["energy"], u * answers["full_hours"], NO_SERVICE),
               "(NPV of owning at zero utilisation + utilisation x NPV of energy per unit) / (utilisation x "
               "discounted GPU-hours at full use)", fmt="0.000"))
    s.calc("curve_on_demand", "On-demand rent per GPU-hour, levelised", "USD/GPU-h",
           safe_div(answers["on_demand"], answers["full_hours"], NO_SERVICE),
           "NPV of on-demand rent per unit of utilisation / discounted GPU-hours at full use: today's price with "
           "its yearly change, after tax", fmt="0.000")
    return tuple(points), tuple(owned)


def summarise(book: Book, s: SheetBuilder, tco: TcoOut) -> None:
    """The answers on the Summary, the scenario comparison (a view of live lines), and the Summary's charts."""
    s.section("Rent vs buy (TCO sheet)")
    for line in [*tco.key_figures, tco.capex, tco.owned_annual_cost, tco.delay_gpu_hours]:
        s.show(line)
    for line in (tco.owned_cost_per_useful_gpu_hour, tco.financing_value, tco.apv_own, tco.peak_funding):
        if line is not None:
            s.show(line)
    lines = tco.key_figures
    if book.scenarios:
        columns = [("Base", "the Inputs sheet", lines)]
        for name, mapping in book.scenarios.items():
            changed = ", ".join(
                f"{line.label.removesuffix(f' [{name}]')} = "
                f"{shown_value(float(line.value.reshape(-1)[0]), line.unit_text)}"
                for line in mapping.values() if line.kind == "input")
            columns.append((name.replace("_", " "), changed, [mapping.get(line.id, line) for line in lines]))
        book.views.append(View(
            COMPARISON, "Scenario comparison",
            "Each column is a live calculation: the base case, then each scenario of the site file (its changed "
            "inputs are on the Inputs sheet, its recalculated lines on the Scenarios sheet). Cells only refer to them.",
            [line.label for line in lines], [line.unit_text for line in lines], [line.fmt for line in lines],
            columns, chart_rows=[lines.index(tco.npv_own), lines.index(tco.npv_rent)],
            chart_title="NPV of owning and renting by scenario (USD)"))
    book.charts.append(Chart(SUMMARY, "Cumulative cash out: owning vs renting (USD)", "line",
                             [tco.own_cumulative, tco.rent_cumulative], y_title="USD", x_title="month",
                             periods=tco.service_months))
    book.charts.append(Chart(SUMMARY, "Owned cost per GPU-hour against utilisation (levelised, USD)", "scatter",
                             list(tco.curve_owned), y_title="USD per GPU-hour", x_title="utilisation",
                             categories=list(tco.curve_utilisation)))
