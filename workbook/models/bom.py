"""The bill of materials: every quantity the models produce, priced, with the reason for each count.

One row per thing a vendor would quote (nodes, racks, PDUs, power cords, switches by tier and network,
transceivers by end and type, cables by type and length class, CDUs, manifolds, hoses, the fabric manager,
storage). Each quantity is a live formula on the model line it comes from; each unit price is the budget input,
or the vendor's quoted price where a quote was imported (workbook.quotes); the TCO's IT capex is the BOM's total.
The longest lead time of each group (compute, network, power, cooling, storage) sets the equipment's critical
path, which the TCO's service start waits for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbook.book import SheetBuilder
from workbook.formula.expr import Const
from workbook.formula.functions import added, ceil, flag, max_
from workbook.formula.line import COUNT, Line
from workbook.inputs import Spec, with_limits
from workbook.models.base import AllInputs, Inputs, Scope
from workbook.models.cooling import CoolingOut
from workbook.models.fabric import FabricOut
from workbook.models.oob import OobOut
from workbook.models.power import PowerOut
from workbook.models.reliability import ReliabilityOut, Spare
from workbook.presentation import Grid, GridColumn, Section
from workbook.sheets import BOM as TITLE

PREFIX = "bom"
USD = "#,##0"
WEEKS = "#,##0"
GROUPS = {  # group key -> its heading; the order of the sheet
    "compute": "Compute: GPU nodes",
    "network": "Network: switches, transceivers, cables, fabric manager",
    "power": "Power in the racks: cabinets, PDUs, power cords",
    "cooling": "Liquid cooling: CDUs, manifolds, hoses",
    "storage": "Storage",
    "spares": "Spares: parts held for failures (Reliability sheet)",
}

_USD = dict(expect="an amount of money", example="2500 USD", lo=0.0, fmt=USD)
_WEEKS = dict(expect="a duration", example="12 weeks", lo=0.0, hi=260.0, fmt=WEEKS)

INPUTS = with_limits([
    Spec("bom.cabinets", "Rack cabinets and PDUs: bought, or supplied with the colocation cabinets", "",
         "a choice", "buy", choices=("buy", "colocation")),
    Spec("bom.rack_price", "Price per rack cabinet", "USD", when=("bom.cabinets", "buy"), **_USD),
    Spec("bom.pdu_price", "Price per rack PDU", "USD", when=("bom.cabinets", "buy"), **_USD),
    Spec("bom.node_power_cords", "Power cords per node (one per power supply)", "count", "a count", "6", lo=0.0,
         hi=1000.0, integer=True, fmt=COUNT),
    Spec("bom.device_power_cords", "Power cords per switch or appliance", "count", "a count", "2", lo=0.0, hi=16.0,
         integer=True, fmt=COUNT),
    Spec("bom.power_cord_price", "Price per power cord", "USD", **_USD),
    Spec("bom.node_transceiver_price", "Price per host-side transceiver (multimode)", "USD", **_USD),
    Spec("bom.storage_port_transceiver_price", "Price per single-port transceiver at a storage endpoint", "USD",
         **_USD),
    Spec("bom.single_mode_cable_price", "Price per single-mode fibre cable", "USD", **_USD),
    Spec("bom.oob_cable_price", "Price per out-of-band copper patch cable", "USD", **_USD),
    Spec("bom.inband_switch_price", "Price per in-band (front-end Ethernet) switch", "USD", **_USD),
    Spec("bom.inband_transceiver_price", "Price per in-band transceiver (multimode)", "USD", **_USD),
    Spec("bom.inband_single_mode_transceiver_price", "Price per in-band single-mode transceiver", "USD", **_USD),
    Spec("bom.dac_price", "Price per passive copper (DAC) cable: in-band peer links", "USD", **_USD),
    Spec("bom.cable_length_step", "Cable length class: runs rounded up to a multiple of", "m", "a length", "5 m",
         lo=0.5, hi=100.0, fmt="#,##0.0"),
    Spec("bom.management_nodes", "Head and management nodes (cluster manager, login, scheduler)", "count",
         "a count", "4", lo=0.0, hi=1000.0, integer=True, fmt=COUNT),
    Spec("bom.management_node_price", "Price per head or management node", "USD", **_USD),
    Spec("bom.fabric_managers", "Fabric manager appliances (UFM class)", "count", "a count", "2", lo=0.0, hi=100.0,
         integer=True, fmt=COUNT),
    Spec("bom.fabric_manager_price", "Price per fabric manager appliance", "USD", **_USD),
    Spec("bom.cdu_price", "Price per CDU", "USD", **_USD),
    Spec("bom.manifold_price", "Price per rack coolant manifold", "USD", **_USD),
    Spec("bom.hoses_per_rack", "Coolant hoses per liquid-cooled rack", "count", "a count", "2", lo=0.0, hi=1000.0,
         integer=True, fmt=COUNT),
    Spec("bom.hose_price", "Price per coolant hose", "USD", **_USD),
    *(Spec(f"bom.{g}_lead_time", f"Lead time, {g} (budget, until a vendor quotes)", "weeks", **_WEEKS)
      for g in GROUPS),
    Spec("bom.install_time", "Installation and commissioning after the last delivery", "weeks", **_WEEKS),
    Spec("bom.quote_max_age", "A quote older than this is stale", "days", "a duration", "90 days",
         lo=1.0, hi=3650.0, fmt=COUNT),
    Spec("bom.price_date", "Date the plan is priced at (quotes' age is counted to it)", "days", "a date",
         "2026-12-01", date=True, optional=True, fmt="yyyy-mm-dd"),
])


@dataclass(frozen=True)
class Quote:
    """One vendor's price and lead time for one BOM line, as imported (workbook.quotes)."""

    vendor: str
    date: float  # a spreadsheet date (days since 1899-12-30)
    date_text: str  # YYYY-MM-DD
    unit_price: float  # USD
    lead_weeks: float
    quantity: float  # the quantity the vendor was asked to quote
    comment: str
    file: str  # the returned file's name
    sha256: str


