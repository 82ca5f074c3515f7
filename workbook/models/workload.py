"""Workload economics: from the FLOPs a model needs to the days and cost of a training run on this site, and from
the bytes a model holds to the users a GPU serves and the cost of a million tokens.

Training. A dense transformer takes 6 FLOP per parameter per token (forward and backward; Kaplan et al. 2020), a
mixture of experts 6 per active parameter: 6 x N x D for the run. The site sustains its GPUs' dense peak at the
training precision x MFU (model FLOPs utilisation, the share of peak the model's own FLOPs reach), and of the
wall-clock time the Reliability sheet's goodput is useful work: days = FLOPs / (GPUs x peak x MFU) / goodput. The
training state (16 bytes per parameter for mixed-precision Adam: BF16 weights and gradients, FP32 master weights
and two moments) must fit in the HBM of the GPUs that shard it (ZeRO stage 3 / fully sharded data parallel): the
least GPUs that hold it, as a check against the site's.

Inference. The weights take N x bytes per parameter (BF16 2, FP8 1); each token of a user's context keeps its keys
and values: 2 x layers x KV heads x head dim x bytes. What the weights leave of a tensor-parallel group's HBM (less
a reserve for activations and the runtime) over the KV bytes of one user's context is the users the group holds.
A decode step reads the weights and every user's KV cache once and gives each user a token, so the group's tokens
per second are at most users x bandwidth / bytes read; they are also at most the group's peak x an efficiency / (2
x active parameters) FLOP a token. The lesser binds, and is said. The cost of a million tokens divides the cost
per GPU-hour (owned, rented on demand, committed: the TCO sheet's, per GPU-hour used) by the tokens a GPU-hour
gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.book.sheets import WORKLOAD as TITLE
from workbook.formula.functions import ceil, floor, max_, min_, only_if, safe_div, where
from workbook.formula.line import BOOL, COUNT, PERCENT, Line
from workbook.models.base import Inputs, Scope
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "workload"
PRECISIONS = ("bf16", "fp8")
_MODEL = dict(section_optional=True)  # read only where the site file has a workload: section

INPUTS = with_limits([
    Spec("workload.parameters", "Model parameters (all)", "B params", "a count of parameters", "70e9", lo=0,
         lo_open=True, hi=100_000, fmt="#,##0.0", **_MODEL),
    Spec("workload.active_parameters", "Model parameters active per token (all, for a dense model)", "B params",
         "a count of parameters", "70e9", lo=0, lo_open=True, hi=100_000, fmt="#,##0.0", **_MODEL),
    Spec("workload.layers", "Transformer layers", "count", "a whole number", "80", lo=1, hi=1000, integer=True,
         fmt="#,##0", **_MODEL),
    Spec("workload.kv_heads", "Key-value heads per layer", "count", "a whole number", "8", lo=1, hi=512,
         integer=True, fmt="#,##0", **_MODEL),
    Spec("workload.head_dim", "Dimension of a head", "count", "a whole number", "128", lo=1, hi=1000,
         integer=True, fmt="#,##0", **_MODEL),
    Spec("workload.max_context", "Longest context the model takes", "token", "a count of tokens", "131072", lo=1,
         hi=1e8, integer=True, fmt="#,##0", **_MODEL),
    Spec("workload.training_tokens", "Tokens of the training run", "T tokens", "a count of tokens", "15e12",
         lo=0, lo_open=True, hi=1e6, fmt="#,##0.0", **_MODEL),
    Spec("workload.flops_per_parameter_token", "Training FLOP per active parameter per token", "FLOP/param/token",
         "a count of FLOP", "6 FLOP/param/token", lo=1, hi=100, fmt="0.0", **_MODEL),
    Spec("workload.decode_flops_per_parameter_token", "Inference FLOP per active parameter per token (forward)",
         "FLOP/param/token", "a count of FLOP", "2 FLOP/param/token", lo=0.5, hi=100, fmt="0.0", **_MODEL),
    Spec("workload.training_precision", "Training precision (its GPU's dense peak)", "", "a precision", "bf16",
         choices=PRECISIONS, **_MODEL),
    Spec("workload.mfu", "Model FLOPs utilisation (share of the dense peak)", "%", "a fraction", "0.4", lo=0,
         lo_open=True, hi=1.0, fmt=PERCENT, **_MODEL),
    Spec("workload.target_days", "Days the run should take (the GPUs it would need)", "days", "a duration",
         "90 days", lo=0, lo_open=True, hi=3650, fmt="#,##0", **_MODEL),
    Spec("workload.state_bytes_per_parameter", "Training state per parameter (weights, gradients, optimiser)",
         "byte/param", "bytes per parameter", "16 byte/param", lo=1, hi=64, fmt="#,##0", **_MODEL),
    Spec("workload.context", "Context held per user (prompt and output)", "token", "a count of tokens", "8192",
         lo=1, hi=1e8, integer=True, fmt="#,##0", **_MODEL),
    Spec("workload.tensor_parallel", "GPUs serving one copy of the model (a tensor-parallel group)", "GPUs",
         "a count of GPUs", "8", lo=1, hi=1000, integer=True, fmt="#,##0", **_MODEL),
    Spec("workload.hbm_reserve", "HBM kept for activations and the runtime, share", "%", "a fraction", "0.1",
         lo=0, hi=0.9, fmt=PERCENT, **_MODEL),
    Spec("workload.bandwidth_efficiency", "HBM bandwidth a decode step reaches, share of peak", "%", "a fraction",
         "0.8", lo=0, lo_open=True, hi=1.0, fmt=PERCENT, **_MODEL),
    Spec("workload.decode_efficiency", "Dense peak a decode step's FLOPs reach, share", "%", "a fraction", "0.5",
         lo=0, lo_open=True, hi=1.0, fmt=PERCENT, **_MODEL),
    Spec("workload.bf16_bytes", "Bytes of a BF16 weight or cached value", "byte", "a size in bytes", "2 byte",
         lo=0.125, hi=8, fmt="0.###", **_MODEL),
    Spec("workload.fp8_bytes", "Bytes of an FP8 weight or cached value", "byte", "a size in bytes", "1 byte",
         lo=0.125, hi=8, fmt="0.###", **_MODEL),
    Spec("workload.gpu_bf16_peak", "GPU dense BF16 peak", "TFLOP/s", "a compute rate", "989.4 TFLOP/s", lo=0,
         lo_open=True, hi=1e6, fmt="#,##0.0", **_MODEL),
    Spec("workload.gpu_fp8_peak", "GPU dense FP8 peak", "TFLOP/s", "a compute rate", "1978.9 TFLOP/s", lo=0,
         lo_open=True, hi=1e6, fmt="#,##0.0", **_MODEL),
    Spec("workload.gpu_hbm", "GPU memory (HBM)", "GB", "a size in bytes", "80 GB", lo=0, lo_open=True, hi=1e5,
         fmt="#,##0", **_MODEL),
    Spec("workload.gpu_hbm_bandwidth", "GPU memory bandwidth", "TB/s", "a bandwidth", "3.35 TB/s", lo=0,
         lo_open=True, hi=1000, fmt="0.00", **_MODEL),
])


RULES = [
    ("workload.context", "<=", "workload.max_context", "a user's context is at most the longest the model takes"),
    ("workload.active_parameters", "<=", "workload.parameters", "the parameters active per token are some of all"),
    ("workload.tensor_parallel", "<=", "power.gpus", "a tensor-parallel group is some of the site's GPUs"),
]


@dataclass(frozen=True)
class Serving:
    """One precision's inference figures."""

    precision: str
    weights: Line
    kv_per_token: Line
    users: Line
    tokens_per_second: Line
    cost_owned: Line
    cost_on_demand: Line
    cost_committed: Line


