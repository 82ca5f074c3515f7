"""Benchmarks of the risk run (a script, not a test; `make bench` runs it after bench/evaluation.py).

(a) Speed. inputs/example.yaml's risk: section at 10,000 samples on one core (sampling, one chunked batch of the
    book's decision lines, the statistics), the median of --reps runs, against the same process's evaluation of
    the base case of those lines (the ratio says what a sample costs against the one case a build computes).
(b) Memory. In a fresh process, the same risk at 1,000,000 samples; the peak resident memory of that process
    (resource.getrusage).

Printed for scripts: `RATE risk 10,000 samples = 1.6 s, 6,200 samples/s (target < 10 s)`, and
`MEMORY risk 1,000,000 samples = 1.1 GB peak (target < 2 GB)`.

Run: .venv/bin/python bench/risk.py [--reps N] [--samples N] [--million N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the target says
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

EXAMPLE = ROOT / "inputs" / "example.yaml"


def _setup() -> tuple:
    from workbook.models import define_models, load_all

    loaded = load_all(EXAMPLE)
    book, models = define_models(loaded)
    return loaded, book, models


def speed(reps: int, samples: int) -> None:
    from workbook.formula.evaluation import evaluate
    from workbook.models import decision_risk, risk_outputs

    loaded, book, models = _setup()
    runs, bases = [], []
    for _ in range(reps):
        t = time.perf_counter()
        decision_risk(book, loaded.risk, models.money, samples)
        runs.append(time.perf_counter() - t)
        t = time.perf_counter()
        evaluate(book, {}, risk_outputs(models.money), strict=False)
        bases.append(time.perf_counter() - t)
    took, base = statistics.median(runs), statistics.median(bases)
    print(f"RATE risk {samples:,} samples = {took:.2f} s, {samples / took:,.0f} samples/s (target < 10 s); "
          f"{took / base / samples:.2f}x the base case's evaluation per sample")


def memory(samples: int) -> None:
    code = ("import sys, resource; sys.path.insert(0, sys.argv[1]); from bench.risk import _setup; "
            "from workbook.models import decision_risk; loaded, book, models = _setup(); "
            f"decision_risk(book, loaded.risk, models.money, {samples}); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    peak = int(out.stdout.strip().splitlines()[-1]) * 1024 / 1e9
    print(f"MEMORY risk {samples:,} samples = {peak:.1f} GB peak (target < 2 GB), {time.perf_counter() - t:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--million", type=int, default=1_000_000)
    args = parser.parse_args()
    speed(args.reps, args.samples)
    memory(args.million)


if __name__ == "__main__":
    main()
