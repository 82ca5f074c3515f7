"""Workload economics: the FLOPs, days and cost of a training run and the users, tokens/s and cost of a million
tokens, each worked by hand from the issue's and the papers' figures, on every GPU of the catalog; its inputs
refused in one line; a site without a workload builds as before; the sheet recalculated in LibreOffice and
Gnumeric."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.helpers import assert_one_line_error, invoke, site_file
from tests.parity import Built, check
from workbook.api import Model, load
from workbook.book import sheets
from workbook.excel.writer import write_book
from workbook.models import workload as workload_model
from workbook.site.errors import InputError
from workbook.site.templates import load_catalog

# Each catalog GPU's dense peaks (TFLOP/s), HBM (GB) and bandwidth (TB/s), as its data sheet gives them (dense:
# half the "with sparsity" figure): the catalog must hold these.
DATA_SHEETS = {
    "H100-SXM": (989.4, 1978.9, 80, 3.35), "H200-SXM": (989.4, 1978.9, 141, 4.8), "B200": (2250, 4500, 180, 8),
    "B200-GB200": (2500, 5000, 186, 8), "MI300X": (1307.4, 2614.9, 192, 5.3), "B300-GB300": (2500, 5000, 288, 8),
}
LLAMA_70B = {"parameters": "70e9", "active_parameters": "70e9", "layers": 80, "kv_heads": 8, "head_dim": 128,
             "max_context": 131072, "training_tokens": "15e12", "hbm_reserve": 0.0, "context": 8192}


def workload_site(tmp: Path, name: str = "work", gpu: str = "H100-SXM", model: str | None = None,
                  **workload: object) -> Path:
    """The example (no risk:, no scenarios) with a workload: section; `model` names a catalog model instead of
    the 70B shape of the issue's worked example."""
    shape = {} if model is not None else dict(LLAMA_70B)
    path = site_file(tmp, name, workload={**shape, **workload})
    data = yaml.safe_load(path.read_text())
    data["catalog"]["gpu"] = gpu
    if model is not None:
        data["catalog"]["model"] = model
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def value(model: Model, key: str) -> float:
    return float(np.asarray(model.values[key]).reshape(-1)[0])


@functools.cache
def built(folder: Path, gpu: str, model: str | None = None, **workload: object) -> Model:
    return load(workload_site(folder, f"{gpu}-{model}", gpu, model, **workload))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workload")


def test_the_catalog_holds_each_gpus_data_sheet_figures() -> None:
    gpus = load_catalog()["gpus"]
    assert set(gpus) == set(DATA_SHEETS)
    for name, (bf16, fp8, hbm, bandwidth) in DATA_SHEETS.items():
        values = gpus[name]["values"]
        assert values["workload.gpu_bf16_peak"]["value"] == f"{bf16:g} TFLOP/s"
        assert values["workload.gpu_fp8_peak"]["value"] == f"{fp8:g} TFLOP/s"
        assert values["workload.gpu_hbm"]["value"] == f"{hbm:g} GB"
        assert values["workload.gpu_hbm_bandwidth"]["value"] == f"{bandwidth:g} TB/s"
        assert fp8 == pytest.approx(2 * bf16, rel=1e-3)  # the Tensor Cores' FP8 rate is twice their BF16 rate


def test_llama_3_405b_by_hand_the_papers_flops_and_days_on_16384_h100(folder: Path) -> None:
    """6 x 405e9 x 15.6e12 = 3.79e25 FLOPs (the paper: 3.8e25); on 16,384 H100 at 989.4 TFLOP/s dense BF16 and
    40% MFU, 5.85e6 s = 67.7 days before goodput."""
    m = built(folder, "H100-SXM", "Llama-3-405B", mfu=0.4)
    flops = 6 * 405e9 * 15.6e12
    assert value(m, "workload.training_flops") * 1e21 == pytest.approx(flops, rel=1e-12)
    assert flops == pytest.approx(3.79e25, rel=1e-3)
    at = m.book.evaluate({"power.gpus": 16384}, lines=["workload.compute_days", "workload.run_days",
                                                     "reliability.goodput"])
    seconds = flops / (16384 * 989.4e12 * 0.4)
    assert seconds == pytest.approx(5.85e6, rel=1e-3)
    assert float(at["workload.compute_days"][0, 0]) == pytest.approx(seconds / 86400, rel=1e-12)
    assert seconds / 86400 == pytest.approx(67.7, abs=0.05)
    assert float(at["workload.run_days"][0, 0]) == pytest.approx(
        seconds / 86400 / float(at["reliability.goodput"][0, 0]), rel=1e-12)


