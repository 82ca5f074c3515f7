"""The parity harness: build workbooks, recalculate them in LibreOffice (in one start, every sheet read back from
its CSV export: verify.recalculated_values) and in Gnumeric, compare every cell.

Per workbook: every formula cell's cached value against LibreOffice's recalculated value (verify.compare), and
every calculated line's Python value against LibreOffice's value in the line's cell; then every formula cell
against Gnumeric's (verify.compare, its tolerance: rounding of what the formula reads), so no figure, TRUE/FALSE
or count depends on the engine. Each recalculated file is read once, and no file through openpyxl's object model
(sheet_reader.cell_values and formula_cells: one pass over the XML).
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT
from tests.helpers import site_workbook
from workbook.api import Model, build
from workbook.excel.cells import cached
from workbook.excel.layout import Layout
from workbook.libreoffice import gnumeric as gnumeric_engine
from workbook.libreoffice.sheet_reader import coordinate, formula_cells
from workbook.libreoffice.verify import GNUMERIC, compare, is_error, recalculated_values, same

INPUTS = ROOT / "inputs"
REPORT = Path(__file__).resolve().parent.parent / "outputs" / "parity-report.json"


@dataclass
class Built:
    site_file: Path
    xlsx: Path
    model: Model
    layout: Layout


@dataclass
class Outcome:
    workbooks: int = 0
    cells: int = 0
    lines: int = 0
    gnumeric_cells: int = 0  # formula cells compared with Gnumeric's recalculation
    problems: list[str] = field(default_factory=list)

    def add(self, other: Outcome) -> None:
        self.workbooks += other.workbooks
        self.cells += other.cells
        self.lines += other.lines
        self.gnumeric_cells += other.gnumeric_cells
        self.problems += other.problems


def write_site(site: dict[str, Any], path: Path) -> Path:
    path.write_text(yaml.safe_dump(site, sort_keys=False))
    return path


def build_all(site_files: list[Path], outdir: Path) -> list[Built]:
    """Each site's workbook in `outdir`; a site of inputs/ as it is is the process's shared build (site_workbook),
    read-only, not built again."""
    outdir.mkdir(parents=True, exist_ok=True)
    built = []
    for f in site_files:
        if f.resolve().parent == INPUTS:
            model, layout, xlsx = site_workbook(f.name)
        else:
            xlsx = outdir / f"{f.stem}.xlsx"
            model, layout = build(f, xlsx)
        built.append(Built(f, xlsx, model, layout))
    return built


def check(built: list[Built], workdir: Path, gnumeric: bool = True) -> Outcome:
    """Recalculate all in one LibreOffice start and compare every formula cell and every line; then in Gnumeric,
    every formula cell (unless `gnumeric` is False)."""
    recalced = recalculated_values([b.xlsx for b in built], workdir / "recalculated")
    outcome = Outcome()
    formulas = {b.xlsx: formula_cells(b.xlsx) for b in built}  # each workbook read once for both engines
    if gnumeric:
        copies = gnumeric_engine.recalculate([b.xlsx for b in built], workdir / "gnumeric", jobs=1)
        for b in built:
            report = compare(b.xlsx, copies[b.xlsx.resolve()].path, GNUMERIC, formulas[b.xlsx])
            outcome.gnumeric_cells += report.compared
            outcome.problems += [f"{b.site_file.name}: {p}" for p in report.problems]
    for b in built:
        lo = recalced[b.xlsx.resolve()]  # read once, for both comparisons
        report = compare(b.xlsx, lo, formulas=formulas[b.xlsx])
        outcome.workbooks += 1
        outcome.cells += report.compared
        outcome.problems += [f"{b.site_file.name}: {p}" for p in report.problems]
        for line in b.model.book.lines.values():
            if line.kind == "input":
                continue
            sheet, row, col = b.layout.cells[line.id]
            values = b.model.values[line.id]
            outcome.lines += 1
            for t in range(values.shape[1]):  # every period of a series line, the one value of the others
                got = lo.get((sheet, coordinate(row, col + t)))
                expected = cached(line, values, t, b.model.values)
                if is_error(got) or not same(expected, got):
                    outcome.problems.append(
                        f"{b.site_file.name}: {line.id}[{t}] Python {expected!r} != LibreOffice {got!r}"
                    )
    return outcome


def record(name: str, outcome: Outcome) -> None:
    """Keep the counts for the closing note (outputs/ is not committed). Tests run in parallel processes
    (`make test`: pytest -n 2), so the read-modify-write holds a lock and the file is replaced whole."""
    REPORT.parent.mkdir(exist_ok=True)
    with open(REPORT.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(REPORT.read_text()) if REPORT.exists() else {}
        data[name] = {"workbooks": outcome.workbooks, "formula_cells": outcome.cells, "lines": outcome.lines,
                      "gnumeric_formula_cells": outcome.gnumeric_cells, "problems": len(outcome.problems)}
        partial = REPORT.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(data, indent=1))
        partial.replace(REPORT)
