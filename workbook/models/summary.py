"""Summary: the figures a reviewer reads first, the master check, and where the facility power goes."""

from __future__ import annotations

from workbook.book import Book, SheetBuilder
from workbook.formula.functions import all_, false_on_error
from workbook.formula.line import BOOL, Line
from workbook.models.base import Scope
from workbook.models.power import PowerOut
from workbook.models.ups import UpsOut
from workbook.presentation import Chart
from workbook.sheets import CHECKS, SUMMARY

PREFIX = "summary"


def define_checks(book: Book, aside: tuple[str, ...] = ()) -> Line:
    """The master check: every check of every model and scenario defined so far, one TRUE/FALSE. The check
    that the Sensitivity table's build-time values are current comes later and stays out of it (a notice: an input
    edited to explore leaves every live figure right; workbook.sensitivity.current_check), and so do the checks of
    the `aside` scenarios (built in to price something, not the site's own plans: the month of delay)."""
    skip = tuple(f"scenario.{name}." for name in aside)
    checks = [line for line in book.lines.values() if line.kind == "check" and not line.id.startswith(skip)]
    s = book.sheet(CHECKS, "checks")
    s.section("All checks")
    return s.calc("all_pass", "All checks pass", "TRUE/FALSE", false_on_error(all_(*checks)),
                  "AND of every check below but the Sensitivity section's (whether a build-time table is current: "
                  "a notice, not a check of the design); FALSE, not an error, where a check is an error (an input "
                  "pasted past its validation)", fmt=BOOL)


def define(scope: Scope, all_pass: Line, power: PowerOut, ups: UpsOut) -> SheetBuilder:
    """The Summary's own rows: the master check, the cluster and its power, and the facility power's split.
    Returns the sheet, on which each model then summarises itself."""
    s = scope.sheet(SUMMARY)
    s.section("Checks")
    s.calc("all_checks_pass", "All checks pass (see Checks)", "TRUE/FALSE", all_pass, fmt=BOOL)

    s.section("Cluster")
    for key, line in (("gpus", power.gpus), ("nodes", power.nodes), ("racks", power.racks),
                      ("racks_total", power.racks_total)):
        s.show(line, key)

    s.section("Power")
    for key, line in (("node_power", power.node_power), ("it_load", power.it_load),
                      ("facility_power", power.facility_power), ("contracted_feed", power.contracted_feed),
                      ("feed_blocks", power.feed_blocks), ("ups_blocks", ups.ups_blocks),
                      ("gpu_share", power.gpu_share), ("gpus_per_mw", power.gpus_per_mw)):
        s.show(line, key)

    s.section("Where the facility power goes")
    gpu = power.gpu_board_power
    parts = [
        s.calc("share_gpu", "GPU boards", "kW", gpu),
        s.calc("share_node_rest", "Rest of the nodes (CPUs, memory, NICs, fans, PSU loss)", "kW",
               power.compute_power - gpu),
        s.calc("share_network", "Network switches and optics", "kW", power.network_power + power.optics_power),
        s.calc("share_storage_mgmt", "Storage and management", "kW",
               power.storage_power + power.management_power),
        s.calc("share_facility", "Facility overhead (cooling, distribution, other)", "kW", power.facility_overhead),
    ]
    scope.book.charts.append(Chart(SUMMARY, "Where the facility power goes (kW, design load)", "pie", parts))
    return s
