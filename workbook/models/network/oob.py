"""The out-of-band management network, at the end of the Fabric sheet.

It counts the nodes' BMCs, the fabric switches' management ports, every rack PDU (from the power chain) and
every CDU (from cooling); those models use the fabric's power, so this is a model of its own that takes their
outputs. Its inputs are the fabric's (`fabric.oob_*`); its switch power stays inside the power chain's
management power input (it is shown, not added again).

The leaves uplink on their own uplink ports to an aggregation pair of the in-band switch model (a pair of its
own, not ports on the in-band network: those are sized before this model, so borrowing theirs would make a
loop). Each leaf splits its uplinks across the pair, so one aggregation switch or uplink can fail without
cutting a leaf off.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.formula.functions import ceil
from workbook.formula.line import COUNT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.cooling import CoolingOut
from workbook.models.network.fabric import TITLE, FabricOut
from workbook.models.power.power import PowerOut


@dataclass(frozen=True)
class OobOut:
    oob_switches: Line
    oob_switches_power: Line
    oob_endpoints: Line  # one copper patch cable each (the bill of materials)
    oob_uplinks: Line
    oob_aggregation: Line
    oob_aggregation_power: Line


def define(scope: Scope, i: Inputs, fabric: FabricOut, power: PowerOut, cooling: CoolingOut) -> OobOut:
    """`scope` is the fabric's (prefix `fabric`), `i` its inputs."""
    s = scope.sheet(TITLE)
    s.section("Out-of-band management network (BMCs, PDUs, switch and CDU management ports)")
    bmc = s.calc("oob_node_ports", "Node BMC ports", "count", power.nodes * i.oob_ports_per_node,
                 "nodes x out-of-band ports per node", fmt=COUNT)
    mgmt = s.calc("oob_switch_ports_used", "Fabric switches' management ports", "count", fabric.switches_total,
                  "one per compute, storage and in-band switch", fmt=COUNT)
    pdus = s.calc("oob_pdu_ports", "Rack PDU management ports", "count", power.pdus,
                  "every rack PDU (Power chain: compute, network, storage and management racks)", fmt=COUNT)
    cdus = s.calc("oob_cdu_ports", "CDU management ports", "count", cooling.cdus_installed,
                  "CDUs installed (Cooling sheet)", fmt=COUNT)
    endpoints = s.calc("oob_endpoints", "Out-of-band endpoints", "count",
                       bmc + mgmt + pdus + cdus + i.oob_other_endpoints,
                       "BMCs + switch management + PDUs + CDUs + other endpoints", fmt=COUNT)
    oob = s.calc("oob_switches", "Out-of-band switches", "switches", ceil(endpoints / i.oob_switch_ports),
                 "ROUNDUP(endpoints / ports per switch)", fmt=COUNT)
    s.calc("oob_switches_power", "Out-of-band switch power", "kW", oob * i.oob_switch_power,
           "switches x power each; part of the power chain's management power input, not added again")
    s.check("oob_uplinks_fit", "An out-of-band switch has the uplink ports its uplinks need",
            i.oob_uplinks_per_switch <= i.oob_uplink_ports)
    uplinks = s.calc("oob_uplinks", "Out-of-band uplinks (cables)", "links", oob * i.oob_uplinks_per_switch,
                     "switches x uplinks per switch, on their uplink ports", fmt=COUNT)
    aggregation = s.calc("oob_aggregation", "Out-of-band aggregation switches (in-band switch model)", "switches",
                         2 * ceil(uplinks / (2 * i.inband_switch_radix)),
                         "a pair, each taking half the uplinks: 2 x ROUNDUP(uplinks / (2 x in-band switch radix))",
                         fmt=COUNT)
    s.calc("oob_aggregation_power", "Out-of-band aggregation switch power", "kW",
           aggregation * i.inband_switch_power,
           "aggregation switches x in-band switch power; part of the management power input, not added again")
    return scope.outputs(OobOut)
