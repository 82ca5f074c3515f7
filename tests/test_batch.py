"""`build a.yaml b.yaml ... -j N`: sites built in worker processes, the same bytes, nothing written unless all
are good, the same one-line errors and exit statuses, and a progress bar only on stderr."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import assert_one_line_error, bad_site, invoke
from workbook import api, cli
from workbook.formula.expr import FormulaError

SMALL = ROOT / "inputs" / "gb200-nvl72-colo.yaml"
fork_only = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                               reason="the monkeypatch reaches the workers through fork")


def sites(tmp_path: Path) -> list[Path]:
    out = []
    for name, source in (("first", EXAMPLE), ("second", SMALL)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(source.read_text())
        out.append(path)
    return out


@pytest.mark.slow
def test_two_sites_in_two_processes_give_the_bytes_of_one_by_one_builds(tmp_path: Path) -> None:
    first, second = sites(tmp_path)
    proc = invoke("build", first, second, "-j", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress bar: stderr is not a terminal here
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("wrote outputs/first.xlsx (") and lines[0].endswith("lines; checks pass)")
    assert lines[1].startswith("wrote outputs/second.xlsx (")
    for site in (first, second):
        alone = tmp_path / f"alone-{site.stem}.xlsx"
        one = invoke("build", site, "-o", alone, cwd=tmp_path)
        assert one.returncode == 0, one.stderr
        assert (tmp_path / "outputs" / f"{site.stem}.xlsx").read_bytes() == alone.read_bytes()
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == ["first.xlsx", "second.xlsx"]


@pytest.mark.slow
def test_a_bad_site_among_several_writes_nothing(tmp_path: Path) -> None:
    first, second = sites(tmp_path)
    bad = bad_site(tmp_path / "bad.yaml", {"power.gpu_tdp": "700 m"})
    proc = invoke("build", first, bad, second, "-j", "2", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    err = assert_one_line_error(proc)
    assert str(bad.name) in err and "power.gpu_tdp" in err, err
    assert proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "first.yaml", "second.yaml"]


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_output_that_cannot_be_written_leaves_every_other_output_unwritten(tmp_path: Path, jobs: str) -> None:
    """All or nothing holds at the write too: the second site's output path is a folder, so the first site's
    workbook, though rendered, is not put on disk either (and no temporary file is left)."""
    first, second = sites(tmp_path)
    (tmp_path / "outputs" / "second.xlsx").mkdir(parents=True)
    proc = invoke("build", first, second, "-j", jobs, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    err = assert_one_line_error(proc)
    assert "second.xlsx" in err, err
    assert proc.stdout == ""
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == ["second.xlsx"]


@pytest.mark.slow
def test_the_first_bad_site_in_command_line_order_is_reported(tmp_path: Path) -> None:
    """Two bad sites: the error names the first one given, whichever worker finished first."""
    first, _ = sites(tmp_path)
    slow_bad = bad_site(tmp_path / "a-bad.yaml", {"power.gpus": -8})
    fast_bad = tmp_path / "b-broken.yaml"
    fast_bad.write_text("site: x\npower: {gpus: 8\n")
    proc = invoke("build", first, slow_bad, fast_bad, "-j", "2", cwd=tmp_path)
    assert proc.returncode == 2
    err = assert_one_line_error(proc)
    assert "a-bad.yaml" in err and "b-broken" not in err, err
    assert not (tmp_path / "outputs").exists()


class Oops(FormulaError):
    """A model error whatever FormulaError's constructor is today."""

    def __init__(self) -> None:
        pass

    def __str__(self) -> str:
        return "power.oops (Power in metres): is in m, expected a power"


@pytest.mark.slow
@fork_only
@pytest.mark.parametrize("jobs", ["2", "1"])
def test_a_model_error_in_a_worker_exits_3_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    """The same status and line from a worker process (-j 2) as from the command's own process (-j 1)."""
    real_load = api.load

    def load(path: Any) -> Any:
        if Path(path).name == "second.yaml":
            raise Oops
        return real_load(path)

    monkeypatch.setattr(api, "load", load)
    monkeypatch.chdir(tmp_path)
    first, second = sites(tmp_path)
    status = cli.main(["build", str(first), str(second), "-j", jobs])
    captured = capsys.readouterr()
    assert status == 3
    assert captured.err.strip() == f"model error: {Oops()}"
    assert captured.out == ""
    assert not (tmp_path / "outputs").exists()


@fork_only
def test_a_bug_in_a_worker_is_one_internal_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def bug(path: Any) -> Any:
        raise KeyError("boom\nsecond line")

    monkeypatch.setattr(api, "load", bug)
    monkeypatch.chdir(tmp_path)
    first, second = sites(tmp_path)
    status = cli.main(["build", str(first), str(second), "-j", "2"])
    err = capsys.readouterr().err.strip()
    assert status == 1
    assert err.startswith("internal error: KeyError:") and "\n" not in err, err
    assert not (tmp_path / "outputs").exists()


@pytest.mark.slow
def test_progress_bar_on_stderr_when_asked_and_stdout_unchanged(tmp_path: Path) -> None:
    first, second = sites(tmp_path)
    proc = invoke("build", first, second, "-j", "2", "--progress", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2/2 sites" in proc.stderr and "building [" in proc.stderr
    assert "\\r" not in proc.stderr  # redrawn in place by a carriage return, not printed escaped as \r
    assert [line.split(" (")[0] for line in proc.stdout.splitlines()] == [
        "wrote outputs/first.xlsx", "wrote outputs/second.xlsx"]


def test_jobs_must_be_a_positive_number(tmp_path: Path) -> None:
    proc = invoke("build", EXAMPLE, "-j", "0", cwd=tmp_path)
    assert proc.returncode == 2
    assert "-j" in proc.stderr
    assert not (tmp_path / "outputs").exists()
