"""The bill of materials: every quantity the models produce, priced, with the reason for each count.

One row per thing a vendor would quote (nodes, racks, PDUs, power cords, switches by tier and network,
transceivers by end and type, cables by type and length class, CDUs, manifolds, hoses, the fabric manager and
its licences, storage, spares; installation and cabling), in groups a vendor quotes (workbook.models.bom.items).
Each quantity is a live formula on the model line it comes from; each unit price is the budget input, or the
vendor's quoted price where a quote was imported (workbook.site.quotes).

Each hardware group ends with its equipment subtotal and two rows of its own, so that a vendor quoting only that
group quotes them too: shipping and insurance (one lot; budget: a share of the group's equipment) and support and
warranty (priced per year of cover, for the years of the useful life; budget: the TCO's support rate x the
group's equipment). The TCO's IT capex is the total of the groups and services; support is not capex: its
yearly price is the TCO's hardware support, counted there once. The longest lead time of each group sets the
equipment's critical path, which the TCO's service start waits for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Grid, GridColumn, Presented, Section
from workbook.book.sheets import BOM as TITLE
from workbook.formula.expr import Const
from workbook.formula.functions import added, ceil, close, flag, max_
from workbook.formula.line import COUNT, Line
from workbook.models.base import AllInputs, Inputs, Scope
from workbook.models.bom.cables import TABLE_COLUMNS, TABLE_NOTE
from workbook.models.bom.items import CABLES, OPTICS, SINGLE_MODE, Item, Models, hardware, services
from workbook.models.bom.quotes import QUOTE_FIELDS, quoted_line
from workbook.models.bom.terms import TERMS, Term, terms
from workbook.models.cooling import CoolingOut
from workbook.models.network.fabric import FabricOut
from workbook.models.network.oob import OobOut
from workbook.models.power.power import PowerOut
from workbook.models.reliability import ReliabilityOut, Spare, contract_words
from workbook.site.quotes import Quote
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "bom"
USD = "#,##0"
WEEKS = "#,##0"
GROUPS = {  # group key -> its heading; the order of the sheet and of the vendor's copy
    "compute": "Compute: GPU nodes, head and management nodes",
    "network": "Network: switches, fabric manager and licences, transceivers, cables",
    "power": "Power in the racks: cabinets, PDUs, power cords",
    "cooling": "Liquid cooling: CDUs, manifolds, hoses",
    "storage": "Storage",
    "spares": "Spares: parts held for failures (Reliability sheet)",
    "services": "Services: installation and cabling",
}
HARDWARE = ("compute", "network", "power", "cooling", "storage", "spares")  # each with shipping and support rows

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
    Spec("bom.node_transceiver_spec", "Host-side transceiver: its part number and spec, as the vendor quotes it",
         "", "a part number and spec as text of at most 200 characters",
         '"NVIDIA MMA4Z00-NS-FLT, 800G twin-port OSFP 2x400G SR4, multimode, 50 m, flat top"', text=200,
         optional=True),
    Spec("bom.nic_spec", "Compute NIC: its part number and spec, as a vendor quotes a spare", "",
         "a part number and spec as text of at most 200 characters",
         '"NVIDIA ConnectX-7 MCX75310AAS-NEAT: single-port 400G OSFP, PCIe 5.0 x16"', text=200, optional=True),
    Spec("bom.storage_port_transceiver_price", "Price per single-port transceiver at a storage endpoint", "USD",
         **_USD),
    Spec("bom.single_mode_cable_price", "Price per single-mode fibre cable", "USD", **_USD),
    Spec("bom.oob_cable_price", "Price per out-of-band copper patch cable", "USD", **_USD),
    Spec("bom.oob_uplink_cable_price", "Price per out-of-band uplink cable (100G QSFP28 active optical)", "USD",
         **_USD),
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
    Spec("bom.licence_price", "Fabric manager software licence per managed host, for the support term", "USD",
         **_USD),
    Spec("bom.cdu_price", "Price per CDU", "USD", **_USD),
    Spec("bom.manifold_price", "Price per rack coolant manifold", "USD", **_USD),
    Spec("bom.hoses_per_rack", "Coolant hoses per liquid-cooled rack", "count", "a count", "2", lo=0.0, hi=1000.0,
         integer=True, fmt=COUNT),
    Spec("bom.hose_price", "Price per coolant hose", "USD", **_USD),
    Spec("bom.shipping_share", "Shipping and insurance, share of a group's equipment price (budget)", "%",
         "a share", "0.01", lo=0.0, hi=1.0, fmt="0.0%"),
    Spec("bom.install_price", "Installation per rack (rack and stack, power up)", "USD", **_USD),
    Spec("bom.cabling_price", "Cabling per cable (install, label and test)", "USD", **_USD),
    *(Spec(f"bom.{g}_lead_time", f"Lead time, {g} (budget, until a vendor quotes)", "weeks", **_WEEKS)
      for g in GROUPS),
    Spec("bom.install_time", "Installation and commissioning after the last delivery", "weeks", **_WEEKS),
    Spec("bom.quote_max_age", "A quote older than this is stale (and the validity a request asks for)", "days",
         "a duration", "90 days", lo=1.0, hi=3650.0, fmt=COUNT),
    Spec("bom.price_date", "Date the plan is priced at (quotes' age is counted to it)", "days", "a date",
         "2026-12-01", date=True, optional=True, fmt="yyyy-mm-dd"),
    *TERMS,
])


@dataclass(frozen=True)
class BomOut:
    """The BOM's answers that the TCO reads, its rows (the vendor's copy lists them) and the request's terms."""

    total: Line
    variance_total: Line
    equipment_lead: Line
    equipment_lead_months: Line
    support_per_year: Line  # support and warranty, every group's yearly price: the TCO's hardware support
    rows: tuple[tuple[Item, Line, Line | None], ...]  # (item, its quantity line, its length line)
    presented: Presented  # the bill of materials and the cable runs by length class, as grids
    terms: tuple[Term, ...] = ()
    used: dict[str, tuple[Line, Line]] = field(default_factory=dict)  # priced line key -> (unit price used, lead)
    quoted: dict[str, tuple[Line, ...]] = field(default_factory=dict)  # quoted key -> its price, lead, qty, date
    covers: dict[str, Line] = field(default_factory=dict)  # a term licence's key -> its years of cover


