"""Recalculate workbooks in headless LibreOffice and compare every formula cell with the cached Python value.

LibreOffice trusts the cached values of files that say they came from Excel, so each run gets a fresh
profile that forces a full recalculation on load. soffice exits 0 even when a file failed to load, so every
output is checked for existence. Many files go through one soffice start.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import posixpath
import shutil
import signal
import subprocess
import tempfile
import warnings
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import openpyxl
from openpyxl.utils.datetime import to_excel

from workbook.inputs import InputError

REL_TOL = 1e-9
ABS_TOL = 1e-12
ERROR_PREFIXES = ("#NAME?", "#REF!", "#VALUE!", "#DIV/0!", "#NUM!", "#N/A", "#NULL!", "Err:", "#ERR")

_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
</oor:items>
"""


class EngineMissing(RuntimeError):
    """LibreOffice is not installed."""


def soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        raise EngineMissing(
            "LibreOffice is not installed: run `make test` as root (it installs it), or "
            "`apt-get install -y --no-install-recommends libreoffice-calc-nogui`"
        )
    return exe


def recalculate(paths: Iterable[Path], outdir: Path, timeout: float = 900, attempts: int = 3) -> dict[Path, Path]:
    """Recalculate workbooks, many per LibreOffice start; returns input path -> recalculated copy.

    soffice exits 0 even when it stops before the end of a long list (seen here: the last 6 of 250), so the
    files that did not come out go through a new start, up to `attempts` starts in all."""
    paths = [Path(p).resolve() for p in paths]
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        raise ValueError("recalculate: workbooks in one batch need distinct file names")
    outdir.mkdir(parents=True, exist_ok=True)
    out = {p: outdir / p.name for p in paths}
    missing = paths
    for _ in range(attempts):
        proc = _convert(missing, outdir, timeout)
        missing = [p for p in missing if not out[p].exists()]
        if not missing:
            return out
    raise RuntimeError(
        f"LibreOffice did not convert {len(missing)} file(s) in {attempts} starts (exit {proc.returncode}): "
        f"{', '.join(map(str, missing[:3]))}; stderr: {proc.stderr.strip()[:300]}"
    )


def _convert(paths: list[Path], outdir: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """One soffice start, with a fresh profile that forces a full recalculation on load."""
    return run_soffice(paths, outdir, "xlsx", timeout, recalc=True)


def run_soffice(paths: Iterable[Path], outdir: Path, to: str, timeout: float,
                recalc: bool = False) -> subprocess.CompletedProcess[str]:
    """One headless soffice start converting files into `outdir` (`--convert-to to`: "xlsx", "pdf"), with a
    fresh profile in a temporary folder (that recalculates every formula on load when `recalc`). soffice may
    exit 0 without writing a file, or 1 having written nothing: the caller checks for each output. After
    `timeout` seconds (or on any interruption) every process of that start is killed (soffice forks
    soffice.bin, which a kill of soffice alone would leave running) and the exception goes on."""
    with tempfile.TemporaryDirectory(prefix="lo-profile-") as profile:
        user = Path(profile) / "user"
        user.mkdir()
        if recalc:
            (user / "registrymodifications.xcu").write_text(_PROFILE)
        cmd = [
            soffice(), f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
            "--nologo", "--nodefault", "--convert-to", to, "--outdir", str(outdir), *map(str, paths),
        ]
        env = {**os.environ, "HOME": profile}
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                              start_new_session=True) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except BaseException:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                raise
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@dataclass
class Report:
    path: Path
    compared: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        state = "OK" if not self.problems else f"{len(self.problems)} problem(s)"
        return f"{self.path}: {self.compared} formula cells compared: {state}"


