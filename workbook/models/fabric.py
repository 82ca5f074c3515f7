"""Fabric: the compute network (a rail-optimised fat tree), the storage network and the out-of-band
management network; switch, link and transceiver counts and their power, which feed the power chain.

The design rules (each line's note repeats the one it uses):
- Hosts, not nodes, are the fabric's endpoints: a rack-scale node (GB200 NVL72: one 72-GPU NVLink domain) is
  18 compute trays, each a host with its own NICs. Rails = GPUs per host x NICs per GPU; NIC i of every host
  goes to rail i and a leaf serves one rail, so a rail's endpoints are the hosts ("flat" wiring fills leaves
  in any order instead, as the storage network does). A leaf puts ROUNDDOWN(radix x ratio / (1 + ratio))
  ports down (half at 1:1) and the rest up.
- One tier while every endpoint fits one switch; two tiers (leaf-spine) while a spine can reach every leaf
  (leaves <= radix); three tiers above that, up to radix spine groups.
- Partial fabrics are wired only where ports are populated. Leaves fill in order: on each rail full leaves,
  then one part-filled leaf; a leaf with d of its D ports down used needs MIN(up, ROUNDUP(d x up / D))
  uplinks (the leaf's ratio, all of them when full).
- Two tiers: every leaf connects to every spine with the same number of links, as many as a spine's ports
  allow: pair = MAX(1, MIN(fullest leaf's uplinks, ROUNDDOWN(radix / leaves))); spines = ROUNDUP(fullest
  leaf's uplinks / pair). A part-filled leaf spreads its uplinks evenly over the spines:
  MIN(up, spines x ROUNDUP(its uplinks / spines)). With one link per pair this is the textbook k/2 spines for
  k leaves; with fewer leaves it gives the DGX SuperPOD counts (B200 RA: 8 leaves -> 4 spines, 16 -> 8,
  24 -> 16, 32 -> 16, 64 -> 32, and 256 leaf-spine links for 31 nodes a unit), which "spines = uplinks /
  radix" misses at 24 leaves (it gives 12). 128 GPUs on 8 rails: 8 leaves of 16 hosts, 16 uplinks each on
  2 spines: 128 links, not 256.
- Three tiers (spine groups): a group of `leaf ports up` spines serves up to `spine ports down` leaves, each
  leaf one link to each spine of its group, full leaves first. The last group has as many spines as its
  fullest leaf has uplinks, and each of its spines needs MIN(spine up, ROUNDUP(its leaves x spine up / spine
  down)) uplinks; cores = ROUNDUP(spine-core links / radix). At 1:1 this is the fat tree of Al-Fares et al.
  (k^3/4 endpoints) and the SuperPOD B200's 16/32/64-SU counts (spines = leaves, cores = leaves / 2).
- The storage network uses the same sizing (one helper, `_tiers`), with non-blocking spines.
- Transceivers: one per host-side cage of `links per host-side transceiver` NICs, one per switch cage of
  `breakout` ports; the storage network's endpoints one single-port module per port.
- Reach: each tier's longest cable run comes from the hall layout (rows, rack positions, widths, the network
  racks' location, slack); a tier within the catalog optic's reach (multimode, 50 m for MMA4Z00-NS) uses it,
  a longer one single-mode (MMS4X00-NS, 500 m), for the compute and the storage network alike.

The out-of-band network counts PDUs (racks, from the power chain) and CDUs (from cooling), whose models use
this one's power: it is a model of its own (workbook.models.oob) whose rows end the Fabric sheet.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import reduce
from typing import Any

from workbook.book import SheetBuilder
from workbook.formula.functions import ceil, floor, max_, min_, where
from workbook.formula.line import COUNT, Line
from workbook.inputs import Spec, with_limits
from workbook.models.base import Inputs, Scope
from workbook.sheets import FABRIC as TITLE

PREFIX = "fabric"

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
    Spec("fabric.single_mode_reach", "Reach of the single-mode transceiver for longer runs", "m",
         **{**_M, "example": "500 m"}),
    Spec("fabric.single_mode_optic_power", "Power per single-mode transceiver", "W", **{**_W, "example": "17 W"}),
    Spec("fabric.leaf_oversubscription", "Leaf oversubscription (ports down per port up)", "ratio", **_RATIO),
    Spec("fabric.spine_oversubscription", "Spine oversubscription with three tiers (down per up)", "ratio",
         **_RATIO),
    # storage network (ports per node: catalog `node`; switch: catalog `storage_switch`)
    Spec("fabric.storage_ports_per_node", "Storage network ports per node", "count", example="2", **_PORTS),
    Spec("fabric.storage_system_ports", "Storage system and server ports on the storage network", "count",
         example="40", **_PORTS),
    Spec("fabric.storage_switch_radix", "Storage switch radix", "count", **_RADIX),
    Spec("fabric.storage_switch_power", "Power per storage switch (without transceivers)", "W",
         **{**_W, "example": "747 W"}),
    Spec("fabric.storage_switch_breakout", "Storage switch ports per cage (one transceiver per cage)", "count",
         "a count of ports", "2", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.storage_optic_power", "Power per storage endpoint-side transceiver (single-port, multimode)", "W",
         **{**_W, "example": "9 W"}),
    Spec("fabric.storage_switch_optic_power", "Power per storage switch-side transceiver (multimode)", "W",
         **{**_W, "example": "15 W"}),
    Spec("fabric.storage_oversubscription", "Storage leaf oversubscription (down per up)", "ratio", **_RATIO),
    # out-of-band management network (BMC ports: catalog `node`; switch: catalog `oob_switch`)
    Spec("fabric.oob_ports_per_node", "Out-of-band (BMC) ports per node", "count", example="1", **_PORTS),
    Spec("fabric.oob_other_endpoints", "Other out-of-band endpoints (servers, storage, network racks)", "count",
         example="40", **_PORTS),
    Spec("fabric.oob_switch_ports", "Ports per out-of-band switch", "count", "a count of ports", "48", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.oob_switch_power", "Power per out-of-band switch", "W", **{**_W, "example": "150 W"}),
])


def _down_ports(radix: object, ratio: object) -> object:
    """Ports a leaf (or spine) puts down for a down:up ratio; the rest go up. Half of them at 1:1."""
    return floor(radix * ratio / (1 + ratio))


def _part_ports(used: object, of: object, ports: object) -> object:
    """Ports up a switch with `used` of its `of` ports down populated needs to keep its down:up ratio:
    MIN(ports up, ROUNDUP(used x ports up / ports down)); all of them when it is full, none when empty."""
    return min_(ports, ceil(used * ports / of))


@dataclass(frozen=True)
class Ports:
    """One network's switch: its radix and how a leaf and (with three tiers) a spine split it down and up."""

    radix: Line
    down: Line
    up: Line
    spine_down: Line
    spine_up: Line


