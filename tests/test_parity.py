"""Python against LibreOffice: every formula cell of the example and of 200+ hypothesis-generated sites."""

from __future__ import annotations

from pathlib import Path

import xlsxwriter
from hypothesis import HealthCheck, Phase, given, settings

from tests.conftest import EXAMPLE, ROOT
from tests.parity import Outcome, build_all, check, record, write_site
from tests.strategies import sites
from workbook.verify import verify_files

RANDOM_SITES = 200
BATCH = 50


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


def test_example_site_matches_libreoffice(libreoffice: str, tmp_path: Path) -> None:
    built = build_all([EXAMPLE], tmp_path / "built")
    outcome = check(built, tmp_path)
    record("example", outcome)
    assert outcome.problems == []
    assert outcome.cells >= 40


def test_every_site_in_inputs_matches_libreoffice(libreoffice: str, tmp_path: Path) -> None:
    files = sorted((ROOT / "inputs").glob("*.yaml"))
    outcome = check(build_all(files, tmp_path / "built"), tmp_path)
    assert outcome.problems == []


def test_random_sites_match_libreoffice(libreoffice: str, tmp_path: Path) -> None:
    """200 valid random sites, built one by one and recalculated in batches of 50 (one soffice start each).

    Shrinking is off: a failure names the site file, whose YAML stays in tmp_path for reproduction.
    """
    pending: list[Path] = []
    total = Outcome()

    def flush() -> None:
        if not pending:
            return
        batch_dir = tmp_path / f"batch{total.workbooks}"
        outcome = check(build_all(list(pending), batch_dir / "built"), batch_dir)
        pending.clear()
        total.add(outcome)
        assert outcome.problems == [], "\n".join(outcome.problems[:20])

    counter = iter(range(10**6))

    @settings(max_examples=RANDOM_SITES, deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(site=sites())
    def one(site: dict) -> None:
        pending.append(write_site(site, tmp_path / f"site{next(counter):04d}.yaml"))
        if len(pending) >= BATCH:
            flush()

    one()
    flush()
    record("random", total)
    assert total.workbooks == RANDOM_SITES
    assert total.problems == []
