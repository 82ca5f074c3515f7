"""Python against LibreOffice: every formula cell of the sites in inputs/ and of hypothesis-generated sites.

The random sites are drawn from a fixed seed, so the same code passes or fails the same way on every run and
machine. A failure copies each failing site file into outputs/parity-failures/seed-<seed>/ with the commands
that rerun it; PARITY_SEED=<n> draws another set, PARITY_SITES=<n> more of them (the hunt for the next bug:
PARITY_SITES=2000 PARITY_EXTREMES=1, see README).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import xlsxwriter
from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import fixed_seed
from tests.parity import Outcome, build_all, check, record, write_site
from tests.strategies import EXTREMES, sites
from workbook.libreoffice.verify import verify_files

RANDOM_SITES = int(os.environ.get("PARITY_SITES", "200"))
SEED = fixed_seed("PARITY_SEED", 20261202)
PARTS = 4  # the random sites are checked in this many tests, which the test processes share
BATCH = 50
FAILURES = ROOT / "outputs" / "parity-failures"


def test_harness_really_recalculates(libreoffice: str, tmp_path: Path) -> None:
    """A deliberately wrong cached value must come back right, or the comparison proves nothing."""
    path = tmp_path / "wrong.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("S")
    ws.write_formula("A1", "=1+2", None, 99)  # wrong on purpose
    ws.write_formula("A2", "=A1*2", None, 6)  # right only after A1 is recalculated
    wb.close()
    [report] = verify_files([path])
    assert report.compared == 2
    assert report.problems == ["'S'!A1: Python 99 != LibreOffice 3 in =1+2"]


def test_example_site_matches_libreoffice(libreoffice: str, gnumeric: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cell of the example against LibreOffice, with no openpyxl load of either file: both are read in one
    pass over their XML (sheet_reader): 0.3 s for the recalculated example, where openpyxl took 1.0 s."""
    built = build_all([EXAMPLE], tmp_path / "built")
    loads: list[Path] = []
    real_load = openpyxl.load_workbook

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        loads.append(Path(path).resolve())
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(openpyxl, "load_workbook", counted)
    outcome = check(built, tmp_path)
    monkeypatch.undo()
    assert loads == []
    record("example", outcome)
    assert outcome.problems == []
    assert outcome.cells >= 40


def test_every_site_in_inputs_matches_libreoffice(libreoffice: str, gnumeric: str, tmp_path: Path) -> None:
    """Every formula cell of every site in inputs/ in LibreOffice and in Gnumeric (the master check TRUE in both,
    every IRR the same)."""
    files = sorted((ROOT / "inputs").glob("*.yaml"))
    outcome = check(build_all(files, tmp_path / "built"), tmp_path)
    record("inputs", outcome)
    assert outcome.problems == []
    assert outcome.gnumeric_cells == outcome.cells


def keep_reproducers(problems: list[str], site_files: list[Path]) -> Path:
    """Copy the site files that failed, and how to rerun them, where a developer finds them."""
    where = FAILURES / f"seed-{SEED}"
    where.mkdir(parents=True, exist_ok=True)
    failed = {p.split(":", 1)[0] for p in problems}
    for f in site_files:
        if f.name in failed:
            shutil.copy(f, where / f.name)
    lines = [f"# Parity failures, PARITY_SEED={SEED} PARITY_SITES={RANDOM_SITES} PARITY_EXTREMES={int(EXTREMES)}",
             "# Rerun one site:",
             *[f"python -m workbook build {where / name} -o /tmp/{Path(name).stem}.xlsx && "
               f"python -m workbook verify /tmp/{Path(name).stem}.xlsx" for name in sorted(failed)],
             "# What differed:", *problems[:200]]
    (where / "README.txt").write_text("\n".join(lines) + "\n")
    return where


@pytest.mark.long
@pytest.mark.parametrize("part", range(PARTS))
def test_random_sites_match_libreoffice(libreoffice: str, gnumeric: str, tmp_path: Path, part: int) -> None:
    """RANDOM_SITES valid random sites from SEED, built one by one and recalculated in batches of 50 (one soffice
    start each). Shrinking is off: a failure keeps each failing site file and the commands that rerun it. The
    sites are drawn in one sequence and checked in PARTS parts (site i in part i % PARTS), so the test processes
    of `make test` share them and the sites are the same however many there are."""
    pending: list[Path] = []
    total = Outcome()

    def flush() -> None:
        if not pending:
            return
        batch_dir = tmp_path / f"batch{total.workbooks}"
        outcome = check(build_all(list(pending), batch_dir / "built"), batch_dir)
        if outcome.problems:
            where = keep_reproducers(outcome.problems, list(pending))
            raise AssertionError(f"PARITY_SEED={SEED}: {len(outcome.problems)} cells differ; site files and the "
                                 f"commands to rerun them in {where}\n" + "\n".join(outcome.problems[:20]))
        pending.clear()
        total.add(outcome)

    counter = iter(range(10**6))

    @seed(SEED)
    @settings(max_examples=RANDOM_SITES, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(site=sites())
    def one(site: dict) -> None:
        index = next(counter)
        if index % PARTS != part:
            return
        pending.append(write_site(site, tmp_path / f"site{index:04d}.yaml"))
        if len(pending) >= BATCH:
            flush()

    one()
    flush()
    record(f"random (seed {SEED}{', extremes' if EXTREMES else ''}, part {part + 1} of {PARTS})", total)
    assert total.workbooks == len(range(part, RANDOM_SITES, PARTS))
    assert total.problems == []
