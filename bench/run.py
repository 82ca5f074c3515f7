"""Benchmarks of the tool against the same work done by hand (a script, not a test; `make bench` runs it).

(a) Workbook build. The tool builds inputs/example.yaml end to end (read and validate the site file, define
    every line, evaluate it, render and write the .xlsx with styles, validation, names and the charts), without
    its risk: section: 10,000 evaluations of the decision are analysis no writing baseline does (bench/risk.py
    times them; the build with them is printed beside the ratio, for scale). The
    baseline is raw xlsxwriter writing the SAME file through its normal API: every xlsxwriter call of one
    build is recorded (bench/replay.py) and replayed as straight-line Python, one `write_string`,
    `write_number`, `write_formula` (with its cached value), `add_format`, `define_name`, `data_validation`...
    per call, so the same cells, formats, names and cached values (and validation, charts, page setup).
    Before timing, the baseline's bytes are checked equal to the tool's. Both are timed in the same run,
    interleaved, several repetitions; the target line is `RATIO build = median(tool) / median(baseline)`.
    The tool's write step alone (save of an already evaluated model) is shown beside it.

(b) Many sites at once. The power chain of 100,000 random sites, evaluated by Book.evaluate with numpy arrays
    as the power inputs, against the same arithmetic written directly in numpy in this script. The two
    results are compared line by line (np.allclose; checks exactly) before any timing is reported, so the
    comparison is of the same numbers. The tool's book here holds the power chain only (its inputs and
    lines, defined by workbook.models.power.power; lines it takes from other models become inputs, random like the
    rest); the whole example book is timed once too, for scale.

Run: .venv/bin/python bench/run.py [--reps N] [--sites N]
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from xlsxwriter.worksheet import Worksheet

from workbook.analysis.scenarios import lines_used
from workbook.api import build, load, save
from workbook.book.book import Book
from workbook.book.sheets import INPUTS
from workbook.formula.overrides import checked
from workbook.models.base import Inputs, Scope
from workbook.models.network import fabric
from workbook.models.power import power

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay import recording  # bench/ is not a package

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "inputs" / "example.yaml"


def median_time(fn: Callable[[], Any], reps: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


# ---------------------------------------------------------------- (a) build vs raw xlsxwriter


def write_baseline(replay: Callable[[Any], None], path: Path) -> None:
    """Raw xlsxwriter writing the tool's workbook (rendered in memory, then put on disk, as the tool does)."""
    buffer = io.BytesIO()
    replay(buffer)
    path.write_bytes(buffer.getvalue())


def without_risk(tmp: Path) -> Path:
    """The example site file without its risk: section (the Monte Carlo is work no baseline of writing does; it is
    timed on its own by bench/risk.py, and beside the ratio below)."""
    import yaml

    data = yaml.safe_load(EXAMPLE.read_text())
    data.pop("risk", None)
    path = tmp / "example.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def bench_build(reps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-") as d:
        tmp = Path(d)
        tool_out, base_out, write_out = tmp / "tool.xlsx", tmp / "baseline.xlsx", tmp / "write.xlsx"
        site = without_risk(tmp)
        build(site, tool_out)  # warm-up (imports, pint registry, catalog)
        with recording() as rec:
            model, _ = build(site, tool_out)
        replay = rec.compile()
        write_baseline(replay, base_out)
        # the baseline is the same file: same cells, formats, names, cached values (and the rest), byte for byte
        assert base_out.read_bytes() == tool_out.read_bytes(), "bench: the baseline does not write the tool's file"

        tool_t, base_t, write_t, risk_t = [], [], [], []
        for k in range(reps):  # interleaved, so drift in machine load hits both alike
            tool_t.append(median_time(lambda: build(site, tool_out), 1)[0])
            base_t.append(median_time(lambda: write_baseline(replay, base_out), 1)[0])
            write_t.append(median_time(lambda: save(model, write_out), 1)[0])
            if k < 3:  # the example as it is, its risk: section's samples evaluated too
                risk_t.append(median_time(lambda: build(EXAMPLE, tool_out), 1)[0])
        calls = [name for _, name, _, _, _ in rec.calls]
    return {"tool": statistics.median(tool_t), "baseline": statistics.median(base_t),
            "write": statistics.median(write_t), "with_risk": statistics.median(risk_t), "calls": len(calls),
            "cells": sum(len(cells) for obj in rec.objects if isinstance(obj, Worksheet)
                         for cells in obj.table.values()),
            "formulas": calls.count("write_formula"), "formats": calls.count("add_format"),
            "names": calls.count("define_name"), "validations": calls.count("data_validation"),
            "charts": calls.count("add_chart")}


