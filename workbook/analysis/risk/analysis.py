"""The decision under the risk plan's input distributions: the book's outputs evaluated for every sample as one
batch (workbook.formula.evaluation.evaluate_many, a chunk at a time, so a million samples fit in memory), and
what a finance committee asks of them: the percentiles of each output, the probability that buying wins, the
expected shortfall of buying, where the base case falls, and which inputs drive the spread.

A sample is excluded, and counted, where it breaks a rule between two inputs (a reserved price above the
on-demand one, say) or a check the base case's own numbers rely on, or where the NPV advantage has no value: the
tornado's rule for a case it shows as n/a. An output with no value in a kept sample (an IRR where the cash flows
never turn) is left out of that output's percentiles only, and its count is said.

Percentiles are numpy's default (linear between order statistics: Excel's PERCENTILE.INC). An IRR is counted in
every kept sample: the share with no root in the search range, with several roots and with a root not proven are
said, and its percentiles are over the samples with one proven root (said so).

What drives the spread: each input's share of the NPV advantage's variance by Shapley effects (risk.drivers:
correlated inputs share what they explain together, and the shares sum to what the inputs explain); beside it the
input's Spearman rank correlation with the NPV advantage (its effect and that of the inputs it moves with) and its
partial rank correlation (PRCC: its own effect, every other input's ranks regressed out).

How far to trust the figures: the standard error of the probability that buying wins (binomial) and of the median
NPV advantage (from the order statistics that bound it), at the samples drawn and at fewer, as they converge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbook.analysis.risk import sampling
from workbook.analysis.risk.drivers import shapley_effects
from workbook.analysis.risk.section import KEY, Distribution, RiskPlan
from workbook.analysis.sensitivity import validity_checks
from workbook.book.book import Book
from workbook.book.sheets import RISK
from workbook.formula.evaluation import DEFAULT_CHUNK, evaluate, evaluate_many, needed
from workbook.formula.overrides import checked
from workbook.site.errors import InputError
from workbook.site.rules import rule_holds_each
from workbook.site.spec import Rule

PERCENTILES = (1, 10, 50, 90, 99)
SHORTFALL = 0.10  # the expected shortfall: the mean NPV advantage in the worst 10% of samples
CURVE_POINTS = 101  # the S-curve: the NPV advantage at 0%, 1%, ... 100%


@dataclass(frozen=True)
class Statistic:
    """One output over the kept samples, in its line's unit."""

    line_id: str
    label: str
    unit: str
    fmt: str
    base: float
    mean: float
    percentiles: tuple[float, ...]  # at PERCENTILES
    base_percentile: float  # the share of samples at or below the base case
    count: int  # samples with a value (of the kept ones)
    left_out: tuple[tuple[str, int], ...] = ()  # kept samples not in its percentiles: (why, how many)


@dataclass(frozen=True)
class Contribution:
    """One varied input: its distribution, and its rank correlation with the NPV advantage and share of the spread."""

    key: str
    label: str
    unit: str
    fmt: str
    distribution: Distribution
    base: float
    mean: float
    rank: float  # Spearman's, with the NPV advantage: the input's effect and that of the inputs it moves with
    share: float  # its Shapley effect: its share of the NPV advantage's variance (workbook.analysis.risk.drivers)
    partial: float  # the partial rank correlation: its own effect, every other input's ranks held


@dataclass(frozen=True)
class Convergence:
    """The probability that buying wins and the median NPV advantage over the first `samples` samples kept, each
    with its standard error."""

    samples: int
    probability: float
    probability_error: float  # binomial: sqrt(p (1 - p) / n)
    median: float
    median_error: float  # from the order statistics that bound the median at 95%: their spread / (2 x 1.96)