@dataclass(frozen=True)
class _Priced:
    """A priced row's lines: quantity, unit price used, extended cost, variance vs budget, lead time."""

    item: Item
    qty: Line
    used: Line
    cost: Line
    variance: Line
    lead: Line


@dataclass
class _Sheet:
    """What the rows add up to as they are laid out: capex rows and support rows per group, and every row."""

    grid: Grid
    rows: list[tuple[Item, Line, Line | None]]
    capex: dict[str, list[_Priced]]
    support: list[_Priced]
    covers: dict[str, Line] = field(default_factory=dict)


def define(scope: Scope, i: AllInputs, power: PowerOut, fabric: FabricOut, cooling: CoolingOut, oob: OobOut,
           parts: dict[str, str], quotes: dict[str, Quote], quote_inputs: Any,
           storage: ReliabilityOut | None = None, spares: tuple[Spare, ...] = ()) -> BomOut:
    """The BOM sheet from the site's inputs (the BOM's; the power chain's, fabric's and cooling's for specs; the
    TCO's budget prices), the chosen quote per line key and their inputs (`quote_inputs`, on the Inputs sheet).
    `storage`: the Reliability sheet's storage tiers (where it sizes them; else the TCO's lump sum); `spares`:
    its spares per part type."""
    s = scope.sheet(TITLE)
    b = i.bom
    grid = Grid(TITLE, "Bill of materials", NOTE, COLUMNS)
    request = terms(b)
    _terms(s, b, request, grid)
    table = Grid(TITLE, "Cable runs by length class", TABLE_NOTE, TABLE_COLUMNS)
    models = Models(power, fabric, cooling, oob, storage, spares)
    items = hardware(i, models, parts, s, table) + services(b, models)
    sheet = _Sheet(grid, [], {g: [] for g in GROUPS}, [])
    for group, heading in GROUPS.items():
        grid.rows.append(Section(heading))
        for item in (x for x in items if x.group == group):
            _add(s, b, item, quotes, quote_inputs, sheet)
        if group in HARDWARE:
            _shipping_and_support(s, i, group, quotes, quote_inputs, sheet)
    total, variance, lead, months, support = _totals(s, b, sheet)
    _checks(s, fabric, oob, sheet.rows, items, quotes, quote_inputs, b)
    used = {x.item.key: (x.used, x.lead) for x in [*(p for ps in sheet.capex.values() for p in ps), *sheet.support]}
    quoted = {k: tuple(quoted_line(quote_inputs, k, f) for f in QUOTE_FIELDS) for k in quotes}
    return BomOut(total, variance, lead, months, support, tuple(sheet.rows), Presented(grids=(grid, table)), request,
                  used, quoted, dict(sheet.covers))


