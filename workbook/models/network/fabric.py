"""Fabric: the cluster's networks, sized by one set of tier rules (workbook.models.network.tiers): the compute fabric (a
rail-optimised fat tree), the storage network (workbook.models.network.storage), the in-band management and
front-end Ethernet (workbook.models.network.inband) and, at the end of the sheet, the out-of-band network
(workbook.models.network.oob); switch, link and transceiver counts and their power, which feed the power chain.

The compute fabric's rules (each line's note repeats the one it uses):
- Hosts, not nodes, are the fabric's endpoints: a rack-scale node (GB200 NVL72: one 72-GPU NVLink domain) is
  18 compute trays, each a host with its own NICs. Rails = GPUs per host x NICs per GPU; NIC i of every host
  goes to rail i and a leaf serves one rail, so a rail's endpoints are the hosts ("flat" wiring fills leaves
  in any order instead, as the storage network does).
- Leaves, spines and cores as workbook.models.network.tiers sizes them: two tiers with the fewest spines that take the
  same links from every leaf (the DGX SuperPOD B200 counts: 8 leaves -> 4 spines, 16 -> 8, 24 -> 16, 32 -> 16,
  64 -> 32; 20 GB200 leaves -> 16 spines of 2 links), three tiers in spine groups whose spines uplink only for
  their populated ports.
- Transceivers: one per host-side cage of `links per host-side transceiver` NICs, one per switch cage of
  `breakout` ports.
- Reach: each tier's longest cable run comes from the hall layout (rows, rack positions, widths, the network
  racks' location, slack); a tier within the catalog optic's reach (multimode, 50 m for MMA4Z00-NS) uses it,
  a longer one single-mode (MMS4X00-NS, 500 m), for the compute and the storage network alike (the in-band
  network against its own optic's reach).

Power, each watt once: the switches and their switch-side transceivers sit in the network racks (the power
chain's network and optics lines); a node's transceivers draw the node's power (inside the vendor's maximum
input where it holds them: the power chain adds only what the node's design power does not); a storage
system's or server's inside the storage and management power.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.book.sheets import FABRIC as TITLE
from workbook.formula.functions import added, ceil, max_, min_, where
from workbook.formula.line import COUNT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.network import inband
from workbook.models.network import storage as storage_network
from workbook.models.network.servers import Servers
from workbook.models.network.tiers import (
    Counts,
    Layout,
    Net,
    Ports,
    Tiers,
    at_power,
    candidates,
    down_ports,
    search_size,
    tiers,
    uplink_transceivers,
)
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "fabric"
SIZED, GIVEN = ("reliability.storage_sizing", "sized"), ("reliability.storage_sizing", "given")

_PORTS = dict(expect="a count of ports", lo=0, integer=True, fmt=COUNT)
_RADIX = dict(expect="a count of switch ports (a positive even number)", example="64", lo=0, lo_open=True,
              integer=True, even=True, fmt=COUNT)
_W = dict(expect="a power", example="15 W", lo=0.0, fmt="#,##0.0")  # a copper cable draws 0.1 W
_RATIO = dict(expect="a ratio of ports down to ports up", example="1", lo=1.0, hi=16.0)
_M = dict(expect="a length", example="50 m", lo=0.0, lo_open=True)
_RATE = dict(expect="a data rate", example="400 Gbit/s", lo=0.0, lo_open=True, fmt=COUNT)

INPUTS = with_limits([
    Spec("fabric.wiring", "Compute fabric wiring", "", "a wiring", "rail-optimised",
         choices=("rail-optimised", "flat")),
    # compute fabric: node side (catalog `node`)
    Spec("fabric.nics_per_gpu", "Compute NICs per GPU (rails per GPU)", "count", "a count of NICs", "1", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.nic_speed", "Compute NIC link speed", "Gbit/s", **_RATE),
    Spec("fabric.links_per_node_optic", "Compute links per host-side transceiver", "count", "a count of links",
         "2", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.node_optic_power", "Power per host-side transceiver (multimode)", "W", **_W),
    # compute fabric: switches (catalog `switch`) and their transceivers (catalog `optic`)
    Spec("fabric.switch_radix", "Switch radix (ports at the port speed)", "count", **_RADIX),
    Spec("fabric.switch_port_speed", "Switch port speed", "Gbit/s", **_RATE),
    Spec("fabric.switch_breakout", "Switch ports per cage (one transceiver per cage)", "count",
         "a count of ports", "2", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.switch_power", "Power per switch (without transceivers)", "W", **{**_W, "example": "747 W"}),
    Spec("fabric.switch_optic_power", "Power per switch-side transceiver (multimode, catalog optic)", "W", **_W),
    Spec("fabric.optic_reach", "Reach of the catalog optic (multimode)", "m", **_M),
    Spec("fabric.optic_single_mode", "The catalog optic is single-mode (1) or multimode (0)", "flag", "a flag",
         "0", lo=0, hi=1, integer=True, fmt=COUNT),
    Spec("fabric.single_mode_reach", "Reach of the single-mode transceiver for longer runs", "m",
         **{**_M, "example": "500 m"}),
    Spec("fabric.single_mode_optic_power", "Power per single-mode transceiver", "W", **{**_W, "example": "17 W"}),
    Spec("fabric.leaf_oversubscription", "Leaf oversubscription (ports down per port up)", "ratio", **_RATIO),
    Spec("fabric.spine_oversubscription", "Spine oversubscription with three tiers (down per up)", "ratio",
         **_RATIO),
    # storage network (ports per node: catalog `node`; switch: catalog `storage_switch`)
    Spec("fabric.storage_ports_per_node", "Storage network ports per node", "count", example="2", **_PORTS),
    Spec("fabric.storage_system_ports", "Storage system and server ports on the storage network (as given)",
         "count", example="40", when=GIVEN, **_PORTS),
    Spec("fabric.head_node_storage_ports", "Storage network ports per head or management node", "count",
         example="2", when=SIZED, **_PORTS),
    Spec("fabric.storage_switch_radix", "Storage switch radix", "count", **_RADIX),
    Spec("fabric.storage_port_speed", "Storage network port speed", "Gbit/s", **_RATE),
    Spec("fabric.storage_switch_power", "Power per storage switch (without transceivers)", "W",
         **{**_W, "example": "747 W"}),
    Spec("fabric.storage_switch_breakout", "Storage switch ports per cage (one transceiver per cage)", "count",
         "a count of ports", "2", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.storage_optic_power", "Power per storage endpoint-side transceiver (single-port, multimode)", "W",
         **{**_W, "example": "9 W"}),
    Spec("fabric.storage_switch_optic_power", "Power per storage switch-side transceiver (multimode)", "W",
         **{**_W, "example": "15 W"}),
    Spec("fabric.storage_oversubscription", "Storage leaf oversubscription (down per up; absent: derived from the "
         "nodes' storage bandwidth)", "ratio", optional=True, **_RATIO),
    # in-band management and front-end network (node ports: catalog `node`; switch and optics: `inband_switch`)
    Spec("fabric.inband_ports_per_node", "In-band (front-end Ethernet) ports per node", "count", example="2",
         **_PORTS),
    Spec("fabric.server_inband_ports", "In-band ports per head node or fabric manager", "count", example="2",
         when=SIZED, **_PORTS),
    Spec("fabric.inband_system_ports", "Server and storage front-end ports on the in-band network (as given)",
         "count", example="16", when=GIVEN, **_PORTS),
    Spec("fabric.inband_site_uplinks", "In-band uplinks to the site's network", "count", example="4", **_PORTS),
    Spec("fabric.inband_switch_radix", "In-band switch radix", "count", **_RADIX),
    Spec("fabric.inband_switch_breakout", "In-band switch ports per cage (one transceiver per cage)", "count",
         "a count of ports", "1", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.inband_switch_power", "Power per in-band switch (without transceivers)", "W",
         **{**_W, "example": "500 W"}),
    Spec("fabric.inband_optic_power", "Power per in-band transceiver (multimode, either end)", "W",
         **{**_W, "example": "3.5 W"}),
    Spec("fabric.inband_optic_reach", "Reach of the in-band multimode transceiver", "m", **{**_M, "example": "100 m"}),
    Spec("fabric.inband_single_mode_optic_power", "Power per in-band single-mode transceiver", "W",
         **{**_W, "example": "4.5 W"}),
    Spec("fabric.inband_oversubscription", "In-band leaf oversubscription (down per up)", "ratio", **_RATIO),
    Spec("fabric.inband_peer_links", "Peer links between the two leaves of an in-band pair", "count", example="2",
         **_PORTS),
    # out-of-band management network (BMC ports: catalog `node`; switch: catalog `oob_switch`)
    Spec("fabric.oob_ports_per_node", "Out-of-band (BMC) ports per node", "count", example="1", **_PORTS),
    Spec("fabric.oob_other_endpoints", "Other out-of-band endpoints (servers, storage, network racks)", "count",
         example="40", **_PORTS),
    Spec("fabric.oob_switch_ports", "Ports per out-of-band switch", "count", "a count of ports", "48", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.oob_switch_power", "Power per out-of-band switch", "W", **{**_W, "example": "150 W"}),
    Spec("fabric.oob_uplinks_per_switch", "Uplinks per out-of-band switch to its aggregation pair", "count",
         "a count of links, at least 1", "2", lo=1, integer=True, fmt=COUNT),
    Spec("fabric.oob_uplink_ports", "Uplink ports per out-of-band switch (beside its endpoint ports)", "count",
         "a count of ports, at least 1", "4", lo=1, integer=True, fmt=COUNT),
])


def _compute_ports(s: SheetBuilder, i: Inputs) -> Ports:
    """The compute switch's radix split into leaf and spine ports down and up by the oversubscription."""
    k = i.switch_radix
    s.section("Compute fabric: switch ports and size limits for this radix")
    down = s.calc("leaf_down_ports", "Leaf ports down (to hosts)", "count", down_ports(k, i.leaf_oversubscription),
                  "ROUNDDOWN(radix x ratio / (1 + ratio)): half the radix at 1:1", fmt=COUNT)
    up = s.calc("leaf_up_ports", "Leaf ports up (to spines)", "count", k - down, "radix - ports down", fmt=COUNT)
    s.calc("leaf_ratio_built", "Leaf ports down per port up, as built", "ratio", down / up,
           "the oversubscription the whole ports give")
    spine_down = s.calc("spine_down_ports", "Spine ports down with three tiers (to leaves)", "count",
                        down_ports(k, i.spine_oversubscription),
                        "ROUNDDOWN(radix x ratio / (1 + ratio)); with two tiers every spine port is down",
                        fmt=COUNT)
    spine_up = s.calc("spine_up_ports", "Spine ports up with three tiers (to cores)", "count", k - spine_down,
                      "radix - ports down", fmt=COUNT)
    s.calc("max_two_tier_endpoints", "Largest two-tier fabric (k^2/2 when non-blocking)", "count", k * down,
           "radix leaves (one spine port each) x leaf ports down", fmt=COUNT)
    s.calc("max_three_tier_endpoints", "Largest three-tier fabric (k^3/4 when non-blocking)", "count",
           k * spine_down * down, "radix spine groups x spine ports down (leaves per group) x leaf ports down",
           fmt=COUNT)
    return Ports(k, down, up, i.leaf_oversubscription, spine_down, spine_up, i.spine_oversubscription)