@pytest.mark.parametrize("gpu", sorted(DATA_SHEETS))
def test_every_catalog_gpu_by_hand_days_gpus_for_the_target_and_memory(folder: Path, gpu: str) -> None:
    bf16, fp8, hbm, bandwidth = DATA_SHEETS[gpu]
    m = built(folder, gpu)
    gpus, goodput = value(m, "power.gpus"), value(m, "reliability.goodput")
    flops = 6 * 70e9 * 15e12
    days = flops / (gpus * bf16 * 1e12 * 0.4) / 86400
    assert value(m, "workload.compute_days") == pytest.approx(days, rel=1e-12)
    assert value(m, "workload.run_days") == pytest.approx(days / goodput, rel=1e-12)
    target = flops / (bf16 * 1e12 * 0.4 * goodput * 90 * 86400)
    assert value(m, "workload.gpus_for_target") == np.ceil(target)
    state = 70e9 * 16  # bytes of mixed-precision Adam's state
    assert value(m, "workload.gpus_to_hold_state") == np.ceil(state / (hbm * 1e9))
    for precision, peak, size in (("bf16", bf16, 2), ("fp8", fp8, 1)):
        weights, kv = 70e9 * size, 2 * 80 * 8 * 128 * size
        users = max(0, np.floor((8 * hbm * 1e9 - weights) / (kv * 8192)))
        assert value(m, f"workload.{precision}_users") == users
        by_bandwidth = users * 8 * bandwidth * 1e12 * 0.8 / (weights + users * 8192 * kv)
        by_compute = 8 * peak * 1e12 * 0.5 / (2 * 70e9)
        assert value(m, f"workload.{precision}_tokens_per_second") == pytest.approx(min(by_bandwidth, by_compute),
                                                                                   rel=1e-12)


def test_the_issues_70b_in_bf16_on_8_h100_holds_186_users(folder: Path) -> None:
    """Weights 140 GB, KV 2 x 80 x 8 x 128 x 2 = 327,680 bytes a token, (640 - 140) GB / (327,680 x 8,192) = 186."""
    m = built(folder, "H100-SXM")
    assert value(m, "workload.bf16_weights") == pytest.approx(140.0, rel=1e-12)
    assert value(m, "workload.bf16_kv_per_token") == 327_680
    assert value(m, "workload.bf16_users") == 186 == (640e9 - 140e9) // (327_680 * 8_192)


def test_the_costs_by_hand_from_the_tco_s_cost_per_gpu_hour(folder: Path) -> None:
    """The run's GPU-hours at each cost per GPU-hour; a million tokens at a group's; the checkpoint tier's share of
    the run: its write time over the interval (in seconds), and that share of the owned cost."""
    m = built(folder, "H100-SXM")
    writing = value(m, "reliability.write_time") / (value(m, "reliability.checkpoint_interval") * 60)
    assert value(m, "workload.writing_share") == pytest.approx(writing, rel=1e-12)
    assert value(m, "workload.writing_cost_owned") == pytest.approx(writing * value(m, "workload.run_cost_owned"),
                                                                    rel=1e-12)
    hours = value(m, "power.gpus") * value(m, "workload.run_days") * 24
    for name, rate in (("owned", "tco.owned_cost_per_gpu_hour"),
                       ("on_demand", "tco.rented_cost_per_gpu_hour_on_demand"),
                       ("committed", "tco.rented_cost_per_gpu_hour_committed")):
        assert value(m, f"workload.run_cost_{name}") == pytest.approx(hours * value(m, rate), rel=1e-12)
        for precision in ("bf16", "fp8"):
            per_token = value(m, rate) * 8 / (value(m, f"workload.{precision}_tokens_per_second") * 3600)
            assert value(m, f"workload.{precision}_cost_{name}") == pytest.approx(per_token * 1e6, rel=1e-12)


