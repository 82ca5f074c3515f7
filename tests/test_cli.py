"""The command line: exit statuses, one-line errors, untouched outputs, the JSON schema and verify."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import xlsxwriter
import yaml

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import assert_one_line_error, bad_site, example_model, invoke, run
from workbook import api, cli
from workbook.api import load
from workbook.excel.layout import NAME
from workbook.formula.expr import Context, UnitError
from workbook.formula.line import Line, message_at
from workbook.models.power import power
from workbook.site.errors import InputError

BASE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())





@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("good") / "example.xlsx"
    proc = run("build", EXAMPLE, "-o", out)  # as a user runs it: `python -m workbook` in a process of its own
    assert proc.returncode == 0, proc.stderr
    assert out.exists()
    return out




def api_error(site: Path, printed: str) -> InputError:
    """The error the Python API raises for a site the CLI refused: the line printed is its message."""
    with pytest.raises(InputError) as exc:
        load(site)
    assert printed == f"error: {exc.value}" and exc.value.file == site, printed
    return exc.value


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "change", "remove", "words"),
    [
        ("wrong_dimension", {"power.gpu_tdp": "700 m"}, None, ["power.gpu_tdp", "700 m"]),
        ("missing_key", None, "power.gpus", ["power.gpus", "missing"]),
        ("negative_gpus", {"power.gpus": -8}, None, ["power.gpus", "-8"]),
    ],
)
def test_bad_input_exits_2_and_leaves_the_output_untouched(
    good: Path, tmp_path: Path, case: str, change: Any, remove: Any, words: list[str]
) -> None:
    out = tmp_path / "site.xlsx"
    out.write_bytes(good.read_bytes())
    before = out.read_bytes()
    site = bad_site(tmp_path / f"{case}.yaml", change, remove)
    proc = invoke("build", site, "-o", out)
    assert proc.returncode == 2, proc.stderr
    err = assert_one_line_error(proc)
    assert str(site) in err
    for w in words:
        assert w in err, err
    assert api_error(site, err).key == words[0]
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, site.name])


def test_invalid_yaml_exits_2(tmp_path: Path) -> None:
    site = tmp_path / "broken.yaml"
    site.write_text("site: x\npower: {gpus: 8\n")
    proc = invoke("build", site, "-o", tmp_path / "x.xlsx")
    assert proc.returncode == 2
    e = api_error(site, assert_one_line_error(proc))
    assert (e.key, e.line) == (None, 3) and e.problem.startswith("not valid YAML")
    assert not (tmp_path / "x.xlsx").exists()


@pytest.mark.slow
def test_every_site_is_validated_before_any_is_written(tmp_path: Path) -> None:
    good_site = tmp_path / "good.yaml"
    good_site.write_text(EXAMPLE.read_text())
    bad = bad_site(tmp_path / "bad.yaml", {"power.gpu_tdp": "700 m"})
    proc = invoke("build", good_site, bad, cwd=tmp_path)
    assert proc.returncode == 2
    assert api_error(bad, assert_one_line_error(proc)).key == "power.gpu_tdp"
    assert not (tmp_path / "outputs" / "good.xlsx").exists()


@pytest.mark.slow
def test_build_writes_the_default_output(tmp_path: Path) -> None:
    site = tmp_path / "mysite.yaml"
    site.write_text(EXAMPLE.read_text())
    proc = invoke("build", site, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "outputs" / "mysite.xlsx").exists()
    assert "outputs/mysite.xlsx" in proc.stdout


def test_evaluate_on_bad_input_exits_2(tmp_path: Path) -> None:
    site = bad_site(tmp_path / "neg.yaml", {"power.gpus": -8})
    proc = invoke("evaluate", site, "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    e = api_error(site, assert_one_line_error(proc))
    assert (e.key, e.value) == ("power.gpus", -8)


def test_a_unit_error_in_a_model_exits_3_naming_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """README: exit 3 on a model error, e.g. a unit mismatch in a formula, naming the line."""
    original = power.define

    def broken(scope: Any, inputs: Any, fabric: Any, *storage: Any) -> Any:
        out = original(scope, inputs, fabric, *storage)
        scope.sheet(power.TITLE).calc("oops", "Power in metres", "m", inputs.gpu_tdp)
        return out

    monkeypatch.setattr(power, "define", broken)
    out = tmp_path / "x.xlsx"
    status = cli.main(["build", str(EXAMPLE), "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert status == 3, err
    assert err.startswith("model error:") and "power.oops" in err, err
    assert "\n" not in err
    assert not out.exists()
    with pytest.raises(UnitError) as exc:
        load(EXAMPLE)
    assert err == f"model error: {exc.value}"
    assert (exc.value.line, exc.value.label, exc.value.units) == ("power.oops", "Power in metres", ("W", "m"))


# ---------------------------------------------------------------- evaluate --json

ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")
CELL = re.compile(r"^'(?P<sheet>[^']+)'!(?P<cell>\$?[A-Z]+\$?\d+)$")


class Names(Context):
    """A single value's references as the defined names the workbook shows."""

    def ref(self, line: Line) -> str:
        return line.name

    def row_range(self, line: Line) -> str:
        return line.name