@dataclass(frozen=True)
class RiskResult:
    plan: RiskPlan
    samples: int
    seed: int
    kept: int
    excluded: dict[str, int]  # reason -> samples
    statistics: tuple[Statistic, ...]
    probability_buy_wins: float
    expected_shortfall: float
    contributions: tuple[Contribution, ...]  # widest first
    curve: tuple[float, ...]  # the NPV advantage at each of CURVE_POINTS cumulative probabilities
    achieved: tuple[tuple[str, str, float, float], ...]  # each correlation: (input, input, target, in the samples)
    explained: float = math.nan  # the share of the NPV advantage's variance the inputs explain (their effects' sum)
    histogram: tuple[tuple[float, float, int], ...] = ()  # the NPV advantage's bins: (from, to, samples)
    convergence: tuple[Convergence, ...] = ()  # the odds and the median at fewer samples, with their errors
    read: tuple[str, ...] = ()  # the input ids the figures were computed from
    sheet: str = field(default=RISK)
    current: str = ""  # where the live check that these values are current is, for the sheet's top

    @property
    def decision(self) -> Statistic:
        return self.statistics[0]

    @property
    def sampled(self) -> bool:
        """False for the risk's place in a book without its figures (unsampled): no document may show it."""
        return self.kept > 0

    def dataframe(self) -> Any:
        """The statistics as a pandas table: one row per output (by line id)."""
        import pandas as pd

        rows = [{"output": s.line_id, "label": s.label, "unit": s.unit, "base": s.base, "mean": s.mean,
                 **{f"P{p}": v for p, v in zip(PERCENTILES, s.percentiles, strict=True)},
                 "base_percentile": s.base_percentile, "samples_with_value": s.count} for s in self.statistics]
        return pd.DataFrame(rows).set_index("output")

    def contributions_frame(self) -> Any:
        """The inputs' contributions to the spread of the NPV advantage as a pandas table, widest first."""
        import pandas as pd

        rows = [{"input": c.key, "label": c.label, "unit": c.unit, "distribution": describe(c.distribution),
                 "base": c.base, "mean": c.mean, "rank_correlation": c.rank, "share_of_spread": c.share,
                 "partial_rank_correlation": c.partial}
                for c in self.contributions]
        return pd.DataFrame(rows).set_index("input")


def run(book: Book, plan: RiskPlan, outputs: list[str], rules: list[Rule], samples: int | None = None,
        seed: int | None = None, chunk: int = DEFAULT_CHUNK, no_mean: tuple[str, ...] = (),
        roots: dict[str, str] | None = None) -> RiskResult:
    """The outputs (the first: the NPV advantage of buying) under `samples` draws of the plan (its own number and
    seed unless given), evaluated as one batch a chunk at a time. `no_mean`: outputs whose mean means nothing (IRRs
    do not average: the IRR of the mean cash flows is not the mean of their IRRs), shown without one. `roots`: an
    IRR output's line of how many roots its search found, so that every sample is counted."""
    n = plan.samples if samples is None else samples
    s = plan.seed if seed is None else seed
    roots = roots or {}
    drawn = checked(book, sampling.draw(plan, n, s))  # each sample within its input's range, as any override
    validity = validity_checks(book)
    lines = list(dict.fromkeys([*outputs, *roots.values(), *(c.id for c in validity)]))
    values = evaluate_many(book, drawn, lines, strict=False, chunk=chunk)
    base = evaluate(book, {}, lines, strict=False)
    column = {k: np.broadcast_to(values[k][:, 0], (n,)) for k in lines}
    excluded, keep = _excluded(book, drawn, rules, validity, column, base, outputs[0], n)
    statistics = tuple(_statistic(book, k, column[k][keep], float(base[k][0, 0]), k not in no_mean,
                                  column[roots[k]][keep] if k in roots else None) for k in outputs)
    npv = column[outputs[0]][keep]
    if not npv.size:
        raise InputError(f"leave no sample to count: each of the {n:,} {'; '.join(excluded)}", file=plan.file,
                         key=KEY, expected="ranges within which the site's checks hold")
    worst = np.sort(npv)[:max(1, math.ceil(SHORTFALL * npv.size))]
    contributions, explained = _contributions(book, plan, drawn, keep, npv)
    return RiskResult(
        plan, n, s, int(npv.size), excluded, statistics, float(np.mean(npv > 0)), float(worst.mean()),
        contributions, tuple(np.quantile(npv, np.linspace(0, 1, CURVE_POINTS))),
        _achieved(plan, drawn, keep),
        explained=explained, read=tuple(line.id for line in needed(book, lines) if line.kind == "input"),
        histogram=histogram(npv), convergence=convergence(npv))


def unsampled(book: Book, plan: RiskPlan, outputs: list[str]) -> RiskResult:
    """The risk's place in the book without its figures, for a command that shows none (evaluate, quote, the
    imports): what it reads (the inputs recorded on the Inputs sheet beside the Sensitivity table's) and the rows it
    takes, so the book's layout is the build's; no sample is drawn. Its figures are 0, to be worded as any, and never
    shown: `sampled` is False, and no document holding them is written (workbook.excel.writer)."""
    statistics = tuple(Statistic(k, book.lines[k].label, book.lines[k].unit_text, book.lines[k].fmt, 0.0, 0.0,
                                 (0.0,) * len(PERCENTILES), 0.0, 0) for k in outputs)
    lines = [*outputs, *(c.id for c in validity_checks(book))]  # what run evaluates, and so what it reads
    read = tuple(line.id for line in needed(book, lines) if line.kind == "input")
    return RiskResult(plan, plan.samples, plan.seed, 0, {}, statistics, 0.0, 0.0, (), (), (), read=read)


