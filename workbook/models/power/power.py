"""Power chain: GPU TDP -> node -> rack -> IT load -> facility -> contracted utility feed -> supply blocks.

Electrical design uses the larger of the component sum at the wall and the vendor's published maximum input
(DGX H100 10.2 kW, DGX B200 14.3 kW): racks, rack circuits, the feed and the supply blocks are sized on it.
The component sum stays as the breakdown of where the watts go, and it is the basis of the energy bill (the
TCO), since a node does not draw its PSU-sized maximum all year. Transformers and UPS blocks are rated in
apparent power (MVA, kVA): kW / power factor. UPS blocks carry the UPS-backed load (critical IT capacity,
plus the CDU pumps of a liquid-cooled hall); transformers carry the whole feed. The feed is sized at the
design-day (peak) PUE; energy is billed at the annual average PUE.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.book.sheets import POWER as TITLE
from workbook.formula.expr import Const, FormulaError
from workbook.formula.functions import all_, ceil, floor, max_, min_
from workbook.formula.line import BOOL, COUNT, PERCENT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.network.fabric import FabricOut
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "power"

_W = dict(expect="a power", example="700 W", lo=0.0, fmt=COUNT)  # whole watts: datasheets give them so
_KW = dict(expect="a power", example="40 kW", lo=0.0)
_RATIO = dict(expect="a fraction", example="0.1", lo=0.0, hi=1.0, fmt=PERCENT)

INPUTS = with_limits([
    Spec("power.gpus", "GPUs in the cluster", "GPUs", "a count of GPUs", "1024", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.gpu_tdp", "GPU board power (TDP)", "W", lo_open=True, **{**_W, "lo": 0.0}),
    Spec("power.gpus_per_node", "GPUs per node", "GPUs", "a count of GPUs", "8", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.gpu_throughput", "Throughput per GPU, in H100-equivalents (a named benchmark)", "H100-eq",
         "a throughput relative to an H100 SXM", "2.2", lo=0.0, lo_open=True, hi=100.0, fmt="0.00"),
    Spec("power.node_name", "Node name (the bill of materials and the quote; absent: the catalog node's)", "",
         "a name of at most 100 characters", "Supermicro SYS-821GE-TNHR (8x H200 SXM)", text=100, optional=True),
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
    Spec("power.node_max_input", "Vendor's maximum input power per node (0 = not published)", "kW",
         **{**_KW, "example": "10.2 kW"}),
    Spec("power.hosts_per_node", "Fabric hosts per node (compute trays with their own NICs)", "count",
         "a count of hosts", "1", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("power.psu_efficiency", "PSU efficiency (AC in -> DC out)", "%", "a fraction", "0.94",
         lo=0.5, hi=1.0, fmt=PERCENT),
    Spec("power.psus_per_node", "Power supplies per node", "PSUs", "a count of PSUs", "6", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.psus_needed", "Power supplies a node needs at its design power (N of N+k)", "PSUs",
         "a count of PSUs", "5", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("power.psu_rating", "Power supply rating (DC output)", "kW", "a power", "3.3 kW", lo=0.0, lo_open=True),
    Spec("power.feed_loss_share", "Least share of a node's design power one feed must carry (1: ride through "
         "the loss of a feed at full power)", "%", "a fraction", "1", lo=0.0, hi=1.0, fmt=PERCENT),
    Spec("power.node_height", "Node height", "U", "a height in rack units", "8 U", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.rack_units", "Usable rack units per rack", "U", "a height in rack units", "42 U", lo=1,
         integer=True, fmt=COUNT),
    Spec("power.rack_power_limit", "Rack power limit", "kW", lo_open=True, **_KW),
    Spec("power.hall_rows", "Rows of rack positions in the hall", "rows", "a count of rows", "4", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("power.racks_per_row", "Rack positions per row", "racks", "a count of racks", "12", lo=0, lo_open=True,
         integer=True, fmt=COUNT),
    Spec("power.rack_width", "Rack width (pitch along a row)", "m", "a length", "0.6 m", lo=0.0, lo_open=True),
    Spec("power.row_pitch", "Row pitch (rack depth plus its share of the aisles)", "m", "a length", "2.4 m",
         lo=0.0, lo_open=True),
    Spec("power.network_location", "Where the network racks stand", "", "a location", "centre",
         choices=("centre", "end-of-row")),
    Spec("power.cable_slack", "Cable length added to each run (rise, drop and routing)", "m", "a length", "6 m",
         lo=0.0),
    Spec("power.lighting_density", "Lighting power per m² of the IT hall", "W/m²", "a power per area", "10 W/m^2",
         lo=0.0, hi=1000.0),
    Spec("power.storage_power", "Shared storage system power (as given)", "kW",
         when=("reliability.storage_sizing", "given"), **_KW),  # else sized on the Reliability sheet
    Spec("power.management_power", "Management servers and network power", "kW", **_KW),
    Spec("power.facility_model", "Facility overhead method", "", "a method", "pue",
         choices=("pue", "itemised")),
    Spec("power.pue", "Design-day (peak) PUE: facility power / IT power", "ratio", "a ratio", "1.3", lo=1.0,
         hi=3.0, when=("power.facility_model", "pue")),
    Spec("power.pue_annual", "Annual average PUE, for the energy bill (absent: the design PUE)", "ratio",
         "a ratio", "1.25", lo=1.0, hi=3.0, optional=True),
    Spec("power.cooling_overhead", "Cooling power per kW of IT load", "kW/kW", "a ratio", "0.25",
         lo=0.0, hi=2.0, when=("power.facility_model", "itemised")),
    Spec("power.distribution_loss", "Distribution loss (UPS, transformers, PDUs), share of input (with a PUE: an "
         "estimate, for the overhead at the margin and the PUE floor)", "%", **{**_RATIO, "hi": 0.5}),
    Spec("power.other_facility_power", "Lighting, offices and other facility load", "kW",
         when=("power.facility_model", "itemised"), **_KW),
    Spec("power.sync_peak_factor", "Synchronised GPU peak over TDP", "ratio", "a ratio", "1.1", lo=1.0,
         hi=2.0),
    Spec("power.feed_headroom", "Feed headroom over the peak", "%", **_RATIO),
    Spec("power.power_factor", "Power factor of the load (kW / kVA)", "ratio", "a ratio", "0.95", lo=0.5,
         hi=1.0),
    Spec("power.feed_block_size", "Transformer block rating", "MVA", "an apparent power", "2.5 MVA", lo=0.0,
         lo_open=True),
    Spec("power.feed_redundancy", "Transformer redundancy", "", "", "N+1", redundancy=True),
    Spec("power.ups_block_size", "UPS block rating", "kVA", "an apparent power", "1250 kVA", lo=0.0,
         lo_open=True),
    Spec("power.ups_redundancy", "UPS redundancy", "", "", "N+1", redundancy=True),
    Spec("power.rack_supply", "Rack power supply", "", "a supply", "three-phase",
         choices=("three-phase", "single-phase")),
    Spec("power.rack_voltage", "Rack supply voltage (line to line for three-phase)", "V", "a voltage",
         "415 V", lo=0.0, lo_open=True, fmt=COUNT),
    Spec("power.pdu_breaker", "Rack PDU breaker rating (per phase)", "A", "a current", "63 A", lo=0.0,
         lo_open=True, fmt=COUNT),
    Spec("power.continuous_load_share", "Continuous load allowed on a breaker", "%", **{**_RATIO,
         "example": "0.8", "lo": 0.1}),
    Spec("power.max_pdus_per_rack", "Most PDUs a rack can hold", "PDUs/rack", "a count of PDUs", "6", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("power.switches_per_network_rack", "Switches per network rack", "switches", "a count of switches",
         "16", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("power.support_rack_power", "Power per storage or management rack", "kW", lo_open=True,
         **{**_KW, "example": "15 kW"}),
    Spec("power.site_available_power", "Utility power available at the site", "MW", "a power", "5 MW",
         lo=0.0, lo_open=True),
])

# Rules between two keys (each key alone is checked by its Spec): (key, operator, other key, why).
RULES = [
    ("power.hosts_per_node", "divides", "power.gpus_per_node",
     "every fabric host of a node holds the same number of GPUs (an NVL72 rack: 18 hosts of 4)"),
    ("power.psus_needed", "<=", "power.psus_per_node", "a node needs at most the power supplies it has"),
]


@dataclass(frozen=True)
class PowerOut:
    """The power chain's lines that other models and the Summary use."""

    gpus: Line
    storage_power: Line
    management_power: Line
    node_gpu_power: Line
    node_cpu_power: Line
    node_nic_power: Line
    node_power: Line
    node_component_power: Line  # the component sum, its PSU loss and the vendor's allowance above it: the
    node_psu_loss: Line  # Cooling sheet splits the node's heat from them
    node_unexplained_power: Line
    nodes: Line
    nodes_per_rack: Line
    racks: Line
    rack_peak_power: Line
    racks_total: Line
    pdus: Line
    gpu_board_power: Line
    compute_power: Line
    network_power: Line
    optics_power: Line
    it_load: Line
    it_energy_load: Line
    facility_power: Line
    facility_overhead: Line
    pue_energy: Line
    critical_it_capacity: Line
    contracted_feed: Line
    feed_blocks: Line
    gpu_share: Line
    gpus_per_mw: Line
    cooling_power: Line | None = None  # an itemised facility overhead only


