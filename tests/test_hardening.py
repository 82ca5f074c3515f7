"""Hostile input: each reproducer of the hardening review refused in one line, with nothing written or left.

The CLI runs in this process (cli.main) so the many cases stay fast; the fuzz test runs a seeded mutator
through the same CLI in a child process with a time and memory bound (tests/fuzz.py).
"""

from __future__ import annotations

import copy
import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter
import yaml

from tests.conftest import EXAMPLE, ROOT
from tests.fuzz import refused_in_lines
from tests.helpers import fixed_seed, run, site_with
from workbook import cli
from workbook.api import load
from workbook.failures import EXIT_INPUT
from workbook.libreoffice.verify import verify_files
from workbook.models import all_specs
from workbook.site.errors import InputError, InputErrors
from workbook.site.examples import example_for
from workbook.site.output import remove_stale, write_atomically
from workbook.site.templates import load_limits
from workbook.site.values import parse_value, writable_unit
from workbook.site.yaml_reader import MAX_BYTES

BASE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())
B200 = ROOT / "inputs" / "b200-liquid-build.yaml"


def built(site: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit status and stderr of `build SITE -o OUT`, run in this process."""
    status = cli.main(["build", str(site), "-o", str(out)])
    return status, capsys.readouterr().err.strip()


def assert_refused(site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> InputError:
    """Exit 2, one line per problem naming the file (then their count), nothing written beside it. Returns the
    first problem (the Python API's error, or the first of its `errors`): its line is the first printed, and it
    names the file as an attribute too."""
    before = sorted(p.name for p in tmp_path.iterdir())
    status, err = built(site, tmp_path / "out.xlsx", capsys)
    assert status == 2, err
    assert refused_in_lines(err, site), err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    with pytest.raises(InputError) as exc:
        load(site)
    errors = exc.value.errors if isinstance(exc.value, InputErrors) else (exc.value,)
    assert err.splitlines()[: len(errors)] == [f"error: {e}" for e in errors], err
    assert all(e.file == site for e in errors), err
    return errors[0]


def site_file(tmp: Path, text: str | bytes, name: str = "site.yaml") -> Path:
    path = tmp / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return path


def example_with(tmp: Path, name: str = "site.yaml", **top: Any) -> Path:
    """The example (helpers.site_with: no risk: section) with `changes` and top-level keys, as a file."""
    data = site_with(top.pop("changes", {}), **top)
    return site_file(tmp, yaml.safe_dump(data, sort_keys=False, allow_unicode=True), name)


# ---------------------------------------------------------------- 1. ranges a real site can have; exact counts


def test_every_numeric_input_has_a_range_with_its_reason() -> None:
    from workbook.analysis.risk.section import SETTINGS  # the risk: section's samples and seed
    from workbook.models.generation.inputs import SCALARS  # an upgrade's keys that every upgrade has

    specs = {s.key: s for s in [*all_specs(), *SCALARS, *SETTINGS]}
    limits = load_limits()
    quoted = {k for k in limits if k.startswith("quote.")}  # a vendor's quote: workbook.site.quotes.quote_limits
    assert quoted == {"quote.unit_price", "quote.lead_time_weeks"}
    assert set(limits) - quoted <= set(specs), f"limits for keys no model has: {set(limits) - set(specs)}"
    for spec in specs.values():
        if spec.choices or spec.redundancy or spec.text:
            continue
        assert spec.lo is not None and spec.hi is not None, f"{spec.key} has no range"
        assert spec.hi <= 1e11, f"{spec.key}: up to {spec.hi:g} is not a site"
        assert spec.key in limits or spec.hi <= 1000, f"{spec.key}: no reason for its range"


@pytest.mark.parametrize(("site", "key", "value"), [
    (B200, "cooling.cdu_capacity", "1e-9 kW"),  # 2,096,149,787,235 CDUs: the review's silent wrong check
    (EXAMPLE, "power.gpus", 632005767329715),
    (EXAMPLE, "power.gpu_tdp", "5 MW"),
    (EXAMPLE, "tco.on_demand_price", "2990 USD/GPU/hour"),
])
def test_values_no_real_site_has_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], site: Path,
                                             key: str, value: Any) -> None:
    data = yaml.safe_load(site.read_text())
    section, name = key.split(".")
    data[section][name] = value
    err = assert_refused(site_file(tmp_path, yaml.safe_dump(data)), tmp_path, capsys)
    assert (err.key, err.value) == (key, value)
    assert err.problem.startswith(("must be", "is outside")), err.problem


@pytest.mark.parametrize("value", [float("inf"), -float("inf"), 10**400, "1e400"],
                         ids=["inf", "minus-inf", "10**400", "text-1e400"])
def test_a_value_past_any_float_is_refused_by_the_keys_own_range(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  value: Any) -> None:
    """`gpus: 1.0e+400` named a generic 1e-09 to 1e+15 range, and `gpus: 1e400` said only "not a finite number":
    the key's own range, with its reason, is named first."""
    data = copy.deepcopy(BASE)
    data["power"]["gpus"] = value
    err = assert_refused(site_file(tmp_path, yaml.safe_dump(data)), tmp_path, capsys)
    bound = "must be at most" if value != -float("inf") else "must be greater than"
    assert (err.key, err.value) == ("power.gpus", value) and err.problem.startswith(bound), err.problem


def test_verify_catches_a_count_off_by_one_at_1e12(libreoffice: str, tmp_path: Path) -> None:
    """1,000,000,000,001 cached as 1,000,000,000,000 is within 1e-9 relative; as a count it is wrong."""
    path = tmp_path / "count.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("S")
    ws.write_number("A1", 3_000_000_000_003)
    ws.write_formula("A2", "=ROUNDUP(A1/3,0)", None, 1_000_000_000_000)  # off by one on purpose
    ws.write_formula("A3", "=A1/3*1.5", None, 1_500_000_000_001.5 * (1 + 1e-12))  # a measure: tolerance
    wb.close()
    [report] = verify_files([path])
    assert report.compared == 2
    assert [p.split(":")[0] for p in report.problems] == ["'S'!A2"]


# ---------------------------------------------------------------- 2, 3, 7, 8. YAML that is not a site file

BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)) + "site: *i\n"
HOSTILE = {
    "list_as_key": "? [a]\n: 1\n",
    "mapping_as_key": "site: x\npower: {? {a: 1} : 2}\n",
    "deep_nesting": "site: x\npower: " + "[" * 600 + "]" * 600 + "\n",
    "catalog_entry_is_a_list": "site: x\ncatalog: {gpu: [B200]}\n",
    "catalog_entry_is_a_mapping": "site: x\ncatalog: {gpu: {a: 1}}\n",
    "integer_of_5000_digits": "site: x\npower: {gpus: " + "9" * 5000 + "}\n",
    "integer_above_1e308": "site: x\npower: {gpus: 1" + "0" * 309 + "}\n",
    "lone_surrogate": 'site: "x\\ud800"\n',
    "alias_bomb": BOMB,
    "alias_in_description": "description: &d text\nsite: *d\n",
    "sexagesimal": "site: x\npower: {gpus: 17:04}\n",
    "hex": "site: x\npower: {gpus: 0x400}\n",
    "octal": "site: x\npower: {gpus: 010}\n",
    "number_tag_on_a_list": "site: x\npower: {gpus: !!int [1]}\n",  # was an internal error (TypeError)
    "number_tag_on_text": "site: x\npower:\n  gpus: !!float many\n",  # was an internal error (ValueError)
    "not_utf8": b"site: caf\xe9\n",
    "utf16_without_bom": "site: x\n".encode("utf-16-le"),
    "control_character": "site: x\x07y\n",
    "huge_name": "site: " + "x" * 200 + "\n",
    "huge_description": "site: x\ndescription: " + "y" * 50_000 + "\n",
    "description_is_a_list": yaml.safe_dump({**BASE, "description": [1]}, sort_keys=False),
}
# Where each is refused: the key (None: no key of the file is at fault, or the file is not YAML that far) and the
# line of the file (None: the YAML is read, and a value refused by its key).
HOSTILE_AT: dict[str, tuple[str | None, int | None]] = {
    "list_as_key": (None, 1), "mapping_as_key": ("power", 2), "deep_nesting": (None, 2),
    "catalog_entry_is_a_list": ("catalog.gpu", None), "catalog_entry_is_a_mapping": ("catalog.gpu", None),
    "integer_of_5000_digits": ("power.gpus", 2), "integer_above_1e308": ("power.gpus", None),
    "lone_surrogate": ("site", 1), "alias_bomb": (None, 1), "alias_in_description": (None, 1),
    "sexagesimal": ("power.gpus", 2), "hex": ("power.gpus", 2), "octal": ("power.gpus", 2), "not_utf8": (None, 1),
    "number_tag_on_a_list": ("power.gpus", 2), "number_tag_on_text": ("power.gpus", 3),
    "utf16_without_bom": (None, 1), "control_character": (None, 1), "huge_name": ("site", None),
    "huge_description": ("description", 2), "description_is_a_list": ("description", None),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_yaml_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    err = assert_refused(site_file(tmp_path, HOSTILE[name]), tmp_path, capsys)
    assert (err.key, err.line) == HOSTILE_AT[name], err


def test_a_file_larger_than_the_limit_is_refused_without_reading_it_all(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    text = EXAMPLE.read_text() + "# " + "c" * MAX_BYTES + "\n"
    err = assert_refused(site_file(tmp_path, text), tmp_path, capsys)
    assert (err.key, err.line) == (None, None) and err.problem.startswith("the file is larger than")


def test_refusals_say_where_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes that are not UTF-8 are placed by line and column, not 'invalid YAML'."""
    err = assert_refused(site_file(tmp_path, b"site: x\npower:\n  gpus: 8\xff\n"), tmp_path, capsys)
    assert (err.line, err.column) == (3, 10)
    assert err.problem.startswith("byte 0xff at line 3, column 10 is not UTF-8 text")


def test_a_value_echoed_in_an_error_is_clipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(example_with(tmp_path, changes={"power.gpu_tdp": "7" * 1500 + " W"}), tmp_path, capsys)
    assert "7" * 100 not in str(err)  # the line printed; the attribute keeps the whole value
    assert (err.key, err.value) == ("power.gpu_tdp", "7" * 1500 + " W")


def test_every_expected_unit_is_one_the_parser_takes() -> None:
    """The unit an error asks for (the Inputs sheet shows USD/GPU-h) must be one a site file can use, and the
    example it gives must be a value the site file may have."""
    for spec in all_specs():
        if spec.choices or spec.redundancy:
            continue
        parse_value(example_for(spec)[0], spec, "test", spec.key)  # the key's own example, as messages give it
        if spec.text:
            continue
        parse_value(spec.example, spec, "test", spec.key)
        if not spec.pint_unit.dimensionality or spec.date:  # a date is written as a date, not a number of days
            continue
        example = float(spec.example.split()[0])
        parse_value(f"{example} {writable_unit(spec)}", spec, "test", spec.key)


# ---------------------------------------------------------------- 4, 5. limits, and scenarios checked like the base


@pytest.mark.parametrize(("scenarios", "scenario", "key"), [
    ({f"s{i}": {"tco.utilisation": 0.5} for i in range(21)}, None, "scenarios"),  # more than the limit
    # supply above return: a -14 K air rise
    ({"hot_aisle": {"cooling.air_supply_temperature": "50 degC"}}, "hot_aisle", "cooling.air_supply_temperature"),
    ({"typo": {"tco.utilisation": {"value": 0.4, "sorce": "x"}}}, "typo", "tco.utilisation"),  # an unknown field
    ({"big": {"power.gpus": 10**9}}, "big", "power.gpus"),  # beyond the range of a real site
])
def test_scenarios_are_checked_like_the_base_case(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  scenarios: dict[str, Any], scenario: str | None, key: str) -> None:
    err = assert_refused(example_with(tmp_path, scenarios=scenarios), tmp_path, capsys)
    assert (err.scenario, err.key) == (scenario, key)


@pytest.mark.slow
def test_a_scenarios_checks_reach_the_master_check(tmp_path: Path) -> None:
    """A scenario that breaks a check (a rack over its power limit) turns the master check FALSE."""
    ok = load(example_with(tmp_path, "ok.yaml"))
    assert ok.values["checks.all_pass"].reshape(-1)[0]
    bad = load(example_with(tmp_path, "bad.yaml", scenarios={"dense": {"power.rack_power_limit": "5 kW"}}))
    assert not bad.values["checks.all_pass"].reshape(-1)[0]


# ---------------------------------------------------------------- 7, 8. the output path, and nothing left behind


@pytest.mark.slow
def test_an_output_under_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    status, err = built(EXAMPLE, tmp_path / "file" / "x.xlsx", capsys)
    assert status == 2 and "\n" not in err and str(tmp_path / "file" / "x.xlsx") in err


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS, errno.EDQUOT])
def test_an_output_that_cannot_be_written_leaves_the_old_workbook_and_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], code: int) -> None:
    """A full disk, a read-only folder or file system, a quota: root ignores permissions, so the failure is
    made at the rename."""
    out = tmp_path / "site.xlsx"
    out.write_bytes(b"the old workbook")

    def full(*_: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", full)
    status, err = built(EXAMPLE, out, capsys)
    assert status == 2 and "\n" not in err and str(out) in err and "Traceback" not in err
    assert out.read_bytes() == b"the old workbook"
    assert [p.name for p in tmp_path.iterdir()] == ["site.xlsx"]


def test_a_killed_builds_temporary_file_is_removed_by_the_next_build(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".site-{int(dead.stdout)}-abc123.xlsx.tmp"
    live = tmp_path / f".site-{os.getpid()}-def456.xlsx.tmp"  # a build still running: keep it
    stale.write_bytes(b"half")
    live.write_bytes(b"half")
    write_atomically(tmp_path / "site.xlsx", b"whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, "site.xlsx"])
    assert remove_stale(tmp_path) == []


@pytest.mark.slow
def test_killed_builds_leave_the_old_workbook_or_the_new_one_and_nothing_after_the_next_build(tmp_path: Path) -> None:
    """The review's reproducer: kill -9 a build at moments spread over its run. The output is always the old
    file or a whole new one, and the next build leaves no temporary file of the killed ones."""
    import time

    import openpyxl

    out = tmp_path / "site.xlsx"
    out.write_bytes(b"the old workbook")
    cmd = [sys.executable, "-m", "workbook", "build", str(EXAMPLE), "-o", str(out)]
    for delay in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0):
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.kill()
        proc.wait()
        data = out.read_bytes()
        if data != b"the old workbook":
            openpyxl.load_workbook(out, read_only=True).close()  # a whole workbook, or this raises
    assert subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=300).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site.xlsx"]


@pytest.mark.slow
def test_a_build_writes_nothing_in_tmpdir(tmp_path: Path) -> None:
    """xlsxwriter writes about 35 temporary files per workbook unless told to work in memory."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = subprocess.run([sys.executable, "-m", "workbook", "build", str(EXAMPLE), "-o", str(tmp_path / "x.xlsx")],
                          capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmpdir)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert list(tmpdir.iterdir()) == []


def test_two_sites_with_one_output_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = example_with(tmp_path / "a"), example_with(tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    status = cli.main(["build", str(one), str(two)])
    err = capsys.readouterr().err.strip()
    assert status == 2 and "\n" not in err and str(two) in err
    assert not (tmp_path / "outputs").exists()


# ---------------------------------------------------------------- the fuzz test


FUZZ_PARTS = 3  # the cases are run in this many tests, which the test processes of `make test` share


@pytest.mark.fuzz
@pytest.mark.parametrize("part", range(FUZZ_PARTS))
def test_fuzzed_site_files_are_built_or_refused_in_one_line(tmp_path: Path, part: int) -> None:
    """FUZZ_CASES mutants (default 150) of the two sites through the CLI, in a child with a memory bound and
    a time bound per case: exit 0 with the workbook, or exit 2 with one line naming the file and nothing
    written. A failing case stays in the folder with its seed and index (python -m tests.fuzz --only I).
    Case i is the same whichever part runs it: part k runs its share of the indices."""
    cases = int(os.environ.get("FUZZ_CASES", "150"))
    seed = fixed_seed("FUZZ_SEED", 20261203)
    start, stop = cases * part // FUZZ_PARTS, cases * (part + 1) // FUZZ_PARTS
    folder = ROOT / "outputs" / "fuzz-failures" / f"seed-{seed}"
    proc = subprocess.run([sys.executable, "-m", "tests.fuzz", "--seed", str(seed), "--start", str(start),
                           "--cases", str(stop - start), "--out", str(folder)], capture_output=True, text=True,
                          cwd=ROOT, timeout=60 * 60)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["cases"] == stop - start
    assert summary["problems"] == [], f"kept in {folder}: {summary['problems'][:3]}"
    assert set(summary["outcomes"]) <= {"built", "refused"}
    assert summary["outcomes"].get("built", 0) > 0 and summary["outcomes"].get("refused", 0) > 0


# ---------------------------------------------------------------- crashes outside the commands' own work


@pytest.mark.parametrize("cache", ["under a file", "damaged"])
def test_a_pint_cache_that_cannot_be_used_is_no_error(tmp_path: Path, cache: str) -> None:
    """pint opens its definitions cache at import, before any command runs: a cache folder under a file (it cannot
    be made) or a damaged cache file gives the same answer, parsed without the cache."""
    home = tmp_path / "cache"
    if cache == "under a file":
        home.write_text("not a folder")
        home = home / "x"
    else:
        assert run("init", "--gpu", "H100-SXM", "--node", "DGX-H100", "-o", tmp_path / "s.yaml",
                   env={"XDG_CACHE_HOME": str(home)}).returncode == 0  # a first run writes the cache
        cached = sorted((home / "pint").iterdir())
        assert cached
        for f in cached:
            f.write_bytes(b"damaged\n")
    proc = run("evaluate", EXAMPLE, "--json", env={"XDG_CACHE_HOME": str(home)})
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout)["lines"]["power.it_load"]["value"] > 0


def test_a_reader_that_stops_early_stops_the_command_quietly() -> None:
    """`evaluate ... | head -1`: the reader closes the pipe; the command stops with nothing on stderr and the
    status a shell shows for a tool stopped by SIGPIPE (141), not an internal error."""
    proc = subprocess.Popen([sys.executable, "-m", "workbook", "evaluate", str(EXAMPLE)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == cli.EXIT_PIPE
    assert first and err == b""


def test_running_out_of_memory_is_one_line_naming_the_file(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    def exhausted(args: object) -> int:
        raise MemoryError

    monkeypatch.setitem(cli.COMMANDS, "evaluate", exhausted)
    assert cli.main(["evaluate", str(EXAMPLE)]) == EXIT_INPUT
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(EXAMPLE) in err and "memory" in err


EXHAUST = """
import resource, sys
from workbook import cli

def exhaust(args):  # every byte the address space allows, in blocks then in every small size, held to the end
    held = []
    held.append(held)  # a cycle, as a parser's tree and its handlers make: freed by the collector only
    for size in (2**26, 2**20, 2**14, 2**10, *range(512, 0, -16)):
        try:
            while True:
                held.append(bytes(size))
        except MemoryError:
            pass
    raise MemoryError

cli.COMMANDS["import-quote"] = exhaust
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2)
sys.exit(cli.main(["import-quote", "returned.xlsx", "--site", sys.argv[2]]))
"""


@pytest.mark.slow
def test_memory_exhausted_by_a_returned_file_is_one_line_naming_it(tmp_path: Path) -> None:
    """Every byte taken, then MemoryError: the memory kept back is freed and the frames that filled it dropped, so
    the line can still be made and printed; it names the returned file (what was being read), not the site."""
    proc = subprocess.run([sys.executable, "-c", EXHAUST, str(2**30), str(EXAMPLE)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (proc.returncode, proc.stdout) == (EXIT_INPUT, "")
    assert proc.stderr.startswith("error: returned.xlsx: ran out of memory") and proc.stderr.count("\n") == 1


def test_a_file_name_holding_escape_sequences_is_printed_escaped(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A name that would set the terminal's title and clear its screen is printed as its escapes, never obeyed."""
    bad = tmp_path / "\x1b]0;pwned\x07\x1b[2J\u202e.yaml"
    assert cli.main(["evaluate", str(bad)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\u202e.yaml" in err and err.count("\n") == 1