@dataclass(frozen=True)
class Tiers:
    """The lines a leaf-spine(-core) network is sized into, for its links, transceivers and power."""

    leaves: Line
    spine_tier: Line
    core_tier: Line
    spines: Line
    cores: Line
    leaf_spine: Line
    spine_core: Line


class _Net:
    """Adds one network's lines: the compute fabric (its ids as they are) or the storage network (ids
    `storage_...`, labels `Storage network: ...`), so that one set of rules sizes both."""

    def __init__(self, s: SheetBuilder, key: str, name: str):
        self.s, self.key, self.name = s, key, name

    def calc(self, key: str, label: str, unit: str, formula: Any, note: str = "", fmt: str = COUNT) -> Line:
        label = f"{self.name}: {label}" if self.name else label[0].upper() + label[1:]
        return self.s.calc(self.key + key, label, unit, formula, note, fmt=fmt)


def _leaves(n: _Net, ports: Ports, endpoints: Line, rails: Line | int, per_rail: Line) -> tuple[Line, ...]:
    """Leaves filled in order: on each rail (one rail for flat wiring and for the storage network) full leaves,
    then one part-filled leaf; a part-filled leaf needs uplinks only for its populated ports."""
    k, down, up = ports.radix, ports.down, ports.up
    one = isinstance(rails, int)  # flat wiring and the storage network: all endpoints on one "rail"
    per = "endpoints" if one else "endpoints per rail"
    full = n.calc("full_leaves", "full leaf switches (every port down used)", "switches",
                  floor(per_rail / down) if one else rails * floor(per_rail / down),
                  f"{'' if one else 'rails x '}ROUNDDOWN({per} / leaf ports down)")
    rest = n.calc("partial_leaf_down_ports", "ports down used on a part-filled leaf", "count",
                  per_rail - floor(per_rail / down) * down, f"{per} - full leaves' ports down")
    partial = n.calc("partial_leaves", "part-filled leaf switches", "switches",
                     where(rest > 0, 1, 0) if one else rails * where(rest > 0, 1, 0),
                     f"one{'' if one else ' per rail'} where ports down are left over")
    rest_up = n.calc("partial_leaf_up_ports", "ports up a part-filled leaf needs", "count",
                     _part_ports(rest, down, up), "MIN(ports up, ROUNDUP(ports down used x ports up / ports down))")
    top_up = n.calc("fullest_leaf_up_ports", "ports up the fullest leaf needs", "count",
                    _part_ports(min_(per_rail, down), down, up),
                    f"the same rule for MIN({per}, ports down): all ports up once a leaf is full")
    leaves = n.calc("leaves", "leaf switches", "switches", where(endpoints <= k, ceil(endpoints / k), full + partial),
                    "one switch while every endpoint fits on it (none without endpoints), else full + "
                    "part-filled leaves")
    return full, partial, rest_up, top_up, leaves


