"""Summary: the answer first (rent or buy, in one sentence and its figures), the master check, the
estimates to confirm, then the engineering headline and where the facility power goes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from workbook.analysis.sensitivity import validity_checks
from workbook.book.book import Book, SheetBuilder
from workbook.book.formats import odds_shown
from workbook.book.presentation import Chart, Presented, Table
from workbook.book.sheets import CHECKS, SENSITIVITY, SUMMARY
from workbook.formula.functions import all_, false_on_error, only_if
from workbook.formula.line import BOOL, Line
from workbook.models.base import Inputs, Scope
from workbook.models.power.power import PowerOut
from workbook.models.power.ups import UpsOut
from workbook.models.tco import TcoOut
from workbook.site.spec import Site

PREFIX = "summary"
# The answer in words, on the NPV advantage of buying: {n} is its figure's number format and {u} its unit, chosen when
# the workbook is written (workbook.book.formats: MUSD from 1 million, else kUSD). Live: an edited input rewords it.
ANSWER = ('"Buy: owning costs "{n}" {u} less than renting (NPV)";'
          '"Rent: owning costs "{n}" {u} more than renting (NPV)";'
          '"Either: owning costs the same as renting (NPV)"')
CONFIRM_MOST = 4  # estimates listed on the Summary, those that move the NPV advantage most
_CONFIDENCE = re.compile(r"\[([EL])\b")  # an engineering estimate [E] or a low-confidence source [L]


@dataclass(frozen=True)
class Confirm:
    """An input to confirm first: an estimate (defaulted or marked so), and what its swing does to the answer."""

    line: Line
    note: str


def master_checks(book: Book, aside: tuple[str, ...] = ()) -> list[Line]:
    """The checks the master check ANDs: every check but the Sensitivity section's and those of the `aside`
    scenarios (define_checks says why)."""
    skip = tuple(f"scenario.{name}." for name in aside)
    return [line for line in book.lines.values() if line.kind == "check" and not line.id.startswith(skip)
            and line.section != SENSITIVITY]


def define_checks(book: Book, aside: tuple[str, ...] = ()) -> Line:
    """The master check: every check of every model and scenario defined so far, one TRUE/FALSE, FALSE where one of
    them is an error. The Sensitivity sheet's check that its build-time table is current stays out of it (a notice:
    an input edited to explore leaves every live figure right; sensitivity.current_check), and so do the
    checks of the `aside` scenarios (built in to price something, not the site's own plans: the month of delay)."""
    checks = master_checks(book, aside)
    s = book.sheet(CHECKS, "checks")
    s.section("All checks")
    return s.calc("all_pass", "All checks pass", "TRUE/FALSE", false_on_error(all_(*checks)),
                  "AND of every check below but the Sensitivity section's (whether a build-time table is current: "
                  "a notice, not a check of the design); FALSE, not an error, where a check is an error (an input "
                  "pasted past its validation)", fmt=BOOL)


def define(scope: Scope, all_pass: Line, power: PowerOut, ups: UpsOut, tco: TcoOut, t: Inputs,
           confirm: list[Confirm], risk: Any = None, standby: Any = None) -> tuple[SheetBuilder, Presented]:
    """The Summary's own rows, the answer first: the sentence and its figures (with the inputs that drive it), the
    master check, the estimates to confirm, the cluster and its power; its charts, the decision's beside
    the answer, and the answer for the Cover. Returns the sheet, on which each model then summarises itself, and
    what it presents. `t`: the TCO's inputs; `standby`: the site's standby generators (GeneratorOut)."""
    s = scope.sheet(SUMMARY)
    s.section("The answer: rent or buy (TCO sheet; after tax, unlevered, at the cost of capital)")
    valid, checks = _validity(scope.book)
    answer = s.calc("answer", "The answer", "USD", only_if(valid, tco.npv_advantage, NOT_VALID), fmt=ANSWER)
    s.show(t.reserved_share, "rent_in_force", "Renting as the site rents: share of the GPUs reserved (at most the "
                                               "utilisation; the rest on demand)")
    shown = {}
    for line in tco.answer_figures:
        if line.is_bool:  # a TRUE/FALSE statement shows as it is (no message in a TRUE/FALSE cell)
            shown[line.id] = s.show(line)
        else:
            shown[line.id] = s.calc(line.id.replace(".", "_"), line.label, line.unit_text,
                                    only_if(valid, line, NOT_VALID), fmt=line.fmt)
    for line in (t.utilisation, t.on_demand_price, t.reserved_price):
        s.show(line)
    s.show(t.tax_rate, "tax_rate_shown", "Tax rate (0: no tax modelled, after-tax figures equal pre-tax ones)")
    for check in checks:
        s.show(check, f"valid_{check.name}", f"The figures rest on: {check.label}")
    if risk is not None:
        _odds(s, risk)
    s.section("The master check")
    master = s.calc("all_checks_pass", "All checks pass (see Checks)", "TRUE/FALSE", all_pass, fmt=BOOL)
    _confirm(s, confirm)
    s.section("The cluster and its power")
    for key, line in (("gpus", power.gpus), ("nodes", power.nodes), ("racks", power.racks),
                      ("racks_total", power.racks_total), ("it_load", power.it_load),
                      ("facility_power", power.facility_power), ("contracted_feed", power.contracted_feed),
                      ("gpus_per_mw", power.gpus_per_mw), ("node_power", power.node_power),
                      ("feed_blocks", power.feed_blocks), ("ups_blocks", ups.ups_blocks),
                      ("gpu_share", power.gpu_share)):
        s.show(line, key)
    if standby is not None:  # the standby generators (Power chain sheet): sets and the chance they fail to start
        s.show(standby.generator_blocks, "generator_sets", "Standby generator sets installed")
        s.show(standby.generator_start_failure, "generator_start_failure")
    pie = _power_split(s, power)
    # the answer is the pack's first page too: the Cover repeats it and its figures under its title, live
    cover = [shown[line.id] for line in (tco.npv_advantage, tco.npv_advantage_on_demand, tco.npv_advantage_committed,
                                         tco.owned_cost_per_gpu_hour, tco.rented_cost_per_gpu_hour,
                                         tco.break_even_utilisation, tco.irr_buy)]
    return s, Presented(charts=(*_decision_charts(t, tco), pie), headline=(answer, *cover, master))


NOT_VALID = "n/a: a check these figures rest on fails (see the validity checks below)"


def _validity(book: Book) -> tuple[Line, list[Line]]:
    """TRUE while every check the model's own numbers rely on holds (the life fits the timeline, renting's NPV
    equals its parts...), on the Checks sheet: where one fails the answers say n/a, and the Summary lists each
    check below them. Returns the line and the checks."""
    checks = validity_checks(book)
    valid = book.sheet(CHECKS, "checks").calc(
        "figures_valid", "The figures are valid: every check they rest on passes", "TRUE/FALSE",
        false_on_error(all_(*checks)), "AND of the validity checks (the Summary lists each under the answer)",
        fmt=BOOL)
    return valid, checks


def _odds(s: SheetBuilder, risk: Any) -> None:
    """The risk's answer in two sentences: how likely buying wins, and the range of the NPV advantage (build-time
    values from the Risk sheet, said so)."""
    d = risk.decision
    p10, p50, p90 = (d.percentiles[k] for k in (1, 2, 3))
    s.section(f"The odds (Risk sheet: {risk.samples:,} samples of the risk: section's ranges; build-time values)")
    s.text(f"Probability that buying wins (NPV advantage above 0): {odds_shown(risk.probability_buy_wins)}.")
    s.text(f"NPV advantage of buying, P10 to P90: {p10 / 1e6:+,.1f} to {p90 / 1e6:+,.1f} MUSD (P50 {p50 / 1e6:+,.1f}; "
           f"base case {d.base / 1e6:+,.1f}, at P{round(d.base_percentile * 100)}).")


def _confirm(s: SheetBuilder, confirm: list[Confirm]) -> None:
    s.section("To confirm first: the estimates that move the NPV advantage most (Sensitivity sheet)")
    if not confirm:
        s.text("None: each input that moves it most has a vendor or published source.")
    for item in confirm:
        s.calc(f"confirm_{item.line.name}", item.line.label, item.line.unit_text, item.line, item.note,
               fmt=item.line.fmt)


def _decision_charts(t: Inputs, tco: TcoOut) -> tuple[Chart, Chart]:
    """Beside the answer: the cost per GPU-hour used against utilisation, owning, renting as the site rents and a
    committed contract, with the site's operating point; then the cumulative cash out of each to the end of the
    useful life."""
    return (Chart(SUMMARY, "Cost per GPU-hour used against utilisation: owning, renting as the site rents, a "
                           "committed contract", "scatter",
                  list(tco.curve_owned), y_title="USD per GPU-hour", x_title="utilisation",
                  categories=list(tco.curve_utilisation), extra=[list(tco.curve_rented), list(tco.curve_committed)],
                  highlight=(t.utilisation, tco.owned_cost_per_gpu_hour),
                  highlight_name="This site: owned, at its utilisation", zoom=2.0),
            Chart(SUMMARY, "Cumulative cash out: owning vs renting", "line", [tco.own_cumulative, tco.rent_cumulative],
                  y_title="USD", x_title="month", periods=tco.service_end))


def _power_split(s: SheetBuilder, power: PowerOut) -> Chart:
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
    return Chart(SUMMARY, "Where the facility power goes (kW, design load)", "pie", parts)


def to_confirm(site: Site, table: Table, lead_time: Line | None = None,
               tax_rate: Line | None = None) -> list[Confirm]:
    """The inputs a reviewer should confirm first: those of the tornado (widest first) whose value is an estimate
    (marked [E] or [L] in its source: a default of templates/defaults.yaml, a catalog entry's, or the site file's
    own), up to CONFIRM_MOST, each with where it came from and its swing of the NPV advantage; and the lead time
    where it is one (a whole number of months: the tornado does not swing it, the delay scenario prices a month of
    it)."""
    out = []
    changes = 5 + 2 * len(table.outputs)  # the first output's change at low, then at high
    for line, row in zip(table.input_lines, table.rows, strict=True):
        why = _estimate(site, line.id)
        if why and len(out) < CONFIRM_MOST:
            lo, hi = (_musd(row[changes + k]) for k in (0, 1))
            out.append(Confirm(line, f"{why}; NPV advantage {lo} / {hi} MUSD at -/+{table.swing:.0%} (build-time)"))
    if lead_time is not None and _estimate(site, lead_time.id) and all(c.line is not lead_time for c in out):
        out.append(Confirm(lead_time, f"{_estimate(site, lead_time.id)}; a month more is 'A month of delay' below"))
    if tax_rate is not None and float(tax_rate.value.reshape(-1)[0]) == 0:
        out.append(Confirm(tax_rate, "no tax modelled: every after-tax figure equals its pre-tax one; confirm the "
                                     "owner pays none (or give its rate)"))
    return out


def _estimate(site: Site, key: str) -> str:
    """Where an estimate came from and its confidence (`default [E]`, `catalog node DGX-B200 [L]`, `site file
    [E]`), or '' for a value with a vendor or published source ([H], [M] or none)."""
    value = site.get(key)
    if value is None:
        return ""
    tag = _CONFIDENCE.search(value.source)
    if tag is None:
        return ""
    if value.source.startswith("default"):
        return f"default [{tag.group(1)}]"
    if value.source.startswith("catalog"):
        return f"{value.source.split(':')[0]} [{tag.group(1)}]"
    return f"site file [{tag.group(1)}]"


def _musd(x: object) -> str:
    return f"{x / 1e6:+,.1f}" if isinstance(x, float) else "n/a"