def _excluded(book: Book, drawn: dict[str, np.ndarray], rules: list[Rule], validity: list[Any],
              column: dict[str, np.ndarray], base: dict[str, np.ndarray], decision: str,
              n: int) -> tuple[dict[str, int], np.ndarray]:
    """The samples to leave out, counted by reason (the first each breaks), and the mask of those kept."""
    broken = np.zeros(n, dtype=bool)
    reasons: dict[str, int] = {}

    def value(key: str) -> np.ndarray | None:
        line = book.lines.get(key)
        return drawn.get(key, None if line is None else float(line.value.reshape(-1)[0]))

    def count(mask: np.ndarray, reason: str) -> None:
        new = mask & ~broken
        if new.any():
            reasons[reason] = reasons.get(reason, 0) + int(new.sum())
            broken[new] = True

    for key, op, other, why in rules:
        if key in drawn or other in drawn:
            a, b = value(key), value(other)
            if a is not None and b is not None:
                count(~np.broadcast_to(rule_holds_each(op, a, b), (n,)), f"breaks a rule: {why}")
    for check in validity:
        if bool(base[check.id][0, 0]):
            count(~column[check.id].astype(bool), f"fails the check: {check.label}")
    count(~np.isfinite(column[decision]), f"no value for {book.lines[decision].label.lower()}")
    return reasons, ~broken


def _statistic(book: Book, line_id: str, v: np.ndarray, base: float, averages: bool = True,
               roots: np.ndarray | None = None) -> Statistic:
    """An output over the kept samples with a value; for an IRR (`roots`: how many its search found in each), over
    those with exactly one proven root, the others counted by why."""
    line = book.lines[line_id]
    left: list[tuple[str, int]] = []
    if roots is not None:
        single = (roots == 1) & np.isfinite(v)
        for why, mask in (("no root in the search range", roots < 1), ("several roots", roots > 1),
                          ("a root not proven", (roots == 1) & ~np.isfinite(v))):
            if mask.any():
                left.append((why, int(mask.sum())))
        v = v[single]
    finite = v[np.isfinite(v)]
    if not finite.size:
        q, m, at = (math.nan,) * len(PERCENTILES), math.nan, math.nan
    else:
        q = tuple(float(x) for x in np.quantile(finite, np.array(PERCENTILES) / 100))
        m = float(finite.mean()) if averages else math.nan
        at = float(np.mean(finite <= base)) if math.isfinite(base) else math.nan
    return Statistic(line_id, line.label, line.unit_text, line.fmt, base, m, q, at, int(finite.size), tuple(left))


def _contributions(book: Book, plan: RiskPlan, drawn: dict[str, np.ndarray], keep: np.ndarray,
                   npv: np.ndarray) -> tuple[tuple[Contribution, ...], float]:
    """Each input's Shapley effect on the NPV advantage's variance, rank and partial rank correlations, the largest
    effect first; and the share of the variance the inputs explain."""
    from scipy import stats  # where it is used: its import takes half a second (workbook.analysis.risk.sampling)

    samples = [drawn[d.key][keep] for d in plan.inputs]
    ranks = [0.0 if np.ptp(x) == 0 or np.ptp(npv) == 0 else float(stats.spearmanr(x, npv).statistic)
             for x in samples]
    effects = shapley_effects(samples, npv)
    partials = partial_rank_correlations(samples, npv)
    out = []
    for d, rho, share, partial in zip(plan.inputs, ranks, effects.shares, partials, strict=True):
        line = book.lines[d.key]
        out.append(Contribution(d.key, line.label, line.unit_text, line.fmt, d, float(line.value.reshape(-1)[0]),
                                sampling.mean(d), rho, share, partial))
    return tuple(sorted(out, key=lambda c: -c.share)), effects.explained


HISTOGRAM_BINS = 20  # the NPV advantage's histogram: bins of equal width from the lowest sample to the highest
CONVERGENCE_AT = (100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)


