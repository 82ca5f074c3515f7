"""Summary: the figures a reviewer reads first, the master check, and where the facility power goes."""

from __future__ import annotations

from types import ModuleType

from workbook.formula.functions import all_
from workbook.formula.line import BOOL, CHECKS_SHEET, Book, Chart

TITLE, PREFIX = "Summary", "summary"


def define_checks(book: Book) -> None:
    """The master check: every check of every model, one TRUE/FALSE."""
    checks = [line for line in book.lines.values() if line.kind == "check"]
    s = book.sheet(CHECKS_SHEET, "checks")
    s.section("All checks")
    s.calc("all_pass", "All checks pass", "TRUE/FALSE", all_(*checks), "AND of every check below",
           fmt=BOOL)


def define(book: Book, models: list[ModuleType]) -> None:
    L = book.lines
    s = book.sheet(TITLE, PREFIX)
    s.section("Checks")
    s.calc("all_checks_pass", "All checks pass (see Checks)", "TRUE/FALSE", L["checks.all_pass"],
           fmt=BOOL)

    s.section("Cluster")
    for key in ("gpus", "nodes", "racks", "racks_total"):
        s.show(L[f"power.{key}"], key)

    s.section("Power")
    for key in ("node_power", "it_load", "facility_power", "contracted_feed", "feed_blocks", "ups_blocks",
                "gpu_share", "gpus_per_mw"):
        s.show(L[f"power.{key}"], key)

    s.section("Where the facility power goes")
    gpu = L["power.gpu_board_power"]
    compute = L["power.compute_power"]
    parts = [
        s.calc("share_gpu", "GPU boards", "kW", gpu),
        s.calc("share_node_rest", "Rest of the nodes (CPUs, memory, NICs, fans, PSU loss)", "kW",
               compute - gpu),
        s.calc("share_network", "Network switches and optics", "kW",
               L["power.network_power"] + L["power.optics_power"]),
        s.calc("share_storage_mgmt", "Storage and management", "kW",
               L["power.storage_power"] + L["power.management_power"]),
        s.calc("share_facility", "Facility overhead (cooling, distribution, other)", "kW",
               L["power.facility_overhead"]),
    ]
    book.charts.append(Chart(TITLE, "Where the facility power goes (kW, design load)", "pie", parts))

    for model in models:
        model.summarise(book, s)
