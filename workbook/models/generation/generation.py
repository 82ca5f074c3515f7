"""A generation upgrade: the current fleet and the next one sharing a hall over the timeline.

Both fleets are instances of the same power, fabric and cooling models (the next one under the namespace `next`);
this model reads what each rack of each fleet needs (peak power, heat to liquid and to air, floor load, GPUs) and
places racks in the hall's zones month by month as each plan says: deliveries of the next fleet's racks,
decommissionings of the current fleet's, facility projects that add capacity from the month they are done (and
may stop their zone while they work). Each plan is an instance of the plan model (`Upgrade (staged_swap)`). Each
month, each zone is checked (positions, power, power per position, liquid and air cooling, floor) and the hall
against the site's plant (the contracted feed, the site's available power, the transformer and UPS blocks with
one redundancy's worth out, the heat rejection); a check per limit per plan reaches the master check and its
first failing month is shown; a failing month shows FALSE, never a silent negative number. Delivered compute is
in H100-equivalents (each fleet's GPUs x its throughput per GPU, an input with its source); a training job runs on
one fabric, so the largest job each month is the larger fleet's compute, and its trough is shown beside the sum's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Chart, Presented, View
from workbook.book.sheets import UPGRADE, UPGRADE_COMPARISON, UPGRADE_PLANS, UPGRADE_RACKS
from workbook.formula.expr import Const, Node, Ref, as_node
from workbook.formula.functions import (
    added,
    all_,
    all_over,
    any_,
    at_most,
    flag,
    floor,
    largest,
    max_,
    min_,
    not_,
    pmt,
    prev,
    safe_div,
    smallest,
    total,
    where,
)
from workbook.formula.line import BOOL, COUNT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.generation.inputs import Entry, Upgrade

if TYPE_CHECKING:  # the fleet is wired by workbook.models.fleet, which imports the models this module reads
    from workbook.models.fleet import Fleet

PREFIX = "generation"
TITLE = UPGRADE
INPUTS_TITLE = "Generation upgrade"  # the Inputs sheet's section
MONTH = Const(1, "fmonth")
# A month's load against a limit computed apart (the facility power with the headroom against the contract the power
# chain sized from the same peak, the hall's heat against the plant's): within 0.1 kW, not to the last bit.
KW_TOLERANCE = Const(100, "W")
USD = "#,##0"
KW = "#,##0.0"
EQ = "#,##0"  # H100-equivalents


@dataclass(frozen=True)
class FleetRack:
    """What one compute rack of a fleet needs and gives (lines on the comparison sheet)."""

    label: str
    power: Line  # synchronised peak, kW
    design: Line  # at the node's design power (the heat's basis), kW
    liquid: Line  # heat to liquid, kW
    air: Line  # heat to air, kW
    floor: Line  # floor load under it, kg/m²
    compute: Line  # H100-equivalents
    racks: Line  # compute racks of the whole fleet
    support_racks: Line  # its network, storage and management racks
    support_power: Line  # kW per support rack (switches, optics, storage, management), all of it to air
    pumps: Line  # the fleet's CDU pump power (UPS-backed), kW


@dataclass(frozen=True)
class Plant:
    """The site's plant every month of every plan is checked against: the current fleet's power chain, UPS and
    cooling (lines on the Upgrade racks sheet, and the power chain's inputs)."""

    feed: Line  # contracted feed, kW of facility power
    site: Line  # the site's available power
    transformers: Line  # blocks installed
    transformer: tuple[Line, Line, Line]  # (rating, multiple of N, spares)
    ups: Line  # blocks installed
    ups_block: tuple[Line, Line, Line]
    power_factor: Line
    heat: Line  # the IT hall heat the plant was sized to reject
    facility: Callable[[Any], Node]  # the hall's facility power for an IT load: design PUE, or itemised
    it_for: Callable[[Any], Node]  # its inverse: the IT load a facility power allows
    headroom: Line  # the feed headroom the site keeps over its synchronised peak (the power chain's)


@dataclass(frozen=True)
class PlanOut:
    """A plan's answers, compared side by side."""

    compute: Line  # delivered compute each month
    largest_job: Line  # the larger fleet's compute each month: a job runs on one fabric
    fits: Line  # every check of the plan passes (moving: the second site is ready in time)
    infeasible_months: Line  # months the hall or its plant does not fit (moving: none, see its note)
    first_infeasible: Line | None  # the first such month (None when moving)
    trough_depth: Line
    trough_months: Line
    job_trough_depth: Line
    job_trough_months: Line
    stranded_power: Line | None
    cost: Line  # total cost over the timeline
    compute_months: Line
    cost_per_compute: Line


def fleet_rack(s: SheetBuilder, key: str, label: str, fleet: Fleet, throughput: Line) -> FleetRack:
    """One fleet's rack, from its own model instance's lines."""
    p, c = fleet.power, fleet.cooling
    gpus = fleet.inputs.power.gpus_per_node
    s.section(f"A compute rack of the {label}")
    calc = s.calc
    return FleetRack(
        label,
        s.show(p.rack_peak_power, f"{key}_rack_power", f"{label}: rack synchronised peak"),
        calc(f"{key}_rack_design", f"{label}: rack at the nodes' design power", "kW", p.nodes_per_rack * p.node_power,
             "nodes per rack x node design power: the sustained load the heat plant sees (the synchronised peak "
             "is a transient the feed, transformers and UPS carry)", fmt=KW),
        calc(f"{key}_rack_liquid", f"{label}: rack heat to liquid", "kW", p.nodes_per_rack * c.node_liquid_heat,
             "nodes per rack x heat to liquid per node", fmt=KW),
        calc(f"{key}_rack_air", f"{label}: rack heat to air", "kW", p.nodes_per_rack * c.node_air_heat,
             "nodes per rack x heat to air per node", fmt=KW),
        s.show(c.floor_load, f"{key}_rack_floor", f"{label}: floor load under a full rack"),
        calc(f"{key}_rack_compute", f"{label}: compute per rack", "H100-eq", p.nodes_per_rack * gpus * throughput,
             "nodes per rack x GPUs per node x throughput per GPU (H100-equivalents)", fmt="#,##0.0"),
        s.show(p.racks, f"{key}_racks", f"{label}: compute racks of the fleet"),
        *_support(s, key, label, p),
        s.show(c.cdu_pump_power, f"{key}_pumps", f"{label}: CDU pump power (UPS-backed; 0 air-cooled)"),
    )


def _support(s: SheetBuilder, key: str, label: str, p: Any) -> tuple[Line, Line]:
    """The fleet's network, storage and management racks and what one of them draws (all of it to air)."""
    racks = s.calc(f"{key}_support_racks", f"{label}: network, storage and management racks", "racks",
                   p.racks_total - p.racks, "racks in all - compute racks", fmt=COUNT)
    power = s.calc(f"{key}_support_power", f"{label}: power per network, storage or management rack", "kW",
                   safe_div(p.network_power + p.optics_power + p.storage_power + p.management_power, racks,
                            "no such racks"), "(switches + optics + storage + management) / those racks", fmt=KW)
    return racks, power


def _scheduled(month: Line, amounts: list[tuple[Line, Line]], start: Any = None, *, once: bool = False,
               after: Any = None) -> Node:
    """`start` plus each amount from its month of the timeline on (`once`: in that month only; `after`: that many
    months later, a rack's burn-in before it produces). Every schedule of the plans is this: racks delivered or
    removed, a project's capacity or its cost."""
    out: Node = as_node(start) if start is not None else Const(0, "dimensionless")
    for amount, month_no in amounts:
        due = (month_no + after) * MONTH if after is not None else month_no * MONTH
        when = month.eq(due) if once else month >= due
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
                  fmt={"racks": COUNT, "kg/m²": COUNT}.get(unit, KW))


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


