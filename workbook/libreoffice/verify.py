"""Recalculate workbooks in headless LibreOffice (and Gnumeric: libreoffice.gnumeric) and compare every formula cell
with the cached Python value.

LibreOffice trusts the cached values of files that say they came from Excel, so each run gets a fresh
profile that forces a full recalculation on load (and sets the locale, en-US, in which its CSV writes a date).
soffice exits 0 even when a file failed to load, so every output is checked for existence. Many files go through
one soffice start; the comparisons read its CSV export of every sheet (recalculated_values, csv_values), which it
writes in about half the time of an .xlsx copy, to the same 15 digits.

Python computes what LibreOffice computes (workbook.formula.spreadsheet), so against LibreOffice a figure agrees
to 1e-9 of itself. Gnumeric adds in plain IEEE arithmetic: where two values cancel (a tax basis left at exit,
capex less its depreciation: 0 in LibreOffice and Excel, 3.6e-12 in Gnumeric) the difference is rounding of the
values the cell is made from. So against Gnumeric a figure agrees within 1e-9 of the largest value its formula
reads (its operands: the cells and rows it names), the tolerance of any floating result. TRUE/FALSE and counts
agree exactly against either engine.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbook.libreoffice import csv_values
from workbook.libreoffice.engine_process import EngineMissing, run_as_group
from workbook.libreoffice.sheet_reader import Cells, Unusual, cell_values, defined_names, formula_cells, sheet_titles
from workbook.site.errors import InputError

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
<item oor:path="/org.openoffice.Setup/L10N"><prop oor:name="ooSetupSystemLocale" oor:op="fuse">\
<value>en-US</value></prop></item>
</oor:items>
"""


def soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        raise EngineMissing(
            "LibreOffice is not installed: run `make test` as root (it installs it), or "
            "`apt-get install -y --no-install-recommends libreoffice-calc-nogui`"
        )
    return exe


def recalculate(paths: Iterable[Path], outdir: Path, timeout: float = 900, attempts: int = 3) -> dict[Path, Path]:
    """Recalculate workbooks, many per LibreOffice start; returns input path -> recalculated copy."""
    paths = [Path(p).resolve() for p in paths]
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        raise ValueError("recalculate: workbooks in one batch need distinct file names")
    outdir.mkdir(parents=True, exist_ok=True)
    out = {p: outdir / p.name for p in paths}
    _convert_all({p: p for p in paths}, outdir, "xlsx", lambda p: out[p].exists(), timeout, attempts)
    return out


def recalculated_values(paths: Iterable[Path], workdir: Path, timeout: float = 900, attempts: int = 3,
                        ) -> dict[Path, Cells]:
    """Each workbook's every cell as LibreOffice recalculates it (input path -> its values), many workbooks per
    start: from its CSV export of every sheet (csv_values), or from an .xlsx copy (recalculate) for a workbook
    whose CSV does not give each value exactly."""
    paths = [Path(p).resolve() for p in paths]
    staged = csv_values.stage(paths, workdir / "staged")
    titles = {p: sheet_titles(p) for p in paths}
    outdir = workdir / "csv"
    outdir.mkdir(parents=True, exist_ok=True)
    files: dict[Path, list[Path] | None] = {}

    def written(p: Path) -> bool:
        files[p] = csv_values.exported(staged[p], outdir, titles[p])
        return files[p] is not None

    _convert_all(staged, outdir, csv_values.FILTER, written, timeout, attempts)
    out, unusual = {}, []
    for p in paths:
        try:
            out[p] = csv_values.read_workbook(titles[p], files[p] or [])
        except Unusual:
            unusual.append(p)
    if unusual:
        copies = recalculate(unusual, workdir / "xlsx", timeout, attempts)
        out.update({p: cell_values(copies[p]) for p in unusual})
    return out