def is_error(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(ERROR_PREFIXES)


def is_count(formula: str, expected: Any) -> bool:
    """A whole number made by rounding (nodes, racks, switches, CDUs): it must agree exactly, since a count
    off by one at 1e12 is within any relative tolerance and still flips a check."""
    return (isinstance(expected, int | float) and not isinstance(expected, bool) and float(expected).is_integer()
            and any(f in formula for f in _ROUNDING))


_ROUNDING = ("ROUNDUP(", "ROUNDDOWN(")


def same(expected: Any, got: Any, exact: bool = False) -> bool:
    """Python's cached value against LibreOffice's: exactly for booleans and counts, else at relative 1e-9
    (LibreOffice keeps 15 digits)."""
    if isinstance(expected, bool) or isinstance(got, bool):  # LibreOffice may give TRUE back as 1
        return expected in (0, 1) and got in (0, 1) and bool(expected) == bool(got)
    if isinstance(expected, int | float) and isinstance(got, int | float):
        if exact:
            return float(expected) == float(got)
        return math.isclose(expected, got, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return expected == got


def formula_cells(path: Path) -> dict[tuple[str, str], tuple[str, Any]]:
    """(sheet, cell) -> (formula, cached value) for every formula cell of a workbook (a date as its serial number).

    Read in one pass over the sheets' XML (no openpyxl load: the value cached with a formula is what openpyxl
    only gives in a second, data_only load). A file with what that pass does not read (shared or array
    formulas, a formula cell without its address, an unusual value type) is read with openpyxl instead."""
    try:
        return _read_formula_cells(Path(path))
    except _Unusual:
        return _formula_cells_openpyxl(Path(path))


def _formula_cells_openpyxl(path: Path) -> dict[tuple[str, str], tuple[str, Any]]:
    formulas = openpyxl.load_workbook(path, data_only=False)
    values = openpyxl.load_workbook(path, data_only=True)
    out = {}
    for ws in formulas.worksheets:
        cached = values[ws.title]
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    out[(ws.title, cell.coordinate)] = (cell.value, as_number(cached[cell.coordinate].value))
    return out


class _Unusual(Exception):
    """Something the one-pass reader leaves to openpyxl."""


_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def _worksheet_parts(zf: zipfile.ZipFile) -> list[tuple[str, str]]:
    """(sheet title, part name) of every worksheet, in workbook order (chart sheets are not worksheets)."""
    rels = {}
    for rel in ElementTree.fromstring(zf.read("xl/_rels/workbook.xml.rels")).iter(f"{_PKG_REL}Relationship"):
        if rel.get("Type", "").endswith("/worksheet"):
            target = rel.get("Target", "")
            rels[rel.get("Id")] = target.lstrip("/") if target.startswith("/") else posixpath.normpath(
                posixpath.join("xl", target))
    book = ElementTree.fromstring(zf.read("xl/workbook.xml"))
    return [(sheet.get("name", ""), rels[sheet.get(f"{_REL}id")]) for sheet in book.iter(f"{_MAIN}sheet")
            if sheet.get(f"{_REL}id") in rels]


def _cached_value(kind: str | None, text: str | None) -> Any:
    """A formula cell's cached value as openpyxl's data_only load gives it (a date as its serial number)."""
    if text is None:
        return None
    if kind in (None, "n"):
        return float(text) if ("." in text or "E" in text or "e" in text) else int(text)
    if kind == "b":
        return bool(int(text))
    if kind in ("str", "e"):
        return text
    raise _Unusual(kind)


def _read_formula_cells(path: Path) -> dict[tuple[str, str], tuple[str, Any]]:
    cell_tag, f_tag, v_tag = f"{_MAIN}c", f"{_MAIN}f", f"{_MAIN}v"
    out: dict[tuple[str, str], tuple[str, Any]] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for title, part in _worksheet_parts(zf):
                with zf.open(part) as stream:
                    for _, elem in ElementTree.iterparse(stream):
                        if elem.tag != cell_tag:
                            continue
                        f = elem.find(f_tag)
                        if f is not None:
                            coord = elem.get("r")
                            if f.get("t") not in (None, "normal") or not f.text or coord is None:
                                raise _Unusual(coord)
                            v = elem.find(v_tag)
                            out[(title, coord)] = ("=" + f.text, _cached_value(elem.get("t"),
                                                                              None if v is None else v.text))
                        elem.clear()
    except (KeyError, ValueError, ElementTree.ParseError, zipfile.BadZipFile) as e:
        raise _Unusual(str(e)) from None
    return out


def compare(original: Path, recalculated: Path | Any) -> Report:
    """Every formula cell's cached value in `original` against its value in `recalculated` (LibreOffice's
    copy): a path, or that copy already loaded with openpyxl (data_only), so a caller that reads it too
    loads it once."""
    report = Report(original)
    cells = formula_cells(original)
    got_wb = load_values(recalculated) if isinstance(recalculated, str | Path) else recalculated
    for (sheet, coord), (formula, expected) in cells.items():
        got = as_number(got_wb[sheet][coord].value)
        report.compared += 1
        where = f"'{sheet}'!{coord}"
        if is_error(got):
            report.problems.append(f"{where}: error {got} from {formula}")
        elif expected is None:
            report.problems.append(f"{where}: no cached value for {formula}")
        elif not same(expected, got, exact=is_count(formula, expected)):
            report.problems.append(f"{where}: Python {expected!r} != LibreOffice {got!r} in {formula}")
    if not cells:
        report.problems.append("no formula cells found")
    return report


def as_number(value: Any) -> Any:
    """A cell's value as the spreadsheet stores it: openpyxl reads a date-formatted number (a month's end date on
    the timeline) as a datetime, which is its serial number of days (since 1899-12-30) underneath."""
    if isinstance(value, datetime.datetime | datetime.date):
        return float(to_excel(value))
    return value


def load_values(path: Path) -> Any:
    """A recalculated workbook's values (openpyxl, data_only): the one load of that file. Its charts are not
    compared: openpyxl cannot read the date axis LibreOffice writes back (a month's end dates on the timeline
    charts) and says so in a warning, which would only be noise here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unable to read chart", category=UserWarning)
        return openpyxl.load_workbook(path, data_only=True)


def verify_files(paths: Iterable[Path]) -> list[Report]:
    paths = [Path(p) for p in paths]
    for p in paths:
        if not p.exists():
            raise InputError(f"{p}: no such workbook")
        if not zipfile.is_zipfile(p):
            raise InputError(f"{p}: not an .xlsx workbook (not a zip package)")
    with tempfile.TemporaryDirectory(prefix="verify-") as tmp:
        recalced = recalculate(paths, Path(tmp) / "out")
        return [compare(p, recalced[p.resolve()]) for p in paths]