@dataclass(frozen=True)
class Item:
    """One row of the bill of materials. `price` is the budget unit price input, or None for a part priced
    elsewhere (`included` says where)."""

    key: str
    group: str
    label: str
    spec: str
    qty: Any  # a node over model lines
    unit: str
    why: str
    price: Line | None = None
    length: Any = None  # a cable's length class (m), a node
    included: str = ""


@dataclass(frozen=True)
class BomOut:
    """The BOM's answers that the TCO reads, and its rows (the vendor's copy lists them)."""

    total: Line
    variance_total: Line
    equipment_lead: Line
    equipment_lead_months: Line
    rows: tuple[tuple[Item, Line, Line | None], ...]  # (item, its quantity line, its length line)


def define(scope: Scope, i: AllInputs, power: PowerOut, fabric: FabricOut, cooling: CoolingOut, oob: OobOut,
           parts: dict[str, str], quotes: dict[str, Quote], quote_inputs: Any,
           storage: ReliabilityOut | None = None, spares: tuple[Spare, ...] = ()) -> BomOut:
    """The BOM sheet from the site's inputs (the BOM's; the power chain's, fabric's and cooling's for specs; the
    TCO's budget prices), the chosen quote per line key and their inputs (`quote_inputs`, on the Inputs sheet).
    `storage`: the Reliability sheet's storage tiers (where it sizes them; else the TCO's lump sum); `spares`:
    its spares per part type."""
    s = scope.sheet(TITLE)
    items = _items(i.bom, i.power, i.tco, {"fabric": i.fabric, "cooling": i.cooling}, power, fabric, cooling, oob,
                   parts)
    items += _storage_items(i.tco, storage, parts) + _spare_items(spares)
    grid = Grid(TITLE, "Bill of materials", NOTE, COLUMNS)
    rows: list[tuple[Item, Line, Line | None]] = []
    costs: dict[str, list[tuple[Line, Line, Line]]] = {g: [] for g in GROUPS}
    for group, heading in GROUPS.items():
        grid.rows.append(Section(heading))
        for item in (x for x in items if x.group == group):
            qty, length, priced = _row(s, i.bom, item, quotes.get(item.key), quote_inputs, grid)
            rows.append((item, qty, length))
            if priced is not None:
                costs[group].append(priced)
    total, variance, lead, months = _totals(s, i.bom, costs, grid)
    _checks(s, fabric, oob, rows, quotes, quote_inputs, i.bom)
    scope.book.grids.append(grid)
    return BomOut(total, variance, lead, months, tuple(rows))


