"""The bill of materials' rows: what each is, its spec as a vendor quotes it, the model line its count comes from
and its budget price. workbook.models.bom.bom lays them out and prices them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Grid
from workbook.formula.expr import Const
from workbook.formula.functions import ceil, flag
from workbook.formula.line import Line
from workbook.models.base import Inputs
from workbook.models.bom.cables import CLASSES, Classes, Tier, length_classes, tiers
from workbook.models.cooling import CoolingOut
from workbook.models.network.fabric import FabricOut
from workbook.models.network.oob import OobOut
from workbook.models.power.power import PowerOut
from workbook.models.reliability import ReliabilityOut, Spare

OPTICS, SINGLE_MODE, CABLES = "optics", "single-mode", "cables"  # what a row adds to (the Fabric tie-outs)
MULTIMODE_FIBRE = "multimode fibre cable, OM4, MPO-12/APC"
SINGLE_MODE_FIBRE = "single-mode fibre cable, OS2, MPO-12/APC"


@dataclass(frozen=True)
class Item:
    """One row of the bill of materials. `price` is the budget unit price (an input, or a formula whose basis
    says what it is), or None for a part priced elsewhere (`included` says where). `recurring`: a price per year
    of cover (support), a running cost on the TCO sheet, never capex. `tally`: the Fabric count the row adds to.
    `shipped`: equipment, which the group's shipping and support are priced on (a software licence is not)."""

    key: str
    group: str
    label: str
    spec: str
    qty: Any  # a node over model lines
    unit: str
    why: str
    price: Any = None
    length: Any = None  # a cable's length class (m), a node
    included: str = ""
    basis: str = ""  # the budget price's basis when it is a formula (else the input's note)
    recurring: bool = False
    tally: tuple[str, ...] = ()
    shipped: bool = True  # equipment: shipped and supported (a software licence is neither)
    cover: Any = None  # a term licence's years of cover (a node), shown below it and named in its spec
    cover_why: str = ""


@dataclass(frozen=True)
class Models:
    """The models' outputs the rows count from (the fleet's, and the Reliability sheet's storage and spares)."""

    power: PowerOut
    fabric: FabricOut
    cooling: CoolingOut
    oob: OobOut
    storage: ReliabilityOut | None
    spares: tuple[Spare, ...]


def first(line: Line) -> float:
    return float(line.value.reshape(-1)[0])


