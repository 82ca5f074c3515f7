"""A generation upgrade: the current fleet and the next one sharing a hall over the timeline.

Both fleets are instances of the same power, fabric and cooling models (the next one under the namespace `next`);
this model reads what each rack of each fleet needs (peak power, heat to liquid and to air, floor load, GPUs) and
places racks in the hall's zones month by month as each plan says: deliveries of the next fleet's racks,
decommissionings of the current fleet's, facility projects that add capacity from the month they are done (and
may stop their zone while they work). Each plan is an instance of the plan model (`Upgrade (build_ahead)`); a
check per month says whether the plan fits the hall (positions, power, rack power, liquid and air cooling,
floor) and reaches the master check; a failing month shows FALSE, never a silent negative number.
Delivered compute is in H100-equivalents (each fleet's GPUs x its throughput per GPU, an input with its source).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbook.book import Book, SheetBuilder
from workbook.formula.expr import Const, Node, Ref, as_node
from workbook.formula.functions import (
    added,
    all_,
    any_,
    flag,
    largest,
    max_,
    min_,
    not_,
    prev,
    safe_div,
    smallest,
    total,
)
from workbook.formula.line import COUNT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.generation_inputs import Entry, Upgrade
from workbook.presentation import Chart, View
from workbook.sheets import UPGRADE, UPGRADE_COMPARISON, UPGRADE_PLANS, UPGRADE_RACKS

PREFIX = "generation"
TITLE = UPGRADE
INPUTS_TITLE = "Generation upgrade"  # the Inputs sheet's section
MONTH = Const(1, "fmonth")
USD = "#,##0"
KW = "#,##0.0"
LIMITS = ("positions", "feed", "kw_per_position", "air_cooling", "liquid_cooling", "floor_rating")


@dataclass(frozen=True)
class FleetRack:
    """What one compute rack of a fleet needs and gives (lines on the comparison sheet)."""

    label: str
    power: Line  # synchronised peak, kW
    liquid: Line  # heat to liquid, kW
    air: Line  # heat to air, kW
    floor: Line  # floor load under it, kg/m^2
    compute: Line  # H100-equivalents
    racks: Line  # compute racks of the whole fleet
    support_racks: Line  # its network, storage and management racks
    support_power: Line  # kW per support rack (switches, optics, storage, management), all of it to air


@dataclass(frozen=True)
class PlanOut:
    """A plan's answers, compared side by side."""

    compute: Line  # delivered compute each month
    fits: Line  # the plan fits the hall every month (check)
    infeasible_months: Line | None  # None when moving (nothing goes in the hall)
    trough_depth: Line
    trough_months: Line
    stranded_power: Line | None
    cost: Line  # total cost over the timeline
    compute_months: Line
    cost_per_compute: Line


def fleet_rack(s: SheetBuilder, key: str, label: str, fleet: Any, throughput: Line) -> FleetRack:
    """One fleet's rack, from its own model instance's lines."""
    p, c = fleet.power, fleet.cooling
    gpus = fleet.inputs.power.gpus_per_node
    s.section(f"A compute rack of the {label}")
    calc = s.calc
    return FleetRack(
        label,
        s.show(p.rack_peak_power, f"{key}_rack_power", f"{label}: rack synchronised peak"),
        calc(f"{key}_rack_liquid", f"{label}: rack heat to liquid", "kW", p.nodes_per_rack * c.node_liquid_heat,
             "nodes per rack x heat to liquid per node", fmt=KW),
        calc(f"{key}_rack_air", f"{label}: rack heat to air", "kW", p.nodes_per_rack * c.node_air_heat,
             "nodes per rack x heat to air per node", fmt=KW),
        s.show(c.floor_load, f"{key}_rack_floor", f"{label}: floor load under a full rack"),
        calc(f"{key}_rack_compute", f"{label}: compute per rack", "H100-eq", p.nodes_per_rack * gpus * throughput,
             "nodes per rack x GPUs per node x throughput per GPU (H100-equivalents)", fmt="#,##0.0"),
        s.show(p.racks, f"{key}_racks", f"{label}: compute racks of the fleet"),
        *_support(s, key, label, p),
    )


