"""Power chain: GPU TDP -> node -> rack -> IT load -> facility -> contracted utility feed.

Design power is the sum of nameplate (TDP) figures at the wall: what the utility contract and the rack
circuits must carry, not the average draw (that belongs to the energy bill, in the TCO).
"""

from __future__ import annotations

from workbook.formula.functions import ceil, floor, max_, min_
from workbook.formula.line import COUNT, PERCENT, Book
from workbook.inputs import Spec, with_limits
from workbook.models.base import AllInputs

TITLE, PREFIX = "Power chain", "power"

_W = dict(expect="a power", example="700 W", lo=0.0)
_KW = dict(expect="a power", example="40 kW", lo=0.0)
_RATIO = dict(expect="a fraction", example="0.1", lo=0.0, hi=1.0, fmt=PERCENT)

INPUTS = with_limits([
    Spec("power.gpus", "GPUs in the cluster", "GPUs", "a count of GPUs", "1024", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.gpu_tdp", "GPU board power (TDP)", "W", lo_open=True, **{**_W, "lo": 0.0}),
    Spec("power.gpus_per_node", "GPUs per node", "GPUs", "a count of GPUs", "8", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.cpus_per_node", "CPUs per node", "count", "a count of CPUs", "2", lo=0, integer=True,
         fmt=COUNT),
    Spec("power.cpu_tdp", "CPU TDP", "W", **_W),
    Spec("power.memory_power", "Memory power per node", "W", **_W),
    Spec("power.nics_per_node", "NICs per node", "count", "a count of NICs", "10", lo=0, integer=True,
         fmt=COUNT),
    Spec("power.nic_power", "Power per NIC", "W", **{**_W, "example": "25 W"}),
    Spec("power.baseboard_power", "GPU baseboard power (switch chips, retimers, BMC)", "W", **_W),
    Spec("power.node_storage_power", "Local storage power per node", "W", **_W),
    Spec("power.fan_power", "Fan power per node at full speed", "W", **_W),
    Spec("power.psu_efficiency", "PSU efficiency (AC in -> DC out)", "%", "a fraction", "0.94",
         lo=0.5, hi=1.0, fmt=PERCENT),
    Spec("power.node_height", "Node height", "U", "a height in rack units", "8 U", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.rack_units", "Usable rack units per rack", "U", "a height in rack units", "42 U", lo=1,
         integer=True, fmt=COUNT),
    Spec("power.rack_power_limit", "Rack power limit", "kW", lo_open=True, **_KW),
    Spec("power.storage_power", "Shared storage system power", "kW", **_KW),
    Spec("power.management_power", "Management servers and network power", "kW", **_KW),
    Spec("power.facility_model", "Facility overhead method", "", "a method", "pue",
         choices=("pue", "itemised")),
    Spec("power.pue", "PUE (facility power / IT power)", "ratio", "a ratio", "1.3", lo=1.0, hi=3.0,
         when=("power.facility_model", "pue")),
    Spec("power.cooling_overhead", "Cooling power per kW of IT load", "kW/kW", "a ratio", "0.25",
         lo=0.0, hi=2.0, when=("power.facility_model", "itemised")),
    Spec("power.distribution_loss", "Distribution loss (UPS, transformers, PDUs), share of input", "%",
         when=("power.facility_model", "itemised"), **{**_RATIO, "hi": 0.5}),
    Spec("power.other_facility_power", "Lighting, offices and other facility load", "kW",
         when=("power.facility_model", "itemised"), **_KW),
    Spec("power.sync_peak_factor", "Synchronised GPU peak over TDP", "ratio", "a ratio", "1.1", lo=1.0,
         hi=2.0),
    Spec("power.feed_headroom", "Feed headroom over the peak", "%", **_RATIO),
    Spec("power.feed_block_size", "Supply block size (transformer / UPS block)", "MW", "a power",
         "2.5 MW", lo=0.0, lo_open=True),
    Spec("power.feed_redundancy", "Supply redundancy", "", "", "N+1", redundancy=True),
    Spec("power.site_available_power", "Utility power available at the site", "MW", "a power", "5 MW",
         lo=0.0, lo_open=True),
])


def define(book: Book, inputs: AllInputs) -> None:
    i = inputs.power
    s = book.sheet(TITLE, PREFIX)

    s.section("Node (per server, at nameplate)")
    node_gpu = s.calc("node_gpu_power", "GPU board power per node", "kW", i.gpus_per_node * i.gpu_tdp)
    node_cpu = s.calc("node_cpu_power", "CPU power per node", "kW", i.cpus_per_node * i.cpu_tdp)
    node_nic = s.calc("node_nic_power", "NIC power per node", "kW", i.nics_per_node * i.nic_power)
    node_dc = s.calc(
        "node_dc_power", "Node DC load (all components)", "kW",
        node_gpu + node_cpu + node_nic + i.memory_power + i.baseboard_power + i.node_storage_power
        + i.fan_power,
        "GPUs + CPUs + NICs + memory + baseboard + local storage + fans")
    node = s.calc("node_power", "Node input power (at the wall)", "kW", node_dc / i.psu_efficiency,
                  "DC load / PSU efficiency")
    s.calc("node_psu_loss", "PSU conversion loss per node", "kW", node - node_dc)

    s.section("Racks")
    nodes = s.calc("nodes", "Nodes", "nodes", ceil(i.gpus / i.gpus_per_node),
                   "whole nodes to hold every GPU", fmt=COUNT)
    per_rack = s.calc(
        "nodes_per_rack", "Nodes per rack", "nodes/rack",
        max_(1, min_(floor(i.rack_units / i.node_height), floor(i.rack_power_limit / node))),
        "the fewer of what fits by space and by the rack power limit (at least 1; the rack check "
        "flags a node too big for the limit)", fmt=COUNT)
    s.calc("racks", "Racks needed", "racks", ceil(nodes / per_rack), fmt=COUNT)
    rack_power = s.calc("rack_power", "Power of a full rack", "kW", per_rack * node)

    s.section("IT load")
    gpu_board = s.calc("gpu_board_power", "GPU board power, all GPUs", "kW", i.gpus * i.gpu_tdp)
    compute = s.calc("compute_power", "Compute nodes", "kW", nodes * node)
    network = s.calc("network_power", "Network switch power (compute and storage fabrics)", "kW",
                     book.lines["fabric.switches_power"], "from the Fabric sheet: switches x power each")
    optics = s.calc("optics_power", "Optical transceiver power", "kW", book.lines["fabric.optics_power"],
                    "from the Fabric sheet: transceivers x power each")
    it = s.calc(
        "it_load", "IT load", "kW",
        compute + network + optics + i.storage_power + i.management_power,
        "compute + network switches + optics + storage + management")

    s.section("Facility")
    if i.choice("facility_model") == "pue":
        facility = s.calc("facility_power", "Facility power", "kW", it * i.pue, "IT load x PUE")
        pue = i.pue
    else:
        cooling = s.calc("cooling_power", "Cooling power", "kW", it * i.cooling_overhead)
        facility = s.calc(
            "facility_power", "Facility power", "kW",
            (it + cooling + i.other_facility_power) / (1 - i.distribution_loss),
            "(IT + cooling + other) / (1 - distribution loss)")
        s.calc("distribution_loss_power", "Distribution losses", "kW", facility * i.distribution_loss)
        pue = s.calc("pue_effective", "PUE (effective)", "ratio", facility / it)
    s.calc("facility_overhead", "Facility overhead (cooling, distribution, other)", "kW",
                      facility - it)

    s.section("Utility feed")
    peak_it = s.calc(
        "peak_it_load", "Peak IT load (synchronised GPU steps)", "kW",
        it + gpu_board * (i.sync_peak_factor - 1),
        "all GPUs of a training job step together; only GPU power rises above TDP")
    critical = s.calc(
        "critical_it_capacity", "Contracted critical IT capacity", "kW", peak_it * (1 + i.feed_headroom),
        "peak IT load plus headroom: the IT capacity a colocation contract reserves and prices per kW-month")
    s.calc("peak_facility_power", "Peak facility power", "kW", peak_it * pue,
           "peak IT load x PUE (overhead scales with the load it serves)")
    feed = s.calc("contracted_feed", "Contracted utility feed", "MW", critical * pue,
                  "critical IT capacity x PUE: peak facility power plus headroom")
    blocks_n = s.calc("feed_blocks_n", "Supply blocks to carry the feed (N)", "blocks",
                      ceil(feed / i.feed_block_size), fmt=COUNT)
    blocks = s.calc(
        "feed_blocks", "Supply blocks installed (with redundancy)", "blocks",
        blocks_n * i.feed_redundancy_multiplier + i.feed_redundancy_spares, fmt=COUNT)
    s.calc("installed_supply", "Installed supply capacity", "MW", blocks * i.feed_block_size)

    s.section("Key figures")
    s.calc("gpu_share", "GPU board power as a share of facility power", "%", gpu_board / facility,
           fmt=PERCENT)
    s.calc("gpus_per_mw", "GPUs per MW of contracted feed", "GPU/MW", i.gpus / feed, fmt=COUNT)
    s.calc("it_share", "IT load as a share of facility power", "%", it / facility, fmt=PERCENT)

    s.check(
        "rack_within_limit", "A full rack stays within the rack power limit", rack_power <= i.rack_power_limit)
    s.check("feed_within_site", "Contracted feed fits the site's available power",
            feed <= i.site_available_power)
    s.check("whole_nodes", "The GPU count fills whole nodes", nodes * i.gpus_per_node <= i.gpus)