def _zone_racks(s: SheetBuilder, month: Line, i: Inputs, up: Upgrade, plan: str, zone: str, old: FleetRack,
                new: FleetRack) -> dict[str, Any]:
    """A zone's racks each month: each fleet's compute racks and the network, storage and management racks."""
    s.section(f"Zone {zone}")
    k = f"zone_{zone}"
    deliveries, decommissions = up.plans[plan]
    old_racks = s.calc(f"{k}_old_racks", f"Zone {zone}: compute racks of the {old.label}", "racks",
                       getattr(i, f"{k}_old_racks") - _scheduled(month, _entries(i, decommissions, zone)),
                       "at the start, less each decommissioning from its month", fmt=COUNT)
    new_racks = s.calc(f"{k}_new_racks", f"Zone {zone}: compute racks of the {new.label}", "racks",
                       _scheduled(month, _entries(i, deliveries, zone)), "each delivery from its month", fmt=COUNT)
    producing = s.calc(f"{k}_new_producing", f"Zone {zone}: compute racks of the {new.label} producing (burnt in)",
                       "racks", _scheduled(month, _entries(i, deliveries, zone), after=i.burn_in_months),
                       "each delivery from its month + the burn-in months: a rack draws power from delivery and "
                       "computes for the plan once burnt in", fmt=COUNT)
    old_support = getattr(i, f"{k}_support_racks")
    new_support = s.calc(f"{k}_new_support_racks", f"Zone {zone}: network, storage and management racks of the "
                         f"{new.label}", "racks", _support_here(month, i, deliveries, zone, new),
                         "from the next fleet's first delivery, in that delivery's zone", fmt=COUNT)
    support = s.calc(f"{k}_support_racks", f"Zone {zone}: network, storage and management racks", "racks",
                     old_support + new_support, f"the {old.label}'s (they stay) + the {new.label}'s", fmt=COUNT)
    return {"old": old_racks, "new": new_racks, "producing": producing, "old_support": old_support,
            "new_support": new_support, "support": support}


def _room(s: SheetBuilder, month: Line, i: Inputs, up: Upgrade, zone: str, racks: dict[str, Any], old: FleetRack,
          new: FleetRack) -> list[Line]:
    """Positions left for each kind of rack: the positions whose power per position takes it, less the racks that
    need as much (each kind counted with every kind at least as powerful). A zone's own positions keep its power
    per position; a project's positions (added or converted from the zone's) take the project's, from the month it
    is done. Racks fit the positions when every such row is >= 0 (Hall's marriage theorem: the positions that
    take a given power are nested, so these inequalities are enough)."""
    k = f"zone_{zone}"
    own_limit = getattr(i, f"{k}_kw_per_position")
    projects = [(getattr(i, f"project_{p}_positions"), getattr(i, f"project_{p}_converted_positions"),
                 getattr(i, f"project_{p}_kw_per_position"), getattr(i, f"project_{p}_done_month"))
                for p, z in up.projects.items() if z == zone]
    own: Node = Ref(getattr(i, f"{k}_positions"))
    for _, converted, _, done in projects:
        own = own - converted * flag(month >= done * MONTH)
    support = max_(old.support_power, new.support_power)
    kinds = [("old", f"a {old.label} rack", racks["old"], old.power),
             ("new", f"a {new.label} rack", racks["new"], new.power),
             ("support", "a network, storage or management rack (at the larger fleet's power)", racks["support"],
              support)]
    rows = []
    for key, what, _, power in kinds:
        takes: Node = own * flag(own_limit >= power)
        for added_, converted, limit, done in projects:
            takes = takes + (added_ + converted) * flag(month >= done * MONTH) * flag(limit >= power)
        needs = added(count if other is power else count * flag(other >= power) for _, _, count, other in kinds)
        rows.append(s.calc(f"{k}_room_{key}", f"Zone {zone}: positions left for {what}", "racks", takes - needs,
                           "positions whose power per position takes it - racks that need as much or more "
                           "(a project's positions take its own power per position, not the zone's plus it)",
                           fmt=COUNT))
    return rows


def _zone(s: SheetBuilder, month: Line, i: Inputs, up: Upgrade, plan: str, zone: str, old: FleetRack,
          new: FleetRack) -> dict[str, Any]:
    """One zone of one plan, each month: racks, what they use against what is available, whether it fits."""
    k = f"zone_{zone}"
    racks = _zone_racks(s, month, i, up, plan, zone, old, new)
    avail = {what: _capacity(s, month, i, up, zone, what, unit, words) for what, unit, words in (
        ("positions", "racks", "rack positions"), ("feed", "kW", "power"), ("air_cooling", "kW", "air cooling"),
        ("liquid_cooling", "kW", "liquid cooling"), ("floor_rating", "kg/m²", "floor rating"))}
    room = _room(s, month, i, up, zone, racks, old, new)
    stopped = _stopped(s, month, i, up, zone)
    running = 1 - stopped
    old_racks, new_racks = racks["old"], racks["new"]
    power = s.calc(f"{k}_power_used", f"Zone {zone}: power used (synchronised peak)", "kW",
                   running * (old_racks * old.power + new_racks * new.power + racks["old_support"] * old.support_power
                              + racks["new_support"] * new.support_power),
                   "racks x their power, each fleet's support racks at its own; nothing while the zone is stopped",
                   fmt=KW)
    liquid = s.calc(f"{k}_liquid_used", f"Zone {zone}: heat to liquid", "kW",
                    running * (old_racks * old.liquid + new_racks * new.liquid), fmt=KW)
    air = s.calc(f"{k}_air_used", f"Zone {zone}: heat to air", "kW", power - liquid,
                 "power used - heat to liquid", fmt=KW)
    used = s.calc(f"{k}_positions_used", f"Zone {zone}: rack positions used", "racks",
                  old_racks + new_racks + racks["support"], fmt=COUNT)
    fits = s.calc(f"{k}_fits", f"Zone {zone}: the plan fits (positions, power, power per position, cooling, floor)",
                  "TRUE/FALSE", all_(used <= avail["positions"], power <= avail["feed"],
                                     liquid <= avail["liquid_cooling"], air <= avail["air_cooling"],
                                     *(r >= 0 for r in room),
                                     any_(old_racks <= 0, old.floor <= avail["floor_rating"]),
                                     any_(new_racks <= 0, new.floor <= avail["floor_rating"])), fmt=BOOL)
    compute = s.calc(f"{k}_compute", f"Zone {zone}: delivered compute", "H100-eq",
                     running * (old_racks * old.compute + racks["producing"] * new.compute),
                     "racks x compute per rack (the next fleet's once burnt in), nothing while the zone is stopped",
                     fmt=EQ)
    stranded = s.calc(f"{k}_stranded_power", f"Zone {zone}: power available but not used", "kW",
                      max_(0, avail["feed"] - power), "the zone's power available - used, at least 0", fmt=KW)
    free = s.calc(f"{k}_free_positions", f"Zone {zone}: rack positions free", "racks",
                  max_(0, avail["positions"] - used), fmt=COUNT)
    return {**racks, "running": running, "fits": fits, "compute": compute, "stranded": stranded, "power": power,
            "free": free}