NOTE = ("Every quantity is a live formula on the model line it comes from (its name in the formula bar); unit "
        "prices are the budget inputs, or a vendor's quoted price where a quote was imported. The TCO's IT capex is "
        "the total; support and warranty, priced per year of cover, is its yearly hardware support (not capex). "
        "The facility (colocation fit-out or build) is priced on the TCO sheet.")
# Widths: the notes that set a row's height (the part's specification, the price's basis and source) wide, so a
# row takes two or three lines rather than five to nine; the sheet prints two pages across at 80% or more either
# way (the example's BOM: 20 pages before, 11 after).
COLUMNS = [GridColumn("Line", 26, printed=False), GridColumn("Item", 26, wrap=True),
           GridColumn("Part / spec", 52, wrap=True), GridColumn("Quantity", 10, omit_zero=True), GridColumn("Unit", 9),
           GridColumn("Length class (m)", 9),
           GridColumn("Why this quantity", 44, wrap=True), GridColumn("Unit price (USD)", 12),
           GridColumn("Price basis and source", 64, wrap=True), GridColumn("Extended (USD)", 14),
           GridColumn("Budget unit price (USD)", 12), GridColumn("Variance vs budget (USD, + over)", 13),
           GridColumn("Lead time (weeks)", 9)]


def _terms(s: SheetBuilder, b: Inputs, request: tuple[Term, ...], grid: Grid) -> None:
    """The request's terms, as the vendor's copy carries them, and the quote validity it asks for."""
    grid.rows.append(Section("Request for quotation: the terms the vendor's copy carries (site file, bom:)"))
    for term in request:
        grid.rows.append([term.key, term.label, term.text, None, "", None, term.source, None, "", None, None, None,
                          None])
    validity = s.calc("quote_validity", "Quote validity asked for (the stale age)", "days", b.quote_max_age,
                      "a quote older than this fails its check (Checks)", fmt=COUNT)
    grid.rows.append(["bom.quote_max_age", "Quote validity asked for", "days from the quote's date, at least",
                      validity, "days", None, "bom.quote_max_age: a quote older than this is stale (Checks)", None,
                      "", None, None, None, None])


def _add(s: SheetBuilder, b: Inputs, item: Item, quotes: dict[str, Quote], q: Any, sheet: _Sheet) -> None:
    """One item's row, and where its price adds up."""
    qty, length, priced = _row(s, b, item, quotes.get(item.key), q, sheet.grid)
    sheet.rows.append((item, qty, length))
    if item.cover is not None:  # a term licence: the years it covers, below it (the vendor's copy names them)
        sheet.covers[item.key] = cover = s.calc(f"{item.key}_cover", f"{item.label}: years of cover",
                                                "years of cover", item.cover, item.cover_why, fmt=COUNT)
        sheet.grid.rows.append([f"{item.key}_cover", f"{item.label}: years of cover", "the term each licence is "
                                "for", cover, "years of cover", None, item.cover_why, None, "", None, None, None,
                                None])
    if priced is not None:
        (sheet.support if item.recurring else sheet.capex[item.group]).append(priced)