def _runs(s: SheetBuilder, p: Inputs) -> tuple[Line, Line, Line]:
    """The longest cable run of each tier from the hall's layout (the power chain's inputs `p`), which decides
    multimode or single-mode."""
    s.section(f"Cable runs (network racks: {p.choice('network_location')}; the longest run of each tier) and optics: "
              "multimode within its reach, single-mode beyond")
    row = s.calc("row_length", "Row length", "m", p.racks_per_row * p.rack_width, "rack positions x rack width")
    depth = s.calc("hall_depth", "Hall depth across the rows", "m", p.hall_rows * p.row_pitch, "rows x row pitch")
    if p.choice("network_location") == "centre":
        node_leaf = s.calc("node_leaf_run", "Longest node-leaf run", "m", depth / 2 + row / 2 + p.cable_slack,
                           "leaves in a network row across the middle of the hall: from a far corner across half "
                           "the rows and along half a row to the row's middle, + slack")
        leaf_spine = s.calc("leaf_spine_run", "Longest leaf-spine run", "m", row + p.cable_slack,
                            "leaves and spines share the middle network row: at most its length, + slack")
        spine_core = s.calc("spine_core_run", "Longest spine-core run", "m", row + p.cable_slack,
                            "spines and cores share the middle network row: at most its length, + slack")
    else:
        node_leaf = s.calc("node_leaf_run", "Longest node-leaf run", "m", row + p.cable_slack,
                           "leaves at each row's end: at most a row's length, + slack")
        leaf_spine = s.calc("leaf_spine_run", "Longest leaf-spine run", "m", depth + p.cable_slack,
                            "spines at one end of the hall: from the farthest row's end across the rows, + slack")
        spine_core = s.calc("spine_core_run", "Longest spine-core run", "m", depth + p.cable_slack,
                            "spines and cores along the same hall end: at most its width across the rows, + slack")
    return node_leaf, leaf_spine, spine_core