def test_a_mixture_of_experts_trains_and_decodes_on_its_active_parameters(folder: Path) -> None:
    """DeepSeek-V3: 6 x 37e9 x 14.8e12 FLOPs; its 671B weights do not fit 8 x 80 GB in BF16 (no user, the costs n/a)
    and its FP8 weights (671 GB) neither; on 8 x B300 (2,304 GB) both fit."""
    m = built(folder, "H100-SXM", "DeepSeek-V3")
    assert value(m, "workload.training_flops") * 1e21 == pytest.approx(6 * 37e9 * 14.8e12, rel=1e-12)
    assert value(m, "workload.bf16_users") == value(m, "workload.fp8_users") == 0
    assert np.isnan(value(m, "workload.fp8_cost_owned"))
    big = built(folder, "B300-GB300", "DeepSeek-V3")
    kv = 2 * 61 * 1 * 288 * 2  # the compressed latent of multi-head latent attention, in BF16
    assert value(big, "workload.bf16_kv_per_token") == kv
    assert value(big, "workload.bf16_users") == np.floor((8 * 288e9 * 0.9 - 671e9 * 2) / (kv * 8192))
    assert value(big, "workload.fp8_tokens_per_second") <= 8 * 5000e12 * 0.5 / (2 * 37e9)


@pytest.mark.parametrize(("stage", "gpus"), [(0, None), (1, 4), (2, 3), (3, 3)])
def test_the_zero_stage_by_hand_the_gpus_and_nodes_that_hold_the_state(folder: Path, stage: int,
                                                                       gpus: int | None) -> None:
    """A 10B model's 160 GB of state on H100 (80 GB, a tenth reserved: 72 GB usable). Kept whole on every GPU: the
    state (stage 0: 160 GB, more than a GPU, so no count), BF16 weights and gradients (1: 40 GB; the 120 GB of
    optimiser over 32 GB a GPU: 4), the weights (2: 20 GB; 140 / 52: 3), nothing (3: 160 / 72: 3)."""
    m = built(folder, "H100-SXM")
    v = m.book.evaluate({"workload.parameters": 10, "workload.active_parameters": 10, "workload.hbm_reserve": 0.1,
                         "workload.zero_stage": stage})
    kept = {0: 160, 1: 40, 2: 20, 3: 0}[stage]
    assert float(v["workload.replicated_state"].reshape(-1)[0]) == pytest.approx(kept, rel=1e-12)
    if gpus is None:
        assert not bool(v["workload.replica_fits"].reshape(-1)[0])
        assert np.isnan(v["workload.gpus_to_hold_state"]).all() and np.isnan(v["workload.nodes_to_hold_state"]).all()
        assert not bool(v["workload.state_fits"].reshape(-1)[0])
        return
    assert gpus == np.ceil((160 - kept) / (72 - kept))
    assert float(v["workload.gpus_to_hold_state"].reshape(-1)[0]) == gpus
    assert float(v["workload.nodes_to_hold_state"].reshape(-1)[0]) == np.ceil(gpus / 8) == 1
    assert bool(v["workload.state_fits"].reshape(-1)[0])