def define(scope: Scope, i: Inputs, fabric: FabricOut, storage: Line | None = None) -> PowerOut:
    """GPU to feed; the fabric's switches and optics are part of the IT load and fill the network racks. The
    shared storage's power is `storage` where the Reliability sheet sizes it, else the site's input."""
    s = scope.sheet(TITLE)
    node, node_peak, component = _node(s, i)
    if storage is not None:
        s.section("Shared storage (sized on the Reliability sheet from the checkpoint burst)")
        storage = s.calc("storage_load", "Shared storage power", "kW", storage,
                         "fast tier + capacity tier (Reliability sheet)")
    elif i.has("storage_power"):
        storage = i.storage_power
    else:
        raise FormulaError("the site sizes its shared storage on the Reliability sheet (reliability.storage_sizing: "
                           "sized): define the reliability model first and pass its storage power (define_site_fleet)",
                           line=f"{scope.prefix}.storage_power")
    nodes, rack_peak, optics_per_node = _racks(s, i, fabric, node, node_peak, component, storage)
    _node_feeds(s, i, node)
    it, gpu_board = _it_load(s, i, fabric, node, component, nodes, storage, optics_per_node)
    _facility_and_feed(s, i, it, gpu_board, nodes, node, node_peak)
    s.check("rack_within_limit", "A full rack's synchronised peak stays within the rack power limit",
            rack_peak <= i.rack_power_limit)
    s.check("whole_nodes", "The GPU count fills whole nodes", nodes * i.gpus_per_node <= i.gpus)
    return scope.outputs(PowerOut, gpus=i.gpus, storage_power=storage, management_power=i.management_power)


