"""The workload: section's keys (all optional as a section: a site without it builds as before) and the rules
between them."""

from __future__ import annotations

from workbook.formula.line import PERCENT
from workbook.site.errors import InputError
from workbook.site.spec import Site, Spec, Value
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
    Spec("workload.zero_stage", "ZeRO stage: what data parallelism shards (0 none, 1 the optimiser, 2 and the "
         "gradients, 3 and the weights)", "count", "a stage from 0 to 3", "3", lo=0, hi=3, integer=True,
         fmt="0", **_MODEL),
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
    Spec("workload.prefill_efficiency", "Dense peak a prefill's FLOPs reach, share", "%", "a fraction", "0.5",
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


def refusals(site: Site) -> list[InputError]:
    """A model no GPU count of the site can hold, in the base case or a scenario: its weights in FP8 (the smallest
    precision) exceed the HBM of all the site's GPUs less the reserve, so neither a tensor-parallel group nor the
    training can place it. Refused when the site is loaded (a rule of five keys, which the rules between two keys
    cannot say)."""
    cases = [(None, site.values), *((name, {**site.values, **changes}) for name, changes in site.scenarios.items())]
    return [e for name, values in cases if (e := _unfit(site, values, name)) is not None]


_FIT = ("workload.parameters", "workload.fp8_bytes", "power.gpus", "workload.gpu_hbm", "workload.hbm_reserve")


def _unfit(site: Site, v: dict[str, Value], scenario: str | None) -> InputError | None:
    if not all(k in v for k in _FIT):
        return None
    params, fp8, gpus, hbm, reserve = (float(v[k].magnitude) for k in _FIT)
    weights = params * fp8  # B params x byte = GB
    room = gpus * hbm * (1 - reserve)
    if weights <= room:
        return None
    return InputError(f"does not fit the site: its FP8 weights ({weights:,.1f} GB) exceed the HBM of all "
                      f"{gpus:,.0f} GPUs less the reserve ({room:,.1f} GB)", file=site.path,
                      key="workload.parameters", value=v["workload.parameters"].given,
                      others=tuple((k, v[k].given) for k in _FIT[1:]), scenario=scenario,
                      expected="a model whose weights fit the site's GPUs, or more GPUs")