def _single_mode_flags(s: SheetBuilder, i: Inputs, runs: tuple[Line, Line, Line]) -> tuple[list[Line], list[Line]]:
    """Per tier 1 when its longest run is beyond the catalog optic's (multimode) reach, so it needs single-mode (the
    storage network's tiers); the compute tiers' also 1 where the catalog optic is itself single-mode."""
    flags = [s.calc(f"{tier}_single_mode", f"{label} tier needs single-mode (1 = yes)", "flag",
                    where(run > i.optic_reach, 1, 0), "longest run > the catalog optic's reach", fmt=COUNT)
             for tier, label, run in zip(("node_leaf", "leaf_spine", "spine_core"),
                                         ("Node-leaf", "Leaf-spine", "Spine-core"), runs, strict=True)]
    compute = [s.calc(f"compute_{tier}_single_mode", f"Compute {label.lower()} tier single-mode (1 = yes)", "flag",
                      max_(flag_, i.optic_single_mode), "MAX(the tier's run beyond the catalog optic's reach, the "
                      "catalog optic single-mode): a single-mode switch-side optic makes both ends and the fibre "
                      "single-mode, labelled and priced so", fmt=COUNT)
               for tier, label, flag_ in zip(("node_leaf", "leaf_spine", "spine_core"),
                                             ("Node-leaf", "Leaf-spine", "Spine-core"), flags, strict=True)]
    longest = s.calc("longest_run", "Longest cable run", "m", max_(*runs), "the longest of the three tiers' runs")
    s.check("runs_within_single_mode_reach", "The longest cable run is within the single-mode optic's reach",
            longest <= i.single_mode_reach, "longest run <= single-mode reach")
    return flags, compute


