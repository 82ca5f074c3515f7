"""No figure prints as ###: every number of every workbook of inputs/, as its number format shows it at its font,
fits its column (the Sensitivity sheet's break-even above 100% printed "never (over 100%)", wider than its column,
as ### on the example and B200)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import too_wide
from tests.parity import build_all


@pytest.mark.slow
def test_every_figure_fits_its_column(tmp_path: Path) -> None:
    built = build_all(sorted((ROOT / "inputs").glob("*.yaml")), tmp_path)
    problems = [f"{b.site_file.name}: {p}" for b in built for p in too_wide(b.xlsx)]
    assert problems == []