def _support(s: SheetBuilder, key: str, label: str, p: Any) -> tuple[Line, Line]:
    """The fleet's network, storage and management racks and what one of them draws (all of it to air)."""
    racks = s.calc(f"{key}_support_racks", f"{label}: network, storage and management racks", "racks",
                   p.racks_total - p.racks, "racks in all - compute racks", fmt=COUNT)
    power = s.calc(f"{key}_support_power", f"{label}: power per network, storage or management rack", "kW",
                   safe_div(p.network_power + p.optics_power + p.storage_power + p.management_power, racks,
                            "no such racks"), "(switches + optics + storage + management) / those racks", fmt=KW)
    return racks, power


def _scheduled(month: Line, amounts: list[tuple[Line, Line]], start: Any = None, *, once: bool = False) -> Node:
    """`start` plus each amount from its month of the timeline on (`once`: in that month only). Every schedule
    of the plans is this: racks delivered or removed, a project's capacity or its cost."""
    out: Node = as_node(start) if start is not None else Const(0, "dimensionless")
    for amount, month_no in amounts:
        when = month.eq(month_no * MONTH) if once else month >= month_no * MONTH
        out = out + amount * flag(when)
    return out


def _entries(i: Inputs, entries: list[Entry], zone: str | None = None) -> list[tuple[Line, Line]]:
    """(racks, month) of a plan's entries, of one zone or all."""
    return [(getattr(i, f"{e.key}_racks"), getattr(i, f"{e.key}_month")) for e in entries
            if zone is None or e.zone == zone]


def _projects(i: Inputs, up: Upgrade, what: str, zone: str | None = None) -> list[tuple[Line, Line]]:
    """(what it adds or costs, month done) of the projects, of one zone or all."""
    return [(getattr(i, f"project_{p}_{what}"), getattr(i, f"project_{p}_done_month"))
            for p, z in up.projects.items() if zone is None or z == zone]


def _capacity(s: SheetBuilder, month: Line, i: Inputs, up: Upgrade, zone: str, what: str, unit: str,
              label: str) -> Line:
    """A zone's capacity each month: its own plus what each of its projects adds from the month it is done."""
    node = _scheduled(month, _projects(i, up, what, zone), Ref(getattr(i, f"zone_{zone}_{what}")))
    return s.calc(f"zone_{zone}_{what}_available", f"Zone {zone}: {label} available", unit, node,
                  "the zone's own, plus each project's from the month it is done",
                  fmt={"racks": COUNT, "kg/m^2": COUNT}.get(unit, KW))


def _stopped(s: SheetBuilder, month: Line, i: Inputs, up: Upgrade, zone: str) -> Line:
    """1 in the months a project stops the zone (the `stop_months` before it is done), else 0."""
    node: Node = Const(0, "dimensionless")
    for project, z in up.projects.items():
        if z == zone:
            done = getattr(i, f"project_{project}_done_month") * MONTH
            stop = getattr(i, f"project_{project}_stop_months") * MONTH
            node = node + flag(month >= done - stop) * flag(month < done)
    return s.calc(f"zone_{zone}_stopped", f"Zone {zone}: stopped for works (flag)", "flag", min_(1, node),
                  "1 in the stop months before a project is done (its capacity counts from that month)",
                  fmt=COUNT)


