"""Standby generators: blocks that carry the site through a utility outage, on the Power chain sheet.

The UPS carries the UPS-backed load (critical IT capacity and the CDU pumps) through the seconds until the
generators start; the generators then carry that load (through the UPS) plus everything else that must run or
restart on them: the chillers' compressors, fans and pumps, the distribution losses and lighting, i.e. the rest
of the facility overhead on the design day. Generating sets are rated in kVA at 0.8 power factor (ISO 8528-1), so
their kW is kVA x 0.8 whatever the load's own power factor: the load in kW over that factor is the kVA they must
carry. Blocks follow the transformer and UPS rule (N, then the redundancy's multiple of N and spares), and a
check asks that they carry the load with one block out.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.formula.functions import max_
from workbook.formula.line import Line
from workbook.inputs import Spec, with_limits
from workbook.models.base import Inputs, Scope
from workbook.models.cooling import CoolingOut
from workbook.models.power import TITLE as POWER
from workbook.models.power import PowerOut, supply_blocks
from workbook.models.ups import UpsOut

PREFIX = "generator"
TITLE = "Generators"  # their inputs' section on the Inputs sheet; their lines are on the Power chain sheet

INPUTS = with_limits([
    Spec("generator.block_size", "Generator set rating (standby, per set)", "kVA", "an apparent power",
         "2500 kVA", lo=0.0, lo_open=True),
    Spec("generator.power_factor", "Power factor the generator sets are rated at (kW / kVA)", "ratio", "a ratio",
         "0.8", lo=0.5, hi=1.0),
    Spec("generator.redundancy", "Generator redundancy", "", "", "N+1", redundancy=True),
])


@dataclass(frozen=True)
class GeneratorOut:
    generator_load: Line
    generator_blocks: Line
    installed_generator: Line


def define(scope: Scope, i: Inputs, power: PowerOut, cooling: CoolingOut, ups: UpsOut) -> GeneratorOut:
    """`scope` is the power chain's (prefix `power`): the generator rows follow the UPS rows on its sheet."""
    s = scope.sheet(POWER)
    s.section("Standby generators (the whole site on a utility outage)")
    backed = s.calc("generator_ups_load", "UPS-backed load, carried through the UPS", "kW", ups.ups_load,
                    "critical IT capacity + CDU pump power (the UPS rows above)")
    plant = s.calc("generator_plant_load", "Cooling plant and other facility load that restarts on them", "kW",
                   max_(power.facility_overhead - cooling.cdu_pump_power, 0),
                   "facility overhead, design day (chillers' compressors, fans, pumps, losses, lighting) - the CDU "
                   "pumps already in the UPS-backed load; the compressors alone are "
                   "the Cooling sheet's compressor power")
    load = s.calc("generator_load", "Load on the generators", "kW", backed + plant,
                  "UPS-backed load + cooling plant and other facility load")
    apparent = s.calc("generator_load_apparent", "Load on the generators, at their rated power factor", "kVA",
                      load / i.power_factor,
                      "load / rated power factor (0.8, ISO 8528-1): a set's kW is its kVA x 0.8")
    supply_blocks(s, "generator", ("installed_generator", "Installed generator capacity"), "Generator", apparent,
                  (i.block_size, i.redundancy_multiplier, i.redundancy_spares))
    out = scope.outputs(GeneratorOut)
    s.check("generators_one_down", "Generators carry the load with one set out",
            (out.generator_blocks - 1) * i.block_size >= apparent,
            "(sets installed - 1) x set rating >= load at the rated power factor: a set can fail to start or be "
            "in maintenance (Uptime Tier III: N+1 engine generators)")
    return out