NOTE = ("Every quantity is a live formula on the model line it comes from (its name in the formula bar); unit "
        "prices are the budget inputs, or a vendor's quoted price where a quote was imported; the TCO's IT capex "
        "is the total. The facility (colocation fit-out or build) is priced on the TCO sheet.")
COLUMNS = [GridColumn("Line", 26, printed=False), GridColumn("Item", 30, wrap=True),
           GridColumn("Part / spec", 36, wrap=True), GridColumn("Quantity", 10, omit_zero=True), GridColumn("Unit", 9),
           GridColumn("Length class (m)", 9),
           GridColumn("Why this quantity", 40, wrap=True), GridColumn("Unit price (USD)", 12),
           GridColumn("Price basis and source", 34, wrap=True), GridColumn("Extended (USD)", 14),
           GridColumn("Budget unit price (USD)", 12), GridColumn("Variance vs budget (USD, + over)", 13),
           GridColumn("Lead time (weeks)", 9)]


def _row(s: SheetBuilder, i: Inputs, item: Item, quote: Quote | None, q: Inputs | None,
         grid: Grid) -> tuple[Line, Line | None, tuple[Line, Line, Line] | None]:
    """One item's cells: quantity and length class; with a price, the unit price used (quoted or budget), the
    extended cost, the budget price, the variance and the lead time (quoted, or the group's budget)."""
    k = item.key
    qty = s.calc(f"{k}_qty", item.label, item.unit, item.qty, item.why, fmt=COUNT)
    length = (s.calc(f"{k}_length", f"{item.label}: length class", "m", item.length,
                     "the longest run, rounded up to the length step", fmt="#,##0") if item.length is not None
              else None)
    if item.price is None:
        grid.rows.append([k, item.label, item.spec, qty, item.unit, length, item.why, None, item.included,
                          None, None, None, None])
        return qty, length, None
    budget = s.calc(f"{k}_budget_price", f"{item.label}: budget unit price", "USD", item.price, fmt=USD)
    if quote is not None and q is not None:
        used = s.calc(f"{k}_unit_price", f"{item.label}: unit price (quoted)", "USD", getattr(q, f"quote_{k}_price"),
                      fmt=USD)
        lead_in = getattr(q, f"quote_{k}_lead")
        basis = f"quoted by {quote.vendor}, {quote.date_text} ({quote.file})"
        if quote.comment:
            basis += f"; vendor's comment: {quote.comment}"
    else:
        used = s.calc(f"{k}_unit_price", f"{item.label}: unit price (budget)", "USD", budget, fmt=USD)
        lead_in = getattr(i, f"{item.group}_lead_time")
        basis = f"budget: {item.price.note}" if item.price.note else "budget"
    cost = s.calc(f"{k}_cost", f"{item.label}: extended cost", "USD", qty * used, "quantity x unit price", fmt=USD)
    variance = s.calc(f"{k}_variance", f"{item.label}: variance vs budget", "USD", qty * (used - budget),
                      "quantity x (unit price - budget unit price)", fmt=USD)
    lead = s.calc(f"{k}_lead", f"{item.label}: lead time", "weeks", lead_in * flag(qty > 0),
                  "the quoted lead time, else the group's budget one; 0 for a line of no quantity", fmt=WEEKS)
    grid.rows.append([k, item.label, item.spec, qty, item.unit, length, item.why, used, basis, cost, budget,
                      variance, lead])
    return qty, length, (cost, variance, lead)


