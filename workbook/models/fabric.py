"""Fabric: the compute network (a rail-optimised fat tree), the storage network and the out-of-band
management network; switch, link and transceiver counts and their power, which feed the power chain.

The compute fabric's design rules (each line's note repeats the one it uses):
- Rail-optimised wiring (the default): NIC i of every node goes to rail i, and a leaf switch serves one rail,
  so a rail's endpoints are its nodes ("flat" wiring fills leaves in any order instead). A leaf puts
  ROUNDDOWN(radix x ratio / (1 + ratio)) ports down (half at 1:1) and the rest up.
- One tier while every endpoint fits one switch; two tiers (leaf-spine) while a spine can reach every leaf
  (leaves <= radix); three tiers above that, up to radix spine groups.
- Two tiers: every leaf connects to every spine with the same number of links, as many as a spine's ports
  allow: MIN(leaf ports up, ROUNDDOWN(radix / leaves)); spines = ROUNDUP(leaf ports up / that). With one link
  per pair this is the textbook k/2 spines for k leaves; with fewer leaves it gives the DGX SuperPOD counts
  (B200 RA: 8 leaves -> 4 spines, 16 -> 8, 24 -> 16, 32 -> 16, 64 -> 32), which "spines = uplinks / radix"
  misses at 24 leaves (it gives 12).
- Three tiers (spine groups): a group of `leaf ports up` spines serves up to `spine ports down` leaves, each
  leaf one link to each spine of its group; cores = spine ports up / radix. At 1:1 this is the fat tree of
  Al-Fares et al. (k^3/4 endpoints) and the SuperPOD B200's 16/32/64-SU counts (spines = leaves,
  cores = leaves / 2).

The out-of-band network counts PDUs (racks, from the power chain) and CDUs (from cooling), which are defined
after this model; its lines are therefore added from summarise(), at the end of the Fabric sheet, and its
switch power stays inside the power chain's management input.
"""

from __future__ import annotations

from workbook.formula.functions import ceil, floor, max_, min_, where
from workbook.formula.line import COUNT, Book, SheetBuilder
from workbook.inputs import Spec, with_limits
from workbook.models.base import AllInputs

TITLE, PREFIX = "Fabric", "fabric"

# Lines of other models the out-of-band network counts (defined after this model's define()).
NODES, RACKS, CDUS = "power.nodes", "power.racks", "cooling.cdus_installed"

_PORTS = dict(expect="a count of ports", lo=0, integer=True, fmt=COUNT)
_RADIX = dict(expect="a count of switch ports (a positive even number)", example="64", lo=0, lo_open=True,
              integer=True, even=True, fmt=COUNT)
_W = dict(expect="a power", example="15 W", lo=0.0)
_RATIO = dict(expect="a ratio of ports down to ports up", example="1", lo=1.0, hi=16.0)
_RATE = dict(expect="a data rate", example="400 Gbit/s", lo=0.0, lo_open=True, fmt=COUNT)

