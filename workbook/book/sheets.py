"""Every sheet title of the workbook, named once; the modules that fill a sheet and the writer import it."""

from __future__ import annotations

COVER = "Cover"
INPUTS = "Inputs"
SUMMARY = "Summary"
COMPARISON = "Scenario comparison"
POWER = "Power chain"
FABRIC = "Fabric"
COOLING = "Cooling"
ENVELOPE = "Power envelope"  # the GPUs and compute a fixed feed holds, by fleet, at TDP and power-capped
RELIABILITY = "Reliability"  # interruptions, checkpoints and goodput, storage sized from the checkpoint burst, spares
BOM = "BOM"  # the bill of materials: every quantity, priced (budget or quoted), the TCO's IT capex
TCO = "TCO"
PL = "P&L"
CASH = "Cash flows"
WORKLOAD = "Workload"  # a training run's days and cost, inference's users, tokens/s and cost per million tokens
SCENARIOS = "Scenarios"
SCENARIOS_YEARLY = "Scenarios by year"  # clones of the yearly roll-ups (a sheet has one axis)
DELAY = "Delay scenario"  # the built-in scenario one month late: live in the workbook, not printed (the TCO shows it)
DELAY_YEARLY = "Delay scenario by year"
NOT_PRINTED = (DELAY, DELAY_YEARLY)  # sheets the PDF leaves out (said on the Cover)
SENSITIVITY = "Sensitivity"
WORKLOAD_SENSITIVITY = "Workload sensitivity"  # the tornado of the training run's cost and a million tokens'
RISK = "Risk"  # the decision under the risk: section's input distributions (values computed at build time)
UPGRADE_COMPARISON = "Upgrade comparison"  # a generation upgrade's plans side by side (a view)
UPGRADE_RACKS = "Upgrade racks"  # what a rack of each fleet needs and gives; the hall at the start; the projects
UPGRADE_PLANS = "Upgrade plans"  # moving instead, and each plan's compute by month
UPGRADE = "Upgrade"  # one plan: `Upgrade (staged_swap)`
CHECKS = "Checks"

# The order a full workbook shows them in (after the Cover): the answer first (the Summary), then the models that
# make it, and the Inputs behind the results, before the Checks. A model instance's sheets follow its model's.
ORDER = (SUMMARY, COMPARISON, POWER, FABRIC, COOLING, ENVELOPE, RELIABILITY, UPGRADE_COMPARISON, UPGRADE_RACKS,
         UPGRADE_PLANS, BOM,
         TCO, PL, CASH, WORKLOAD, SCENARIOS, SCENARIOS_YEARLY, DELAY, DELAY_YEARLY, SENSITIVITY, WORKLOAD_SENSITIVITY,
         RISK, INPUTS,
         CHECKS)


def ordered(titles: list[str]) -> list[str]:
    """Sheet titles in the workbook's order: those of ORDER in its order, each followed by the sheets of its model's
    other instances (`Power chain (next)` after `Power chain`), then any other in the order given."""
    def base(title: str) -> str:
        return title.split(" (")[0] if title not in ORDER else title

    plans = ORDER.index(UPGRADE_PLANS) + 1  # a plan's own sheets (`Upgrade (staged_swap)`) after the plans'
    rank = {title: k for k, title in enumerate((*ORDER[:plans], UPGRADE, *ORDER[plans:]))}
    given = {title: k for k, title in enumerate(titles)}
    return sorted(titles, key=lambda t: (rank.get(base(t), len(ORDER)), base(t) != t, given[t]))


MAX_TITLE = 31  # Excel's limit on a sheet name


def instance_title(title: str, namespace: str) -> str:
    """A model instance's sheet: `Power chain (fleet_new)`; the site's own instance keeps the plain title."""
    shown = f"{title} ({namespace})" if namespace else title
    if len(shown) > MAX_TITLE:
        raise ValueError(f"sheet title {shown!r} is longer than Excel's {MAX_TITLE} characters; use a shorter "
                         "namespace")
    return shown
