"""The storage network: the nodes' storage ports and the storage systems' (the appliances the Reliability sheet
sizes and the head nodes, or the ports the site gives), filled onto leaves in any order and sized by the
compute fabric's rules (workbook.models.network.tiers), with non-blocking spines.

Its leaves taper to the storage bandwidth the nodes need: the leaf ratio (ports down per port up) is a node's
storage port bandwidth over the larger of its write and read bandwidth to shared storage (Reliability inputs),
at least 1. A DGX H100's two 400 Gb/s ports against 40 GB/s (320 Gb/s) read: 2.5, so a 64-port leaf puts 45 ports
down and needs ROUNDUP(45 / 2.5) = 18 uplinks. A site that states `fabric.storage_oversubscription` keeps its own
ratio; a fleet without the Reliability inputs (an upgrade's next fleet) is non-blocking unless it states one.

Transceivers: one single-port module per endpoint port (a node's sit in the node and draw its power; a storage
system's or head node's in the storage or management power), one per cage of `breakout` ports at the switches.
"""

from __future__ import annotations

from typing import Any

from workbook.book.book import SheetBuilder
from workbook.formula.functions import any_, ceil, floor, max_
from workbook.formula.line import COUNT, Line
from workbook.models.base import Inputs
from workbook.models.network.servers import Servers
from workbook.models.network.tiers import Counts, Layout, Net, Ports, at_power, down_ports, tiers, uplink_transceivers


def _endpoints(s: SheetBuilder, i: Inputs, nodes: Line, servers: Servers | None) -> tuple[Line, Line, Line]:
    """Node ports, and the storage systems' and servers' ports: sized where the Reliability sheet sizes the
    storage, else as the site gives them."""
    s.section("Storage network: endpoints (nodes' storage ports, storage systems and head nodes)")
    node_ports = s.calc("storage_node_ports", "Storage network: node ports", "count",
                        nodes * i.storage_ports_per_node, "nodes x storage ports per node", fmt=COUNT)
    if servers is not None and servers.appliances is not None:
        server_ports = s.calc(
            "storage_server_ports", "Storage network: appliance and head node ports", "count",
            servers.appliances * servers.appliance_storage_ports + servers.management_nodes * i.head_node_storage_ports,
            "fast tier appliances (Reliability) x their storage ports + head and management nodes (BOM input) x "
            "storage ports each", fmt=COUNT)
    else:
        server_ports = s.calc("storage_server_ports", "Storage network: storage system and server ports (as given)",
                              "count", i.storage_system_ports,
                              "the site's figure: its storage is given (storage_sizing: given) or the fleet has no "
                              "Reliability sheet", fmt=COUNT)
    endpoints = s.calc("storage_endpoints", "Storage network endpoints", "count", node_ports + server_ports,
                       "node ports + storage system and server ports", fmt=COUNT)
    return node_ports, server_ports, endpoints


def _taper(s: SheetBuilder, i: Inputs, servers: Servers | None) -> Any:
    """The storage leaves' ratio: the site's, or derived from the bandwidth a node needs, or 1."""
    if i.has("storage_oversubscription"):
        return i.storage_oversubscription
    if servers is None:
        return s.calc("storage_leaf_ratio", "Storage leaf ratio used (ports down per port up)", "ratio", 1,
                      "non-blocking: this fleet has no Reliability inputs for the nodes' storage bandwidth (give "
                      "fabric.storage_oversubscription to taper)", fmt="0.00")
    bw = s.calc("storage_node_port_bandwidth", "Storage network: a node's port bandwidth", "Gbit/s",
                i.storage_ports_per_node * i.storage_port_speed, "storage ports per node x port speed", fmt=COUNT)
    need = s.calc("storage_node_need", "Storage network: the bandwidth a node needs from shared storage", "Gbit/s",
                  max_(servers.node_write_bandwidth, servers.node_read_bandwidth),
                  "MAX(write, read bandwidth per node) (Reliability inputs)", fmt=COUNT)
    s.check("storage_ports_carry_need", "A node's storage ports carry the bandwidth it needs from shared storage",
            any_(i.storage_ports_per_node.eq(0), bw >= need), "node port bandwidth >= MAX(write, read) per node")
    return s.calc("storage_leaf_ratio", "Storage leaf ratio used (ports down per port up), derived", "ratio",
                  max_(1, bw / need),
                  "MAX(1, a node's port bandwidth / the bandwidth it needs): no site ratio given", fmt="0.00")


