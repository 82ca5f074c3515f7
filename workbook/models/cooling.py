"""Cooling: every watt in is heat out. Liquid (direct-to-chip) and air split, coolant flow, CDUs with
redundancy, air flow, heat rejection (dry coolers or compressors), the floor loading of a rack, and how long a
cold plate lasts when the flow stops.

Heat split: all IT power becomes heat in the IT hall, built here from its parts. Cold plates take a share of the
DC power of the components they sit on (GPUs, CPUs, switch chips, NICs: shares from the node's catalog entry);
the hall's air takes the rest of the node (fans, memory, drives, the unplated parts, every watt of PSU loss) and
the switches, optics, storage and management. Where the vendor's maximum input is above the component sum (the
node's design power, which sizes the electrical chain), that allowance is not a component of its own: it is
split by the same liquid and air shares as the component sum, and shown apart.

Heat balance: each watt of facility power is counted once. The CDU pumps' work ends in the coolant; the
compressors' work is rejected by the chillers; of the rest of the facility overhead (losses, fans, lighting)
the share released indoors heats rooms the chillers cool, the rest leaves outdoors without the plant. Heat
leaves the site through dry coolers where the facility water is warm enough (ASHRAE W32 and above), else through
chillers. Flow follows Q = m' x cp x dT for each fluid.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from workbook.book.book import SheetBuilder
from workbook.book.sheets import COOLING as TITLE
from workbook.formula.expr import Const
from workbook.formula.functions import added, any_, ceil, close, flag, max_, where
from workbook.formula.line import COUNT, PERCENT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.power.power import PowerOut
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "cooling"

_SHARE = dict(expect="a fraction", example="0.8", lo=0.0, hi=1.0, fmt=PERCENT)
_POSITIVE = dict(lo=0.0, lo_open=True)
_MASS = dict(expect="a mass", example="140 kg", lo=0.0)


def _capture(part: str, what: str, example: str) -> Spec:
    """A cold plate's share of one component's DC power (0 where the component is air-cooled)."""
    return Spec(f"cooling.{part}_liquid_share", f"Share of {what} DC power taken by cold plates", "%",
                **{**_SHARE, "example": example})


INPUTS = with_limits([
    _capture("gpu", "GPU board", "1"), _capture("cpu", "CPU", "1"),
    _capture("baseboard", "baseboard (switch chip)", "0.8"), _capture("nic", "NIC", "1"),
    Spec("cooling.indoor_loss_share", "Share of the facility overhead other than compressors and CDU pumps "
         "released as heat indoors", "%", **{**_SHARE, "example": "0.3"}),
    Spec("cooling.coolant_density", "Coolant density", "kg/m³", "a density", "997 kg/m^3", **_POSITIVE),
    Spec("cooling.coolant_specific_heat", "Coolant specific heat", "kJ/(kg*K)", "a specific heat",
         "4.18 kJ/(kg*K)", **_POSITIVE),
    Spec("cooling.coolant_supply_temperature", "Coolant supply temperature (to the cold plates)", "°C",
         "a temperature", "30 degC", lo=0.0, hi=70.0, liquid=True),
    Spec("cooling.allowed_rise", "Allowed coolant temperature rise", "K", "a temperature difference",
         "10 K", lo=0.0, lo_open=True, hi=40.0, liquid=True),
    Spec("cooling.flow_per_kw", "Design coolant flow per kW of liquid heat", "L/min/kW",
         "a flow per power", "1.5 L/min/kW", liquid=True, **_POSITIVE),
    Spec("cooling.rack_manifold_flow", "Rack manifold flow limit", "L/min", "a volume flow",
         "200 L/min", liquid=True, **_POSITIVE),
    Spec("cooling.cold_plate_volume", "Coolant held in one GPU cold plate", "mL", "a volume", "60 mL",
         liquid=True, **_POSITIVE),
    Spec("cooling.cold_plate_metal_mass", "Metal (copper) of one GPU cold plate", "kg", "a mass", "0.5 kg",
         lo=0.0),
    Spec("cooling.cold_plate_metal_specific_heat", "Specific heat of the cold plate's metal", "kJ/(kg*K)",
         "a specific heat", "0.385 kJ/(kg*K)", **_POSITIVE),
    Spec("cooling.die_to_coolant_resistance", "GPU die-to-coolant thermal resistance (through the package, TIM and "
         "cold plate)", "K/W", "a thermal resistance", "0.025 K/W", lo=0.0, hi=1.0, fmt="0.000"),
    Spec("cooling.gpu_throttle_temperature", "GPU maximum operating temperature (clocks slow above it)", "°C",
         "a temperature", "87 degC", lo=0.0, hi=150.0),
    Spec("cooling.cdu_scope", "CDU scope: row (shared by the hall) or rack (in-rack, one rack each)", "",
         "a scope", "row", choices=("row", "rack")),
    Spec("cooling.cdu_capacity", "CDU heat capacity (per unit)", "kW", "a power", "1000 kW", **_POSITIVE),
    Spec("cooling.cdu_flow", "CDU flow capacity (per unit)", "L/min", "a volume flow", "1500 L/min",
         **_POSITIVE),
    Spec("cooling.cdu_unit_pump_power", "CDU pump electrical power (per running unit)", "kW", "a power", "15 kW",
         lo=0.0),
    Spec("cooling.cdu_redundancy", "CDU redundancy (per CDU group: the hall, or each rack)", "", "", "N+1",
         redundancy=True, liquid=True),
    Spec("cooling.air_density", "Air density", "kg/m³", "a density", "1.2 kg/m^3", **_POSITIVE),
    Spec("cooling.air_specific_heat", "Air specific heat", "kJ/(kg*K)", "a specific heat",
         "1.006 kJ/(kg*K)", **_POSITIVE),
    Spec("cooling.air_supply_temperature", "Air supply temperature (cold aisle)", "°C", "a temperature",
         "22 degC", lo=0.0, hi=60.0),
    Spec("cooling.air_return_temperature", "Air return temperature (hot aisle)", "°C", "a temperature",
         "36 degC", lo=0.0, hi=80.0),
    Spec("cooling.facility_water_temperature", "Facility water supply temperature to the CDUs (design day)",
         "°C", "a temperature", "32 degC", lo=0.0, hi=70.0),
    Spec("cooling.dry_cooler_threshold", "Least facility water temperature dry coolers reach without a "
         "compressor", "°C", "a temperature", "32 degC", lo=0.0, hi=70.0),
    Spec("cooling.chiller_cop", "Chiller coefficient of performance (heat moved / compressor power)", "ratio",
         "a ratio", "3", lo=0.0, lo_open=True, hi=20.0),
    Spec("cooling.node_weight", "Node weight (a rack-scale node: the whole rack)", "kg", **_MASS),
    Spec("cooling.rack_empty_weight", "Empty rack weight (0 where the node is its own rack)", "kg", **_MASS),
    Spec("cooling.rack_depth", "Rack depth (footprint across the row)", "m", "a length", "1.2 m", **_POSITIVE),
    Spec("cooling.rack_coolant_volume", "Coolant held in a liquid-cooled rack (manifolds, hoses, plates)", "L",
         "a volume", "30 L", lo=0.0),
    Spec("cooling.floor_rating", "Floor rating (distributed load)", "kg/m²", "a load per area",
         "1200 kg/m^2", **_POSITIVE),
    Spec("cooling.air_mover_power", "Air movers' power (CRAH or fan-wall fans) per m³/s of IT hall air", "kW/(m³/s)",
         "a power per air flow", "0.6 kW/(m^3/s)", lo=0.0, hi=100.0),
    Spec("cooling.plant_pump_share", "Plant pumps and heat-rejection fans, per kW of heat rejected", "kW/kW",
         "a ratio", "0.02", lo=0.0, hi=1.0, fmt="0.000"),
])

# Rules between two keys (each key alone is checked by its Spec): (key, operator, other key, why).
RULES = [
    ("cooling.air_supply_temperature", "<", "cooling.air_return_temperature",
     "the air must leave the racks warmer than it arrives"),
]


# outputs other models read, not Summary figures: a node's heat split (the generation upgrade places racks with
# it) and what a kW of GPU power costs in cooling power at the margin (the power envelope's capping)
NOT_SHOWN = ("node_liquid_heat", "node_air_heat", "gpu_marginal_cooling")


@dataclass(frozen=True)
class CoolingOut:
    """The cooling model's lines that other models and the Summary use."""

    heat_load: Line
    liquid_heat: Line
    air_heat: Line
    node_liquid_heat: Line
    node_air_heat: Line
    coolant_flow: Line
    coolant_flow_gpm: Line
    air_flow: Line
    heat_compressor: Line
    compressor_power: Line
    heat_rejection_tons: Line
    gpu_marginal_cooling: Line
    cdus_n: Line
    cdus_installed: Line
    cdu_pump_power: Line
    cdu_failure_racks: Line  # the Reliability sheet's CDU failure domain, in racks
    cold_plate_time: Line
    rack_weight: Line
    floor_load: Line
    rack_liquid_heat: Line  # > 0: a rack has a coolant manifold (the bill of materials counts them)