def _support_here(month: Line, i: Inputs, deliveries: list[Entry], zone: str, new: FleetRack) -> Node:
    """The next fleet's support racks in the zone: from its first delivery, if that delivery goes to this zone."""
    if deliveries and deliveries[0].zone == zone:
        return new.support_racks * flag(month >= getattr(i, f"{deliveries[0].key}_month") * MONTH)
    return Const(0, "dimensionless")


def _hall(s: SheetBuilder, zones: dict[str, dict[str, Any]], old: FleetRack, new: FleetRack) -> dict[str, Line]:
    """The hall's totals each month, each fleet's compute, and the largest job one fabric can run."""
    s.section("The hall")
    z = list(zones.values())
    out = {
        "compute": s.calc("compute", "Delivered compute", "H100-eq", added(x["compute"] for x in z),
                          "every zone's (H100-equivalents), both fleets", fmt=EQ),
        "current": s.calc("compute_current", f"Delivered compute of the {old.label}", "H100-eq",
                          added(x["running"] * x["old"] for x in z) * old.compute,
                          "its racks running in every zone x compute per rack: one fabric", fmt=EQ),
        "next": s.calc("compute_next", f"Delivered compute of the {new.label}", "H100-eq",
                       added(x["running"] * x["producing"] for x in z) * new.compute,
                       "its racks running and burnt in, in every zone x compute per rack: the other fabric", fmt=EQ)}
    out["job"] = s.calc("largest_job", "Largest single job (one fabric)", "H100-eq",
                        max_(out["current"], out["next"]),
                        "MAX(each fleet's compute): a training job cannot span the two fabrics", fmt=EQ)
    out["zones_fit"] = s.calc("hall_fits", "Every zone fits", "TRUE/FALSE", all_(*(x["fits"] for x in z)),
                              "positions, power, power per position, cooling and floor, zone by zone", fmt=BOOL)
    out["zone_room"] = s.calc("zones_power_room", "Zones' power available but not used", "kW",
                              added(x["stranded"] for x in z), "every zone's, added", fmt=KW)
    out["power"] = s.calc("power_used", "IT power used (synchronised peak)", "kW", added(x["power"] for x in z),
                          fmt=KW)
    out["design"] = s.calc(
        "it_design", "IT load at the nodes' design power (the heat's basis)", "kW",
        added(x["running"] * (x["old"] * old.design + x["new"] * new.design + x["old_support"] * old.support_power
                              + x["new_support"] * new.support_power) for x in z),
        "as the power used, each compute rack at its design power: heat follows the sustained load", fmt=KW)
    out["free"] = s.calc("free_positions", "Rack positions free", "racks", added(x["free"] for x in z), fmt=COUNT)
    out["new"] = s.calc("new_racks", f"Compute racks of the {new.label}", "racks", added(x["new"] for x in z),
                        fmt=COUNT)
    out["old"] = s.calc("old_racks", f"Compute racks of the {old.label}", "racks", added(x["old"] for x in z),
                        fmt=COUNT)
    return out


def _plant_power(s: SheetBuilder, i: Inputs, up: Upgrade, month: Line, hall: dict[str, Line],
                 plant: Plant) -> dict[str, Line]:
    """The hall's facility power each month, with the feed headroom the site keeps, against the contracted feed,
    the site and the transformers: the rule a new site is sized by (peak x (1 + headroom) x PUE)."""
    s.section("The site's plant: feed, site and transformers (facility power at the synchronised peak, with the "
              "feed headroom kept)")
    facility = s.calc("facility_power", "Facility power (synchronised peak)", "kW", plant.facility(hall["power"]),
                      "IT power used x the hall's design PUE (or its itemised overhead), as the power chain sizes "
                      "the feed; the next fleet's racks too: they share the hall's plant", fmt=KW)
    need = s.calc("facility_with_headroom", "Facility power with the feed headroom kept", "kW",
                  facility * (1 + plant.headroom),
                  "facility power x (1 + the power chain's feed headroom): what the feed must carry, as a new site's "
                  "contract is sized", fmt=KW)
    feed = s.calc("feed_available", "Contracted feed", "kW",
                  _scheduled(month, _projects(i, up, "contracted_feed"), Ref(plant.feed)),
                  "the power chain's contracted feed, plus each project's from the month it is done", fmt=KW)
    margin = s.calc("feed_margin", "Margin of the contracted feed over the month's facility power", "%",
                    where(facility > 0, (feed - facility) / max_(facility, Const(1, "kW")), 0),
                    "(feed - facility power) / facility power: at least the feed headroom, or the check fails",
                    fmt="0.0%")
    s.calc("feed_margin_least", "Least margin of the feed over a month's facility power (the headroom kept: "
           "at least the power chain's feed headroom)", "%", _least(margin), "the least of the row above",
           fmt="0.0%")
    blocks = s.calc("transformer_blocks", "Transformer blocks installed", "blocks",
                    _scheduled(month, _projects(i, up, "transformer_blocks"), Ref(plant.transformers)),
                    "the power chain's, plus each project's from the month it is done", fmt=COUNT)
    size, multiple, spares = plant.transformer
    capacity = s.calc("transformer_capacity", "Transformer capacity with the redundancy's blocks out", "kW",
                      floor((blocks - spares) / multiple) * size * plant.power_factor,
                      "ROUNDDOWN((blocks - spares) / multiple of N) x rating x power factor: N+1 carries the load "
                      "with one block out, 2N with one path out (the power chain's redundancy)", fmt=KW)
    return {
        "feed": _limit(s, "within_feed", "Facility power with the feed headroom within the contracted feed",
                       need <= feed + KW_TOLERANCE),
        "site": _limit(s, "within_site", "Facility power with the feed headroom within the site's available power",
                       need <= plant.site + KW_TOLERANCE),
        "transformers": _limit(s, "within_transformers", "Facility power with the feed headroom within the "
                               "transformers with the redundancy's blocks out", need <= capacity + KW_TOLERANCE),
        "_feed": feed, "_transformers": capacity}


