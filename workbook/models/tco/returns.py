"""Rates of return a committee can rely on: an IRR that is a proven root, the count of roots, and the MIRR.

An IRR is a rate at which the NPV of the flows is 0. Newton's method (the spreadsheet's IRR) finds one near its
guess, or runs away, or stops where there is none, and engines differ in where they stop. So the workbook finds the
roots itself: a row of candidate rates from the lowest to the highest rate searched (templates/method_constants.yaml,
-99% to +1,000% a year), each column one candidate, and the NPV at each as a share of the NPV of the flows' sizes;
a sign change between two candidates brackets a root. A second row of candidates inside the first bracket narrows
it; IRR is seeded at its middle, polished by a second IRR, and a live check proves the result: inside the bracket,
and the NPV there 0 within the method's tolerance. The IRR cell shows it only when proven; with no root it says
so, and with several roots it shows the lowest and says how many (the MIRR at the cost of capital beside it: one
answer whatever the signs).

The candidates run along the timeline's columns (column k holds the k-th candidate), so the search is live rows like
every other: the same formula in every column."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.book.constants import method
from workbook.formula.expr import MONTHS, Const, tolerance
from workbook.formula.functions import (
    abs_,
    all_,
    at_least,
    at_most,
    false_on_error,
    flag,
    irr_from,
    max_,
    min_,
    npv,
    only_if,
    period,
    prev,
    smallest,
    total,
    where,
)
from workbook.formula.line import BOOL, COUNT, Line

RATE = "0.000%"
ANNUAL = "0.0%"
DOLLAR = Const(1, "USD")


@dataclass(frozen=True)
class Search:
    """The search's grid, shared by every IRR of a book: the lowest candidate per month and the two steps."""

    low: Line  # the lowest candidate rate per month
    step: Line  # growth from one candidate to the next (first row)
    fine: Line  # the same in the second row, inside one step of the first
    range_text: str  # the range searched, in words


@dataclass(frozen=True)
class Return:
    irr: Line  # the annual IRR where proven, else a message
    roots: Line  # how many roots the search found
    proven: Line  # TRUE where the IRR shown is a root in the search range
    mirr: Line


def search_grid(s: SheetBuilder, span: Line) -> Search:
    """The candidates' grid: from the lowest annual rate searched, one growth step per column of the timeline up to
    the highest; the second row refines one step into as many."""
    low, high = method("irr_search_low"), method("irr_search_high")
    s.section("The IRR search (how each IRR below is proven a root)")
    first = s.calc("irr_search_low_monthly", "IRR search: the lowest candidate rate per month", "%",
                   (1 + low) ** (Const(1) / 12) - 1, "(1 + the lowest annual rate)^(1/12) - 1", fmt=RATE)
    months = span / Const(1, "fmonth")
    step = s.calc("irr_search_step", "IRR search: growth from one candidate to the next", "ratio",
                  ((1 + high) / (1 + low)) ** (1 / (12 * months)),
                  "((1 + highest) / (1 + lowest))^(1 / (12 x the timeline's months)): the timeline's last column "
                  "is the highest rate", fmt="0.000000")
    fine = s.calc("irr_search_fine_step", "IRR search: growth from one candidate to the next, second row", "ratio",
                  step ** (1 / months), "the first row's step^(1 / the timeline's months): the second row spans one "
                  "step of the first", fmt="0.000000000")
    text = f"{float(low.formula.value):+.0%} to {float(high.formula.value):+,.0%} a year"
    return Search(first, step, fine, text)


def _row(c: SheetBuilder, key: str, label: str, flows: Line, sizes: Line, start: Line | object, step: Line,
         ) -> tuple[Line, Line]:
    """One row of candidates from `start` by `step`, the NPV at each as a share of the sizes', and the sign changes;
    returns (roots: the row of sign changes, low: the row of each change's lower candidate, 1 elsewhere)."""
    k = period(MONTHS)
    rate = (1 + start) * step ** k - 1
    cand = c.calc(f"{key}_rate", f"{label}: candidate rate per month (column k: the k-th)", "%", rate,
                  "(1 + the first candidate) x step^k - 1", opening=rate, fmt=RATE)
    share = npv(cand, flows) / max_(npv(cand, sizes), DOLLAR)
    at = c.calc(f"{key}_npv", f"{label}: NPV at the candidate, per USD of the flows' sizes", "ratio", share,
                "NPV(candidate, flows) / NPV(candidate, the flows' sizes): its sign is the NPV's", opening=share,
                fmt="0.000000")
    change = c.calc(f"{key}_change", f"{label}: a root between the previous candidate and this one (1)", "count",
                    flag(at > 0) * flag(prev(at) <= 0) + flag(at <= 0) * flag(prev(at) > 0),
                    "the NPV's sign differs from the previous candidate's", opening=0, fmt=COUNT)
    low = c.calc(f"{key}_low", f"{label}: the lower candidate of each bracket (1 elsewhere)", "%",
                 where(change > 0, prev(cand), 1), "the previous candidate where the sign changes", opening=1,
                 fmt=RATE)
    return change, low