def _node(s: SheetBuilder, i: Inputs) -> tuple[Line, Line, Line]:
    """A node's design power: the vendor's maximum input where published, else the component sum."""
    s.section("Node (per server, at nameplate)")
    node_gpu = s.calc("node_gpu_power", "GPU board power per node", "kW", i.gpus_per_node * i.gpu_tdp)
    node_cpu = s.calc("node_cpu_power", "CPU power per node", "kW", i.cpus_per_node * i.cpu_tdp)
    node_nic = s.calc("node_nic_power", "NIC power per node", "kW", i.nics_per_node * i.nic_power)
    node_dc = s.calc(
        "node_dc_power", "Node DC load (all components)", "kW",
        node_gpu + node_cpu + node_nic + i.memory_power + i.baseboard_power + i.node_storage_power
        + i.fan_power,
        "GPUs + CPUs + NICs + memory + baseboard + local storage + fans")
    component = s.calc("node_component_power", "Node input power, component sum (at the wall)", "kW",
                       node_dc / i.psu_efficiency, "DC load / PSU efficiency: where the watts go")
    s.calc("node_psu_loss", "PSU conversion loss per node", "kW", component - node_dc)
    node = s.calc("node_power", "Node design input power", "kW", max_(component, i.node_max_input),
                  "MAX(component sum, vendor's maximum input): electrical design uses the vendor's figure")
    s.calc("node_unexplained_power", "Vendor maximum above the component sum", "kW", node - component,
           "cross-check: the allowance the component breakdown does not explain (0: no published maximum, "
           "or the components reach it)")
    s.calc("node_max_below_components", "Warning: the maximum input given is below the component sum",
           "TRUE/FALSE", all_(i.node_max_input > 0, i.node_max_input < component),
           "a warning, not a check (the build prints it): a vendor's maximum covers every part at full power, so "
           "a sum above it means a component value (CPU, fans, baseboard...) or the maximum is wrong; the design "
           "then uses the sum, the safer of the two, and the master check stays as it is", fmt=BOOL)
    excursion = s.calc("node_gpu_excursion", "GPU synchronised excursion per node (at the wall)", "kW",
                       node_gpu * (i.sync_peak_factor - 1) / i.psu_efficiency,
                       "GPU board power x (peak factor - 1) / PSU efficiency")
    node_peak = s.calc(
        "node_peak_power", "Node synchronised peak input", "kW", max_(component + excursion, i.node_max_input),
        "MAX(component sum + GPU excursion, vendor maximum): the vendor's maximum covers the GPUs' steps")
    return node, node_peak, component


