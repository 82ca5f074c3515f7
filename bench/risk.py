"""Benchmarks of the risk run (a script, not a test; `make bench` runs it after bench/evaluation.py).

(a) Speed. inputs/example.yaml's risk: section at 100,000 samples on one core (sampling, one chunked batch of the
    book's decision lines, the statistics), the median of --reps runs (one by default: 20 s of work), against the
    same process's evaluation of the base case of those lines (the ratio says what a sample costs against the one
    case a build computes). The target, under 10 s for 100,000 samples, is issue 48's.
(b) Memory. In a fresh process, the same risk at the largest number of samples a site may ask for (200,000,
    templates/limits.yaml); the peak resident memory of that process (resource.getrusage).
(c) The largest value, end to end. `python -m workbook build` of the example at that number of samples, in a
    fresh process: every command must stay under a minute at the largest allowed value (the range is bounded by
    the rate of (a)).

Printed for scripts: `RATE risk 100,000 samples = 21.06 s, 4,749 samples/s (target < 10 s)`,
`MEMORY risk 200,000 samples = 0.6 GB peak (target < 2 GB)` and `LARGEST build 200,000 samples = 43 s (target < 60 s)`.

Run: .venv/bin/python bench/risk.py [--reps N] [--samples N] [--largest N]
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
    from workbook.build import define_models, load_all

    loaded = load_all(EXAMPLE)
    book, models = define_models(loaded)
    return loaded, book, models


def speed(reps: int, samples: int) -> None:
    from workbook.build import decision_risk, risk_outputs
    from workbook.formula.evaluation import evaluate

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
            "from workbook.build import decision_risk; loaded, book, models = _setup(); "
            f"decision_risk(book, loaded.risk, models.money, {samples}); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    peak = int(out.stdout.strip().splitlines()[-1]) * 1024 / 1e9
    print(f"MEMORY risk {samples:,} samples = {peak:.1f} GB peak (target < 2 GB), {time.perf_counter() - t:.0f} s")


def largest_build(samples: int) -> None:
    """The example built at `samples` in a fresh process (the CLI, as a user runs it), wall time."""
    import tempfile

    import yaml

    with tempfile.TemporaryDirectory() as tmp:
        data = yaml.safe_load(EXAMPLE.read_text())
        data["risk"]["samples"] = samples
        site = Path(tmp) / "example.yaml"
        site.write_text(yaml.safe_dump(data, sort_keys=False))
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "workbook", "build", str(site), "-o", str(Path(tmp) / "x.xlsx")],
                       cwd=ROOT, check=True, capture_output=True)
        took = time.perf_counter() - t
    print(f"LARGEST build {samples:,} samples = {took:.0f} s (target < 60 s)")


def main() -> None:
    from workbook.analysis.risk.section import SETTINGS

    largest = int(next(s for s in SETTINGS if s.key == "risk.samples").hi)
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--largest", type=int, default=largest)
    args = parser.parse_args()
    speed(args.reps, args.samples)
    memory(args.largest)
    largest_build(args.largest)


if __name__ == "__main__":
    main()