def define(scope: Scope, i: Inputs, p: Inputs, power: PowerOut) -> CoolingOut:
    """The Cooling sheet, top to bottom: heat, coolant, CDUs, air, heat rejection, cold plate, floor. `p` is
    the power chain's inputs (the GPU's TDP, the node's components, the rack's width)."""
    s = scope.sheet(TITLE)
    heat = _heat(s, i, p, power)
    flow = _coolant(s, i, heat, power)
    pumps = _cdus(s, i, heat["liquid"], flow, power)
    _air(s, i, heat["air"])
    compressors, dry_loop = _rejection(s, i, heat, pumps, power)
    _marginal(s, i, p, dry_loop)
    _cold_plate(s, i, p)
    _floor(s, i, p, heat["node_liquid"], power)
    itemised = power.cooling_power is not None
    plant = power.cooling_power if power.cooling_power is not None else power.facility_overhead
    s.check("overhead_carries_cooling_plant", "The power chain's cooling allowance carries the chillers' "
            "compressors and the CDU pumps", compressors + pumps <= plant,
            "compressor power + CDU pump power <= " + ("cooling power (Power chain, itemised)" if itemised else
                                                       "facility overhead (Power chain, IT x (PUE - 1))"))
    return scope.outputs(CoolingOut)


def _heat(s: SheetBuilder, i: Inputs, p: Inputs, power: PowerOut) -> dict[str, Line]:
    """The IT hall's heat from its parts: the node's cold-plated and air-side DC power and its PSU loss, the
    vendor's allowance above the component sum split by the same shares, and the hall's other IT loads."""
    s.section("Heat load: the IT hall, from its parts")
    parts = ((power.node_gpu_power, i.gpu_liquid_share), (power.node_cpu_power, i.cpu_liquid_share),
             (p.baseboard_power, i.baseboard_liquid_share), (power.node_nic_power, i.nic_liquid_share))
    liquid_dc = s.calc(
        "node_liquid_dc", "Cold-plated DC power per node", "kW", added(dc * share for dc, share in parts),
        "DC power of each cold-plated component x its captured share: GPUs, CPUs, baseboard (switch chips), NICs")
    air_dc = s.calc(
        "node_air_dc", "Air-side DC power per node", "kW",
        added([p.memory_power, p.node_storage_power, p.fan_power, *(dc * (1 - share) for dc, share in parts)]),
        "memory + local storage + fans + each plated component's uncaptured share")
    psu = s.calc("node_psu_heat", "PSU loss per node (to air)", "kW", power.node_psu_loss,
                 "lost before the DC rail, in the PSUs: air heat (Power chain)")
    allowance = s.calc("node_allowance", "Vendor maximum above the component sum, per node", "kW",
                       power.node_unexplained_power,
                       "Power chain: sizes the electrical chain, but no component of the breakdown draws it")
    component = power.node_component_power
    to_liquid = s.calc("node_allowance_liquid", "Allowance to liquid per node (liquid share of the component sum)",
                       "kW", allowance * liquid_dc / component,
                       "allowance x cold-plated DC power / component sum: split as the explained watts are")
    to_air = s.calc("node_allowance_air", "Allowance to air per node (air share of the component sum)", "kW",
                    allowance * (air_dc + psu) / component,
                    "allowance x (air-side DC power + PSU loss) / component sum")
    node_liquid = s.calc("node_liquid_heat", "Heat to liquid per node (cold plates)", "kW", liquid_dc + to_liquid,
                         "cold-plated DC power + its share of the allowance")
    node_air = s.calc("node_air_heat", "Heat to air per node", "kW", air_dc + psu + to_air,
                      "air-side DC power + PSU loss + its share of the allowance")
    liquid = s.calc("liquid_heat", "Heat to liquid (cold plates)", "kW", power.nodes * node_liquid,
                    "nodes x heat to liquid per node")
    others = (power.network_power, power.optics_power, power.storage_power, power.management_power)
    air = s.calc("air_heat", "Heat to air in the IT hall", "kW", added([power.nodes * node_air, *others]),
                 "nodes x heat to air per node + switches + optics + storage + management (Power chain)")
    it_heat = s.calc("it_heat", "IT heat (liquid + air, from the parts)", "kW", liquid + air,
                     "compared with the power chain's IT load in the heat balance")
    s.calc("liquid_fraction", "Liquid share of the IT heat", "%", liquid / it_heat, fmt=PERCENT)
    return {"it": it_heat, "node_liquid": node_liquid, "liquid": liquid, "air": air}


