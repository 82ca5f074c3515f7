"""Rent vs buy: what owning costs against renting the same GPU-hours, as a CFO would sign it.

Conventions (stated on the TCO sheet too, `inputs.CONVENTIONS`): nominal USD, costs positive; one monthly timeline
from the order date (time 0), capex on the deployment schedule, service after delivery with a utilisation ramp;
the decision on unlevered flows at the WACC (after tax: the debt's tax shield is in it, not added again); prices
move once a year (rent, electricity, facility, staff, support), a reserved rent fixed for its term; tax on a tax
depreciation method and a payment lag, interest during construction capitalised; the IT resold at a residual
share moved by the rent market, the facility valued at exit by the site's method (book value by default).

The package: `inputs` (the keys and conventions), `schedule` (the timeline and its flags), `owning` and `values`
(capex, running costs, depreciation, exit values, tax), `renting`, `answers` (the decision), `financing` (the
loan, the equity, sources and uses), `pl` (the yearly P&L tied to the cash).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Presented, View
from workbook.book.sheets import CASH as CASH_SHEET
from workbook.book.sheets import COMPARISON
from workbook.book.sheets import TCO as TITLE
from workbook.formula.expr import Const
from workbook.formula.functions import flag, safe_div, total
from workbook.formula.line import Line
from workbook.models.base import Inputs, Scope, shown_value
from workbook.models.bom.bom import BomOut
from workbook.models.power.power import PowerOut
from workbook.models.tco import answers, financing, owning, renting, returns, schedule
from workbook.models.tco.inputs import CONVENTIONS, INPUTS, USD
from workbook.models.tco.pl import profit_and_loss
from workbook.site.spec import Value

__all__ = ["CONVENTIONS", "DELAY_SCENARIO", "INPUTS", "LIFE_FITS", "PREFIX", "USD", "TcoOut", "define", "delay_changes",
           "summarise"]

PREFIX = "tco"
DELAY_SCENARIO = "one_month_late"  # the built-in scenario that prices a month of delay on the decision
LIFE_FITS = "tco.life_within_timeline"  # its validity check: the delayed life (and tax lag) fits the timeline


@dataclass(frozen=True)
class TcoOut:
    """The TCO's answers that the Summary, the scenario comparison and the tornado read."""

    owned_cost_per_gpu_hour: Line
    rented_cost_per_gpu_hour: Line
    owned_cost_per_gpu_hour_pretax: Line
    rented_cost_per_gpu_hour_pretax: Line
    break_even_utilisation: Line
    npv_own: Line
    npv_rent: Line
    npv_advantage: Line
    irr_buy: Line
    payback_month: Line
    discounted_payback_month: Line
    delay_cost: Line
    capex: Line
    it_resale_value: Line
    owned_annual_cost: Line
    delay_gpu_hours: Line
    own_cumulative: Line
    rent_cumulative: Line
    curve_utilisation: tuple[Line, ...]
    curve_owned: tuple[Line, ...]
    curve_rented: tuple[Line, ...]  # as the site rents, with the extras: it crosses the owned curve at the break-even
    curve_committed: tuple[Line, ...]  # a committed contract (every GPU-hour used reserved)
    curve_on_demand: Line
    service_end: tuple[Line, Line]  # lead time, useful life: their sum is the last month the cumulative chart shows
    npv_advantage_on_demand: Line
    npv_advantage_committed: Line
    break_even_utilisation_on_demand: Line
    break_even_utilisation_committed: Line
    rented_cost_per_gpu_hour_on_demand: Line
    rented_cost_per_gpu_hour_committed: Line
    mirr_buy: Line
    irr_buy_roots: Line
    operating_payback_month: Line
    payback_rests_on_exit: Line
    equity_irr: Line | None = None  # with a loan only
    equity_hurdle: Line | None = None
    sources_equity: Line | None = None
    peak_funding: Line | None = None
    owned_cost_per_useful_gpu_hour: Line | None = None  # with the Reliability sheet's goodput
    break_even_numerator: Line | None = None  # the break-even utilisation as numerator / slope (the workload's
    break_even_slope: Line | None = None  # break-even in tokens scales it)

    @property
    def answer_figures(self) -> list[Line]:
        """The answer's figures on the Summary: the NPV advantage of buying against the rent in force, on demand
        and a committed contract; the costs per GPU-hour; the break-evens; the returns; the paybacks."""
        return [self.npv_advantage, self.npv_advantage_on_demand, self.npv_advantage_committed,
                self.owned_cost_per_gpu_hour, self.rented_cost_per_gpu_hour, self.rented_cost_per_gpu_hour_on_demand,
                self.rented_cost_per_gpu_hour_committed, self.break_even_utilisation,
                self.break_even_utilisation_on_demand, self.break_even_utilisation_committed, self.irr_buy,
                self.irr_buy_roots, self.mirr_buy, self.payback_month, self.operating_payback_month,
                self.payback_rests_on_exit, self.discounted_payback_month]

    @property
    def key_figures(self) -> list[Line]:
        return [self.npv_advantage, self.npv_advantage_committed, self.npv_own, self.npv_rent, self.irr_buy,
                self.mirr_buy, self.payback_month, self.operating_payback_month, self.discounted_payback_month,
                self.owned_cost_per_gpu_hour, self.rented_cost_per_gpu_hour, self.break_even_utilisation,
                self.it_resale_value]


