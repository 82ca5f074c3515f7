"""The facility overhead from its own drivers: the design PUE floor, at the end of the Cooling sheet.

A PUE states the whole overhead as one ratio, so a PUE too low for the plant it must run passes every sum: on the
example the chillers' compressors alone take 473 of the 557.5 kW a PUE of 1.4 leaves. Each term here is estimated
from what drives it: the compressors and the CDU pumps from the Cooling sheet; the air movers (CRAH or fan-wall
fans) from the IT hall's air flow; the plant's pumps and heat-rejection fans from the heat it rejects; lighting from
the hall's floor; and the distribution losses (UPS, transformers, PDUs) as a share of the facility's input. Their
sum over the IT load is the least design-day PUE the site can have; the design PUE (given, or the itemised chain's
effective one) below it fails a check, and the sheet says by how much.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.formula.expr import Const
from workbook.formula.functions import added, max_
from workbook.formula.line import Line
from workbook.models.base import Inputs, Scope
from workbook.models.cooling import TITLE, CoolingOut
from workbook.models.power.power import PowerOut

# A facility power against another computed apart: within 0.1 kW, not to the last bit.
KW_TOLERANCE = Const(100, "W")


@dataclass(frozen=True)
class OverheadOut:
    pue_floor: Line
    pue_shortfall: Line


def define(scope: Scope, i: Inputs, p: Inputs, power: PowerOut, cooling: CoolingOut) -> OverheadOut:
    """`scope` is the cooling model's (prefix `cooling`), `i` its inputs, `p` the power chain's (the hall's floor,
    the distribution loss)."""
    s = scope.sheet(TITLE)
    s.section("Facility overhead from its drivers: the design PUE floor")
    area = s.calc("hall_area", "IT hall floor (rack positions)", "m²",
                  p.hall_rows * p.racks_per_row * p.rack_width * p.row_pitch,
                  "rows x positions per row x rack width x row pitch (Power chain inputs)", fmt="#,##0")
    terms = [
        s.calc("floor_compressors", "Chillers' compressors", "kW", cooling.compressor_power, "Cooling sheet, above"),
        s.calc("floor_cdu_pumps", "CDU pumps", "kW", cooling.cdu_pump_power, "Cooling sheet, above"),
        s.calc("floor_air_movers", "Air movers (CRAH or fan-wall fans) for the IT hall's air flow", "kW",
               cooling.air_flow * i.air_mover_power, "IT hall air flow x fan power per m³/s"),
        s.calc("floor_plant_pumps", "Plant pumps and heat-rejection fans", "kW",
               cooling.heat_rejection_tons * i.plant_pump_share,
               "heat rejected by the plant x pump and fan power per kW rejected"),
        s.calc("floor_lighting", "Lighting", "kW", area * p.lighting_density, "hall floor x lighting power density"),
    ]
    loads = s.calc("floor_overhead_before_losses", "Overhead before the distribution losses", "kW", added(terms),
                   "compressors + CDU pumps + air movers + plant pumps + lighting")
    facility = s.calc("floor_facility_power", "Facility power the overhead's drivers need (design day)", "kW",
                      (power.it_load + loads) / (1 - p.distribution_loss),
                      "(IT load + that overhead) / (1 - distribution loss): the losses a share of the input")
    s.calc("floor_losses", "Distribution losses (UPS, transformers, PDUs)", "kW", facility * p.distribution_loss,
           "facility power x distribution loss")
    floor = s.calc("pue_floor", "Design PUE floor: the least design-day PUE the plant can run at", "ratio",
                   facility / power.it_load, "facility power the drivers need / IT load", fmt="0.000")
    design = s.calc("pue_design", "Design-day PUE of the power chain (given, or its itemised overhead's)", "ratio",
                    power.facility_power / power.it_load, "facility power / IT load (Power chain)", fmt="0.000")
    short = s.calc("pue_shortfall", "Design PUE below the floor, by", "ratio", max_(0, floor - design),
                   "MAX(0, floor - design PUE): how much the design PUE must rise", fmt="0.000")
    s.check("pue_above_floor", "The design PUE carries the overhead its drivers need (the PUE floor)",
            power.facility_power + KW_TOLERANCE >= facility,
            "facility power (Power chain) >= the facility power the overhead's drivers need, within 0.1 kW: a PUE "
            "below the floor cannot run the plant on the design day (by the shortfall above)")
    return OverheadOut(floor, short)
