"""Serving the model from the site, in each precision: the users a tensor-parallel group holds, its decode and
prefill rates, the site's tokens at the planned utilisation, the cost of a million tokens owned and rented, and the
tokens a day at which owning costs what renting does."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.expr import Node
from workbook.formula.functions import all_, floor, max_, min_, only_if, safe_div, where
from workbook.formula.line import BOOL, COUNT, Line
from workbook.models.base import Inputs
from workbook.models.workload.training import PRICES, peak_at


@dataclass(frozen=True)
class Market:
    """What the site's tokens are worth against: its GPUs, the planned utilisation, the TCO's costs per GPU-hour
    used (owned, rented on demand, committed), and its break-even utilisation as a numerator over a slope (the
    TCO sheet's: the utilisation at which owning costs what renting does, none where the slope is 0)."""

    gpus: Line
    utilisation: Line
    per_gpu_hour: tuple[Line, Line, Line]
    break_even: tuple[Line, Line]


@dataclass(frozen=True)
class Serving:
    """One precision's inference figures."""

    precision: str
    weights: Line
    kv_per_token: Line
    users: Line
    tokens_per_second: Line
    site_tokens_per_second: Line
    cost_owned: Line
    cost_on_demand: Line
    cost_committed: Line
    break_even_tokens: Line


def define_groups(s: SheetBuilder, w: Inputs, m: Market) -> tuple[Line, Line]:
    """A tensor-parallel group's HBM for the weights and the KV cache, and the groups the site's GPUs make."""
    s.section("Inference: a tensor-parallel group")
    hbm = s.calc("group_hbm", "HBM of a tensor-parallel group, less the reserve", "GB",
                 w.tensor_parallel * w.gpu_hbm * (1 - w.hbm_reserve), "group GPUs x HBM x (1 - reserve)",
                 fmt="#,##0.0")
    groups = s.calc("groups", "Groups the site's GPUs make", "count", floor(m.gpus / w.tensor_parallel),
                    "ROUNDDOWN(the site's GPUs / group GPUs)", fmt=COUNT)
    return hbm, groups


def define_serving(s: SheetBuilder, w: Inputs, m: Market, group_hbm: Line, groups: Line, precision: str) -> Serving:
    """The users a group holds in one precision, its rates, and what a million tokens cost."""
    p, title = precision, precision.upper()
    b = w.fp8_bytes if p == "fp8" else w.bf16_bytes
    s.section(f"Inference in {title}")
    weights = s.calc(f"{p}_weights", f"Weights ({title})", "GB", w.parameters * b,
                     f"parameters x bytes of a {title} weight", fmt="#,##0.0")
    kv = s.calc(f"{p}_kv_per_token", f"KV cache per token ({title})", "byte",
                2 * w.layers * w.kv_heads * w.head_dim * b,
                f"2 (a key and a value) x layers x KV heads x head dim x bytes of a {title} value", fmt="#,##0")
    users = s.calc(f"{p}_users", f"Users a group holds at the context ({title})", "count",
                   max_(0, floor((group_hbm - weights) / (kv * w.context))),
                   "ROUNDDOWN((group HBM - weights) / (KV per token x context)), at least 0", fmt=COUNT)
    s.calc(f"{p}_fits", f"A group holds a user in {title} (1) or the weights fill it (0)", "flag",
           where(users >= 1, 1, 0), "1 where a group holds at least one user", fmt=COUNT)
    rate = _decode(s, w, p, weights, kv, users)
    site_rate = _throughput(s, w, m, p, rate, groups)
    costs = [s.calc(f"{p}_cost_{name}", f"Cost per million tokens in {title}, {label}", "USD/Mtoken",
                    safe_div(price * w.tensor_parallel, rate,
                             f"n/a: the weights leave a {title} group no room for a user (more GPUs a group)"),
                    f"{label} cost per GPU-hour x group GPUs / tokens a group-hour", fmt="#,##0.000")
             for (name, label), price in zip(PRICES, m.per_gpu_hour, strict=True)]
    even = _break_even(s, m, p, rate, groups)
    return Serving(p, weights, kv, users, rate, site_rate, *costs, even)


def _break_even(s: SheetBuilder, m: Market, p: str, rate: Line, groups: Line) -> Line:
    """The tokens a day the site serves at full use, and those at which owning costs what renting (in force) does:
    the TCO's break-even utilisation (its numerator over its slope) of them, where it is at most 100%."""
    title = p.upper()
    full = s.calc(f"{p}_full_tokens", f"Tokens a day the site serves at full use ({title})", "Mtoken/day",
                  groups * rate, "groups x decode tokens/s a group, a day of seconds", fmt="#,##0")
    numerator, slope = m.break_even
    reached = s.calc(f"{p}_break_even_reached", "Owning costs what renting does at a use of at most 100%",
                     "TRUE/FALSE", all_(slope > 0, numerator <= slope),
                     "TCO sheet: break-even slope > 0 and numerator <= slope (a break-even utilisation <= 100%)",
                     fmt=BOOL)
    return s.calc(f"{p}_break_even_tokens",
                  f"Tokens a day at which owning costs what renting does ({title}, against the rent in force)",
                  "Mtoken/day", only_if(reached, max_(0, numerator * full / slope),
                                        "never: at full use owning still costs more than renting"),
                  "MAX(0, the TCO's break-even utilisation (its numerator / slope) x the tokens a day at full use): "
                  "serve fewer a day and renting is cheaper; 0: owning is cheaper at any use", fmt="#,##0")


def compute_bound(w: Inputs, precision: str, efficiency: Line) -> Node:
    """Tokens/s a tensor-parallel group's compute gives at a share of its dense peak: the forward pass's FLOP per
    active parameter a token (decode and prefill alike)."""
    return (w.tensor_parallel * peak_at(w, precision) * efficiency
            / (w.decode_flops_per_parameter_token * w.active_parameters))


def _decode(s: SheetBuilder, w: Inputs, p: str, weights: Line, kv: Line, users: Line) -> Line:
    """Decode tokens/s a group gives: bounded by the bytes a step reads and by the FLOPs a token takes."""
    title = p.upper()
    by_bandwidth = s.calc(f"{p}_decode_bandwidth", f"Decode tokens/s a group's bandwidth allows ({title})",
                          "token/s",
                          users * w.tensor_parallel * w.gpu_hbm_bandwidth * w.bandwidth_efficiency
                          / (weights + users * w.context * kv),
                          "users x group bandwidth x efficiency / (weights + users x context x KV per token)",
                          fmt="#,##0")
    by_compute = s.calc(f"{p}_decode_compute", f"Decode tokens/s a group's compute allows ({title})", "token/s",
                        compute_bound(w, p, w.decode_efficiency),
                        "group GPUs x peak x efficiency / (FLOP per parameter per token x active parameters)",
                        fmt="#,##0")
    rate = s.calc(f"{p}_tokens_per_second", f"Decode tokens/s per group, the lesser binds ({title})", "token/s",
                  min_(by_bandwidth, by_compute), "MIN(bandwidth bound, compute bound)", fmt="#,##0")
    s.calc(f"{p}_bandwidth_binds", f"Bandwidth binds (1) or compute (0) ({title})", "flag",
           where(by_bandwidth <= by_compute, 1, 0), "1 where the bandwidth bound is the lesser", fmt=COUNT)
    return rate


def _throughput(s: SheetBuilder, w: Inputs, m: Market, p: str, rate: Line, groups: Line) -> Line:
    """Tokens/s a GPU and the site give at the planned utilisation, and the prefill of a user's context."""
    title = p.upper()
    s.calc(f"{p}_tokens_per_gpu", f"Decode tokens/s per GPU ({title})", "token/s/GPU", rate / w.tensor_parallel,
           "decode tokens/s per group / group GPUs", fmt="#,##0.0")
    site = s.calc(f"{p}_site_tokens_per_second", f"Decode tokens/s of the site at the planned utilisation ({title})",
                  "token/s", groups * rate * m.utilisation, "groups x tokens/s a group x utilisation (TCO sheet)",
                  fmt="#,##0")
    prefill = s.calc(f"{p}_prefill_tokens_per_second", f"Prefill tokens/s per group, compute-bound ({title})",
                     "token/s", compute_bound(w, p, w.prefill_efficiency),
                     "group GPUs x peak x prefill efficiency / (FLOP per parameter per token x active parameters)",
                     fmt="#,##0")
    s.calc(f"{p}_prefill_seconds", f"Seconds to prefill a user's whole context ({title})", "s",
           w.context / prefill, "context / prefill tokens/s", fmt="0.00")
    return site
