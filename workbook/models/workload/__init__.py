"""Workload economics: from the FLOPs a model needs to the days and cost of a training run on this site, and from
the bytes a model holds to the users a GPU serves and the cost of a million tokens.

Training. A dense transformer takes 6 FLOP per parameter per token (forward and backward; Kaplan et al. 2020), a
mixture of experts 6 per active parameter: 6 x N x D for the run. The site sustains its GPUs' dense peak at the
training precision x MFU (model FLOPs utilisation, the share of peak the model's own FLOPs reach), and of the
wall-clock time the Reliability sheet's goodput is useful work: days = FLOPs / (GPUs x peak x MFU) / goodput. The
training state (16 bytes per parameter for mixed-precision Adam: BF16 weights and gradients, FP32 master weights
and two moments) must fit in the HBM of the data-parallel GPUs that share it at the ZeRO stage (below): the least
GPUs and nodes that hold it, as a check against the site's.

Inference. The weights take N x bytes per parameter (BF16 2, FP8 1); each token of a user's context keeps its keys
and values: 2 x layers x KV heads x head dim x bytes. What the weights leave of a tensor-parallel group's HBM (less
a reserve for activations and the runtime) over the KV bytes of one user's context is the users the group holds.
A decode step reads the weights and every user's KV cache once and gives each user a token, so the group's tokens
per second are at most users x bandwidth / bytes read; they are also at most the group's peak x an efficiency / (2
x active parameters) FLOP a token. The lesser binds, and is said. The cost of a million tokens divides the cost
per GPU-hour (owned, rented on demand, committed: the TCO sheet's, per GPU-hour used) by the tokens a GPU-hour
gives.

ZeRO (Rajbhandari et al. 2020) shards the state over the data-parallel GPUs by stage: at stage 3 every part, at 2
all but the weights, at 1 the optimiser only, at 0 nothing; what is kept whole must leave a GPU room for its share of
the rest. Prefill is compute-bound: a group's peak x an efficiency over 2 x active parameters FLOP a token.

The package: `inputs` (the keys and rules), `training` (the run), `inference` (serving in each precision).
"""


from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.book.sheets import WORKLOAD as TITLE
from workbook.formula.line import Line
from workbook.models.base import Inputs, Scope
from workbook.models.workload.inference import Market, Serving, define_groups, define_serving
from workbook.models.workload.inputs import INPUTS, PRECISIONS, PREFIX, RULES, refusals
from workbook.models.workload.training import Cluster, define_training

__all__ = ["INPUTS", "PREFIX", "RULES", "Cluster", "Market", "Serving", "WorkloadOut", "define", "present",
           "refusals", "summarise"]


@dataclass(frozen=True)
class WorkloadOut:
    training_flops: Line
    run_days: Line
    gpus_for_target: Line
    gpus_to_hold_state: Line
    nodes_to_hold_state: Line
    run_cost_owned: Line
    run_cost_on_demand: Line
    run_cost_committed: Line
    serving: tuple[Serving, ...]


def present(keys: Iterable[str]) -> bool:
    """Whether a site with values for these keys has a workload (its workload: section was read)."""
    return any(key.startswith(f"{PREFIX}.") for key in keys)


def define(scope: Scope, w: Inputs, cluster: Cluster, market: Market) -> WorkloadOut:
    """The training run, then inference in each precision."""
    s = scope.sheet(TITLE)
    run = define_training(s, w, cluster)
    group_hbm, groups = define_groups(s, w, market)
    serving = tuple(define_serving(s, w, market, group_hbm, groups, p) for p in PRECISIONS)
    return WorkloadOut(run.flops, run.run_days, run.gpus_for_target, run.gpus_to_hold_state,
                       run.nodes_to_hold_state, *run.costs, serving)


def summarise(s: SheetBuilder, work: WorkloadOut) -> None:
    """The workload's answers on the Summary, beside the cost per GPU-hour: the training run's days and cost, and a
    million tokens' cost in each precision (owned, rented on demand, committed)."""
    s.section("The workload: a training run and a million tokens (Workload sheet)")
    for line in (work.run_days, work.run_cost_owned, work.run_cost_on_demand, work.run_cost_committed):
        s.show(line)
    for serving in work.serving:
        for line in (serving.cost_owned, serving.cost_on_demand, serving.cost_committed):
            s.show(line)