def _zone(s: SheetBuilder, month: Line, i: Inputs, up: Upgrade, plan: str, zone: str, old: FleetRack,
          new: FleetRack) -> dict[str, Line]:
    """One zone of one plan, each month: racks, what they use against what is available, whether it fits."""
    s.section(f"Zone {zone}")
    k = f"zone_{zone}"
    deliveries, decommissions = up.plans[plan]
    old_racks = s.calc(f"{k}_old_racks", f"Zone {zone}: compute racks of the {old.label}", "racks",
                       getattr(i, f"{k}_old_racks") - _scheduled(month, _entries(i, decommissions, zone)),
                       "at the start, less each decommissioning from its month", fmt=COUNT)
    new_racks = s.calc(f"{k}_new_racks", f"Zone {zone}: compute racks of the {new.label}", "racks",
                       _scheduled(month, _entries(i, deliveries, zone)), "each delivery from its month", fmt=COUNT)
    support = s.calc(f"{k}_support_racks", f"Zone {zone}: network, storage and management racks", "racks",
                     _support_here(month, i, deliveries, zone, new), "the current fleet's (they stay), and the "
                     "next fleet's from its first delivery, in that delivery's zone (each draws the larger "
                     "fleet's power per such rack)", fmt=COUNT)
    avail = {what: _capacity(s, month, i, up, zone, what, unit, words) for what, unit, words in (
        ("positions", "racks", "rack positions"), ("feed", "kW", "power"),
        ("kw_per_position", "kW", "power per rack position"), ("air_cooling", "kW", "air cooling"),
        ("liquid_cooling", "kW", "liquid cooling"), ("floor_rating", "kg/m^2", "floor rating"))}
    stopped = _stopped(s, month, i, up, zone)
    running = (1 - stopped)
    power = s.calc(f"{k}_power_used", f"Zone {zone}: power used (synchronised peak)", "kW",
                   running * (old_racks * old.power + new_racks * new.power
                              + support * max_(old.support_power, new.support_power)),
                   "racks x their power; nothing while the zone is stopped", fmt=KW)
    liquid = s.calc(f"{k}_liquid_used", f"Zone {zone}: heat to liquid", "kW",
                    running * (old_racks * old.liquid + new_racks * new.liquid), fmt=KW)
    air = s.calc(f"{k}_air_used", f"Zone {zone}: heat to air", "kW", power - liquid,
                 "power used - heat to liquid", fmt=KW)
    used = s.calc(f"{k}_positions_used", f"Zone {zone}: rack positions used", "racks",
                  old_racks + new_racks + support, fmt=COUNT)
    fits = s.calc(f"{k}_fits", f"Zone {zone}: the plan fits (positions, power, rack power, cooling, floor)",
                  "TRUE/FALSE", _fits(old_racks, new_racks, used, power, liquid, air, avail, old, new), fmt="BOOLEAN")
    compute = s.calc(f"{k}_compute", f"Zone {zone}: delivered compute", "H100-eq",
                     running * (old_racks * old.compute + new_racks * new.compute),
                     "racks x compute per rack, nothing while the zone is stopped", fmt="#,##0")
    stranded = s.calc(f"{k}_stranded_power", f"Zone {zone}: power available but not used", "kW",
                      max_(0, avail["feed"] - power), fmt=KW)
    free = s.calc(f"{k}_free_positions", f"Zone {zone}: rack positions free", "racks",
                  max_(0, avail["positions"] - used), fmt=COUNT)
    return {"old": old_racks, "new": new_racks, "fits": fits, "compute": compute, "stranded": stranded,
            "power": power, "free": free}


def _support_here(month: Line, i: Inputs, deliveries: list[Entry], zone: str, new: FleetRack) -> Node:
    """Support racks in the zone: the current fleet's all along; the next fleet's from its first delivery, if that
    delivery goes to this zone."""
    out: Node = Ref(getattr(i, f"zone_{zone}_support_racks"))
    if deliveries and deliveries[0].zone == zone:
        out = out + new.support_racks * flag(month >= getattr(i, f"{deliveries[0].key}_month") * MONTH)
    return out


def _fits(old_racks: Line, new_racks: Line, used: Line, power: Line, liquid: Line, air: Line,
          avail: dict[str, Line], old: FleetRack, new: FleetRack) -> Node:
    none_old, none_new = old_racks <= 0, new_racks <= 0
    return all_(used <= avail["positions"], power <= avail["feed"],
                liquid <= avail["liquid_cooling"], air <= avail["air_cooling"],
                any_(none_old, old.power <= avail["kw_per_position"]),
                any_(none_new, new.power <= avail["kw_per_position"]),
                any_(none_old, old.floor <= avail["floor_rating"]),
                any_(none_new, new.floor <= avail["floor_rating"]))


