"""The in-band management and front-end Ethernet network, the cluster's fourth network: each node's in-band ports
(a DGX's two 100/200 GbE ports, bonded across a leaf pair), the head, login and fabric manager servers' and the
storage front ends' ports, and the uplinks to the site's network.

Leaves come in redundant pairs (MLAG): an endpoint's two ports land one on each leaf of a pair, so each side of
the pair is a rail of the tier rules (workbook.models.network.tiers) holding half the endpoint ports, and the two leaves
of a pair are joined by peer links (passive copper in the rack, out of each leaf's ports down). One tier while
a pair holds every port; else spines (two or three tiers, non-blocking spines), sized like the other networks.
Transceivers: one module per endpoint port (the nodes' sit in the nodes; the servers' in the storage and
management power; of a site uplink only this side's, the far end is the site's), one per cage of `breakout`
ports at the switches; a tier whose runs exceed the in-band optic's reach uses single-mode modules.
"""

from __future__ import annotations

from workbook.book.book import SheetBuilder
from workbook.formula.functions import ceil, floor, where
from workbook.formula.line import COUNT, Line
from workbook.models.base import Inputs
from workbook.models.network.servers import Servers
from workbook.models.network.tiers import Counts, Layout, Net, Ports, at_power, down_ports, tiers, uplink_transceivers


def _endpoints(s: SheetBuilder, i: Inputs, nodes: Line, servers: Servers | None) -> tuple[Line, Line, Line]:
    """Node ports, server ports (sized where the Reliability sheet sizes the storage, else as given), and all."""
    s.section("In-band management and front-end network: endpoints and ports (leaves in redundant pairs; a leaf gives "
              "its peer links out of its ports down)")
    node_ports = s.calc("inband_node_ports", "In-band network: node ports", "count",
                        nodes * i.inband_ports_per_node, "nodes x in-band ports per node (one to each leaf of a pair)",
                        fmt=COUNT)
    if servers is not None and servers.appliances is not None:
        server_ports = s.calc(
            "inband_server_ports", "In-band network: head node, fabric manager and storage front-end ports", "count",
            (servers.management_nodes + servers.fabric_managers) * i.server_inband_ports
            + servers.appliances * servers.appliance_inband_ports,
            "(head nodes + fabric managers) (BOM) x in-band ports each + appliances (Reliability) x their "
            "front-end ports", fmt=COUNT)
    else:
        server_ports = s.calc("inband_server_ports", "In-band network: server and storage front-end ports (as given)",
                              "count", i.inband_system_ports,
                              "the site's figure: its storage is given (storage_sizing: given) or the fleet has no "
                              "Reliability sheet", fmt=COUNT)
    endpoints = s.calc("inband_endpoints", "In-band network endpoint ports", "count",
                       node_ports + server_ports + i.inband_site_uplinks,
                       "node ports + server ports + uplinks to the site's network", fmt=COUNT)
    return node_ports, server_ports, endpoints


def _ports(s: SheetBuilder, i: Inputs) -> Ports:
    """An in-band leaf's split: peer links out of its ports down, the rest up by the in-band ratio."""
    k, o = i.inband_switch_radix, i.inband_oversubscription
    down = s.calc("inband_leaf_down_ports", "In-band leaf ports down (to endpoints)", "count",
                  down_ports(k, o) - i.inband_peer_links,
                  "ROUNDDOWN(radix x ratio / (1 + ratio)) - peer links to the other leaf of its pair", fmt=COUNT)
    up = s.calc("inband_leaf_up_ports", "In-band leaf ports up (to spines)", "count", k - down_ports(k, o),
                "radix - ROUNDDOWN(radix x ratio / (1 + ratio))", fmt=COUNT)
    spine_down = s.calc("inband_spine_down_ports", "In-band spine ports down with three tiers", "count", floor(k / 2),
                        "half the radix: non-blocking spines", fmt=COUNT)
    spine_up = s.calc("inband_spine_up_ports", "In-band spine ports up with three tiers", "count", k - spine_down,
                      "radix - ports down", fmt=COUNT)
    s.check("inband_leaf_has_ports_down", "An in-band leaf keeps ports down beside its peer links", down >= 1,
            "leaf ports down after the peer links >= 1")
    return Ports(k, down, up, o, spine_down, spine_up)