def _convert_all(sources: dict[Path, Path], outdir: Path, to: str, written: Callable[[Path], bool], timeout: float,
                 attempts: int) -> None:
    """Each workbook (`sources`: its path -> the file soffice reads) converted `to` in `outdir`, recalculated on
    load, many per start. soffice exits 0 even when it stops before the end of a long list (seen here: the last 6
    of 250), so the workbooks not `written` go through a new start, up to `attempts` starts in all."""
    missing = list(sources)
    for _ in range(attempts):
        proc = run_soffice([sources[p] for p in missing], outdir, to, timeout, recalc=True)
        missing = [p for p in missing if not written(p)]
        if not missing:
            return
    raise RuntimeError(
        f"LibreOffice did not convert {len(missing)} file(s) in {attempts} starts (exit {proc.returncode}): "
        f"{', '.join(map(str, missing[:3]))}; stderr: {proc.stderr.strip()[:300]}"
    )


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
        status, out, err = run_as_group(cmd, env, timeout)
        return subprocess.CompletedProcess(cmd, status, out, err)


LIBREOFFICE, GNUMERIC = "LibreOffice", "Gnumeric"
ENGINES = {"libreoffice": LIBREOFFICE, "gnumeric": GNUMERIC}


@dataclass
class Report:
    path: Path
    compared: int = 0
    problems: list[str] = field(default_factory=list)
    engine: str = LIBREOFFICE

    def summary(self) -> str:
        state = "OK" if not self.problems else f"{len(self.problems)} problem(s)"
        return f"{self.path}: {self.compared} formula cells compared in {self.engine}: {state}"


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


