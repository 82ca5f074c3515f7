"""The reviewer's PDF: built workbooks exported by headless LibreOffice, and which sheet each page shows.

Every sheet prints the same page header (`workbook.excel.styles.PAGE_HEADER`): the sheet name at the top left
and "page / pages" at the top right. That header is how a page of the PDF is traced back to its sheet.
Reading the pages needs pypdf (in the test extra: `pip install -e '.[test]'`); exporting needs only LibreOffice.
"""

from __future__ import annotations

import html
import io
import re
import subprocess
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from workbook.book.sheets import NOT_PRINTED
from workbook.libreoffice.verify import run_soffice

EXPORT_TIMEOUT = 600.0  # seconds for one LibreOffice start; the example's 400 pages take a few
UNASSIGNED = "(no sheet header)"  # pages_by_sheet's key for a page without the header


class ExportFailed(RuntimeError):
    """LibreOffice wrote no PDF for a workbook (it says "Unspecified Application Error" on some scaled sheets)."""

    def __init__(self, workbook: Path, reason: str):
        self.workbook, self.reason = workbook, reason
        super().__init__(f"{workbook}: LibreOffice could not export the workbook to PDF ({reason}); "
                         "nothing was written")


def to_pdf(workbooks: Sequence[tuple[Path, bytes]], timeout: float = EXPORT_TIMEOUT) -> list[bytes]:
    """The PDF of each workbook, given as (the path it is written to, its bytes): exported in a temporary
    folder, one LibreOffice start for all of them; when several went into that start, one that did not come out
    gets a start of its own, so a failure names it and says what LibreOffice said. Raises ExportFailed for the
    first that fails. Nothing is written beside the workbooks (a failing LibreOffice leaves a temporary file in
    its output folder)."""
    names = [out.with_suffix(".xlsx").name for out, _ in workbooks]
    if len(set(names)) != len(names):
        raise ValueError("to_pdf: the workbooks need distinct file names")
    with tempfile.TemporaryDirectory(prefix="workbook-pdf-") as tmp:
        src, outdir = Path(tmp) / "in", Path(tmp) / "out"
        src.mkdir()
        outdir.mkdir()
        paths = []
        for name, (_, data) in zip(names, workbooks, strict=True):
            paths.append(src / name)
            paths[-1].write_bytes(data)
        pdfs = [outdir / f"{p.stem}.pdf" for p in paths]
        proc = _start(paths, outdir, timeout)
        for path, pdf, (out, _) in zip(paths, pdfs, workbooks, strict=True):
            if not _made(pdf) and len(paths) > 1:
                proc = _start([path], outdir, timeout)
            if not _made(pdf):
                raise ExportFailed(out, _reason(proc, timeout))
        return [pdf.read_bytes() for pdf in pdfs]


def _start(paths: list[Path], outdir: Path, timeout: float) -> subprocess.CompletedProcess[str] | None:
    """One LibreOffice start exporting `paths` to PDF; None when it did not finish in time (it is stopped)."""
    try:
        return run_soffice(paths, outdir, "pdf", timeout)
    except subprocess.TimeoutExpired:
        return None


def _made(pdf: Path) -> bool:
    return pdf.is_file() and pdf.stat().st_size > 0


def _reason(proc: subprocess.CompletedProcess[str] | None, timeout: float) -> str:
    """What a start that wrote no PDF said: its first line of its own ("Unspecified Application Error")."""
    if proc is None:
        return f"it did not finish within {timeout:g} s"
    said = [line.strip() for line in (proc.stderr + "\n" + proc.stdout).splitlines()
            if line.strip() and "javaldx" not in line and not line.startswith("convert ")]
    return f"exit {proc.returncode}: " + (f'"{said[0][:200]}"' if said else "no message")


