"""`python -m workbook pdf`: the reviewer's PDF beside the workbook, all or nothing, one-line errors; and the
page header that traces each printed page back to its sheet (workbook.libreoffice.pdf.pages_by_sheet)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter

from tests.conftest import EXAMPLE
from tests.helpers import assert_one_line_error, bad_site, example_with, run
from workbook import cli
from workbook.excel.styles import PAGE_HEADER
from workbook.failures import EXIT_LIBREOFFICE
from workbook.libreoffice import pdf, verify
from workbook.libreoffice.pdf import UNASSIGNED, ExportFailed, pages_by_sheet, to_pdf

# the answer first: the Summary after the Cover, the Inputs behind the results (issue 27)
SHEETS = ["Cover", "Summary", "Scenario comparison", "Power chain", "Fabric", "Cooling", "Power envelope",
          "Reliability", "BOM", "TCO", "P&L", "Cash flows", "Workload", "Scenarios", "Scenarios by year",
          "Delay scenario", "Delay scenario by year", "Sensitivity", "Workload sensitivity", "Risk", "Inputs",
          "Checks"]
MONTHLY = ["Cash flows", "Scenarios"]
NOT_PRINTED = ["Delay scenario", "Delay scenario by year"]  # the built-in delay scenario: in the workbook only


@pytest.fixture(scope="module")
def printed(libreoffice: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pdf --monthly` on a copy of the example in a fresh folder: the folder."""
    cwd = tmp_path_factory.mktemp("printed")
    (cwd / "example.yaml").write_text(EXAMPLE.read_text())
    proc = run("pdf", "example.yaml", "--monthly", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert "wrote outputs/example.xlsx (" in proc.stdout and "wrote outputs/example.pdf" in proc.stdout
    assert "wrote outputs/example-monthly.pdf" in proc.stdout
    return cwd


def test_pdf_writes_the_workbook_and_its_pdf_beside_it(printed: Path) -> None:
    assert sorted(p.name for p in (printed / "outputs").iterdir()) == ["example-monthly.pdf", "example.pdf",
                                                                     "example.xlsx"]
    assert (printed / "outputs" / "example.pdf").read_bytes().startswith(b"%PDF-")


def test_the_cover_gives_each_sheets_first_page_in_the_pack(printed: Path) -> None:
    """The Cover's index says on which page each printed sheet begins: the page the PDF prints it on."""
    counts = pages_by_sheet(printed / "outputs" / "example.pdf")
    first, page = {}, 1
    for title, n in counts.items():
        first[title] = page
        page += n
    cover = openpyxl.load_workbook(printed / "outputs" / "example.xlsx")["Cover"]
    said = {row[0].value: row[1].value for row in cover.iter_rows(max_col=2) if isinstance(row[1].value, str)
            and row[1].value.startswith("page ")}
    assert said and {t: int(text.split(":")[0].split()[1]) for t, text in said.items()} == {
        t: first[t] for t in said}


def test_without_monthly_the_pack_alone_is_printed(libreoffice: str, tmp_path: Path) -> None:
    (tmp_path / "example.yaml").write_text(EXAMPLE.read_text())
    proc = run("pdf", "example.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == ["example.pdf", "example.xlsx"]


def test_the_workbook_is_the_one_build_writes(printed: Path, tmp_path: Path) -> None:
    proc = run("build", printed / "example.yaml", "-o", tmp_path / "built.xlsx")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "built.xlsx").read_bytes() == (printed / "outputs" / "example.xlsx").read_bytes()


def test_every_page_is_traced_to_its_sheet_the_monthly_detail_in_the_appendix(printed: Path) -> None:
    from pypdf import PdfReader

    sheets = openpyxl.load_workbook(printed / "outputs" / "example.xlsx", read_only=True).sheetnames
    assert sheets == SHEETS
    pack, appendix = printed / "outputs" / "example.pdf", printed / "outputs" / "example-monthly.pdf"
    counts, monthly = pages_by_sheet(pack), pages_by_sheet(appendix)
    assert list(monthly) == MONTHLY, monthly
    assert list(counts) == [t for t in SHEETS if t not in MONTHLY + NOT_PRINTED], counts  # in order, each headed
    assert UNASSIGNED not in counts
    assert sum(counts.values()) == len(PdfReader(pack).pages) > 10
    assert sum(monthly.values()) == len(PdfReader(appendix).pages) > 10


def test_a_page_without_the_header_is_not_assigned(libreoffice: str, tmp_path: Path) -> None:
    book = tmp_path / "plain.xlsx"
    wb = xlsxwriter.Workbook(str(book))
    wb.add_worksheet("Summary").write(0, 0, "Summary")  # the sheet's name on the page, but no page header
    wb.close()
    (tmp_path / "plain.pdf").write_bytes(to_pdf([(book, book.read_bytes())])[0])
    assert pages_by_sheet(tmp_path / "plain.pdf") == {UNASSIGNED: 1}


def test_a_bad_site_exits_2_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    site = bad_site(tmp_path / "bad.yaml", {"power.gpu_tdp": "700 m"})
    proc = run("pdf", site.name, cwd=tmp_path)
    assert proc.returncode == 2
    assert "power.gpu_tdp" in assert_one_line_error(proc)
    assert proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


@pytest.mark.parametrize("kind", ["parent is a file", "target is a folder"])
def test_an_unwritable_output_exits_2_in_one_line_and_writes_nothing(libreoffice: str, tmp_path: Path,
                                                                     kind: str) -> None:
    (tmp_path / "example.yaml").write_text(EXAMPLE.read_text())
    if kind == "parent is a file":
        (tmp_path / "file").write_text("x")
        out = tmp_path / "file" / "example.pdf"
    else:
        out = tmp_path / "example.pdf"
        out.mkdir()
    before = sorted(tmp_path.rglob("*"))
    proc = run("pdf", "example.yaml", "-o", out, cwd=tmp_path)
    assert proc.returncode == 2
    assert str(out.with_suffix("")) in assert_one_line_error(proc)  # the PDF or the workbook beside it
    assert sorted(tmp_path.rglob("*")) == before  # no workbook, no PDF, no temporary file


def test_an_output_that_is_not_a_pdf_is_refused(tmp_path: Path) -> None:
    proc = run("pdf", EXAMPLE, "-o", tmp_path / "x.xlsx")
    assert proc.returncode == 2
    assert ".pdf" in assert_one_line_error(proc)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- LibreOffice missing or failing


def test_libreoffice_missing_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no soffice on it
    example_with(tmp_path, "example", risk=False)  # its risk samples have nothing to do with LibreOffice
    assert cli.main(["pdf", "example.yaml"]) == EXIT_LIBREOFFICE
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: LibreOffice is not installed")
    assert "apt-get install -y --no-install-recommends libreoffice-calc-nogui" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["example.yaml"]


def test_an_export_libreoffice_fails_names_the_workbook_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """LibreOffice 7.4 prints "Unspecified Application Error", aborts and writes no file on some scaled sheets
    (seen: every sheet of the example fitted to one page wide); here it is played by a stand-in."""
    def failing(paths: list[Path], outdir: Path, to: str, timeout: float) -> subprocess.CompletedProcess[str]:
        (outdir / "lu12345.tmp").write_text("")  # what the real one leaves behind
        return subprocess.CompletedProcess([], 134, "convert x -> y using filter : calc_pdf_Export\n",
                                           "Warning: failed to launch javaldx\nUnspecified Application Error\n"
                                           "\nFatal exception: Signal 6\n")

    monkeypatch.setattr(pdf, "run_soffice", failing)
    monkeypatch.chdir(tmp_path)
    example_with(tmp_path, "example", risk=False)
    assert cli.main(["pdf", "example.yaml", "-j", "1"]) == EXIT_LIBREOFFICE
    err = capsys.readouterr().err.strip()
    assert err == ('error: outputs/example.xlsx: LibreOffice could not export the workbook to PDF '
                   '(exit 134: "Unspecified Application Error"); nothing was written')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["example.yaml"]


def test_an_export_that_does_not_finish_names_the_workbook(monkeypatch: pytest.MonkeyPatch) -> None:
    def hanging(paths: list[Path], outdir: Path, to: str, timeout: float) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired("soffice", timeout)

    monkeypatch.setattr(pdf, "run_soffice", hanging)
    with pytest.raises(ExportFailed, match=r"^out/a\.xlsx: .*did not finish within 5 s"):
        to_pdf([(Path("out/a.xlsx"), b"PK")], timeout=5)


def test_a_timed_out_libreoffice_is_stopped_with_every_process_it_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """soffice forks soffice.bin: a timeout must end both, not leave the child running (and holding the pipes).
    The stand-in writes a mark once its child has finished: a run that waited for the child instead of stopping it
    leaves the mark (no wall clock is asked: speed targets are bench/'s)."""
    fake = tmp_path / "soffice"
    child, finished = tmp_path / "child.pid", tmp_path / "finished"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {child}\nwait\necho done > {finished}\n")
    fake.chmod(0o755)
    monkeypatch.setattr(verify, "soffice", lambda: str(fake))
    with pytest.raises(subprocess.TimeoutExpired):
        verify.run_soffice([tmp_path / "a.xlsx"], tmp_path, "pdf", timeout=1)
    assert not finished.exists()
    pid = int(child.read_text())
    for _ in range(100):
        if not _running(pid):
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)  # ours: the test's own stand-in
        pytest.fail("the child of the timed-out soffice was left running")


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_of_several_workbooks_the_one_libreoffice_fails_on_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    starts: list[list[str]] = []

    def fails_on_b(paths: list[Path], outdir: Path, to: str, timeout: float) -> subprocess.CompletedProcess[str]:
        starts.append([p.name for p in paths])
        for p in paths:
            if p.stem != "b":
                (outdir / f"{p.stem}.pdf").write_bytes(b"%PDF-1.7")
        return subprocess.CompletedProcess([], 0 if len(paths) > 1 else 1, "", "Unspecified Application Error\n")

    monkeypatch.setattr(pdf, "run_soffice", fails_on_b)
    with pytest.raises(ExportFailed, match=r'^out/b\.xlsx: .*exit 1: "Unspecified Application Error"') as exc:
        to_pdf([(Path("out/a.xlsx"), b"PK"), (Path("out/b.xlsx"), b"PK"), (Path("out/c.xlsx"), b"PK")])
    assert exc.value.workbook == Path("out/b.xlsx")
    assert starts == [["a.xlsx", "b.xlsx", "c.xlsx"], ["b.xlsx"]]  # one start for all, then the one missing


def test_a_coloured_check_beside_a_name_exports(libreoffice: str, tmp_path: Path) -> None:
    """The root cause of LibreOffice 7.4's "Unspecified Application Error": a TRUE/FALSE cell whose colour rule
    matches, between cells in a substituted font (the Name column's Consolas), aborted the export at any scale
    unless the cell has a number format (styles.BOOLEAN_SHOWN). The smallest such row, in the workbook's styles."""
    from workbook.excel.styles import Styles

    book = tmp_path / "check.xlsx"
    wb = xlsxwriter.Workbook(str(book))
    styles = Styles(wb)
    ws = wb.add_worksheet("Checks")
    ws.write_string(0, 0, "checks_all_pass", styles.name)
    ws.write_formula(0, 1, "=1=1", styles.value("BOOLEAN", "check"), True)
    ws.conditional_format("B1", {"type": "cell", "criteria": "==", "value": "TRUE", "format": styles.ok})
    ws.write_string(0, 2, "a note", styles.note)
    ws.set_header(PAGE_HEADER)
    wb.close()
    (tmp_path / "check.pdf").write_bytes(to_pdf([(book, book.read_bytes())])[0])
    assert pages_by_sheet(tmp_path / "check.pdf") == {"Checks": 1}