def test_the_part_kept_whole_is_never_more_than_the_state(folder: Path) -> None:
    """A state of 2 bytes a parameter (BF16 weights alone) at stage 1 keeps the 60 GB of a 30B model whole, not 2 x 2
    bytes: one 72 GB GPU holds it."""
    m = built(folder, "H100-SXM")
    v = m.book.evaluate({"workload.parameters": 30, "workload.active_parameters": 30, "workload.hbm_reserve": 0.1,
                         "workload.state_bytes_per_parameter": 2, "workload.zero_stage": 1})
    assert float(v["workload.replicated_state"].reshape(-1)[0]) == pytest.approx(60, rel=1e-12)
    assert float(v["workload.gpus_to_hold_state"].reshape(-1)[0]) == 1
    assert bool(v["workload.state_fits"].reshape(-1)[0])


def test_the_run_on_the_power_envelope_s_gpus_by_hand(folder: Path) -> None:
    """The GPUs the Power envelope sheet puts in its feed run the same FLOPs: days = FLOPs / (GPUs x peak x MFU) /
    goodput, and the target's GPUs as a share of them."""
    m = built(folder, "H100-SXM")
    room = value(m, "envelope.gpus")
    assert value(m, "workload.envelope_gpus") == room > 0
    days = 6 * 70e9 * 15e12 / (room * 989.4e12 * 0.4) / value(m, "reliability.goodput") / 86400
    assert value(m, "workload.envelope_days") == pytest.approx(days, rel=1e-12)
    assert value(m, "workload.target_share_of_envelope") == pytest.approx(value(m, "workload.gpus_for_target") / room,
                                                                          rel=1e-12)