def _plant_backup_and_heat(s: SheetBuilder, i: Inputs, up: Upgrade, month: Line, hall: dict[str, Line],
                           plant: Plant, old: FleetRack, new: FleetRack) -> dict[str, Line]:
    """The UPS-backed load against the UPS blocks, and the hall's heat against the heat rejection."""
    s.section("The site's plant: UPS and heat rejection")
    pumps = old.pumps * flag(hall["old"] > 0) + new.pumps * flag(hall["new"] > 0)
    backed = s.calc("ups_load", "UPS-backed load, with the feed headroom on the IT", "kW",
                    hall["power"] * (1 + plant.headroom) + pumps,
                    "IT power used x (1 + feed headroom), as the power chain's critical IT capacity, + each fleet's "
                    "CDU pumps while any of its racks is in the hall (a cold plate without flow reaches its limit in "
                    "seconds), as the UPS model carries", fmt=KW)
    blocks = s.calc("ups_blocks", "UPS blocks installed", "blocks",
                    _scheduled(month, _projects(i, up, "ups_blocks"), Ref(plant.ups)),
                    "the power chain's, plus each project's from the month it is done", fmt=COUNT)
    size, multiple, spares = plant.ups_block
    capacity = s.calc("ups_capacity", "UPS capacity with the redundancy's blocks out", "kW",
                      floor((blocks - spares) / multiple) * size * plant.power_factor,
                      "ROUNDDOWN((blocks - spares) / multiple of N) x rating x power factor", fmt=KW)
    heat = s.calc("heat_load", "IT hall heat to reject", "kW", hall["design"] + pumps,
                  "IT load at the nodes' design power + each fleet's CDU pumps while its racks are in the hall, as "
                  "the Cooling sheet's heat to liquid, heat to air and pump power", fmt=KW)
    rejection = s.calc("heat_rejection_available", "Heat rejection available", "kW",
                       _scheduled(month, _projects(i, up, "heat_rejection"), Ref(plant.heat)),
                       "the heat load the plant was sized for (the current fleet's, Cooling sheet), plus each "
                       "project's from the month it is done", fmt=KW)
    return {"ups": _limit(s, "within_ups", "UPS-backed load within the UPS with the redundancy's blocks out",
                          backed <= capacity + KW_TOLERANCE),
            "heat": _limit(s, "within_heat", "Heat load within the heat rejection", heat <= rejection + KW_TOLERANCE),
            "_ups": capacity, "_pumps": pumps}


def _room_left(s: SheetBuilder, hall: dict[str, Line], plant: Plant, limits: dict[str, Line]) -> Line:
    """The IT power the plan could still add in a month: the least of what every limit leaves, each as IT at the
    synchronised peak with the feed headroom kept (a zone's power, the contracted feed, the site, the transformers
    with a block out, the UPS with a block out); at least 0."""
    it, h = hall["power"], plant.headroom
    s.section("Power available but not used: the least any limit leaves (IT at the synchronised peak)")
    room = [hall["zone_room"],
            s.calc("feed_room", "IT the contracted feed leaves, with the headroom kept", "kW",
                   plant.it_for(limits["_feed"] / (1 + h)) - it,
                   "the IT load whose facility power x (1 + headroom) is the feed - IT power used", fmt=KW),
            s.calc("site_room", "IT the site's available power leaves, with the headroom kept", "kW",
                   plant.it_for(plant.site / (1 + h)) - it, "as the feed's, for the site's available power", fmt=KW),
            s.calc("transformer_room", "IT the transformers leave with the redundancy's blocks out", "kW",
                   plant.it_for(limits["_transformers"] / (1 + h)) - it,
                   "as the feed's, for the transformer capacity with the blocks out", fmt=KW),
            s.calc("ups_room", "IT the UPS leaves with the redundancy's blocks out", "kW",
                   (limits["_ups"] - limits["_pumps"]) / (1 + h) - it,
                   "(UPS capacity - CDU pumps) / (1 + headroom) - IT power used", fmt=KW)]
    return s.calc("stranded_power", "Power available but not used (the least any limit leaves)", "kW",
                  max_(0, min_(*room)), "MAX(0, MIN(the zones' room, the feed's, the site's, the transformers', the "
                  "UPS's)): what the plan could still add", fmt=KW)


def _limit(s: SheetBuilder, key: str, label: str, condition: Node) -> Line:
    """A row per month: TRUE while the hall is within this limit (a plant limit within 0.1 kW)."""
    return s.calc(key, label, "TRUE/FALSE", condition, "within the limit, to 0.1 kW where both sides are computed",
                  fmt=BOOL)


def _every(row: Line) -> Node:
    """TRUE when the row holds every month (a row no plan entry touches holds one value all along)."""
    return all_over(row) if row.series else Ref(row)


# The limits a plan is checked against each month: (key, what the check says is kept).
LIMITS = (("zones", "the racks fit every zone (positions, power, power per position, cooling, floor)"),
          ("feed", "facility power with the feed headroom within the contracted feed"),
          ("site", "facility power with the feed headroom within the site's available power"),
          ("transformers", "facility power with the feed headroom within the transformers with the redundancy's "
                           "blocks out"),
          ("ups", "UPS-backed load within the UPS blocks with the redundancy's blocks out"),
          ("heat", "heat load within the heat rejection"))