def _racks(s: SheetBuilder, i: Inputs, fabric: FabricOut, node: Line, node_peak: Line, component: Line,
           storage_power: Line) -> tuple[Line, Line, Line]:
    """Compute racks by space and by the synchronised peak (with the node-side transceivers a node's design power
    does not hold); network, storage and management racks too."""
    s.section("Racks")
    nodes = s.calc("nodes", "Nodes", "nodes", ceil(i.gpus / i.gpus_per_node), "whole nodes to hold every GPU",
                   fmt=COUNT)
    optics = s.calc(
        "node_optics_added_per_node", "Node-side transceivers per node that its design power does not hold", "kW",
        max_(0, fabric.node_optics_power / i.psu_efficiency / max_(nodes, 1) - (node - component)),
        "MAX(0, Fabric's node-side transceivers / PSU efficiency / nodes - (design power - component sum)): a "
        "vendor's maximum input holds them where it covers them (DGX H100: 10.2 kW over a 9.46 kW component sum); "
        "an HGX node at its component sum draws them on top, in its rack too")
    per_rack = s.calc(
        "nodes_per_rack", "Nodes per rack", "nodes/rack",
        max_(1, min_(floor(i.rack_units / i.node_height), floor(i.rack_power_limit / (node_peak + optics)))),
        "the fewer of what fits by space and by the rack power limit at the synchronised peak with its "
        "transceivers (at least 1; the rack check flags a node too big for the limit)", fmt=COUNT)
    racks = s.calc("racks", "Compute racks", "racks", ceil(nodes / per_rack), fmt=COUNT)
    s.calc("rack_power", "Design power of a full compute rack", "kW", per_rack * (node + optics),
           "nodes per rack x (node design power + its transceivers not held)")
    rack_peak = s.calc("rack_peak_power", "Synchronised peak of a full compute rack", "kW",
                       per_rack * (node_peak + optics),
                       "nodes per rack x (node synchronised peak + its transceivers not held): sizes the PDUs")
    network = s.calc("network_racks", "Network racks", "racks",
                     ceil(fabric.switches_total / i.switches_per_network_rack),
                     "ROUNDUP(compute, storage and in-band switches / switches per network rack); out-of-band "
                     "switches sit in the racks they serve", fmt=COUNT)
    network_power = s.calc(
        "network_rack_power", "Power per network rack (average)", "kW",
        (fabric.switches_power + fabric.switch_optics_power) / max_(network, 1),
        "(switch power + switch-side transceiver power) / network racks; node-side transceivers are in the nodes")
    storage = s.calc("storage_racks", "Storage racks", "racks", ceil(storage_power / i.support_rack_power),
                     "ROUNDUP(storage power / power per storage or management rack)", fmt=COUNT)
    mgmt = s.calc("management_racks", "Management racks", "racks",
                  ceil(i.management_power / i.support_rack_power),
                  "ROUNDUP(management power / power per storage or management rack)", fmt=COUNT)
    support = s.calc("support_racks", "Network, storage and management racks", "racks", network + storage + mgmt,
                     fmt=COUNT)
    total = s.calc("racks_total", "Racks in all", "racks", racks + support, "compute + network + storage + "
                   "management", fmt=COUNT)
    positions = s.calc("rack_positions", "Rack positions in the hall", "racks", i.hall_rows * i.racks_per_row,
                       "rows x positions per row", fmt=COUNT)
    s.check("racks_fit_hall", "Every rack has a position in the hall", total <= positions)
    s.check("network_racks_within_limit", "A network rack stays within the rack power limit",
            network_power <= i.rack_power_limit)
    _rack_electrical(s, i, racks, rack_peak, support, max_(network_power, i.support_rack_power))
    return nodes, rack_peak, optics