GRID_SHEETS = {"BOM"}  # sheets that are a table of lines (presentation.Grid), not one line a row


@pytest.mark.slow
def test_evaluate_json_schema_and_cells(good: Path) -> None:
    proc = invoke("evaluate", EXAMPLE, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"site", "values", "lines"}
    assert data["site"] == BASE["site"]
    assert isinstance(data["lines"], dict) and len(data["lines"]) >= 40

    model = example_model()
    wb = openpyxl.load_workbook(good)
    cached = openpyxl.load_workbook(good, data_only=True)
    calculated = [line for line in model.book.lines.values() if line.kind != "input"]
    assert sorted(data["lines"]) == sorted(line.id for line in calculated)
    for line_id, entry in data["lines"].items():
        assert ID.match(line_id), line_id
        assert set(entry) == {"label", "value", "unit", "cell"}, line_id
        line = model.book.lines[line_id]
        assert entry["label"] == line.label and entry["unit"] == line.unit_text
        assert entry["value"] is None or isinstance(entry["value"], bool | int | float | str | list), line_id
        m = CELL.match(entry["cell"])
        assert m, entry["cell"]
        c = wb[m["sheet"]][m["cell"].replace("$", "")]
        assert isinstance(c.value, str) and c.value.startswith("="), (line_id, c.value)
        if m["sheet"] in GRID_SHEETS:  # a table of lines: the line's name points at its cell
            sheet, ref = next(iter(wb.defined_names[line.name].destinations))
            assert (sheet, ref.replace("$", "")) == (m["sheet"], c.coordinate), line_id
        else:
            assert wb[m["sheet"]].cell(row=c.row, column=NAME + 1).value == line.name, line_id
        if not getattr(line, "series", False):
            assert c.value == "=" + line.formula.render(Names()), line_id
            got = cached[m["sheet"]][c.coordinate].value
            if entry["value"] is None:  # no value: a guarded division (or a value shown only if) shows its message
                assert got == message_at(line, model.values), line_id
            elif isinstance(entry["value"], float):
                assert got == pytest.approx(entry["value"], rel=1e-15), line_id
            else:
                assert got == entry["value"], line_id