def define_plan(scope: Scope, i: Inputs, up: Upgrade, plan: str, old: FleetRack, new: FleetRack,
                hall_prices: dict[str, Any], baseline: Line, plant: Plant) -> PlanOut:
    """One plan (a model instance under the plan's name): every zone each month, the hall's totals against the
    site's plant, a check per limit, the capacity trough (summed and of the largest job), the cost and the cost
    per unit of delivered compute."""
    s = scope.sheet(TITLE)
    s.section("Timeline")
    month = s.calc("month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0, fmt=COUNT)
    service = s.calc("in_service", "A month of service (flag)", "flag", flag(month > 0 * MONTH),
                     "0 in the Start column (time 0), as in the TCO", fmt=COUNT)
    zones = {z: _zone(s, month, i, up, plan, z, old, new) for z in up.zones}
    hall = _hall(s, zones, old, new)
    limits = {**_plant_power(s, i, up, month, hall, plant), **_plant_backup_and_heat(s, i, up, month, hall, plant,
                                                                                       old, new)}
    stranded = _room_left(s, hall, plant, limits)
    within = {"zones": hall["zones_fit"], **{k: v for k, v in limits.items() if not k.startswith("_")}}
    checks = _plan_checks(s, i, up, plan, month, within, hall["new"], zones, new)
    cost = _plan_cost(s, i, up, plan, month, service, hall["power"], hall_prices)
    feasible = _feasibility(s, plan, month, within, checks)
    return _answers(s, "", (hall["compute"], hall["job"], baseline), cost, (month, service), feasible,
                    stranded, hall["free"])


def _plan_checks(s: SheetBuilder, i: Inputs, up: Upgrade, plan: str, month: Line, within: dict[str, Line],
                 new_racks: Line, zones: dict[str, dict[str, Any]], new: FleetRack) -> list[Line]:
    """A check per limit (each plan's first month over it is on its sheet), and that the plan delivers the next
    fleet, removes only what is there, and happens within the timeline (an entry after its last month would
    silently never happen)."""
    checks = [s.check("fits" if key == "zones" else f"fits_{key}", f"Plan {plan}: {words} in every month",
                      _every(within[key]), f"each month on the plan's sheet; its first failing month under "
                      f"Answers ({words})") for key, words in LIMITS]
    checks.append(s.check("delivers_fleet", f"Plan {plan}: it delivers every compute rack of the {new.label}, no more",
                          all_(_most(new_racks) <= new.racks, _most(new_racks) >= new.racks),
                          "the most racks installed at once = the next fleet's compute racks"))
    checks.append(s.check("decommissions_what_is_there", f"Plan {plan}: it decommissions only racks that are there",
                          all_(*(_least(z["old"]) >= 0 for z in zones.values()))))
    deliveries, decommissions = up.plans[plan]
    months = [getattr(i, f"{e.key}_month") for e in (*deliveries, *decommissions)]
    months += [getattr(i, f"project_{p}_done_month") for p in up.projects]
    checks.append(s.check("within_timeline", f"Plan {plan}: every delivery, decommissioning and project falls "
                          "within the timeline", all_(*(m * MONTH <= largest(month) for m in months)),
                          "each month <= the timeline's last"))
    return checks


def _most(line: Line) -> Node:
    """The row's largest value; a zone no plan entry touches holds one value all along."""
    return largest(line) if line.series else Ref(line)


def _least(line: Line) -> Node:
    return smallest(line) if line.series else Ref(line)


def _plan_cost(s: SheetBuilder, i: Inputs, up: Upgrade, plan: str, month: Line, service: Line, power: Line,
               hall: dict[str, Any]) -> Line:
    """Cash out each month: racks delivered, projects done, the hall's energy, less what retired racks bring."""
    s.section("Cost (today's prices, undiscounted)")
    deliveries, decommissions = up.plans[plan]
    delivered = s.calc("racks_delivered", "Racks delivered this month", "racks",
                       _scheduled(month, _entries(i, deliveries), once=True), fmt=COUNT)
    retired = s.calc("racks_retired", "Racks decommissioned this month", "racks",
                     _scheduled(month, _entries(i, decommissions), once=True), fmt=COUNT)
    works = s.calc("projects_cost", "Facility projects paid (in the month each is done)", "USD",
                   _scheduled(month, _projects(i, up, "cost"), Const(0, "USD"), once=True), fmt=USD)
    kept = added([Const(0, "USD"), *(cost * _value_share(i, hall, largest(month) - done * MONTH)
                                     for cost, done in _projects(i, up, "cost"))])
    value = s.calc("projects_value_kept", "Facility projects' value kept at the end of the timeline", "USD",
                   flag(month.eq(largest(month))) * kept,
                   "in the last month: each project's cost x its value share after its months in use, by the "
                   "site's facility-residual method (Upgrade racks)", fmt=USD)
    energy = s.calc("energy_cost", "Energy of the racks in the hall", "USD",
                    service * power * hall["pue"] * hall["price"] * MONTH,
                    "power used x annual PUE x electricity price x hours in the month (at the synchronised peak: "
                    "conservative); none in the Start column", fmt=USD)
    return s.calc("cost_flow", "Cost this month", "USD",
                  delivered * i.new_rack_price + works + energy - retired * i.old_rack_value - value,
                  "racks delivered x price + projects + energy - racks decommissioned x their value - the projects' "
                  "value kept at the end", fmt=USD)


def _first_month(s: SheetBuilder, key: str, label: str, ok: Line, month: Line) -> Line:
    """The first month a row is FALSE, or "none": the month where it fails, else one past the last month, at
    its smallest."""
    last = largest(month)
    when = s.calc(f"{key}_failing_month", f"{label}: the month if it does not hold (else the last + 1)", "months",
                  where(ok, last + MONTH, month), fmt=COUNT)
    first = smallest(when)
    return s.calc(f"{key}_first_month", f"{label}: first month it does not hold", "months",
                  safe_div(first, flag(first <= last), "none"), "the least of the row above, or none", fmt=COUNT)


def _feasibility(s: SheetBuilder, plan: str, month: Line, within: dict[str, Line],
                 checks: list[Line]) -> tuple[Line, Line, Line]:
    """Whether the plan passes every check, the months that do not fit and the first, overall and per limit."""
    s.section("Answers: does it fit?")
    fits = s.calc("fits_all", "The hall and its plant fit", "TRUE/FALSE", all_(*within.values()),
                  "every zone, and the feed, site, transformers, UPS and heat rejection", fmt=BOOL)
    failing = s.calc("not_fitting", "The plan does not fit (flag)", "flag", flag(not_(fits)), fmt=COUNT)
    infeasible = s.calc("infeasible_months", "Months the plan does not fit (the hall or its plant)", "months",
                        total(failing) * MONTH, fmt=COUNT)
    first = _first_month(s, "fits_all", "The hall and its plant fit", fits, month)
    for key, words in LIMITS:
        _first_month(s, f"within_{key}" if key != "zones" else "hall_fits", words[0].upper() + words[1:],
                     within[key], month)
    feasible = s.calc("feasible", f"Plan {plan} is feasible: every check of the plan passes", "TRUE/FALSE",
                      all_(*checks), "the limits every month, the fleet delivered, only racks that are there "
                      "removed, every entry within the timeline", fmt=BOOL)
    return feasible, infeasible, first


def _trough(s: SheetBuilder, key: str, what: str, compute: Line, baseline: Line, month: Line) -> tuple[Line, Line]:
    """The deepest fall of a compute row below the start's, and the months below it (a plan that changes
    nothing holds one value all along: below in every column, or in none)."""
    below = s.calc(f"{key}below_start", f"{what} below the start's compute (flag)", "flag",
                   flag(compute < baseline), fmt=COUNT)
    depth = s.calc(f"{key}trough_depth", f"{what}: deepest fall below the start's compute", "H100-eq",
                   max_(0, baseline - _least(compute)), "the start's compute - the least in a month", fmt=EQ)
    months = s.calc(f"{key}trough_months", f"{what}: months below the start's compute", "months",
                    total(below) * MONTH if below.series else below * (largest(month) + MONTH), fmt=COUNT)
    return depth, months


def _answers(s: SheetBuilder, key: str, compute: tuple[Line, Line, Line], cost: Line, timeline: tuple[Line, Line],
             feasible: tuple[Line, Line, Line | None], stranded: Line | None = None,
             free: Line | None = None) -> PlanOut:
    """A plan's answers: the capacity trough (summed, and of the largest job on one fabric), stranded power, cost
    per unit of compute. `compute` is (delivered, largest job, the start's); `timeline` (month, service flag);
    `feasible` (the plan passes, months it does not fit, the first). `key` prefixes the ids (moving instead
    shares a sheet with other lines)."""
    s.section("Answers: compute and cost" if not key else "Answers, moving")
    compute, job, baseline = compute
    month, service = timeline
    fits, infeasible, first = feasible
    depth, months = _trough(s, key, "Capacity trough (both fleets)", compute, baseline, month)
    job_depth, job_months = _trough(s, f"{key}job_", "Largest single job (one fabric)", job, baseline, month)
    peak = None
    if stranded is not None:
        peak = s.calc(f"{key}stranded_power_peak", "Most power available but not used in a month", "kW",
                      largest(stranded), fmt=KW)
    if free is not None:
        s.calc(f"{key}free_positions_peak", "Most rack positions free in a month", "racks", largest(free),
               fmt=COUNT)
    spent = s.calc(f"{key}cost", "Cost over the timeline (undiscounted)", "USD", total(cost), fmt=USD)
    served = s.calc(f"{key}compute_served", "Delivered compute in a month of service", "H100-eq",
                    compute * service, "none in the Start column", fmt=EQ)
    delivered = s.calc(f"{key}compute_months", "Delivered compute over the timeline", "H100-eq-months",
                       total(served) * MONTH, fmt=EQ)
    per_unit = s.calc(f"{key}cost_per_compute", "Cost per unit of delivered compute", "USD/H100-eq-month",
                      safe_div(spent, delivered, "no compute delivered"), "cost / delivered compute-months",
                      fmt="#,##0.00")
    return PlanOut(compute, job, fits, infeasible, first, depth, months, job_depth, job_months, peak, spent,
                   delivered, per_unit)


@dataclass(frozen=True)
class GenerationOut:
    """The upgrade's answers: each plan's, and moving instead."""

    plans: dict[str, PlanOut]
    move: PlanOut
    baseline: Line
    compute_rows: tuple[Line, ...]  # each plan's delivered compute by month, on consecutive rows (the chart's)
    presented: Presented  # the plans and moving side by side


def _plant(s: SheetBuilder, current: Fleet) -> Plant:
    """The site's plant the plans are checked against: the current fleet's power chain, UPS and cooling."""
    p, i = current.power, current.inputs.power
    s.section("The site's plant (the current fleet's power chain, UPS and cooling)")
    feed = s.calc("plant_feed", "Contracted feed (facility power)", "kW", p.contracted_feed,
                  "Power chain: critical IT capacity x design PUE", fmt=KW)
    site = s.calc("plant_site_power", "Utility power available at the site", "kW", i.site_available_power, fmt=KW)
    c = current.cooling
    heat = s.calc("plant_heat_rejection", "IT hall heat the plant was sized to reject", "kW",
                  c.liquid_heat + c.air_heat + c.cdu_pump_power,
                  "Cooling sheet: the current fleet's heat to liquid + heat to air + CDU pumps (the electrical rooms' "
                  "losses have their own cooling and follow the facility power checked above); a project adds to it",
                  fmt=KW)
    transformers = s.show(p.feed_blocks, "plant_transformer_blocks", "Transformer blocks installed")
    ups = s.show(current.ups.ups_blocks, "plant_ups_blocks", "UPS blocks installed")
    if i.choice("facility_model") == "pue":
        def facility(it: Any) -> Node:
            return it * i.pue

        def it_for(power: Any) -> Node:
            return power / i.pue
    else:
        def facility(it: Any) -> Node:
            return (it + it * i.cooling_overhead + i.other_facility_power) / (1 - i.distribution_loss)

        def it_for(power: Any) -> Node:
            return (power * (1 - i.distribution_loss) - i.other_facility_power) / (1 + i.cooling_overhead)
    return Plant(feed, site, transformers,
                 (i.feed_block_size, i.feed_redundancy_multiplier, i.feed_redundancy_spares), ups,
                 (i.ups_block_size, i.ups_redundancy_multiplier, i.ups_redundancy_spares), i.power_factor, heat,
                 facility, it_for, i.feed_headroom)


def _start(s: SheetBuilder, i: Inputs, up: Upgrade, old: FleetRack) -> tuple[Line, Line]:
    """The hall at the start: its compute and its IT power (the current fleet's racks in the zones)."""
    s.section("At the start, and the facility projects")
    racks_at_start = added(getattr(i, f"zone_{z}_old_racks") for z in up.zones)
    baseline = s.calc("compute_at_start", "Delivered compute at the start (every zone's current racks)", "H100-eq",
                      racks_at_start * old.compute, fmt=EQ)
    support_at_start = added(getattr(i, f"zone_{z}_support_racks") for z in up.zones)
    power = s.calc("power_at_start", "IT power used at the start (synchronised peak)", "kW",
                   racks_at_start * old.power + support_at_start * old.support_power,
                   "every zone's current compute racks x their power + its network, storage and management racks x "
                   "theirs", fmt=KW)
    s.check("old_racks_are_the_fleet", "The zones hold the current fleet's racks at the start, no more",
            all_(racks_at_start <= old.racks, support_at_start <= old.support_racks),
            "compute racks <= the fleet's; network, storage and management racks <= the fleet's")
    for z in up.zones:
        converted = [getattr(i, f"project_{p}_converted_positions") for p, zone in up.projects.items() if zone == z]
        if converted:
            s.check(f"zone_{z}_converted_within", f"Zone {z}: its projects convert no more positions than it has",
                    added(converted) <= getattr(i, f"zone_{z}_positions"))
    for p in up.projects:
        s.check(f"project_{p}_stop_within", f"Project {p}: its stop starts after the start of the timeline",
                getattr(i, f"project_{p}_stop_months") <= getattr(i, f"project_{p}_done_month"),
                "months it stops <= the month it is done")
    return baseline, power


def define(scope: Scope, i: Inputs, up: Upgrade, current: Fleet, nxt: Fleet, hall: dict[str, Any]) -> GenerationOut:
    """The upgrade: both fleets' racks, the site's plant, each plan as an instance of the plan model, moving
    instead, the chart of delivered compute by month and the plans side by side. `current` and `nxt` are the two
    fleets (Fleet); `hall`: the energy price and the annual PUE the hall's energy is billed at."""
    s = scope.sheet(UPGRADE_RACKS)  # single values: in the reviewer's pack (the monthly sheets are its appendix)
    old = fleet_rack(s, "current", "current fleet", current, current.inputs.power.gpu_throughput)
    new = fleet_rack(s, "next", "next fleet", nxt, nxt.inputs.power.gpu_throughput)
    plant = _plant(s, current)
    baseline, power_at_start = _start(s, i, up, old)
    projects = s.calc("projects_total", "Facility projects, in all", "USD",
                      added([Const(0, "USD"), *(getattr(i, f"project_{p}_cost") for p in up.projects)]), fmt=USD)
    it_mw = nxt.power.critical_it_capacity
    per_mw = s.calc("projects_per_mw", "Facility projects per MW of the next fleet's critical IT", "USD/MW",
                    projects / it_mw, fmt=USD)
    plans = {name: define_plan(scope.instance(name), i, up, name, old, new, hall, baseline, plant)
             for name in up.plans}
    s = scope.sheet(UPGRADE_PLANS)
    site = {"it_mw": it_mw, "pue": nxt.power.pue_energy, "staff_cost": current.inputs.tco.staff_cost,
            "hall_power": power_at_start}
    move = _move(s, i, new, hall, baseline, site)
    s.section("Delivered compute by month (H100-equivalents)")
    shown = [s.show(p.compute, f"plan_{name}_compute", f"Plan {name}") for name, p in plans.items()]
    shown.append(s.show(move.compute, "move_compute_shown", "Moving to a second site"))
    view = _compare(plans, move, per_mw, i.move_capex_per_mw)
    return GenerationOut(plans, move, baseline, tuple(shown), Presented(views=(view,)))


def _move(s: SheetBuilder, i: Inputs, new: FleetRack, hall: dict[str, Any], baseline: Line,
          site: dict[str, Line]) -> PlanOut:
    """Moving instead: the hall is left as it is (the current fleet keeps running, no works, no trough) and the
    whole next fleet, with its network, storage and management racks, runs at a second site from the month it is
    ready (as a delivery counts from its month; it computes once burnt in). The second site is costed as a site: its
    capex per MW of the next fleet's critical IT (the basis build costs are quoted on), its rent or running costs per
    kW-month of that capacity, its staff, its energy at the next fleet's own PUE (its power chain is the second
    site's), and the value it keeps at the end of the timeline."""
    s.section("Moving the next fleet to a second site instead")
    month = s.calc("move_month", "Month (end of period)", "months", lambda me: prev(me) + MONTH, opening=0,
                   fmt=COUNT)
    service = s.calc("move_in_service", "A month of service (flag)", "flag", flag(month > 0 * MONTH), fmt=COUNT)
    ready = s.calc("move_ready", "The second site runs the next fleet (flag)", "flag",
                   flag(month >= i.move_lead_time * MONTH), fmt=COUNT)
    producing = s.calc("move_producing", "The next fleet at the second site is burnt in (flag)", "flag",
                       flag(month >= (i.move_lead_time + i.burn_in_months) * MONTH),
                       "from the month it is ready + the burn-in months", fmt=COUNT)
    nxt = s.calc("move_compute_next", "Delivered compute of the next fleet, at the second site", "H100-eq",
                 producing * new.racks * new.compute, fmt=EQ)
    compute = s.calc("move_compute", "Delivered compute, moving", "H100-eq", baseline + nxt,
                     "the hall's, plus the next fleet's once it runs", fmt=EQ)
    job = s.calc("move_largest_job", "Largest single job (one fabric), moving", "H100-eq", max_(baseline, nxt),
                 "MAX(the hall's current fleet, the next fleet at the second site)", fmt=EQ)
    cost = _move_cost(s, i, new, hall, site, (month, service, ready))
    fits = s.check("move_within_timeline", "Moving: the second site is ready within the timeline",
                   i.move_lead_time * MONTH <= largest(month))
    none = s.calc("move_infeasible_months", "Months moving does not fit", "months", Const(0, "fmonth"),
                  "none: the hall keeps the fleet its plant was built for, and the second site is the next fleet's "
                  "own power chain and cooling (sheets (next), their checks on the Checks sheet)", fmt=COUNT)
    return _answers(s, "move_", (compute, job, baseline), cost, (month, service), (fits, none, None))


def _move_cost(s: SheetBuilder, i: Inputs, new: FleetRack, hall: dict[str, Any], site: dict[str, Line],
               timeline: tuple[Line, Line, Line]) -> Line:
    """Moving's cost each month: the hall's energy all along; the second site's capex and racks when it is ready,
    its running costs after, less the value it keeps at the end of the timeline."""
    month, service, ready = timeline
    site_power = s.calc("move_site_power", "Second site's IT power (synchronised peak)", "kW",
                        new.racks * new.power + new.support_racks * new.support_power,
                        "the next fleet's compute racks x their power + its network, storage and management racks x "
                        "theirs", fmt=KW)
    hall_energy = s.calc("move_hall_energy", "Energy of the hall (kept as at the start)", "USD",
                         service * site["hall_power"] * hall["pue"] * hall["price"] * MONTH,
                         "IT power at the start x the hall's annual PUE x price x hours in a month", fmt=USD)
    capex = s.calc("move_capex", "Second site's capex", "USD", i.move_capex_per_mw * site["it_mw"],
                   "capex per MW x the next fleet's critical IT capacity", fmt=USD)
    energy = s.calc("move_site_energy", "Second site a month of running: energy", "USD",
                    site_power * site["pue"] * hall["price"] * MONTH,
                    "IT power x its annual PUE (the next fleet's power chain) x the hall's price x hours", fmt=USD)
    upkeep = s.calc("move_site_upkeep", "Second site a month of running: rent or running costs", "USD",
                    i.move_running_cost * site["it_mw"] * MONTH, "running cost per kW-month x critical IT", fmt=USD)
    staff = s.calc("move_site_staff", "Second site a month of running: staff", "USD",
                   i.move_staff_fte * site["staff_cost"] * MONTH, "staff x cost per FTE", fmt=USD)
    running = s.calc("move_site_running", "Second site a month: energy, rent or running costs, staff", "USD",
                     ready * (energy + upkeep + staff), "once it runs: energy + running costs + staff", fmt=USD)
    share = s.calc("move_value_share", "Second site's value kept at the end of the timeline, per USD of capex",
                   "ratio", _value_share(i, hall, largest(month) - i.move_lead_time * MONTH),
                   f"after its months in use, by the site's facility-residual method ({hall['method']})",
                   fmt="0.0000")
    kept = s.calc("move_value_kept", "Second site's value kept at the end of the timeline", "USD",
                  flag(month.eq(largest(month))) * capex * share, "in the last month: capex x value share", fmt=USD)
    return s.calc("move_cost_flow", "Cost this month, moving", "USD",
                  flag(month.eq(i.move_lead_time * MONTH)) * (capex + new.racks * i.new_rack_price) + hall_energy
                  + running - kept, "when the site is ready: its capex and the racks; every month: the hall's energy "
                  "and the second site's; at the end, less the value the site keeps", fmt=USD)


def _value_share(i: Inputs, hall: dict[str, Any], used: Any) -> Node:
    """What a facility (the second site, a project's works) keeps at the end of the timeline per USD of its cost,
    after `used` months in use, by the site's facility-residual method: its book value (life left / life), the
    annuity value left, none, or the stated share."""
    life = i.facility_life / MONTH
    left = max_(0, life - used / MONTH)
    method = hall["method"]
    if method == "zero":
        return Const(0)
    if method == "stated":
        return as_node(hall["exit"])
    if method == "annuity":
        rate = (1 + hall["wacc"]) ** (Const(1) / 12) - 1
        return where(left > 0, pmt(rate, life, 1) / pmt(rate, left, 1), 0)
    return left / life


def _compare(plans: dict[str, PlanOut], move: PlanOut, per_mw: Line, move_per_mw: Line) -> View:
    """The plans and moving side by side (a view: every cell refers to a live line)."""
    rows = [("Feasible: every check passes (moving: the second site is ready in time)", "TRUE/FALSE", "BOOLEAN",
             lambda p: p.fits),
            ("Months that do not fit (the hall or its plant)", "months", COUNT, lambda p: p.infeasible_months),
            ("Capacity trough (both fleets): deepest fall", "H100-eq", EQ, lambda p: p.trough_depth),
            ("Capacity trough (both fleets): months", "months", COUNT, lambda p: p.trough_months),
            ("Largest single job (one fabric): deepest fall", "H100-eq", EQ, lambda p: p.job_trough_depth),
            ("Largest single job (one fabric): months below the start's", "months", COUNT,
             lambda p: p.job_trough_months),
            ("Cost over the timeline (undiscounted)", "USD", USD, lambda p: p.cost),
            ("Delivered compute over the timeline", "H100-eq-months", EQ, lambda p: p.compute_months),
            ("Cost per unit of delivered compute", "USD/H100-eq-month", "#,##0.00", lambda p: p.cost_per_compute)]
    columns = [(name, "upgrade in place", [pick(p) for *_, pick in rows] + [per_mw]) for name, p in plans.items()]
    columns.append(("move", "a second site", [pick(move) for *_, pick in rows] + [move_per_mw]))
    return View(
        UPGRADE_COMPARISON, "Upgrade comparison",
        "Each plan upgrades the hall in place; the last column moves the next fleet to a second site. "
        "Every cell refers to a live line.",
        [r[0] for r in rows] + ["Facility capex per MW of the next fleet's critical IT"],
        [r[1] for r in rows] + ["USD/MW"], [r[2] for r in rows] + [USD], columns,
        chart_rows=[8], chart_title="Cost per unit of delivered compute (USD per H100-eq-month)",
        cases="plan", changes_label="What it is")


def summarise(s: SheetBuilder, out: GenerationOut) -> Presented:
    """The upgrade's answers on the Summary, and the chart of delivered compute by month, plans compared."""
    s.section("Generation upgrade (Upgrade comparison, Upgrade racks, Upgrade plans)")
    s.show(out.baseline, "upgrade_compute_at_start")
    for name, plan in [*out.plans.items(), ("move", out.move)]:
        what = "moving to a second site" if name == "move" else f"plan {name}"
        fits = "the second site is ready within the timeline" if name == "move" else "every check passes"
        s.show(plan.fits, f"upgrade_{name}_fits", f"Upgrade, {what}: {fits}")
        if name != "move":
            s.show(plan.infeasible_months, f"upgrade_{name}_infeasible_months",
                   f"Upgrade, {what}: months the hall or its plant does not fit")
        s.show(plan.trough_depth, f"upgrade_{name}_trough", f"Upgrade, {what}: capacity trough, deepest")
        s.show(plan.job_trough_depth, f"upgrade_{name}_job_trough",
               f"Upgrade, {what}: largest single job (one fabric), deepest fall")
        s.show(plan.cost_per_compute, f"upgrade_{name}_cost_per_compute",
               f"Upgrade, {what}: cost per unit of delivered compute")
    choice = _decision(s, out)
    return Presented(charts=(Chart(s.title, "Delivered compute by month, each plan (H100-equivalents)", "line",
                                   list(out.compute_rows), y_title="H100-equivalents", x_title="month"),),
                     headline=choice)


def _decision(s: SheetBuilder, out: GenerationOut) -> tuple[Line, ...]:
    """The upgrade's answer: the option (a plan, or moving) with the least cost per unit of delivered compute among
    those that fit, named by a number format over its place in the list; then each option's cost per unit (the
    Cover repeats them). Live: a failing check or a changed price moves the choice."""
    options = [*out.plans.items(), ("move", out.move)]
    s.section("The upgrade's answer: the option that fits at the least cost per unit of delivered compute")
    worst = s.calc("upgrade_worst_cost", "The dearest option's cost per unit of delivered compute",
                   "USD/H100-eq-month", max_(*(p.cost_per_compute for _, p in options)), fmt="#,##0.00")
    scores = [s.calc(f"upgrade_{name}_score", f"Upgrade, {name}: its cost per unit if it fits, else above every option",
                     "USD/H100-eq-month", where(p.fits, p.cost_per_compute, worst * 2), fmt="#,##0.00")
              for name, p in options]
    best = s.calc("upgrade_best_cost", "The least cost per unit of delivered compute of an option that fits",
                  "USD/H100-eq-month", min_(*scores), fmt="#,##0.00")
    taken: list[Line] = []
    for k, (name, _) in enumerate(options):
        earlier = added(taken) if taken else Const(0)
        taken.append(s.calc(f"upgrade_{name}_chosen", f"Upgrade, {name}: the option chosen (1)", "count",
                            flag(at_most(scores[k], best)) * (1 - earlier), "the first option at the least cost",
                            fmt=COUNT))
    words = ";".join(f'[={k}]"{name.replace("_", " ")}"' for k, (name, _) in enumerate(options[:2], start=1))
    last = options[2][0].replace("_", " ") if len(options) == 3 else "option"
    fmt = f'{words};"{last}"' if len(options) == 3 else "0"
    chosen = s.calc("upgrade_choice", "The upgrade's answer: the option that fits at the least cost per unit",
                    "count", where(any_(*(p.fits for _, p in options)), added([(k + 1) * t for k, t in
                                                                                 enumerate(taken)]), 0),
                    "the option at the least cost per unit of delivered compute among those whose checks pass "
                    f"(0: none fits); {', '.join(f'{k}: {n}' for k, (n, _) in enumerate(options, start=1))}",
                    fmt=fmt)
    return (chosen, *(p.cost_per_compute for _, p in options))