def _totals(s: SheetBuilder, i: Inputs, costs: dict[str, list[tuple[Line, Line, Line]]],
            grid: Grid) -> tuple[Line, Line, Line, Line]:
    """Each group's cost, variance and longest lead time; the total (the TCO's IT capex) and the critical path."""
    grid.rows.append(Section("Totals and lead times (the longest lead time of each group; the critical path)"))
    totals, variances, leads = [], [], []
    for group, priced in costs.items():
        if not priced:
            continue
        name = group.capitalize()  # the longest lead time of the group's lines of a quantity above 0
        total = s.calc(f"total_{group}", f"{name}: total", "USD", added([c for c, _, _ in priced]), fmt=USD)
        variance = s.calc(f"variance_{group}", f"{name}: variance vs budget", "USD",
                          added([v for _, v, _ in priced]), fmt=USD)
        lead = s.calc(f"lead_{group}", f"{name}: longest lead time", "weeks", max_(*[d for _, _, d in priced]),
                      "MAX of the group's lead times", fmt=WEEKS)
        totals.append(total)
        variances.append(variance)
        leads.append(lead)
        grid.rows.append([group, f"{name} total", "", None, "", None, "the group's extended costs added",
                          None, "", total, None, variance, lead])
    total = s.calc("total", "Bill of materials: total (the TCO's IT capex)", "USD", added(totals), fmt=USD)
    variance = s.calc("variance_total", "Bill of materials: variance vs budget", "USD", added(variances), fmt=USD)
    path = s.calc("equipment_lead", "Equipment critical path: the longest group lead time + installation",
                  "weeks", max_(*leads) + i.install_time, "MAX of the groups' lead times + installation",
                  fmt=WEEKS)
    months = s.calc("equipment_lead_months", "Equipment critical path in whole months", "months",
                    ceil(path / Const(1, "fmonth")) * Const(1, "fmonth"),
                    "ROUNDUP(weeks / weeks in a month): the TCO's service start waits for it", fmt=COUNT)
    grid.rows.append(["total", "Total", "", None, "", None, "every group's total", None, "", total, None, variance,
                      path])
    grid.rows.append(["lead", "Critical path, whole months", "", months, "months", None,
                      "ROUNDUP(longest group lead time + installation, in months): the TCO's service start",
                      None, "", None, None, None, None])
    return total, variance, path, months


def _checks(s: SheetBuilder, fabric: FabricOut, oob: OobOut, rows: list[tuple[Item, Line, Line | None]],
            quotes: dict[str, Quote], q: Inputs | None, i: Inputs) -> None:
    """The BOM ties out with the Fabric's counts; every quote is fresh."""
    qty = {item.key: line for item, line, _ in rows}
    optics = [line for key, line in qty.items() if key.endswith("_optics_mm") or key.endswith("_optics_sm")]
    single = [line for key, line in qty.items() if key.endswith("_optics_sm")]
    cables = [line for key, line in qty.items() if key.endswith(("_cables_mm", "_cables_sm", "_cables_dac"))]
    s.check("transceivers_tie_out", "The BOM's transceivers add up to the Fabric's count",
            added(optics).eq(fabric.transceivers_total),
            "the BOM's transceiver rows added = [Transceivers (compute, storage, in-band)] (Fabric)")
    s.check("single_mode_tie_out", "The BOM's single-mode transceivers add up to the Fabric's count",
            added(single).eq(fabric.single_mode_transceivers_total),
            "the BOM's single-mode transceiver rows added = [Single-mode transceivers (compute, storage, in-band)] "
            "(Fabric)")
    s.check("cables_tie_out", "The BOM's fibre and copper cables add up to the Fabric's count",
            added(cables).eq(fabric.cables_total), "the BOM's fibre and peer-link copper rows added = [Cables "
            "(compute, storage, in-band)] (Fabric)")
    s.check("inband_switches_tie_out", "The BOM's in-band switches add up to the Fabric's count",
            added([qty[f"inband_{tier}_switches"] for tier in ("leaf", "spine", "core")]).eq(fabric.inband_switches),
            "in-band leaf + spine + core rows = [In-band network switches] (Fabric)")
    if q is None:
        return
    for key, quote in quotes.items():
        s.check(f"quote_{key}_fresh", f"The quote for {key} ({quote.vendor}) is at most the stale age old",
                q.price_date - getattr(q, f"quote_{key}_date") <= i.quote_max_age)
        s.check(f"quote_{key}_quantity", f"The quote for {key} ({quote.vendor}) was for today's quantity",
                qty[key].eq(getattr(q, f"quote_{key}_qty")))


def _first(line: Line) -> float:
    return float(line.value.reshape(-1)[0])