def hardware(i: Any, m: Models, parts: dict[str, str], s: SheetBuilder, table: Grid) -> list[Item]:
    """Every hardware row, in the sheet's order (`i`: every model's inputs; the length classes' rows go into
    `table`)."""
    b, p, t = i.bom, i.power, i.tco
    part: Callable[[str, str], str] = lambda kind, default: parts.get(kind, default)  # noqa: E731
    liquid_racks = m.power.racks * flag(m.cooling.rack_liquid_heat > Const(0, "kW"))
    bought = b.choice("cabinets") == "buy"
    colo = "" if bought else "supplied with the colocation cabinets (in the colocation price)"
    devices = (m.fabric.switches_total + m.oob.oob_switches + m.oob.oob_aggregation + b.fabric_managers
               + b.management_nodes)
    out = [
        Item("nodes", "compute", "GPU nodes", part("node", "GPU node"), m.power.nodes, "nodes",
             "ROUNDUP(GPUs / GPUs per node) (Power chain)", t.server_price),
        Item("gpus", "compute", "GPUs (in the nodes)", part("gpu", "GPU"), m.power.gpus, "GPUs",
             "the cluster plan (Inputs)", included="in the node price"),
        Item("management_nodes", "compute", "Head and management nodes", "2-socket x86 server, 1U/2U, 512 GB-1 TB "
             "of memory, two 400G-class storage ports and two in-band ports, redundant power supplies: for the "
             "cluster manager (high-availability pair), login and scheduler", b.management_nodes, "nodes",
             "the site's choice (Inputs)", b.management_node_price),
        *_network(i, m, part, s, table),
        Item("racks", "power", "Rack cabinets", f"{first(p.rack_units):g} U cabinet, {first(p.rack_width):g} m "
             f"wide, {first(i.cooling.rack_depth):g} m deep", m.power.racks_total, "racks",
             "compute racks + network, storage and management racks (Power chain)", b.rack_price if bought else None,
             included=colo),
        Item("pdus", "power", "Rack PDUs", f"{first(p.pdu_breaker):g} A {first(p.rack_voltage):g} V "
             f"{p.choice('rack_supply')} zero-U rack PDU (one per feed: A and B)", m.power.pdus, "PDUs",
             "PDUs per compute rack x compute racks + 2 per other rack (Power chain)", b.pdu_price if bought else None,
             included=colo),
        Item("power_cords", "power", "Power cords, nodes", "C19-C20 power cord, PDU outlet to node power supply",
             m.power.nodes * b.node_power_cords, "cords", "nodes x power cords per node", b.power_cord_price),
        Item("device_power_cords", "power", "Power cords, switches and appliances", "C13-C14 power cord, PDU "
             "outlet to switch or server power supply", devices * b.device_power_cords, "cords",
             "(fabric + out-of-band and aggregation switches + fabric managers + management nodes) x cords each",
             b.power_cord_price),
        Item("cdus", "cooling", "Coolant distribution units (CDUs)", part("cdu", "CDU"), m.cooling.cdus_installed,
             "CDUs", "CDUs installed with redundancy (Cooling)", b.cdu_price),
        Item("manifolds", "cooling", "Rack coolant manifolds", "supply and return manifold per liquid-cooled rack, "
             "stainless steel, dripless quick disconnects", liquid_racks, "manifolds",
             "compute racks with heat to liquid (Cooling: heat to liquid per rack > 0)", b.manifold_price),
        Item("hoses", "cooling", "Coolant hoses", "EPDM coolant hose with dripless quick disconnects, manifold to "
             "CDU loop", liquid_racks * b.hoses_per_rack, "hoses", "liquid-cooled racks x hoses per rack",
             b.hose_price),
        *_storage(t, m.storage, parts),
    ]
    longest = next(x.length for x in out if x.key == f"node_leaf_cables_mm_{CLASSES}")
    return out + _spares(i, m.spares, parts, longest)


def services(b: Inputs, m: Models) -> list[Item]:
    """Installation and cabling: a trade of its own (an integrator), priced per rack and per cable."""
    cables = m.fabric.cables_total + m.oob.oob_endpoints + m.oob.oob_uplinks
    return [
        Item("installation", "services", "Installation: rack and stack, power up", "install every rack of this "
             "request: position and level the cabinet, mount its nodes, switches and appliances, connect the power "
             "cords, power on and hand over; per rack", m.power.racks_total, "racks",
             "every rack (Power chain)", b.install_price),
        Item("cabling", "services", "Cabling: install, label and test", "route, dress, label and test every "
             "network cable of this request (fibre, copper peer links, out-of-band patch cables and uplinks), with a "
             "test report per link; per cable", cables, "cables",
             "fabric cables (Fabric) + out-of-band patch cables (one per endpoint) and uplinks", b.cabling_price),
    ]