def _tiers(n: _Net, ports: Ports, endpoints: Line, rails: Line | int, per_rail: Line) -> Tiers:
    """Leaf, spine and core switches and the links between them, wired only where ports are populated.

    Two tiers: every leaf reaches every spine with up to `pair` = MAX(1, MIN(fullest leaf's ports up,
    ROUNDDOWN(radix / leaves))) links; spines = ROUNDUP(fullest leaf's ports up / pair); a part-filled leaf
    spreads its uplinks evenly over the spines, MIN(ports up, spines x ROUNDUP(its ports up / spines)).
    Three tiers: groups of `leaf ports up` spines serve `spine ports down` leaves each, full leaves first;
    the last group has as many spines as its fullest leaf has uplinks, and its spines uplinks only for its
    leaves; cores = ROUNDUP(spine-core links / radix)."""
    k, up, s_down, s_up = ports.radix, ports.up, ports.spine_down, ports.spine_up
    full, partial, rest_up, top_up, leaves = _leaves(n, ports, endpoints, rails, per_rail)
    spine_tier = n.calc("spine_tier", "spine tier needed (1 = yes)", "flag", where(endpoints > k, 1, 0),
                        "the endpoints do not fit one switch")
    core_tier = n.calc("core_tier", "core tier needed (1 = yes)", "flag", where(leaves > k, 1, 0),
                       "more leaves than a spine has ports")
    tiers = n.calc("tiers", "tiers", "count", 1 + spine_tier + core_tier, "1 + spine tier + core tier")
    pair = n.calc("leaf_spine_pair_links", "links from each leaf to each spine (two tiers)", "links",
                  max_(1, min_(top_up, floor(k / max_(1, leaves)))),
                  "a spine splits its ports evenly over the leaves, at most the fullest leaf's ports up")
    two = n.calc("spines_if_two_tiers", "spine switches with two tiers", "switches", ceil(top_up / pair),
                 "ROUNDUP(fullest leaf's ports up / links per pair)")
    groups = n.calc("spine_groups", "spine groups (three tiers)", "count", core_tier * ceil(leaves / s_down),
                    "ROUNDUP(leaves / spine ports down): a group serves that many leaves")
    last = n.calc("last_group_leaves", "leaves in the last spine group", "switches",
                  core_tier * (leaves - (groups - 1) * s_down), "leaves - full groups x spine ports down")
    last_spines = n.calc("last_group_spines", "spines in the last spine group", "switches",
                         core_tier * where(last > partial, up, rest_up),
                         "leaf ports up if a full leaf is in it (full leaves fill the groups first), else the "
                         "part-filled leaves' ports up")
    spines = n.calc("spines", "spine switches", "switches", where(tiers.eq(3), (groups - 1) * up + last_spines,
                                                               spine_tier * two),
                    "three tiers: full groups x leaf ports up + the last group's; two tiers: as above")
    rest_links = n.calc("partial_leaf_links", "leaf-spine links of a part-filled leaf", "links",
                        where(tiers.eq(3), rest_up, min_(up, max_(1, two) * ceil(rest_up / max_(1, two)))),
                        "three tiers: one per spine it uses; two tiers: its ports up spread evenly over the "
                        "spines, MIN(ports up, spines x ROUNDUP(its ports up / spines))")
    leaf_spine = n.calc("leaf_spine_links", "leaf-spine links (cables)", "links",
                        spine_tier * (full * up + partial * rest_links),
                        "full leaves x ports up + part-filled leaves x their links; no spare uplinks wired")
    last_up = n.calc("last_group_spine_up_ports", "ports up a spine of the last group needs", "count",
                     _part_ports(last, s_down, s_up),
                     "MIN(spine ports up, ROUNDUP(its leaves x spine ports up / spine ports down))")
    spine_core = n.calc("spine_core_links", "spine-core links (cables)", "links",
                        core_tier * ((groups - 1) * up * s_up + last_spines * last_up),
                        "full groups' spines x spine ports up + the last group's spines x their ports up")
    cores = n.calc("cores", "core switches", "switches", ceil(spine_core / k), "ROUNDUP(spine-core links / radix)")
    return Tiers(leaves, spine_tier, core_tier, spines, cores, leaf_spine, spine_core)