def air_cooled(i: Inputs) -> str:
    """Why the liquid loop does not apply to the site as built: every component's liquid share is 0 (in every
    case of a batch), so no heat goes to liquid; empty where some does. Its rows stay live (a share entered in the
    workbook gives them values) but are collapsed and not printed."""
    shares = (i.gpu_liquid_share, i.cpu_liquid_share, i.baseboard_liquid_share, i.nic_liquid_share)
    if all(x.value is not None and not np.any(x.value) for x in shares):
        return "every liquid share is 0, so no heat goes to liquid (an air-cooled hall)"
    return ""


def _coolant(s: SheetBuilder, i: Inputs, heat: dict[str, Line], power: PowerOut) -> dict[str, Line]:
    """The technology loop: flow from the liquid heat, the rise it gives, and a full rack's flow."""
    s.section("Coolant loop (technology cooling system)", air_cooled(i))
    flow = s.calc("coolant_flow", "Coolant flow", "L/min", heat["liquid"] * i.flow_per_kw,
                  "heat to liquid x design flow per kW")
    s.calc("coolant_flow_gpm", "Coolant flow (US gallons per minute)", "gpm", flow, "the same flow in gpm")
    s.calc("coolant_mass_flow", "Coolant mass flow", "kg/s", flow * i.coolant_density,
           "volume flow x density")
    rise = s.calc(
        "coolant_rise", "Coolant temperature rise at the design flow", "K",
        1 / (i.flow_per_kw * i.coolant_density * i.coolant_specific_heat),
        "dT = Q / (m' x cp) with m' = density x flow per kW x Q: the load cancels, so the rise is "
        "1 / (flow per kW x density x cp)")
    s.calc("coolant_return_temperature", "Coolant return temperature", "°C",
           i.coolant_supply_temperature + rise, "supply temperature + rise")
    s.calc("min_flow_per_kw", "Least flow per kW for the allowed rise", "L/min/kW",
           1 / (i.coolant_density * i.coolant_specific_heat * i.allowed_rise),
           "1 / (density x cp x allowed rise), from Q = density x flow x cp x dT")
    rack_heat = s.calc("rack_liquid_heat", "Heat to liquid per full rack", "kW",
                       power.nodes_per_rack * heat["node_liquid"], "nodes per rack x heat to liquid per node")
    rack_flow = s.calc("rack_coolant_flow", "Coolant flow per full rack", "L/min", rack_heat * i.flow_per_kw,
                       "rack heat to liquid x flow per kW")
    s.check("rack_flow_within_manifold", "Coolant flow per rack within the rack manifold limit",
            rack_flow <= i.rack_manifold_flow)
    s.check("rise_within_allowed", "Coolant temperature rise within the allowed rise", rise <= i.allowed_rise)
    s.check("coolant_above_facility_water", "Coolant supply warmer than the facility water (the CDU's "
            "heat exchanger passes heat downhill)", i.coolant_supply_temperature > i.facility_water_temperature)
    return {"hall": flow, "rack_heat": rack_heat, "rack": rack_flow}