def _network(i: Any, m: Models, part: Callable[[str, str], str], s: SheetBuilder, table: Grid) -> list[Item]:
    """Switches by network and tier, the fabric manager and its licences, transceivers by end and type, cables
    by tier, type and length class."""
    b, t, f = i.bom, i.tco, m.fabric
    sw, st = part("switch", "fabric switch"), part("storage_switch", "storage switch")
    ib = part("inband_switch", "in-band Ethernet switch")
    out = [Item(f"{net}{tier}_switches", "network", f"{name} {tier} switches", spec, count, "switches",
                f"{name} network tiers (Fabric)", price)
           for net, name, spec, tiers_, price in (
               ("", "Compute", sw, (f.leaves, f.spines, f.cores), t.switch_price),
               ("storage_", "Storage", st, (f.storage_leaves, f.storage_spines, f.storage_cores), t.switch_price),
               ("inband_", "In-band", ib, (f.inband_leaves, f.inband_spines, f.inband_cores), b.inband_switch_price))
           for tier, count in zip(("leaf", "spine", "core"), tiers_, strict=True)]
    out.append(Item("oob_switches", "network", "Out-of-band switches", part("oob_switch", "management switch"),
                    m.oob.oob_switches, "switches", "ROUNDUP(out-of-band endpoints / ports per switch) (Fabric)",
                    t.oob_switch_price))
    out.append(Item("oob_aggregation_switches", "network", "Out-of-band aggregation switches", ib,
                    m.oob.oob_aggregation, "switches", "a pair taking the out-of-band switches' uplinks (Fabric)",
                    b.inband_switch_price))
    out.append(Item("fabric_managers", "network", "Fabric manager appliances", "InfiniBand fabric manager "
                    "appliance (NVIDIA UFM Enterprise appliance class), 1U, installed as a high-availability pair",
                    b.fabric_managers, "appliances", "the site's choice (Inputs)", b.fabric_manager_price))
    out.append(Item("fabric_manager_licences", "network", "Fabric manager software licences", "fabric manager "
                    "software licence (NVIDIA UFM Enterprise class) per managed host, a term licence",
                    f.hosts * flag(b.fabric_managers > 0), "licences",
                    "fabric hosts (Fabric), where the site has fabric managers", b.licence_price, shipped=False,
                    cover=ceil(t.useful_life / Const(1, "fyear")),
                    cover_why="the useful life in whole years (TCO), as the support lines' years of cover"))
    out += _optics(i, f, part)
    out += _cables(s, i, m, table)
    out.append(Item("oob_cables", "network", "Out-of-band copper cables", "Cat6 patch cable, RJ45, 1-5 m",
                    m.oob.oob_endpoints, "cables", "one per out-of-band endpoint (Fabric)", b.oob_cable_price))
    out.append(Item("oob_uplink_cables", "network", "Out-of-band uplink cables", "100G QSFP28 active optical "
                    "cable, out-of-band switch to aggregation switch, 5-30 m", m.oob.oob_uplinks, "cables",
                    "out-of-band switches x uplinks per switch (Fabric)", b.oob_uplink_cable_price))
    return out


def _host_optic(b: Inputs, fi: Inputs) -> str:
    """The host-side transceiver: the part the node's catalog entry names, else its spec in full."""
    named = b.words("node_transceiver_spec")
    links = first(fi.links_per_node_optic)
    cage = ("twin-port OSFP (800G class, as NVIDIA MMA4Z00-NS-FLT)" if links > 1 else
            "single-port OSFP (as NVIDIA MMA4Z00-NS400) for an OSFP NIC, QSFP112 (as NVIDIA MMA1Z00-NS400) for a "
            "QSFP112 NIC: quote the one that fits the node's NIC")
    generic = (f"{cage}, {links:g} x {first(fi.nic_speed):g} Gbit/s SR4, multimode, {first(fi.optic_reach):g} m, "
               f"host side, {first(fi.node_optic_power):g} W")
    return named or generic