def _compute_ports(s: SheetBuilder, i: Inputs) -> Ports:
    """The compute switch's radix split into leaf and spine ports down and up by the oversubscription."""
    k = i.switch_radix
    s.section("Compute fabric: switch ports")
    down = s.calc("leaf_down_ports", "Leaf ports down (to hosts)", "count", _down_ports(k, i.leaf_oversubscription),
                  "ROUNDDOWN(radix x ratio / (1 + ratio)): half the radix at 1:1", fmt=COUNT)
    up = s.calc("leaf_up_ports", "Leaf ports up (to spines)", "count", k - down, "radix - ports down", fmt=COUNT)
    s.calc("leaf_ratio_built", "Leaf ports down per port up, as built", "ratio", down / up,
           "the oversubscription the whole ports give")
    spine_down = s.calc("spine_down_ports", "Spine ports down with three tiers (to leaves)", "count",
                        _down_ports(k, i.spine_oversubscription),
                        "ROUNDDOWN(radix x ratio / (1 + ratio)); with two tiers every spine port is down",
                        fmt=COUNT)
    spine_up = s.calc("spine_up_ports", "Spine ports up with three tiers (to cores)", "count", k - spine_down,
                      "radix - ports down", fmt=COUNT)
    s.section("Compute fabric: size limits for this radix")
    s.calc("max_two_tier_endpoints", "Largest two-tier fabric (k^2/2 when non-blocking)", "count", k * down,
           "radix leaves (one spine port each) x leaf ports down", fmt=COUNT)
    s.calc("max_three_tier_endpoints", "Largest three-tier fabric (k^3/4 when non-blocking)", "count",
           k * spine_down * down, "radix spine groups x spine ports down (leaves per group) x leaf ports down",
           fmt=COUNT)
    return Ports(k, down, up, spine_down, spine_up)


def _runs(s: SheetBuilder, p: Inputs) -> tuple[Line, Line, Line]:
    """The longest cable run of each tier from the hall's layout (the power chain's inputs `p`), which decides
    multimode or single-mode."""
    s.section(f"Cable runs (network racks: {p.choice('network_location')}; the longest run of each tier)")
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


def _single_mode_flags(s: SheetBuilder, i: Inputs, runs: tuple[Line, Line, Line]) -> list[Line]:
    """Per tier 1 when its longest run is beyond the catalog optic's (multimode) reach, so it needs single-mode."""
    s.section("Optics by tier: multimode within its reach, single-mode beyond")
    flags = [s.calc(f"{tier}_single_mode", f"{label} tier needs single-mode (1 = yes)", "flag",
                    where(run > i.optic_reach, 1, 0), "longest run > the catalog optic's reach", fmt=COUNT)
             for tier, label, run in zip(("node_leaf", "leaf_spine", "spine_core"),
                                         ("Node-leaf", "Leaf-spine", "Spine-core"), runs, strict=True)]
    longest = s.calc("longest_run", "Longest cable run", "m", max_(*runs), "the longest of the three tiers' runs")
    s.check("runs_within_single_mode_reach", "The longest cable run is within the single-mode optic's reach",
            longest <= i.single_mode_reach, "longest run <= single-mode reach")
    return flags


