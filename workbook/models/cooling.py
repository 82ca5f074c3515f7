"""Cooling: every watt in is heat out. Liquid (direct-to-chip) and air split, coolant flow, CDUs with
redundancy, air flow, heat rejection, and how long a cold plate lasts when the flow stops.

Heat balance: all IT power becomes heat in the hall; of the facility overhead, the share released indoors
(UPS and PDU losses, lighting, fans of air handlers and CDUs) adds to it. Cold plates take a share of the
compute nodes' heat into the coolant; the air takes the rest (the nodes' residual heat, switches, optics,
storage, management, indoor losses). Flow follows Q = m' x cp x dT for each fluid.
"""

from __future__ import annotations

from workbook.formula.functions import ceil, max_, where
from workbook.formula.line import COUNT, PERCENT, Book, SheetBuilder
from workbook.inputs import Spec, with_limits
from workbook.models.base import AllInputs

TITLE, PREFIX = "Cooling", "cooling"

_SHARE = dict(expect="a fraction", example="0.8", lo=0.0, hi=1.0, fmt=PERCENT)
_POSITIVE = dict(lo=0.0, lo_open=True)

INPUTS = with_limits([
    Spec("cooling.liquid_share", "Share of compute node heat taken by liquid (direct-to-chip)", "%",
         **_SHARE),
    Spec("cooling.indoor_loss_share", "Share of facility overhead released as heat indoors", "%",
         **{**_SHARE, "example": "0.3"}),
    Spec("cooling.coolant_density", "Coolant density", "kg/m^3", "a density", "997 kg/m^3", **_POSITIVE),
    Spec("cooling.coolant_specific_heat", "Coolant specific heat", "kJ/(kg*K)", "a specific heat",
         "4.18 kJ/(kg*K)", **_POSITIVE),
    Spec("cooling.coolant_supply_temperature", "Coolant supply temperature (to the cold plates)", "°C",
         "a temperature", "30 degC", lo=0.0, hi=70.0),
    Spec("cooling.allowed_rise", "Allowed coolant temperature rise", "K", "a temperature difference",
         "10 K", lo=0.0, lo_open=True, hi=40.0),
    Spec("cooling.flow_per_kw", "Design coolant flow per kW of liquid heat", "L/min/kW",
         "a flow per power", "1.5 L/min/kW", **_POSITIVE),
    Spec("cooling.rack_manifold_flow", "Rack manifold flow limit", "L/min", "a volume flow",
         "200 L/min", **_POSITIVE),
    Spec("cooling.cold_plate_volume", "Coolant held in one GPU cold plate", "mL", "a volume", "60 mL",
         **_POSITIVE),
    Spec("cooling.cdu_capacity", "CDU heat capacity (per unit)", "kW", "a power", "1000 kW", **_POSITIVE),
    Spec("cooling.cdu_flow", "CDU flow capacity (per unit)", "L/min", "a volume flow", "1500 L/min",
         **_POSITIVE),
    Spec("cooling.cdu_redundancy", "CDU redundancy", "", "", "N+1", redundancy=True),
    Spec("cooling.air_density", "Air density", "kg/m^3", "a density", "1.2 kg/m^3", **_POSITIVE),
    Spec("cooling.air_specific_heat", "Air specific heat", "kJ/(kg*K)", "a specific heat",
         "1.006 kJ/(kg*K)", **_POSITIVE),
    Spec("cooling.air_supply_temperature", "Air supply temperature (cold aisle)", "°C", "a temperature",
         "22 degC", lo=0.0, hi=60.0),
    Spec("cooling.air_return_temperature", "Air return temperature (hot aisle)", "°C", "a temperature",
         "36 degC", lo=0.0, hi=80.0),
])

# Rules between two keys (each key alone is checked by its Spec): (key, operator, other key, why).
RULES = [
    ("cooling.air_supply_temperature", "<", "cooling.air_return_temperature",
     "the air must leave the racks warmer than it arrives"),
]