@dataclass(frozen=True)
class FabricOut:
    """The fabric's lines that the power chain, the bill of materials, the reliability model and the Summary use."""

    tiers: Line
    nodes: Line
    switches: Line
    storage_switches: Line
    inband_switches: Line
    switches_total: Line
    transceivers_total: Line
    multimode_transceivers_total: Line
    single_mode_transceivers_total: Line
    cables_total: Line
    switches_power: Line
    node_optics_power: Line  # inside the nodes' power (the power chain adds what the node's figure does not hold)
    server_optics_power: Line  # inside the storage and management power (shown, not added)
    switch_optics_power: Line  # in the network racks
    optics_power: Line
    power: Line
    # what the bill of materials counts, by network, tier and end (its own rows, priced by type)
    leaves: Line
    spines: Line
    cores: Line
    storage_leaves: Line
    storage_spines: Line
    storage_cores: Line
    inband_leaves: Line
    inband_spines: Line
    inband_cores: Line
    node_leaf_links: Line
    leaf_spine_links: Line
    spine_core_links: Line
    storage_endpoints: Line
    storage_leaf_spine_links: Line
    storage_spine_core_links: Line
    inband_endpoints: Line
    inband_node_ports: Line
    inband_server_ports: Line
    inband_leaf_spine_links: Line
    inband_spine_core_links: Line
    inband_peer_cables: Line
    node_transceivers: Line
    node_leaf_switch_transceivers: Line
    leaf_spine_transceivers: Line
    spine_core_transceivers: Line
    storage_leaf_transceivers: Line
    storage_leaf_spine_transceivers: Line
    storage_spine_core_transceivers: Line
    inband_leaf_transceivers: Line
    inband_leaf_spine_transceivers: Line
    inband_spine_core_transceivers: Line
    node_leaf_single_mode: Line  # by the runs (the storage network's tiers)
    leaf_spine_single_mode: Line
    spine_core_single_mode: Line
    compute_node_leaf_single_mode: Line  # the compute tiers': by the runs, or the catalog optic single-mode
    compute_leaf_spine_single_mode: Line
    compute_spine_core_single_mode: Line
    inband_node_leaf_single_mode: Line
    inband_leaf_spine_single_mode: Line
    inband_spine_core_single_mode: Line
    node_leaf_run: Line
    leaf_spine_run: Line
    spine_core_run: Line
    # the hall the runs cross (the BOM's length classes spread the runs over it) and the fabric's hosts
    row_length: Line
    hall_depth: Line
    hosts: Line
    leaf_nodes: Line  # the nodes a leaf switch's hosts sit in (the reliability model's failure domains)
    leaf_hosts: Line  # the hosts a leaf switch's failure takes out of a job
    leaf_gpus: Line  # their GPUs
    storage_leaf_down_ports: Line  # what a storage or an in-band leaf switch serves (the spares' switch pools)
    inband_leaf_down_ports: Line