def _total(terms: list[Any]) -> Any:
    """The sum of some lines or expressions, without a leading 0 in the rendered formula."""
    return reduce(operator.add, terms)


def _optic_split(s: SheetBuilder, i: Inputs, tag: str, flags: list[Line], ends: list[list[tuple[Line, Line]]],
                 total: Line) -> tuple[Line, Line, Line]:
    """Single-mode and multimode transceivers and their power, tier by tier: a tier's transceivers are
    single-mode when its flag is 1 (at the single-mode power), else the catalog optic at each end's power.
    `ends` lists per tier (node-leaf, leaf-spine, spine-core) its (transceiver count, power each) pairs."""
    name = tag.capitalize()
    single = s.calc(f"{tag}_single_mode_transceivers", f"{name} single-mode transceivers", "count",
                    _total([f * _total([c for c, _ in tier]) for f, tier in zip(flags, ends, strict=True)]),
                    "the transceivers of every tier whose run needs single-mode", fmt=COUNT)
    multi = s.calc(f"{tag}_multimode_transceivers", f"{name} multimode transceivers (catalog optic)", "count",
                   total - single, "all - single-mode", fmt=COUNT)
    power = s.calc(f"{tag}_optics_power", f"{name} transceiver power", "kW",
                   _total([(1 - f) * _total([c * w for c, w in tier]) for f, tier in zip(flags, ends, strict=True)])
                   + single * i.single_mode_optic_power,
                   "multimode tiers: transceivers x power each; single-mode: count x single-mode power")
    return single, multi, power


@dataclass(frozen=True)
class FabricOut:
    """The fabric's lines that the power chain, the TCO and the Summary use."""

    tiers: Line
    switches: Line
    storage_switches: Line
    switches_total: Line
    transceivers_total: Line
    multimode_transceivers_total: Line
    single_mode_transceivers_total: Line
    cables_total: Line
    switches_power: Line
    optics_power: Line
    power: Line
    # what the bill of materials counts, by tier and end (its own rows, priced by type)
    leaves: Line
    spines: Line
    cores: Line
    storage_leaves: Line
    storage_spines: Line
    storage_cores: Line
    node_leaf_links: Line
    leaf_spine_links: Line
    spine_core_links: Line
    storage_endpoints: Line
    storage_leaf_spine_links: Line
    storage_spine_core_links: Line
    node_transceivers: Line
    node_leaf_switch_transceivers: Line
    leaf_spine_transceivers: Line
    spine_core_transceivers: Line
    storage_leaf_transceivers: Line
    storage_leaf_spine_transceivers: Line
    storage_spine_core_transceivers: Line
    node_leaf_single_mode: Line
    leaf_spine_single_mode: Line
    spine_core_single_mode: Line
    node_leaf_run: Line
    leaf_spine_run: Line
    spine_core_run: Line
    leaf_nodes: Line  # the nodes a leaf switch's failure takes out of a job (the reliability model's spares)


def define(scope: Scope, i: Inputs, p: Inputs) -> FabricOut:
    """The compute fabric, the storage network, their cable runs, optics and power (which the power chain uses).
    `p` is the power chain's inputs: the GPUs, how nodes hold them, and the hall's layout."""
    s = scope.sheet(TITLE)
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
    ports = _compute_ports(s, i)
    s.section("Compute fabric: tiers and switches (leaves filled in order; uplinks only for populated ports)")
    if i.choice("wiring") == "rail-optimised":
        s.calc("leaves_per_rail", "Leaf switches per rail", "switches", ceil(hosts / ports.down),
               "ROUNDUP(hosts / leaf ports down)", fmt=COUNT)
        net = _tiers(_Net(s, "", ""), ports, endpoints, rails, hosts)
    else:
        net = _tiers(_Net(s, "", ""), ports, endpoints, 1, endpoints)
    switches = s.calc("switches", "Compute fabric switches", "switches", net.leaves + net.spines + net.cores,
                      "leaves + spines + cores", fmt=COUNT)
    s.calc("spines_per_rail", "Spine switches per rail (share)", "switches", net.spines / rails,
           "spines serve every rail; each rail's share")
    s.calc("cores_per_rail", "Core switches per rail (share)", "switches", net.cores / rails,
           "cores serve every rail; each rail's share")
    rail = i.choice("wiring") == "rail-optimised"  # a rail's leaf serves one NIC of each host; a flat leaf all
    served = min_(ports.down, hosts) if rail else min_(ports.down, endpoints) / rails
    s.calc("leaf_nodes", "Nodes a leaf switch serves (its failure takes them out of a job)", "nodes",
           ceil(served / p.hosts_per_node),
           "ROUNDUP(hosts on a leaf / hosts per node): a rail's leaf serves up to its ports down of hosts, one NIC "
           "each" if rail else "ROUNDUP(endpoints on a leaf / rails / hosts per node): a host's NICs share a leaf",
           fmt=COUNT)
    flags = _single_mode_flags(s, i, _runs(s, p))
    compute = _compute_links(s, i, net, switches, endpoints, hosts, rails, flags)
    storage = _storage(s, i, p, flags)
    _totals(s, i, switches, compute, storage)
    s.check("holds_endpoints", "The compute fabric's tiers hold its endpoints (three tiers at most)",
            net.leaves <= ports.radix * ports.spine_down,
            "leaves <= radix x spine ports down, i.e. spine groups <= radix")
    s.check("nic_fits_port", "A compute NIC's link fits a switch port", i.nic_speed <= i.switch_port_speed)
    return scope.outputs(FabricOut)


