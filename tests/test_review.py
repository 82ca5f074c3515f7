"""import-inputs: a reviewer's edits on the Inputs sheet go back into the site file, or are refused whole.

One example workbook is built per module; each test edits a copy with openpyxl as a reviewer would (rows found
by the Name column) and runs the command's entry point.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import openpyxl
import pytest
import yaml

from tests.conftest import EXAMPLE
from tests.helpers import ATTACK_MEMORY, example_workbook, flooded
from tests.helpers import run as run_cli
from workbook import cli
from workbook.api import explain, load
from workbook.book.sheets import INPUTS
from workbook.excel.layout import HEADER_ROW, LABEL, NAME, NOTE, VALUE
from workbook.explain.report import bridge_lines
from workbook.failures import EXIT_INPUT
from workbook.returned import review
from workbook.returned.safe_xlsx import UntrustedFile
from workbook.site.quotes import quotes_path

Sheet = Any  # an openpyxl worksheet
Edit = Callable[[Sheet, dict[str, int]], None]  # changes a worksheet, given each Name's row (from 1)


@dataclass
class Outcome:
    status: int
    out: str
    err: str
    error: Exception | None  # what the command refused with, as raised


def run(reviewed: Path, site: Path) -> Outcome:
    """`python -m workbook import-inputs REVIEWED --site SITE` in this process, keeping the exception it
    reports so its attributes can be checked."""
    seen: list[Exception] = []
    describe = cli.describe

    def keep(exc: Exception) -> tuple[int, str]:
        seen.append(exc)
        return describe(exc)

    out, err = io.StringIO(), io.StringIO()
    cli.describe = keep
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["import-inputs", str(reviewed), "--site", str(site)])
    finally:
        cli.describe = describe
    return Outcome(status, out.getvalue(), err.getvalue(), seen[0] if seen else None)


def name_rows(ws: Sheet) -> dict[str, int]:
    return {c.value: c.row for c in ws[openpyxl.utils.get_column_letter(NAME + 1)] if isinstance(c.value, str)}


def reviewed_copy(xlsx: Path, out: Path, values: dict[str, Any] | None = None, edit: Edit | None = None) -> Path:
    """The workbook as a reviewer returns it: opened, input values typed in (by Name), saved."""
    wb = openpyxl.load_workbook(xlsx)
    ws = wb[INPUTS]
    rows = name_rows(ws)
    for name, value in (values or {}).items():
        ws.cell(rows[name], VALUE + 1).value = value
    if edit is not None:
        edit(ws, rows)
    wb.save(out)
    return out


def cell_of(rows: dict[str, int], name: str) -> str:
    """The Inputs sheet's value cell of a line, as refusals name it (Inputs!D31)."""
    return f"{INPUTS}!{openpyxl.utils.get_column_letter(VALUE + 1)}{rows[name]}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("built")
    site = folder / "example.yaml"
    shutil.copyfile(EXAMPLE, site)
    shutil.copyfile(example_workbook()[2], folder / "example.xlsx")  # the process's build of the same file
    (folder / "example.xlsx").chmod(0o644)
    return site, folder / "example.xlsx"


@pytest.fixture(scope="module")
def rows(built: tuple[Path, Path]) -> dict[str, int]:
    """Each Name's row on the built workbook's Inputs sheet (from 1)."""
    return name_rows(openpyxl.load_workbook(built[1])[INPUTS])