@pytest.mark.slow
def test_evaluate_table_lists_every_line() -> None:
    proc = invoke("evaluate", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    assert "power.it_load" in proc.stdout and "checks.all_pass" in proc.stdout


# ---------------------------------------------------------------- verify


def test_verify_passes_a_good_workbook(libreoffice: str, good: Path) -> None:
    proc = invoke("verify", good)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_verify_fails_a_tampered_cached_value_listing_the_cell(libreoffice: str, good: Path, tmp_path: Path) -> None:
    tampered = tmp_path / "tampered.xlsx"
    wb = xlsxwriter.Workbook(str(tampered))
    ws = wb.add_worksheet("Power chain")
    ws.write_number("D5", 700)
    ws.write_number("D6", 8)
    ws.write_formula("D7", "=D5*D6/1000", None, 5.6)  # right
    ws.write_formula("D8", "=D7*4", None, 99)  # wrong on purpose: 22.4
    wb.close()
    proc = invoke("verify", good, tampered)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "'Power chain'!D8" in proc.stdout
    assert "'Power chain'!D7" not in proc.stdout
    assert f"{good}: " in proc.stdout and "OK" in proc.stdout.split(str(tampered))[0]


def test_verify_of_a_missing_file_exits_2(tmp_path: Path) -> None:
    proc = invoke("verify", tmp_path / "nope.xlsx")
    assert proc.returncode == 2
    assert_one_line_error(proc)


@pytest.mark.parametrize("zipped", [False, True], ids=["text", "a zip of text"])
def test_verify_of_a_file_that_is_not_a_workbook_is_not_an_internal_error(tmp_path: Path, zipped: bool) -> None:
    """A corrupt or mistyped file is the user's input, not a tool bug: exit 2 (bad input) or 4 (verification
    failed) with one line naming the file, not exit 1 'internal error'."""
    path = tmp_path / "notes.xlsx"
    if zipped:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("notes.txt", "not a spreadsheet\n")
    else:
        path.write_text("not a spreadsheet\n")
    proc = invoke("verify", path)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode in (2, 4), proc.stderr
    assert "internal error" not in proc.stderr
    assert str(path) in proc.stdout + proc.stderr


# ---------------------------------------------------------------- small inputs that were internal errors

MANY_DIGITS = "9" * 5000  # past Python's 4,300-digit limit on reading an integer


@pytest.mark.parametrize(("option", "value"), [("--samples", "²"), ("--seed", "²"), ("--samples", MANY_DIGITS),
                                               ("--seed", MANY_DIGITS)],
                         ids=["samples-superscript", "seed-superscript", "samples-5000-digits", "seed-5000-digits"])
def test_a_samples_or_seed_that_is_no_whole_number_is_one_line(option: str, value: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """str.isdigit takes a superscript ² that int refuses; int refuses 5,000 digits: both were internal errors."""
    assert cli.main(["risk", str(EXAMPLE), option, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {EXAMPLE}: risk.{option[2:]} = ") and err.count("\n") == 1, err
    with pytest.raises(InputError) as refused:
        api.risk(EXAMPLE, **{option[2:]: value})
    assert (refused.value.file, refused.value.key, refused.value.value) == (EXAMPLE, f"risk.{option[2:]}", value)


@pytest.mark.parametrize("json_output", [False, True])
def test_an_output_that_cannot_be_written_is_one_line(tmp_path: Path, json_output: bool) -> None:
    """`evaluate SITE > /dev/full`: the disk is full. Exit 2 with one line, not an internal error, and no complaint
    from Python's own flush at exit."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "workbook", "evaluate", str(EXAMPLE), *(["--json"] * json_output)],
                              cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert (proc.returncode, proc.stderr) == (2, "error: cannot write to standard output (No space left on device)\n")


@pytest.mark.parametrize("argument", ["--x\x1b]0;PWNED\x07\x1b[2J", "--\x9b2J", "--" + "\x1b" * 2000],
                         ids=["title-and-clear", "c1-control", "2000-escapes"])
def test_an_argument_argparse_refuses_is_printed_escaped_in_one_line(argument: str) -> None:
    """argparse printed its refusal before the CLI's escaping streams were in place: ESC, BEL, CSI and a C1
    control reached the terminal raw (a title set, the screen cleared)."""
    proc = invoke("build", "x.yaml", argument)
    err = assert_one_line_error(proc, "error: python -m workbook")
    assert proc.returncode == 2 and err.isprintable() and len(err) <= cli.MAX_LINE
    assert "\\x1b" in err or "\\x9b" in err