def define_plan(scope: Scope, i: Inputs, up: Upgrade, plan: str, old: FleetRack, new: FleetRack,
                hall: dict[str, Line], baseline: Line) -> PlanOut:
    """One plan (a model instance under the plan's name): every zone each month, the hall's totals, the check
    that the plan fits every month, the capacity trough, the cost and the cost per unit of delivered compute."""
    s = scope.sheet(TITLE)
    s.section("Timeline")
    month = s.calc("month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0, fmt=COUNT)
    service = s.calc("in_service", "A month of service (flag)", "flag", flag(month > 0 * MONTH),
                     "0 in the Start column (time 0), as in the TCO", fmt=COUNT)
    zones = {z: _zone(s, month, i, up, plan, z, old, new) for z in up.zones}
    s.section("The hall")
    compute = s.calc("compute", "Delivered compute", "H100-eq", added(z["compute"] for z in zones.values()),
                     "every zone's (H100-equivalents)", fmt="#,##0")
    fits_row = s.calc("hall_fits", "The plan fits the hall", "TRUE/FALSE", all_(*(z["fits"] for z in zones.values())),
                      "every zone fits", fmt="BOOLEAN")
    stranded = s.calc("stranded_power", "Power available but not used", "kW",
                      added(z["stranded"] for z in zones.values()), fmt=KW)
    power = s.calc("power_used", "Power used (synchronised peak)", "kW", added(z["power"] for z in zones.values()),
                   fmt=KW)
    free = s.calc("free_positions", "Rack positions free", "racks", added(z["free"] for z in zones.values()),
                  fmt=COUNT)
    new_racks = s.calc("new_racks", f"Compute racks of the {new.label}", "racks",
                       added(z["new"] for z in zones.values()), fmt=COUNT)
    s.calc("old_racks", f"Compute racks of the {old.label}", "racks", added(z["old"] for z in zones.values()),
           fmt=COUNT)
    fits = _plan_checks(s, i, up, plan, month, fits_row, new_racks, zones, new)
    cost = _plan_cost(s, i, up, plan, month, service, power, hall)
    return _answers(s, "", compute, cost, baseline, fits, service, fits_row, stranded, free)


def _plan_checks(s: SheetBuilder, i: Inputs, up: Upgrade, plan: str, month: Line, fits_row: Line, new_racks: Line,
                 zones: dict[str, dict[str, Line]], new: FleetRack) -> Line:
    """The plan fits every month, delivers the next fleet, removes only what is there, and happens within the
    timeline (an entry after its last month would silently never happen)."""
    fits = s.check("fits", f"Plan {plan}: the racks fit the hall in every month", fits_row,
                   "positions, power, power per position, liquid and air cooling and floor, zone by zone")
    s.check("delivers_fleet", f"Plan {plan}: it delivers every compute rack of the {new.label}, no more",
            all_(_most(new_racks) <= new.racks, _most(new_racks) >= new.racks),
            "the most racks installed at once = the next fleet's compute racks")
    s.check("decommissions_what_is_there", f"Plan {plan}: it decommissions only racks that are there",
            all_(*(_least(z["old"]) >= 0 for z in zones.values())))
    deliveries, decommissions = up.plans[plan]
    months = [getattr(i, f"{e.key}_month") for e in (*deliveries, *decommissions)]
    months += [getattr(i, f"project_{p}_done_month") for p in up.projects]
    s.check("within_timeline", f"Plan {plan}: every delivery, decommissioning and project falls within the "
            "timeline", all_(*(m * MONTH <= largest(month) for m in months)),
            "each month <= the timeline's last")
    return fits


def _most(line: Line) -> Node:
    """The row's largest value; a zone no plan entry touches holds one value all along."""
    return largest(line) if line.series else Ref(line)


def _least(line: Line) -> Node:
    return smallest(line) if line.series else Ref(line)


def _plan_cost(s: SheetBuilder, i: Inputs, up: Upgrade, plan: str, month: Line, service: Line, power: Line,
               hall: dict[str, Line]) -> Line:
    """Cash out each month: racks delivered, projects done, the hall's energy, less what retired racks bring."""
    s.section("Cost (today's prices, undiscounted)")
    deliveries, decommissions = up.plans[plan]
    delivered = s.calc("racks_delivered", "Racks delivered this month", "racks",
                       _scheduled(month, _entries(i, deliveries), once=True), fmt=COUNT)
    retired = s.calc("racks_retired", "Racks decommissioned this month", "racks",
                     _scheduled(month, _entries(i, decommissions), once=True), fmt=COUNT)
    works = s.calc("projects_cost", "Facility projects paid (in the month each is done)", "USD",
                   _scheduled(month, _projects(i, up, "cost"), Const(0, "USD"), once=True), fmt=USD)
    energy = s.calc("energy_cost", "Energy of the racks in the hall", "USD",
                    service * power * hall["pue"] * hall["price"] * MONTH,
                    "power used x annual PUE x electricity price x hours in the month (at the synchronised peak: "
                    "conservative); none in the Start column", fmt=USD)
    return s.calc("cost_flow", "Cost this month", "USD",
                  delivered * i.new_rack_price + works + energy - retired * i.old_rack_value,
                  "racks delivered x price + projects + energy - racks decommissioned x their value", fmt=USD)


def _answers(s: SheetBuilder, key: str, compute: Line, cost: Line, baseline: Line, fits: Line, service: Line,
             fits_row: Line | None = None, stranded: Line | None = None, free: Line | None = None) -> PlanOut:
    """A plan's answers: feasibility, the capacity trough, stranded power, cost per unit of compute. `key`
    prefixes the ids (moving instead shares a sheet with other lines)."""
    s.section("Answers" if not key else "Answers, moving")
    infeasible = peak = None
    if fits_row is not None:
        failing = s.calc(f"{key}not_fitting", "The plan does not fit the hall (flag)", "flag", flag(not_(fits_row)),
                         fmt=COUNT)
        infeasible = s.calc(f"{key}infeasible_months", "Months the plan does not fit the hall", "months",
                            total(failing) * MONTH, fmt=COUNT)
    below = s.calc(f"{key}below_start", "Delivered compute below the start's (flag)", "flag",
                   flag(compute < baseline), fmt=COUNT)
    depth = s.calc(f"{key}trough_depth", "Capacity trough: deepest fall below the start's compute", "H100-eq",
                   max_(0, baseline - smallest(compute)), "the start's compute - the least delivered in a month",
                   fmt="#,##0")
    months = s.calc(f"{key}trough_months", "Capacity trough: months below the start's compute", "months",
                    total(below) * MONTH, fmt=COUNT)
    if stranded is not None:
        peak = s.calc(f"{key}stranded_power_peak", "Most power available but not used in a month", "kW",
                      largest(stranded), fmt=KW)
    if free is not None:
        s.calc(f"{key}free_positions_peak", "Most rack positions free in a month", "racks", largest(free),
               fmt=COUNT)
    spent = s.calc(f"{key}cost", "Cost over the timeline (undiscounted)", "USD", total(cost), fmt=USD)
    served = s.calc(f"{key}compute_served", "Delivered compute in a month of service", "H100-eq",
                    compute * service, "none in the Start column", fmt="#,##0")
    delivered = s.calc(f"{key}compute_months", "Delivered compute over the timeline", "H100-eq-months",
                       total(served) * MONTH, fmt="#,##0")
    per_unit = s.calc(f"{key}cost_per_compute", "Cost per unit of delivered compute", "USD/H100-eq-month",
                      safe_div(spent, delivered, "no compute delivered"), "cost / delivered compute-months",
                      fmt="#,##0.00")
    return PlanOut(compute, fits, infeasible, depth, months, peak, spent, delivered, per_unit)


@dataclass(frozen=True)
class GenerationOut:
    """The upgrade's answers: each plan's, and moving instead."""

    plans: dict[str, PlanOut]
    move: PlanOut
    baseline: Line
    shown: tuple[Line, ...]  # each plan's delivered compute by month, on consecutive rows (the chart's)


def define(book: Book, i: Inputs, up: Upgrade, current: Any, nxt: Any, hall: dict[str, Line]) -> GenerationOut:
    """The upgrade: both fleets' racks, each plan as an instance of the plan model, moving instead, the chart of
    delivered compute by month and the plans side by side. `current` and `nxt` are the two fleets (Fleet);
    `hall`: the energy price and the annual PUE the hall's energy is billed at."""
    scope = Scope(book, PREFIX)
    s = scope.sheet(UPGRADE_RACKS)  # single values: in the reviewer's pack (the monthly sheets are its appendix)
    old = fleet_rack(s, "current", "current fleet", current, current.inputs.power.gpu_throughput)
    new = fleet_rack(s, "next", "next fleet", nxt, nxt.inputs.power.gpu_throughput)
    s.section("At the start, and the facility projects")
    racks_at_start = added(getattr(i, f"zone_{z}_old_racks") for z in up.zones)
    baseline = s.calc("compute_at_start", "Delivered compute at the start (every zone's current racks)", "H100-eq",
                      racks_at_start * old.compute, fmt="#,##0")
    support_at_start = added(getattr(i, f"zone_{z}_support_racks") for z in up.zones)
    s.check("old_racks_are_the_fleet", "The zones hold the current fleet's racks at the start, no more",
            all_(racks_at_start <= old.racks, support_at_start <= old.support_racks),
            "compute racks <= the fleet's; network, storage and management racks <= the fleet's")
    for p in up.projects:
        s.check(f"project_{p}_stop_within", f"Project {p}: its stop starts after the start of the timeline",
                getattr(i, f"project_{p}_stop_months") <= getattr(i, f"project_{p}_done_month"),
                "months it stops <= the month it is done")
    projects = s.calc("projects_total", "Facility projects, in all", "USD",
                      added([Const(0, "USD"), *(getattr(i, f"project_{p}_cost") for p in up.projects)]), fmt=USD)
    it_mw = nxt.power.critical_it_capacity
    per_mw = s.calc("projects_per_mw", "Facility projects per MW of the next fleet's critical IT", "USD/MW",
                    projects / it_mw, fmt=USD)
    plans = {name: define_plan(Scope(book, PREFIX, name), i, up, name, old, new, hall, baseline)
             for name in up.plans}
    s = scope.sheet(UPGRADE_PLANS)
    move = _move(s, i, old, new, hall, baseline, it_mw)
    s.section("Delivered compute by month (H100-equivalents)")
    shown = [s.show(p.compute, f"plan_{name}_compute", f"Plan {name}") for name, p in plans.items()]
    shown.append(s.show(move.compute, "move_compute_shown", "Moving to a second site"))
    _compare(book, plans, move, per_mw, i.move_capex_per_mw)
    return GenerationOut(plans, move, baseline, tuple(shown))


def _move(s: SheetBuilder, i: Inputs, old: FleetRack, new: FleetRack, hall: dict[str, Line], baseline: Line,
          it_mw: Line) -> PlanOut:
    """Moving instead: the hall is left as it is (the current fleet keeps running, no works, no trough) and the
    whole next fleet runs at a second site from the month it is ready (as a delivery counts from its month),
    which costs its capex per MW of the next fleet's critical IT (the basis build costs are quoted on)."""
    s.section("Moving the next fleet to a second site instead")
    month = s.calc("move_month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0,
                   fmt=COUNT)
    service = s.calc("move_in_service", "A month of service (flag)", "flag", flag(month > 0 * MONTH), fmt=COUNT)
    ready = s.calc("move_ready", "The second site runs the next fleet (flag)", "flag",
                   flag(month >= i.move_lead_time * MONTH), fmt=COUNT)
    current_racks = s.calc("move_current_racks", "Current racks, kept running in the hall", "racks",
                           baseline / old.compute, fmt=COUNT)
    compute = s.calc("move_compute", "Delivered compute, moving", "H100-eq",
                     baseline + ready * new.racks * new.compute, "the hall's, plus the next fleet's once it runs",
                     fmt="#,##0")
    capex = s.calc("move_capex", "Second site's capex", "USD", i.move_capex_per_mw * it_mw,
                   "capex per MW x the next fleet's critical IT capacity", fmt=USD)
    power = s.calc("move_power", "Power used, both sites (synchronised peak)", "kW",
                   current_racks * old.power + ready * new.racks * new.power, fmt=KW)
    cost = s.calc("move_cost_flow", "Cost this month, moving", "USD",
                  flag(month.eq(i.move_lead_time * MONTH)) * (capex + new.racks * i.new_rack_price)
                  + service * power * hall["pue"] * hall["price"] * MONTH,
                  "when the site is ready: its capex and the racks; every month of service: the energy of both",
                  fmt=USD)
    fits = s.check("move_within_timeline", "Moving: the second site is ready within the timeline",
                   i.move_lead_time * MONTH <= largest(month))
    return _answers(s, "move_", compute, cost, baseline, fits, service)


def _compare(book: Book, plans: dict[str, PlanOut], move: PlanOut, per_mw: Line, move_per_mw: Line) -> None:
    """The plans and moving side by side (a view: every cell refers to a live line)."""
    rows = [("Feasible: fits the hall every month (moving: the site is ready in time)", "TRUE/FALSE", "BOOLEAN",
             lambda p: p.fits),
            ("Capacity trough: deepest fall", "H100-eq", "#,##0", lambda p: p.trough_depth),
            ("Capacity trough: months", "months", COUNT, lambda p: p.trough_months),
            ("Cost over the timeline (undiscounted)", "USD", USD, lambda p: p.cost),
            ("Delivered compute over the timeline", "H100-eq-months", "#,##0", lambda p: p.compute_months),
            ("Cost per unit of delivered compute", "USD/H100-eq-month", "#,##0.00", lambda p: p.cost_per_compute)]
    columns = [(name, "upgrade in place", [pick(p) for *_, pick in rows] + [per_mw]) for name, p in plans.items()]
    columns.append(("move", "a second site", [pick(move) for *_, pick in rows] + [move_per_mw]))
    book.views.append(View(
        UPGRADE_COMPARISON, "Upgrade comparison",
        "Each plan upgrades the hall in place; the last column moves the next fleet to a second site. "
        "Every cell refers to a live line.",
        [r[0] for r in rows] + ["Facility capex per MW of the next fleet's critical IT"],
        [r[1] for r in rows] + ["USD/MW"], [r[2] for r in rows] + [USD], columns,
        chart_rows=[5], chart_title="Cost per unit of delivered compute (USD per H100-eq-month)",
        cases="plan", changes_label="What it is"))


def summarise(book: Book, s: SheetBuilder, out: GenerationOut) -> None:
    """The upgrade's answers on the Summary, and the chart of delivered compute by month, plans compared."""
    s.section("Generation upgrade (Upgrade comparison, Upgrade racks, Upgrade plans)")
    s.show(out.baseline, "upgrade_compute_at_start")
    for name, plan in [*out.plans.items(), ("move", out.move)]:
        what = "moving to a second site" if name == "move" else f"plan {name}"
        fits = "the second site is ready within the timeline" if name == "move" else "fits the hall every month"
        s.show(plan.fits, f"upgrade_{name}_fits", f"Upgrade, {what}: {fits}")
        s.show(plan.trough_depth, f"upgrade_{name}_trough", f"Upgrade, {what}: capacity trough, deepest")
        s.show(plan.cost_per_compute, f"upgrade_{name}_cost_per_compute",
               f"Upgrade, {what}: cost per unit of delivered compute")
    book.charts.append(Chart(s.title, "Delivered compute by month, each plan (H100-equivalents)", "line",
                             list(out.shown), y_title="H100-equivalents", x_title="month"))