def _cdus(s: SheetBuilder, i: Inputs, liquid: Line, flow: dict[str, Line], power: PowerOut) -> Line:
    """Row CDUs share one hall loop (pooled); in-rack CDUs serve one rack each, counted and spared per rack."""
    s.section("Coolant distribution units (CDUs)", air_cooled(i))
    if i.choice("cdu_scope") == "rack":
        heat = s.calc("cdu_group_heat", "Heat to liquid one CDU group serves (a full rack)", "kW",
                      flow["rack_heat"], "in-rack CDUs serve only their own rack")
        group_flow = s.calc("cdu_group_flow", "Coolant flow one CDU group serves (a full rack)", "L/min",
                            flow["rack"])
        groups = s.calc("cdu_groups", "CDU groups (one per compute rack)", "count",
                        power.racks, "compute racks: each in-rack CDU set cools one rack",
                        fmt=COUNT)
    else:
        heat = s.calc("cdu_group_heat", "Heat to liquid one CDU group serves (the hall)", "kW", liquid,
                      "row CDUs share one loop, so the hall's liquid heat is pooled")
        group_flow = s.calc("cdu_group_flow", "Coolant flow one CDU group serves (the hall)", "L/min",
                            flow["hall"])
        groups = s.calc("cdu_groups", "CDU groups (one hall loop)", "count", Const(1), fmt=COUNT)
    for_heat = s.calc("cdus_for_heat", "CDUs per group to carry its liquid heat (N)", "CDUs",
                      ceil(heat / i.cdu_capacity), fmt=COUNT)
    for_flow = s.calc("cdus_for_flow", "CDUs per group to carry its coolant flow (N)", "CDUs",
                      ceil(group_flow / i.cdu_flow), fmt=COUNT)
    group_n = s.calc("cdus_group_n", "CDUs needed per group (N)", "CDUs", max_(for_heat, for_flow),
                     "the more of the two; 0 for an air-cooled site", fmt=COUNT)
    group_installed = s.calc(
        "cdus_group_installed", "CDUs installed per group (with redundancy)", "CDUs",
        where(group_n > 0, group_n * i.cdu_redundancy_multiplier + i.cdu_redundancy_spares, 0),
        "N x multiple of N + spares, in each group; none without liquid heat", fmt=COUNT)
    n = s.calc("cdus_n", "CDUs running (N, all groups)", "CDUs", group_n * groups, "N per group x groups",
               fmt=COUNT)
    installed = s.calc("cdus_installed", "CDUs installed (all groups)", "CDUs", group_installed * groups,
                       "installed per group x groups", fmt=COUNT)
    one_down = s.calc("cdus_one_down", "CDUs running in a group with one unit down", "CDUs",
                      max_(group_installed - 1, 0), fmt=COUNT)
    s.calc("cdu_capacity_installed", "Installed CDU heat capacity", "kW", installed * i.cdu_capacity)
    pumps = s.calc("cdu_pump_power", "CDU pump power (running units)", "kW", n * i.cdu_unit_pump_power,
                   "CDUs running (N) x pump power per unit: UPS-backed, since a cold plate without flow reaches "
                   "its limit in seconds; 0 for an air-cooled site")
    # A group without a redundant unit (N) is the site's choice, accepted with its failure domain: one CDU down
    # stops racks, which the Reliability sheet holds spares for (its CDU domain reads the row below), so the two
    # checks hold with one unit down or where the group has no redundant unit, never contradicting that sheet.
    redundant = s.calc("cdu_group_redundant", "A redundant CDU in each group (installed > N)", "flag",
                       flag(group_installed > group_n), "1 where CDUs installed per group > N (N+k, 2N); 0 at N, "
                       "the site's choice, or with no liquid heat", fmt=COUNT)
    liquid_racks = power.racks * flag(flow["rack_heat"] > Const(0, "kW"))
    stops = s.calc("cdu_failure_racks", "Racks one CDU failure stops (0 with a redundant unit in its group)",
                   "racks", (1 - redundant) * ceil(liquid_racks / max_(installed, 1)),
                   "without a redundant unit, its share of the liquid-cooled racks: ROUNDUP(liquid racks / CDUs "
                   "installed) (an in-rack CDU: its own rack); with one, none (ASHRAE TC 9.9 liquid cooling guidance: "
                   "N+1 keeps the loop at full capacity with a unit down). The Reliability sheet's CDU failure domain",
                   fmt=COUNT)
    s.check("cdu_heat_one_down", "CDUs carry each group's liquid heat with one unit down, or the group is N and a "
            "CDU failure stops its racks (the row above)", any_(one_down * i.cdu_capacity >= heat, stops > 0),
            "(installed - 1) x capacity >= the group's heat, or racks one failure stops > 0: N accepted with its "
            "domain")
    s.check("cdu_flow_one_down", "CDUs carry each group's coolant flow with one unit down, or the group is N and a "
            "CDU failure stops its racks (the row above)", any_(one_down * i.cdu_flow >= group_flow, stops > 0),
            "(installed - 1) x flow >= the group's flow, or racks one failure stops > 0: N accepted with its domain")
    return pumps