def _flags(s: SheetBuilder, i: Inputs, runs: tuple[Line, Line, Line]) -> list[Line]:
    return [s.calc(f"inband_{tier}_single_mode", f"In-band {label} tier needs single-mode (1 = yes)", "flag",
                   where(run > i.inband_optic_reach, 1, 0), "longest run > the in-band optic's reach", fmt=COUNT)
            for tier, label, run in zip(("node_leaf", "leaf_spine", "spine_core"),
                                        ("node-leaf", "leaf-spine", "spine-core"), runs, strict=True)]


def define(s: SheetBuilder, i: Inputs, nodes: Line, runs: tuple[Line, Line, Line], search: list[Line],
           servers: Servers | None) -> Counts:
    """The in-band network's switches (leaf pairs, spines, cores), links, transceivers and power."""
    node_ports, server_ports, endpoints = _endpoints(s, i, nodes, servers)
    sides = 2  # a redundant pair: each dual-homed endpoint bonds a port on each leaf
    per_side = s.calc("inband_ports_per_side", "In-band network: endpoint ports on each side of the leaf pairs",
                      "count", ceil(endpoints / sides), "ROUNDUP(endpoint ports / 2): a dual-homed endpoint bonds a "
                      "port on each leaf of a pair", fmt=COUNT)
    ports = _ports(s, i)
    k = ports.radix
    s.section("In-band network: tiers (each side of the leaf pairs filled in order)")
    n = Net(s, "inband_", "In-band network")
    room = k - i.inband_peer_links  # a pair alone uses every port but its peer links: one tier while a side fits
    net = tiers(n, ports, Layout(endpoints, sides, per_side, per_side <= room, sides * ceil(per_side / room)), search)
    switches = s.calc("inband_switches", "In-band network switches", "switches", net.leaves + net.spines + net.cores,
                      "leaves + spines + cores", fmt=COUNT)
    s.section("In-band network: links, transceivers and power")
    peer = s.calc("inband_peer_cables", "In-band peer-link cables (passive copper, in the pair's rack)", "links",
                  net.leaves / sides * i.inband_peer_links, "leaf pairs x peer links each", fmt=COUNT)
    cables = s.calc("inband_cables", "In-band network cables", "links",
                    endpoints + net.leaf_spine + net.spine_core + peer,
                    "fibre (endpoint links + leaf-spine + spine-core) + peer-link copper", fmt=COUNT)
    flags = _flags(s, i, runs)
    b = i.inband_switch_breakout
    leaf_x = s.calc("inband_leaf_transceivers", "In-band switch-side transceivers on endpoint links", "count",
                    ceil(endpoints / b), "one per cage of `breakout` ports (site uplinks included)", fmt=COUNT)
    leaf_spine_x, spine_core_x = uplink_transceivers(n, "In-band", net, b)
    x = s.calc("inband_transceivers", "In-band network transceivers", "count",
               node_ports + server_ports + leaf_x + leaf_spine_x + spine_core_x,
               "endpoint side (one per node and server port; a site uplink's far end is the site's) + switch side",
               fmt=COUNT)
    single = s.calc("inband_single_mode_transceivers", "In-band single-mode transceivers", "count",
                    flags[0] * (node_ports + server_ports + leaf_x) + flags[1] * leaf_spine_x + flags[2] * spine_core_x,
                    "the transceivers of every tier whose run needs single-mode", fmt=COUNT)
    mm, sm = i.inband_optic_power, i.inband_single_mode_optic_power
    node_w = s.calc("inband_node_optics_power", "In-band transceivers in the nodes", "kW",
                    at_power(node_ports, flags[0], mm, sm), "node ports x power each (single-mode beyond reach)")
    server_w = s.calc("inband_server_optics_power", "In-band transceivers in the servers and storage front ends",
                      "kW", at_power(server_ports, flags[0], mm, sm),
                      "their ports x power each: inside their own power")
    switch_w = s.calc("inband_switch_optics_power", "In-band switch-side transceiver power", "kW",
                      at_power(leaf_x, flags[0], mm, sm) + at_power(leaf_spine_x, flags[1], mm, sm)
                      + at_power(spine_core_x, flags[2], mm, sm), "per tier: count x power each (single-mode beyond "
                      "reach); peer-link copper draws about 0.1 W an end, not counted")
    power = s.calc("inband_switches_power", "In-band network switch power", "kW", switches * i.inband_switch_power,
                   "switches x power per switch")
    s.check("inband_holds_endpoints", "The in-band network holds its endpoints (three tiers at most)",
            net.leaves <= k * ports.spine_down, "in-band leaves <= radix x spine ports down")
    return Counts(switches, cables, x, single, power, node_w, server_w, switch_w)