def _rack_electrical(s: SheetBuilder, i: Inputs, racks: Line, rack_peak: Line, support: Line,
                     support_power: Any) -> None:
    """A and B feeds each carry the whole rack at its synchronised peak, within the continuous-load rule."""
    s.section("Rack electrical (A and B feeds, each able to carry the whole rack)")
    three = i.choice("rack_supply") == "three-phase"
    phase = s.calc("phase_factor", "Phase factor (3^0.5 three-phase, 1 single-phase)", "ratio",
                   Const(3.0) ** 0.5 if three else Const(1.0),
                   "P = 3^0.5 x V(line-line) x I x PF for three-phase; P = V x I x PF for single-phase")
    per_amp = s.calc("power_per_amp", "Real power per ampere per phase", "kW/A",
                     phase * i.rack_voltage * i.power_factor, "phase factor x voltage x power factor")
    pdu = s.calc("pdu_capacity", "PDU continuous capacity", "kW",
                 per_amp * i.pdu_breaker * i.continuous_load_share,
                 "power per ampere x breaker rating x continuous-load share (80%: NEC 210.20(A))")
    per_feed = s.calc("pdus_per_feed", "PDUs per feed for a compute rack", "PDUs",
                      ceil(rack_peak / pdu), "ROUNDUP(rack synchronised peak / PDU continuous capacity)",
                      fmt=COUNT)
    per_rack = s.calc("pdus_per_rack", "PDUs per compute rack (A + B)", "PDUs/rack", 2 * per_feed,
                      "2 x PDUs per feed: either feed alone carries the rack", fmt=COUNT)
    s.calc("rack_feed_current", "Current per phase per PDU, one feed carrying the rack peak", "A",
           rack_peak / (per_amp * per_feed), "rack peak / (power per ampere x PDUs per feed)")
    s.calc("breaker_continuous_current", "Continuous current a breaker allows", "A",
           i.pdu_breaker * i.continuous_load_share, "breaker rating x continuous-load share")
    support_pdus = s.calc(
        "support_rack_pdus", "PDUs per network, storage or management rack (A + B)", "PDUs/rack",
        2 * ceil(support_power / pdu),
        "2 x ROUNDUP(the larger of a network rack's power and a storage or management rack's power / PDU "
        "continuous capacity)", fmt=COUNT)
    s.calc("pdus", "Rack PDUs in all", "PDUs", racks * per_rack + support * support_pdus,
           "compute racks x PDUs per compute rack + support racks x PDUs per support rack", fmt=COUNT)
    s.check("pdus_fit_rack", "A compute rack holds its PDUs", per_rack <= i.max_pdus_per_rack)