def _shipping_and_support(s: SheetBuilder, i: AllInputs, group: str, quotes: dict[str, Quote], q: Any,
                          sheet: _Sheet) -> None:
    """A hardware group's equipment subtotal, then its shipping (one lot) and its support (per year of cover)."""
    b, t = i.bom, i.tco
    name = group.capitalize()
    priced = [x for x in sheet.capex[group] if x.item.shipped]
    equipment = s.calc(f"equipment_{group}", f"{name}: equipment", "USD", added([x.cost for x in priced]),
                       "the extended costs of the group's equipment added (not its licences)", fmt=USD)
    qtys = [x.qty for x in priced]
    has = s.calc(f"has_{group}", f"{name}: anything to deliver (1 = yes)", "flag",
                 flag(max_(*qtys) > 0) if qtys else Const(0), "1 when a line of the group has a quantity", fmt=COUNT)
    sheet.grid.rows.append([f"equipment_{group}", f"{name} equipment (the lines above)", "", has, "", None,
                            "1 when a line above has a quantity; their extended costs added (licences are not "
                            "shipped or supported)", None, "", equipment, None, None, None])
    whole = f"the {name.lower()} lines of this request"
    years = ceil(t.useful_life / Const(1, "fyear"))
    for item in (
        Item(f"shipping_{group}", group, f"Shipping and insurance: {name.lower()}", f"packing, freight, insurance "
             f"and delivery of {whole} to the delivery site, on the delivery terms: one lot (0 with a comment where "
             "the unit prices include it)", has, "lot", "one lot when the group has anything to deliver",
             b.shipping_share * equipment, basis="shipping share x the group's equipment "
             "(bom.shipping_share: its value and source on Inputs)"),
        Item(f"support_{group}", group, f"Support and warranty: {name.lower()}, per year", f"hardware support "
             f"and warranty for {whole}: {contract_words(i.reliability)}, firmware and software updates, "
             "technical support 24x7; price per year of cover", years * has, "years of cover",
             "the useful life in whole years (TCO), when the group has anything to deliver",
             t.support_rate * equipment * Const(1, "fyear"), basis=f"support rate per year x the group's equipment "
             f"({t.support_rate.note})", recurring=True),
    ):
        _add(s, b, item, quotes, q, sheet)


def _row(s: SheetBuilder, i: Inputs, item: Item, quote: Quote | None, q: Inputs | None,
         grid: Grid) -> tuple[Line, Line | None, _Priced | None]:
    """One item's cells: quantity and length class; with a price, the unit price used (quoted or budget), the
    extended cost, the budget price, the variance and the lead time (quoted, or the group's budget)."""
    k = item.key
    qty = s.calc(f"{k}_qty", item.label, item.unit, item.qty, item.why, fmt=COUNT)
    length = (s.calc(f"{k}_length", f"{item.label}: length class", "m", item.length,
                     "the length class (the length-class table)", fmt="#,##0") if item.length is not None else None)
    if item.price is None:
        grid.rows.append([k, item.label, item.spec, qty, item.unit, length, item.why, None, item.included,
                          None, None, None, None])
        return qty, length, None
    budget = s.calc(f"{k}_budget_price", f"{item.label}: budget unit price", "USD", item.price, fmt=USD)
    if quote is not None and q is not None:
        used = s.calc(f"{k}_unit_price", f"{item.label}: unit price (quoted)", "USD", quoted_line(q, k, "price"),
                      fmt=USD)
        lead_in = quoted_line(q, k, "lead")
        basis = f"quoted by {quote.vendor}, {quote.date_text} ({quote.file})"
        if quote.comment:
            basis += f"; vendor's comment: {quote.comment}"
    else:
        used = s.calc(f"{k}_unit_price", f"{item.label}: unit price (budget)", "USD", budget, fmt=USD)
        lead_in = getattr(i, f"{item.group}_lead_time")
        note = item.basis or getattr(item.price, "note", "")
        basis = f"budget: {note}" if note else "budget"
    cost = s.calc(f"{k}_cost", f"{item.label}: extended cost", "USD", qty * used, "quantity x unit price", fmt=USD)
    variance = s.calc(f"{k}_variance", f"{item.label}: variance vs budget", "USD", qty * (used - budget),
                      "quantity x (unit price - budget unit price)", fmt=USD)
    lead = s.calc(f"{k}_lead", f"{item.label}: lead time", "weeks", lead_in * flag(qty > 0),
                  "the quoted lead time, else the group's budget one; 0 for a line of no quantity", fmt=WEEKS)
    grid.rows.append([k, item.label, item.spec, qty, item.unit, length, item.why, used, basis, cost, budget,
                      variance, lead])
    return qty, length, _Priced(item, qty, used, cost, variance, lead)


