"""Which inputs drive the spread of the NPV advantage when the inputs move together: Shapley effects.

A rank correlation squared is a share of the variance only for independent inputs: where two inputs are correlated
each carries the other's effect (or cancels it), and the squares neither sum to the variance nor say whose it is.
Shapley effects (Owen 2014, "Sobol' indices and Shapley value"; Song, Nelson and Staum 2016, "Shapley effects for
global sensitivity analysis: theory and computation") share the variance of the output among the inputs under any
dependence: each input gets its average gain in the variance explained, Var(E[Y | X_S]), over every order in which
the inputs could be added, and the effects sum to the variance explained by all of them.

Var(E[Y | X_S]) is estimated here from the samples by a regression of the output on the inputs of S: each input,
its square and each pair's product (the NPV is near linear in most inputs, with curvature in the rent's yearly
change and products such as utilisation x price). What no regression on the inputs explains (the remainder, a
few per cent: higher-order terms, the whole-month steps of a lead time) is reported beside the effects, not shared
out. The Shapley values are exact over every coalition up to workbook.analysis.shapley.EXACT_LIMIT inputs (the
regression's normal equations solved on each coalition's columns), estimated from sampled orders above."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbook.analysis import shapley

METHOD = ("Shapley effects (Owen 2014; Song, Nelson and Staum 2016): each input's average gain in the variance of the "
          "NPV advantage explained, over every order of the inputs, so correlated inputs share what they explain "
          "together; the variance explained by a set of inputs from a regression on them, their squares and their "
          "pairs' products")


@dataclass(frozen=True)
class Effects:
    """Each input's share of the output's variance (in the inputs' order), the share all of them explain (their
    sum), and whether the Shapley values are exact."""

    shares: tuple[float, ...]
    explained: float
    exact: bool


def _design(inputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The regression's columns, centred: each input and its square (standardised first), then each pair's
    product; and the inputs each column is made of (a column's two inputs, the same one twice for its own)."""
    z = [(x - x.mean()) / x.std() for x in inputs]
    columns, made_of = [], []
    for i, x in enumerate(z):
        columns += [x, x * x]
        made_of += [(i, i), (i, i)]
    for i in range(len(z)):
        for j in range(i + 1, len(z)):
            columns.append(z[i] * z[j])
            made_of.append((i, j))
    design = np.column_stack(columns) if columns else np.zeros((inputs[0].size if inputs else 0, 0))
    return design - design.mean(axis=0), np.array(made_of, dtype=int).reshape(-1, 2)


def shapley_effects(inputs: list[np.ndarray], output: np.ndarray) -> Effects:
    """The inputs' Shapley effects on the output's variance, estimated from the samples (see the module). An input
    that does not vary gets 0, and so does every input where the output does not vary."""
    varies = [k for k, x in enumerate(inputs) if np.ptp(x) > 0]
    if not varies or np.ptp(output) == 0:
        return Effects(tuple(0.0 for _ in inputs), 0.0, True)
    design, made_of = _design([inputs[k] for k in varies])
    y = output - output.mean()
    gram, cross, total = design.T @ design, design.T @ y, float(y @ y)

    def explained(masks: np.ndarray) -> np.ndarray:
        """Each coalition's share explained, from the columns whose inputs are all in it (in the design's order)."""
        out = np.zeros((masks.shape[0], 1))
        usable = masks[:, made_of[:, 0]] & masks[:, made_of[:, 1]]
        for row in np.flatnonzero(usable.any(axis=1)):
            cols = np.flatnonzero(usable[row])
            c = cross[cols]
            beta = np.linalg.lstsq(gram[cols[:, None], cols], c, rcond=None)[0]
            out[row, 0] = float(c @ beta) / total
        return out

    attribution = shapley.attribute(len(varies), explained)
    shares = [0.0] * len(inputs)
    for j, k in enumerate(varies):
        shares[k] = float(attribution.values[j, 0])
    return Effects(tuple(shares), float(sum(shares)), attribution.exact)