def _node_feeds(s: SheetBuilder, i: Inputs, node: Line) -> None:
    """A node's power supplies are split over the rack's A and B feeds: the loss of a feed takes half of them,
    so one feed alone may deliver less than the node's design power (a DGX B200: 3 of its 6 x 3.3 kW)."""
    s.section("Node power supplies on the A and B feeds")
    dc = s.calc("node_design_dc", "DC power a node draws at its design input", "kW", node * i.psu_efficiency,
                "node design input power x PSU efficiency (PSU ratings are DC output)")
    s.calc("node_psus_redundant", "Redundant power supplies per node (the k of N+k)", "PSUs",
           i.psus_per_node - i.psus_needed, "PSUs per node - PSUs needed", fmt=COUNT)
    per_feed = s.calc("node_psus_per_feed", "Power supplies on each feed", "PSUs", floor(i.psus_per_node / 2),
                      "ROUNDDOWN(PSUs per node / 2): half on the A feed, half on the B feed", fmt=COUNT)
    one = s.calc("node_one_feed_power", "DC power one feed's power supplies deliver at their rating", "kW",
                 per_feed * i.psu_rating, "PSUs on a feed x rating")
    rated = s.calc("node_one_feed_share_rated", "Share of a node's design power one feed's supplies are rated for",
                   "%", one / dc, "one feed's PSUs x rating / design DC power", fmt=PERCENT)
    of_n = s.calc("node_one_feed_share_of_n", "One feed's supplies as a share of the N the node needs", "%",
                  per_feed / i.psus_needed, "PSUs on a feed / PSUs needed (N): the vendor's N carries the design "
                  "power, so a supply carries 1/N of it whatever its label (a DGX H100's 3 of 4+2: 75%, though "
                  "3 x 3.3 kW is 103% of its 9.588 kW)", fmt=PERCENT)
    share = s.calc("node_one_feed_share", "Share of a node's design power one feed carries", "%",
                   min_(rated, of_n), "MIN(by rating, by the vendor's N): below 100%, fewer supplies than N or "
                   "than the power, the node throttles on the loss of a feed", fmt=PERCENT)
    s.check("psus_carry_node", "A node's N power supplies carry its design power",
            i.psus_needed * i.psu_rating >= dc, "PSUs needed x rating >= design DC power")
    s.check("one_feed_carries_node", "On the loss of a feed, a node keeps the share of its design power the site "
            "requires", share >= i.feed_loss_share,
            "one feed's share >= the least share required (FALSE: the job throttles below it on a feed loss)")


def _it_load(s: SheetBuilder, i: Inputs, fabric: FabricOut, node: Line, component: Line, nodes: Line,
             storage: Line, optics_per_node: Line) -> tuple[Line, Line]:
    s.section("IT load")
    gpu_board = s.calc("gpu_board_power", "GPU board power, all GPUs", "kW", i.gpus * i.gpu_tdp)
    compute = s.calc("compute_power", "Compute nodes", "kW", nodes * node, "nodes x node design power")
    network = s.calc("network_power", "Network switch power (compute, storage and in-band networks)", "kW",
                     fabric.switches_power, "from the Fabric sheet: switches x power each")
    node_optics = s.calc("node_optics_wall_power", "Node-side transceivers at the nodes' wall", "kW",
                         fabric.node_optics_power / i.psu_efficiency,
                         "Fabric's node-side transceiver power / PSU efficiency: they draw the node's power")
    added_optics = s.calc(
        "node_optics_added_power", "Node-side transceivers the node design power does not hold", "kW",
        nodes * optics_per_node, "nodes x a node's transceivers not held by its design power (Racks, above)")
    optics = s.calc("optics_power", "Optical transceiver power (switch side, and node side not in the nodes)", "kW",
                    fabric.switch_optics_power + added_optics,
                    "Fabric's switch-side transceivers (in the network racks) + node-side ones the node design "
                    "power does not hold; each watt once")
    it = s.calc(
        "it_load", "IT load", "kW",
        compute + network + optics + storage + i.management_power,
        "compute + network switches + optics + storage + management")
    s.calc("it_energy_load", "IT load at the component sum (the energy bill's basis)", "kW",
           it - nodes * (node - component) + (node_optics - added_optics),
           "IT load with each node at its component sum, not the vendor's maximum, plus the node-side transceivers "
           "that maximum held: what the TCO bills")
    return it, gpu_board


