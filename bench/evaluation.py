"""Benchmarks of evaluation (a script, not a test; `make bench` runs it after bench/run.py).

(c) Whole book. Book.evaluate of inputs/example.yaml (every model, the timeline, the scenarios: every line)
    against the same arithmetic written by hand in numpy in this script (hand_book below). "The same arithmetic"
    is LibreOffice's, as the tool computes it: the hand version calls the spreadsheet functions of
    workbook.formula.spreadsheet and workbook.formula.kernels (approximate + and -, comparisons, ROUNDUP and
    ROUNDDOWN, pow, PMT, the compensated SUM and SUMIF, IRR) wherever the tool's formula does, in the same order,
    and plain numpy for * and /. It uses no expression tree, no Book and no evaluator: each line is one numpy
    statement written from the model's formula. The scenarios are stacked as rows of one batch (the base case,
    then each scenario's inputs), as one would write it by hand. Every line the book has is compared with the
    hand version before any timing (np.allclose, rtol 1e-12; TRUE/FALSE lines exactly), and the lines the hand
    version does not cover are listed. Both are timed in the same run, interleaved; the ratio is
    median(Book.evaluate) / median(hand).

(d) Memory at portfolio scale. In a fresh process, evaluate_many of 1,000,000 random sites (GPUs, TDP, PUE,
    prices, utilisation, cost of capital vary) for power, fabric and TCO answers, a chunk of sites at a time;
    the peak resident memory of that process (resource.getrusage) is printed.

Printed for scripts: `RATIO whole-book evaluate = 1.30x (target <= 1.5x)` and
`MEMORY 1,000,000 sites power+fabric+TCO answers = 0.5 GB peak (target < 2 GB)`.

Run: .venv/bin/python bench/evaluation.py [--reps N] [--sites N] [--chunk N]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's workbook, whatever the environment has installed

from workbook.formula import kernels  # noqa: E402
from workbook.formula import spreadsheet as ss  # noqa: E402
from workbook.models import build_book, load_all  # noqa: E402

EXAMPLE = ROOT / "inputs" / "example.yaml"
RTOL = 1e-12

# ---------------------------------------------------------------- the arithmetic (LibreOffice's, as the tool's)

A, S = ss.approx_add, ss.approx_sub  # a + b, a - b
RU, RD = ss.round_up, ss.round_down  # ROUNDUP(x, 0), ROUNDDOWN(x, 0)
POW = ss.power
SUM = kernels.row_sum


def lt(a: Any, b: Any) -> np.ndarray:
    return ss.compare("<", a, b)


def le(a: Any, b: Any) -> np.ndarray:
    return ss.compare("<=", a, b)


def gt(a: Any, b: Any) -> np.ndarray:
    return ss.compare(">", a, b)


def ge(a: Any, b: Any) -> np.ndarray:
    return ss.compare(">=", a, b)


def eq(a: Any, b: Any) -> np.ndarray:
    return ss.compare("=", a, b)


def MX(*v: Any) -> np.ndarray:
    return np.maximum.reduce(np.broadcast_arrays(*v))


def MN(*v: Any) -> np.ndarray:
    return np.minimum.reduce(np.broadcast_arrays(*v))


def IF(c: Any, a: Any, b: Any) -> np.ndarray:
    return np.where(c, a, b)


def F(c: Any) -> np.ndarray:
    """A condition as 1 or 0."""
    return np.asarray(c, float)


def D(a: Any, b: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.divide(a, b)


def SAFE(a: Any, b: Any) -> np.ndarray:
    """a / b, NaN (the cell's message) where b is 0."""
    return np.where(b == 0, np.nan, D(a, b))


def SUMIF_YEARS(years: np.ndarray, row: np.ndarray, n_years: int) -> np.ndarray:
    return np.concatenate([kernels.row_sumif(years, float(k), row) for k in range(n_years)], axis=1)


def running_sum(opening: np.ndarray, flow: np.ndarray) -> np.ndarray:
    """c[0] = opening, c[t] = c[t-1] + flow[t] (LibreOffice's +), per row on Python floats for a few rows."""
    rows = np.broadcast_shapes(opening.shape[:1], flow.shape[:1])[0]
    flow = np.broadcast_to(flow, (rows, flow.shape[1]))
    out = np.empty(flow.shape)
    out[:, 0] = np.broadcast_to(opening[:, 0], (rows,))
    if rows <= kernels.SMALL:
        for r in range(rows):
            f, c = flow[r].tolist(), [float(out[r, 0])]
            for t in range(1, len(f)):
                c.append(kernels.approx_add_s(c[-1], f[t]))
            out[r] = c
        return out
    for t in range(1, flow.shape[1]):
        out[:, t] = A(out[:, t - 1], flow[:, t])
    return out


# The unit conversion factors a formula names (templates/unit_constants.yaml): each is the float its constant's cell
# holds (15 significant digits, workbook.units.factor), so the hand version multiplies or divides by the same number.
UNITS = {"l_min_per_gpm": 3.785411784, "l_min_per_m3_s": 60000.0, "cfm_per_m3_s": 2118.88000328932,
         "m3_h_per_cfm": 1.69901079552, "kw_per_ton_of_refrigeration": 3.51685333333333, "h_per_month": 730.0,
         "months_per_year": 12.0, "weeks_per_month": 4.34523809523809, "s_per_min": 60.0, "h_per_day": 24.0,
         "days_per_year": 365.0}
H_MONTH, H_DAY, S_MIN, D_YEAR = UNITS["h_per_month"], UNITS["h_per_day"], UNITS["s_per_min"], UNITS["days_per_year"]


# ---------------------------------------------------------------- the example's book, by hand


def hand_book(x: dict[str, np.ndarray], periods: int, years: int) -> dict[str, np.ndarray]:
    """Every line of the example's book (PUE facility model, colocation, cash, rail-optimised fabric, storage sized
    from the checkpoint burst, a rack's nodes as the correlated-failure buffer), from its inputs `x` (each
    (cases, 1), in its line's unit). Returns line id -> value."""
    o: dict[str, np.ndarray] = {f"units.{k}": np.full((1, 1), v) for k, v in UNITS.items()}
    with np.errstate(all="ignore"):
        _reliability(x, o)  # from inputs only: its storage power feeds the power chain
        _goodput(x, o)
        _fabric(x, o)
        _power(x, o)
        _cooling(x, o)
        _ups_and_oob(x, o)
        _spares(x, o)  # after the fleet: its failure domains and part counts
        _bom(x, o)
        _tco(x, o, periods, years)
        _envelope(x, o)
        _checks_and_summary(x, o)
    return o


RELIABILITY_COMPONENTS = ("gpu", "hbm", "nic", "network", "psu", "host", "software")


def _reliability(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """Interruptions from the reference job's counts, the checkpoint, the shared storage sized from its burst, and
    the checkpoint's write and restore times."""
    g = x.__getitem__
    share = g("reliability.replacement_share")
    exposure = o["reliability.ref_gpu_hours"] = g("reliability.ref_gpus") * g("reliability.ref_days") * H_DAY
    rates: dict[str, np.ndarray] = {}
    for k in RELIABILITY_COMPONENTS:
        rates[k] = o[f"reliability.rate_{k}"] = g(f"reliability.ref_{k}") / exposure
    total = rates["gpu"]
    for k in RELIABILITY_COMPONENTS[1:]:
        total = A(total, rates[k])
    o["reliability.rate_total"] = total
    o["reliability.ref_mtbi"] = 1 / (total * g("reliability.ref_gpus"))
    job = o["reliability.gpus_in_job"] = x.get("reliability.job_gpus", g("power.gpus"))
    nodes = o["reliability.job_nodes"] = RU(job / g("power.gpus_per_node"))
    o["reliability.mtbi"] = 1 / (total * job)
    monthly = o["reliability.interruptions_per_month"] = total * job * 1 * H_MONTH  # x 1 month, in hours
    for k in RELIABILITY_COMPONENTS:
        o[f"reliability.per_month_{k}"] = rates[k] * job * 1 * H_MONTH
    o["reliability.replacements_per_month"] = monthly * share
    o["reliability.restarts_per_month"] = monthly * S(1, share)
    o["reliability.planned_per_month"] = g("reliability.ref_planned") / exposure * job * 1 * H_MONTH
    o["reliability.node_rate"] = A(A(rates["gpu"], rates["hbm"]), rates["host"]) * share
    o["reliability.nic_rate"] = rates["nic"] * share
    # the checkpoint (B params x bytes = GB, in TB) and the storage sized from its burst (TB/s in GB/s)
    size = o["reliability.checkpoint_size"] = g("reliability.model_parameters") * g("reliability.state_bytes") / 1000
    burst = o["reliability.burst_bandwidth"] = size / g("reliability.target_write_time") * 1000
    room = o["reliability.fast_capacity_need"] = A(size * g("reliability.fast_checkpoints"), g("reliability.fast_data"))
    by_bw = o["reliability.fast_by_bandwidth"] = burst / g("reliability.fast_write_bandwidth")
    by_cap = o["reliability.fast_by_capacity"] = room / g("reliability.fast_capacity")
    count = o["reliability.fast_appliances"] = RU(MX(by_bw, by_cap))
    storage = {"write": count * g("reliability.fast_write_bandwidth"),
               "read": count * g("reliability.fast_read_bandwidth")}
    o["reliability.fast_tier_write_bandwidth"] = storage["write"]
    o["reliability.fast_tier_read_bandwidth"] = storage["read"]
    fast_power = o["reliability.fast_tier_power"] = count * g("reliability.fast_power")
    tb = o["reliability.capacity_tb"] = size * g("reliability.capacity_checkpoints")
    slow_power = o["reliability.capacity_tier_power"] = tb * g("reliability.capacity_power") / 1000  # W in kW
    o["reliability.storage_power"] = A(fast_power, slow_power)
    # write and restore at the slower of the job's nodes together and the storage (TB / (GB/s) in s)
    for key, what in (("write", "write"), ("restore", "read")):
        agg = o[f"reliability.nodes_{what}_bandwidth"] = nodes * g(f"reliability.node_{what}_bandwidth")
        used = o[f"reliability.{key}_bandwidth"] = MN(agg, storage[what])
        o[f"reliability.{key}_time"] = size / used * 1000
    o["reliability.write_within_target"] = le(o["reliability.write_time"], g("reliability.target_write_time"))


def _goodput(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """Young's optimal interval, goodput at the chosen and the optimal interval, and the goodput curve. Times: write
    and restore in s, intervals and time lost in min, the MTBI in h (s_per_min converts s/min and min/h alike)."""
    g = x.__getitem__
    mtbi, job, write = o["reliability.mtbi"], o["reliability.gpus_in_job"], o["reliability.write_time"]
    restart, restore = g("reliability.restart_time"), o["reliability.restore_time"]
    optimal = o["reliability.optimal_interval"] = POW(2 * mtbi * write, 0.5)  # (h s)^0.5 is min: factor 1

    def goodput(tau: np.ndarray, lost: np.ndarray) -> np.ndarray:
        return MX(0, S(S(1, write / tau / S_MIN), lost / mtbi / S_MIN))

    for key, tau in (("", g("reliability.checkpoint_interval")), ("_optimal", optimal)):
        lost = o[f"reliability.lost_per_interruption{key}"] = A(A(tau / 2, restart), restore / S_MIN)
        o[f"reliability.lost_gpu_hours{key}"] = lost * job / S_MIN
        o[f"reliability.write_overhead{key}"] = write / tau / S_MIN
        o[f"reliability.rework_overhead{key}"] = lost / mtbi / S_MIN
        o[f"reliability.goodput{key}"] = goodput(tau, lost)
    step = o["reliability.curve_interval_step"] = optimal * g("reliability.curve_step")
    tau = step
    for k in range(1, 11):
        tau = o[f"reliability.curve_interval_{k}"] = tau if k == 1 else A(tau, step)
        o[f"reliability.curve_goodput_{k}"] = goodput(tau, A(A(tau / 2, restart), restore / S_MIN))


def _spares(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """Spares per part type (the Reliability sheet's second part, after the fleet): the correlated-failure domains,
    spare nodes (repair pipeline + hot pool + buffer, less the nodes beyond the job), each cheap part's pipeline,
    and whether waiting one lead time for a part idles more of the job than the part costs."""
    g = x.__getitem__
    gpus, nodes, per_rack = g("power.gpus"), o["power.nodes"], o["power.nodes_per_rack"]
    value = o["reliability.job_value_per_hour"] = o["reliability.gpus_in_job"] * g("tco.on_demand_price")
    rack = o["reliability.rack_domain"] = per_rack
    leaf = o["reliability.leaf_domain"] = o["fabric.leaf_nodes"]
    liquid = o["power.racks"] * (F(gt(o["cooling.rack_liquid_heat"], 0)) * 1)
    cdu = o["reliability.cdu_domain"] = RU(liquid / MX(o["cooling.cdus_installed"], 1)) * per_rack
    o["reliability.largest_domain"] = MX(rack, leaf, cdu)
    buffer = o["reliability.correlated_buffer"] = rack  # the example holds a rack's nodes

    def held(key: str, lead: np.ndarray, price: np.ndarray, need: np.ndarray) -> None:
        wait = o[f"reliability.{key}_wait_cost"] = lead * value * H_DAY
        hold = o[f"reliability.{key}_hold"] = gt(wait, price)
        o[f"reliability.{key}_held"] = o[f"reliability.held_{key}_by_part"] = need * (F(hold) * 1)

    rate, turnaround = o["reliability.node_rate"], g("reliability.repair_turnaround")
    per_day = o["reliability.node_per_day"] = rate * gpus * H_DAY
    pipeline = o["reliability.node_pipeline"] = per_day * turnaround
    hot = o["reliability.hot_pool"] = RU(rate * o["reliability.gpus_in_job"] * g("reliability.hot_refill_time"))
    reserve = o["reliability.node_reserve"] = A(A(RU(pipeline), hot), buffer)
    idle = o["reliability.idle_nodes"] = S(nodes, o["reliability.job_nodes"])
    need = o["reliability.node_need"] = MX(0, S(reserve, idle))
    held("node", turnaround, g("tco.server_price"), need)
    lead = g("reliability.parts_lead_time")
    for key, installed, price in (
            ("nic", nodes * g("power.nics_per_node"), g("reliability.nic_price")),
            ("optic", o["fabric.transceivers_total"], g("tco.transceiver_price")),
            ("cable", o["fabric.cables_total"], g("tco.cable_price")),
            ("psu", nodes * g("bom.node_power_cords"), g("reliability.psu_price")),
            ("fan", nodes * g("reliability.fans_per_node"), g("reliability.fan_price")),
            ("switch", o["fabric.switches_total"], g("tco.switch_price"))):
        count = o[f"reliability.{key}_installed"] = installed
        per_day = o[f"reliability.{key}_per_day"] = (o["reliability.nic_rate"] * gpus * H_DAY if key == "nic" else
                                                      count * g(f"reliability.{key}_afr") / D_YEAR)
        pipeline = o[f"reliability.{key}_pipeline"] = per_day * lead
        need = o[f"reliability.{key}_need"] = RU(pipeline)
        held(key, lead, price, need)


def _fabric(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    g = x.__getitem__
    radix = g("fabric.switch_radix")
    o["fabric.gpus_per_host"] = RU(g("power.gpus_per_node") / g("power.hosts_per_node"))
    rails = o["fabric.rails"] = o["fabric.gpus_per_host"] * g("fabric.nics_per_gpu")
    endpoints = o["fabric.endpoints"] = g("power.gpus") * g("fabric.nics_per_gpu")
    hosts = o["fabric.hosts"] = RU(endpoints / rails)
    o["fabric.injection_bandwidth"] = endpoints * g("fabric.nic_speed") / 1000
    leaf_os, spine_os = g("fabric.leaf_oversubscription"), g("fabric.spine_oversubscription")
    down = o["fabric.leaf_down_ports"] = RD(radix * leaf_os / A(1, leaf_os))
    up = o["fabric.leaf_up_ports"] = S(radix, down)
    o["fabric.leaf_ratio_built"] = down / up
    s_down = o["fabric.spine_down_ports"] = RD(radix * spine_os / A(1, spine_os))
    s_up = o["fabric.spine_up_ports"] = S(radix, s_down)
    o["fabric.max_two_tier_endpoints"] = radix * down
    o["fabric.max_three_tier_endpoints"] = radix * s_down * down
    o["fabric.leaves_per_rail"] = RU(hosts / down)
    o["fabric.leaf_nodes"] = RU(MN(down, hosts) / g("power.hosts_per_node"))  # a rail's leaf: one NIC per host
    full = o["fabric.full_leaves"] = rails * RD(hosts / down)
    part_down = o["fabric.partial_leaf_down_ports"] = S(hosts, RD(hosts / down) * down)
    part = o["fabric.partial_leaves"] = rails * IF(gt(part_down, 0), 1.0, 0.0)
    part_up = o["fabric.partial_leaf_up_ports"] = MN(up, RU(part_down * up / down))
    fullest_up = o["fabric.fullest_leaf_up_ports"] = MN(up, RU(MN(hosts, down) * up / down))
    leaves = o["fabric.leaves"] = IF(le(endpoints, radix), RU(endpoints / radix), A(full, part))
    spine_tier = o["fabric.spine_tier"] = IF(gt(endpoints, radix), 1.0, 0.0)
    core_tier = o["fabric.core_tier"] = IF(gt(leaves, radix), 1.0, 0.0)
    tiers = o["fabric.tiers"] = A(A(1, spine_tier), core_tier)
    pair = o["fabric.leaf_spine_pair_links"] = MX(1, MN(fullest_up, RD(radix / MX(1, leaves))))
    spines2 = o["fabric.spines_if_two_tiers"] = RU(fullest_up / pair)
    groups = o["fabric.spine_groups"] = core_tier * RU(leaves / s_down)
    last_leaves = o["fabric.last_group_leaves"] = core_tier * S(leaves, S(groups, 1) * s_down)
    last_spines = o["fabric.last_group_spines"] = core_tier * IF(gt(last_leaves, part), up, part_up)
    spines = o["fabric.spines"] = IF(eq(tiers, 3), A(S(groups, 1) * up, last_spines), spine_tier * spines2)
    part_links = o["fabric.partial_leaf_links"] = IF(
        eq(tiers, 3), part_up, MN(up, MX(1, spines2) * RU(part_up / MX(1, spines2))))
    ls_links = o["fabric.leaf_spine_links"] = spine_tier * A(full * up, part * part_links)
    last_up = o["fabric.last_group_spine_up_ports"] = MN(s_up, RU(last_leaves * s_up / s_down))
    sc_links = o["fabric.spine_core_links"] = core_tier * A(S(groups, 1) * up * s_up, last_spines * last_up)
    cores = o["fabric.cores"] = RU(sc_links / radix)
    switches = o["fabric.switches"] = A(A(leaves, spines), cores)
    o["fabric.spines_per_rail"] = spines / rails
    o["fabric.cores_per_rail"] = cores / rails
    row = o["fabric.row_length"] = g("power.racks_per_row") * g("power.rack_width")
    depth = o["fabric.hall_depth"] = g("power.hall_rows") * g("power.row_pitch")
    slack, reach = g("power.cable_slack"), g("fabric.optic_reach")
    nl_run = o["fabric.node_leaf_run"] = A(A(depth / 2, row / 2), slack)
    ls_run = o["fabric.leaf_spine_run"] = A(row, slack)
    sc_run = o["fabric.spine_core_run"] = A(row, slack)
    nl_sm = o["fabric.node_leaf_single_mode"] = IF(gt(nl_run, reach), 1.0, 0.0)
    ls_sm = o["fabric.leaf_spine_single_mode"] = IF(gt(ls_run, reach), 1.0, 0.0)
    sc_sm = o["fabric.spine_core_single_mode"] = IF(gt(sc_run, reach), 1.0, 0.0)
    longest = o["fabric.longest_run"] = MX(nl_run, ls_run, sc_run)
    o["fabric.runs_within_single_mode_reach"] = le(longest, g("fabric.single_mode_reach"))
    nl_links = o["fabric.node_leaf_links"] = endpoints
    cables = o["fabric.cables"] = A(A(nl_links, ls_links), sc_links)
    breakout, sw_optic = g("fabric.switch_breakout"), g("fabric.switch_optic_power")
    node_tx = o["fabric.node_transceivers"] = hosts * RU(rails / g("fabric.links_per_node_optic"))
    nl_tx = o["fabric.node_leaf_switch_transceivers"] = RU(nl_links / breakout)
    ls_tx = o["fabric.leaf_spine_transceivers"] = 2 * RU(ls_links / breakout)
    sc_tx = o["fabric.spine_core_transceivers"] = 2 * RU(sc_links / breakout)
    o["fabric.switch_transceivers"] = A(A(nl_tx, ls_tx), sc_tx)
    tx = o["fabric.transceivers"] = A(node_tx, o["fabric.switch_transceivers"])
    sm_tx = o["fabric.compute_single_mode_transceivers"] = A(A(nl_sm * A(node_tx, nl_tx), ls_sm * ls_tx),
                                                              sc_sm * sc_tx)
    mm_tx = o["fabric.compute_multimode_transceivers"] = S(tx, sm_tx)
    sm_power = g("fabric.single_mode_optic_power")
    o["fabric.compute_optics_power"] = A(A(A(
        S(1, nl_sm) * A(node_tx * g("fabric.node_optic_power"), nl_tx * sw_optic),
        S(1, ls_sm) * ls_tx * sw_optic), S(1, sc_sm) * sc_tx * sw_optic), sm_tx * sm_power) / 1000
    o["fabric.compute_switches_power"] = switches * g("fabric.switch_power") / 1000

    # the storage network: the same rules on its own switches, one endpoint per storage port
    radix = g("fabric.storage_switch_radix")
    os_ = g("fabric.storage_oversubscription")
    ep = o["fabric.storage_endpoints"] = A(RU(g("power.gpus") / g("power.gpus_per_node"))
                                           * g("fabric.storage_ports_per_node"), g("fabric.storage_system_ports"))
    down = o["fabric.storage_leaf_down_ports"] = RD(radix * os_ / A(1, os_))
    up = o["fabric.storage_leaf_up_ports"] = S(radix, down)
    s_down = o["fabric.storage_spine_down_ports"] = RD(radix / 2)
    s_up = o["fabric.storage_spine_up_ports"] = S(radix, s_down)
    full = o["fabric.storage_full_leaves"] = RD(ep / down)
    part_down = o["fabric.storage_partial_leaf_down_ports"] = S(ep, RD(ep / down) * down)
    part = o["fabric.storage_partial_leaves"] = IF(gt(part_down, 0), 1.0, 0.0)
    part_up = o["fabric.storage_partial_leaf_up_ports"] = MN(up, RU(part_down * up / down))
    fullest_up = o["fabric.storage_fullest_leaf_up_ports"] = MN(up, RU(MN(ep, down) * up / down))
    leaves = o["fabric.storage_leaves"] = IF(le(ep, radix), RU(ep / radix), A(full, part))
    spine_tier = o["fabric.storage_spine_tier"] = IF(gt(ep, radix), 1.0, 0.0)
    core_tier = o["fabric.storage_core_tier"] = IF(gt(leaves, radix), 1.0, 0.0)
    tiers = o["fabric.storage_tiers"] = A(A(1, spine_tier), core_tier)
    pair = o["fabric.storage_leaf_spine_pair_links"] = MX(1, MN(fullest_up, RD(radix / MX(1, leaves))))
    spines2 = o["fabric.storage_spines_if_two_tiers"] = RU(fullest_up / pair)
    groups = o["fabric.storage_spine_groups"] = core_tier * RU(leaves / s_down)
    last_leaves = o["fabric.storage_last_group_leaves"] = core_tier * S(leaves, S(groups, 1) * s_down)
    last_spines = o["fabric.storage_last_group_spines"] = core_tier * IF(gt(last_leaves, part), up, part_up)
    spines = o["fabric.storage_spines"] = IF(eq(tiers, 3), A(S(groups, 1) * up, last_spines), spine_tier * spines2)
    part_links = o["fabric.storage_partial_leaf_links"] = IF(
        eq(tiers, 3), part_up, MN(up, MX(1, spines2) * RU(part_up / MX(1, spines2))))
    ls_links = o["fabric.storage_leaf_spine_links"] = spine_tier * A(full * up, part * part_links)
    last_up = o["fabric.storage_last_group_spine_up_ports"] = MN(s_up, RU(last_leaves * s_up / s_down))
    sc_links = o["fabric.storage_spine_core_links"] = core_tier * A(S(groups, 1) * up * s_up,
                                                                    last_spines * last_up)
    cores = o["fabric.storage_cores"] = RU(sc_links / radix)
    st_switches = o["fabric.storage_switches"] = A(A(leaves, spines), cores)
    st_cables = o["fabric.storage_cables"] = A(A(ep, ls_links), sc_links)
    breakout, sw_optic = g("fabric.storage_switch_breakout"), g("fabric.storage_switch_optic_power")
    leaf_tx = o["fabric.storage_leaf_transceivers"] = RU(ep / breakout)
    ls_tx = o["fabric.storage_leaf_spine_transceivers"] = 2 * RU(ls_links / breakout)
    sc_tx = o["fabric.storage_spine_core_transceivers"] = 2 * RU(sc_links / breakout)
    st_tx = o["fabric.storage_transceivers"] = A(A(A(ep, leaf_tx), ls_tx), sc_tx)
    st_sm = o["fabric.storage_single_mode_transceivers"] = A(A(nl_sm * A(ep, leaf_tx), ls_sm * ls_tx), sc_sm * sc_tx)
    st_mm = o["fabric.storage_multimode_transceivers"] = S(st_tx, st_sm)
    o["fabric.storage_optics_power"] = A(A(A(
        S(1, nl_sm) * A(ep * g("fabric.storage_optic_power"), leaf_tx * sw_optic),
        S(1, ls_sm) * ls_tx * sw_optic), S(1, sc_sm) * sc_tx * sw_optic), st_sm * sm_power) / 1000
    o["fabric.storage_switches_power"] = st_switches * g("fabric.storage_switch_power") / 1000
    o["fabric.storage_holds_endpoints"] = le(leaves, radix * s_down)

    o["fabric.switches_total"] = A(switches, st_switches)
    o["fabric.transceivers_total"] = A(tx, st_tx)
    o["fabric.multimode_transceivers_total"] = A(mm_tx, st_mm)
    o["fabric.single_mode_transceivers_total"] = A(sm_tx, st_sm)
    o["fabric.cables_total"] = A(cables, st_cables)
    o["fabric.switches_power"] = A(o["fabric.compute_switches_power"], o["fabric.storage_switches_power"])
    o["fabric.optics_power"] = A(o["fabric.compute_optics_power"], o["fabric.storage_optics_power"])
    o["fabric.power"] = A(o["fabric.switches_power"], o["fabric.optics_power"])
    o["fabric.holds_endpoints"] = le(o["fabric.leaves"], g("fabric.switch_radix") * o["fabric.spine_down_ports"])
    o["fabric.nic_fits_port"] = le(g("fabric.nic_speed"), g("fabric.switch_port_speed"))


def _power(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    g = x.__getitem__
    eff = g("power.psu_efficiency")
    node_gpu = o["power.node_gpu_power"] = g("power.gpus_per_node") * g("power.gpu_tdp") / 1000
    node_cpu = o["power.node_cpu_power"] = g("power.cpus_per_node") * g("power.cpu_tdp") / 1000
    node_nic = o["power.node_nic_power"] = g("power.nics_per_node") * g("power.nic_power") / 1000
    dc = o["power.node_dc_power"] = A(A(A(A(A(A(node_gpu, node_cpu), node_nic), g("power.memory_power") / 1000),
                                          g("power.baseboard_power") / 1000), g("power.node_storage_power") / 1000),
                                      g("power.fan_power") / 1000)
    comp = o["power.node_component_power"] = dc / eff
    o["power.node_psu_loss"] = S(comp, dc)
    node = o["power.node_power"] = MX(comp, g("power.node_max_input"))
    o["power.node_unexplained_power"] = S(node, comp)
    exc = o["power.node_gpu_excursion"] = node_gpu * S(g("power.sync_peak_factor"), 1) / eff
    peak = o["power.node_peak_power"] = MX(A(comp, exc), g("power.node_max_input"))
    nodes = o["power.nodes"] = RU(g("power.gpus") / g("power.gpus_per_node"))
    per_rack = o["power.nodes_per_rack"] = MX(1, MN(RD(g("power.rack_units") / g("power.node_height")),
                                                    RD(g("power.rack_power_limit") / peak)))
    racks = o["power.racks"] = RU(nodes / per_rack)
    o["power.rack_power"] = per_rack * node
    rack_peak = o["power.rack_peak_power"] = per_rack * peak
    net_racks = o["power.network_racks"] = RU(o["fabric.switches_total"] / g("power.switches_per_network_rack"))
    net_power = o["power.network_rack_power"] = A(o["fabric.switches_power"], o["fabric.switch_optics_power"]) / MX(
        net_racks, 1)
    support_power = g("power.support_rack_power")
    storage = o["power.storage_load"] = o["reliability.storage_power"]  # sized on the Reliability sheet
    st_racks = o["power.storage_racks"] = RU(storage / support_power)
    mg_racks = o["power.management_racks"] = RU(g("power.management_power") / support_power)
    support = o["power.support_racks"] = A(A(net_racks, st_racks), mg_racks)
    total = o["power.racks_total"] = A(racks, support)
    positions = o["power.rack_positions"] = g("power.hall_rows") * g("power.racks_per_row")
    o["power.racks_fit_hall"] = le(total, positions)
    o["power.network_racks_within_limit"] = le(net_power, g("power.rack_power_limit"))
    phase = o["power.phase_factor"] = POW(3.0, 0.5)
    per_amp = o["power.power_per_amp"] = phase * g("power.rack_voltage") * g("power.power_factor") / 1000
    pdu = o["power.pdu_capacity"] = per_amp * g("power.pdu_breaker") * g("power.continuous_load_share")
    per_feed = o["power.pdus_per_feed"] = RU(rack_peak / pdu)
    pdus_rack = o["power.pdus_per_rack"] = 2 * per_feed
    o["power.rack_feed_current"] = rack_peak / (per_amp * per_feed)
    o["power.breaker_continuous_current"] = g("power.pdu_breaker") * g("power.continuous_load_share")
    support_pdus = o["power.support_rack_pdus"] = 2 * RU(MX(net_power, support_power) / pdu)
    o["power.pdus"] = A(racks * pdus_rack, support * support_pdus)
    o["power.pdus_fit_rack"] = le(pdus_rack, g("power.max_pdus_per_rack"))
    board = o["power.gpu_board_power"] = g("power.gpus") * g("power.gpu_tdp") / 1000
    compute = o["power.compute_power"] = nodes * node
    network = o["power.network_power"] = o["fabric.switches_power"]
    node_optics = o["power.node_optics_wall_power"] = o["fabric.node_optics_power"] / eff
    added = o["power.node_optics_added_power"] = MX(0, S(node_optics, nodes * S(node, comp)))
    optics = o["power.optics_power"] = A(o["fabric.switch_optics_power"], added)
    it = o["power.it_load"] = A(A(A(A(compute, network), optics), storage), g("power.management_power"))
    o["power.it_energy_load"] = A(S(it, nodes * S(node, comp)), S(node_optics, added))
    facility = o["power.facility_power"] = it * g("power.pue")
    o["power.facility_overhead"] = S(facility, it)
    o["power.pue_energy"] = g("power.pue_annual")
    peak_it = o["power.peak_it_load"] = A(it, nodes * S(peak, node))
    critical = o["power.critical_it_capacity"] = peak_it * A(1, g("power.feed_headroom"))
    o["power.peak_facility_power"] = peak_it * g("power.pue")
    feed = o["power.contracted_feed"] = critical * g("power.pue") / 1000
    feed_va = o["power.contracted_feed_apparent"] = feed / g("power.power_factor")
    blocks_n = o["power.feed_blocks_n"] = RU(feed_va / g("power.feed_block_size"))
    blocks = o["power.feed_blocks"] = A(blocks_n * g("power.feed_redundancy_multiplier"),
                                        g("power.feed_redundancy_spares"))
    o["power.installed_supply"] = blocks * g("power.feed_block_size")
    o["power.gpu_share"] = board / facility
    o["power.gpus_per_mw"] = g("power.gpus") / feed
    o["power.it_share"] = it / facility
    o["power.feed_within_site"] = le(feed, g("power.site_available_power"))
    o["power.rack_within_limit"] = le(rack_peak, g("power.rack_power_limit"))
    o["power.whole_nodes"] = le(nodes * g("power.gpus_per_node"), g("power.gpus"))


def _cooling(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    g = x.__getitem__
    it_heat = o["cooling.it_heat"] = o["power.it_load"]
    node_liquid = o["cooling.node_liquid_heat"] = A(A(A(
        o["power.node_gpu_power"] * g("cooling.gpu_liquid_share"),
        o["power.node_cpu_power"] * g("cooling.cpu_liquid_share")),
        g("power.baseboard_power") * g("cooling.baseboard_liquid_share") / 1000),
        o["power.node_nic_power"] * g("cooling.nic_liquid_share"))
    o["cooling.node_air_heat"] = S(o["power.node_power"], node_liquid)
    liquid = o["cooling.liquid_heat"] = o["power.nodes"] * node_liquid
    air = o["cooling.air_heat"] = S(it_heat, liquid)
    o["cooling.liquid_fraction"] = liquid / it_heat
    indoor = o["cooling.indoor_facility_heat"] = o["power.facility_overhead"] * g("cooling.indoor_loss_share")
    load = o["cooling.heat_load"] = A(A(liquid, air), indoor)
    per_kw, rho, cp = g("cooling.flow_per_kw"), g("cooling.coolant_density"), g("cooling.coolant_specific_heat")
    flow = o["cooling.coolant_flow"] = liquid * per_kw
    o["cooling.coolant_flow_gpm"] = flow / UNITS["l_min_per_gpm"]
    o["cooling.coolant_mass_flow"] = flow * rho / UNITS["l_min_per_m3_s"]
    rise = o["cooling.coolant_rise"] = 1 / (per_kw * rho * cp) * UNITS["l_min_per_m3_s"]
    o["cooling.coolant_return_temperature"] = A(g("cooling.coolant_supply_temperature"), rise)
    o["cooling.min_flow_per_kw"] = 1 / (rho * cp * g("cooling.allowed_rise")) * UNITS["l_min_per_m3_s"]
    rack_liquid = o["cooling.rack_liquid_heat"] = o["power.nodes_per_rack"] * node_liquid
    rack_flow = o["cooling.rack_coolant_flow"] = rack_liquid * per_kw
    o["cooling.rack_flow_within_manifold"] = le(rack_flow, g("cooling.rack_manifold_flow"))
    o["cooling.rise_within_allowed"] = le(rise, g("cooling.allowed_rise"))
    o["cooling.coolant_above_facility_water"] = gt(g("cooling.coolant_supply_temperature"),
                                                   g("cooling.facility_water_temperature"))
    group_heat = o["cooling.cdu_group_heat"] = liquid
    group_flow = o["cooling.cdu_group_flow"] = flow
    groups = o["cooling.cdu_groups"] = np.ones((1, 1))
    for_heat = o["cooling.cdus_for_heat"] = RU(group_heat / g("cooling.cdu_capacity"))
    for_flow = o["cooling.cdus_for_flow"] = RU(group_flow / g("cooling.cdu_flow"))
    n = o["cooling.cdus_group_n"] = MX(for_heat, for_flow)
    installed = o["cooling.cdus_group_installed"] = IF(
        gt(n, 0), A(n * g("cooling.cdu_redundancy_multiplier"), g("cooling.cdu_redundancy_spares")), 0.0)
    cdus_n = o["cooling.cdus_n"] = n * groups
    cdus = o["cooling.cdus_installed"] = installed * groups
    one_down = o["cooling.cdus_one_down"] = MX(S(installed, 1), 0)
    o["cooling.cdu_capacity_installed"] = cdus * g("cooling.cdu_capacity")
    pumps = o["cooling.cdu_pump_power"] = cdus_n * g("cooling.cdu_unit_pump_power")
    o["cooling.cdu_heat_one_down"] = ge(one_down * g("cooling.cdu_capacity"), group_heat)
    o["cooling.cdu_flow_one_down"] = ge(one_down * g("cooling.cdu_flow"), group_flow)
    air_rise = o["cooling.air_rise"] = S(g("cooling.air_return_temperature"), g("cooling.air_supply_temperature"))
    rho_air, cp_air = g("cooling.air_density"), g("cooling.air_specific_heat")
    o["cooling.air_flow_per_kw"] = 1 / (rho_air * cp_air * air_rise) * UNITS["cfm_per_m3_s"]
    air_flow = o["cooling.air_flow"] = air / (rho_air * cp_air * air_rise) * UNITS["cfm_per_m3_s"]
    o["cooling.air_flow_m3h"] = air_flow * UNITS["m3_h_per_cfm"]
    dry = o["cooling.heat_dry_cooler"] = IF(ge(g("cooling.facility_water_temperature"),
                                               g("cooling.dry_cooler_threshold")), liquid, 0.0)
    comp_heat = o["cooling.heat_compressor"] = S(load, dry)
    comp_power = o["cooling.compressor_power"] = comp_heat / g("cooling.chiller_cop")
    chillers = o["cooling.heat_chillers"] = A(comp_heat, comp_power)
    rejection = o["cooling.heat_rejection"] = A(dry, chillers)
    o["cooling.heat_rejection_tons"] = rejection / UNITS["kw_per_ton_of_refrigeration"]
    o["cooling.heat_balance"] = eq(rejection, A(A(it_heat, indoor), comp_power))
    mass = o["cooling.cold_plate_mass"] = g("cooling.cold_plate_volume") * rho / 1000
    o["cooling.cold_plate_time"] = mass * cp * g("cooling.allowed_rise") / g("power.gpu_tdp")
    coolant = o["cooling.rack_coolant_weight"] = IF(gt(node_liquid, 0), g("cooling.rack_coolant_volume") * rho,
                                                    0.0) / 1000
    weight = o["cooling.rack_weight"] = A(A(o["power.nodes_per_rack"] * g("cooling.node_weight"),
                                            g("cooling.rack_empty_weight")), coolant)
    footprint = o["cooling.rack_footprint"] = g("power.rack_width") * g("cooling.rack_depth")
    floor = o["cooling.floor_load"] = weight / footprint
    o["cooling.floor_within_rating"] = le(floor, g("cooling.floor_rating"))
    o["cooling.overhead_carries_cooling_plant"] = le(A(comp_power, pumps), o["power.facility_overhead"])


def _ups_and_oob(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    g = x.__getitem__
    ups = o["power.ups_load"] = A(o["power.critical_it_capacity"], o["cooling.cdu_pump_power"])
    ups_va = o["power.ups_load_apparent"] = ups / g("power.power_factor")
    n = o["power.ups_blocks_n"] = RU(ups_va / g("power.ups_block_size"))
    blocks = o["power.ups_blocks"] = A(n * g("power.ups_redundancy_multiplier"), g("power.ups_redundancy_spares"))
    o["power.installed_ups"] = blocks * g("power.ups_block_size")
    node_ports = o["fabric.oob_node_ports"] = o["power.nodes"] * g("fabric.oob_ports_per_node")
    switch_ports = o["fabric.oob_switch_ports_used"] = o["fabric.switches_total"]
    pdu_ports = o["fabric.oob_pdu_ports"] = o["power.pdus"]
    cdu_ports = o["fabric.oob_cdu_ports"] = o["cooling.cdus_installed"]
    endpoints = o["fabric.oob_endpoints"] = A(A(A(A(node_ports, switch_ports), pdu_ports), cdu_ports),
                                              g("fabric.oob_other_endpoints"))
    switches = o["fabric.oob_switches"] = RU(endpoints / g("fabric.oob_switch_ports"))
    o["fabric.oob_switches_power"] = switches * g("fabric.oob_switch_power") / 1000


def _bom_rows(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> dict[str, list[tuple[str, Any, Any]]]:
    """The bill of materials' rows by group, in the sheet's order: (key, quantity, budget unit price)."""
    g = x.__getitem__
    flags = [o[f"fabric.{t}_single_mode"] for t in ("node_leaf", "leaf_spine", "spine_core")]
    mm_sw, sm, cable, sm_cable = (g("tco.transceiver_price"), g("tco.single_mode_transceiver_price"),
                                  g("tco.cable_price"), g("bom.single_mode_cable_price"))
    devices = A(A(A(o["fabric.switches_total"], o["fabric.oob_switches"]), g("bom.fabric_managers")),
                g("bom.management_nodes"))
    liquid = o["power.racks"] * IF(gt(o["cooling.rack_liquid_heat"], 0), 1.0, 0.0)
    rows: dict[str, list[tuple[str, Any, Any]]] = {"compute": [
        ("nodes", o["power.nodes"], g("tco.server_price")),
        ("management_nodes", g("bom.management_nodes"), g("bom.management_node_price"))]}
    net = [(f"{k}_switches", o[f"fabric.{n}"], g("tco.switch_price")) for k, n in (
        ("leaf", "leaves"), ("spine", "spines"), ("core", "cores"), ("storage_leaf", "storage_leaves"),
        ("storage_spine", "storage_spines"), ("storage_core", "storage_cores"))]
    net += [("oob_switches", o["fabric.oob_switches"], g("tco.oob_switch_price")),
            ("fabric_managers", g("bom.fabric_managers"), g("bom.fabric_manager_price"))]
    for key, count, t, price in (
            ("node", "node_transceivers", 0, g("bom.node_transceiver_price")),
            ("leaf_host", "node_leaf_switch_transceivers", 0, mm_sw),
            ("leaf_spine", "leaf_spine_transceivers", 1, mm_sw),
            ("spine_core", "spine_core_transceivers", 2, mm_sw),
            ("storage_port", "storage_endpoints", 0, g("bom.storage_port_transceiver_price")),
            ("storage_leaf", "storage_leaf_transceivers", 0, mm_sw),
            ("storage_leaf_spine", "storage_leaf_spine_transceivers", 1, mm_sw),
            ("storage_spine_core", "storage_spine_core_transceivers", 2, mm_sw)):
        n = o[f"fabric.{count}"]
        net += [(f"{key}_optics_mm", n * S(1, flags[t]), price), (f"{key}_optics_sm", n * flags[t], sm)]
    runs = [o["fabric.node_leaf_run"], o["fabric.leaf_spine_run"], o["fabric.spine_core_run"]]
    step = g("bom.cable_length_step")
    for key, links, t in (("node_leaf", "node_leaf_links", 0), ("leaf_spine", "leaf_spine_links", 1),
                          ("spine_core", "spine_core_links", 2), ("storage_endpoint", "storage_endpoints", 0),
                          ("storage_leaf_spine", "storage_leaf_spine_links", 1),
                          ("storage_spine_core", "storage_spine_core_links", 2)):
        n = o[f"fabric.{links}"]
        for kind in ("mm", "sm"):
            o[f"bom.{key}_cables_{kind}_length"] = RU(runs[t] / step) * step
        net += [(f"{key}_cables_mm", n * S(1, flags[t]), cable), (f"{key}_cables_sm", n * flags[t], sm_cable)]
    rows["network"] = [*net, ("oob_cables", o["fabric.oob_endpoints"], g("bom.oob_cable_price"))]
    bought = "bom.rack_price" in x
    rows["power"] = [*((("racks", o["power.racks_total"], g("bom.rack_price")),
                        ("pdus", o["power.pdus"], g("bom.pdu_price"))) if bought else ()),
                     ("power_cords", o["power.nodes"] * g("bom.node_power_cords"), g("bom.power_cord_price")),
                     ("device_power_cords", devices * g("bom.device_power_cords"), g("bom.power_cord_price"))]
    rows["cooling"] = [("cdus", o["cooling.cdus_installed"], g("bom.cdu_price")),
                       ("manifolds", liquid, g("bom.manifold_price")),
                       ("hoses", liquid * g("bom.hoses_per_rack"), g("bom.hose_price"))]
    rows["storage"] = [  # the tiers the Reliability sheet sizes (the capacity tier in whole TB: capacity / 1 TB)
        ("storage_fast", o["reliability.fast_appliances"], g("reliability.fast_price")),
        ("storage_capacity", RU(o["reliability.capacity_tb"] / 1), g("reliability.capacity_price"))]
    rows["spares"] = [(f"spare_{key}", o[f"reliability.{key}_held"], g(price)) for key, price in (
        ("node", "tco.server_price"), ("nic", "reliability.nic_price"), ("optic", "tco.transceiver_price"),
        ("cable", "tco.cable_price"), ("psu", "reliability.psu_price"), ("fan", "reliability.fan_price"),
        ("switch", "tco.switch_price"))]
    o["bom.gpus_qty"] = g("power.gpus")
    if not bought:
        o["bom.racks_qty"], o["bom.pdus_qty"] = o["power.racks_total"], o["power.pdus"]
    return rows


def _bom(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """The bill of materials without quotes: every row's quantity, prices, cost, variance and lead time, the
    groups' totals and longest lead times, the total (the TCO's IT capex), the critical path and the tie-outs."""
    g = x.__getitem__
    rows = _bom_rows(x, o)
    totals, leads, variances = [], [], []
    for group, items in rows.items():
        for key, qty, price in items:
            o[f"bom.{key}_qty"] = qty
            o[f"bom.{key}_budget_price"] = o[f"bom.{key}_unit_price"] = price
            o[f"bom.{key}_cost"] = qty * price
            o[f"bom.{key}_variance"] = qty * S(price, price)
            o[f"bom.{key}_lead"] = g(f"bom.{group}_lead_time") * IF(gt(qty, 0), 1.0, 0.0)
        total, variance = o[f"bom.{items[0][0]}_cost"], o[f"bom.{items[0][0]}_variance"]
        for key, _, _ in items[1:]:
            total, variance = A(total, o[f"bom.{key}_cost"]), A(variance, o[f"bom.{key}_variance"])
        o[f"bom.total_{group}"], o[f"bom.variance_{group}"] = total, variance
        o[f"bom.lead_{group}"] = MX(*(o[f"bom.{key}_lead"] for key, _, _ in items))
        totals.append(total)
        variances.append(variance)
        leads.append(o[f"bom.lead_{group}"])
    grand, var = totals[0], variances[0]
    for t, vv in zip(totals[1:], variances[1:], strict=True):
        grand, var = A(grand, t), A(var, vv)
    o["bom.total"], o["bom.variance_total"] = grand, var
    path = o["bom.equipment_lead"] = A(MX(*leads), g("bom.install_time"))
    o["bom.equipment_lead_months"] = RU(path / 1 / UNITS["weeks_per_month"]) * 1  # weeks in months
    # the tie-outs with the Fabric: the BOM's rows of each kind added in the sheet's order
    keys = [key for key, _, _ in rows["network"]]
    for check, ends, fabric in (("transceivers", ("_optics_mm", "_optics_sm"), "transceivers_total"),
                                ("single_mode", ("_optics_sm",), "single_mode_transceivers_total"),
                                ("cables", ("_cables_mm", "_cables_sm"), "cables_total")):
        parts = [o[f"bom.{key}_qty"] for key in keys if key.endswith(ends)]
        added = parts[0]
        for part in parts[1:]:
            added = A(added, part)
        o[f"bom.{check}_tie_out"] = eq(added, o[f"fabric.{fabric}"])


def _tco(x: dict[str, np.ndarray], o: dict[str, np.ndarray], periods: int, years: int) -> None:
    g = x.__getitem__
    tax, util, gpus = g("tco.tax_rate"), g("tco.utilisation"), g("power.gpus")
    after_tax = S(1, tax)
    # capex
    it_capex = o["tco.it_capex"] = o["bom.total"]
    capacity = o["tco.facility_capacity"] = o["power.critical_it_capacity"]
    fac_capex = o["tco.facility_capex"] = g("tco.fit_out_capex")
    capex = o["tco.capex"] = A(it_capex, fac_capex)
    # running costs per month
    load, pue, price = o["power.it_energy_load"], o["power.pue_energy"], g("tco.electricity_price")
    idle = g("tco.idle_power_share")
    e_idle = o["tco.energy_idle"] = load * idle * pue * price * H_MONTH
    e_slope = o["tco.energy_per_utilisation"] = load * S(1, idle) * pue * price * H_MONTH
    energy = o["tco.energy_cost"] = A(e_idle, e_slope * util)
    colo = o["tco.colo_cost"] = capacity * g("tco.colo_price")
    support = o["tco.support_cost"] = it_capex * g("tco.support_rate") / 12
    staff = o["tco.staff"] = g("tco.staff_fte") * g("tco.staff_cost") / 12
    o["tco.opex"] = A(A(A(energy, colo), support), staff)
    # rent per month
    used = o["tco.used_gpu_hours"] = gpus * util * H_MONTH
    committed = o["tco.committed_gpu_hours"] = gpus * g("tco.reserved_share") * H_MONTH
    on_demand = o["tco.on_demand_gpu_hours"] = MX(0, S(used, committed))
    od_price = g("tco.on_demand_price")
    hourly = o["tco.rent_hours_cost"] = A(committed * g("tco.reserved_price"), on_demand * od_price)
    rent = o["tco.rent_cost"] = A(hourly, g("tco.rent_extras"))
    o["tco.rent_price_effective"] = SAFE(rent, used)
    rate = o["tco.monthly_rate"] = S(POW(A(1, g("tco.cost_of_capital")), D(1.0, 12.0)), 1)

    # the timeline: the start (time 0), then a column per month
    month = o["tco.month"] = np.arange(periods, dtype=float)[None, :]
    lead = o["tco.service_lead"] = MX(g("tco.lead_time"), o["bom.equipment_lead_months"])
    life = g("tco.useful_life")
    end = A(lead, life)
    o["tco.period_length"] = F(gt(month, 0))
    year = o["tco.year"] = RU(month / 12)
    live = o["tco.in_service"] = F(gt(month, lead)) * F(le(month, end))
    order = o["tco.order_flag"] = F(eq(month, 0))
    delivery = o["tco.delivery_flag"] = F(eq(month, lead))
    works = o["tco.construction_flag"] = F(gt(month, 0)) * F(le(month, lead))
    exit_ = o["tco.exit_flag"] = F(eq(month, end))
    df = o["tco.discount_factor"] = 1 / POW(A(1, rate), month)
    span = o["tco.timeline_length"] = SUM(o["tco.period_length"])
    o["tco.life_within_timeline"] = le(end, span)
    elec = o["tco.electricity_index"] = POW(A(1, g("tco.electricity_escalation")), MX(0, S(year, 1)))
    fac_index = o["tco.facility_index"] = POW(A(1, g("tco.facility_escalation")), MX(0, S(year, 1)))
    deposit = g("tco.deposit_share")
    it_flow = o["tco.it_capex_flow"] = it_capex * A(deposit * order, S(1, deposit) * delivery)
    fac_flow = o["tco.facility_capex_flow"] = fac_capex * IF(gt(lead, 0), works / MX(1, lead), order)
    e_flow = o["tco.energy_flow"] = live * elec * energy
    f_flow = o["tco.facility_opex_flow"] = live * fac_index * colo
    s_flow = o["tco.support_flow"] = live * support
    st_flow = o["tco.staff_flow"] = live * staff
    opex_flow = o["tco.opex_flow"] = A(A(A(e_flow, f_flow), s_flow), st_flow)
    it_dep = o["tco.it_depreciation_flow"] = live * it_capex / life
    fac_dep = o["tco.facility_depreciation_flow"] = live * F(le(month, end)) * fac_capex / life
    dep = o["tco.depreciation_flow"] = A(it_dep, fac_dep)
    left = o["tco.facility_months_left"] = MX(0, S(life, life))
    book_share = o["tco.facility_book_share"] = left / life
    book_left = o["tco.facility_book_left"] = fac_capex * book_share
    value_share = o["tco.facility_value_share"] = IF(gt(left, 0), D(ss.pmt(rate, life, 1.0), ss.pmt(rate, left, 1.0)),
                                                     0.0)
    value_left = o["tco.facility_value_left"] = fac_capex * value_share
    exit_value = o["tco.facility_exit_value_after_tax"] = A(value_left * after_tax, tax * book_left)
    tax_flow = o["tco.tax_flow"] = -tax * A(opex_flow, dep)
    residual = o["tco.residual_flow"] = -exit_ * A(it_capex * g("tco.residual_value") * after_tax, exit_value)
    own = o["tco.own_flow"] = A(A(A(A(it_flow, fac_flow), opex_flow), tax_flow), residual)
    rent_index = o["tco.rent_index"] = POW(A(1, g("tco.rent_price_change")), MX(0, S(year, 1)))
    extras = g("tco.rent_extras")
    rent_flow = o["tco.rent_flow"] = live * A(rent_index * hourly, extras) * after_tax
    own_pv = o["tco.own_pv"] = own * df
    rent_pv = o["tco.rent_pv"] = rent_flow * df
    service_pv = o["tco.service_pv"] = live * df
    full_pv = o["tco.full_gpu_hours_pv"] = live * gpus * df * H_MONTH
    slope_pv = o["tco.energy_slope_pv"] = live * elec * e_slope * after_tax * df
    od_pv = o["tco.on_demand_slope_pv"] = live * rent_index * gpus * od_price * after_tax * df * H_MONTH
    extras_pv = o["tco.extras_pv"] = live * extras * after_tax * df

    # payback, plain and discounted: running sums, and the first month in service where owning <= renting
    for tag, own_row, rent_row in (("", own, rent_flow), ("_pv", own_pv, rent_pv)):
        cum_own = o[f"tco.own_cumulative{tag}"] = running_sum(own_row[:, :1], own_row)
        cum_rent = o[f"tco.rent_cumulative{tag}"] = running_sum(rent_row[:, :1], rent_row)
        crossed = live * F(le(cum_own, cum_rent))
        crossed[:, 0] = 0.0  # the opening
        paid = o[f"tco.paid_back{tag}"] = np.maximum.accumulate(crossed, axis=1)
        first = o[f"tco.payback_flag{tag}"] = np.concatenate([np.zeros((paid.shape[0], 1)),
                                                             S(paid[:, 1:], paid[:, :-1])], axis=1)
        o[f"tco.payback_month_flow{tag}"] = first * month
    savings = o["tco.savings_flow"] = S(rent_flow, own)

    # the answers
    npv_own = o["tco.npv_own"] = SUM(own_pv)
    npv_rent = o["tco.npv_rent"] = SUM(rent_pv)
    o["tco.npv_advantage"] = S(npv_rent, npv_own)
    monthly_irr = kernels.irr(savings, kernels.irr(savings, rate))
    o["tco.irr_buy"] = S(POW(A(1.0, monthly_irr), 12.0), 1.0)
    months = o["tco.pv_service_months"] = SUM(service_pv)
    o["tco.owned_annual_cost"] = np.where(months == 0, np.nan, D(npv_own, months) * 12)
    full = o["tco.pv_full_gpu_hours"] = SUM(full_pv)
    hours = o["tco.pv_gpu_hours"] = util * full
    o["tco.owned_cost_per_gpu_hour"] = SAFE(npv_own, hours)
    useful = o["tco.pv_useful_gpu_hours"] = hours * o["reliability.goodput"]  # x goodput (Reliability sheet)
    o["tco.owned_cost_per_useful_gpu_hour"] = SAFE(npv_own, useful)
    e_npv = o["tco.npv_energy_per_utilisation"] = SUM(slope_pv)
    od_npv = o["tco.npv_on_demand_per_utilisation"] = SUM(od_pv)
    fixed = o["tco.npv_own_without_utilisation"] = S(npv_own, util * e_npv)
    gap = o["tco.break_even_denominator"] = S(od_npv, e_npv)
    o["tco.break_even_utilisation"] = SAFE(S(fixed, SUM(extras_pv)), gap)
    for tag in ("", "_pv"):
        flags = SUM(o[f"tco.payback_flag{tag}"])
        key = "tco.payback_month" if not tag else "tco.discounted_payback_month"
        o[key] = SAFE(SUM(o[f"tco.payback_month_flow{tag}"]), flags)
    o["tco.total_own"] = SUM(own)
    o["tco.total_rent"] = SUM(rent_flow)
    delay_hours = o["tco.delay_gpu_hours"] = used
    delay_rent = o["tco.delay_rent"] = delay_hours * od_price
    carry = o["tco.delay_carry"] = capex * rate
    fixed_costs = o["tco.delay_fixed_costs"] = A(colo, staff)
    o["tco.delay_cost"] = A(A(delay_rent, carry), fixed_costs)

    # the yearly P&L and cash view, and their tie-out
    capex_flow = o["tco.capex_flow"] = A(it_flow, fac_flow)
    exit_loss = o["tco.exit_loss_flow"] = exit_ * S(fac_capex * S(book_share, value_share),
                                                    it_capex * g("tco.residual_value"))
    assets = o["tco.asset_change_flow"] = S(S(capex_flow, dep), exit_ * book_left)
    by_year = {}
    for key, row in (("pl_energy", e_flow), ("pl_facility_opex", f_flow), ("pl_support", s_flow),
                     ("pl_staff", st_flow), ("pl_depreciation", dep), ("pl_exit", exit_loss),
                     ("cash_capex", capex_flow), ("cash_opex", opex_flow), ("cash_tax", tax_flow),
                     ("cash_residual", residual), ("cash_own", own), ("pl_asset_change", assets)):
        by_year[key] = o[f"tco.{key}"] = SUMIF_YEARS(year, row, years)
    pl_opex = o["tco.pl_opex"] = A(A(A(by_year["pl_energy"], by_year["pl_facility_opex"]), by_year["pl_support"]),
                                   by_year["pl_staff"])
    pl_cost = o["tco.pl_cost"] = A(A(pl_opex, by_year["pl_depreciation"]), by_year["pl_exit"])
    pl_after_tax = o["tco.pl_cost_after_tax"] = pl_cost * after_tax
    explained = o["tco.pl_explained_cash"] = A(pl_after_tax, by_year["pl_asset_change"])
    cash = by_year["cash_own"]
    ties = o["tco.pl_ties"] = lt(MX(S(cash, explained), S(explained, cash)), 1.0)
    o["tco.pl_ties_to_cash"] = ties.all(axis=1, keepdims=True)

    # the cost curve
    step = g("tco.utilisation_step")
    point = step
    for k in range(1, 11):
        point = o[f"tco.curve_utilisation_{k}"] = point if k == 1 else A(point, step)
        o[f"tco.curve_owned_{k}"] = SAFE(A(fixed, point * e_npv), point * full)
    o["tco.curve_on_demand"] = SAFE(od_npv, full)


def _envelope(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """The power envelope of the site's one fleet (a PUE facility: no fixed facility load): the whole nodes a fixed
    feed holds at TDP and power-capped. The contracted feed and the envelope's are in MW, the rest in kW."""
    g = x.__getitem__
    feed, per_gpu, nodes = g("envelope.feed"), g("power.gpus_per_node"), o["power.nodes"]
    share = o["envelope.cap_throughput"] = POW(g("envelope.power_cap"), g("envelope.cap_exponent"))
    per_kw = o["envelope.feed_per_peak_it"] = A(1, g("power.feed_headroom")) * o["power.contracted_feed"] / o[
        "power.critical_it_capacity"] * 1000
    fixed = o["envelope.fixed_feed"] = A(A(o["power.storage_load"], g("power.management_power")) * per_kw, 0)
    o["envelope.network_per_node"] = A(o["power.network_power"], o["power.optics_power"]) / nodes
    per_node = o["envelope.feed_per_node"] = S(o["power.contracted_feed"], fixed / 1000) / nodes * 1000
    room = o["envelope.feed_for_nodes"] = S(feed * 1000, fixed)
    whole = o["envelope.nodes"] = MX(0, RD(room / per_node))
    gpus = o["envelope.gpus"] = whole * per_gpu
    compute = o["envelope.compute"] = gpus * g("power.gpu_throughput")
    o["envelope.gpus_per_mw"] = o["envelope.gpus_per_mw_by_fleet"] = gpus / feed
    o["envelope.compute_per_mw"] = o["envelope.compute_per_mw_by_fleet"] = compute / feed
    o["envelope.feed_left"] = S(room, whole * per_node)
    o["envelope.node_fits"] = ge(whole, 1)
    o["envelope.capped_gpu_power"] = g("power.gpu_tdp") * g("envelope.power_cap")
    saving = o["envelope.cap_saving"] = o["power.node_gpu_power"] * S(1, g("envelope.power_cap")) / g(
        "power.psu_efficiency")
    capped = o["envelope.capped_feed_per_node"] = S(per_node, saving * per_kw)
    capped_nodes = o["envelope.capped_nodes"] = MX(0, RD(room / capped))
    capped_gpus = o["envelope.capped_gpus"] = capped_nodes * per_gpu
    capped_compute = o["envelope.capped_compute"] = capped_gpus * (g("power.gpu_throughput") * share)
    o["envelope.capped_gpus_per_mw"] = o["envelope.capped_gpus_per_mw_by_fleet"] = capped_gpus / feed
    o["envelope.capped_compute_per_mw"] = o["envelope.capped_compute_per_mw_by_fleet"] = capped_compute / feed
    o["envelope.extra_gpus"] = S(capped_gpus, gpus)
    o["envelope.compute_gain"] = SAFE(S(capped_compute, compute), compute)


CHECKS = [  # the checks of the master check (checks.all_pass), the base case's
    "reliability.write_within_target", "fabric.runs_within_single_mode_reach", "fabric.storage_holds_endpoints",
    "fabric.holds_endpoints", "fabric.nic_fits_port", "power.racks_fit_hall", "power.network_racks_within_limit",
    "power.pdus_fit_rack", "power.feed_within_site", "power.rack_within_limit", "power.whole_nodes",
    "cooling.rack_flow_within_manifold", "cooling.rise_within_allowed", "cooling.coolant_above_facility_water",
    "cooling.cdu_heat_one_down", "cooling.cdu_flow_one_down", "cooling.heat_balance", "cooling.floor_within_rating",
    "cooling.overhead_carries_cooling_plant", "bom.transceivers_tie_out", "bom.single_mode_tie_out",
    "bom.cables_tie_out", "tco.life_within_timeline", "tco.pl_ties_to_cash", "envelope.node_fits",
]
# the example's scenarios whose copy of a check reaches the master check (the rows of the batch): the P&L tie-out
# where the utilisation, the power price or the rent change the flows, and cheap_rent's service life too (cheaper
# rent holds fewer spares, which can move the equipment lead time and so the service start)
SCENARIO_CHECKS = [(1, "tco.pl_ties_to_cash"), (2, "tco.pl_ties_to_cash"), (3, "tco.life_within_timeline"),
                   (3, "tco.pl_ties_to_cash")]

SHOWN = [  # the Summary's lines that show another line as it is (the power chain's without their prefix)
    "gpus", "nodes", "racks", "racks_total", "node_power", "it_load", "facility_power", "contracted_feed",
    "feed_blocks", "ups_blocks", "gpu_share", "gpus_per_mw", "fabric.tiers", "fabric.switches",
    "fabric.storage_switches", "fabric.oob_switches",
    "fabric.transceivers_total", "fabric.cables_total", "fabric.switches_power", "fabric.optics_power",
    "fabric.power", "cooling.heat_load", "cooling.liquid_heat", "cooling.air_heat", "cooling.coolant_flow",
    "cooling.coolant_flow_gpm", "cooling.air_flow", "cooling.heat_compressor", "cooling.compressor_power",
    "cooling.heat_rejection_tons", "cooling.cdus_n", "cooling.cdus_installed", "cooling.cdu_pump_power",
    "cooling.rack_weight", "cooling.rack_liquid_heat", "cooling.floor_load", "tco.owned_cost_per_gpu_hour",
    "tco.break_even_utilisation", "tco.npv_own", "tco.npv_rent", "tco.npv_advantage", "tco.irr_buy",
    "tco.payback_month", "tco.discounted_payback_month", "tco.delay_cost", "tco.capex", "tco.owned_annual_cost",
    "tco.delay_gpu_hours", "tco.owned_cost_per_useful_gpu_hour", "reliability.mtbi",
    "reliability.interruptions_per_month", "reliability.checkpoint_size", "reliability.optimal_interval",
    "reliability.goodput", "reliability.storage_power",
]


def _checks_and_summary(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    parts = [o[c][:1] for c in CHECKS] + [o[c][row : row + 1] for row, c in SCENARIO_CHECKS]
    passed = o["checks.all_pass"] = np.logical_and.reduce(np.broadcast_arrays(*parts))
    built = "sensitivity.built_"  # the tornado's inputs as built: still the inputs' values (each an input id)
    o["sensitivity.current"] = np.logical_and.reduce(np.broadcast_arrays(*(
        eq(x[key[len(built):].replace("_", ".", 1)], x[key]) for key in x if key.startswith(built))))
    o["summary.all_checks_pass"] = passed
    for key in SHOWN:
        line_id = key if "." in key else f"power.{key}"
        o["summary." + key.replace(".", "_")] = x[line_id] if line_id in x else o[line_id]
    o["summary.share_gpu"] = o["power.gpu_board_power"]
    o["summary.share_node_rest"] = S(o["power.compute_power"], o["power.gpu_board_power"])
    o["summary.share_network"] = A(o["power.network_power"], o["power.optics_power"])
    o["summary.share_storage_mgmt"] = A(o["power.storage_load"], x["power.management_power"])
    o["summary.reliability_spare_node"] = o["reliability.node_held"]
    o["summary.share_facility"] = o["power.facility_overhead"]


# ---------------------------------------------------------------- (c) the whole book, tool against hand


def example_book() -> Any:
    return build_book(load_all(EXAMPLE))


def hand_inputs(book: Any) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The book's inputs, each (cases, 1): the base case in row 0, then one row per scenario (its changed inputs
    in its row, the base values elsewhere). Returns the inputs and scenario name -> row."""
    rows = {name: k + 1 for k, name in enumerate(book.scenarios)}
    x = {line.id: line.value.reshape(1, 1).astype(float) for line in book.lines.values()
         if line.kind == "input" and not line.id.startswith("scenario.")}
    for name, mapping in book.scenarios.items():
        for key, line in mapping.items():
            if line.kind == "input":
                if x[key].shape[0] == 1:
                    x[key] = np.repeat(x[key], len(rows) + 1, axis=0)
                x[key][rows[name]] = line.value.reshape(-1)[0]
    return x, rows


def compare(book: Any, tool: dict[str, np.ndarray], hand: dict[str, np.ndarray],
            rows: dict[str, int]) -> tuple[list[str], list[str], int]:
    """Every calculated line of the book against the hand version. Returns (covered, not covered, of the
    covered how many are the same bits); raises at the first line that differs."""
    covered, missing, same_bits = [], [], 0
    for line in book.lines.values():
        if line.kind == "input":
            continue
        base_id, row = line.id, 0
        if line.id.startswith("scenario."):
            name, base_id = line.id[len("scenario."):].split(".", 1)
            row = rows[name]
        if base_id not in hand:
            missing.append(line.id)
            continue
        want = np.asarray(hand[base_id]).reshape(-1, np.shape(hand[base_id])[-1] if np.ndim(hand[base_id]) else 1)
        want = want[row] if want.shape[0] > 1 else want[0]
        got = tool[line.id][0]
        want = np.broadcast_to(want, got.shape)
        if line.is_bool:
            ok = np.array_equal(got.astype(bool), want.astype(bool))
        else:
            ok = np.allclose(got, want, rtol=RTOL, atol=0, equal_nan=True)
        if not ok:
            raise SystemExit(f"bench: {line.id} differs: Book.evaluate {got[:6]} ... hand {want[:6]} ...")
        same_bits += bool(np.array_equal(got, want, equal_nan=True))
        covered.append(line.id)
    return covered, missing, same_bits


def bench_whole_book(reps: int) -> dict[str, Any]:
    book = example_book()
    x, rows = hand_inputs(book)
    tool = book.evaluate()
    hand = hand_book(x, book.periods, book.years)
    covered, missing, same_bits = compare(book, tool, hand, rows)
    tool_t, hand_t = [], []
    for _ in range(reps):  # interleaved, so drift in machine load hits both alike
        t0 = time.perf_counter()
        book.evaluate()
        t1 = time.perf_counter()
        hand_book(x, book.periods, book.years)
        t2 = time.perf_counter()
        tool_t.append(t1 - t0)
        hand_t.append(t2 - t1)
    return {"tool": statistics.median(tool_t), "hand": statistics.median(hand_t), "covered": covered,
            "missing": missing, "same_bits": same_bits, "lines": len(book.lines),
            "inputs": sum(1 for line in book.lines.values() if line.kind == "input"), "periods": book.periods,
            "cases": len(rows) + 1}


# ---------------------------------------------------------------- (d) a million sites, a chunk at a time


ANSWERS = ["power.it_load", "power.facility_power", "power.contracted_feed", "power.racks_total",
           "fabric.switches_total", "fabric.cables_total", "fabric.power", "tco.capex", "tco.npv_own",
           "tco.npv_rent", "tco.owned_cost_per_gpu_hour", "tco.break_even_utilisation", "tco.irr_buy",
           "tco.payback_month"]


def random_sites(book: Any, n: int, seed: int = 20260101) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = {k: float(book.lines[k].value.reshape(-1)[0]) for k in ("tco.server_price", "tco.colo_price")}
    return {
        "power.gpus": rng.integers(64, 20_001, n).astype(float),
        "power.gpu_tdp": rng.uniform(300, 1200, n),
        "power.pue": rng.uniform(1.1, 1.6, n),
        "tco.electricity_price": rng.uniform(0.03, 0.2, n),
        "tco.utilisation": rng.uniform(0.3, 0.95, n),
        "tco.server_price": base["tco.server_price"] * rng.uniform(0.7, 1.3, n),
        "tco.colo_price": base["tco.colo_price"] * rng.uniform(0.7, 1.3, n),
        "tco.cost_of_capital": rng.uniform(0.04, 0.14, n),
        "tco.on_demand_price": rng.uniform(1.5, 4.0, n),
    }


def memory_child(n: int, chunk: int) -> None:
    """Run in a fresh process: evaluate n random sites' answers a chunk at a time; print the peak RSS."""
    from workbook.formula.evaluation import evaluate_many

    book = example_book()
    sites = random_sites(book, n)
    t0 = time.perf_counter()
    out = evaluate_many(book, sites, ANSWERS, chunk=chunk)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
    shapes = {k: list(v.shape) for k, v in out.items()}
    finite = {k: int(np.isfinite(v).sum()) for k, v in out.items()}
    print(json.dumps({"peak": peak, "seconds": seconds, "shapes": shapes, "finite": finite}))


def bench_memory(n: int, chunk: int) -> dict[str, Any]:
    run = subprocess.run([sys.executable, __file__, "--memory-child", str(n), "--chunk", str(chunk)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"bench: the {n:,}-site evaluation failed:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=15, help="repetitions of each timing (default 15)")
    p.add_argument("--sites", type=int, default=1_000_000, help="sites for (d) (default 1,000,000)")
    p.add_argument("--chunk", type=int, default=20_000, help="sites per chunk in (d) (default 20,000)")
    p.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child, args.chunk)
        return 0

    def row(label: str, seconds: float) -> None:
        print(f"    {label:<64} {seconds * 1000:9.1f} ms")

    c = bench_whole_book(args.reps)
    calc = len(c["covered"]) + len(c["missing"])
    print(f"(c) whole book of inputs/example.yaml ({c['lines']} lines: {c['inputs']} inputs, {calc} calculated, "
          f"{c['periods']} periods; base case and {c['cases'] - 1} scenarios), median of {args.reps} interleaved runs")
    print(f"    hand numpy covers {len(c['covered'])} of the {calc} calculated lines; all compared before timing: "
          f"np.allclose(rtol={RTOL:g}) and TRUE/FALSE lines equal: yes ({c['same_bits']} of them to the bit)")
    print("    not covered by the hand version: " + (", ".join(c["missing"]) if c["missing"] else "none"))
    row("hand: numpy, the spreadsheet arithmetic called directly", c["hand"])
    row("tool: Book.evaluate (every line)", c["tool"])
    print(f"    RATIO whole-book evaluate = {c['tool'] / c['hand']:.2f}x (target <= 1.5x)")

    m = bench_memory(args.sites, args.chunk)
    print(f"(d) {args.sites:,} random sites, {len(ANSWERS)} answers of power, fabric and TCO "
          f"({', '.join(ANSWERS)}), evaluate_many in chunks of {args.chunk:,}, in a fresh process")
    print(f"    {m['seconds']:.1f} s; every answer shaped {sorted({tuple(s) for s in m['shapes'].values()})}")
    none = {k: args.sites - f for k, f in m["finite"].items() if f < args.sites}
    if none:
        print("    sites where an answer has no value (the cell shows its message): "
              + ", ".join(f"{k} {v:,}" for k, v in none.items()))
    print(f"    MEMORY {args.sites:,} sites power+fabric+TCO answers = {m['peak'] / 1e9:.1f} GB peak (target < 2 GB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