def define(s: SheetBuilder, i: Inputs, nodes: Line, flags: list[Line], search: list[Line],
           servers: Servers | None) -> tuple[Counts, Line]:
    """The storage network's switches, links, transceivers and power; also its endpoints line."""
    ks = i.storage_switch_radix
    node_ports, server_ports, endpoints = _endpoints(s, i, nodes, servers)
    ratio = _taper(s, i, servers)
    s.section("Storage network: tiers (leaves filled in any order; up to three tiers, non-blocking spines)")
    down = s.calc("storage_leaf_down_ports", "Storage leaf ports down", "count", down_ports(ks, ratio),
                  "ROUNDDOWN(radix x ratio / (1 + ratio))", fmt=COUNT)
    up = s.calc("storage_leaf_up_ports", "Storage leaf ports up", "count", ks - down, "radix - ports down", fmt=COUNT)
    spine_down = s.calc("storage_spine_down_ports", "Storage spine ports down with three tiers", "count",
                        floor(ks / 2), "half the radix: non-blocking spines", fmt=COUNT)
    spine_up = s.calc("storage_spine_up_ports", "Storage spine ports up with three tiers", "count",
                      ks - spine_down, "radix - ports down", fmt=COUNT)
    n = Net(s, "storage_", "Storage network")
    net = tiers(n, Ports(ks, down, up, ratio, spine_down, spine_up),
                Layout(endpoints, None, endpoints, endpoints <= ks, ceil(endpoints / ks)), search)
    switches = s.calc("storage_switches", "Storage network switches", "switches", net.leaves + net.spines + net.cores,
                      "leaves + spines + cores", fmt=COUNT)
    s.section("Storage network: links, transceivers and power")
    cables = s.calc("storage_cables", "Storage network cables", "links",
                    endpoints + net.leaf_spine + net.spine_core, "endpoint links + leaf-spine + spine-core", fmt=COUNT)
    b = i.storage_switch_breakout
    leaf_x = s.calc("storage_leaf_transceivers", "Storage switch-side transceivers on endpoint links", "count",
                    ceil(endpoints / b), "one per cage of `breakout` ports (the endpoint side: one per port)",
                    fmt=COUNT)
    leaf_spine_x, spine_core_x = uplink_transceivers(n, "Storage", net, b)
    x = s.calc("storage_transceivers", "Storage network transceivers", "count",
               endpoints + leaf_x + leaf_spine_x + spine_core_x, "endpoint side (one per port) + switch side",
               fmt=COUNT)
    single = s.calc("storage_single_mode_transceivers", "Storage single-mode transceivers", "count",
                    flags[0] * (endpoints + leaf_x) + flags[1] * leaf_spine_x + flags[2] * spine_core_x,
                    "the transceivers of every tier whose run needs single-mode", fmt=COUNT)
    sm, end, sw = i.single_mode_optic_power, i.storage_optic_power, i.storage_switch_optic_power
    node_w = s.calc("storage_node_optics_power", "Storage transceivers in the nodes", "kW",
                    at_power(node_ports, flags[0], end, sm), "node ports x power each (single-mode beyond reach)")
    server_w = s.calc("storage_server_optics_power", "Storage transceivers in the storage systems and servers", "kW",
                      at_power(server_ports, flags[0], end, sm), "their ports x power each: inside their own power")
    switch_w = s.calc("storage_switch_optics_power", "Storage switch-side transceiver power", "kW",
                      at_power(leaf_x, flags[0], sw, sm) + at_power(leaf_spine_x, flags[1], sw, sm)
                      + at_power(spine_core_x, flags[2], sw, sm), "per tier: count x power each (single-mode beyond "
                      "reach)")
    power = s.calc("storage_switches_power", "Storage network switch power", "kW", switches * i.storage_switch_power,
                   "switches x power per switch")
    s.check("storage_holds_endpoints", "The storage network holds its endpoints (three tiers at most)",
            net.leaves <= ks * spine_down, "storage leaves <= radix x spine ports down")
    return Counts(switches, cables, x, single, power, node_w, server_w, switch_w), endpoints