class Operands:
    """What a formula reads, for a comparison with Gnumeric: the cells and rows it names (a defined name, a cell, a
    range) with their values in the workbook and in the engine's copy. Read lazily: only a cell that differs needs
    it."""

    def __init__(self, original: Path, got: Cells):
        self.original, self.got = original, got
        self._values: Cells | None = None
        self._names: dict[str, str] | None = None

    def read(self, sheet: str, formula: str) -> list[tuple[str, str]]:
        """The cells a formula names."""
        from openpyxl.formula.tokenizer import Token, Tokenizer

        if self._values is None:
            self._values, self._names = cell_values(self.original), defined_names(self.original)
        out = []
        for token in Tokenizer(formula).items:
            if token.type == Token.OPERAND and token.subtype == Token.RANGE:
                out += self._cells(sheet, token.value)
        return out

    def scale(self, sheet: str, formula: str) -> float:
        """The largest magnitude among the values the formula reads (0 for none)."""
        sizes = [abs(float(v)) for where in self.read(sheet, formula) if _number(v := self._own(where))]
        return max(sizes, default=0.0)

    def inherited(self, sheet: str, formula: str) -> float:
        """The largest relative difference between the workbook and the engine among the values the formula reads:
        a figure that differs by no more is not itself a difference, only what it reads carried into it."""
        diffs = [_relative(self._own(where), self.got.get(where)) for where in self.read(sheet, formula)]
        return max(diffs, default=0.0)

    def _own(self, where: tuple[str, str]) -> Any:
        assert self._values is not None
        return self._values.get(where)

    def _cells(self, sheet: str, ref: str) -> list[tuple[str, str]]:
        from openpyxl.utils.cell import get_column_letter, range_boundaries

        assert self._names is not None
        ref = self._names.get(ref, ref)
        if "!" in ref:
            sheet, ref = ref.rsplit("!", 1)
            sheet = sheet.strip("'").replace("''", "'")
        try:
            c1, r1, c2, r2 = range_boundaries(ref.replace("$", ""))
        except (ValueError, TypeError):
            return []
        if None in (c1, r1, c2, r2):
            return []
        return [(sheet, f"{get_column_letter(c)}{r}") for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _relative(a: Any, b: Any) -> float:
    """|a - b| / the larger magnitude; 0 for two equal values or where either is no number."""
    if not (_number(a) and _number(b)) or a == b:
        return 0.0
    return abs(float(a) - float(b)) / max(abs(float(a)), abs(float(b)))


def compare(original: Path, recalculated: Path | Cells, engine: str = LIBREOFFICE,
            formulas: Cells | None = None) -> Report:
    """Every formula cell's cached value in `original` against its value in `recalculated` (the engine's copy):
    a path, or that copy's values already read (`cell_values`), so a caller that reads them too reads the file
    once; `formulas`: the original's formula cells already read (`formula_cells`), for a caller that compares it
    with two engines. Against Gnumeric a figure may differ by rounding of the values its formula reads (see the
    module)."""
    report = Report(original, engine=engine)
    cells = formula_cells(original) if formulas is None else formulas
    got_cells = cell_values(recalculated) if isinstance(recalculated, str | Path) else recalculated
    operands = Operands(original, got_cells) if engine == GNUMERIC else None
    for (sheet, coord), (formula, expected) in cells.items():
        got = got_cells.get((sheet, coord))
        report.compared += 1
        if got == expected and expected is not None and not is_error(got):
            continue  # equal values are the same() at any tolerance (most cells: a third of a comparison's time)
        where = f"'{sheet}'!{coord}"
        if is_error(got):
            report.problems.append(f"{where}: error {got} from {formula} in {engine}")
        elif expected is None:
            report.problems.append(f"{where}: no cached value for {formula}")
        elif not (same(expected, got, exact=_counted(formula, expected, got))
                  or _within_operands(expected, got, formula, sheet, operands)):
            report.problems.append(f"{where}: Python {expected!r} != {engine} {got!r} in {formula}")
    if not cells:
        report.problems.append("no formula cells found")
    return report


def _counted(formula: str, expected: Any, got: Any) -> bool:
    """A count, compared exactly: a whole number made by rounding in both versions (a formula that rounds inside a
    power, 2^ROUNDUP(...), may be whole in one engine and 3.9999999999999996 in the other: no count)."""
    return is_count(formula, expected) and _number(got) and float(got).is_integer()


def _within_operands(expected: Any, got: Any, formula: str, sheet: str, operands: Operands | None) -> bool:
    """Gnumeric's figure within 1e-9 of the largest value the formula reads, or differing by no more (relatively)
    than a value it reads differs: what it reads carried into it (never a count, never TRUE/FALSE)."""
    if operands is None or _counted(formula, expected, got) or not (_number(expected) and _number(got)):
        return False
    e, g = float(expected), float(got)
    if abs(e - g) <= REL_TOL * max(abs(e), abs(g), operands.scale(sheet, formula)):
        return True
    return _relative(e, g) <= REL_TOL + operands.inherited(sheet, formula)


def installed_engines() -> list[str]:
    """The engines on this machine, by their command-line names: LibreOffice, then Gnumeric."""
    from workbook.libreoffice import gnumeric

    out = ["libreoffice"] if shutil.which("soffice") or shutil.which("libreoffice") else []
    return out + (["gnumeric"] if gnumeric.installed() else [])


def verify_files(paths: Iterable[Path], engines: Iterable[str] = ("libreoffice",)) -> list[Report]:
    """Each workbook recalculated by each engine ("libreoffice", "gnumeric") and compared: a report per workbook
    per engine, the engines in the order given."""
    from workbook.libreoffice import gnumeric

    paths = [Path(p) for p in paths]
    for p in paths:
        if not p.exists():
            raise InputError(f"{p}: no such workbook")
        if not zipfile.is_zipfile(p):
            raise InputError(f"{p}: not an .xlsx workbook (not a zip package)")
        try:
            sheet_titles(p)
        except Unusual:
            raise InputError(f"{p}: not an .xlsx workbook (a zip package without a workbook's sheets)") from None
    reports = []
    with tempfile.TemporaryDirectory(prefix="verify-") as tmp:
        for engine in engines:
            if engine == "libreoffice":
                values = recalculated_values(paths, Path(tmp) / "libreoffice")
                reports += [compare(p, values[p.resolve()]) for p in paths]
            else:
                copies = gnumeric.recalculate(paths, Path(tmp) / "gnumeric")
                reports += [compare(p, copies[p.resolve()].path, GNUMERIC) for p in paths]
    return reports