@dataclass(frozen=True)
class Counts:
    """A network's totals that the fabric's totals, power and the TCO's capex add up."""

    switches: Line
    cables: Line
    transceivers: Line
    single_mode: Line
    multimode: Line
    switch_power: Line
    optics_power: Line


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
    leaf_spine_x, spine_core_x = _uplink_transceivers(s, "", "Compute", net, i.switch_breakout)
    switch_x = s.calc("switch_transceivers", "Switch-side transceivers", "count",
                      leaf_x + leaf_spine_x + spine_core_x, fmt=COUNT)
    transceivers = s.calc("transceivers", "Compute fabric transceivers", "count", node_x + switch_x,
                          "host side + switch side", fmt=COUNT)
    sw = i.switch_optic_power
    single, multi, optics = _optic_split(
        s, i, "compute", flags,
        [[(node_x, i.node_optic_power), (leaf_x, sw)], [(leaf_spine_x, sw)], [(spine_core_x, sw)]], transceivers)
    power = s.calc("compute_switches_power", "Compute fabric switch power", "kW", switches * i.switch_power,
                   "switches x power per switch")
    return Counts(switches, cables, transceivers, single, multi, power, optics)


def _uplink_transceivers(s: SheetBuilder, prefix: str, name: str, net: Tiers, breakout: Any) -> tuple[Line, Line]:
    """Both ends of every switch-to-switch link sit in switch cages of `breakout` ports."""
    return tuple(  # type: ignore[return-value]
        s.calc(f"{prefix}{tier}_transceivers", f"{name} {label} transceivers (both ends)", "count",
               2 * ceil(links / breakout), "2 x ROUNDUP(links / breakout)", fmt=COUNT)
        for tier, label, links in (("leaf_spine", "leaf-spine", net.leaf_spine),
                                   ("spine_core", "spine-core", net.spine_core)))