def _air(s: SheetBuilder, i: Inputs, air: Line) -> None:
    """The IT hall's air only: the electrical rooms' losses are cooled in their own rooms."""
    s.section("Air (IT hall)")
    air_dt = s.calc("air_rise", "Air temperature rise (return - supply)", "K",
                    i.air_return_temperature - i.air_supply_temperature)
    s.calc("air_flow_per_kw", "Air flow per kW of air heat", "CFM/kW",
           1 / (i.air_density * i.air_specific_heat * air_dt),
           "1 / (air density x cp x dT): the sensible heat equation CFM = 3412 x kW / (1.085 x dT in F), "
           "with density and cp as inputs instead of the 1.085")
    air_flow = s.calc("air_flow", "Air flow in the IT hall", "CFM",
                      air / (i.air_density * i.air_specific_heat * air_dt),
                      "IT hall heat to air / (density x cp x dT); the facility rooms' losses are not in it")
    s.calc("air_flow_m3h", "Air flow in the IT hall (cubic metres per hour)", "m³/h", air_flow,
           "the same flow in m³/h")


def _rejection(s: SheetBuilder, i: Inputs, heat: dict[str, Line], pumps: Line, power: PowerOut
               ) -> tuple[Line, Line]:
    """Dry coolers take a warm-water loop (W32 and above); the rest needs compressors, which add their heat. Each
    watt of facility power is counted once, and heat out is compared with heat in from the power chain. Returns
    the compressor power and the dry-cooler flag."""
    s.section("Heat rejection (outdoors): each watt of facility power counted once")
    dry_loop = s.calc("loop_on_dry_coolers", "Liquid loop on dry coolers (1) or on chillers (0)", "flag",
                      flag(i.facility_water_temperature >= i.dry_cooler_threshold),
                      "1 when the facility water is at or above the dry-cooler threshold (ASHRAE W32: no chiller)",
                      fmt=COUNT)
    dry = s.calc("heat_dry_cooler", "Heat rejected without a compressor (dry coolers)", "kW",
                 dry_loop * (heat["liquid"] + pumps),
                 "heat to liquid + CDU pump power (the pumps' work ends in the coolant) on a dry-cooler loop, else 0")
    hall = s.calc("hall_heat_compressor", "IT hall and coolant heat that needs a compressor", "kW",
                  heat["liquid"] + pumps + heat["air"] - dry,
                  "the hall's air (cold-aisle air needs chilled water), and the liquid loop when it is colder "
                  "than the dry-cooler threshold")
    cop, share, overhead = i.chiller_cop, i.indoor_loss_share, power.facility_overhead
    indoor = s.calc(
        "indoor_facility_heat", "Facility losses released indoors (their own rooms)", "kW",
        max_(0, share * (overhead - pumps - hall / cop) / (1 + share / cop)),
        "indoor share x (facility overhead - CDU pumps - compressor power), where the compressor power "
        "includes these rooms' own: solved, share x (overhead - pumps - hall compressor heat / COP) / (1 + "
        "share / COP); 0 where the overhead cannot carry the plant (the overhead check fails)")
    s.calc("heat_load", "Heat load to remove (IT hall, CDU pumps, facility rooms)", "kW",
           added([heat["liquid"], pumps, heat["air"], indoor]),
           "heat to liquid + CDU pump power + heat to air + indoor facility losses")
    needs = s.calc("heat_compressor", "Heat that needs a compressor (chillers)", "kW", hall + indoor,
                   "IT hall and coolant heat needing a compressor + the facility rooms' losses")
    work = s.calc("compressor_power", "Chiller compressor power (its own heat)", "kW", needs / cop,
                  "heat needing a compressor / chiller COP; part of the facility overhead's cooling power")
    chillers = s.calc("heat_chillers", "Heat the chillers reject (load + compressor heat)", "kW", needs + work)
    out = s.calc("heat_rejection", "Heat rejected by the plant (dry coolers + chillers)", "kW", dry + chillers,
                 "dry-cooler heat + chiller heat")
    s.calc("heat_rejection_tons", "Heat rejected by the plant (refrigeration tons)", "TR", out,
           "1 ton of refrigeration = 12,000 BTU/h = 3.517 kW")
    rest = s.calc("other_overhead", "Facility overhead other than compressors and CDU pumps", "kW",
                  overhead - work - pumps, "facility overhead - compressor power - CDU pump power: losses, fans, "
                  "lighting; the indoor share of it is above, the rest leaves outdoors")
    outside = s.calc("heat_outside_plant", "Heat released outdoors without the plant", "kW", (1 - share) * rest,
                     "(1 - indoor share) x that overhead: outdoor transformers, dry-cooler and condenser fans")
    heat_out = s.calc("heat_out", "Heat out (plant + outdoors without it)", "kW", out + outside)
    heat_in = s.calc("heat_in", "Heat in: facility power, design day (Power chain)", "kW", power.facility_power,
                     "every watt the site draws ends as heat")
    s.check("heat_balance", "Heat out equals heat in (facility power, within the method's tolerance)",
            close(heat_out, heat_in),
            "heat out is built from the parts (the IT hall from its components, the CDU pumps, the compressors, "
            "the rest of the overhead by the indoor share); heat in is the power chain's facility power (IT load "
            "+ overhead). It fails when the IT heat misses or double-counts a part of the IT load, or when the "
            "overhead cannot carry the plant")
    return work, dry_loop