def define(scope: Scope, i: Inputs, p: Inputs, power: PowerOut, bom: BomOut, goodput: Line | None = None) -> TcoOut:
    """Rent against buy for the cluster the engineering models size and the bill of materials prices; `p` is the
    power chain's inputs (GPUs); `goodput` the useful share of the job's time (Reliability sheet)."""
    scope.book.timeline(int(i.choice("horizon")))
    s = scope.sheet(TITLE)
    s.section("Conventions")
    for text in CONVENTIONS:
        s.text(text)
    cap = owning.capex(s, i, power, bom)
    run = owning.running_costs(s, i, power, cap, bom)
    today = renting.rent_today(s, i, p)
    s.section("Timing and the cost of capital")
    rate = s.calc("monthly_rate", "Cost of capital per month", "%", (1 + i.cost_of_capital) ** (Const(1) / 12) - 1,
                  "(1 + annual rate)^(1/12) - 1", fmt="0.000%")
    c = scope.sheet(CASH_SHEET)
    when = schedule.schedule(c, i, rate, cap.lead)
    span = s.calc("timeline_length", "Timeline length after the start", "months", total(when.length),
                  "SUM of the period lengths", fmt="#,##0")
    s.check("life_within_timeline", "The lead time, the useful life and the tax lag fit the timeline",
            when.lead + when.life + i.tax_lag <= span, "lead time + useful life + tax lag <= the timeline: the last "
            "month's tax is paid within it", validity=True)
    if i.choice("facility_model") == "build":
        s.check("facility_outlives_it", "The facility's life covers the IT's service", i.facility_life >= i.useful_life,
                "facility life >= useful life: a hall written off before the IT has none left to house it")
    rents = renting.renting_flows(c, i, p, when, today)
    own = owning.owning_flows(s, c, i, when, cap, run, rate, rents.index)
    pv = answers.present_values(c, i, p, when, run, own, rents)
    grid = returns.search_grid(s, span)
    ans = answers.answers(s, c, i, when, rate, own, rents, pv, today, grid, span)
    if i.choice("facility_model") == "build":
        answers.facility_methods(s, i, when, rate, cap, own, ans, scope.defined["tax_timing"])
    answers.delay_operational(s, i, cap, run, today, rate)
    debt = financing.loan(s, c, i, when, own, span) if i.choice("financing") == "loan" else None
    financing.equity_views(s, c, i, when, rate, cap, run, own, rents.rent, scope.defined["irr_buy"], debt, grid, span)
    profit_and_loss(scope, i, when, own, debt)
    useful = answers.useful(s, ans.hours, ans.npv_own, goodput) if goodput is not None else None
    points, owned, rented, committed, on_demand = answers.cost_curve(s, i, ans)
    return scope.outputs(TcoOut, curve_utilisation=points, curve_owned=owned, curve_rented=rented,
                         curve_committed=committed, curve_on_demand=on_demand,
                         service_end=(cap.lead, i.useful_life), owned_cost_per_useful_gpu_hour=useful,
                         capex=cap.capex)