@dataclass(frozen=True)
class WorkloadOut:
    training_flops: Line
    run_days: Line
    gpus_for_target: Line
    gpus_to_hold_state: Line
    run_cost_owned: Line
    run_cost_on_demand: Line
    run_cost_committed: Line
    serving: tuple[Serving, ...]


def present(keys: Iterable[str]) -> bool:
    """Whether a site with values for these keys has a workload (its workload: section was read)."""
    return any(key.startswith(f"{PREFIX}.") for key in keys)


def define(scope: Scope, w: Inputs, gpus: Line, goodput: Line, per_gpu_hour: tuple[Line, Line, Line]
           ) -> WorkloadOut:
    """The training run, then inference in each precision. `per_gpu_hour`: the cost of a GPU-hour used, owned,
    rented on demand and committed (the TCO sheet's, after tax, per GPU-hour used)."""
    s = scope.sheet(TITLE)
    flops, days, target, state, costs = _training(s, w, gpus, goodput, per_gpu_hour)
    s.section("Inference: a tensor-parallel group")
    group_hbm = s.calc("group_hbm", "HBM of a tensor-parallel group, less the reserve", "GB",
                       w.tensor_parallel * w.gpu_hbm * (1 - w.hbm_reserve), "group GPUs x HBM x (1 - reserve)",
                       fmt="#,##0.0")
    serving = tuple(_serving(s, w, group_hbm, p, per_gpu_hour) for p in PRECISIONS)
    return scope.outputs(WorkloadOut, training_flops=flops, run_days=days, gpus_for_target=target,
                         gpus_to_hold_state=state, run_cost_owned=costs[0], run_cost_on_demand=costs[1],
                         run_cost_committed=costs[2], serving=serving)


