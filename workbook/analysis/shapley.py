"""Shapley values: each player's share of a change, the average of its marginal effect over every order in which
the players could have joined. They sum to the whole change (v(all) - v(none)), a player that changes nothing
gets nothing, two players with the same effect in every coalition get the same value, and no order of the
players is chosen by us (Shapley 1953; the attribution used for price-volume-mix bridges and model explanation).

Exact: the marginal effects over all 2^k coalitions, each weighted |S|! (k - |S| - 1)! / k!. Above EXACT_LIMIT
players (4,096 coalitions), an estimate: the average over sampled orders, each with its reverse (antithetic
pairs halve the variance of a linear part), whose steps still sum to the whole change in every order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

EXACT_LIMIT = 12  # players computed exactly: 2^12 = 4,096 coalitions, one batch
SAMPLED_ORDERS = 500  # orders above the limit: 250 random ones and their reverses

Values = Callable[[np.ndarray], np.ndarray]  # coalition masks (n, k) of booleans -> values (n, outputs)


@dataclass(frozen=True)
class Attribution:
    """Each player's value for each output (players x outputs), and how they were computed."""

    values: np.ndarray
    exact: bool
    coalitions: int  # coalitions evaluated
    orders: int = 0  # orders sampled (0: exact)
    seed: int | None = None
    error: np.ndarray | None = None  # sampled: each value's standard error (over the pairs of orders)

    @property
    def method(self) -> str:
        if self.exact:
            return (f"exact Shapley values: every one of the {self.coalitions:,} combinations of the changes "
                    "evaluated")
        return (f"estimated Shapley values: {self.orders // 2:,} random orders of the changes and their "
                f"{self.orders // 2:,} reverses (seed {self.seed}), {self.coalitions:,} combinations evaluated; each "
                "order's steps sum to the whole change, so theirs do; each step with its standard error")


def coalitions(k: int) -> np.ndarray:
    """Every coalition of k players as a row of booleans; row m holds the players of m's bits (row 0: none)."""
    m = np.arange(2 ** k)
    return ((m[:, None] >> np.arange(k)) & 1).astype(bool)


def exact(v: np.ndarray) -> np.ndarray:
    """The Shapley values from v (2^k rows, one per coalition in coalitions(k)'s order; a column per output)."""
    v = np.asarray(v, dtype=float)
    k = round(math.log2(v.shape[0]))
    if v.shape[0] != 2 ** k:
        raise ValueError("one value per coalition: 2^k rows")
    members = coalitions(k)
    size = members.sum(axis=1)
    weight = np.array([math.factorial(s) * math.factorial(k - s - 1) / math.factorial(k) if s < k else 0.0
                       for s in range(k + 1)])
    out = np.empty((k, v.shape[1]))
    for i in range(k):
        without = np.flatnonzero(~members[:, i])  # S without i; S + i is S | 2^i
        out[i] = (weight[size[without]][:, None] * (v[without | (1 << i)] - v[without])).sum(axis=0)
    return out


def attribute(k: int, values: Values, *, seed: int = 0, orders: int = SAMPLED_ORDERS) -> Attribution:
    """The players' Shapley values for a value function over coalitions: exact up to EXACT_LIMIT players (one
    call of `values` with every coalition), else estimated from `orders` sampled orders (one call with the
    coalitions those orders pass through)."""
    if k == 0:
        return Attribution(np.zeros((0, values(np.zeros((1, 0), dtype=bool)).shape[1])), True, 1)
    if k <= EXACT_LIMIT:
        return Attribution(exact(values(coalitions(k))), True, 2 ** k)
    rng = np.random.default_rng(seed)
    half = [rng.permutation(k) for _ in range(max(1, orders // 2))]
    sampled = [p for order in half for p in (order, order[::-1])]
    prefixes = np.zeros((len(sampled), k + 1, k), dtype=bool)
    for row, order in enumerate(sampled):
        for step, player in enumerate(order):
            prefixes[row, step + 1:, player] = True
    unique, where = np.unique(prefixes.reshape(-1, k), axis=0, return_inverse=True)
    v = values(unique)[where.reshape(-1)].reshape(len(sampled), k + 1, -1)
    marginal = np.zeros((len(sampled), k, v.shape[2]))
    for row, order in enumerate(sampled):
        marginal[row, order] = np.diff(v[row], axis=0)
    pairs = marginal.reshape(len(half), 2, k, -1).mean(axis=1)  # an order and its reverse: one draw
    error = pairs.std(axis=0, ddof=1) / math.sqrt(len(half)) if len(half) > 1 else np.full(pairs.shape[1:], math.nan)
    return Attribution(marginal.mean(axis=0), False, len(unique), len(sampled), seed, error)