def _optics(i: Any, f: FabricOut, part: Callable[[str, str], str]) -> list[Item]:
    """Transceivers by network, end and type: each row's multimode and single-mode split by its tier's flag."""
    b, t, fi = i.bom, i.tco, i.fabric
    flags = (f.node_leaf_single_mode, f.leaf_spine_single_mode, f.spine_core_single_mode)  # storage
    cf = (f.compute_node_leaf_single_mode, f.compute_leaf_spine_single_mode, f.compute_spine_core_single_mode)
    ib_flags = (f.inband_node_leaf_single_mode, f.inband_leaf_spine_single_mode, f.inband_spine_core_single_mode)
    optic = part("optic", "switch-side transceiver")
    ib_optic = f"100GBASE-SR4 QSFP28 transceiver, multimode, 100 m over OM4, {first(fi.inband_optic_power):g} W"
    storage = (f"400G single-port OSFP SR4 transceiver (MMA4Z00-NS400 class), multimode, flat top, at a node or "
               f"storage system port, {first(fi.storage_optic_power):g} W")
    compute_sm, ib_sm = t.single_mode_transceiver_price, b.inband_single_mode_transceiver_price
    optics = [  # (key, label, count, tier flag, multimode spec, multimode price, single-mode price, why)
        ("node", "Host-side transceivers", f.node_transceivers, cf[0], _host_optic(b, fi), b.node_transceiver_price,
         compute_sm, "hosts x ROUNDUP(rails / links per host-side transceiver) (Fabric)"),
        ("leaf_host", "Leaf transceivers, host links", f.node_leaf_switch_transceivers, cf[0], optic,
         t.transceiver_price, compute_sm, "ROUNDUP(host-leaf links / ports per cage) (Fabric)"),
        ("leaf_spine", "Leaf-spine transceivers (both ends)", f.leaf_spine_transceivers, cf[1], optic,
         t.transceiver_price, compute_sm, "2 x ROUNDUP(leaf-spine links / ports per cage) (Fabric)"),
        ("spine_core", "Spine-core transceivers (both ends)", f.spine_core_transceivers, cf[2], optic,
         t.transceiver_price, compute_sm, "2 x ROUNDUP(spine-core links / ports per cage) (Fabric)"),
        ("storage_port", "Storage endpoint transceivers (single-port)", f.storage_endpoints, flags[0], storage,
         b.storage_port_transceiver_price, compute_sm, "one per storage network endpoint port (Fabric)"),
        ("storage_leaf", "Storage leaf transceivers, endpoint links", f.storage_leaf_transceivers, flags[0], optic,
         t.transceiver_price, compute_sm, "ROUNDUP(endpoint links / ports per cage) (Fabric)"),
        ("storage_leaf_spine", "Storage leaf-spine transceivers (both ends)", f.storage_leaf_spine_transceivers,
         flags[1], optic, t.transceiver_price, compute_sm, "2 x ROUNDUP(leaf-spine links / ports per cage) (Fabric)"),
        ("storage_spine_core", "Storage spine-core transceivers (both ends)", f.storage_spine_core_transceivers,
         flags[2], optic, t.transceiver_price, compute_sm, "2 x ROUNDUP(spine-core links / ports per cage) (Fabric)"),
        ("inband_port", "In-band endpoint transceivers (node and server ports)", f.inband_node_ports
         + f.inband_server_ports, ib_flags[0], ib_optic, b.inband_transceiver_price, ib_sm,
         "one per node and server in-band port; a site uplink's far end is the site's (Fabric)"),
        ("inband_leaf", "In-band leaf transceivers, endpoint links", f.inband_leaf_transceivers, ib_flags[0],
         ib_optic, b.inband_transceiver_price, ib_sm, "ROUNDUP(endpoint links / ports per cage) (Fabric)"),
        ("inband_leaf_spine", "In-band leaf-spine transceivers (both ends)", f.inband_leaf_spine_transceivers,
         ib_flags[1], ib_optic, b.inband_transceiver_price, ib_sm,
         "2 x ROUNDUP(leaf-spine links / ports per cage) (Fabric)"),
        ("inband_spine_core", "In-band spine-core transceivers (both ends)", f.inband_spine_core_transceivers,
         ib_flags[2], ib_optic, b.inband_transceiver_price, ib_sm,
         "2 x ROUNDUP(spine-core links / ports per cage) (Fabric)"),
    ]
    out = []
    for key, label, count, tier, spec, price, sm_price, why in optics:
        out.append(Item(f"{key}_optics_mm", "network", f"{label}, multimode", spec, count * (1 - tier), "modules",
                        f"{why}, on a multimode tier", price, tally=(OPTICS,)))
        out.append(Item(f"{key}_optics_sm", "network", f"{label}, single-mode", f"the single-mode (DR4, 500 m "
                        f"class) counterpart of: {spec}", count * tier, "modules",
                        f"{why}, on a tier whose runs need single-mode", sm_price, tally=(OPTICS, SINGLE_MODE)))
    return out