def _facility_and_feed(s: SheetBuilder, i: Inputs, it: Line, gpu_board: Line, nodes: Line, node: Line,
                       node_peak: Line) -> None:
    """Feed at the design-day PUE; energy at the annual average PUE; transformers in MVA."""
    s.section("Facility")
    if i.choice("facility_model") == "pue":
        facility = s.calc("facility_power", "Facility power (design day)", "kW", it * i.pue,
                          "IT load x design-day PUE")
        pue = i.pue
    else:
        cooling = s.calc("cooling_power", "Cooling power", "kW", it * i.cooling_overhead)
        facility = s.calc(
            "facility_power", "Facility power (design day)", "kW",
            (it + cooling + i.other_facility_power) / (1 - i.distribution_loss),
            "(IT + cooling + other) / (1 - distribution loss)")
        s.calc("distribution_loss_power", "Distribution losses", "kW", facility * i.distribution_loss)
        pue = s.calc("pue_effective", "Design-day PUE (effective)", "ratio", facility / it)
    s.calc("facility_overhead", "Facility overhead (cooling, distribution, other)", "kW", facility - it)
    s.calc("pue_energy", "PUE for the energy bill (annual average)", "ratio",
           i.pue_annual if i.has("pue_annual") else pue,
           "the annual average PUE input" if i.has("pue_annual") else
           "no annual average given: the design-day PUE (conservative)")

    s.section("Utility feed and transformers")
    peak_it = s.calc(
        "peak_it_load", "Peak IT load (synchronised GPU steps)", "kW", it + nodes * (node_peak - node),
        "IT load + nodes x (node peak - node design power): the vendor's maximum already covers the steps")
    critical = s.calc(
        "critical_it_capacity", "Contracted critical IT capacity", "kW", peak_it * (1 + i.feed_headroom),
        "peak IT load plus headroom: the IT capacity a colocation contract reserves and prices per kW-month")
    s.calc("peak_facility_power", "Peak facility power", "kW", peak_it * pue,
           "peak IT load x design-day PUE (overhead scales with the load it serves)")
    feed = s.calc("contracted_feed", "Contracted utility feed", "MW", critical * pue,
                  "critical IT capacity x design-day PUE: peak facility power plus headroom")
    feed_va = s.calc("contracted_feed_apparent", "Contracted feed, apparent power", "MVA", feed / i.power_factor,
                     "feed / power factor: transformers are rated in MVA")
    supply_blocks(s, "feed", ("installed_supply", "Installed transformer capacity"), "Transformer", feed_va,
            (i.feed_block_size, i.feed_redundancy_multiplier, i.feed_redundancy_spares))

    s.section("Key figures")
    s.calc("gpu_share", "GPU board power as a share of facility power", "%",
           gpu_board / facility, fmt=PERCENT)
    s.calc("gpus_per_mw", "GPUs per MW of contracted feed", "GPU/MW", i.gpus / feed, fmt=COUNT)
    s.calc("it_share", "IT load as a share of facility power", "%", it / facility, fmt=PERCENT)
    s.check("feed_within_site", "Contracted feed fits the site's available power",
            feed <= i.site_available_power)


def supply_blocks(s: SheetBuilder, key: str, capacity: tuple[str, str], name: str, apparent: Line,
            block: tuple[Line, Line, Line]) -> None:
    """Supply blocks (transformers, UPS) are rated in apparent power: N to carry the load, then the redundancy
    scheme's multiple of N and spares. `block` is (rating, multiple of N, spares)."""
    size, multiple, spares = block
    n = s.calc(f"{key}_blocks_n", f"{name} blocks to carry the load (N)", "blocks", ceil(apparent / size),
               f"ROUNDUP(apparent power / {name} block rating)", fmt=COUNT)
    installed = s.calc(f"{key}_blocks", f"{name} blocks installed (with redundancy)", "blocks",
                       n * multiple + spares, "N x multiple of N + spares", fmt=COUNT)
    s.calc(*capacity, size.unit_text, installed * size)