def histogram(npv: np.ndarray) -> tuple[tuple[float, float, int], ...]:
    """The samples of the NPV advantage in HISTOGRAM_BINS bins of equal width: (from, to, how many)."""
    counts, edges = np.histogram(npv, bins=HISTOGRAM_BINS)
    return tuple((float(a), float(b), int(c)) for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True))


def convergence(npv: np.ndarray) -> tuple[Convergence, ...]:
    """The probability that buying wins and the median over the first n samples, for n in CONVERGENCE_AT up to the
    samples kept (and those), each with its standard error: binomial for the probability; for the median, the spread
    of the order statistics that bound it at 95% (n/2 -/+ 1.96 sqrt(n)/2) over 2 x 1.96."""
    out = []
    for n in sorted({*(m for m in CONVERGENCE_AT if m < npv.size), npv.size}):
        first = np.sort(npv[:n])
        p = float(np.mean(first > 0))
        half = 1.96 * math.sqrt(n) / 2
        lo, hi = max(0, math.floor(n / 2 - half)), min(n - 1, math.ceil(n / 2 + half))
        out.append(Convergence(n, p, math.sqrt(p * (1 - p) / n), float(np.median(first)),
                               float(first[hi] - first[lo]) / (2 * 1.96)))
    return tuple(out)


def partial_rank_correlations(inputs: list[np.ndarray], output: np.ndarray) -> list[float]:
    """Each input's partial rank correlation with the output, every other input's ranks held: the correlation of
    what is left of the input's ranks and of the output's once each is regressed on the other inputs' ranks,
    worked from their rank correlation matrix R (the pair's block less R_pair,others R_others^-1 R_others,pair).
    An input that does not vary (or an output that does not) has 0 and is left out of every regression. Where
    the output's ranks are the input's own (one input, or the others explaining the rest) the answer is +1 or
    -1 with the sign of their relation; the inverse of the whole matrix, singular there, gave -1 for +1."""
    from scipy import stats

    varies = [k for k, x in enumerate(inputs) if np.ptp(x) > 0]
    out = [0.0] * len(inputs)
    if not varies or np.ptp(output) == 0:
        return out
    ranked = np.column_stack([stats.rankdata(inputs[k]) for k in varies] + [stats.rankdata(output)])
    r = np.corrcoef(ranked, rowvar=False)
    y = len(varies)
    for j, k in enumerate(varies):
        pair, others = [j, y], [i for i in range(y) if i != j]
        left = r[np.ix_(pair, pair)]
        if others:
            across = r[np.ix_(pair, others)]
            left = left - across @ np.linalg.pinv(r[np.ix_(others, others)]) @ across.T
        scale = np.sqrt(left[0, 0] * left[1, 1])
        out[k] = float(np.clip(left[0, 1] / scale, -1.0, 1.0)) if scale > 1e-12 else 0.0
    return out


def _achieved(plan: RiskPlan, drawn: dict[str, np.ndarray],
              keep: np.ndarray) -> tuple[tuple[str, str, float, float], ...]:
    """Each correlation asked for, beside the rank correlation the kept samples carry (NaN where an input takes one
    value in every kept sample: no correlation is defined, and scipy would warn of a constant input)."""
    from scipy import stats

    def carried(a: np.ndarray, b: np.ndarray) -> float:
        return math.nan if np.ptp(a) == 0 or np.ptp(b) == 0 else float(stats.spearmanr(a, b).statistic)

    return tuple((c.first, c.second, c.rank, carried(drawn[c.first][keep], drawn[c.second][keep]))
                 for c in plan.correlations)


def describe(d: Distribution) -> str:
    """A distribution in words, its parameters as numbers in its input's unit: `triangular 0.5 / 0.7 / 0.85`."""
    if d.kind == "discrete":
        return "discrete " + ", ".join(f"{x:g} ({w:.0%})" for x, w in zip(d.values, d.weights, strict=True))
    p = dict(d.params)
    if d.kind in ("triangular", "pert"):
        shape = f", shape {p['shape']:g}" if d.kind == "pert" else ""
        return f"{d.kind} {p['low']:g} / {p['mode']:g} / {p['high']:g}{shape}"
    if d.kind == "uniform":
        return f"uniform {p['low']:g} to {p['high']:g}"
    if d.kind == "normal":
        return f"normal: mean {p['mean']:g}, sd {p['sd']:g} before truncation to {p['low']:g} to {p['high']:g}"
    return (f"lognormal: median {p['median']:g}, sigma {p['sigma']:g} before truncation to {p['low']:g} to "
            f"{p['high']:g}")
