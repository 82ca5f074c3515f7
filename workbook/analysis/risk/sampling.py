"""Samples of the inputs a risk plan varies: a Latin hypercube (scipy.stats.qmc) of uniforms, each column turned
into its input's distribution by that distribution's inverse CDF (scipy.stats), then, where the plan gives rank
correlations, reordered by Iman-Conover (1982) so the columns carry them. A column's values are never changed by
the reordering, only paired differently, so each input keeps its distribution exactly.

The same plan, samples and seed give the same bits: one numpy Generator, seeded once, drives every random step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbook.analysis.risk.section import Distribution, RiskPlan

# scipy is imported where it is used: importing scipy.stats takes half a second, which every command would pay


def frozen(d: Distribution) -> Any:
    """A distribution as scipy.stats' frozen object; a discrete one over the indices of its values, a lognormal's
    over the logarithm of the value (a truncated normal there)."""
    from scipy import stats

    if d.kind == "discrete":
        return stats.rv_discrete(values=(np.arange(len(d.values)), np.array(d.weights)))
    p = dict(d.params)
    low, high = p["low"], p["high"]
    width = high - low
    if d.kind == "uniform":
        return stats.uniform(loc=low, scale=width)
    if d.kind == "triangular":
        return stats.triang((p["mode"] - low) / width, loc=low, scale=width)
    if d.kind == "pert":  # a beta on [low, high] with the mode where the plan puts it (Vose, Risk Analysis, 2008)
        shape = p["shape"]
        a = 1 + shape * (p["mode"] - low) / width
        b = 1 + shape * (high - p["mode"]) / width
        return stats.beta(a, b, loc=low, scale=width)
    if d.kind == "normal":
        sd = p["sd"]
        return stats.truncnorm((low - p["mean"]) / sd, (high - p["mean"]) / sd, loc=p["mean"], scale=sd)
    mu, sigma = np.log(p["median"]), p["sigma"]  # lognormal
    lo = (np.log(low) - mu) / sigma if low > 0 else -np.inf
    return stats.truncnorm(lo, (np.log(high) - mu) / sigma, loc=mu, scale=sigma)


def inverse(d: Distribution, u: np.ndarray) -> np.ndarray:
    """The values at cumulative probabilities `u` (0 < u < 1), never outside the distribution's range: scipy's
    truncated inverses can overshoot a bound by a rounding (1e-17), and a bound may be the input's own limit."""
    x = frozen(d).ppf(u)
    if d.kind == "discrete":  # ppf(0) is -1 for scipy: the first value
        return np.asarray(d.values)[np.clip(x, 0, len(d.values) - 1).astype(int)]
    p = dict(d.params)
    return np.clip(np.exp(x) if d.kind == "lognormal" else x, p["low"], p["high"])


def mean(d: Distribution) -> float:
    """The distribution's mean, in its input's unit."""
    if d.kind == "discrete":
        return float(np.dot(d.values, d.weights))
    if d.kind == "lognormal":
        return float(frozen(d).expect(np.exp))
    return float(frozen(d).mean())


def draw(plan: RiskPlan, samples: int, seed: int) -> dict[str, np.ndarray]:
    """`samples` values of each input the plan varies, by key: a Latin hypercube, correlated by Iman-Conover where
    the plan gives correlations."""
    from scipy.stats import qmc

    rng = np.random.default_rng(seed)
    u = qmc.LatinHypercube(d=len(plan.inputs), rng=rng).random(samples)
    x = np.column_stack([inverse(d, u[:, k]) for k, d in enumerate(plan.inputs)])
    if plan.correlations:
        x = iman_conover(x, plan.scores_matrix(), rng)
    return {d.key: x[:, k].copy() for k, d in enumerate(plan.inputs)}


def iman_conover(x: np.ndarray, target: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The columns of `x` reordered so the correlation of their normal scores is close to `target` (Iman and Conover, "A
    distribution-free approach to inducing rank correlation among input variables", 1982): van der Waerden scores,
    shuffled per column, are given the target's correlation (the scores' own correlation removed by its Cholesky
    factor, the target's applied by its own); each column of `x` then takes the ranks of its column of scores."""
    from scipy import stats

    n, k = x.shape
    scores = stats.norm.ppf(np.arange(1, n + 1) / (n + 1))
    s = np.column_stack([rng.permutation(scores) for _ in range(k)])
    e = np.corrcoef(s, rowvar=False)
    q = np.linalg.cholesky(e)
    p = np.linalg.cholesky(target)
    t = s @ np.linalg.inv(q).T @ p.T
    out = np.empty_like(x)
    for j in range(k):
        ranks = np.argsort(np.argsort(t[:, j], kind="stable"), kind="stable")
        out[:, j] = np.sort(x[:, j], kind="stable")[ranks]
    return out