def _training(s: SheetBuilder, w: Inputs, gpus: Line, goodput: Line, per_gpu_hour: tuple[Line, Line, Line]
              ) -> tuple[Line, Line, Line, Line, tuple[Line, ...]]:
    """The run's FLOPs, days, the GPUs for the target days, the GPUs that hold its state, and its costs."""
    s.section("Training: compute")
    flops = s.calc("training_flops", "Training FLOPs of the run", "ZFLOP",
                   w.flops_per_parameter_token * w.active_parameters * w.training_tokens,
                   "FLOP per parameter per token x active parameters x tokens (6 N D); 1 ZFLOP = 10^21 FLOP",
                   fmt="#,##0")
    peak = w.gpu_fp8_peak if w.choice("training_precision") == "fp8" else w.gpu_bf16_peak
    sustained = s.calc("sustained_flops", "Sustained FLOP/s of the site's GPUs", "PFLOP/s", gpus * peak * w.mfu,
                       f"GPUs x dense {w.choice('training_precision').upper()} peak x MFU", fmt="#,##0.0")
    compute_days = s.calc("compute_days", "Days of compute at that rate", "days", flops / sustained,
                          "training FLOPs / sustained FLOP/s", fmt="#,##0.0")
    moves = s.calc("run_progresses", "The run makes progress (goodput above 0)", "TRUE/FALSE", goodput > 0,
                   "goodput > 0: at 0 the site loses to failures all the work it does, and the run never ends",
                   fmt=BOOL)
    stalled = "n/a: the goodput is 0 (Reliability sheet), so the run never ends"
    days = s.calc("run_days", "Wall-clock days of the run (with the goodput)", "days",
                  only_if(moves, compute_days / goodput, stalled),
                  "days of compute / goodput (Reliability sheet: checkpoints, restarts and lost work)",
                  fmt="#,##0.0")
    s.calc("checkpoint_share", "Share of the run lost to checkpoints and failures", "%", 1 - goodput,
           "1 - goodput", fmt=PERCENT)
    target = s.calc("gpus_for_target", "GPUs the target days would need", "GPUs",
                    only_if(moves, ceil(flops / (peak * w.mfu * goodput * w.target_days)), stalled),
                    "ROUNDUP(FLOPs / (peak x MFU x goodput x target days))", fmt=COUNT)
    s.calc("target_share_of_site", "Those GPUs, share of the site's", "%", only_if(moves, target / gpus, stalled),
           "GPUs for the target days / the site's GPUs", fmt=PERCENT)
    s.section("Training: memory (the state sharded over the GPUs, ZeRO stage 3)")
    state_bytes = s.calc("state_bytes", "Training state", "TB", w.parameters * w.state_bytes_per_parameter,
                         "all parameters x state bytes per parameter", fmt="#,##0.0")
    state = s.calc("gpus_to_hold_state", "Least GPUs whose HBM holds the state", "GPUs",
                   ceil(state_bytes / (w.gpu_hbm * (1 - w.hbm_reserve))),
                   "ROUNDUP(state / (HBM per GPU x (1 - reserve)))", fmt=COUNT)
    s.check("state_fits", "The site's GPUs hold the training state", state <= gpus,
            "least GPUs for the state <= the site's GPUs")
    s.section("Training: cost of the run")
    gpu_hours = s.calc("run_gpu_hours", "GPU-hours of the run", "GPU-h", only_if(moves, gpus * days, stalled),
                       "GPUs x wall-clock days", fmt="#,##0")
    costs = tuple(s.calc(f"run_cost_{name}", f"Cost of the run, {label}", "USD",
                         only_if(moves, gpu_hours * price, stalled),
                         f"GPU-hours x {label} cost per GPU-hour used (TCO sheet, after tax)", fmt="#,##0")
                  for (name, label), price in zip((("owned", "owned"), ("on_demand", "rented on demand"),
                                                   ("committed", "rented committed")), per_gpu_hour, strict=True))
    return flops, days, target, state, costs