def delay_changes(i: Inputs) -> dict[str, Value]:
    """The built-in scenario's change, as a value read: one more month of delay than the site's."""
    months = int(i.delay_months.value.reshape(-1)[0]) + 1
    return {"tco.delay_months": Value(float(months), f"{months} months", "")}


def summarise(scope: Scope, s: SheetBuilder, tco: TcoOut, scenarios: dict[str, dict[str, Line]]) -> Presented:
    """The decision's cost of a month of delay (from the built-in scenario), the TCO's figures on the Summary besides
    the answer (which heads it: models.summary) and the scenario comparison (a view of live lines). `scenarios`:
    each scenario's lines by the base line they stand in for (the book's, workbook.analysis.scenarios)."""
    late = scenarios.get(DELAY_SCENARIO, {})
    delay_effect = None
    if tco.npv_advantage.id in late:
        t = scope.sheet(TITLE)
        t.section("A month of delay, the decision's view (its NPV effect)")
        fits = flag(late[LIFE_FITS])  # the delayed case needs a month more of timeline to be whole
        delay_effect = t.calc("delay_npv_effect", "A month of delay: change in the NPV advantage of buying", "USD",
               safe_div((late[tco.npv_advantage.id] - tco.npv_advantage) * fits, fits,
                        "n/a: the timeline has no month to spare for the delay (lengthen tco.horizon)"),
               f"the NPV advantage with one more month of lead time (scenario {DELAY_SCENARIO}, live on the Scenarios "
               "sheet) - as planned: the capex, the service and the rent all move a month", fmt=USD)
    s.section("Rent vs buy, the other figures (TCO sheet)")
    answered = set(tco.answer_figures)  # on the Summary's first rows, the answer
    for line in [*tco.key_figures, tco.owned_cost_per_gpu_hour_pretax, tco.rented_cost_per_gpu_hour_pretax,
                 tco.capex, tco.owned_annual_cost, tco.delay_cost]:
        if line not in answered:
            s.show(line)
    if delay_effect is not None:
        s.show(delay_effect)
    for line in (tco.owned_cost_per_useful_gpu_hour, tco.equity_irr, tco.equity_hurdle, tco.sources_equity,
                 tco.peak_funding):
        if line is not None:
            s.show(line)
    view = _comparison(scenarios, tco)
    return Presented(views=(view,) if view is not None else ())


def _comparison(scenarios: dict[str, dict[str, Line]], tco: TcoOut) -> View | None:
    """The base case and each of the site's own scenarios side by side, or None where it has none."""
    lines = tco.key_figures
    own = {name: mapping for name, mapping in scenarios.items() if name != DELAY_SCENARIO}
    if not own:
        return None
    columns = [("Base", "the Inputs sheet", lines)]
    for name, mapping in own.items():
        changed = ", ".join(
            f"{line.label.removesuffix(f' [{name}]')} = "
            f"{shown_value(float(line.value.reshape(-1)[0]), line.unit_text)}"
            for line in mapping.values() if line.kind == "input")
        columns.append((name.replace("_", " "), changed, [mapping.get(line.id, line) for line in lines]))
    return View(
        COMPARISON, "Scenario comparison",
        "Each column is a live calculation: the base case, then each scenario of the site file (its changed inputs "
        "are on the Inputs sheet, its recalculated lines on the Scenarios sheet). Cells only refer to them.",
        [line.label for line in lines], [line.unit_text for line in lines], [line.fmt for line in lines],
        columns, chart_rows=[lines.index(tco.npv_own), lines.index(tco.npv_rent)],
        chart_title="NPV of owning and renting by scenario")