# ---------------------------------------------------------------- (b) 100,000 sites: Book.evaluate vs numpy


def power_book(model: Any) -> tuple[Book, dict[str, float]]:
    """The power chain alone: its inputs and lines, as workbook.models.power.power defines them.

    The power chain reads the fabric's outputs (FabricOut); here each is an input holding the example's value.
    Returns the book and those stand-ins' values."""
    book = Book(model.site.name)
    stand_in = book.sheet(INPUTS, fabric.PREFIX)
    stubs = {f"{fabric.PREFIX}.{f.name}": float(model.values[f"{fabric.PREFIX}.{f.name}"].reshape(-1)[0])
             for f in dataclasses.fields(fabric.FabricOut)}
    outs = {}
    for line_id, v in stubs.items():
        line = model.book.lines[line_id]
        outs[line_id.split(".", 1)[1]] = stand_in.input(line_id.split(".", 1)[1], line.label, line.unit_text, v,
                                                         "stand-in for the bench")
    inputs = Inputs(book, model.site, power.TITLE, power.PREFIX, power.INPUTS)
    if not inputs.has("storage_power"):  # sized on the Reliability sheet: its value as the power chain's input
        sized = model.book.lines["power.storage_load"]
        inputs.given("storage_power", book.sheet(INPUTS, power.PREFIX).input(
            "storage_power", sized.label, sized.unit_text, float(model.values[sized.id].reshape(-1)[0]),
            "stand-in for the bench: the storage the Reliability sheet sizes"))
    power.define(Scope(book, power.PREFIX), inputs, fabric.FabricOut(**outs))
    return book, stubs


def _read(book: Book) -> set[str]:
    """The ids of the lines some formula of the book reads."""
    return set().union(*(lines_used(line.formula) for line in book.lines.values() if line.formula is not None))


