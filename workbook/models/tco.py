"""Rent vs buy: capex, financing, opex and rent over one monthly timeline, and the answers finance asks for.

Flows are amounts in each month (USD), at the month's end, as Excel's NPV assumes. Owning is costed as an
equivalent annual cost (EAC): the level annual payment with the same NPV at the cost of capital over the
useful life, so capital has a price whether the capex is paid in cash or with a loan.
"""

from __future__ import annotations

from typing import Any

from workbook.formula.expr import Const, Node
from workbook.formula.functions import flag, irr, max_, npv, pmt, prev, safe_div, total
from workbook.formula.line import COUNT, PERCENT, Book, Chart, SheetBuilder, View
from workbook.inputs import Spec
from workbook.models.base import AllInputs

TITLE, PREFIX = "TCO", "tco"
COMPARISON = "Scenario comparison"
MONTH = Const(1, "fmonth")  # one period of the timeline
CURVE_POINTS = 10  # utilisation points on the cost curve: step, 2 x step, ...

_USD = dict(expect="an amount of money", example="270000 USD", lo=0.0, fmt="#,##0")
_SHARE = dict(expect="a fraction", example="0.1", lo=0.0, hi=1.0, fmt=PERCENT)
_PRICE = dict(expect="a price per GPU-hour", example="2.99 USD/GPU/hour", lo=0.0, lo_open=True, fmt="0.000")

INPUTS = [
    Spec("tco.horizon", "Timeline length (months across the TCO sheet)", "months", "a duration", "96 months",
         lo=12, hi=240, integer=True, structural=True, default="96 months", fmt=COUNT),
    Spec("tco.facility_model", "Facility: colocation or own build", "", "a choice", "colo",
         choices=("colo", "build"), default="colo"),
    Spec("tco.financing", "Financing of the capex", "", "a choice", "cash", choices=("cash", "loan"),
         default="cash"),
    Spec("tco.sensitivity_swing", "Sensitivity swing (+/- on each input)", "%", "a fraction", "0.2",
         lo=0.01, hi=0.9, structural=True, default=0.2),
    Spec("tco.server_price", "Price per node (server, installed)", "USD", **_USD),
    Spec("tco.switch_price", "Price per network switch", "USD", **_USD),
    Spec("tco.transceiver_price", "Price per optical transceiver", "USD", **_USD),
    Spec("tco.cable_price", "Price per cable", "USD", **_USD),
    Spec("tco.oob_switch_price", "Price per out-of-band management switch", "USD", **_USD),
    Spec("tco.storage_capex", "Shared storage capex", "USD", **_USD),
    Spec("tco.fit_out_capex", "Colocation fit-out capex (cages, PDUs, containment)", "USD",
         when=("tco.facility_model", "colo"), **_USD),
    Spec("tco.colo_price", "Colocation price per kW-month of contracted feed", "USD/kW-month",
         "a price per kW-month", "184 USD/kW/month", lo=0.0, when=("tco.facility_model", "colo")),
    Spec("tco.build_cost", "Facility build cost per MW of contracted feed", "USD/MW", "a price per MW",
         "11.7e6 USD/MW", lo=0.0, when=("tco.facility_model", "build"), fmt="#,##0"),
    Spec("tco.facility_life", "Facility depreciation life", "years", "a duration", "20 years", lo=1.0, hi=60.0,
         when=("tco.facility_model", "build")),
    Spec("tco.facility_opex_rate", "Facility maintenance per year, share of build cost", "share/year",
         "a share per year", "0.02 / year", lo=0.0, hi=1.0, when=("tco.facility_model", "build"), fmt=PERCENT),
    Spec("tco.cost_of_capital", "Cost of capital (annual)", "%", **{**_SHARE, "example": "0.1"}),
    Spec("tco.loan_share", "Share of capex financed by the loan", "%", when=("tco.financing", "loan"), **_SHARE),
    Spec("tco.loan_rate", "Loan interest rate (annual)", "%", when=("tco.financing", "loan"), **_SHARE),
    Spec("tco.loan_term", "Loan term", "years", "a duration", "4 years", lo=0.25, hi=30.0,
         when=("tco.financing", "loan")),
    Spec("tco.useful_life", "Useful life of the IT equipment", "years", "a duration", "5 years", lo=0.25,
         hi=20.0),
    Spec("tco.residual_value", "Residual value at end of life, share of IT capex", "%", **_SHARE),
    Spec("tco.electricity_price", "Electricity price", "USD/kWh", "a price of energy", "0.08 USD/kWh",
         lo=0.0, fmt="0.0000"),
    Spec("tco.idle_power_share", "Power drawn at idle, share of design IT load", "%", **_SHARE),
    Spec("tco.utilisation", "Utilisation (share of GPU-hours doing work)", "%", **_SHARE),
    Spec("tco.support_rate", "Hardware support per year, share of IT capex", "share/year", "a share per year",
         "0.08 / year", lo=0.0, hi=1.0, fmt=PERCENT),
    Spec("tco.staff_fte", "Operations staff", "FTE", "a head count", "4", lo=0.0, fmt="#,##0.0"),
    Spec("tco.staff_cost", "Cost per FTE per year", "USD/year", "a cost per year", "200000 USD/year", lo=0.0,
         fmt="#,##0"),
    Spec("tco.on_demand_price", "Rent: on-demand price", "USD/GPU-h", **_PRICE),
    Spec("tco.reserved_price", "Rent: reserved (committed) price", "USD/GPU-h", **_PRICE),
    Spec("tco.reserved_share", "Rent: share of GPUs reserved (hours paid whether used or not)", "%", **_SHARE),
    Spec("tco.rent_extras", "Rent: storage and egress per month", "USD/month", "a cost per month",
         "20000 USD/month", lo=0.0, default="0 USD/month", fmt="#,##0"),
    Spec("tco.utilisation_step", "Cost curve: utilisation step", "%", "a fraction", "0.1", lo=0.01, hi=0.1,
         default=0.1, fmt=PERCENT),
]