def _cables(s: SheetBuilder, i: Any, m: Models, table: Grid) -> list[Item]:
    """Fibre cables by network, tier, type and length class (workbook.models.bom.cables); the in-band pairs'
    peer-link copper."""
    b, t = i.bom, i.tco
    centre = i.power.choice("network_location") == "centre"
    out = []
    for tier in tiers(m.fabric, centre):
        classes = length_classes(s, tier, i.power.cable_slack, b.cable_length_step, table)
        out += _tier_cables(tier, classes, t.cable_price, b.single_mode_cable_price)
    out.append(Item("inband_peer_cables_dac", "network", "In-band peer-link cables, passive copper (DAC)",
                    "100G QSFP28 passive copper (DAC) cable, 1-3 m, in the leaf pair's rack",
                    m.fabric.inband_peer_cables, "cables", "leaf pairs x peer links (Fabric)", b.dac_price,
                    tally=(CABLES,)))
    return out


def _tier_cables(tier: Tier, classes: Classes, mm_price: Line, sm_price: Line) -> list[Item]:
    out = []
    for k, (length, count) in enumerate(zip(classes.lengths, classes.counts, strict=True), start=1):
        for medium, spec, share, price in (("mm", MULTIMODE_FIBRE, 1 - tier.single_mode, mm_price),
                                           ("sm", SINGLE_MODE_FIBRE, tier.single_mode, sm_price)):
            kind = "multimode" if medium == "mm" else "single-mode"
            out.append(Item(f"{tier.key}_cables_{medium}_{k}", "network", f"{tier.label}, {kind} fibre, class {k}",
                            spec, count * share, "cables", f"links in length class {k} (the length-class table), "
                            f"on a {kind} tier", price, length, tally=(CABLES,)))
    return out


def _storage(t: Inputs, storage: ReliabilityOut | None, parts: dict[str, str]) -> list[Item]:
    """The storage tiers the Reliability sheet sizes from the checkpoint burst, or the site's lump sum."""
    if storage is None or storage.fast_appliances is None:
        return [Item("storage", "storage", "Shared storage system", "parallel file system (a lump sum, as the site "
                     "gives it)", Const(1), "lot", "one system (its power is the Power chain's storage power)",
                     t.storage_capex)]
    assert storage.fast_price is not None and storage.capacity_tb is not None and storage.capacity_price is not None
    return [
        Item("storage_fast", "storage", "Fast tier: all-flash appliances",
             parts.get("flash_appliance", "all-flash parallel file system appliance"), storage.fast_appliances,
             "appliances", "ROUNDUP(MAX(checkpoint burst / write bandwidth, capacity / usable capacity)) "
             "(Reliability)", storage.fast_price),
        Item("storage_capacity", "storage", "Capacity tier: object storage", "object storage, usable TB (erasure "
             "coded, installed)", ceil(storage.capacity_tb / Const(1, "TB")), "TB usable",
             "ROUNDUP(checkpoints retained x checkpoint size, in TB) (Reliability)", storage.capacity_price),
    ]


def _spares(i: Any, spares: tuple[Spare, ...], parts: dict[str, str], longest: Any) -> list[Item]:
    """Spares per part type: the Reliability sheet's held counts at the part's own budget price, each with the
    spec of the part it replaces (a spare fibre cable: the host-leaf multimode cable of the longest class)."""
    node = parts.get("node", "a GPU node").split(";")[0].strip()  # its name and make-up, not its ratings
    p, fi, b = i.power, i.fabric, i.bom
    specs = {
        "nic": b.words("nic_spec") or f"{first(fi.nic_speed):g} Gbit/s network adapter, as installed in the GPU "
                                      f"node: {node}",
        "cable": MULTIMODE_FIBRE,
        "psu": f"{first(p.psu_rating):g} kW power supply, as installed in the GPU node: {node}",
        "fan": f"fan module, as installed in the GPU node: {node}",
    }
    return [Item(f"spare_{x.key}", "spares", f"Spare {x.label}", x.spec or specs.get(x.key, f"spare {x.label}"),
                 x.held, x.unit, "repair pipeline (Little's law) + hot pool + correlated buffer, held when waiting "
                 "costs more than the part (Reliability)", x.price, longest if x.key == "cable" else None)
            for x in spares]