@pytest.fixture
def copies(built: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """This test's own site file and workbook."""
    site, xlsx = tmp_path / "example.yaml", tmp_path / "example.xlsx"
    shutil.copyfile(built[0], site)
    shutil.copyfile(built[1], xlsx)
    return site, xlsx


# --- a review written back ---------------------------------------------------------------------------------------

EDITS = {
    "power_pue": 1.45,  # in the site file with its source
    "power_rack_power_limit": 42.5,  # a quantity with a unit
    "power_gpu_tdp": 750,  # from the catalog: not in the site file
    "power_feed_redundancy_spares": 2,  # N+1 -> N+2
    "tco_utilisation": 0.65,  # a percent-formatted share
    "envelope_feed": 2.5,  # a tool default, in a section the site file does not have
    "scenario_low_utilisation_tco_utilisation": 0.35,  # a scenario's change
}
PRINTED = {
    "power.pue: 1.49 -> 1.45",
    "power.rack_power_limit: 41 kW -> 42.5 kW",
    "power.gpu_tdp: 700 W -> 750 W",
    "power.feed_redundancy: N+1 -> N+2",
    "tco.utilisation: 0.70 -> 0.65",
    "envelope.feed: 1 MW -> 2.5 MW",
    "scenarios.low_utilisation.tco.utilisation: 0.4 -> 0.35",
}


@dataclass
class Imported:
    outcome: Outcome
    site: Path
    old: str
    new: str
    day: date  # the day the import ran: its sources carry it (a run across midnight must not expect the next day)

    def data(self, which: str = "new") -> dict[str, Any]:
        return yaml.safe_load(getattr(self, which))


@pytest.fixture(scope="module")
def imported(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Imported:
    folder = tmp_path_factory.mktemp("imported")
    site = folder / "example.yaml"
    shutil.copyfile(built[0], site)
    old = site.read_text(encoding="utf-8")
    day = date.today()
    outcome = run(reviewed_copy(built[1], folder / "reviewed.xlsx", EDITS), site)
    return Imported(outcome, site, old, site.read_text(encoding="utf-8"), day)


def review_source(old_value: str, old_source: str, day: date) -> str:
    """The source import-inputs writes for a changed value, on the day it ran."""
    head = f"changed in review, {day.isoformat()} (was {old_value})"
    return f"{head}; {old_source}" if old_source else head


@pytest.mark.slow
def test_prints_the_bridge_of_the_edits_then_one_line_per_changed_key(imported: Imported) -> None:
    """First what the edits move and by how much (the bridge of the site file before and after them, a step per
    changed input: the same figures explain gives for the two files), then a line per key changed."""
    assert imported.outcome.status == 0, imported.outcome.err
    printed = imported.outcome.out.splitlines()
    assert set(printed[-len(PRINTED):]) == PRINTED
    before = imported.site.with_name("before.yaml")
    before.write_text(imported.old, encoding="utf-8")
    assert printed[:-len(PRINTED)] == bridge_lines(explain(before, imported.site, by_input=True))
    assert printed[0].startswith("bridge of the headline outputs over 6 step(s): exact Shapley values")


def test_changed_keys_get_the_new_value_and_the_review_source(imported: Imported) -> None:
    old, new = imported.data("old"), imported.data()
    assert new["power"]["pue"] == {"value": 1.45, "source": review_source("1.49", old["power"]["pue"]["source"],
                                                                         imported.day)}
    assert new["power"]["rack_power_limit"] == {
        "value": "42.5 kW", "source": review_source("41 kW", old["power"]["rack_power_limit"]["source"],
                                                 imported.day)}
    assert new["scenarios"]["low_utilisation"] == {
        "tco.utilisation": {"value": 0.35, "source": review_source("0.4", "", imported.day)}}


def test_redundancy_is_written_as_its_scheme(imported: Imported) -> None:
    entry = imported.data()["power"]["feed_redundancy"]
    assert entry["value"] == "N+2"
    assert entry["source"] == review_source("N+1", imported.data("old")["power"]["feed_redundancy"]["source"],
                                            imported.day)


def test_a_percent_share_is_written_as_a_plain_fraction(imported: Imported) -> None:
    assert imported.data()["tco"]["utilisation"]["value"] == 0.65


@pytest.mark.slow
def test_a_size_is_written_with_its_unit_and_a_scaled_count_as_the_count(copies: tuple[Path, Path]) -> None:
    """pint reads a bare number for a size in bytes as bits, and the sheet shows parameters in billions: the
    reviewed 14 (bytes) is written `14 bytes`, the reviewed 405 (B params) is written as the count 405000000000;
    both read back as the reviewer typed them."""
    site, xlsx = copies
    outcome = run(reviewed_copy(xlsx, xlsx.with_name("sizes.xlsx"),
                                {"reliability_state_bytes": 14, "reliability_model_parameters": 405}), site)
    assert outcome.status == 0, outcome.err
    data = yaml.safe_load(site.read_text(encoding="utf-8"))["reliability"]
    assert data["state_bytes"]["value"] == "14 bytes"
    assert data["model_parameters"]["value"] == 405_000_000_000
    model = load(site)
    assert model.values["reliability.state_bytes"].item() == 14
    assert model.values["reliability.model_parameters"].item() == 405
    assert model.values["reliability.checkpoint_size"].item() == pytest.approx(405e9 * 14 / 1e12)  # 5.67 TB


@pytest.mark.slow
def test_a_killed_imports_temporary_file_is_removed_by_the_next(copies: tuple[Path, Path]) -> None:
    """An import killed between writing its checked copy and renaming it leaves a hidden temporary file beside the
    site file, named with its process id; the next import to the folder removes it (as a build removes its own)."""
    site, xlsx = copies
    dead = site.parent / f".{site.stem}-{2**22 + 12345}-abc.yaml.tmp"  # above Linux's pid_max: no such process
    dead.write_text("a half-written site file")
    mine = site.parent / f".{site.stem}-{os.getpid()}-abc.yaml.tmp"  # a live process's: left alone
    mine.write_text("in use")
    assert run(reviewed_copy(xlsx, xlsx.with_name("r.xlsx"), {"power_pue": 1.45}), site).status == 0
    assert not dead.exists() and mine.exists()
    assert not [p for p in site.parent.iterdir() if p.name.endswith(".tmp") and p != mine]


@pytest.mark.slow
def test_a_quote_imported_after_the_build_is_said_so_not_taken_for_moved_rows(copies: tuple[Path, Path]) -> None:
    site, xlsx = copies
    before = site.read_bytes()
    quotes_path(site).parent.mkdir()
    quotes_path(site).write_text(yaml.safe_dump({"quotes": [{
        "vendor": "Acme", "date": "2026-11-30", "file": "acme.xlsx", "sha256": "0" * 64,
        "lines": {"nodes": {"unit_price": 250000, "lead_time_weeks": 12, "quantity": 128}}}]}))
    outcome = run(reviewed_copy(xlsx, xlsx.with_name("r.xlsx"), {"power_pue": 1.45}), site)
    assert outcome.status == EXIT_INPUT
    assert isinstance(outcome.error, review.ReviewError) and outcome.error.kind == review.NOT_BUILT_FROM_SITE
    assert "nodes" in str(outcome.error) and site.read_bytes() == before


def test_a_catalog_or_default_value_is_added_under_its_section(imported: Imported) -> None:
    new = imported.data()
    tdp = new["power"]["gpu_tdp"]
    assert tdp["value"] == "750 W"
    assert tdp["source"].startswith(review_source("700 W", "catalog gpu H100-SXM: ", imported.day))
    assert new["envelope"]["feed"]["value"] == "2.5 MW"
    assert new["envelope"]["feed"]["source"].startswith(review_source("1 MW", "default: ", imported.day))
    lines = imported.new.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  gpu_tdp:"))
    assert lines.index("power:") < at < lines.index("fabric:")  # in its section, not at the end


def test_every_other_line_and_comment_is_kept_byte_for_byte(imported: Imported) -> None:
    old, new = imported.old.splitlines(keepends=True), imported.new.splitlines(keepends=True)
    replaced = ("  pue:", "  rack_power_limit:", "  feed_redundancy:", "  utilisation:", "  low_utilisation:")
    added = ("  gpu_tdp:", "envelope:", "  feed:")
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        assert op in ("replace", "insert"), (op, old[i1:i2])
        assert all(line.startswith(replaced) for line in old[i1:i2]), old[i1:i2]
        assert i2 - i1 in (0, j2 - j1)
        assert all(line.startswith(replaced if op == "replace" else added) for line in new[j1:j2]), new[j1:j2]
    assert len(new) == len(old) + len(added)
    assert [line for line in old if line.lstrip().startswith("#")] == [
        line for line in new if line.lstrip().startswith("#")]


@pytest.mark.slow
def test_a_rebuild_evaluates_to_the_reviewed_values(imported: Imported) -> None:
    model = load(imported.site)
    for name, value in EDITS.items():
        line_id = next(k for k, line in model.book.lines.items() if line.name == name)
        assert float(model.values[line_id].reshape(-1)[0]) == pytest.approx(value, rel=1e-9), name


@pytest.mark.slow
def test_an_unchanged_review_changes_nothing(copies: tuple[Path, Path]) -> None:
    site, xlsx = copies
    before = site.read_bytes()
    outcome = run(reviewed_copy(xlsx, xlsx.with_name("reviewed.xlsx"), {"power_pue": 1.49}), site)
    assert (outcome.status, outcome.out) == (0, "no changes\n")
    assert site.read_bytes() == before


# --- refusals: nothing written -----------------------------------------------------------------------------------


def refused(outcome: Outcome, site: Path, before: bytes) -> Exception:
    assert outcome.status == EXIT_INPUT, outcome.out
    assert outcome.out == ""
    assert outcome.err.startswith("error: ") and outcome.err.count("\n") == 1, outcome.err
    assert site.read_bytes() == before
    assert sorted(p.name for p in site.parent.iterdir() if p.name.startswith(".")) == []  # no temporary file left
    assert outcome.error is not None
    return outcome.error


def as_text(value: str) -> Edit:
    """Type text into power_pue's value cell that openpyxl would otherwise store as a formula."""
    def edit(ws: Sheet, rows: dict[str, int]) -> None:
        cell = ws.cell(rows["power_pue"], VALUE + 1)
        cell.value = value
        cell.data_type = "s"
    return edit


def cleared(col: int, name: str = "power_pue", value: str | None = None) -> Edit:
    def edit(ws: Sheet, rows: dict[str, int]) -> None:
        ws.cell(rows[name], col + 1).value = value
    return edit


def inserted_row(ws: Sheet, rows: dict[str, int]) -> None:
    ws.insert_rows(rows["power_pue"])


def changed_choice(ws: Sheet, rows: dict[str, int]) -> None:
    ws.cell(HEADER_ROW + 2, NOTE + 4).value = "something else"  # the first structural choice's word


CASES = {  # id: (values typed in, another edit, the kind refused, the key named, whether the value cell is named)
    "formula": ({"power_pue": "=1.4+0.05"}, None, review.FORMULA, "power.pue", True),
    "text-as-formula": ({}, as_text("=cmd|' /C calc'!A0"), review.TEXT, "power.pue", True),
    "number-as-text": ({}, as_text("1.45"), review.TEXT, "power.pue", True),
    "negative": ({"tco_switch_price": -1}, None, review.OUT_OF_RANGE, "tco.switch_price", True),
    "above-range": ({"tco_utilisation": 1.5}, None, review.OUT_OF_RANGE, "tco.utilisation", True),
    "not-whole": ({"power_gpus": 1000.5}, None, review.NOT_WHOLE, "power.gpus", True),
    "boolean": ({"power_pue": True}, None, review.BOOLEAN, "power.pue", True),
    "empty": ({}, cleared(VALUE), review.EMPTY, "power.pue", True),
    "name-deleted": ({}, cleared(NAME), review.STRUCTURE, "power.pue", False),
    "row-moved": ({}, inserted_row, review.STRUCTURE, "power.pue", False),
    "label-changed": ({}, cleared(LABEL, value="PUE, edited"), review.STRUCTURE, "power.pue", False),
    "unit-constant": ({"units_h_per_month": 731}, None, review.ELSEWHERE, "units.h_per_month", True),
    "sensitivity-record": ({"sensitivity_built_power_gpus": 2048}, None, review.ELSEWHERE,
                           "sensitivity.built_power_gpus", True),
    "structural-choice": ({}, changed_choice, review.ELSEWHERE, None, False),
    "rule-broken": ({"fabric_switch_radix": 63}, None, review.INVALID, "fabric.switch_radix", True),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_refused(case: str, copies: tuple[Path, Path], rows: dict[str, int]) -> None:
    values, edit, kind, key, names_cell = CASES[case]
    site, xlsx = copies
    before = site.read_bytes()
    reviewed = reviewed_copy(xlsx, xlsx.with_name("reviewed.xlsx"), values, edit)
    error = refused(run(reviewed, site), site, before)
    assert isinstance(error, review.ReviewError), error
    assert (error.kind, error.file) == (kind, reviewed)
    if key is not None:
        assert error.key == key
    else:
        assert error.key
    if names_cell:
        assert error.cell == cell_of(rows, key.replace(".", "_"))
    assert error.cell and error.cell.startswith(f"{INPUTS}!")
    assert b"cmd" not in site.read_bytes()


def test_refused_unless_built_from_the_site_file_as_it_is(copies: tuple[Path, Path]) -> None:
    site, xlsx = copies
    site.write_bytes(site.read_bytes() + b"# edited after the build\n")
    before = site.read_bytes()
    error = refused(run(reviewed_copy(xlsx, xlsx.with_name("reviewed.xlsx"), {"power_pue": 1.45}), site), site, before)
    assert isinstance(error, review.ReviewError)
    assert (error.kind, error.file) == (review.NOT_BUILT_FROM_SITE, xlsx.with_name("reviewed.xlsx"))


@pytest.mark.slow
@pytest.mark.parametrize("number", ["NaN", "INF"])
def test_refused_not_finite(number: str, copies: tuple[Path, Path], rows: dict[str, int]) -> None:
    """openpyxl will not write NaN: the cell's XML is edited, as a hand-made file could."""
    site, xlsx = copies
    before = site.read_bytes()
    reviewed = xlsx.with_name("reviewed.xlsx")
    cell = cell_of(rows, "power_pue").split("!")[1]
    part = sheet_part(xlsx, INPUTS)
    with zipfile.ZipFile(xlsx) as src, zipfile.ZipFile(reviewed, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == part:
                data, n = re.subn(rf'(<c r="{cell}"[^>]*>)<v>[^<]*</v>'.encode(), rb"\1<v>" + number.encode() + b"</v>",
                                  data)
                assert n == 1
            dst.writestr(info, data)
    error = refused(run(reviewed, site), site, before)
    assert isinstance(error, review.ReviewError)
    assert (error.kind, error.key, error.cell) == (review.NOT_FINITE, "power.pue", f"{INPUTS}!{cell}")


def sheet_part(xlsx: Path, sheet: str) -> str:
    """The zip member that holds a sheet (from the workbook's own listing)."""
    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
          "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
          "p": "http://schemas.openxmlformats.org/package/2006/relationships"}
    with zipfile.ZipFile(xlsx) as z:
        book = ElementTree.fromstring(z.read("xl/workbook.xml"))
        rid = next(s.get(f"{{{ns['r']}}}id") for s in book.iterfind("m:sheets/m:sheet", ns) if s.get("name") == sheet)
        rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        target = next(r.get("Target") for r in rels.iterfind("p:Relationship", ns) if r.get("Id") == rid)
    return target.lstrip("/") if target.startswith("/") else f"xl/{target}"


def test_refused_an_untrusted_file(copies: tuple[Path, Path]) -> None:
    site, xlsx = copies
    before = site.read_bytes()
    macro = xlsx.with_name("reviewed.xlsm")
    shutil.copyfile(xlsx, macro)
    error = refused(run(macro, site), site, before)
    assert isinstance(error, UntrustedFile)
    assert error.kind == "not-xlsx"


def test_refused_a_changed_next_fleet_line(copies: tuple[Path, Path], rows: dict[str, int]) -> None:
    """A second fleet's lines come from another file: a change to one is refused, naming where to make it."""
    names = [n for n in rows if n.startswith("next_")]
    if not names:
        pytest.skip("the example has no next fleet")
    site, xlsx = copies
    before = site.read_bytes()
    error = refused(run(reviewed_copy(xlsx, xlsx.with_name("reviewed.xlsx"), {names[0]: 1}), site), site, before)
    assert isinstance(error, review.ReviewError)
    assert error.kind == review.ELSEWHERE


FLOOD_PARTS = ["[Content_Types].xml", "xl/workbook.xml", "xl/styles.xml", "docProps/core.xml", "xl/sharedStrings.xml"]


def test_refused_a_flood_of_elements_inside_every_limit(copies: tuple[Path, Path]) -> None:
    """The hardening review's attack: the workbook's own parts and its Inputs sheet, each under 16 MiB and 64 MiB
    of XML in all, filled with small elements (1.1 million a part); as trees they took 1.9 GB and ran out of
    memory (or were taken at 2.6 GB). Refused in one line from a count of the elements, within 2 GiB."""
    site, xlsx = copies
    before = site.read_bytes()
    parts = [*FLOOD_PARTS, sheet_part(xlsx, INPUTS)]
    attack = flooded(xlsx, xlsx.with_name("flooded.xlsx"), parts)
    proc = run_cli("import-inputs", attack, "--site", site, memory=ATTACK_MEMORY)
    assert (proc.returncode, proc.stdout) == (EXIT_INPUT, "")
    assert proc.stderr.startswith(f"error: {attack}: ") and proc.stderr.count("\n") == 1, proc.stderr[:2000]
    assert site.read_bytes() == before and sorted(p.name for p in site.parent.iterdir()) == sorted(
        [site.name, xlsx.name, attack.name])
    error = refused(run(attack, site), site, before)  # in this process now that it is cheap: its attributes
    assert isinstance(error, UntrustedFile)
    assert (error.kind, error.file) == ("too-large", attack) and error.key in parts