# The inputs of the sensitivity tornado (issue 4): each moved by +/- the swing, one at a time.
SENSITIVITY = ["tco.electricity_price", "power.pue", "tco.utilisation", "tco.server_price", "tco.useful_life",
               "tco.cost_of_capital", "tco.on_demand_price"]


def define(book: Book, inputs: AllInputs) -> None:
    i, p = inputs.tco, inputs.power
    L = book.lines
    horizon = int(i.choice("horizon"))
    book.timeline([f"M{t}" for t in range(1, horizon + 1)])
    s = book.sheet(TITLE, PREFIX)
    colo = i.choice("facility_model") == "colo"
    loan = i.choice("financing") == "loan"
    gpus, feed = p.gpus, L["power.contracted_feed"]
    pue = L["power.pue_effective"] if "power.pue_effective" in L else p.pue  # noqa: SIM401 - p.pue may not exist

    s.section("Capex")
    servers = s.calc("servers_capex", "Servers", "USD", L["power.nodes"] * i.server_price, fmt="#,##0")
    network = s.calc(
        "network_capex", "Network: switches, transceivers, cables", "USD",
        L["fabric.switches_total"] * i.switch_price + L["fabric.transceivers_total"] * i.transceiver_price
        + L["fabric.cables_total"] * i.cable_price + L["fabric.oob_switches"] * i.oob_switch_price,
        "compute, storage and out-of-band network counts from the Fabric sheet x unit prices", fmt="#,##0")
    it_capex = s.calc("it_capex", "IT capex", "USD", servers + network + i.storage_capex,
                      "servers + network + storage", fmt="#,##0")
    if colo:
        facility_capex = s.calc("facility_capex", "Facility capex (colocation fit-out)", "USD", i.fit_out_capex,
                                fmt="#,##0")
    else:
        facility_capex = s.calc("facility_capex", "Facility capex (build, per MW of feed)", "USD",
                                feed * i.build_cost, fmt="#,##0")
    capex = s.calc("capex", "Total capex", "USD", it_capex + facility_capex, fmt="#,##0")

    s.section("Financing")
    rate = s.calc("monthly_rate", "Cost of capital per month", "%", (1 + i.cost_of_capital) ** (Const(1) / 12) - 1,
                  "(1 + annual rate)^(1/12) - 1", fmt="0.000%")
    life = s.calc("life_months", "Useful life", "months", i.useful_life, fmt="#,##0.0")
    life_n = s.calc("life_periods", "Useful life in periods", "count", life / MONTH, fmt="#,##0.0")
    upfront = capex
    if loan:
        borrowed = s.calc("loan_amount", "Loan amount", "USD", capex * i.loan_share, fmt="#,##0")
        term = s.calc("loan_term_months", "Loan term", "months", i.loan_term, fmt="#,##0.0")
        loan_rate = s.calc("loan_monthly_rate", "Loan rate per month", "%",
                           (1 + i.loan_rate) ** (Const(1) / 12) - 1, fmt="0.000%")
        payment = s.calc("loan_payment", "Loan payment per month", "USD/month",
                         -pmt(loan_rate, term / MONTH, borrowed) / MONTH, "-PMT(rate, term, amount)", fmt="#,##0")
        upfront = s.calc("equity_capex", "Capex paid from equity", "USD", capex - borrowed, fmt="#,##0")

    s.section("Running costs (per month while in service)")
    def average_it(utilisation: Any) -> Node:  # one definition for the base case and the cost curve
        return L["power.it_load"] * (i.idle_power_share + (1 - i.idle_power_share) * utilisation)

    def energy_of(average: Any) -> Node:
        return average * pue * i.electricity_price

    avg_it = s.calc("average_it_power", "Average IT power at this utilisation", "kW", average_it(i.utilisation),
                    "IT load x (idle share + (1 - idle share) x utilisation)")
    energy = s.calc("energy_cost", "Energy", "USD/month", energy_of(avg_it),
                    "average IT power x PUE x price x hours in a month (8760/12)", fmt="#,##0")
    if colo:
        facility_opex = s.calc("colo_cost", "Colocation (per kW-month of contracted feed)", "USD/month",
                               feed * i.colo_price, fmt="#,##0")
    else:
        facility_opex = s.calc("facility_opex", "Facility maintenance", "USD/month",
                               facility_capex * i.facility_opex_rate, fmt="#,##0")
    support = s.calc("support_cost", "Hardware support", "USD/month", it_capex * i.support_rate, fmt="#,##0")
    staff = s.calc("staff", "Staff", "USD/month", i.staff_fte * i.staff_cost, fmt="#,##0")
    opex = s.calc("opex", "Running costs", "USD/month", energy + facility_opex + support + staff, fmt="#,##0")

    s.section("Rent (per month of the same service)")
    used = s.calc("used_gpu_hours", "GPU-hours used", "GPU-h/month", gpus * i.utilisation,
                  "GPUs x utilisation x hours in a month", fmt="#,##0")
    committed = s.calc("committed_gpu_hours", "GPU-hours reserved (paid whether used or not)", "GPU-h/month",
                       gpus * i.reserved_share, fmt="#,##0")
    on_demand = s.calc("on_demand_gpu_hours", "GPU-hours bought on demand", "GPU-h/month",
                       max_(0, used - committed), "used hours beyond the reservation", fmt="#,##0")
    rent = s.calc("rent_cost", "Rent", "USD/month",
                  committed * i.reserved_price + on_demand * i.on_demand_price + i.rent_extras,
                  "reserved hours x reserved price + on-demand hours x on-demand price + extras", fmt="#,##0")
    s.calc("rent_price_effective", "Rent per GPU-hour used", "USD/GPU-h",
           safe_div(rent, used, "no GPU-hours used (utilisation is 0)"), fmt="0.000")

    s.section("Timeline")
    month = s.calc("month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0, fmt=COUNT)
    period = s.calc("period_length", "Period length", "months", flag(month > 0) * MONTH, fmt=COUNT)
    live = s.calc("in_service", "In service (flag)", "flag", flag(month <= life), fmt=COUNT)
    first = s.calc("first_month", "First month (flag)", "flag", flag(month.eq(MONTH)), fmt=COUNT)
    last = s.calc("last_month", "Last month of service (flag)", "flag", live * flag(month + MONTH > life), fmt=COUNT)

    s.section("Owning: cash out per month")
    capex_flow = s.calc("capex_flow", "Capex paid", "USD", first * upfront, fmt="#,##0")
    flows = [capex_flow]
    if loan:
        flows.append(s.calc("loan_flow", "Loan payments", "USD", flag(month <= term) * payment * MONTH, fmt="#,##0"))
    flows.append(s.calc("opex_flow", "Running costs", "USD", live * opex * MONTH, fmt="#,##0"))
    residual = s.calc("residual_flow", "Residual value received", "USD", last * it_capex * i.residual_value,
                      "IT capex x residual share, in the last month of service", fmt="#,##0")
    if not colo:
        flows.append(s.calc("facility_residual_flow", "Facility value left (straight line), received", "USD",
                            -last * facility_capex * max_(0, 1 - life / i.facility_life),
                            "the facility outlives the IT: its undepreciated value is credited", fmt="#,##0"))
    own = s.calc("own_flow", "Owning: cash out", "USD", sum(flows[1:], flows[0]) - residual, fmt="#,##0")
    cum_own = s.calc("own_cumulative", "Owning: cumulative cost", "USD", lambda me: prev(me) + own, opening=0,
                     fmt="#,##0")

    s.section("Renting: cash out per month")
    rent_flow = s.calc("rent_flow", "Renting: cash out", "USD", live * rent * MONTH, fmt="#,##0")
    cum_rent = s.calc("rent_cumulative", "Renting: cumulative cost", "USD", lambda me: prev(me) + rent_flow,
                      opening=0, fmt="#,##0")
    hours = s.calc("gpu_hours_flow", "GPU-hours used", "GPU-h", live * used * MONTH, fmt="#,##0")

    s.section("Break-even over time")
    savings = s.calc("savings_flow", "Buying instead of renting: net cash", "USD", rent_flow - own, fmt="#,##0")
    crossed = s.calc("crossed", "Owning cumulatively cheaper, from the first such month (flag)", "flag",
                     lambda me: max_(prev(me), flag(cum_own <= cum_rent)),
                     "running maximum: 1 from the first month cumulative owning <= cumulative renting",
                     opening=0, fmt=COUNT)
    first_cross = s.calc("break_even_flag", "Break-even month (flag)", "flag", crossed - prev(crossed), fmt=COUNT)
    cross_month = s.calc("break_even_month_flow", "Break-even month (flag x month)", "months", first_cross * month,
                         fmt=COUNT)
    s.calc("break_even_marker", "Break-even marker (for the chart)", "USD", first_cross * cum_own, fmt="#,##0")

    s.section("Answers")
    npv_own = s.calc("npv_own", "NPV of owning (cost)", "USD", npv(rate, own),
                     "NPV(monthly rate, owning cash out): flows at month ends", fmt="#,##0")
    npv_rent = s.calc("npv_rent", "NPV of renting (cost)", "USD", npv(rate, rent_flow), fmt="#,##0")
    s.calc("npv_advantage", "NPV advantage of buying (renting - owning)", "USD", npv_rent - npv_own, fmt="#,##0")
    s.calc("irr_buy", "IRR of buying instead of renting (annual)", "%",
           irr(savings, rate, "none: buying never recovers its cost against renting", per_year=12),
           "IRR of the monthly net cash (Newton from the monthly cost of capital), annualised", fmt="0.0%")
    eac = s.calc("owned_annual_cost", "Owned cost per year (equivalent annual cost)", "USD/year",
                 -pmt(rate, life_n, npv_own) / MONTH, "-PMT(monthly rate, life in months, NPV of owning) x 12",
                 fmt="#,##0")
    s.calc("owned_cost_per_gpu_hour", "Owned cost per GPU-hour used", "USD/GPU-h",
           safe_div(eac, gpus * i.utilisation, "no GPU-hours used (utilisation is 0)"),
           "owned cost per year / (GPUs x 8760 h x utilisation)", fmt="0.000")
    s.calc("break_even_utilisation", "Break-even utilisation (vs on-demand)", "%",
           eac / (gpus * i.on_demand_price),
           "owned cost per year / (GPUs x 8760 h x on-demand price): above it, owning is cheaper", fmt=PERCENT)
    s.calc("break_even_month", "Break-even month = payback of buying (cumulative own <= rent)", "months",
           safe_div(total(cross_month), total(first_cross), "not within the timeline"),
           "the first month the cumulative cost of owning is at most renting's: buying has paid itself back",
           fmt=COUNT)
    s.calc("total_own", "Owning: total cost over the timeline", "USD", total(own), fmt="#,##0")
    s.calc("total_rent", "Renting: total cost over the timeline", "USD", total(rent_flow), fmt="#,##0")
    s.calc("total_gpu_hours", "GPU-hours used over the life", "GPU-h", total(hours), fmt="#,##0")
    delay_hours = s.calc("delay_gpu_hours", "A month of delay: GPU-hours lost", "GPU-h", used * MONTH,
                         "GPU-hours the cluster would have delivered in one month", fmt="#,##0")
    s.calc("delay_cost", "A month of delay: cost to rent them instead", "USD", delay_hours * i.on_demand_price,
           "lost GPU-hours x on-demand price", fmt="#,##0")

    s.section("Cost per GPU-hour against utilisation")
    step = i.utilisation_step
    points, owned, rented = [], [], []
    for k in range(1, CURVE_POINTS + 1):
        prior = points[-1] if points else None
        points.append(s.calc(f"curve_utilisation_{k}", f"Utilisation point {k}", "%",
                             (prior + step) if prior is not None else step, fmt=PERCENT))
    fixed = s.calc("curve_fixed_annual", "Owned cost per year without energy", "USD/year", eac - energy,
                   "EAC less the energy at the planned utilisation (energy is a level monthly flow)", fmt="#,##0")
    for k, u in enumerate(points, start=1):
        energy_u = energy_of(average_it(u))
        owned.append(s.calc(f"curve_owned_{k}", f"Owned cost per GPU-hour at point {k}", "USD/GPU-h",
                            (fixed + energy_u) / (gpus * u), fmt="0.000"))
    for k in range(1, CURVE_POINTS + 1):
        rented.append(s.calc(f"curve_rent_{k}", f"On-demand price at point {k}", "USD/GPU-h", i.on_demand_price,
                             fmt="0.000"))

    span = s.calc("timeline_length", "Timeline length", "months", total(period), "SUM of the period lengths",
                  fmt=COUNT)
    s.check("life_within_timeline", "The useful life fits the timeline", life <= span)
    if loan:
        s.check("loan_within_timeline", "The loan term fits the timeline", term <= span)



KEY_FIGURES = ["owned_cost_per_gpu_hour", "break_even_utilisation", "npv_own", "npv_rent", "break_even_month",
               "delay_cost"]


def summarise(book: Book, s: SheetBuilder) -> None:
    L = book.lines
    s.section("Rent vs buy (TCO sheet)")
    for key in [*KEY_FIGURES, "capex", "owned_annual_cost", "irr_buy", "delay_gpu_hours"]:
        s.show(L[f"tco.{key}"])
    if book.scenarios:
        keys = [f"tco.{key}" for key in KEY_FIGURES]
        columns = [("Base", "the Inputs sheet", [L[k] for k in keys])]
        for name, mapping in book.scenarios.items():
            changed = ", ".join(f"{k} = {line.value.reshape(-1)[0]:g}" for k, line in mapping.items()
                                if line.kind == "input")
            columns.append((name, changed, [mapping.get(k, L[k]) for k in keys]))
        book.views.append(View(
            COMPARISON, "Scenario comparison",
            "Each column is a live calculation: the base case, then each scenario of the site file (its changed "
            "inputs are on the Inputs sheet, its recalculated lines on the Scenarios sheet). Cells only refer to them.",
            [L[k].label for k in keys], [L[k].unit_text for k in keys], [L[k].fmt for k in keys], columns,
            chart_rows=[keys.index("tco.npv_own"), keys.index("tco.npv_rent")],
            chart_title="NPV of owning and renting by scenario (USD)"))
    book.charts.append(Chart("Summary", "Cumulative cost: owning vs renting (USD), break-even marked", "line",
                             [L["tco.own_cumulative"], L["tco.rent_cumulative"]], y_title="USD",
                             marker=L["tco.break_even_marker"]))
    points = [L[f"tco.curve_utilisation_{k}"] for k in range(1, CURVE_POINTS + 1)]
    owned = [L[f"tco.curve_owned_{k}"] for k in range(1, CURVE_POINTS + 1)]
    rented = [L[f"tco.curve_rent_{k}"] for k in range(1, CURVE_POINTS + 1)]
    book.charts.append(Chart("Summary", "Cost per GPU-hour against utilisation: owning vs on-demand rent", "scatter",
                             owned, y_title="USD per GPU-hour", x_title="utilisation", categories=points,
                             extra=[rented]))