def _items(i: Inputs, p: Inputs, t: Inputs, e: dict[str, Inputs], power: PowerOut, fabric: FabricOut,
           cooling: CoolingOut, oob: OobOut, parts: dict[str, str]) -> list[Item]:
    """Every row, in the sheet's order; `e` the fabric's and cooling's inputs (for specs)."""
    part: Callable[[str, str], str] = lambda kind, default: parts.get(kind, default)  # noqa: E731
    mm = lambda tier: 1 - tier  # noqa: E731  (a tier's single-mode flag -> its multimode share)
    liquid_racks = power.racks * flag(cooling.rack_liquid_heat > Const(0, "kW"))
    bought = i.choice("cabinets") == "buy"
    colo = "" if bought else "supplied with the colocation cabinets (in the colocation price)"
    devices = fabric.switches_total + oob.oob_switches + i.fabric_managers + i.management_nodes
    return [
        Item("nodes", "compute", "GPU nodes", part("node", "GPU node"), power.nodes, "nodes",
             "ROUNDUP(GPUs / GPUs per node) (Power chain)", t.server_price),
        Item("gpus", "compute", "GPUs (in the nodes)", part("gpu", "GPU"), power.gpus, "GPUs",
             "the cluster plan (Inputs)", included="in the node price"),
        Item("management_nodes", "compute", "Head and management nodes", "2-socket x86 server, 1U/2U, for the "
             "cluster manager (high-availability pair), login and scheduler", i.management_nodes, "nodes",
             "the site's choice (Inputs)", i.management_node_price),
        *_network_items(i, p, t, e["fabric"], fabric, oob, part, mm),
        Item("racks", "power", "Rack cabinets", f"{_first(p.rack_units):g} U cabinet, {_first(p.rack_width):g} m "
             f"wide, {_first(e['cooling'].rack_depth):g} m deep", power.racks_total, "racks",
             "compute racks + network, storage and management racks (Power chain)", i.rack_price if bought else None,
             included=colo),
        Item("pdus", "power", "Rack PDUs", f"{_first(p.pdu_breaker):g} A {_first(p.rack_voltage):g} V "
             f"{p.choice('rack_supply')} zero-U rack PDU (one per feed: A and B)", power.pdus, "PDUs",
             "PDUs per compute rack x compute racks + 2 per other rack (Power chain)", i.pdu_price if bought else None,
             included=colo),
        Item("power_cords", "power", "Power cords, nodes", "C19-C20 power cord, PDU outlet to node power supply",
             power.nodes * i.node_power_cords, "cords", "nodes x power cords per node", i.power_cord_price),
        Item("device_power_cords", "power", "Power cords, switches and appliances", "C13-C14 power cord, PDU "
             "outlet to switch or server power supply", devices * i.device_power_cords, "cords",
             "(fabric + out-of-band switches + fabric managers + management nodes) x cords each", i.power_cord_price),
        Item("cdus", "cooling", "Coolant distribution units (CDUs)", part("cdu", "CDU"), cooling.cdus_installed,
             "CDUs", "CDUs installed with redundancy (Cooling)", i.cdu_price),
        Item("manifolds", "cooling", "Rack coolant manifolds", "supply and return manifold per liquid-cooled rack",
             liquid_racks, "manifolds", "compute racks with heat to liquid (Cooling: heat to liquid per rack > 0)",
             i.manifold_price),
        Item("hoses", "cooling", "Coolant hoses", "quick-disconnect hose, manifold to CDU loop",
             liquid_racks * i.hoses_per_rack, "hoses", "liquid-cooled racks x hoses per rack", i.hose_price),
    ]


def _storage_items(t: Inputs, storage: ReliabilityOut | None, parts: dict[str, str]) -> list[Item]:
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


def _spare_items(spares: tuple[Spare, ...]) -> list[Item]:
    """Spares per part type: the Reliability sheet's held counts at the part's own budget price."""
    return [Item(f"spare_{x.key}", "spares", f"Spare {x.label}", x.spec or f"spare {x.label}, as installed",
                 x.held, x.unit, "repair pipeline (Little's law) + hot pool + correlated buffer, held when waiting "
                 "costs more than the part (Reliability)", x.price) for x in spares]


