"""The figures the README and docs/ quote from the sites in inputs/, tested against their builds (item 13 of
issue 42: its generators and envelope figures had gone stale). Each row names the site, the line, how the document
writes the figure and the words around it; the test formats the built value and finds the phrase in the README or a
page of docs/ (whitespace folded, so a phrase may wrap). A figure a document quotes from a site goes in this table,
or is generated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import documents_text, example_with, site_model
from workbook.api import load

README = documents_text()

EX, B200, GB200, TENK, UPGRADE = ("example", "b200-liquid-build", "gb200-nvl72-colo", "h100-10k-build",
                                  "example-b200-upgrade")

# (site, line (or lines, summed), format, phrase with {} where the figure goes). Formats: a str.format spec,
# "pct1" / "pct2" for a share in percent to that many decimals, "musd2" for USD in millions to two.
SPARES = tuple(f"bom.spare_{part}_cost" for part in ("node", "nic", "optic", "cable", "psu", "fan", "switch",
                                                     "inband_switch"))
FIGURES = [
    # Fabric
    (GB200, "fabric.leaves", ".0f", "the GB200 site's {} leaves get 16 spines"),
    (GB200, "fabric.spines", ".0f", "leaves get {} spines of 2 links"),
    (GB200, "fabric.switches", ".0f", "({} switches, 576 leaf-spine links"),
    (GB200, "fabric.leaf_spine_links", ",.0f", "switches, {} leaf-spine links"),
    (GB200, "fabric.transceivers", ",.0f", "links, {} compute transceivers"),
    (TENK, "fabric.spine_core_links", ",.0f", "so {} spine-core links"),
    (TENK, "fabric.core_plane_links_first", ".0f", "take 9 x 32 + 32 = {} links"),
    (TENK, "fabric.core_plane_links_other", ".0f", "the other 30 take 9 x 32 + 24 = {}, 5 cores"),
    (TENK, "fabric.cores", ".0f", "5 cores each: {} cores"),
    (EX, "fabric.oob_switches", ".0f", "The example's {} leaves have 16 uplinks"),
    (EX, "fabric.oob_uplinks", ".0f", "leaves have {} uplinks on one pair"),
    (TENK, "fabric.oob_switches", ".0f", "the 10k site's {} leaves have 160"),
    (TENK, "fabric.oob_uplinks", ".0f", "leaves have {}, more than one pair's"),
    (TENK, "fabric.oob_aggregation", ".0f", "128 ports: {} aggregation switches"),
    (EX, "fabric.oob_aggregation_power", ".1f", "Their power ({} kW a pair"),
    (EX, "fabric.switch_optics_power", ".2f", "optics line in the IT load: {} kW of switch-side"),
    (EX, "fabric.storage_endpoints", ",.0f", "128 x 2 + 2 x 8 + 4 x 2 = {} endpoints"),
    (EX, "fabric.storage_leaves", ".0f", "a full leaf: {} leaves and 2 spines"),
    (EX, "fabric.storage_spines", ".0f", "leaves and {} spines of 9 links"),
    (EX, "fabric.storage_switches", ".0f", "9 links ({} switches, was 16)"),
    (TENK, "fabric.storage_endpoints", ",.0f", "280 system ports): {} endpoints"),
    (TENK, "fabric.storage_leaves", ".0f", "endpoints on {} leaves"),
    (TENK, "fabric.storage_spines", ".0f", "leaves and {} spines, two tiers"),
    (TENK, "fabric.storage_switches", ".0f", "two tiers ({} switches;"),
    (EX, "fabric.inband_leaves", ".0f", "16 up; {} leaves (3 pairs)"),
    (EX, "fabric.inband_spines", ".0f", "(3 pairs) and {} spines of 8 links"),
    (EX, "fabric.inband_switches", ".0f", "8 links: {} switches"),
    (EX, "fabric.inband_leaf_spine_links", ".0f", "switches, {} leaf-spine links"),
    (EX, "fabric.inband_transceivers", ",.0f", "peer cables, {} transceivers"),
    (EX, "fabric.switch_optics_power", ".2f", "in the IT load: {} kW of switch-side"),
    # Standby generators (Power chain)
    (EX, "power.critical_it_capacity", ",.1f", "The example: {} kW UPS-backed"),
    (EX, "power.generator_plant_load", ",.1f", "+ {} kW of overhead"),
    (EX, "power.generator_recharge_load", ",.1f", "+ {} kW of recharge"),
    (EX, "power.generator_load", ",.1f", "= {} kW ="),
    (EX, "power.generator_load_apparent", ",.1f", "= {} kVA: 2 sets"),
    (EX, "power.generator_blocks", ".0f", "N+1 = {} (7,500 kVA)"),
    (EX, "power.installed_generator", ",.0f", "({} kVA); at most"),
    (B200, "power.generator_load_apparent", ",.1f", "The B200 build: {} kVA a bus"),
    (B200, "power.generator_blocks", ".0f", "two buses ({};"),
    (TENK, "power.generator_blocks_n", ".0f", "the 10k site: {} sets needed"),
    (TENK, "power.generator_blocks", ".0f", "N+2 = {}."),
    # One feed's share of a node (Power chain)
    (EX, "power.node_one_feed_share_rated", "pct0", "of DC at the 10.2 kW maximum ({}%)"),
    (EX, "power.node_one_feed_share", "pct0", "so it runs on 3/4 = {}%"),
    (B200, "power.node_one_feed_share", "pct0", "are 3/5 = {}%"),
    (B200, "power.node_one_feed_share_rated", "pct1", "({}% by their labels)"),
    # The design PUE floor (Cooling)
    (EX, "cooling.pue_design", ".2f", "The example now gives {} (its floor"),
    (EX, "cooling.pue_floor", ".4f", "(its floor {} at that PUE"),
    (B200, "cooling.pue_design", ".3f", "the B200 build's {} is above"),
    (B200, "cooling.pue_floor", ".3f", "is above its {}, the GB200"),
    (GB200, "cooling.pue_design", ".2f", "the GB200 site's {} above"),
    (GB200, "cooling.pue_floor", ".3f", "above {}, the 10k site's"),
    (TENK, "cooling.pue_design", ".2f", "the 10k site's {} above"),
    (TENK, "cooling.pue_floor", ".3f", "above {} (water-cooled chillers"),
    (B200, "cooling.cold_plate_time", ".1f", "margin less 25 K, {} s"),
    (EX, "cooling.cold_plate_time", ".1f", "the example's H100: {} s."),
    # Power envelope and capping
    (EX, "envelope.fixed_feed", ",.2f", "x 1.1 x 1.49 = {} kW, feed per node"),
    (EX, "envelope.feed_per_node", ",.3f", "1.639 = {} kW, so"),
    (EX, "envelope.nodes", ".0f", "so {} DGX H100"),
    (EX, "envelope.gpus", ",.0f", "DGX H100 = {} GPUs."),
    (EX, "envelope.capped_nodes", ".0f", "The example: {} nodes,"),
    (EX, "envelope.capped_gpus", ",.0f", "nodes, {} GPUs (80 more)"),
    (EX, "envelope.extra_gpus", ",.0f", "GPUs ({} more) at 88.8%"),
    (EX, "envelope.compute_gain", "pct1", "each: +{}% compute per MW"),
    (EX, "envelope.compute_gain_continuous", "pct1", "+{}% for the example"),
    (B200, "envelope.cap_facility_factor", ".3f", "(the B200 build: 1.02 / 0.95 = {} against"),
    (B200, "envelope.capped_nodes", ".0f", "The B200 build: {} nodes ("),
    (B200, "envelope.capped_gpus", ",.0f", "nodes ({} GPUs, it was 384"),
    (B200, "envelope.compute_gain", "pct1", "factor), +{}%."),
    (B200, "envelope.compute_gain_continuous", "pct1", "+{}% for the B200 build."),
    (GB200, "envelope.cap_facility_factor", ".3f", "the GB200 site 1.01 / 0.95 = {} against"),
    (GB200, "envelope.nodes", ".0f", "1 MW holds {} GB200 NVL72 racks at TDP"),
    (GB200, "envelope.capped_nodes", ".0f", "at TDP and {} capped"),
    (GB200, "envelope.compute_gain", "pct1", "capped, +{}% ("),
    (GB200, "envelope.compute_gain_continuous", "pct1", "+{}% for the GB200 racks"),
    # Reliability and storage
    (EX, "reliability.mtbi", ".1f", "(16 x fewer): {} h,"),
    (EX, "reliability.mtbi", ".1f", "(16 x fewer): {} h,"),
    (EX, "reliability.interruptions_per_month", ".2f", "h, {} interruptions a 730-hour month"),
    (EX, "reliability.replacements_per_month", ".1f", "month, {} of them needing a part"),
    (EX, "reliability.restarts_per_month", ".1f", "and {} cleared by a restart"),
    (EX, "reliability.checkpoint_size", ".2f", "70e9 x 16 = {} TB"),
    (EX, "reliability.write_time", ".1f", "{} s to write"),
    (EX, "reliability.restore_time", ".1f", "{} s to restore"),
    (EX, "reliability.optimal_interval", ".1f", "(the example: {} minutes;"),
    (EX, "reliability.goodput", "pct2", "the goodput is {}%"),
    (EX, "reliability.storage_power", ".2f", "(the example: {} kW) is the Power chain's storage line"),
    (EX, "reliability.node_reserve", ".0f", "The example holds {} nodes"),
    (EX, "reliability.node_pipeline_stock", ".0f", "(stock {} for a mean"),
    (EX, "reliability.node_pipeline", ".2f", "for a mean of {} in repair"),
    (EX, "reliability.contract_onsite_4h_need", ".0f", "a rack's 4; {} at 2 days,"),
    (EX, "reliability.contract_depot_need", ".0f", "at 2 days, {} at 14)"),
    (EX, "reliability.fan_wait_cost", ",.0f", "(N+1 fan sets: {} USD of waiting"),
    (EX, SPARES, "musd2", "group prices them (USD {}M)"),
    (B200, "reliability.node_reserve", ".0f", "The B200 build holds {} nodes"),
    (GB200, "reliability.node_reserve", ".0f", "The GB200 site holds {} compute trays"),
    (GB200, "reliability.hot_rack_stock_cost", "musd1", "for its hot pool (USD {}M)"),
    # The workbook's sheets (README): the Summary's sentence
    (EX, "tco.npv_advantage", "-musd1", '"Rent: owning costs {} MUSD more than renting (NPV)" on the example'),
    (EX, "tco.npv_advantage_on_demand", "musd1", "the NPV advantage is {} MUSD against on demand"),
    (EX, "tco.npv_advantage_committed", "musd1", "and {} MUSD against a committed contract"),
    # Generation upgrade: moving instead
    (UPGRADE, "generation.move_value_share", "pct1", "and keeps {}% of its"),
    (UPGRADE, "generation.move_capex", "musd2", "of its {} MUSD; the retrofit"),
    (UPGRADE, "generation.projects_total", "musd2", "the retrofit 150 / 240 of its {} MUSD"),
    # Workload (docs/workload.md): the example's run and tokens
    (EX, "workload.run_days", ".1f", "the run takes {} days"),
    (EX, "workload.run_cost_owned", "musd2", "costs {} MUSD owned"),
    (EX, "workload.run_cost_on_demand", "musd2", "({} MUSD rented on demand"),
    (EX, "workload.run_cost_committed", "musd2", "rented on demand, {} MUSD committed)"),
    (EX, "workload.fp8_users", ".0f", "a group of 8 holds {} users"),
    (EX, "workload.fp8_cost_owned", ".2f", "a million tokens cost {} USD owned"),
]


def _figure(value: float, fmt: str) -> str:
    if fmt.startswith("-"):  # a figure the words give as a size: "owning costs 16.7 MUSD more"
        value, fmt = -value, fmt[1:]
    if fmt.startswith("musd"):
        return f"{value / 1e6:.{int(fmt[4:])}f}"
    if fmt.startswith("pct"):
        return f"{value * 100:.{int(fmt[3:])}f}"
    return format(value, fmt)


@pytest.mark.slow
@pytest.mark.parametrize(("site", "line", "fmt", "phrase"), FIGURES,
                         ids=[f"{site}:{line if isinstance(line, str) else 'spares'}" for site, line, _, _ in FIGURES])
def test_the_readme_quotes_the_built_figure(site: str, line: str | tuple[str, ...], fmt: str, phrase: str) -> None:
    lines = (line,) if isinstance(line, str) else line
    value = sum(float(np.asarray(site_model(f"{site}.yaml").values[each]).reshape(-1)[0]) for each in lines)
    want = phrase.format(_figure(value, fmt))
    assert want in README, f"README should say {want!r} ({line} of {site} = {value!r})"


@pytest.mark.slow
def test_the_single_mode_optic_figure_is_the_price_gap_on_the_example(tmp_path: Path) -> None:
    """docs/fabric.md: choosing the single-mode MMS4X00-NS once left the example's compute transceivers at the
    multimode price, "1.02 MUSD low on the example's 2,048": 2,048 single-mode compute transceivers (host side
    512, leaf host side 512, leaf-spine 1,024) x (1,500 - 1,000) USD = 1,024,000 USD."""
    model = load(example_with(tmp_path, "single_mode", risk=False, **{"catalog.optic": "MMS4X00-NS"}))
    got = {k: float(model.values[f"bom.{k}_optics_sm_qty"].reshape(-1)[0])
           for k in ("node", "leaf_host", "leaf_spine", "spine_core")}
    assert got == {"node": 512, "leaf_host": 512, "leaf_spine": 1024, "spine_core": 0}
    prices = (model.values[f"tco.{k}transceiver_price"].reshape(-1)[0] for k in ("single_mode_", ""))
    gap = float(next(prices) - next(prices))
    low = sum(got.values()) * gap
    assert low == 2048 * 500
    assert f"{low / 1e6:.2f} MUSD low on the example's {sum(got.values()):,.0f}" in README


@pytest.mark.slow
def test_the_workload_s_worked_examples_are_the_built_figures(tmp_path: Path) -> None:
    """docs/workload.md's hand-worked figures, each from a build of the example's variant: Llama 3 405B's FLOPs and
    its days on 16,384 H100 at 40% MFU (the site's GPUs overridden in the evaluation), and a 70B model's BF16 users
    on 8 x H100 with no reserve."""
    big = load(example_with(tmp_path, "llama405", risk=False, **{"catalog.model": "Llama-3-405B"}))
    flops = float(big.values["workload.training_flops"].reshape(-1)[0]) * 1e21  # ZFLOP
    days = float(big.book.evaluate({"power.gpus": 16384}, lines=["workload.compute_days"])["workload.compute_days"]
                 .reshape(-1)[0])
    def sci(x: float) -> str:  # 3.79e25, as the page writes it
        mantissa, exponent = f"{x:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"

    assert f"= {sci(flops)} FLOPs (the paper: 3.8e25)" in README
    assert f"{sci(days * 86400)} s = {days:.1f} days before goodput" in README
    shape = {"workload.parameters": "70e9", "workload.active_parameters": "70e9", "workload.hbm_reserve": 0.0,
             "workload.context": 8192}
    small = load(example_with(tmp_path, "llama70", risk=False, **shape))
    users = float(small.values["workload.bf16_users"].reshape(-1)[0])
    weights = float(small.values["workload.bf16_weights"].reshape(-1)[0])
    assert f"(640 - {weights:.0f}) GB / (327,680 bytes x 8,192) = {users:.0f} users" in README
    counts = {}
    for stage in range(4):
        v = small.book.evaluate({"workload.parameters": 10, "workload.active_parameters": 10,
                                 "workload.hbm_reserve": 0.1, "workload.zero_stage": stage})
        state, usable = (float(v[f"workload.{k}"].reshape(-1)[0]) for k in ("state_bytes", "usable_hbm"))
        counts[stage] = float(v["workload.gpus_to_hold_state"].reshape(-1)[0])
    assert np.isnan(counts[0]) and counts[2] == counts[3]
    assert (f"a 10B model's {state * 1000:.0f} GB on H100 with a tenth reserved ({usable:.0f} GB) needs "
            f"{counts[1]:.0f} GPUs at stage 1, {counts[2]:.0f} at stages 2 and 3, and no count at stage 0") in README