def _storage(s: SheetBuilder, i: Inputs, p: Inputs, flags: list[Line]) -> Counts:
    """The storage network: endpoints filled onto leaves in any order, sized by the compute fabric's rules
    (up to three tiers, non-blocking spines); its transceivers one single-port module per endpoint port and one
    per cage of `breakout` ports at the switches."""
    ks = i.storage_switch_radix
    s.section("Storage network (leaves filled in any order; up to three tiers)")
    endpoints = s.calc("storage_endpoints", "Storage network endpoints", "count",
                       ceil(p.gpus / p.gpus_per_node) * i.storage_ports_per_node + i.storage_system_ports,
                       "nodes (ROUNDUP(GPUs / GPUs per node)) x storage ports per node + storage system ports",
                       fmt=COUNT)
    down = s.calc("storage_leaf_down_ports", "Storage leaf ports down", "count",
                  _down_ports(ks, i.storage_oversubscription), "ROUNDDOWN(radix x ratio / (1 + ratio))", fmt=COUNT)
    up = s.calc("storage_leaf_up_ports", "Storage leaf ports up", "count", ks - down, "radix - ports down",
                fmt=COUNT)
    spine_down = s.calc("storage_spine_down_ports", "Storage spine ports down with three tiers", "count",
                        floor(ks / 2), "half the radix: non-blocking spines", fmt=COUNT)
    spine_up = s.calc("storage_spine_up_ports", "Storage spine ports up with three tiers", "count",
                      ks - spine_down, "radix - ports down", fmt=COUNT)
    net = _tiers(_Net(s, "storage_", "Storage network"), Ports(ks, down, up, spine_down, spine_up), endpoints,
                 1, endpoints)
    switches = s.calc("storage_switches", "Storage network switches", "switches",
                      net.leaves + net.spines + net.cores, "leaves + spines + cores", fmt=COUNT)
    cables = s.calc("storage_cables", "Storage network cables", "links",
                    endpoints + net.leaf_spine + net.spine_core, "endpoint links + leaf-spine + spine-core", fmt=COUNT)
    b = i.storage_switch_breakout
    leaf_x = s.calc("storage_leaf_transceivers", "Storage switch-side transceivers on endpoint links", "count",
                    ceil(endpoints / b), "one per cage of `breakout` ports (the endpoint side: one per port)",
                    fmt=COUNT)
    leaf_spine_x, spine_core_x = _uplink_transceivers(s, "storage_", "Storage", net, b)
    x = s.calc("storage_transceivers", "Storage network transceivers", "count",
               endpoints + leaf_x + leaf_spine_x + spine_core_x, "endpoint side (one per port) + switch side",
               fmt=COUNT)
    sw = i.storage_switch_optic_power
    single, multi, optics = _optic_split(
        s, i, "storage", flags,
        [[(endpoints, i.storage_optic_power), (leaf_x, sw)], [(leaf_spine_x, sw)], [(spine_core_x, sw)]], x)
    power = s.calc("storage_switches_power", "Storage network switch power", "kW", switches * i.storage_switch_power,
                   "switches x power per switch")
    s.check("storage_holds_endpoints", "The storage network holds its endpoints (three tiers at most)",
            net.leaves <= ks * spine_down, "storage leaves <= radix x spine ports down")
    return Counts(switches, cables, x, single, multi, power, optics)


def _totals(s: SheetBuilder, i: Inputs, switches: Line, compute: Counts, storage: Counts) -> None:
    """The compute and storage networks together: the counts the TCO prices and the power the power chain adds."""
    s.section("Totals and power (feeding the power chain)")
    s.calc("switches_total", "Fabric switches (compute and storage)", "switches", switches + storage.switches,
           fmt=COUNT)
    s.calc("transceivers_total", "Transceivers (compute and storage)", "count",
           compute.transceivers + storage.transceivers, fmt=COUNT)
    s.calc("multimode_transceivers_total", "Multimode transceivers (compute and storage)", "count",
           compute.multimode + storage.multimode, "-> TCO: x transceiver price", fmt=COUNT)
    s.calc("single_mode_transceivers_total", "Single-mode transceivers (compute and storage)", "count",
           compute.single_mode + storage.single_mode, "-> TCO: x single-mode transceiver price", fmt=COUNT)
    s.calc("cables_total", "Cables (compute and storage)", "links", compute.cables + storage.cables, fmt=COUNT)
    sw_power = s.calc("switches_power", "Switch power (compute and storage)", "kW",
                      compute.switch_power + storage.switch_power, "-> power chain: network switch power")
    optics = s.calc("optics_power", "Transceiver power (compute and storage)", "kW",
                    compute.optics_power + storage.optics_power, "-> power chain: optical transceiver power")
    s.calc("power", "Fabric power (switches and transceivers)", "kW", sw_power + optics)


def summarise(s: SheetBuilder, fabric: FabricOut, oob_switches: Line) -> None:
    s.section("Fabric")
    for line, label in ((fabric.tiers, "Compute fabric tiers"),
                        (fabric.switches, "Compute fabric switches (leaf + spine + core)"),
                        (fabric.storage_switches, "Storage network switches"),
                        (oob_switches, "Out-of-band switches"),
                        (fabric.transceivers_total, "Transceivers (compute and storage)"),
                        (fabric.cables_total, "Cables (compute and storage)")):
        s.show(line, label=label)
    for line in (fabric.switches_power, fabric.optics_power, fabric.power):
        s.show(line)
