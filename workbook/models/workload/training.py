"""A training run on the site: its FLOPs and days (on the site's GPUs and on those its power envelope holds), the
GPUs a target number of days would need, the GPUs and nodes whose HBM holds its state at the ZeRO stage, and its
cost owned and rented."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.expr import Node
from workbook.formula.functions import all_, ceil, choose, max_, min_, only_if
from workbook.formula.line import BOOL, COUNT, PERCENT, Line
from workbook.models.base import Inputs

STALLED = "n/a: the goodput is 0 (Reliability sheet), so the run never ends"
NO_ENVELOPE = "n/a: the envelope holds no whole node, or the goodput is 0"
PRICES = (("owned", "owned"), ("on_demand", "rented on demand"), ("committed", "rented committed"))


@dataclass(frozen=True)
class Cluster:
    """What the run is placed on: the site's GPUs and GPUs a node, the GPUs its power envelope holds (Power
    envelope sheet, at TDP), the Reliability sheet's goodput and the TCO's costs per GPU-hour used (owned, rented
    on demand, committed)."""

    gpus: Line
    gpus_per_node: Line
    envelope_gpus: Line
    goodput: Line
    per_gpu_hour: tuple[Line, Line, Line]
    writing: Line  # the Reliability sheet's share of the job's time writing checkpoints (at the chosen interval)


@dataclass(frozen=True)
class Training:
    flops: Line
    run_days: Line
    gpus_for_target: Line
    gpus_to_hold_state: Line
    nodes_to_hold_state: Line
    costs: tuple[Line, ...]


def define_training(s: SheetBuilder, w: Inputs, c: Cluster) -> Training:
    """The run's compute, then its memory, then its cost."""
    flops, moves, days, target, writing = _compute(s, w, c)
    gpus, nodes = _memory(s, w, c)
    return Training(flops, days, target, gpus, nodes, _cost(s, c, moves, days, writing))


def peak_at(w: Inputs, precision: str) -> Line:
    """The GPU's dense peak at a precision ("bf16" or "fp8")."""
    return w.gpu_fp8_peak if precision == "fp8" else w.gpu_bf16_peak


def peak_of(w: Inputs) -> Line:
    """The GPU's dense peak at the training precision."""
    return peak_at(w, w.choice("training_precision"))


def _compute(s: SheetBuilder, w: Inputs, c: Cluster) -> tuple[Line, Line, Line, Line, Line]:
    """FLOPs, days of compute and wall-clock days, the GPUs for the target days; then the same on the envelope."""
    s.section("Training: compute")
    flops = s.calc("training_flops", "Training FLOPs of the run", "ZFLOP",
                   w.flops_per_parameter_token * w.active_parameters * w.training_tokens,
                   "FLOP per parameter per token x active parameters x tokens (6 N D); 1 ZFLOP = 10^21 FLOP",
                   fmt="#,##0")
    peak = peak_of(w)
    sustained = s.calc("sustained_flops", "Sustained FLOP/s of the site's GPUs", "PFLOP/s", c.gpus * peak * w.mfu,
                       f"GPUs x dense {w.choice('training_precision').upper()} peak x MFU", fmt="#,##0.0")
    compute_days = s.calc("compute_days", "Days of compute at that rate", "days", flops / sustained,
                          "training FLOPs / sustained FLOP/s", fmt="#,##0.0")
    moves = s.calc("run_progresses", "The run makes progress (goodput above 0)", "TRUE/FALSE", c.goodput > 0,
                   "goodput > 0: at 0 the site loses to failures all the work it does, and the run never ends",
                   fmt=BOOL)
    days = s.calc("run_days", "Wall-clock days of the run (with the goodput)", "days",
                  only_if(moves, compute_days / c.goodput, STALLED),
                  "days of compute / goodput (Reliability sheet: checkpoints, restarts and lost work)",
                  fmt="#,##0.0")
    s.calc("checkpoint_share", "Share of the run lost to checkpoints and failures", "%", 1 - c.goodput,
           "1 - goodput", fmt=PERCENT)
    writing = s.calc("writing_share", "GPU time stalled writing checkpoints, share of the run", "%", c.writing,
                     "Reliability sheet: checkpoint write time / interval (its checkpoint is the size of its own "
                     "model_parameters)", fmt=PERCENT)
    target = s.calc("gpus_for_target", "GPUs the target days would need", "GPUs",
                    only_if(moves, ceil(flops / (peak * w.mfu * c.goodput * w.target_days)), STALLED),
                    "ROUNDUP(FLOPs / (peak x MFU x goodput x target days))", fmt=COUNT)
    s.calc("target_share_of_site", "Those GPUs, share of the site's", "%", only_if(moves, target / c.gpus, STALLED),
           "GPUs for the target days / the site's GPUs; above 100%: the target needs more GPUs than the site has",
           fmt=PERCENT)
    _envelope(s, w, c, flops, target)
    return flops, moves, days, target, writing


