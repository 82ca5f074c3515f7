"""An air-cooled node asks for no coolant loop (issue 44, item 11): `init` for an HGX H200 server marks no key
REQUIRED that only a liquid-cooled part needs (Spec.liquid), the file it writes builds once its REQUIRED keys are
filled, and the Summary of an air-cooled site collapses the coolant loop's rows (flow, CDUs, the cold plate's time
to its limit) under a heading that says why, as the Cooling sheet does."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest

from tests.conftest import EXAMPLE
from tests.helpers import accepting_throttling, fill_required, invoke
from workbook.models import all_specs

LIQUID = {s.key for s in all_specs() if s.liquid}
HEADING = "Cooling: the coolant loop, its CDUs and the cold plates"


def init(tmp_path: Path, node: str, gpu: str = "H200-SXM") -> tuple[Path, list[str]]:
    path = tmp_path / f"{node}.yaml"
    proc = invoke("init", "--gpu", gpu, "--node", node, "-o", path)
    assert proc.returncode == 0, proc.stderr
    return path, proc.stdout.splitlines()[0].split("REQUIRED: ")[1].rstrip(")").split(", ")


def test_the_liquid_keys_are_those_of_the_coolant_loop() -> None:
    assert {"cooling.coolant_supply_temperature", "cooling.allowed_rise", "cooling.flow_per_kw",
                      "cooling.rack_manifold_flow", "cooling.cold_plate_volume", "cooling.cdu_redundancy"} == LIQUID


def test_init_for_an_air_cooled_node_requires_no_liquid_key(tmp_path: Path) -> None:
    """HGX H200 (every liquid share 0 in the catalog): 32 keys REQUIRED, none of them the loop's; each liquid key
    is a comment with its example and why it is not needed."""
    path, required = init(tmp_path, "HGX-H200-Supermicro")
    assert len(required) == 32 and not LIQUID & set(required), required
    text = path.read_text()
    for key in LIQUID:
        name = key.split(".")[1]
        assert re.search(rf"^  # {name}: \S", text, flags=re.M), name
    assert "used when a part is liquid-cooled (none is here)" in text


def test_a_liquid_cooled_node_still_requires_them(tmp_path: Path) -> None:
    """GB200 NVL72 (cold plates on its GPUs, CPUs and switch chips): every liquid key is REQUIRED."""
    _, required = init(tmp_path, "GB200-NVL72", "B200-GB200")
    assert set(required) >= LIQUID


@pytest.mark.slow
def test_the_air_cooled_first_site_builds_and_its_summary_collapses_the_loop(tmp_path: Path) -> None:
    """Filled in, the HGX H200 site builds with its checks passing; its Summary's loop rows (coolant flow 0, 0 CDUs,
    a cold plate's 36 s) are hidden under a heading that says why; the stand-ins' source says they are not used."""
    path, _ = init(tmp_path, "HGX-H200-Supermicro")
    path.write_text(accepting_throttling(fill_required(path.read_text())))
    out = tmp_path / "first.xlsx"
    proc = invoke("build", path, "-o", out)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("; checks pass)"), proc.stdout + proc.stderr
    inputs = [c.value for row in openpyxl.load_workbook(out)["Inputs"].iter_rows() for c in row
              if isinstance(c.value, str)]
    assert sum("not used: no part is liquid-cooled" in t for t in inputs) >= len(LIQUID)
    ws = openpyxl.load_workbook(out)["Summary"]
    rows = {r: " ".join(str(c.value) for c in ws[r] if c.value is not None) for r in range(1, ws.max_row + 1)}
    head = next(r for r, t in rows.items() if t.startswith(HEADING))
    assert "does not apply: every liquid share is 0" in rows[head], rows[head]
    loop = [r for r, t in rows.items() if r > head and re.search(r"summary_cooling_(coolant_flow|cdus_|cold_plate)",
                                                                 t)]
    assert len(loop) == 5 and all(ws.row_dimensions[r].hidden for r in loop)
    flow = next(r for r, t in rows.items() if "summary_cooling_air_flow" in t)
    assert not ws.row_dimensions[flow].hidden


@pytest.mark.slow
def test_a_liquid_cooled_site_shows_its_loop(tmp_path: Path) -> None:
    """The B200 liquid build: the same heading, with no reason, its rows shown."""
    site = EXAMPLE.parent / "b200-liquid-build.yaml"
    out = tmp_path / "b200.xlsx"
    assert invoke("build", site, "-o", out).returncode == 0
    ws = openpyxl.load_workbook(out)["Summary"]
    rows = {r: " ".join(str(c.value) for c in ws[r] if c.value is not None) for r in range(1, ws.max_row + 1)}
    head = next(r for r, t in rows.items() if t.startswith(HEADING))
    assert rows[head] == HEADING
    cdus = next(r for r, t in rows.items() if "summary_cooling_cdus_installed" in t)
    assert not ws.row_dimensions[cdus].hidden