def proven_irr(s: SheetBuilder, c: SheetBuilder, key: str, title: str, label: str, flows: Line, rate: Line,
               span: Line, grid: Search, discount: Line) -> Return:
    """The annual IRR of monthly `flows` as a proven root (see the module), how many roots, and the MIRR at `rate`
    (the cost of capital per month). `title` names the IRR ("Project IRR"), `label` the flows ("buying instead of
    renting")."""
    c.section(f"{title} ({label}): a search for its roots (each column a candidate rate, not a month)")
    sizes = c.calc(f"{key}_sizes_flow", f"{title}: the flows' sizes (without their signs)", "USD", abs_(flows),
                   "ABS(flow): what the NPV of the flows is measured against", fmt="#,##0")
    change, low = _row(c, f"{key}_search", f"{title} search", flows, sizes, grid.low, grid.step)
    s.section(f"{title}, proven: {label}")
    roots = s.calc(f"{key}_roots", f"{title}: roots from {grid.range_text}", "count", total(change),
                   "SUM of the sign changes between candidates: 0 none, 2 or more several", fmt=COUNT)
    lo = s.calc(f"{key}_bracket_low", f"{title}: the lowest root lies above (per month)", "%", smallest(low),
                "the lower candidate of the first sign change (100%: none)", fmt=RATE)
    hi = s.calc(f"{key}_bracket_high", f"{title}: ... and at most (per month)", "%", (1 + lo) * grid.step - 1,
                "the next candidate", fmt=RATE)
    _, low2 = _row(c, f"{key}_fine", f"{title} search, second row", flows, sizes, lo, grid.fine)
    first2 = smallest(low2)
    lo2 = s.calc(f"{key}_narrowed_low", f"{title}: narrowed to above (per month)", "%", where(first2 < 1, first2, lo),
                 "the lower candidate of the second row's first sign change (the first row's where it has none)",
                 fmt=RATE)
    guess = s.calc(f"{key}_guess", f"{title}: IRR's starting point (per month)", "%",
                   ((1 + lo2) * grid.fine + lo2 - 1) / 2, "the middle of the narrowed bracket", fmt=RATE)
    root = s.calc(f"{key}_root_monthly", f"{title}: the root IRR finds from there (per month)", "%",
                  where(roots >= 1, irr_from(flows, guess), guess),
                  "IRR(flows, IRR(flows, start)); the start itself where it finds none, or where the search found no "
                  "root (then no engine's IRR is asked: where none is bracketed, engines search apart)", fmt=RATE)
    residual = s.calc(f"{key}_residual", f"{title}: NPV at that rate, per USD of the flows' sizes", "ratio",
                      npv(root, flows) / max_(npv(root, sizes), DOLLAR), "0 at a root", fmt="0.000000000")
    proven = s.calc(f"{key}_proven", f"{title}: a proven root (inside the bracket, NPV 0 there)", "TRUE/FALSE",
                    false_on_error(all_(roots >= 1, at_least(root, lo), at_most(root, hi),
                                        abs_(residual) <= tolerance())),
                    "a sign change found, the root within its bracket, and |NPV| <= the method's tolerance", fmt=BOOL)
    mirr = _mirr(s, c, key, title, flows, rate, span, discount)
    shown = s.calc(key, f"{title}: {label} (annual, a proven root)", "%",
                   only_if(proven, (1 + root) ** 12 - 1,
                           f"none: no root from {grid.range_text} (the NPV keeps one sign); see the MIRR"),
                   "(1 + the proven monthly root)^12 - 1; several roots: the lowest, their count above (then read "
                   "the MIRR)", fmt=ANNUAL)
    return Return(shown, roots, proven, mirr)


def _mirr(s: SheetBuilder, c: SheetBuilder, key: str, title: str, flows: Line, rate: Line, span: Line,
          discount: Line) -> Line:
    """MIRR at the cost of capital (finance and reinvestment): the money out discounted to time 0 and the money in
    compounded to the end, one rate whatever the signs: (1 + r) x (PV in / PV out)^(1 / n) - 1 a month."""
    pv_in = c.calc(f"{key}_in_pv", f"{title}: money in, discounted", "USD", max_(0, flows) * discount,
                   "MAX(0, flow) x discount factor", fmt="#,##0")
    pv_out = c.calc(f"{key}_out_pv", f"{title}: money out, discounted", "USD",
                    -min_(0, flows) * discount, "-MIN(0, flow) x discount factor", fmt="#,##0")
    months = span / Const(1, "fmonth")
    monthly = (1 + rate) * (total(pv_in) / max_(total(pv_out), DOLLAR)) ** (1 / months) - 1
    return s.calc(f"{key.replace('irr', 'mirr')}", f"{title.replace('IRR', 'MIRR')} (annual, at the cost of capital)",
                  "%",
                  (1 + monthly) ** 12 - 1,
                  "((1 + monthly cost of capital) x (PV of money in / PV of money out)^(1 / months))^12 - 1: money "
                  "out financed and money in reinvested at the cost of capital (Excel's MIRR)", fmt=ANNUAL)