def test_tokens_a_gpu_and_the_site_give_and_the_prefill_by_hand(folder: Path) -> None:
    """Per GPU: a group's decode tokens/s over its 8 GPUs; the site: ROUNDDOWN(GPUs / 8) groups x that x the planned
    utilisation; prefill: 8 x peak x 0.5 / (2 x 70e9) tokens/s, and a user's 8,192 tokens over it. The tokens a day
    at the break-even: the TCO's break-even utilisation x every group at full use, a day of seconds."""
    m = built(folder, "H100-SXM")
    gpus, use = value(m, "power.gpus"), value(m, "tco.utilisation")
    for precision, peak in (("bf16", 989.4e12), ("fp8", 1978.9e12)):
        rate = value(m, f"workload.{precision}_tokens_per_second")
        assert value(m, f"workload.{precision}_tokens_per_gpu") == pytest.approx(rate / 8, rel=1e-12)
        site = (gpus // 8) * rate * use
        assert value(m, f"workload.{precision}_site_tokens_per_second") == pytest.approx(site, rel=1e-12)
        prefill = 8 * peak * 0.5 / (2 * 70e9)
        assert value(m, f"workload.{precision}_prefill_tokens_per_second") == pytest.approx(prefill, rel=1e-12)
        assert value(m, f"workload.{precision}_prefill_seconds") == pytest.approx(8192 / prefill, rel=1e-12)
        full = (gpus // 8) * rate * 86400 / 1e6
        assert value(m, f"workload.{precision}_full_tokens") == pytest.approx(full, rel=1e-12)
        even = value(m, "tco.break_even_utilisation") * full
        assert value(m, f"workload.{precision}_break_even_tokens") == pytest.approx(even, rel=1e-12)
    never = m.book.evaluate({"tco.reserved_share": 1.0})  # renting all reserved: the break-even goes over 100%
    assert float(never["tco.break_even_utilisation"].reshape(-1)[0]) > 1
    assert np.isnan(never["workload.fp8_break_even_tokens"]).all()
    assert m.book.lines["workload.fp8_break_even_tokens"].guard_message.startswith("never")


def test_the_workload_tornado_by_hand_mfu_moves_the_run_and_bandwidth_the_tokens(folder: Path) -> None:
    """The run's GPU-hours go as 1 / MFU, so at 0.32 and 0.48 (-/+20% of 0.40) its owned cost is the base x 0.40 /
    0.32 and x 0.40 / 0.48; the FP8 decode is bandwidth-bound, so the share of bandwidth a step reaches (0.8 -/+ 20%)
    moves a million tokens' cost as 0.8 / 0.64 and 0.8 / 0.96, and not the run. Both rows are shown: the table
    holds an input that moves either result by more than 1% of its own base, the widest share first. The model's
    size swings whole (a dense model's active parameters with all): the run's FLOPs, so its cost, -/+20%."""
    m = built(folder, "H100-SXM")
    table = next(t for t in m.book.tables if t.sheet == sheets.WORKLOAD_SENSITIVITY)
    rows = {row[0]: row for row in table.rows}
    run, tokens = value(m, "workload.run_cost_owned"), value(m, "workload.fp8_cost_owned")
    mfu = rows[m.book.lines["workload.mfu"].label]
    assert mfu[5] == pytest.approx(run * 0.40 / 0.32, rel=1e-12) and mfu[6] == pytest.approx(run * 0.40 / 0.48,
                                                                                               rel=1e-12)
    assert mfu[7] == mfu[8] == pytest.approx(tokens, rel=1e-12)
    assert value(m, "workload.fp8_bandwidth_binds") == 1
    bandwidth = rows[m.book.lines["workload.bandwidth_efficiency"].label]
    assert bandwidth[5] == bandwidth[6] == pytest.approx(run, rel=1e-12)
    assert bandwidth[7] == pytest.approx(tokens * 0.8 / 0.64, rel=1e-12)
    assert bandwidth[8] == pytest.approx(tokens * 0.8 / 0.96, rel=1e-12)
    def widest(row: list[object]) -> float:  # the change either way, as a share of its result's base
        return max(sum(abs(x) for x in row[k:k + 2] if isinstance(x, float)) / abs(base)
                   for k, base in ((9, run), (11, tokens)))

    assert [widest(row) for row in table.rows] == sorted((widest(row) for row in table.rows), reverse=True)
    size = next(row for row in table.rows if row[0].startswith(m.book.lines["workload.parameters"].label))
    assert size[0].endswith("with model parameters active per token in proportion")
    assert size[5] == pytest.approx(run * 0.8, rel=1e-12) and size[6] == pytest.approx(run * 1.2, rel=1e-12)


def test_a_model_no_gpu_count_of_the_site_holds_is_refused_in_one_line(tmp_path: Path) -> None:
    """90,000B parameters are 90,000 GB in FP8; the site's 1,024 x 80 GB less a tenth hold 73,728 GB."""
    path = workload_site(tmp_path, parameters="90000e9", hbm_reserve=0.1)
    with pytest.raises(InputError) as e:
        load(path)
    assert (e.value.key, e.value.value) == ("workload.parameters", "90000e9")
    assert {k: str(v) for k, v in e.value.others} == {"power.gpus": "1024", "workload.gpu_hbm": "80 GB",
                                                      "workload.fp8_bytes": "1 byte", "workload.hbm_reserve": "0.1"}
    assert "90,000.0 GB" in e.value.problem and "73,728.0 GB" in e.value.problem
    proc = invoke("build", path, "-o", tmp_path / "x.xlsx")
    assert proc.returncode == 2 and "workload.parameters" in assert_one_line_error(proc, f"error: {path}")
    assert not (tmp_path / "x.xlsx").exists()
    assert load(workload_site(tmp_path, "fits", parameters="70000e9", hbm_reserve=0.1)) is not None
    fits = workload_site(tmp_path, "scenario", parameters="700e9", hbm_reserve=0.1)
    data = yaml.safe_load(fits.read_text())
    data["scenarios"] = {"small_site": {"power.gpus": 8}}  # 8 x 72 GB = 576 GB hold no 700 GB of FP8 weights
    fits.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError) as e:
        load(fits)
    assert (e.value.key, e.value.scenario) == ("workload.parameters", "small_site")
    assert "576.0 GB" in e.value.problem and "\n" not in str(e.value)


def test_a_site_without_a_workload_has_no_workload_sheet(tmp_path: Path) -> None:
    m = load(site_file(tmp_path))
    assert not any(k.startswith("workload.") for k in m.book.lines)
    assert not m.book.sheets.get(sheets.WORKLOAD)
    assert not any(t.sheet == sheets.WORKLOAD_SENSITIVITY for t in m.book.tables)


@pytest.mark.parametrize(("workload", "key"), [
    ({"mfu": 1.2}, "workload.mfu"),
    ({"context": 200000}, "workload.context"),
    ({"active_parameters": "80e9"}, "workload.active_parameters"),
    ({"training_precision": "fp4"}, "workload.training_precision"),
    ({"mfu": "40 %/s"}, "workload.mfu"),
])
def test_bad_workload_input_is_refused_in_one_line(tmp_path: Path, workload: dict[str, object], key: str) -> None:
    path = workload_site(tmp_path, **workload)
    with pytest.raises(InputError) as e:
        load(path)
    assert e.value.key == key
    proc = invoke("build", path, "-o", tmp_path / "x.xlsx")
    assert proc.returncode == 2 and key in assert_one_line_error(proc, f"error: {path}")
    assert not (tmp_path / "x.xlsx").exists()


def test_the_workload_sheet_matches_libreoffice_and_gnumeric(libreoffice: str, tmp_path: Path) -> None:
    site = workload_site(tmp_path, model="Llama-3-405B")
    m = load(site)
    xlsx = tmp_path / "work.xlsx"
    layout = write_book(m.book, m.values, m.site, xlsx)
    assert sheets.WORKLOAD in layout.sheets
    outcome = check([Built(site, xlsx, m, layout)], tmp_path)
    assert outcome.problems == []
    assert outcome.lines == sum(line.kind != "input" for line in m.book.lines.values())
    assert outcome.gnumeric_cells > 0


def test_init_offers_the_workload_section_commented_out(tmp_path: Path) -> None:
    """The new site's file holds the workload: section commented out, every key with the value it would take (the
    catalog model's shape, the GPU's figures, the defaults), so uncommenting it adds the Workload sheet."""
    out = tmp_path / "new.yaml"
    proc = invoke("init", "--gpu", "B200", "--node", "DGX-B200", "--part", "model=Llama-3-405B", "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    block = text[text.index("\n# workload:\n"):text.index("# --- Scenarios")]
    written = {line.split(":")[0].strip("# ") for line in block.splitlines() if line.startswith("#   ")
               and not line.startswith("#   #")}
    assert written == {spec.key.split(".")[1] for spec in workload_model.INPUTS}
    assert "#   parameters: 405e9" in block and "#   gpu_bf16_peak: 2250 TFLOP/s" in block
    assert yaml.safe_load("\n".join(line[2:] for line in block.strip().splitlines()
                                    if (line.startswith("#   ") and not line.startswith("#   #")) or
                                    line == "# workload:"))["workload"]["mfu"] == 0.4


STALLED = "n/a: the goodput is 0 (Reliability sheet), so the run never ends"


def test_a_run_at_no_goodput_never_ends_and_says_so(folder: Path) -> None:
    """Where the time lost per interruption outlasts the time between them, the Reliability sheet's goodput is 0:
    the run's days, its GPU-hours, its costs and the GPUs for the target days say so in words (they were a
    division by zero the fabric's widest random sites reached), and its days of compute still stand."""
    m = built(folder, "H100-SXM")
    stalled = m.book.evaluate({"reliability.ref_days": 0.5, "reliability.restart_time": 1440})
    assert float(stalled["reliability.goodput"].reshape(-1)[0]) == 0.0
    assert float(stalled["workload.compute_days"].reshape(-1)[0]) == pytest.approx(value(m, "workload.compute_days"))
    for key in ("run_days", "run_gpu_hours", "run_cost_owned", "run_cost_on_demand", "run_cost_committed",
                "gpus_for_target", "target_share_of_site"):
        assert np.isnan(stalled[f"workload.{key}"]).all(), key
        assert m.book.lines[f"workload.{key}"].guard_message == STALLED
    assert value(m, "workload.run_days") == pytest.approx(value(m, "workload.compute_days")
                                                         / value(m, "reliability.goodput"), rel=1e-12)