def _totals(s: SheetBuilder, i: Inputs, sheet: _Sheet) -> tuple[Line, Line, Line, Line, Line]:
    """Each group's cost, variance and longest lead time; the total (the TCO's IT capex), the critical path and
    the support per year (the TCO's hardware support)."""
    grid = sheet.grid
    grid.rows.append(Section("Totals and lead times (the longest lead time of each group; the critical path)"))
    totals, variances, leads = [], [], []
    for group, priced in sheet.capex.items():
        if not priced:
            continue
        name = group.capitalize()  # the longest lead time of the group's lines of a quantity above 0
        total = s.calc(f"total_{group}", f"{name}: total", "USD", added([x.cost for x in priced]), fmt=USD)
        variance = s.calc(f"variance_{group}", f"{name}: variance vs budget", "USD",
                          added([x.variance for x in priced]), fmt=USD)
        lead = s.calc(f"lead_{group}", f"{name}: longest lead time", "weeks", max_(*[x.lead for x in priced]),
                      "MAX of the group's lead times", fmt=WEEKS)
        totals.append(total)
        variances.append(variance)
        leads.append(lead)
        grid.rows.append([group, f"{name} total", "", None, "", None, "the group's extended costs added (support "
                          "excluded)", None, "", total, None, variance, lead])
    total = s.calc("total", "Bill of materials: total (the TCO's IT capex)", "USD", added(totals), fmt=USD)
    variance = s.calc("variance_total", "Bill of materials: variance vs budget", "USD", added(variances), fmt=USD)
    path = s.calc("equipment_lead", "Equipment critical path: the longest group lead time + installation",
                  "weeks", max_(*leads) + i.install_time, "MAX of the groups' lead times + installation",
                  fmt=WEEKS)
    months = s.calc("equipment_lead_months", "Equipment critical path in whole months", "months",
                    ceil(path / Const(1, "fmonth")) * Const(1, "fmonth"),
                    "ROUNDUP(weeks / weeks in a month): the TCO's service start waits for it", fmt=COUNT)
    support = s.calc("support_per_year", "Support and warranty per year (the TCO's hardware support)", "USD/year",
                     added([x.used * flag(x.qty > 0) for x in sheet.support]) / Const(1, "fyear"),
                     "every group's support price per year of cover, where the group has anything", fmt=USD)
    grid.rows.append(["total", "Total (capex)", "", None, "", None, "every group's total", None, "", total, None,
                      variance, path])
    grid.rows.append(["lead", "Critical path, whole months", "", months, "months", None,
                      "ROUNDUP(longest group lead time + installation, in months): the TCO's service start",
                      None, "", None, None, None, None])
    grid.rows.append(["support", "Support and warranty per year (not capex)", "", None, "", None,
                      "each group's support price per year added: the TCO's hardware support", support, "USD/year",
                      None, None, None, None])
    return total, variance, path, months, support


def _checks(s: SheetBuilder, fabric: FabricOut, oob: OobOut, rows: list[tuple[Item, Line, Line | None]],
            items: list[Item], quotes: dict[str, Quote], q: Inputs | None, i: Inputs) -> None:
    """The BOM ties out with the Fabric's counts; every quote is fresh and for today's quantity."""
    qty = {item.key: line for item, line, _ in rows}
    optics = [qty[x.key] for x in items if OPTICS in x.tally]
    single = [qty[x.key] for x in items if SINGLE_MODE in x.tally]
    cables = [qty[x.key] for x in items if CABLES in x.tally]
    s.check("transceivers_tie_out", "The BOM's transceivers add up to the Fabric's count",
            close(added(optics), fabric.transceivers_total),
            "the BOM's transceiver rows added = [Transceivers (compute, storage, in-band)] (Fabric)")
    s.check("single_mode_tie_out", "The BOM's single-mode transceivers add up to the Fabric's count",
            close(added(single), fabric.single_mode_transceivers_total),
            "the BOM's single-mode transceiver rows added = [Single-mode transceivers (compute, storage, in-band)] "
            "(Fabric)")
    s.check("cables_tie_out", "The BOM's fibre and copper cables add up to the Fabric's count",
            close(added(cables), fabric.cables_total), "the BOM's fibre rows (every length class) and peer-link copper "
            "rows added = [Cables (compute, storage, in-band)] (Fabric)")
    s.check("inband_switches_tie_out", "The BOM's in-band switches add up to the Fabric's count",
            close(added([qty[f"inband_{tier}_switches"] for tier in ("leaf", "spine", "core")]),
                  fabric.inband_switches),
            "in-band leaf + spine + core rows = [In-band network switches] (Fabric)")
    if q is None:
        return
    for key, quote in quotes.items():
        s.check(f"quote_{key}_fresh", f"The quote for {key} ({quote.vendor}) is at most the stale age old",
                q.price_date - quoted_line(q, key, "date") <= i.quote_max_age)
        s.check(f"quote_{key}_quantity", f"The quote for {key} ({quote.vendor}) was for today's quantity",
                close(qty[key], quoted_line(q, key, "qty")))