def _marginal(s: SheetBuilder, i: Inputs, p: Inputs, dry_loop: Line) -> None:
    """What one more kW at a GPU's wall costs in cooling power: the power envelope prices a power cap with it."""
    s.section("A kW of GPU power at the margin")
    compressed = s.calc(
        "gpu_heat_compressor_share", "Share of a kW of GPU power at the wall that needs a compressor", "%",
        (1 - p.psu_efficiency) + p.psu_efficiency * (1 - i.gpu_liquid_share * dry_loop),
        "PSU loss (1 - efficiency) on air + the GPU's DC power x (1 - its liquid share on a dry-cooler loop): "
        "liquid heat on dry coolers takes no compressor", fmt=PERCENT)
    s.calc("gpu_marginal_cooling", "Cooling power per kW of GPU power (at the margin)", "kW/kW",
           compressed / i.chiller_cop,
           "that share / chiller COP: compressors only (CDU pumps step with CDUs, dry-cooler fans are not "
           "modelled: 0 at the margin)")


def _cold_plate(s: SheetBuilder, i: Inputs, p: Inputs) -> None:
    """How long a GPU's cold plate lasts when the flow stops: why the CDU pumps are UPS-backed."""
    s.section("Cold plate when the flow stops", air_cooled(i))
    coolant = s.calc("cold_plate_mass", "Coolant mass in one GPU cold plate", "g",
                     i.cold_plate_volume * i.coolant_density)
    capacity = s.calc("cold_plate_heat_capacity", "Heat capacity of one GPU cold plate (coolant + metal)", "J/K",
                      coolant * i.coolant_specific_heat + i.cold_plate_metal_mass * i.cold_plate_metal_specific_heat,
                      "coolant mass x cp + metal mass x the metal's specific heat")
    margin = s.calc("cold_plate_margin", "Thermal margin: GPU maximum operating temperature - coolant supply", "K",
                    i.gpu_throttle_temperature - i.coolant_supply_temperature)
    rise = s.calc("cold_plate_die_rise", "GPU die's rise over the coolant at TDP", "K",
                  p.gpu_tdp * i.die_to_coolant_resistance, "GPU TDP x die-to-coolant thermal resistance: the die "
                  "is this much hotter than the plate while it runs at full power")
    usable = s.calc("cold_plate_usable_margin", "Margin the plate can use before the die reaches its limit", "K",
                    margin - rise, "margin - the die's rise: the plate may warm only until the die, above it by "
                    "the rise, reaches the GPU's maximum operating temperature")
    rate = s.calc("cold_plate_heating_rate", "Heating rate with the flow stopped (GPU at TDP)", "K/s",
                  p.gpu_tdp / capacity, "GPU power / heat capacity")
    s.calc("cold_plate_time", "Time to the GPU's maximum operating temperature when flow stops", "s", usable / rate,
           "usable margin / heating rate = heat capacity x (margin - die rise) / GPU power: a lumped plate starting "
           "at the supply temperature with the die above it by its rise; the package's and the hoses' heat "
           "capacity are left out (the real time is a little longer) [E]")
    s.check("throttle_above_coolant", "The GPU's die at TDP is below its maximum operating temperature with the "
            "flow running", usable > Const(0, "K"),
            "usable margin > 0 (maximum operating temperature > coolant supply + the die's rise): else the GPU "
            "slows with the flow running")


