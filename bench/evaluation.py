"""Benchmarks of evaluation (a script, not a test; `make bench` runs it after bench/run.py).

(c) Whole book. evaluate_overlays of inputs/example.yaml's cases (the base case and each scenario as an overlay:
    every line) against a fixed hand-coded floor: the power chain, the UPS and OOB network, the goodput curve, the
    power envelope, the fabric's leaves, tiers and runs, and the TCO's monthly timeline (a running total column by
    column, as the tool does), written line by line in numpy with the spreadsheet arithmetic the tool uses
    (workbook.formula.spreadsheet and kernels: approximate + and -, comparisons, ROUNDUP, pow) and plain numpy for
    * and /. The floor reads every other line it needs from the tool's values, so a new line elsewhere in the book
    needs no edit here; each line it computes is compared with the tool in every case before any timing. The
    ratio is per line: median(tool) / calculated lines of the book over median(hand) / lines of the floor, each
    side timed over as many calls as take half a second (SAMPLE_SECONDS), the two sides interleaved, with the
    spread of the ratio over the samples beside it.

(e) Override sets. 1,000 random overlays of the example (each changes some of six inputs), their answers as the
    rows of one batch (evaluate_overlays) against each evaluated alone; the same bits either way, checked first.

(d) Memory at portfolio scale. In a fresh process, evaluate_many of 1,000,000 random sites (GPUs, TDP, PUE,
    prices, utilisation, cost of capital vary) for power, fabric and TCO answers, a chunk of sites at a time;
    the peak resident memory of that process (resource.getrusage) is printed.

Printed for scripts: `RATIO whole-book evaluate per line = 1.30x (target <= 1.2x; samples 1.25x to 1.36x)`,
`SPEEDUP 1,000 override sets as one batch = 60x` and
`MEMORY 1,000,000 sites power+fabric+TCO answers = 0.5 GB peak (target < 2 GB)`.

Run: .venv/bin/python bench/evaluation.py [--reps N] [--sites N] [--chunk N] [--overlays N]
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

from workbook.build import build_book, load_all  # noqa: E402
from workbook.formula import spreadsheet as ss  # noqa: E402
from workbook.formula.evaluation import evaluate, evaluate_overlays, scenario_overlays  # noqa: E402

EXAMPLE = ROOT / "inputs" / "example.yaml"
RTOL = 1e-12

# ---------------------------------------------------------------- the arithmetic (LibreOffice's, as the tool's)

A, S = ss.approx_add, ss.approx_sub  # a + b, a - b
RU, RD = ss.round_up, ss.round_down  # ROUNDUP(x, 0), ROUNDDOWN(x, 0)
POW = ss.power


def le(a: Any, b: Any) -> np.ndarray:
    return ss.compare("<=", a, b)


def ge(a: Any, b: Any) -> np.ndarray:
    return ss.compare(">=", a, b)


def MX(*v: Any) -> np.ndarray:
    return np.maximum.reduce(np.broadcast_arrays(*v))


def MN(*v: Any) -> np.ndarray:
    return np.minimum.reduce(np.broadcast_arrays(*v))


def D(a: Any, b: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.divide(a, b)


def SAFE(a: Any, b: Any) -> np.ndarray:
    """a / b, NaN (the cell's message) where b is 0."""
    return np.where(b == 0, np.nan, D(a, b))


# The unit conversion factors a formula names (templates/unit_constants.yaml): each is the float its constant's cell
# holds (15 significant digits, formula.units.factor), so the hand version multiplies or divides by the same number.
UNITS = {"l_min_per_gpm": 3.785411784, "l_min_per_m3_s": 60000.0, "cfm_per_m3_s": 2118.88000328932,
         "m3_h_per_cfm": 1.69901079552, "kw_per_ton_of_refrigeration": 3.51685333333333, "h_per_month": 730.0,
         "months_per_year": 12.0, "weeks_per_month": 4.34523809523809, "s_per_min": 60.0, "h_per_day": 24.0,
         "days_per_year": 365.0}
H_MONTH, H_DAY, S_MIN, D_YEAR = UNITS["h_per_month"], UNITS["h_per_day"], UNITS["s_per_min"], UNITS["days_per_year"]


# ---------------------------------------------------------------- the example's book, by hand


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
    factor = o["envelope.cap_facility_factor"] = A(1, o["cooling.gpu_marginal_cooling"]) / S(
        1, g("power.distribution_loss"))  # the plant at the margin, not the design PUE's average
    capped = o["envelope.capped_feed_per_node"] = S(per_node, saving * A(1, g("power.feed_headroom")) * factor)
    capped_nodes = o["envelope.capped_nodes"] = MX(0, RD(room / capped))
    capped_gpus = o["envelope.capped_gpus"] = capped_nodes * per_gpu
    capped_compute = o["envelope.capped_compute"] = capped_gpus * (g("power.gpu_throughput") * share)
    o["envelope.capped_gpus_per_mw"] = o["envelope.capped_gpus_per_mw_by_fleet"] = capped_gpus / feed
    o["envelope.capped_compute_per_mw"] = o["envelope.capped_compute_per_mw_by_fleet"] = capped_compute / feed
    o["envelope.extra_gpus"] = S(capped_gpus, gpus)
    o["envelope.compute_gain"] = SAFE(S(capped_compute, compute), compute)


def gt(a: Any, b: Any) -> np.ndarray:
    return ss.compare(">", a, b)


def IF(cond: Any, a: Any, b: Any) -> np.ndarray:
    return np.where(cond, a, b)


def _reader(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> Any:
    """An input's value, or a line's (the hand version's own once it has written it, else the tool's)."""
    return lambda key: x[key] if key in x else o[key]


def _fabric(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """The fabric's rail-optimised leaves, its tiers, the cable runs and the node-side transceivers."""
    g = _reader(x, o)
    radix, leaf_os, spine_os = g("fabric.switch_radix"), g("fabric.leaf_oversubscription"), g(
        "fabric.spine_oversubscription")
    o["fabric.nodes"] = RU(g("power.gpus") / g("power.gpus_per_node"))
    per_host = o["fabric.gpus_per_host"] = RU(g("power.gpus_per_node") / g("power.hosts_per_node"))
    rails = o["fabric.rails"] = per_host * g("fabric.nics_per_gpu")
    endpoints = o["fabric.endpoints"] = g("power.gpus") * g("fabric.nics_per_gpu")
    hosts = o["fabric.hosts"] = RU(endpoints / rails)
    o["fabric.injection_bandwidth"] = endpoints * g("fabric.nic_speed") / 1000
    down = o["fabric.leaf_down_ports"] = RD(radix * leaf_os / A(1, leaf_os))
    up = o["fabric.leaf_up_ports"] = S(radix, down)
    o["fabric.leaf_ratio_built"] = down / up
    spine_down = o["fabric.spine_down_ports"] = RD(radix * spine_os / A(1, spine_os))
    o["fabric.spine_up_ports"] = S(radix, spine_down)
    o["fabric.max_two_tier_endpoints"] = radix * down
    o["fabric.max_three_tier_endpoints"] = radix * spine_down * down
    o["fabric.leaves_per_rail"] = RU(hosts / down)
    full = o["fabric.full_leaves"] = rails * RD(hosts / down)
    partial_down = o["fabric.partial_leaf_down_ports"] = S(hosts, RD(hosts / down) * down)
    partial = o["fabric.partial_leaves"] = rails * IF(gt(partial_down, 0), 1, 0)
    full_up = o["fabric.full_leaf_up_ports"] = MN(up, RU(down / leaf_os))
    partial_up = o["fabric.partial_leaf_up_ports"] = MN(up, RU(partial_down / leaf_os))
    o["fabric.fullest_leaf_up_ports"] = IF(gt(full, 0), full_up, partial_up)
    one_switch = le(endpoints, radix)
    leaves = o["fabric.leaves"] = IF(one_switch, RU(endpoints / radix), A(full, partial))
    spine_tier = o["fabric.spine_tier"] = IF(one_switch, 0, 1)
    core_tier = o["fabric.core_tier"] = IF(gt(leaves, radix), 1, 0)
    o["fabric.tiers"] = A(A(1, spine_tier), core_tier)
    row = o["fabric.row_length"] = g("power.racks_per_row") * g("power.rack_width")
    depth = o["fabric.hall_depth"] = g("power.hall_rows") * g("power.row_pitch")
    slack, reach = g("power.cable_slack"), g("fabric.optic_reach")
    runs = [A(A(depth / 2, row / 2), slack), A(row, slack), A(row, slack)]
    for name, run in zip(("node_leaf", "leaf_spine", "spine_core"), runs, strict=True):
        o[f"fabric.{name}_run"] = run
        o[f"fabric.{name}_single_mode"] = IF(gt(run, reach), 1, 0)
    longest = o["fabric.longest_run"] = MX(*runs)
    o["fabric.runs_within_single_mode_reach"] = le(longest, g("fabric.single_mode_reach"))
    links = o["fabric.node_leaf_links"] = endpoints
    o["fabric.node_transceivers"] = hosts * RU(rails / g("fabric.links_per_node_optic"))
    o["fabric.node_leaf_switch_transceivers"] = RU(links / g("fabric.switch_breakout"))


def _cumulative(opening: np.ndarray, flow: np.ndarray) -> np.ndarray:
    """A row that adds each column's flow to its previous column (the workbook's running total), from its opening."""
    out = np.empty(np.broadcast_shapes(opening.shape, flow.shape))
    out[:, :1] = opening[:, :1]
    for t in range(1, out.shape[1]):
        out[:, t] = A(out[:, t - 1], flow[:, t])
    return out


def _tco_timeline(x: dict[str, np.ndarray], o: dict[str, np.ndarray]) -> None:
    """The TCO's monthly timeline: months and years, in service, the ramp, the discount factor, the escalation
    indices, the running costs, the rented GPU-hours and the rent, the present values and the running totals."""
    g = _reader(x, o)
    n = o["tco.own_flow"].shape[1]
    month = o["tco.month"] = _cumulative(np.zeros((1, 1)), np.ones((1, n)))
    year = o["tco.year"] = RU(month / 12)
    o["tco.period_length"] = gt(month, 0) * 1
    lead = g("tco.service_lead")
    on = o["tco.in_service"] = gt(month, lead) * 1 * le(month, A(lead, g("tco.useful_life"))) * 1
    sm = o["tco.service_month"] = on * S(month, lead)
    df = o["tco.discount_factor"] = D(1, POW(A(1, g("tco.monthly_rate")), month))
    first, months = g("tco.ramp_first_share"), g("tco.ramp_months")
    ramp = o["tco.ramp"] = on * IF(le(sm, months), A(first, S(1, first) * S(sm, 1) / MX(1, months)), 1)
    index = {}
    for key in ("electricity", "facility", "staff", "support"):
        index[key] = o[f"tco.{key}_index"] = POW(A(1, g(f"tco.{key}_escalation")), MX(0, S(year, 1)))
    energy = o["tco.energy_flow"] = on * index["electricity"] * A(
        g("tco.energy_idle"), g("tco.energy_per_utilisation") * g("tco.utilisation") * ramp)
    facility = o["tco.facility_opex_flow"] = on * index["facility"] * g("tco.colo_cost")
    staff = o["tco.staff_flow"] = on * index["staff"] * g("tco.staff")
    support = o["tco.support_flow"] = on * index["support"] * g("tco.support_cost")
    o["tco.opex_flow"] = A(A(A(energy, facility), support), staff)
    change = A(1, g("tco.rent_price_change"))
    rent_index = o["tco.rent_index"] = POW(change, MX(0, S(year, 1)))
    term = g("tco.reserved_term")
    start = o["tco.reserved_term_start"] = on * A(A(lead, RD(S(sm, 1) / term) * term), 1)
    reserved = o["tco.reserved_index"] = POW(change, MX(0, S(RU(start / 12), 1)))
    hours = on * H_MONTH * g("power.gpus") * ramp
    o["tco.used_gpu_hours_flow"] = hours * g("tco.utilisation")
    booked = o["tco.reserved_gpu_hours_flow"] = hours * g("tco.reserved_use")  # the reserved share, ramp included
    on_demand = o["tco.on_demand_gpu_hours_flow"] = hours * g("tco.on_demand_use")
    o["tco.rent_pretax_flow"] = A(A(booked * g("tco.reserved_price") * reserved,
                                    on_demand * g("tco.on_demand_price") * rent_index), on * g("tco.rent_extras"))
    for side in ("own", "rent"):
        flow = g(f"tco.{side}_flow")
        o[f"tco.{side}_pv"] = flow * df
        o[f"tco.{side}_cumulative"] = _cumulative(flow, flow)


# ---------------------------------------------------------------- (c) the whole book, against the hand-coded floor

# The floor: the power chain, the UPS and the OOB network, the goodput curve, the power envelope, the fabric's
# leaves, tiers and runs, and the TCO's monthly timeline, written by hand. A fixed subset: a new line elsewhere in the
# book needs no edit here. Every other line the subset reads comes from the tool's own values (each case's row), so
# only the subset's own formulas are re-coded, and all are compared.
FLOOR = (_goodput, _fabric, _power, _ups_and_oob, _envelope, _tco_timeline)


class _Written(dict):
    """The hand version's values, remembering which lines it wrote (the others are the tool's, read only)."""

    def __init__(self, seed: dict[str, np.ndarray]):
        super().__init__(seed)
        self.written: dict[str, None] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        self.written[key] = None
        super().__setitem__(key, value)


def hand_floor(x: dict[str, np.ndarray], seed: dict[str, np.ndarray]) -> _Written:
    o = _Written(seed)
    with np.errstate(all="ignore"):
        for part in FLOOR:
            part(x, o)
    return o


def example_book() -> Any:
    return build_book(load_all(EXAMPLE))


def cases(book: Any) -> tuple[list[dict[str, float]], dict[str, np.ndarray]]:
    """The example's cases as overlays (the base case, then each scenario), and every line's value in each case."""
    overlays = [{}, *scenario_overlays(book).values()]
    return overlays, dict(evaluate_overlays(book, overlays))


def compare_floor(book: Any, rows: dict[str, np.ndarray], hand: _Written) -> tuple[list[str], int]:
    """Every line the hand version wrote against the tool's, in every case. Returns (lines, same bits)."""
    same_bits = 0
    for key in hand.written:
        if key not in book.lines:
            raise SystemExit(f"bench: the hand version writes {key}, which the book no longer has")
        got = rows[key]
        want = np.broadcast_to(np.asarray(hand[key], dtype=float).reshape(-1, got.shape[1]) if np.size(hand[key]) > 1
                               else np.asarray(hand[key], dtype=float).reshape(1, 1), got.shape)
        if book.lines[key].is_bool:
            ok = np.array_equal(got.astype(bool), want.astype(bool))
        else:
            ok = np.allclose(got, want, rtol=RTOL, atol=0, equal_nan=True)
        if not ok:
            raise SystemExit(f"bench: {key} differs: Book.evaluate {got[:, :3].tolist()} hand {want[:, :3].tolist()}")
        same_bits += bool(np.array_equal(got, want, equal_nan=True))
    return list(hand.written), same_bits


SAMPLE_SECONDS = 0.5  # each timing is of as many calls as take this long, so that the hand floor's 8 ms is not
# timed alone (a clock tick or a cache miss is a tenth of it): a median of 15 such samples is 7 s of work a side


def _loops(fn: Any, seconds: float) -> int:
    """How many calls of fn take about `seconds` (after one call to warm it)."""
    fn()
    t = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t, 1e-6)
    return max(1, round(seconds / once))


def _timed(fn: Any, loops: int) -> float:
    """Seconds a call, over `loops` calls in a row."""
    t = time.perf_counter()
    for _ in range(loops):
        fn()
    return (time.perf_counter() - t) / loops


def bench_whole_book(reps: int) -> dict[str, Any]:
    book = example_book()
    overlays, rows = cases(book)
    x = {k: np.asarray(v, dtype=float).reshape(len(overlays), -1)[:, :1] for k, v in rows.items()
         if book.lines[k].kind == "input"}
    seed = {k: v for k, v in rows.items() if book.lines[k].kind != "input"}
    written = hand_floor(x, seed).written  # then without the tool's values of those lines: the hand reads its own
    seed = {k: v for k, v in seed.items() if k not in written}
    floor, same_bits = compare_floor(book, rows, hand_floor(x, seed))
    def tool() -> None:
        evaluate_overlays(book, overlays)

    def hand() -> None:
        hand_floor(x, seed)

    loops = {f: _loops(f, SAMPLE_SECONDS) for f in (tool, hand)}
    tool_t, hand_t = [], []
    for _ in range(reps):  # interleaved, so drift in machine load hits both alike
        tool_t.append(_timed(tool, loops[tool]))
        hand_t.append(_timed(hand, loops[hand]))
    calc = [line.id for line in book.lines.values() if line.kind != "input"]
    return {"tool": statistics.median(tool_t), "hand": statistics.median(hand_t), "floor": floor,
            "ratios": [(t / len(calc)) / (h / len(floor)) for t, h in zip(tool_t, hand_t, strict=True)],
            "loops": (loops[tool], loops[hand]),
            "same_bits": same_bits, "calc": len(calc), "lines": len(book.lines), "periods": book.periods,
            "cases": len(overlays)}


# ---------------------------------------------------------------- (e) a list of override sets: one batch or one by one


def bench_overlays(n: int, reps: int, seed: int = 20261205) -> dict[str, Any]:
    """n random overlays of the example (each changes some of six inputs), their answers evaluated as the rows of
    one batch against each overlay evaluated alone; the two compared first, to the bit."""
    book = example_book()
    rng = np.random.default_rng(seed)
    spans = {"tco.utilisation": (0.3, 1.0), "tco.electricity_price": (0.03, 0.3), "power.gpu_tdp": (500, 1000),
             "tco.cost_of_capital": (0.0, 0.2), "tco.on_demand_price": (1.0, 4.0), "power.pue": (1.1, 1.8)}
    overlays = [{k: float(rng.uniform(lo, hi)) for k, (lo, hi) in spans.items() if rng.random() < 0.5}
                for _ in range(n)]
    batch = evaluate_overlays(book, overlays, ANSWERS)
    alone = [evaluate(book, overlay, ANSWERS) for overlay in overlays]
    for k, values in enumerate(alone):
        for key in ANSWERS:
            if not np.array_equal(batch[key][k], values[key][0], equal_nan=True):
                raise SystemExit(f"bench: overlay {k}: {key} differs between the batch and the overlay alone")
    one, many = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        evaluate_overlays(book, overlays, ANSWERS)
        t1 = time.perf_counter()
        for overlay in overlays:
            evaluate(book, overlay, ANSWERS)
        t2 = time.perf_counter()
        one.append(t1 - t0)
        many.append(t2 - t1)
    return {"batch": statistics.median(one), "alone": statistics.median(many), "n": n}


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
    p.add_argument("--overlays", type=int, default=1_000, help="override sets for (e) (default 1,000)")
    p.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child, args.chunk)
        return 0

    def row(label: str, seconds: float) -> None:
        print(f"    {label:<64} {seconds * 1000:9.1f} ms")

    c = bench_whole_book(args.reps)
    floor = len(c["floor"])
    print(f"(c) whole book of inputs/example.yaml ({c['lines']} lines: {c['calc']} calculated, {c['periods']} periods; "
          f"the base case and {c['cases'] - 1} scenarios as overlays), median of {args.reps} interleaved runs")
    print(f"    the hand-coded floor (power chain, UPS and OOB, goodput, envelope, fabric, TCO timeline): {floor} "
          f"lines, each compared with the tool in every case first: np.allclose(rtol={RTOL:g}), TRUE/FALSE equal; "
          f"{c['same_bits']} to the bit")
    row(f"hand: numpy, the spreadsheet arithmetic called directly ({floor} lines)", c["hand"])
    row(f"tool: evaluate_overlays, every line ({c['calc']} calculated)", c["tool"])
    per_line = (c["tool"] / c["calc"]) / (c["hand"] / floor)
    low, mid, high = min(c["ratios"]), statistics.median(c["ratios"]), max(c["ratios"])
    print(f"    each of the {args.reps} samples {c['loops'][0]} calls of the tool and {c['loops'][1]} of the hand "
          f"(about {SAMPLE_SECONDS:g} s a side); the ratio per sample: min {low:.2f}x, median {mid:.2f}x, "
          f"max {high:.2f}x")
    print(f"RATIO whole-book evaluate per line = {per_line:.2f}x (target <= 1.2x; samples {low:.2f}x to {high:.2f}x)")
    sys.stdout.flush()

    e = bench_overlays(args.overlays, max(3, args.reps // 5))
    print(f"(e) {e['n']:,} override sets of the example ({len(ANSWERS)} answers), the same bits either way")
    row("one by one: evaluate per override set", e["alone"])
    row("one batch: evaluate_overlays", e["batch"])
    print(f"SPEEDUP {e['n']:,} override sets as one batch = {e['alone'] / e['batch']:.1f}x")
    sys.stdout.flush()

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