def _network_items(i: Inputs, p: Inputs, t: Inputs, fi: Inputs, f: FabricOut, oob: OobOut,
                   part: Callable[[str, str], str], mm: Callable[[Any], Any]) -> list[Item]:
    """Switches by network and tier, transceivers by end and type, cables by tier, type and length."""
    sw, st = part("switch", "fabric switch"), part("storage_switch", "storage switch")
    ib = part("inband_switch", "in-band Ethernet switch")
    out = [Item(f"{net}{tier}_switches", "network", f"{name} {tier} switches", spec, count, "switches",
                f"{name} network tiers (Fabric)", price)
           for net, name, spec, tiers, price in (
               ("", "Compute", sw, (f.leaves, f.spines, f.cores), t.switch_price),
               ("storage_", "Storage", st, (f.storage_leaves, f.storage_spines, f.storage_cores), t.switch_price),
               ("inband_", "In-band", ib, (f.inband_leaves, f.inband_spines, f.inband_cores), i.inband_switch_price))
           for tier, count in zip(("leaf", "spine", "core"), tiers, strict=True)]
    out.append(Item("oob_switches", "network", "Out-of-band switches", part("oob_switch", "management switch"),
                    oob.oob_switches, "switches", "ROUNDUP(out-of-band endpoints / ports per switch) (Fabric)",
                    t.oob_switch_price))
    out.append(Item("fabric_managers", "network", "Fabric manager appliances", "fabric manager appliance (UFM "
                    "class), high-availability pair", i.fabric_managers, "appliances", "the site's choice (Inputs)",
                    i.fabric_manager_price))
    out += _optic_items(i, t, fi, f, part, mm)
    out += _cable_items(i, t, f, mm)
    out.append(Item("oob_cables", "network", "Out-of-band copper cables", "Cat6 patch cable, RJ45",
                    oob.oob_endpoints, "cables", "one per out-of-band endpoint (Fabric)", i.oob_cable_price))
    return out


def _optic_items(i: Inputs, t: Inputs, fi: Inputs, f: FabricOut, part: Callable[[str, str], str],
                 mm: Callable[[Any], Any]) -> list[Item]:
    """Transceivers by network, end and type: each row's multimode and single-mode split by its tier's flag."""
    flags = (f.node_leaf_single_mode, f.leaf_spine_single_mode, f.spine_core_single_mode)
    ib_flags = (f.inband_node_leaf_single_mode, f.inband_leaf_spine_single_mode, f.inband_spine_core_single_mode)
    optic = part("optic", "switch-side transceiver")
    ib_optic = f"100GbE-class in-band transceiver, multimode, {_first(fi.inband_optic_power):g} W"
    single = "single-mode transceiver for the tier's runs (beyond the multimode reach)"
    compute_sm, ib_sm = t.single_mode_transceiver_price, i.inband_single_mode_transceiver_price
    optics = [  # (key, label, count, tier flag, multimode spec, multimode price, single-mode price, why)
        ("node", "Host-side transceivers", f.node_transceivers, flags[0], f"host-side transceiver for the node's "
         f"NIC cages, {_first(fi.links_per_node_optic):g} x {_first(fi.nic_speed):g} Gbit/s ports, multimode, "
         f"{_first(fi.node_optic_power):g} W", i.node_transceiver_price, compute_sm,
         "hosts x ROUNDUP(rails / links per host-side transceiver) (Fabric)"),
        ("leaf_host", "Leaf transceivers, host links", f.node_leaf_switch_transceivers, flags[0], optic,
         t.transceiver_price, compute_sm, "ROUNDUP(host-leaf links / ports per cage) (Fabric)"),
        ("leaf_spine", "Leaf-spine transceivers (both ends)", f.leaf_spine_transceivers, flags[1], optic,
         t.transceiver_price, compute_sm, "2 x ROUNDUP(leaf-spine links / ports per cage) (Fabric)"),
        ("spine_core", "Spine-core transceivers (both ends)", f.spine_core_transceivers, flags[2], optic,
         t.transceiver_price, compute_sm, "2 x ROUNDUP(spine-core links / ports per cage) (Fabric)"),
        ("storage_port", "Storage endpoint transceivers (single-port)", f.storage_endpoints, flags[0],
         f"single-port transceiver at a node or storage system port, multimode, {_first(fi.storage_optic_power):g} W",
         i.storage_port_transceiver_price, compute_sm, "one per storage network endpoint port (Fabric)"),
        ("storage_leaf", "Storage leaf transceivers, endpoint links", f.storage_leaf_transceivers, flags[0], optic,
         t.transceiver_price, compute_sm, "ROUNDUP(endpoint links / ports per cage) (Fabric)"),
        ("storage_leaf_spine", "Storage leaf-spine transceivers (both ends)", f.storage_leaf_spine_transceivers,
         flags[1], optic, t.transceiver_price, compute_sm, "2 x ROUNDUP(leaf-spine links / ports per cage) (Fabric)"),
        ("storage_spine_core", "Storage spine-core transceivers (both ends)", f.storage_spine_core_transceivers,
         flags[2], optic, t.transceiver_price, compute_sm, "2 x ROUNDUP(spine-core links / ports per cage) (Fabric)"),
        ("inband_port", "In-band endpoint transceivers (node and server ports)", f.inband_node_ports
         + f.inband_server_ports, ib_flags[0], ib_optic, i.inband_transceiver_price, ib_sm,
         "one per node and server in-band port; a site uplink's far end is the site's (Fabric)"),
        ("inband_leaf", "In-band leaf transceivers, endpoint links", f.inband_leaf_transceivers, ib_flags[0],
         ib_optic, i.inband_transceiver_price, ib_sm, "ROUNDUP(endpoint links / ports per cage) (Fabric)"),
        ("inband_leaf_spine", "In-band leaf-spine transceivers (both ends)", f.inband_leaf_spine_transceivers,
         ib_flags[1], ib_optic, i.inband_transceiver_price, ib_sm,
         "2 x ROUNDUP(leaf-spine links / ports per cage) (Fabric)"),
        ("inband_spine_core", "In-band spine-core transceivers (both ends)", f.inband_spine_core_transceivers,
         ib_flags[2], ib_optic, i.inband_transceiver_price, ib_sm,
         "2 x ROUNDUP(spine-core links / ports per cage) (Fabric)"),
    ]
    out = []
    for key, label, count, tier, spec, price, sm_price, why in optics:
        out.append(Item(f"{key}_optics_mm", "network", f"{label}, multimode", spec, count * mm(tier), "modules",
                        f"{why}, on a multimode tier", price))
        out.append(Item(f"{key}_optics_sm", "network", f"{label}, single-mode", single, count * tier, "modules",
                        f"{why}, on a tier whose runs need single-mode", sm_price))
    return out