def define(book: Book, inputs: AllInputs) -> None:
    i, p = inputs.cooling, inputs.power
    L = book.lines
    s = book.sheet(TITLE, PREFIX)

    s.section("Heat load (every watt in is heat out)")
    it_heat = s.calc("it_heat", "IT heat (all of the IT load)", "kW", L["power.it_load"],
                     "every watt the IT equipment draws ends as heat in the hall")
    indoor = s.calc(
        "indoor_facility_heat", "Facility losses released indoors", "kW",
        L["power.facility_overhead"] * i.indoor_loss_share,
        "facility overhead x indoor share: UPS and PDU losses, lighting, air handler and CDU fans and "
        "pumps heat the rooms; chillers and cooling towers reject theirs outdoors")
    heat = s.calc("heat_load", "Heat load to remove", "kW", it_heat + indoor, "IT heat + indoor losses")
    liquid = s.calc("liquid_heat", "Heat to liquid (cold plates)", "kW",
                    L["power.compute_power"] * i.liquid_share,
                    "compute node power x liquid share; switches, storage and management stay on air")
    air = s.calc("air_heat", "Heat to air", "kW", heat - liquid, "heat load - heat to liquid")
    s.calc("liquid_fraction", "Liquid share of the heat load", "%", liquid / heat, fmt=PERCENT)

    s.section("Coolant loop (technology cooling system)")
    flow = s.calc("coolant_flow", "Coolant flow", "L/min", liquid * i.flow_per_kw,
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
    rack_flow = s.calc(
        "rack_coolant_flow", "Coolant flow per full rack", "L/min",
        L["power.nodes_per_rack"] * L["power.node_power"] * i.liquid_share * i.flow_per_kw,
        "nodes per rack x node power x liquid share x flow per kW")

    s.section("Coolant distribution units (CDUs)")
    for_heat = s.calc("cdus_for_heat", "CDUs to carry the liquid heat (N)", "CDUs",
                      ceil(liquid / i.cdu_capacity), fmt=COUNT)
    for_flow = s.calc("cdus_for_flow", "CDUs to carry the coolant flow (N)", "CDUs",
                      ceil(flow / i.cdu_flow), fmt=COUNT)
    n = s.calc("cdus_n", "CDUs needed (N)", "CDUs", max_(for_heat, for_flow),
               "the more of the two; 0 for an air-cooled site", fmt=COUNT)
    installed = s.calc(
        "cdus_installed", "CDUs installed (with redundancy)", "CDUs",
        where(n > 0, n * i.cdu_redundancy_multiplier + i.cdu_redundancy_spares, 0),
        "N x multiple of N + spares; none without liquid heat", fmt=COUNT)
    one_down = s.calc("cdus_one_down", "CDUs running with one unit down", "CDUs",
                      max_(installed - 1, 0), fmt=COUNT)
    s.calc("cdu_capacity_installed", "Installed CDU heat capacity", "kW", installed * i.cdu_capacity)

    s.section("Air")
    air_dt = s.calc("air_rise", "Air temperature rise (return - supply)", "K",
                    i.air_return_temperature - i.air_supply_temperature)
    s.calc("air_flow_per_kw", "Air flow per kW of air heat", "CFM/kW",
           1 / (i.air_density * i.air_specific_heat * air_dt),
           "1 / (air density x cp x dT): the sensible heat equation CFM = 3412 x kW / (1.085 x dT in F), "
           "with density and cp as inputs instead of the 1.085")
    air_flow = s.calc("air_flow", "Air flow", "CFM", air / (i.air_density * i.air_specific_heat * air_dt),
                      "heat to air / (density x cp x dT)")
    s.calc("air_flow_m3h", "Air flow (cubic metres per hour)", "m^3/h", air_flow, "the same flow in m^3/h")

    s.section("Heat rejection")
    out = s.calc("heat_rejection", "Heat rejected (liquid + air)", "kW", liquid + air,
                 "what the heat rejection plant must remove from the rooms; equals the heat load")
    s.calc("heat_rejection_tons", "Heat rejected (refrigeration tons)", "TR", out,
           "1 ton of refrigeration = 12,000 BTU/h = 3.517 kW")

    s.section("Cold plate when the flow stops")
    plate = s.calc("cold_plate_mass", "Coolant mass in one GPU cold plate", "g",
                   i.cold_plate_volume * i.coolant_density)
    s.calc("cold_plate_time", "Time to the thermal limit when flow stops", "s",
           plate * i.coolant_specific_heat * i.allowed_rise / p.gpu_tdp,
           "coolant mass x cp x allowed rise / GPU power: the GPU at TDP heats the still coolant in its "
           "plate by the allowed rise; the metal's own heat capacity is left out (conservative)")

    s.check("rack_flow_within_manifold", "Coolant flow per rack within the rack manifold limit",
            rack_flow <= i.rack_manifold_flow)
    s.check("rise_within_allowed", "Coolant temperature rise within the allowed rise", rise <= i.allowed_rise)
    s.check("cdu_heat_one_down", "CDUs carry the liquid heat with one unit down",
            one_down * i.cdu_capacity >= liquid)
    s.check("cdu_flow_one_down", "CDUs carry the coolant flow with one unit down",
            one_down * i.cdu_flow >= flow)


def summarise(book: Book, s: SheetBuilder) -> None:
    """Cooling figures on the Summary sheet."""
    s.section("Cooling")
    for key in ("heat_load", "liquid_heat", "air_heat", "coolant_flow", "coolant_flow_gpm", "air_flow",
                "heat_rejection_tons", "cdus_n", "cdus_installed"):
        s.show(book.lines[f"cooling.{key}"])
