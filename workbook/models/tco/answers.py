"""The decision's answers: present values, NPVs and the IRR of buying, both paybacks, owned and rented cost per
GPU-hour on the same basis (before and after tax), the break-even utilisation, the facility's exit method's
effect, useful GPU-hours, the cost curve and the operational view of a month of delay."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.expr import Node
from workbook.formula.functions import (
    all_,
    any_,
    at_most,
    close,
    flag,
    lagged,
    largest,
    min_,
    not_,
    prev,
    safe_div,
    total,
    where,
)
from workbook.formula.line import BOOL, BREAK_EVEN, COUNT, PERCENT, Line
from workbook.models.base import Inputs
from workbook.models.tco.inputs import PER_GPU_HOUR, USD
from workbook.models.tco.owning import Capex, Owning, Running
from workbook.models.tco.renting import Rent, Renting
from workbook.models.tco.returns import Search, proven_irr
from workbook.models.tco.schedule import MONTH, Schedule

NO_SERVICE = "no month in service within the timeline"
NO_HOURS = "no GPU-hours used in the timeline (utilisation 0, or no month in service)"
CURVE_POINTS = 10  # utilisation points on the cost curve: step, 2 x step, ...


@dataclass(frozen=True)
class Answers:
    npv_own: Line
    npv_rent: Line
    npv_advantage: Line
    fixed: Line  # NPV of owning at zero utilisation
    energy: Line  # NPV of owning per unit of utilisation
    on_demand: Line  # NPV of on-demand rent per unit of utilisation, after tax
    reserved: Line  # NPV of reserved (committed) rent per unit of utilisation, after tax
    full_hours: Line
    hours: Line
    savings: Line  # renting's cash out - owning's, monthly (the IRRs' flows)
    after_tax: Line  # 1 - tax rate x the tax lag's discount: what a deductible USD costs after tax, in PV
    extras: Line  # NPV of the rent extras, after tax (paid whatever the utilisation)


@dataclass(frozen=True)
class PresentValues:
    """The monthly rows discounted to time 0, whose totals are the NPVs and the per-GPU-hour costs."""

    own: Line
    rent: Line
    own_pretax: Line
    rent_pretax: Line
    service: Line  # months in service
    hours: Line  # GPU-hours at full use
    energy_slope: Line  # energy per unit of utilisation
    capital_slope: Line  # working capital per unit of utilisation
    on_demand_slope: Line  # on-demand rent per unit of utilisation
    reserved_slope: Line  # reserved rent per unit of utilisation (each term's price)
    extras: Line  # rent extras


def present_values(c: SheetBuilder, i: Inputs, p: Inputs, when: Schedule, run: Running, own: Owning,
                   renting: Renting) -> PresentValues:
    c.section("Discounted (present value at time 0)")
    df, live = when.discount, when.in_service
    hours = live * p.gpus * MONTH * when.ramp * df
    return PresentValues(
        own=c.calc("own_pv", "Owning: cash out, discounted", "USD", own.own * df, fmt=USD),
        rent=c.calc("rent_pv", "Renting: cash out, discounted", "USD", renting.rent * df, fmt=USD),
        own_pretax=c.calc("own_pretax_pv", "Owning: cash out before tax, discounted", "USD", own.own_pretax * df,
                          fmt=USD),
        rent_pretax=c.calc("rent_pretax_pv", "Renting: cash out before tax, discounted", "USD",
                           renting.rent_pretax * df, fmt=USD),
        service=c.calc("service_pv", "Months in service, discounted", "months", live * df * MONTH, fmt="0.000"),
        hours=c.calc("full_gpu_hours_pv", "GPU-hours at full use (with the ramp), discounted", "GPU-h", hours,
                     "GPUs x hours in the month x ramp x discount", fmt=USD),
        energy_slope=c.calc("energy_slope_pv", "Energy per unit of utilisation, discounted (before tax)", "USD",
                            live * MONTH * own.elec * run.slope * when.ramp * df, fmt=USD),
        capital_slope=c.calc("working_capital_slope_pv", "Working capital per unit of utilisation, discounted",
                             "USD", run.slope * i.working_capital_months * (when.first_service - when.exit) * df,
                             "the energy part of the working capital: it moves with utilisation too", fmt=USD),
        on_demand_slope=c.calc("on_demand_slope_pv", "On-demand rent per unit of utilisation, discounted (before "
                               "tax)", "USD", hours * renting.index * i.on_demand_price,
                               "GPUs x hours x ramp x discount x on-demand price x rent index", fmt=USD),
        reserved_slope=c.calc("reserved_slope_pv", "Reserved rent per unit of utilisation, discounted (before tax)",
                              "USD", hours * renting.reserved_index * i.reserved_price,
                              "GPUs x hours x ramp x discount x reserved price x its term's index", fmt=USD),
        extras=c.calc("extras_pv", "Rent extras, discounted (before tax)", "USD", live * MONTH * i.rent_extras * df,
                      fmt=USD),
    )


def paybacks(c: SheetBuilder, i: Inputs, when: Schedule, own: Owning, rent: Line,
             pv: PresentValues) -> tuple[Node, Node, Node, Node]:
    """The first month after which cumulative owning stays at or below cumulative renting to the end of the
    timeline: one after the last month it is above. None when it ends above (buying never stays ahead). The plain
    payback, the discounted one, and the operating one (owning without the values received at exit: a payback that
    only the exit gives rests on a resale and a hall's book value); and whether the payback rests on the exit."""
    c.section("Owning without the values received at exit (the operating view)")
    exit_tax = c.calc("exit_value_tax_flow", "Tax on the values received at exit (cash out, as it arises)", "USD",
                      -i.tax_rate * own.proceeds, "tax rate x values received: the gain over the tax bases they add",
                      fmt=USD)
    operating = c.calc("own_operating_flow", "Owning without the values received at exit: cash out", "USD",
                       own.own - own.proceeds - lagged(exit_tax, when.month, i.tax_lag),
                       "owning's cash out - values received + their tax (the tax lag later)", fmt=USD)
    out, cumulative = [], {}
    for tag, label, own_row, rent_row in (("", "", own.own, rent), ("_pv", ", discounted", pv.own, pv.rent),
                                          ("_operating", ", without the values received at exit", operating, rent)):
        c.section(f"Payback{label}")
        cum_own = c.calc(f"own_cumulative{tag}", f"Owning: cumulative cash out{label}", "USD",
                         lambda me, row=own_row: prev(me) + row, opening=own_row, fmt=USD)
        if rent_row.id not in cumulative:
            cumulative[rent_row.id] = c.calc(f"rent_cumulative{tag}", f"Renting: cumulative cash out{label}", "USD",
                                             lambda me, row=rent_row: prev(me) + row, opening=rent_row, fmt=USD)
        cum_rent = cumulative[rent_row.id]
        behind = c.calc(f"behind_month{tag}", f"Buying behind renting{label}: the month (0 when ahead)", "months",
                        flag(not_(at_most(cum_own, cum_rent))) * when.month,
                        "month x (cumulative owning above cumulative renting, beyond the method's tolerance)",
                        fmt=COUNT, position=True)
        ends = flag(at_most(total(own_row), total(rent_row)))
        out.append(safe_div((largest(behind) + MONTH) * ends, ends, "never (ends behind)"))
    rests = all_(at_most(total(own.own), total(rent)), not_(at_most(total(operating), total(rent))))
    return out[0], out[1], out[2], rests


def answers(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, rate: Line, own: Owning,
            renting: Renting, pv: PresentValues, today: Rent, grid: Search, span: Line) -> Answers:
    """NPVs, the proven IRR (and MIRR), the paybacks, the equivalent annual cost and the costs per GPU-hour."""
    payback, discounted_payback, operating_payback, rests = paybacks(c, i, when, own, renting.rent, pv)
    c.section("Buying instead of renting")
    savings = c.calc("savings_flow", "Buying instead of renting: net cash", "USD", renting.rent - own.own,
                     "renting's cash out - owning's: what buying saves each month (the IRR's flows)", fmt=USD)
    s.section("Answers: the decision (unlevered, at the cost of capital)")
    npv_own = s.calc("npv_own", "NPV of owning (cost, after tax)", "USD", total(pv.own),
                     "SUM of owning's discounted cash out", fmt=USD)
    npv_rent = s.calc("npv_rent", "NPV of renting (cost, after tax)", "USD", total(pv.rent),
                      "SUM of renting's discounted cash out, at the rent in force (its reserved share)", fmt=USD)
    advantage = s.calc("npv_advantage", "NPV advantage of buying (renting - owning)", "USD", npv_rent - npv_own,
                       "positive: buying is cheaper than renting as the site rents (the rent in force)", fmt=USD)
    s.calc("payback_month", "Payback month (undiscounted: ignores the cost of capital)", "months", payback,
           "the month after which cumulative owning stays at or below cumulative renting to the end", fmt=COUNT)
    s.calc("discounted_payback_month", "Payback month (discounted at the cost of capital)", "months",
           discounted_payback, "the same on discounted cash: from then on the NPV of buying stays positive", fmt=COUNT)
    s.calc("operating_payback_month", "Payback month without the values received at exit (undiscounted)", "months",
           operating_payback, "the same without the IT's resale and the facility's value at exit (and their tax): "
           "what the running of the cluster pays back", fmt=COUNT)
    s.calc("payback_rests_on_exit", "The payback rests on the values received at exit", "TRUE/FALSE", rests,
           "TRUE: buying ends ahead only with the resale and the facility's value at exit; without them it ends "
           "behind", fmt=BOOL)
    months = s.calc("pv_service_months", "Service months, discounted", "months", total(pv.service),
                    "SUM of the discount factor over the months in service: the annuity factor", fmt="#,##0.00")
    s.calc("owned_annual_cost", "Owned cost per year (equivalent annual cost)", "USD/year",
           safe_div(npv_own, months, NO_SERVICE),
           "NPV of owning / discounted service months x 12: the level cost per year of service with the same NPV",
           fmt=USD)
    s.calc("total_own", "Owning: total cash out over the timeline", "USD", total(own.own), fmt=USD)
    s.calc("total_rent", "Renting: total cash out over the timeline", "USD", total(renting.rent), fmt=USD)
    proven_irr(s, c, "irr_buy", "Project IRR", "buying instead of renting, unlevered", savings, rate, span, grid,
               when.discount)
    hours, full = _per_gpu_hour(s, i, npv_own, npv_rent, pv)
    slopes = _slopes(s, i, rate, npv_own, pv)
    _rent_cases(s, i, today, npv_own, npv_rent, hours, slopes)
    _break_even(s, i, slopes)
    return Answers(npv_own, npv_rent, advantage, slopes.fixed, slopes.energy, slopes.on_demand, slopes.reserved,
                   full, hours, savings, slopes.after, slopes.extras)


@dataclass(frozen=True)
class Slopes:
    """Owning and renting as straight lines in the utilisation, in NPV after tax: what the break-evens and the
    cost curve are made of."""

    after: Line  # what a deductible USD costs after tax, in present value
    energy: Line  # owning, per unit of utilisation (energy and its working capital)
    fixed: Line  # owning at zero utilisation
    on_demand: Line  # on-demand rent per unit of utilisation
    reserved: Line  # reserved rent per unit of utilisation
    extras: Line  # rent extras (whatever the utilisation)


def _per_gpu_hour(s: SheetBuilder, i: Inputs, npv_own: Line, npv_rent: Line,
                  pv: PresentValues) -> tuple[Line, Line]:
    """Owned and rented cost per GPU-hour used on the same basis, before and after tax: (hours used, at full use)."""
    s.section("Cost per GPU-hour used: owning and renting on the same basis (NPV / discounted GPU-hours used)")
    full = s.calc("pv_full_gpu_hours", "GPU-hours at full use, discounted", "GPU-h", total(pv.hours), fmt=USD)
    hours = s.calc("pv_gpu_hours", "GPU-hours used, discounted", "GPU-h", i.utilisation * full, fmt=USD)
    own_pre = s.calc("npv_own_pretax", "NPV of owning, before tax", "USD", total(pv.own_pretax), fmt=USD)
    rent_pre = s.calc("npv_rent_pretax", "NPV of renting, before tax", "USD", total(pv.rent_pretax), fmt=USD)
    for key, label, npv in (("owned_cost_per_gpu_hour", "Owned cost per GPU-hour used, after tax", npv_own),
                            ("rented_cost_per_gpu_hour", "Rented cost per GPU-hour used, after tax", npv_rent),
                            ("owned_cost_per_gpu_hour_pretax", "Owned cost per GPU-hour used, before tax", own_pre),
                            ("rented_cost_per_gpu_hour_pretax", "Rented cost per GPU-hour used, before tax", rent_pre)):
        s.calc(key, label, "USD/GPU-h", safe_div(npv, hours, NO_HOURS),
               "its NPV / discounted GPU-hours used (rent with its extras: the same hours, the same months)",
               fmt=PER_GPU_HOUR)
    return hours, full


def _slopes(s: SheetBuilder, i: Inputs, rate: Line, npv_own: Line, pv: PresentValues) -> Slopes:
    s.section("Owning and renting as straight lines in the utilisation (NPV after tax)")
    timing = s.calc("tax_timing", "A tax payment the tax lag later, per USD today (discounted)", "ratio",
                    1 / (1 + rate) ** (i.tax_lag / MONTH), "1 / (1 + monthly rate)^lag", fmt="0.0000")
    after = s.calc("after_tax_share", "What a deductible USD costs after tax, in present value", "ratio",
                   1 - i.tax_rate * timing, "1 - tax rate x the tax lag's discount", fmt="0.0000")
    energy = s.calc("npv_energy_per_utilisation", "NPV of owning per unit of utilisation (energy, its working "
                    "capital)", "USD", total(pv.energy_slope) * after + total(pv.capital_slope),
                    "energy per unit x after-tax share + the working capital it ties up", fmt=USD)
    fixed = s.calc("npv_own_without_utilisation", "NPV of owning at zero utilisation", "USD",
                   npv_own - i.utilisation * energy,
                   "NPV of owning - utilisation x NPV of owning per unit of utilisation", fmt=USD)
    on_demand = s.calc("npv_on_demand_per_utilisation", "NPV of on-demand rent per unit of utilisation", "USD",
                       total(pv.on_demand_slope) * after, fmt=USD)
    reserved = s.calc("npv_reserved_per_utilisation", "NPV of reserved rent per unit of utilisation", "USD",
                      total(pv.reserved_slope) * after, "each reserved term at its price, after tax", fmt=USD)
    extras = s.calc("npv_rent_extras", "NPV of rent extras (storage, egress), after tax", "USD",
                    total(pv.extras) * after, "paid whatever the utilisation: discounted extras x after-tax share",
                    fmt=USD)
    return Slopes(after, energy, fixed, on_demand, reserved, extras)


def _rent_cases(s: SheetBuilder, i: Inputs, today: Rent, npv_own: Line, npv_rent: Line, hours: Line,
                k: Slopes) -> None:
    """The rent in force against its own parts (a check), and the two cases beside it: renting every GPU-hour on
    demand (the flexible alternative), and a committed contract (every GPU-hour used reserved at the reserved price,
    each term re-priced: what a buyer could sign for the same service instead of owning)."""
    s.section("Renting: the rent in force beside on demand and a committed contract")
    parts = s.calc("npv_rent_by_parts", "NPV of renting from its parts (the rent in force)", "USD",
                   k.extras + today.reserved_use * k.reserved + today.on_demand_use * k.on_demand,
                   "extras + reserved share of use x reserved rent per unit + on-demand share x on-demand rent per "
                   "unit", fmt=USD)
    s.check("rent_by_parts", "Renting's NPV equals its parts in the utilisation (the break-even's basis)",
            close(npv_rent, parts), "NPV of renting (the monthly flows) = extras + each part per unit of utilisation "
            "x its share, within the method's tolerance: the break-even and the cases below rest on it", validity=True)
    for key, label, per_unit, how in (
            ("on_demand", "on demand (every GPU-hour at the market's price)", k.on_demand, "on demand"),
            ("committed", "a committed contract (every GPU-hour used reserved, each term re-priced)", k.reserved,
             "a committed contract")):
        npv = s.calc(f"npv_rent_{key}", f"NPV of renting {label}", "USD", k.extras + i.utilisation * per_unit,
                     f"extras + utilisation x {'on-demand' if key == 'on_demand' else 'reserved'} rent per unit",
                     fmt=USD)
        s.calc(f"npv_advantage_{key}", f"NPV advantage of buying against renting {label}", "USD", npv - npv_own,
               "positive: buying is cheaper", fmt=USD)
        s.calc(f"rented_cost_per_gpu_hour_{key}", f"Rented cost per GPU-hour used, {how}, after tax", "USD/GPU-h",
               safe_div(npv, hours, NO_HOURS), "its NPV / discounted GPU-hours used", fmt=PER_GPU_HOUR)


def _break_even(s: SheetBuilder, i: Inputs, k: Slopes) -> None:
    """The utilisation at which the NPV advantage of buying is 0, against the rent in force and each case. Renting
    costs extras + reserved x min(share, u) + on demand x (u - min(share, u)): two straight lines meeting at the
    reserved share, owning one; the advantage rises with u where each rent per unit is above owning's, so buying
    loses exactly below the break-even."""
    s.section("Break-even utilisation: where owning and renting cost the same")
    gap_res = s.calc("break_even_gap_reserved", "Reserved rent - owning, per unit of utilisation", "USD",
                     k.reserved - k.energy, "what one more unit of reserved utilisation saves by owning", fmt=USD)
    gap_od = s.calc("break_even_denominator", "On-demand rent - owning, per unit of utilisation", "USD",
                    k.on_demand - k.energy, "what one more unit of on-demand utilisation saves by owning", fmt=USD)
    share = i.reserved_share
    at_share = s.calc("npv_advantage_at_reserved_share", "NPV advantage of buying at a utilisation equal to the "
                      "reserved share", "USD", k.extras + share * k.reserved - k.fixed - share * k.energy,
                      "extras + share x reserved rent per unit - owning at zero - share x owning per unit", fmt=USD)
    rising = flag(all_(gap_od > 0, any_(share.eq(0), gap_res > 0)))
    below = all_(at_share >= 0, share > 0)  # buying is ahead already at the reserved share: the root is below it
    numerator = s.calc("break_even_numerator", "Break-even: NPV of owning at zero less what renting costs at "
                       "zero", "USD", where(below, k.fixed - k.extras, k.fixed - k.extras - share * (k.reserved
                                                                                                 - k.on_demand)),
                       "below the reserved share: owning at zero - extras; above it: the same - share x (reserved - "
                       "on-demand rent per unit)", fmt=USD)
    denominator = s.calc("break_even_slope", "Break-even: the slope of the advantage there", "USD",
                         where(below, gap_res, gap_od) * rising,
                         "reserved - owning per unit below the share, on-demand - owning above it; 0 where the "
                         "advantage does not rise with the utilisation", fmt=USD)
    s.calc("break_even_utilisation", "Break-even utilisation (against the rent in force)", "%",
           safe_div(numerator, denominator, "none: renting costs no more than owning for each extra GPU-hour"),
           "the utilisation at which the NPV of owning equals renting's as the site rents: buying loses exactly "
           "below it; above 100%: never", fmt=BREAK_EVEN)
    for key, label, gap in (("on_demand", "on demand", gap_od), ("committed", "a committed contract", gap_res)):
        s.calc(f"break_even_utilisation_{key}", f"Break-even utilisation against renting {label}", "%",
               safe_div((k.fixed - k.extras) * flag(gap > 0), gap * flag(gap > 0),
                        "none: renting costs no more than owning for each extra GPU-hour"),
               "(NPV of owning at zero - extras) / (rent - owning, per unit of utilisation)", fmt=BREAK_EVEN)


def facility_methods(s: SheetBuilder, i: Inputs, when: Schedule, rate: Line, cap: Capex, own: Owning,
                     ans: Answers, timing: Line) -> None:
    """The decision under each way of valuing the facility at exit, beside the method chosen: the NPV of owning
    moves by the discounted value received at exit after the tax on its gain."""
    v = own.values
    s.section("The facility's value at exit: the decision under each method")
    df_exit = s.calc("discount_at_exit", "Discount factor of the exit month", "ratio",
                     1 / (1 + rate) ** ((when.lead + when.life) / MONTH), "1 / (1 + monthly rate)^(lead + life)",
                     fmt="0.0000")

    def pv(share: object) -> object:
        return df_exit * cap.facility * (share - i.tax_rate * timing * (share - v.shares["book"]))

    chosen = pv(v.facility_value_share)
    for method, share in (("book", v.shares["book"]), ("annuity", v.shares["annuity"]), ("zero", 0 * v.shares["book"])):
        s.calc(f"npv_advantage_facility_{method}", f"NPV advantage of buying with the facility at {method} value "
               "at exit", "USD", ans.npv_advantage + pv(share) - chosen,
               "the NPV advantage + the discounted value at exit after the tax on its gain, by this method - by the "
               "method chosen", fmt=USD)


def useful(s: SheetBuilder, used: Line, npv_own: Line, goodput: Line) -> Line:
    """The owned cost per GPU-hour of useful work: interruptions and checkpoints cost the job its goodput. Renting
    the same GPUs for the same job loses the same share, so the rent-vs-buy answers keep their basis (GPU-hours
    used); this is the cost of the work those hours do."""
    s.section("Useful GPU-hours (utilisation x goodput: interruptions and checkpoints, Reliability sheet)")
    hours = s.calc("pv_useful_gpu_hours", "Useful GPU-hours, discounted", "GPU-h", used * goodput,
                   "GPU-hours used x goodput at the chosen checkpoint interval", fmt=USD)
    return s.calc("owned_cost_per_useful_gpu_hour", "Owned cost per useful GPU-hour (levelised, after tax)",
                  "USD/GPU-h", safe_div(npv_own, hours, "no useful GPU-hours (utilisation or goodput is 0)"),
                  "NPV of owning / discounted useful GPU-hours: the rent-vs-buy comparison stays on GPU-hours used, "
                  "since renting the same job loses the same share", fmt=PER_GPU_HOUR)


def delay_operational(s: SheetBuilder, i: Inputs, cap: Capex, run: Running, rent: Rent, rate: Line) -> Line:
    """A month of delay as operations see it: undiscounted, at today's prices."""
    s.section("A month of delay, the operational view (undiscounted, today's prices)")
    hours = s.calc("delay_gpu_hours", "A month of delay: GPU-hours lost", "GPU-h", rent.used * MONTH,
                   "GPU-hours the cluster would have delivered in the month", fmt=USD)
    replace = s.calc("delay_rent", "Renting the lost GPU-hours on demand", "USD", hours * i.on_demand_price, fmt=USD)
    carry = s.calc("delay_carry", "Carry on the capital paid before service", "USD", cap.capex * rate,
                   "the capex waits one more month for its first service: a month at the cost of capital", fmt=USD)
    fixed = s.calc("delay_fixed_costs", "Fixed costs of a month without service", "USD",
                   (run.facility + run.staff) * MONTH,
                   "colocation (or facility maintenance) and staff are paid while the cluster waits", fmt=USD)
    s.calc("delay_cost", "A month of delay, operational view: cost (undiscounted, before tax)", "USD",
           replace + carry + fixed, "rent for the lost GPU-hours + carry on the capital + fixed costs (today's "
           "prices); the decision's view is the NPV effect below", fmt=USD)
    return hours


def cost_curve(s: SheetBuilder, i: Inputs, ans: Answers) -> tuple[tuple[Line, ...], tuple[Line, ...],
                                                                   tuple[Line, ...], tuple[Line, ...], Line]:
    """Utilisation points, the owned cost at each, the rented cost at each as the site rents (the rent in force: the
    Summary's chart, where the two cross at the break-even) and under a committed contract, and the levelised
    on-demand rent."""
    s.section("Cost per GPU-hour against utilisation (levelised, as the answers above)")
    step = i.utilisation_step
    points: list[Line] = []
    for k in range(1, CURVE_POINTS + 1):
        points.append(s.calc(f"curve_utilisation_{k}", f"Utilisation point {k}", "%",
                             points[-1] + step if points else step, fmt=PERCENT))
    owned = []
    for k, u in enumerate(points, start=1):
        owned.append(s.calc(f"curve_owned_{k}", f"Owned cost per GPU-hour at point {k}", "USD/GPU-h",
                            safe_div(ans.fixed + u * ans.energy, u * ans.full_hours, NO_SERVICE),
                            "(NPV of owning at zero utilisation + utilisation x NPV per unit) / (utilisation x "
                            "discounted GPU-hours at full use)", fmt=PER_GPU_HOUR))
    rented = []
    share = i.reserved_share
    for k, u in enumerate(points, start=1):
        reserved = min_(share, u)
        cost = ans.extras + reserved * ans.reserved + (u - reserved) * ans.on_demand
        rented.append(s.calc(f"curve_rented_{k}", f"Rented cost per GPU-hour as the site rents at point {k}",
                             "USD/GPU-h", safe_div(cost, u * ans.full_hours, NO_SERVICE),
                             "(extras + MIN(reserved share, utilisation) x reserved rent per unit + the rest x "
                             "on-demand rent per unit) / (utilisation x discounted GPU-hours at full use): equal to "
                             "owning at the break-even", fmt=PER_GPU_HOUR))
    committed = []
    for k, u in enumerate(points, start=1):
        committed.append(s.calc(f"curve_committed_{k}",
                                f"Rented cost per GPU-hour under a committed contract at point {k}",
                                "USD/GPU-h", safe_div(ans.extras + u * ans.reserved, u * ans.full_hours, NO_SERVICE),
                                "(extras + utilisation x reserved rent per unit) / (utilisation x discounted GPU-hours "
                                "at full use)", fmt=PER_GPU_HOUR))
    rent = s.calc("curve_on_demand", "On-demand rent per GPU-hour, levelised", "USD/GPU-h",
                  safe_div(ans.on_demand, ans.full_hours, NO_SERVICE),
                  "NPV of on-demand rent per unit of utilisation / discounted GPU-hours at full use: today's price "
                  "with its yearly change, after tax", fmt=PER_GPU_HOUR)
    return tuple(points), tuple(owned), tuple(rented), tuple(committed), rent