INPUTS = with_limits([
    Spec("fabric.wiring", "Compute fabric wiring", "", "a wiring", "rail-optimised",
         choices=("rail-optimised", "flat")),
    # compute fabric: node side (catalog `node`)
    Spec("fabric.nics_per_gpu", "Compute NICs per GPU (rails per GPU)", "count", "a count of NICs", "1", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.nic_speed", "Compute NIC link speed", "Gbit/s", **_RATE),
    Spec("fabric.links_per_node_optic", "Compute links per node-side transceiver", "count", "a count of links",
         "2", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.node_optic_power", "Power per node-side transceiver", "W", **_W),
    # compute fabric: switches (catalog `switch`) and their transceivers (catalog `optic`)
    Spec("fabric.switch_radix", "Switch radix (ports at the port speed)", "count", **_RADIX),
    Spec("fabric.switch_port_speed", "Switch port speed", "Gbit/s", **_RATE),
    Spec("fabric.switch_breakout", "Switch ports per cage (one transceiver per cage)", "count",
         "a count of ports", "2", lo=0, lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.switch_power", "Power per switch (without transceivers)", "W", **{**_W, "example": "747 W"}),
    Spec("fabric.switch_optic_power", "Power per switch-side transceiver", "W", **_W),
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
    Spec("fabric.storage_optic_power", "Optics power per storage link end", "W", **{**_W, "example": "9 W"}),
    Spec("fabric.storage_oversubscription", "Storage leaf oversubscription (down per up)", "ratio", **_RATIO),
    # out-of-band management network (BMC ports: catalog `node`; switch: catalog `oob_switch`)
    Spec("fabric.oob_ports_per_node", "Out-of-band (BMC) ports per node", "count", example="1", **_PORTS),
    Spec("fabric.pdus_per_rack", "Managed PDUs per compute rack", "count", example="2", **_PORTS),
    Spec("fabric.oob_other_endpoints", "Other out-of-band endpoints (servers, storage, network racks)", "count",
         example="40", **_PORTS),
    Spec("fabric.oob_switch_ports", "Ports per out-of-band switch", "count", "a count of ports", "48", lo=0,
         lo_open=True, integer=True, fmt=COUNT),
    Spec("fabric.oob_switch_power", "Power per out-of-band switch", "W", **{**_W, "example": "150 W"}),
])


def _down_ports(radix: object, ratio: object) -> object:
    """Ports a leaf (or spine) puts down for a down:up ratio; the rest go up. Half of them at 1:1."""
    return floor(radix * ratio / (1 + ratio))


def define(book: Book, inputs: AllInputs) -> None:
    i, p = inputs.fabric, inputs.power
    s = book.sheet(TITLE, PREFIX)
    k = i.switch_radix

    s.section("Compute fabric: endpoints (rail-optimised: NIC i of every node on rail i)")
    rails = s.calc("rails", "Rails (compute NICs per node)", "count", p.gpus_per_node * i.nics_per_gpu,
                   "GPUs per node x NICs per GPU", fmt=COUNT)
    endpoints = s.calc("endpoints", "Compute endpoints (NIC ports)", "count", p.gpus * i.nics_per_gpu,
                       "GPUs x NICs per GPU", fmt=COUNT)
    per_rail = s.calc("endpoints_per_rail", "Endpoints per rail (one per node)", "count",
                      ceil(endpoints / rails), "ROUNDUP(endpoints / rails): the nodes", fmt=COUNT)
    s.calc("injection_bandwidth", "Injection bandwidth (all endpoints into the fabric)", "Tbit/s",
           endpoints * i.nic_speed, "endpoints x NIC speed")

    s.section("Compute fabric: switch ports")
    down = s.calc("leaf_down_ports", "Leaf ports down (to nodes)", "count",
                  _down_ports(k, i.leaf_oversubscription),
                  "ROUNDDOWN(radix x ratio / (1 + ratio)): half the radix at 1:1", fmt=COUNT)
    up = s.calc("leaf_up_ports", "Leaf ports up (to spines)", "count", k - down, "radix - ports down",
                fmt=COUNT)
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

    s.section("Compute fabric: tiers and switches")
    if i.choice("wiring") == "rail-optimised":
        leaves_per_rail = s.calc("leaves_per_rail", "Leaf switches per rail", "switches", ceil(per_rail / down),
                                 "ROUNDUP(endpoints per rail / leaf ports down)", fmt=COUNT)
        leaves = s.calc("leaves", "Leaf switches", "switches", where(endpoints <= k, 1, rails * leaves_per_rail),
                        "one switch while every endpoint fits on it, else rails x leaves per rail", fmt=COUNT)
    else:
        leaves = s.calc("leaves", "Leaf switches", "switches", where(endpoints <= k, 1, ceil(endpoints / down)),
                        "one switch while every endpoint fits on it, else ROUNDUP(endpoints / leaf ports down)",
                        fmt=COUNT)
    spine_tier = s.calc("spine_tier", "Spine tier needed (1 = yes)", "flag", where(endpoints > k, 1, 0),
                        "the endpoints do not fit one switch", fmt=COUNT)
    core_tier = s.calc("core_tier", "Core tier needed (1 = yes)", "flag", where(leaves > k, 1, 0),
                       "more leaves than a spine has ports", fmt=COUNT)
    tiers = s.calc("tiers", "Tiers", "count", 1 + spine_tier + core_tier, "1 + spine tier + core tier",
                   fmt=COUNT)
    pair = s.calc("leaf_spine_pair_links", "Links from each leaf to each spine (two tiers)", "links",
                  max_(1, min_(up, floor(k / leaves))),
                  "a spine splits its ports evenly over the leaves, at most a leaf's ports up", fmt=COUNT)
    groups = s.calc("spine_groups", "Spine groups (three tiers)", "count",
                    core_tier * ceil(leaves / spine_down),
                    "ROUNDUP(leaves / spine ports down): a group serves that many leaves", fmt=COUNT)
    spines = s.calc("spines", "Spine switches", "switches",
                    where(tiers.eq(3), groups * up, spine_tier * ceil(up / pair)),
                    "two tiers: ROUNDUP(leaf ports up / links per leaf-spine pair); three tiers: groups x "
                    "leaf ports up (each leaf one link to each spine of its group)", fmt=COUNT)
    cores = s.calc("cores", "Core switches", "switches", core_tier * ceil(spines * spine_up / k),
                   "ROUNDUP(spines x spine ports up / radix)", fmt=COUNT)
    switches = s.calc("switches", "Compute fabric switches", "switches", leaves + spines + cores,
                      "leaves + spines + cores", fmt=COUNT)
    s.calc("spines_per_rail", "Spine switches per rail (share)", "switches", spines / rails,
           "spines serve every rail; each rail's share")
    s.calc("cores_per_rail", "Core switches per rail (share)", "switches", cores / rails,
           "cores serve every rail; each rail's share")

    s.section("Compute fabric: links, cables and transceivers")
    node_leaf = s.calc("node_leaf_links", "Node-leaf links (cables)", "links", endpoints, "one per endpoint",
                       fmt=COUNT)
    leaf_spine = s.calc("leaf_spine_links", "Leaf-spine links (cables)", "links", spine_tier * leaves * up,
                        "every leaf's ports up, wired in full", fmt=COUNT)
    spine_core = s.calc("spine_core_links", "Spine-core links (cables)", "links", core_tier * spines * spine_up,
                        "every spine's ports up, wired in full", fmt=COUNT)
    cables = s.calc("cables", "Compute fabric cables", "links", node_leaf + leaf_spine + spine_core,
                    "one cable per link", fmt=COUNT)
    node_x = s.calc("node_transceivers", "Node-side transceivers", "count",
                    per_rail * ceil(rails / i.links_per_node_optic),
                    "nodes x ROUNDUP(rails / links per node-side transceiver)", fmt=COUNT)
    leaf_x = s.calc("node_leaf_switch_transceivers", "Switch-side transceivers on node-leaf links", "count",
                    ceil(node_leaf / i.switch_breakout), "one per cage of `breakout` ports", fmt=COUNT)
    leaf_spine_x = s.calc("leaf_spine_transceivers", "Transceivers on leaf-spine links (both ends)", "count",
                          2 * ceil(leaf_spine / i.switch_breakout), "2 x ROUNDUP(links / breakout)", fmt=COUNT)
    spine_core_x = s.calc("spine_core_transceivers", "Transceivers on spine-core links (both ends)", "count",
                          2 * ceil(spine_core / i.switch_breakout), "2 x ROUNDUP(links / breakout)", fmt=COUNT)
    switch_x = s.calc("switch_transceivers", "Switch-side transceivers", "count",
                      leaf_x + leaf_spine_x + spine_core_x, fmt=COUNT)
    transceivers = s.calc("transceivers", "Compute fabric transceivers", "count", node_x + switch_x,
                          "node side + switch side", fmt=COUNT)

    s.section("Storage network (one or two tiers)")
    ks = i.storage_switch_radix
    st_endpoints = s.calc("storage_endpoints", "Storage network endpoints", "count",
                          per_rail * i.storage_ports_per_node + i.storage_system_ports,
                          "nodes x storage ports per node + storage system ports", fmt=COUNT)
    st_down = s.calc("storage_leaf_down_ports", "Storage leaf ports down", "count",
                     _down_ports(ks, i.storage_oversubscription), "ROUNDDOWN(radix x ratio / (1 + ratio))",
                     fmt=COUNT)
    st_up = s.calc("storage_leaf_up_ports", "Storage leaf ports up", "count", ks - st_down, "radix - ports down",
                   fmt=COUNT)
    st_leaves = s.calc("storage_leaves", "Storage leaf switches", "switches",
                       where(st_endpoints <= ks, ceil(st_endpoints / ks), ceil(st_endpoints / st_down)),
                       "one switch while every endpoint fits (none without endpoints), else "
                       "ROUNDUP(endpoints / leaf ports down)", fmt=COUNT)
    st_tier = s.calc("storage_spine_tier", "Storage spine tier needed (1 = yes)", "flag",
                     where(st_endpoints > ks, 1, 0), "the endpoints do not fit one switch", fmt=COUNT)
    st_pair = s.calc("storage_pair_links", "Links from each storage leaf to each spine", "links",
                     max_(1, min_(st_up, floor(ks / max_(1, st_leaves)))),
                     "as the compute fabric: a spine's ports split evenly over the leaves", fmt=COUNT)
    st_spines = s.calc("storage_spines", "Storage spine switches", "switches", st_tier * ceil(st_up / st_pair),
                       "ROUNDUP(leaf ports up / links per pair)", fmt=COUNT)
    st_switches = s.calc("storage_switches", "Storage network switches", "switches", st_leaves + st_spines,
                         fmt=COUNT)
    st_links = s.calc("storage_links", "Storage network links (cables)", "links",
                      st_endpoints + st_tier * st_leaves * st_up, "endpoints + leaf ports up, wired in full",
                      fmt=COUNT)
    st_x = s.calc("storage_transceivers", "Storage network transceivers", "count", 2 * st_links,
                  "one at each end of every link", fmt=COUNT)

    s.section("Totals and power (feeding the power chain)")
    s.calc("switches_total", "Fabric switches (compute and storage)", "switches", switches + st_switches,
           fmt=COUNT)
    s.calc("transceivers_total", "Transceivers (compute and storage)", "count", transceivers + st_x, fmt=COUNT)
    s.calc("cables_total", "Cables (compute and storage)", "links", cables + st_links, fmt=COUNT)
    compute_sw = s.calc("compute_switches_power", "Compute fabric switch power", "kW", switches * i.switch_power,
                        "switches x power per switch")
    storage_sw = s.calc("storage_switches_power", "Storage network switch power", "kW",
                        st_switches * i.storage_switch_power, "switches x power per switch")
    sw_power = s.calc("switches_power", "Switch power (compute and storage)", "kW", compute_sw + storage_sw,
                      "-> power chain: network switch power")
    compute_optics = s.calc("compute_optics_power", "Compute fabric transceiver power", "kW",
                            node_x * i.node_optic_power + switch_x * i.switch_optic_power,
                            "node side x power each + switch side x power each")
    storage_optics = s.calc("storage_optics_power", "Storage network transceiver power", "kW",
                            st_x * i.storage_optic_power, "link ends x power each")
    optics = s.calc("optics_power", "Transceiver power (compute and storage)", "kW",
                    compute_optics + storage_optics, "-> power chain: optical transceiver power")
    s.calc("power", "Fabric power (switches and transceivers)", "kW", sw_power + optics)

    s.check("holds_endpoints", "The compute fabric's tiers hold its endpoints (three tiers at most)",
            leaves <= k * spine_down, "leaves <= radix x spine ports down, i.e. spine groups <= radix")
    s.check("nic_fits_port", "A compute NIC's link fits a switch port", i.nic_speed <= i.switch_port_speed)
    s.check("storage_holds_endpoints", "The storage network holds its endpoints in two tiers", st_leaves <= ks,
            "storage leaves <= radix")


def define_oob(book: Book, inputs: AllInputs) -> None:
    """The out-of-band management network: it counts racks' PDUs and the CDUs, which the power chain and the
    cooling model define after the fabric (whose power they use), so it is defined after them."""
    L = book.lines
    s = book.sheet(TITLE, PREFIX)
    s.section("Out-of-band management network (BMCs, PDUs, switch and CDU management ports)")
    bmc = s.calc("oob_node_ports", "Node BMC ports", "count", L[NODES] * L["fabric.oob_ports_per_node"],
                 "nodes x out-of-band ports per node", fmt=COUNT)
    mgmt = s.calc("oob_switch_ports_used", "Fabric switches' management ports", "count", L["fabric.switches_total"],
                  "one per compute and storage switch", fmt=COUNT)
    pdus = s.calc("oob_pdu_ports", "Rack PDU management ports", "count", L[RACKS] * L["fabric.pdus_per_rack"],
                  "compute racks x managed PDUs per rack", fmt=COUNT)
    cdus = s.calc("oob_cdu_ports", "CDU management ports", "count", L[CDUS], "CDUs installed (Cooling sheet)",
                  fmt=COUNT)
    endpoints = s.calc("oob_endpoints", "Out-of-band endpoints", "count",
                       bmc + mgmt + pdus + cdus + L["fabric.oob_other_endpoints"],
                       "BMCs + switch management + PDUs + CDUs + other endpoints", fmt=COUNT)
    oob = s.calc("oob_switches", "Out-of-band switches", "switches",
                 ceil(endpoints / L["fabric.oob_switch_ports"]), "ROUNDUP(endpoints / ports per switch)",
                 fmt=COUNT)
    s.calc("oob_switches_power", "Out-of-band switch power", "kW", oob * L["fabric.oob_switch_power"],
           "switches x power each; part of the power chain's management power input, not added again")


def summarise(book: Book, s: SheetBuilder) -> None:
    L = book.lines
    s.section("Fabric")
    for key, label in (("tiers", "Compute fabric tiers"),
                       ("switches", "Compute fabric switches (leaf + spine + core)"),
                       ("storage_switches", "Storage network switches"),
                       ("oob_switches", "Out-of-band switches"),
                       ("transceivers_total", "Transceivers (compute and storage)"),
                       ("cables_total", "Cables (compute and storage)")):
        s.show(L[f"fabric.{key}"], label=label)
    for key in ("switches_power", "optics_power", "power"):
        s.show(L[f"fabric.{key}"])
