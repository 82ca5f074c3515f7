"""UPS: blocks that carry the UPS-backed load, on the Power chain sheet.

The UPS-backed load is the critical IT capacity and, in a liquid-cooled hall, the CDU pumps (a cold plate
without flow reaches its limit in seconds), so this model takes the power chain's and the cooling model's
outputs. UPS blocks are rated in apparent power (kVA): kW / power factor. Its inputs are the power chain's
(`power.ups_block_size`, `power.ups_redundancy`, `power.power_factor`).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.formula.line import Line
from workbook.models.base import Inputs, Scope
from workbook.models.cooling import CoolingOut
from workbook.models.power.power import TITLE, PowerOut, supply_blocks


@dataclass(frozen=True)
class UpsOut:
    ups_load: Line
    ups_blocks: Line
    installed_ups: Line


def define(scope: Scope, i: Inputs, power: PowerOut, cooling: CoolingOut) -> UpsOut:
    """`scope` is the power chain's (prefix `power`): the UPS rows sit at the end of its sheet."""
    s = scope.sheet(TITLE)
    s.section("UPS (the UPS-backed load)")
    backed = s.calc("ups_load", "UPS-backed load", "kW", power.critical_it_capacity + cooling.cdu_pump_power,
                    "critical IT capacity + CDU pump power (Cooling sheet)")
    apparent = s.calc("ups_load_apparent", "UPS-backed load, apparent power", "kVA", backed / i.power_factor,
                      "UPS-backed load / power factor")
    supply_blocks(s, "ups", ("installed_ups", "Installed UPS capacity"), "UPS", apparent,
                  (i.ups_block_size, i.ups_redundancy_multiplier, i.ups_redundancy_spares))
    return scope.outputs(UpsOut)