def _envelope(s: SheetBuilder, w: Inputs, c: Cluster, flops: Line, target: Line) -> None:
    """The run on the GPUs the power envelope holds: the compute a fixed feed buys, against the site's."""
    s.section("Training: on the power envelope's GPUs (Power envelope sheet)")
    room = s.calc("envelope_gpus", "GPUs the power envelope holds (at TDP)", "GPUs", c.envelope_gpus,
                  "Power envelope sheet: whole nodes in the feed", fmt=COUNT)
    fits = s.calc("envelope_runs", "The envelope holds a node and the run makes progress", "TRUE/FALSE",
                  all_(room > 0, c.goodput > 0), "envelope GPUs > 0 and goodput > 0", fmt=BOOL)
    s.calc("envelope_days", "Wall-clock days of the run on the envelope's GPUs", "days",
           only_if(fits, flops / (room * peak_of(w) * w.mfu) / c.goodput, NO_ENVELOPE),
           "FLOPs / (envelope GPUs x peak x MFU) / goodput (the Reliability job's goodput: on fewer GPUs a job is "
           "interrupted less often, so these days are slightly long)", fmt="#,##0.0")
    s.calc("target_share_of_envelope", "GPUs for the target days, share of the envelope's", "%",
           only_if(fits, target / room, NO_ENVELOPE),
           "GPUs for the target days / envelope GPUs; above 100%: the target needs more GPUs than the feed holds",
           fmt=PERCENT)


def replicated_bytes(w: Inputs) -> Node:
    """The bytes a parameter keeps on every data-parallel GPU at the ZeRO stage: all the state at 0; the BF16
    weights and gradients at 1 (the optimiser is sharded); the weights at 2; nothing at 3 (ZeRO, section 5); never
    more than the whole state (a state of fewer bytes a parameter than the weights and gradients)."""
    return min_(w.state_bytes_per_parameter,
                choose(w.zero_stage + 1, w.state_bytes_per_parameter, 2 * w.bf16_bytes, w.bf16_bytes, 0))


def _memory(s: SheetBuilder, w: Inputs, c: Cluster) -> tuple[Line, Line]:
    """The state a GPU keeps at the ZeRO stage: a replicated part and its share of the sharded rest; the least
    data-parallel GPUs (and nodes) whose HBM holds it, where the replicated part leaves room."""
    s.section("Training: memory (the state over the data-parallel GPUs at the ZeRO stage)")
    state = s.calc("state_bytes", "Training state", "TB", w.parameters * w.state_bytes_per_parameter,
                   "all parameters x state bytes per parameter", fmt="#,##0.0")
    usable = s.calc("usable_hbm", "HBM a GPU gives the state (less the reserve)", "GB",
                    w.gpu_hbm * (1 - w.hbm_reserve), "HBM per GPU x (1 - reserve)", fmt="#,##0.0")
    kept = s.calc("replicated_state", "State every GPU keeps whole at the ZeRO stage", "GB",
                  w.parameters * replicated_bytes(w),
                  "parameters x MIN(state bytes, CHOOSE(stage + 1, state bytes, 2 x BF16 bytes, BF16 bytes, 0)): "
                  "stage 1 shards the optimiser, 2 the gradients too, 3 the weights too", fmt="#,##0.0")
    room = s.calc("replica_fits", "The whole part leaves a GPU room for a share of the rest", "TRUE/FALSE",
                  kept < usable, "replicated state < usable HBM", fmt=BOOL)
    split = "n/a: the state kept whole fills a GPU's HBM (a higher ZeRO stage, or tensor and pipeline parallelism)"
    gpus = s.calc("gpus_to_hold_state", "Least GPUs whose HBM holds the state", "GPUs",
                  only_if(room, max_(1, ceil((state - kept) / (usable - kept))), split),
                  "ROUNDUP((state - replicated) / (usable HBM - replicated)), at least 1", fmt=COUNT)
    nodes = s.calc("nodes_to_hold_state", "Least nodes whose HBM holds the state", "nodes",
                   only_if(room, ceil(gpus / c.gpus_per_node), split), "ROUNDUP(GPUs / GPUs per node)", fmt=COUNT)
    s.check("state_fits", "The site's GPUs hold the training state", all_(kept < usable,
                                                                          state - kept <= (usable - kept) * c.gpus),
            "replicated < usable HBM, and the rest fits the site's GPUs: state - replicated <= (usable - "
            "replicated) x GPUs")
    return gpus, nodes


def _cost(s: SheetBuilder, c: Cluster, moves: Line, days: Line, writing: Line) -> tuple[Line, ...]:
    """The run's GPU-hours at the owned and rented costs per GPU-hour used."""
    s.section("Training: cost of the run")
    gpu_hours = s.calc("run_gpu_hours", "GPU-hours of the run", "GPU-h", only_if(moves, c.gpus * days, STALLED),
                       "GPUs x wall-clock days", fmt="#,##0")
    costs = tuple(s.calc(f"run_cost_{name}", f"Cost of the run, {label}", "USD",
                         only_if(moves, gpu_hours * price, STALLED),
                         f"GPU-hours x {label} cost per GPU-hour used (TCO sheet, after tax)", fmt="#,##0")
                  for (name, label), price in zip(PRICES, c.per_gpu_hour, strict=True))
    s.calc("writing_cost_owned", "Owned cost of the GPU time stalled writing checkpoints", "USD",
           only_if(moves, costs[0] * writing, STALLED),
           "owned cost of the run x share writing checkpoints", fmt="#,##0")
    return costs