def random_power_inputs(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    c = rng.choice
    u = rng.uniform
    return {
        "power.gpus": rng.integers(1, 40_001, n).astype(float),
        "power.gpu_tdp": u(100, 1500, n),
        "power.gpus_per_node": c([4.0, 8.0], n),
        "power.cpus_per_node": c([1.0, 2.0], n),
        "power.cpu_tdp": u(100, 500, n),
        "power.memory_power": u(100, 600, n),
        "power.nics_per_node": c(np.arange(1.0, 13.0), n),
        "power.nic_power": u(10, 40, n),
        "power.baseboard_power": u(100, 800, n),
        "power.node_storage_power": u(50, 400, n),
        "power.fan_power": u(200, 2500, n),
        "power.psu_efficiency": u(0.85, 0.97, n),
        "power.psus_per_node": c([2.0, 4.0, 6.0, 8.0], n),
        "power.psus_needed": c([1.0, 2.0], n),
        "power.psu_rating": u(1.5, 5.5, n),
        "power.feed_loss_share": u(0.0, 1.0, n),
        "power.node_height": c([2.0, 4.0, 6.0, 8.0, 10.0], n),
        "power.rack_units": c([42.0, 48.0, 52.0], n),
        "power.rack_power_limit": u(10, 150, n),
        "power.network_power": u(0, 2000, n),
        "power.optics_power": u(0, 1000, n),
        "power.storage_power": u(0, 1000, n),
        "power.management_power": u(0, 200, n),
        "power.pue": u(1.05, 2.0, n),
        "power.sync_peak_factor": u(1.0, 1.5, n),
        "power.feed_headroom": u(0.0, 0.3, n),
        "power.feed_block_size": u(1.0, 5.0, n),
        "power.feed_redundancy_multiplier": c([1.0, 2.0], n),
        "power.feed_redundancy_spares": c([0.0, 1.0, 2.0], n),
        "power.site_available_power": u(1.0, 500.0, n),
        "power.node_max_input": np.where(rng.random(n) < 0.5, 0.0, u(5, 20, n)),
        "power.hosts_per_node": np.ones(n),
        "power.hall_rows": c(np.arange(1.0, 40.0), n),
        "power.racks_per_row": c(np.arange(4.0, 40.0), n),
        "power.rack_width": u(0.6, 0.8, n),
        "power.row_pitch": u(2.0, 3.5, n),
        "power.cable_slack": u(2, 10, n),
        "power.pue_annual": u(1.05, 2.0, n),
        "power.power_factor": u(0.8, 1.0, n),
        "power.ups_block_size": u(250, 2000, n),
        "power.ups_redundancy_multiplier": c([1.0, 2.0], n),
        "power.ups_redundancy_spares": c([0.0, 1.0], n),
        "power.rack_voltage": c([208.0, 400.0, 415.0], n),
        "power.pdu_breaker": c([30.0, 32.0, 60.0, 63.0], n),
        "power.continuous_load_share": u(0.7, 1.0, n),
        "power.max_pdus_per_rack": c([4.0, 6.0, 8.0], n),
        "power.switches_per_network_rack": c([8.0, 16.0, 20.0], n),
        "power.support_rack_power": u(5, 30, n),
        "power.gpu_throughput": u(0.5, 5, n),  # read by the envelope, not by the power chain
    }


def power_in_numpy(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The power chain (PUE facility model) written directly in numpy: W inputs, kW and MW results."""
    g = x.get
    fabric = "power.network_power" not in x  # switch and optics power come from the fabric model
    network = x["fabric.switches_power"] if fabric else x["power.network_power"]
    switch_optics = x["fabric.switch_optics_power"] if fabric else x["power.optics_power"]
    node_side = x["fabric.node_optics_power"] if fabric else 0.0
    node_gpu = g("power.gpus_per_node") * g("power.gpu_tdp") / 1000
    node_cpu = g("power.cpus_per_node") * g("power.cpu_tdp") / 1000
    node_nic = g("power.nics_per_node") * g("power.nic_power") / 1000
    node_dc = node_gpu + node_cpu + node_nic + (g("power.memory_power") + g("power.baseboard_power")
                                                + g("power.node_storage_power") + g("power.fan_power")) / 1000
    component = node_dc / g("power.psu_efficiency")
    node = np.maximum(component, g("power.node_max_input"))
    excursion = node_gpu * (g("power.sync_peak_factor") - 1) / g("power.psu_efficiency")
    node_peak = np.maximum(component + excursion, g("power.node_max_input"))
    nodes = np.ceil(g("power.gpus") / g("power.gpus_per_node"))
    per_rack = np.maximum(1, np.minimum(np.floor(g("power.rack_units") / g("power.node_height")),
                                        np.floor(g("power.rack_power_limit") / node_peak)))
    racks = np.ceil(nodes / per_rack)
    rack_peak = per_rack * node_peak
    network_racks = np.ceil(x["fabric.switches_total"] / g("power.switches_per_network_rack"))
    storage_racks = np.ceil(g("power.storage_power") / g("power.support_rack_power"))
    mgmt_racks = np.ceil(g("power.management_power") / g("power.support_rack_power"))
    support = network_racks + storage_racks + mgmt_racks
    network_rack_power = (network + switch_optics) / np.maximum(network_racks, 1)
    per_amp = np.sqrt(3.0) * g("power.rack_voltage") * g("power.power_factor") / 1000
    pdu = per_amp * g("power.pdu_breaker") * g("power.continuous_load_share")
    per_feed = np.ceil(rack_peak / pdu)
    support_pdus = 2 * np.ceil(np.maximum(network_rack_power, g("power.support_rack_power")) / pdu)
    gpu_board = g("power.gpus") * g("power.gpu_tdp") / 1000
    compute = nodes * node
    node_optics = node_side / g("power.psu_efficiency")  # node-side transceivers at the wall
    added = np.maximum(0, node_optics - nodes * (node - component))  # what the node's design power does not hold
    optics = switch_optics + added
    it = compute + network + optics + g("power.storage_power") + g("power.management_power")
    facility = it * g("power.pue")
    peak_it = it + nodes * (node_peak - node)
    peak = peak_it * g("power.pue")
    critical = peak_it * (1 + g("power.feed_headroom"))
    feed = critical * g("power.pue") / 1000
    blocks_n = np.ceil(feed / g("power.power_factor") / g("power.feed_block_size"))
    blocks = blocks_n * g("power.feed_redundancy_multiplier") + g("power.feed_redundancy_spares")
    positions = g("power.hall_rows") * g("power.racks_per_row")
    design_dc = node * g("power.psu_efficiency")  # the node's PSUs: N of them carry it, half on each feed
    one_feed = np.floor(g("power.psus_per_node") / 2) * g("power.psu_rating")
    out = {
        "power.node_max_below_components": (g("power.node_max_input") > 0) & (g("power.node_max_input") < component),
        "power.node_design_dc": design_dc,
        "power.node_psus_redundant": g("power.psus_per_node") - g("power.psus_needed"),
        "power.node_psus_per_feed": np.floor(g("power.psus_per_node") / 2), "power.node_one_feed_power": one_feed,
        "power.node_one_feed_share": one_feed / design_dc,
        "power.psus_carry_node": g("power.psus_needed") * g("power.psu_rating") >= design_dc,
        "power.one_feed_carries_node": one_feed / design_dc >= g("power.feed_loss_share"),
        "power.node_gpu_power": node_gpu, "power.node_cpu_power": node_cpu, "power.node_nic_power": node_nic,
        "power.node_dc_power": node_dc, "power.node_component_power": component,
        "power.node_psu_loss": component - node_dc, "power.node_power": node,
        "power.node_unexplained_power": node - component, "power.node_gpu_excursion": excursion,
        "power.node_peak_power": node_peak,
        "power.nodes": nodes, "power.nodes_per_rack": per_rack,
        "power.racks": racks, "power.rack_power": per_rack * node, "power.rack_peak_power": rack_peak,
        "power.network_racks": network_racks, "power.storage_racks": storage_racks,
        "power.management_racks": mgmt_racks, "power.support_racks": support,
        "power.racks_total": racks + support, "power.rack_positions": positions,
        "power.racks_fit_hall": racks + support <= positions,
        "power.phase_factor": np.full_like(nodes, np.sqrt(3.0)), "power.power_per_amp": per_amp,
        "power.pdu_capacity": pdu, "power.pdus_per_feed": per_feed, "power.pdus_per_rack": 2 * per_feed,
        "power.rack_feed_current": rack_peak / (per_amp * per_feed),
        "power.breaker_continuous_current": g("power.pdu_breaker") * g("power.continuous_load_share"),
        "power.network_rack_power": network_rack_power,
        "power.network_racks_within_limit": network_rack_power <= g("power.rack_power_limit"),
        "power.support_rack_pdus": support_pdus, "power.pdus": racks * 2 * per_feed + support * support_pdus,
        "power.pdus_fit_rack": 2 * per_feed <= g("power.max_pdus_per_rack"),
        "power.gpu_board_power": gpu_board, "power.compute_power": compute,
        "power.node_optics_wall_power": node_optics, "power.node_optics_added_power": added,
        "power.it_load": it, "power.it_energy_load": it - nodes * (node - component) + (node_optics - added),
        "power.facility_power": facility, "power.facility_overhead": facility - it,
        "power.pue_energy": g("power.pue_annual"),
        "power.peak_it_load": peak_it, "power.critical_it_capacity": critical,
        "power.peak_facility_power": peak, "power.contracted_feed": feed,
        "power.contracted_feed_apparent": feed / g("power.power_factor"),
        "power.feed_blocks_n": blocks_n, "power.feed_blocks": blocks,
        "power.installed_supply": blocks * g("power.feed_block_size"),
        "power.gpu_share": gpu_board / facility, "power.gpus_per_mw": g("power.gpus") / feed,
        "power.it_share": it / facility,
        "power.rack_within_limit": rack_peak <= g("power.rack_power_limit"),
        "power.feed_within_site": feed <= g("power.site_available_power"),
        "power.whole_nodes": nodes * g("power.gpus_per_node") <= g("power.gpus"),
    }
    if fabric:
        out["power.network_power"] = network
    out["power.optics_power"] = optics
    return out


def bench_many_sites(n_sites: int, reps: int) -> dict[str, Any]:
    model = load(EXAMPLE)
    if model.site.get("power.facility_model").magnitude != "pue":
        raise SystemExit("bench: the direct numpy power chain is written for the PUE facility model")
    book, stubs = power_book(model)
    # the power-only book reproduces the example's power chain exactly
    alone = book.evaluate()
    for line in book.lines.values():
        if line.kind != "input":
            assert np.array_equal(alone[line.id], model.values[line.id]), f"{line.id}: power-only book differs"

    rng = np.random.default_rng(20260101)
    overrides = {k: v for k, v in random_power_inputs(rng, n_sites).items()
                 if k in book.lines and book.lines[k].kind == "input"}
    for line_id, v in stubs.items():
        overrides[line_id] = v * rng.uniform(0.5, 1.5, n_sites)
    missing = [line.id for line in book.lines.values() if line.kind == "input" and line.id not in overrides]
    if missing:
        raise SystemExit(f"bench: no random values for the power inputs {missing}; add them to the bench")
    x = dict(overrides)

    tool = book.evaluate(overrides)
    direct = power_in_numpy(x)
    calc_lines = [line.id for line in book.lines.values() if line.kind != "input"]
    assert sorted(calc_lines) == sorted(direct), (
        f"bench: the power chain's lines changed: {sorted(set(calc_lines) ^ set(direct))}")
    for line_id, want in direct.items():
        got = tool[line_id].reshape(-1)
        if want.dtype == bool:
            assert np.array_equal(got.astype(bool), want), f"{line_id}: the tool and numpy disagree"
        else:
            # to 1e-12 of the line's scale: a difference of nearly equal lines (node power - component sum)
            # keeps no relative precision, and the tool subtracts as LibreOffice does (approxSub)
            scale = float(np.max(np.abs(want))) if want.size else 0.0
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12 * scale), f"{line_id}: the tool and numpy disagree"

    tool_t, np_t, checked_t = [], [], []
    for _ in range(reps):  # like for like: the hand numpy checks no input, so neither does this evaluation
        tool_t.append(median_time(lambda: book.evaluate(overrides, ranges=False), 1)[0])
        np_t.append(median_time(lambda: power_in_numpy(x), 1)[0])
        checked_t.append(median_time(lambda: checked(book, overrides), 1)[0])

    # for scale: the whole example book (every model, the timeline) with the same power inputs, one run on a
    # tenth of the sites (its series lines hold sites x periods values each)
    full = model.book
    few = max(1, n_sites // 10)
    full_overrides = {k: v[:few] for k, v in overrides.items() if k in full.lines and full.lines[k].kind == "input"}
    try:
        full_time = median_time(lambda: full.evaluate(full_overrides), 1)[0]
    except Exception:  # random power inputs may be invalid for another model; the scale figure is optional
        full_time = float("nan")
    return {"tool": statistics.median(tool_t), "numpy": statistics.median(np_t), "full": full_time,
            "checked": statistics.median(checked_t), "inputs": len(overrides),
            "full_sites": few, "lines": len(direct), "full_lines": len(full.lines), "power_lines": len(book.lines),
            "periods": full.periods, "stubs": sorted(stubs.keys() & _read(book))}


def parity_loads() -> None:
    """The test suite's LibreOffice parity (tests/parity.py) on the example: openpyxl loads per recalculated
    file, counted by wrapping openpyxl.load_workbook (skipped without LibreOffice)."""
    import shutil

    import openpyxl

    sys.path.insert(0, str(ROOT))  # tests/ is a package at the repository's root
    from tests import parity

    if shutil.which("soffice") is None:
        print("LOADS parity: skipped (no LibreOffice; `make test` installs it)")
        return
    real, loads = openpyxl.load_workbook, []

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        loads.append(path)
        return real(path, *args, **kwargs)

    with tempfile.TemporaryDirectory() as tmp:
        built = parity.build_all([EXAMPLE], Path(tmp) / "built")
        openpyxl.load_workbook = counted
        try:
            outcome = parity.check(built, Path(tmp))
        finally:
            openpyxl.load_workbook = real
    assert not outcome.problems, outcome.problems[:3]
    print(f"(parity) the example in LibreOffice: {outcome.cells:,} formula cells and {outcome.lines} lines "
          "compared, no difference")
    print(f"LOADS parity openpyxl loads per recalculated file = {len(loads)} (target 0: one pass over the XML)")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=15, help="repetitions of each timing (default 15)")
    p.add_argument("--sites", type=int, default=100_000, help="random sites for (b) (default 100,000)")
    args = p.parse_args(argv)

    def row(label: str, seconds: float) -> None:
        print(f"    {label:<64} {seconds * 1000:9.1f} ms")

    a = bench_build(args.reps)
    print(f"(a) build inputs/example.yaml (without its risk: section) -> .xlsx, median of {args.reps} interleaved "
          "runs")
    print(f"    the same file, byte for byte: {a['cells']:,} cells ({a['formulas']:,} formulas with cached values), "
          f"{a['formats']} formats, {a['names']} defined names, {a['validations']} validations, "
          f"{a['charts']} charts")
    row(f"baseline: raw xlsxwriter writing that file ({a['calls']:,} calls of its normal API)", a["baseline"])
    row("tool: whole build (read, validate, define, evaluate, write)", a["tool"])
    row("tool: write step only (write_book of an evaluated model)", a["write"])
    print(f"    write step only / baseline = {a['write'] / a['baseline']:.2f}x")
    print(f"RATIO build = {a['tool'] / a['baseline']:.2f}x (target <= 1.1x)")
    row("for scale: the example as it is, with its risk: section's samples (median of 3)", a["with_risk"])
    sys.stdout.flush()

    parity_loads()
    reps = max(3, args.reps // 2)
    b = bench_many_sites(args.sites, reps)
    print(f"(b) power chain of {args.sites:,} random sites at once, median of {reps} interleaved runs")
    print(f"    same numbers: {b['lines']} lines compared, np.allclose(rtol=1e-12, atol=1e-12 x the line's "
          "largest value) and checks equal: yes")
    if b["stubs"]:
        print(f"    lines from other models, random here like the inputs: {', '.join(b['stubs'])}")
    row("numpy written by hand", b["numpy"])
    row(f"Book.evaluate of the power chain ({b['power_lines']} lines; ranges=False, as the numpy checks none)",
        b["tool"])
    row(f"  and its default range checks of the {b['inputs']} inputs given ({args.sites:,} values each)", b["checked"])
    print(f"RATIO power-chain batch = {b['tool'] / b['numpy']:.2f}x (target <= 3x)")
    row(f"for scale, one run: whole example book ({b['full_lines']} lines, {b['periods']} periods), "
        f"{b['full_sites']:,} sites", b["full"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