def _floor(s: SheetBuilder, i: Inputs, p: Inputs, node_liquid: Line, power: PowerOut) -> None:
    """A full compute rack's weight over its footprint, against the floor's distributed-load rating."""
    s.section("Floor loading")
    coolant = s.calc("rack_coolant_weight", "Coolant weight in a full rack", "kg",
                     where(node_liquid > 0, i.rack_coolant_volume * i.coolant_density, 0),
                     "coolant volume x density in a liquid-cooled rack, else 0")
    weight = s.calc("rack_weight", "Weight of a full compute rack", "kg",
                    power.nodes_per_rack * i.node_weight + i.rack_empty_weight + coolant,
                    "nodes per rack x node weight + empty rack + coolant")
    area = s.calc("rack_footprint", "Rack footprint", "m²", p.rack_width * i.rack_depth, "width x depth")
    load = s.calc("floor_load", "Floor load under a full rack", "kg/m²", weight / area,
                  "rack weight / footprint (distributed; casters and levelling feet concentrate it further)")
    s.check("floor_within_rating", "A full rack's floor load within the floor rating", load <= i.floor_rating)


# the Summary's rows of the coolant loop: under a heading of their own, collapsed with the reason where no part is
# liquid-cooled (as the Cooling sheet's coolant loop and CDUs)
LOOP = ("coolant_flow", "coolant_flow_gpm", "cdus_n", "cdus_installed", "cdu_pump_power", "cold_plate_time",
        "rack_liquid_heat")


def summarise(s: SheetBuilder, cooling: CoolingOut, unused: str = "") -> None:
    """Cooling figures on the Summary sheet: every output of the whole hall, in the order the Cooling sheet has
    them (a node's heat split is for the models that place racks, not a figure to read first); the coolant loop's
    (flow, CDUs, the cold plate's time to its limit) under a heading of their own, which says why they do not
    apply where `unused` (air_cooled) says so, its rows collapsed."""
    shown = [f.name for f in dataclasses.fields(cooling) if f.name not in NOT_SHOWN]
    s.section("Cooling")
    for name in (n for n in shown if n not in LOOP):
        s.show(getattr(cooling, name))
    s.section("Cooling: the coolant loop, its CDUs and the cold plates", unused)
    for name in (n for n in shown if n in LOOP):
        s.show(getattr(cooling, name))