def define(scope: Scope, i: Inputs, p: Inputs, servers: Servers | None = None) -> FabricOut:
    """The compute fabric, the storage and in-band networks, their cable runs, optics and power (which the power
    chain uses). `p` is the power chain's inputs: the GPUs, how nodes hold them, and the hall's layout; `servers`
    what the site's own fleet knows of its storage and servers (None for an upgrade's next fleet)."""
    s = scope.sheet(TITLE)
    nodes = s.calc("nodes", "Nodes", "nodes", ceil(p.gpus / p.gpus_per_node),
                   "ROUNDUP(GPUs / GPUs per node), as the power chain counts them", fmt=COUNT)
    rails, hosts, endpoints = _endpoints(s, i, p)
    ports = _compute_ports(s, i)
    radixes = [float(x.value.reshape(-1)[0]) for x in (i.switch_radix, i.storage_switch_radix, i.inband_switch_radix)]
    rail = i.choice("wiring") == "rail-optimised"
    s.section("Compute fabric: tiers and switches (leaves filled in order; uplinks only for populated ports; the "
              "two-tier spine count search's candidates d, shared by every network)")
    search = candidates(s, search_size(radixes))
    if rail:
        s.calc("leaves_per_rail", "Leaf switches per rail", "switches", ceil(hosts / ports.down),
               "ROUNDUP(hosts / leaf ports down)", fmt=COUNT)
    fits, alone = endpoints <= ports.radix, ceil(endpoints / ports.radix)
    layout = Layout(endpoints, rails, hosts, fits, alone) if rail else Layout(endpoints, None, endpoints, fits, alone)
    net = tiers(Net(s, "", ""), ports, layout, search)
    switches = s.calc("switches", "Compute fabric switches", "switches", net.leaves + net.spines + net.cores,
                      "leaves + spines + cores", fmt=COUNT)
    served = min_(ports.down, hosts) if rail else min_(ports.down, endpoints) / rails
    leaf_hosts = s.calc("leaf_hosts", "Hosts a leaf switch serves (its failure takes them out of a job)", "hosts",
                        ceil(served), "a rail's leaf serves up to its ports down of hosts, one NIC each" if rail else
                        "ROUNDUP(endpoints on a leaf / rails): a host's NICs share a leaf", fmt=COUNT)
    s.calc("leaf_gpus", "GPUs on the hosts a leaf switch serves", "GPUs",
           leaf_hosts * ceil(p.gpus_per_node / p.hosts_per_node), "hosts on a leaf x GPUs per host", fmt=COUNT)
    s.calc("leaf_nodes", "Nodes a leaf switch's hosts sit in, at most", "nodes",
           min_(nodes, ceil((leaf_hosts - 1) / p.hosts_per_node) + 1),
           "MIN(nodes, ROUNDUP((hosts on a leaf - 1) / hosts per node) + 1): a leaf's consecutive hosts span that "
           "many rack-scale nodes where they do not start at a node's first host (a GB200 leaf's 32 trays: 2 to 3 "
           "racks); a server's hosts are its nodes", fmt=COUNT)
    runs = _runs(s, p)
    flags, compute_flags = _single_mode_flags(s, i, runs)
    compute = _compute_links(s, i, net, switches, endpoints, hosts, rails, compute_flags)
    storage, _ = storage_network.define(s, i, nodes, flags, search, servers)
    in_band = inband.define(s, i, nodes, runs, search, servers)
    _totals(s, [compute, storage, in_band])
    s.check("holds_endpoints", "The compute fabric's tiers hold its endpoints (three tiers at most)",
            net.leaves <= ports.radix * ports.spine_down,
            "leaves <= radix x spine ports down, i.e. spine groups <= radix")
    s.check("nic_fits_port", "A compute NIC's link fits a switch port", i.nic_speed <= i.switch_port_speed)
    return scope.outputs(FabricOut)