def _serving(s: SheetBuilder, w: Inputs, group_hbm: Line, precision: str, per_gpu_hour: tuple[Line, Line, Line]
             ) -> Serving:
    """The users a tensor-parallel group holds in one precision, its decode rate and the cost of a million tokens."""
    p = precision
    b = w.fp8_bytes if p == "fp8" else w.bf16_bytes
    s.section(f"Inference in {p.upper()}")
    weights = s.calc(f"{p}_weights", f"Weights ({p.upper()})", "GB", w.parameters * b,
                     f"parameters x bytes of a {p.upper()} weight", fmt="#,##0.0")
    kv = s.calc(f"{p}_kv_per_token", f"KV cache per token ({p.upper()})", "byte",
                2 * w.layers * w.kv_heads * w.head_dim * b,
                f"2 (a key and a value) x layers x KV heads x head dim x bytes of a {p.upper()} value", fmt="#,##0")
    users = s.calc(f"{p}_users", f"Users a group holds at the context ({p.upper()})", "count",
                   max_(0, floor((group_hbm - weights) / (kv * w.context))),
                   "ROUNDDOWN((group HBM - weights) / (KV per token x context)), at least 0", fmt=COUNT)
    s.calc(f"{p}_fits", f"A group holds a user in {p.upper()} (1) or the weights fill it (0)", "flag",
           where(users >= 1, 1, 0), "1 where a group holds at least one user", fmt=COUNT)
    by_bandwidth = s.calc(f"{p}_decode_bandwidth", f"Decode tokens/s a group's bandwidth allows ({p.upper()})",
                          "token/s",
                          users * w.tensor_parallel * w.gpu_hbm_bandwidth * w.bandwidth_efficiency
                          / (weights + users * w.context * kv),
                          "users x group bandwidth x efficiency / (weights + users x context x KV per token)",
                          fmt="#,##0")
    peak = w.gpu_fp8_peak if p == "fp8" else w.gpu_bf16_peak
    by_compute = s.calc(f"{p}_decode_compute", f"Decode tokens/s a group's compute allows ({p.upper()})", "token/s",
                        w.tensor_parallel * peak * w.decode_efficiency
                        / (w.decode_flops_per_parameter_token * w.active_parameters),
                        "group GPUs x peak x efficiency / (FLOP per parameter per token x active parameters)",
                        fmt="#,##0")
    rate = s.calc(f"{p}_tokens_per_second", f"Decode tokens/s per group, the lesser binds ({p.upper()})", "token/s",
                  min_(by_bandwidth, by_compute), "MIN(bandwidth bound, compute bound)", fmt="#,##0")
    s.calc(f"{p}_bandwidth_binds", f"Bandwidth binds (1) or compute (0) ({p.upper()})", "flag",
           where(by_bandwidth <= by_compute, 1, 0), "1 where the bandwidth bound is the lesser", fmt=COUNT)
    costs = [s.calc(f"{p}_cost_{name}", f"Cost per million tokens in {p.upper()}, {label}", "USD/Mtoken",
                    safe_div(price * w.tensor_parallel, rate,
                             f"n/a: the weights leave a {p.upper()} group no room for a user (more GPUs a group)"),
                    f"{label} cost per GPU-hour x group GPUs / tokens a group-hour",
                    fmt="#,##0.000")
             for (name, label), price in zip((("owned", "owned"), ("on_demand", "rented on demand"),
                                              ("committed", "rented committed")), per_gpu_hour, strict=True)]
    return Serving(p, weights, kv, users, rate, *costs)


def summarise(s: SheetBuilder, work: WorkloadOut) -> None:
    """The workload's answers on the Summary, beside the cost per GPU-hour: the training run's days and cost, and a
    million tokens' cost in each precision (owned, rented on demand, committed)."""
    s.section("The workload: a training run and a million tokens (Workload sheet)")
    for line in (work.run_days, work.run_cost_owned, work.run_cost_on_demand, work.run_cost_committed):
        s.show(line)
    for serving in work.serving:
        for line in (serving.cost_owned, serving.cost_on_demand, serving.cost_committed):
            s.show(line)