def printing_only(data: bytes, printed: Callable[[str], bool]) -> bytes:
    """The workbook's bytes with the print area of every sheet `printed` rejects set to one empty cell: LibreOffice
    prints no empty page, so one workbook gives both the reviewer's pack and its appendix (LibreOffice's PDF
    export prints hidden sheets, so hiding them would not do). Only for export: the workbook written keeps its
    print areas."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            body = source.read(item)
            if item.filename == "xl/workbook.xml":
                body = _print_areas(body.decode("utf-8"), printed).encode("utf-8")
            target.writestr(item, body)
    return out.getvalue()


def exports(pdf: Path, data: bytes, appendix: Sequence[str], monthly: bool = True) -> list[tuple[Path, bytes]]:
    """The PDFs of one workbook, each with the workbook bytes that print it: the reviewer's pack at `pdf` (every
    sheet but the appendix's), and, where `monthly` is asked for and the workbook has monthly sheets, the monthly
    appendix beside it (the monthly detail belongs in the workbook: the command prints it only on request)."""
    sheets = set(appendix) - set(NOT_PRINTED)
    out = [(pdf, printing_only(data, lambda title: title not in sheets and title not in NOT_PRINTED))]
    if sheets and monthly:
        out.append((appendix_path(pdf), printing_only(data, lambda title: title in sheets)))
    return out


def appendix_path(pdf: Path) -> Path:
    """Where a site's monthly appendix goes, beside its PDF: outputs/example-monthly.pdf."""
    return pdf.with_name(f"{pdf.stem}-monthly{pdf.suffix}")


def _print_areas(text: str, printed: Callable[[str], bool]) -> str:
    """workbook.xml with the print area of each sheet `printed` rejects on one empty cell."""
    names = [html.unescape(n) for n in _SHEET_NAME.findall(text)]

    def area(match: re.Match[str]) -> str:
        if printed(names[int(match.group("sheet"))]):
            return match.group(0)
        return f'{match.group("head")}{match.group("ref").split("!")[0]}!{EMPTY_CELL}</definedName>'

    return _PRINT_AREA.sub(area, text)


EMPTY_CELL = "$AMJ$1"  # the last column LibreOffice has: no sheet of ours reaches it
_SHEET_NAME = re.compile(r'<sheet name="([^"]*)"')
_PRINT_AREA = re.compile(r'(?P<head><definedName name="_xlnm.Print_Area" localSheetId="(?P<sheet>\d+)">)'
                         r"(?P<ref>[^<]*)</definedName>")


# ---------------------------------------------------------------- which sheet each page shows

_HEADER = re.compile(r"^(?P<sheet>.+) (?P<page>\d+) / (?P<pages>\d+)$")


def page_sheets(pdf: Path | str) -> list[str | None]:
    """The sheet each page of a workbook's PDF shows (from its page header), None for a page without one."""
    reader = _reader(pdf)
    total = len(reader.pages)
    return [_header_sheet(page, total) for page in reader.pages]


def pages_by_sheet(pdf: Path | str) -> dict[str, int]:
    """Pages per sheet, in the order the sheets print; pages without a header are counted under UNASSIGNED."""
    counts: dict[str, int] = {}
    for sheet in page_sheets(pdf):
        key = UNASSIGNED if sheet is None else sheet
        counts[key] = counts.get(key, 0) + 1
    return counts


def _reader(pdf: Path | str) -> Any:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise RuntimeError("reading a PDF's pages needs pypdf: .venv/bin/pip install -e '.[test]'") from None
    return PdfReader(str(pdf))


def _header_sheet(page: Any, total: int) -> str | None:
    """The sheet name of the topmost line of a page that reads "<sheet> <page> / <pages>" with <pages> the
    PDF's page count: the header. Text pieces are put on a line by their height, in order across it."""
    lines: dict[float, list[tuple[float, str]]] = {}

    def visit(text: str, cm: list[float], tm: list[float], *_: Any) -> None:
        if not text.strip():
            return
        x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
        y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
        lines.setdefault(round(y), []).append((x, text))

    page.extract_text(visitor_text=visit)
    for y in sorted(lines, reverse=True):
        text = " ".join(" ".join(t for _, t in sorted(lines[y], key=lambda item: item[0])).split())
        m = _HEADER.match(text)
        if m and int(m["pages"]) == total and 1 <= int(m["page"]) <= total:
            return m["sheet"]
    return None