def _endpoints(s: SheetBuilder, i: Inputs, p: Inputs) -> tuple[Line, Line, Line]:
    """The compute fabric's rails, hosts (endpoints per rail) and endpoints."""
    s.section("Compute fabric: endpoints (rail-optimised: NIC i of every host on rail i)")
    per_host = s.calc("gpus_per_host", "GPUs per fabric host", "GPUs", ceil(p.gpus_per_node / p.hosts_per_node),
                      "ROUNDUP(GPUs per node / hosts per node): a rack-scale node's NVLink domain is many hosts "
                      "(compute trays), each with its own NICs", fmt=COUNT)
    rails = s.calc("rails", "Rails (compute NICs per host)", "count", per_host * i.nics_per_gpu,
                   "GPUs per host x NICs per GPU", fmt=COUNT)
    endpoints = s.calc("endpoints", "Compute endpoints (NIC ports)", "count", p.gpus * i.nics_per_gpu,
                       "GPUs x NICs per GPU", fmt=COUNT)
    hosts = s.calc("hosts", "Fabric hosts (endpoints per rail)", "hosts", ceil(endpoints / rails),
                   "ROUNDUP(endpoints / rails): one endpoint per host on each rail", fmt=COUNT)
    s.calc("injection_bandwidth", "Injection bandwidth (all endpoints into the fabric)", "Tbit/s",
           endpoints * i.nic_speed, "endpoints x NIC speed")
    return rails, hosts, endpoints


def _compute_links(s: SheetBuilder, i: Inputs, net: Tiers, switches: Line, endpoints: Line, hosts: Line,
                   rails: Line, flags: list[Line]) -> Counts:
    """Compute fabric cables and transceivers: the host side one per `links per host-side transceiver` NICs of
    a host, the switch side one per cage of `breakout` ports."""
    s.section("Compute fabric: links, cables and transceivers")
    node_leaf = s.calc("node_leaf_links", "Host-leaf links (cables)", "links", endpoints, "one per endpoint",
                       fmt=COUNT)
    cables = s.calc("cables", "Compute fabric cables", "links", node_leaf + net.leaf_spine + net.spine_core,
                    "one cable per link", fmt=COUNT)
    node_x = s.calc("node_transceivers", "Host-side transceivers", "count",
                    hosts * ceil(rails / i.links_per_node_optic),
                    "hosts x ROUNDUP(rails / links per host-side transceiver)", fmt=COUNT)
    leaf_x = s.calc("node_leaf_switch_transceivers", "Switch-side transceivers on host-leaf links", "count",
                    ceil(node_leaf / i.switch_breakout), "one per cage of `breakout` ports", fmt=COUNT)
    leaf_spine_x, spine_core_x = uplink_transceivers(Net(s, "", ""), "Compute", net, i.switch_breakout)
    switch_x = s.calc("switch_transceivers", "Switch-side transceivers", "count",
                      leaf_x + leaf_spine_x + spine_core_x, fmt=COUNT)
    transceivers = s.calc("transceivers", "Compute fabric transceivers", "count", node_x + switch_x,
                          "host side + switch side", fmt=COUNT)
    single = s.calc("compute_single_mode_transceivers", "Compute single-mode transceivers", "count",
                    flags[0] * (node_x + leaf_x) + flags[1] * leaf_spine_x + flags[2] * spine_core_x,
                    "the transceivers of every tier whose run needs single-mode", fmt=COUNT)
    sm, sw = i.single_mode_optic_power, i.switch_optic_power
    node_w = s.calc("compute_node_optics_power", "Host-side transceiver power (in the nodes)", "kW",
                    at_power(node_x, flags[0], i.node_optic_power, sm),
                    "host-side transceivers x power each (single-mode beyond reach)")
    switch_w = s.calc("compute_switch_optics_power", "Compute switch-side transceiver power", "kW",
                      at_power(leaf_x, flags[0], sw, sm) + at_power(leaf_spine_x, flags[1], sw, sm)
                      + at_power(spine_core_x, flags[2], sw, sm),
                      "per tier: count x power each (single-mode beyond reach)")
    power = s.calc("compute_switches_power", "Compute fabric switch power", "kW", switches * i.switch_power,
                   "switches x power per switch")
    return Counts(switches, cables, transceivers, single, power, node_w, None, switch_w)