def _cable_items(i: Inputs, t: Inputs, f: FabricOut, mm: Callable[[Any], Any]) -> list[Item]:
    """Fibre cables by network, tier, type and length class; the in-band pairs' peer-link copper."""
    flags = (f.node_leaf_single_mode, f.leaf_spine_single_mode, f.spine_core_single_mode)
    ib_flags = (f.inband_node_leaf_single_mode, f.inband_leaf_spine_single_mode, f.inband_spine_core_single_mode)
    cables = [  # (key, label, links, tier flag, run)
        ("node_leaf", "Host-leaf cables", f.node_leaf_links, flags[0], f.node_leaf_run),
        ("leaf_spine", "Leaf-spine cables", f.leaf_spine_links, flags[1], f.leaf_spine_run),
        ("spine_core", "Spine-core cables", f.spine_core_links, flags[2], f.spine_core_run),
        ("storage_endpoint", "Storage endpoint cables", f.storage_endpoints, flags[0], f.node_leaf_run),
        ("storage_leaf_spine", "Storage leaf-spine cables", f.storage_leaf_spine_links, flags[1], f.leaf_spine_run),
        ("storage_spine_core", "Storage spine-core cables", f.storage_spine_core_links, flags[2], f.spine_core_run),
        ("inband_endpoint", "In-band endpoint cables (site uplinks included)", f.inband_endpoints, ib_flags[0],
         f.node_leaf_run),
        ("inband_leaf_spine", "In-band leaf-spine cables", f.inband_leaf_spine_links, ib_flags[1], f.leaf_spine_run),
        ("inband_spine_core", "In-band spine-core cables", f.inband_spine_core_links, ib_flags[2], f.spine_core_run),
    ]
    step = i.cable_length_step
    out = []
    for key, label, links, tier, run in cables:
        length = ceil(run / step) * step
        out.append(Item(f"{key}_cables_mm", "network", f"{label}, multimode fibre",
                        "multimode fibre cable, OM4, MPO-12/APC",
                        links * mm(tier), "cables", "one per link (Fabric), on a multimode tier", t.cable_price,
                        length))
        out.append(Item(f"{key}_cables_sm", "network", f"{label}, single-mode fibre", "single-mode fibre cable, "
                        "OS2, MPO-12/APC", links * tier, "cables", "one per link (Fabric), on a single-mode tier",
                        i.single_mode_cable_price, length))
    out.append(Item("inband_peer_cables_dac", "network", "In-band peer-link cables, passive copper (DAC)",
                    "passive copper (DAC) cable, in the leaf pair's rack", f.inband_peer_cables, "cables",
                    "leaf pairs x peer links (Fabric)", i.dac_price))
    return out
