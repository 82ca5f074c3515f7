"""Benchmark of explain (a script, not a test; `make bench` runs it after bench/risk.py).

The example against a copy with twelve inputs changed, bridged by input: the exact Shapley values over 12 groups
(4,096 combinations, one batch of overlays), and over 20 inputs (estimated from 500 sampled orders); each the
median of --reps runs, against the same process's reading and definition of one version of the site (what any
command pays before it evaluates). The two versions are read once; the times are the bridge's own.

Printed for scripts: `RATIO explain 12 groups exact = 1.4x (target <= 3x)` and for 20 groups sampled (<= 6x).

Run: .venv/bin/python bench/explain.py [--reps N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGETS = {12: 3.0, 20: 6.0}  # the bridge against one version's reading and definition: exact, sampled
CHANGES = [("tco", "utilisation", 0.8), ("tco", "electricity_price", "0.09 USD/kWh"), ("power", "pue", 1.35),
           ("tco", "colo_price", "190 USD/kW/month"), ("tco", "on_demand_price", "2.8 USD/GPU/hour"),
           ("tco", "reserved_price", "1.9 USD/GPU/hour"), ("tco", "rent_price_change", -0.12),
           ("tco", "switch_price", "28000 USD"), ("tco", "transceiver_price", "900 USD"),
           ("tco", "cable_price", "140 USD"), ("tco", "oob_switch_price", "7500 USD"),
           ("tco", "fit_out_capex", "160000 USD"), ("power", "gpus", 2048), ("bom", "power_cord_price", "30 USD"),
           ("bom", "dac_price", "110 USD"), ("bom", "licence_price", "550 USD"), ("bom", "install_price", "2600 USD"),
           ("bom", "cabling_price", "22 USD"), ("bom", "hose_price", "320 USD"), ("bom", "manifold_price", "4200 USD")]


def _changed(folder: Path, n: int) -> Path:
    from tests.helpers import example_with

    return example_with(folder, f"changed-{n}", risk=False, **{f"{section}.{key}": value
                                                              for section, key, value in CHANGES[:n]})


def _median(reps: int, run) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    from workbook.explain.bridge import explain
    from workbook.explain.versions import version

    with tempfile.TemporaryDirectory() as tmp:
        from tests.helpers import example_with

        base = example_with(Path(tmp), "example", risk=False)
        old = version(base)
        one = _median(args.reps, lambda: version(base))
        for n in (12, 20):
            new = version(_changed(Path(tmp), n))
            bridge = explain(old, new, by_input=True)
            assert len(bridge.groups) == n, [g.name for g in bridge.groups]
            took = _median(args.reps, lambda new=new: explain(old, new, by_input=True))
            how = "exact" if bridge.attribution.exact else "sampled"
            print(f"RATIO explain {n} groups {how} = {took / one:.2f}x (target <= {TARGETS[n]:g}x): {took:.2f} s, "
                  f"{bridge.attribution.coalitions:,} combinations; one version read and defined {one:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