def _totals(s: SheetBuilder, nets: list[Counts]) -> None:
    """The networks together: the counts the bill of materials and the reliability model read, and the power the
    power chain adds, each watt in the one total that holds it."""
    s.section("Totals and power (compute, storage and in-band networks; feeding the power chain)")
    tally = [("switches_total", "Fabric switches (compute, storage, in-band)", "switches", "switches", ""),
             ("transceivers_total", "Transceivers (compute, storage, in-band)", "count", "transceivers", ""),
             ("single_mode_transceivers_total", "Single-mode transceivers (compute, storage, in-band)", "count",
              "single_mode", "-> BOM: single-mode transceiver rows"),
             ("cables_total", "Cables (compute, storage, in-band: fibre and peer-link copper)", "links", "cables", "")]
    lines = {key: s.calc(key, label, unit, added([getattr(n, field) for n in nets]), note, fmt=COUNT)
             for key, label, unit, field, note in tally}
    s.calc("multimode_transceivers_total", "Multimode transceivers (compute, storage, in-band)", "count",
           lines["transceivers_total"] - lines["single_mode_transceivers_total"], "all - single-mode", fmt=COUNT)
    sw = s.calc("switches_power", "Switch power (compute, storage, in-band)", "kW",
                added([n.switch_power for n in nets]), "-> power chain: network switch power; in the network racks")
    switch_w = s.calc("switch_optics_power", "Switch-side transceiver power (in the network racks)", "kW",
                      added([n.switch_optics for n in nets]), "-> power chain: optics power")
    node_w = s.calc("node_optics_power", "Node-side transceiver power (in the nodes)", "kW",
                    added([n.node_optics for n in nets]),
                    "host side + node storage and in-band ports; the power chain adds what the node's design "
                    "power does not hold")
    server_w = s.calc("server_optics_power", "Storage system and server transceiver power (in their own power)", "kW",
                      added([n.server_optics for n in nets if n.server_optics is not None]),
                      "inside the storage and management power (shown, not added again)")
    s.calc("optics_power", "Transceiver power, all (each in the one total above that holds it)", "kW",
           switch_w + node_w + server_w, "network racks + nodes + storage and servers")
    s.calc("power", "Network rack power (switches and switch-side transceivers)", "kW", sw + switch_w,
           "what the network racks draw; node-side transceivers are in the nodes' power")


def summarise(s: SheetBuilder, fabric: FabricOut, oob_switches: Line) -> None:
    s.section("Fabric")
    for line, label in ((fabric.tiers, "Compute fabric tiers"),
                        (fabric.switches, "Compute fabric switches (leaf + spine + core)"),
                        (fabric.storage_switches, "Storage network switches"),
                        (fabric.inband_switches, "In-band network switches"),
                        (oob_switches, "Out-of-band switches"),
                        (fabric.transceivers_total, "Transceivers (compute, storage, in-band)"),
                        (fabric.cables_total, "Cables (compute, storage, in-band)")):
        s.show(line, label=label)
    for line in (fabric.switches_power, fabric.switch_optics_power, fabric.power, fabric.node_optics_power):
        s.show(line)
