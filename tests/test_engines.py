"""A second spreadsheet engine: the same numbers in Gnumeric as in LibreOffice, and no answer that depends on the
engine (an exact comparison of two computed values, a function an engine computes its own way, a search).

The parity tests (tests/test_parity.py, tests/parity.py) recalculate every workbook of inputs/ and the random sites
in both engines and compare every formula cell; these tests prove the rules that make that hold.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import xlsxwriter

from tests.conftest import ROOT
from tests.helpers import documents_text, run
from tests.parity import Built, build_all
from workbook.book.constants import is_constant
from workbook.formula import functions
from workbook.formula.engines import FUNCTIONS
from workbook.formula.expr import Compare, Ref
from workbook.libreoffice import gnumeric as gnumeric_engine
from workbook.libreoffice.sheet_reader import formula_cells
from workbook.libreoffice.verify import GNUMERIC, compare, verify_files

SITES = sorted((ROOT / "inputs").glob("*.yaml"))
# Gnumeric 1.12 reads print titles of rows or of columns, not both at once: importing a sheet that repeats both (its
# labels on every page across, its header on every page down, as Excel and LibreOffice print them) it says this
# and prints without them. The values are not affected; the PDF the tool makes prints them (LibreOffice).
PRINT_TITLES = re.compile(r"^At A1: '.+![$][A-Z]+:[$][A-Z]+,.+![$]\d+:[$]\d+' Multiple expressions are not "
                          r"supported in this context$")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> list[Built]:
    return build_all(SITES, tmp_path_factory.mktemp("engines"))


def _computed(node: object) -> bool:
    """A part of a formula that reads a calculated line (not an input, a constant or a literal)."""
    return any(isinstance(n, Ref) and n.line.kind != "input" and not is_constant(n.line) for n in node.walk())


def test_no_formula_compares_two_computed_values_for_equality(built: list[Built]) -> None:
    """An = or <> between two calculated values is engine-dependent (Gnumeric compares the bits, LibreOffice to 15
    digits): every such comparison is within the method's tolerance instead (functions.close)."""
    found = []
    for b in built:
        for line in b.model.book.lines.values():
            for root in (line.formula, line.opening):
                for n in (root.walk() if root is not None else ()):
                    if isinstance(n, Compare) and n.op in ("=", "<>") and _computed(n.a) and _computed(n.b):
                        found.append(f"{b.site_file.name}: {line.id}")
    assert found == []


def test_the_tolerance_helpers_render_one_rule() -> None:
    """close(a, b) is ABS(a-b) <= tolerance x MAX(1, ABS(a), ABS(b)): the rule named once, with its constant."""
    source = inspect.getsource(functions._within)
    assert "tolerance()" in source and "abs_(x - y)" in source


def test_every_function_a_workbook_uses_is_one_every_engine_computes_alike(built: list[Built]) -> None:
    used = set()
    for b in built:
        for formula, _ in formula_cells(b.xlsx).values():
            used |= set(re.findall(r"([A-Z][A-Z0-9.]*)\(", formula))
    assert used and used <= set(FUNCTIONS), used - set(FUNCTIONS)
    rendered = set(re.findall(r'"([A-Z]+)"', inspect.getsource(functions)))  # every name the core renders
    offered = {name for name in rendered if name.isupper() and len(name) > 1} - {"IFERROR(", "USD", "TRUE", "FALSE"}
    assert offered <= set(FUNCTIONS), offered - set(FUNCTIONS)


def test_gnumeric_opens_every_workbook_with_no_warning_but_the_print_titles(gnumeric: str, built: list[Built],
                                                                           tmp_path: Path) -> None:
    copies = gnumeric_engine.recalculate([b.xlsx for b in built], tmp_path)
    for copy in copies.values():
        assert copy.path.stat().st_size > 0
        assert all(PRINT_TITLES.match(w) for w in copy.warnings), copy.warnings


def _wrong(path: Path) -> Path:
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("S")
    ws.write_number("A1", 100000000.1)
    ws.write_number("A2", 0.1)
    ws.write_formula("A3", "=A1-100000000-A2", None, 0)  # 0 in LibreOffice (cancels to 15 digits), -6e-9 in IEEE
    ws.write_formula("A4", "=1+2", None, 99)  # wrong on purpose
    ws.write_formula("A5", "=ROUNDUP(A1/3,0)", None, 33333334)  # a count: exact
    wb.close()
    return path


def test_gnumeric_recalculates_and_the_report_names_it(gnumeric: str, tmp_path: Path) -> None:
    """A wrong cached value comes back right from Gnumeric too, and its report says Gnumeric; a difference that is
    rounding of the values the formula reads is no difference; a count is compared exactly."""
    [report] = verify_files([_wrong(tmp_path / "wrong.xlsx")], ["gnumeric"])
    assert report.engine == GNUMERIC and report.compared == 3
    assert report.problems == ["'S'!A4: Python 99 != Gnumeric 3 in =1+2"]


def test_rounding_of_the_operands_is_no_difference_but_a_real_one_is(tmp_path: Path) -> None:
    path = _wrong(tmp_path / "w.xlsx")
    copy = tmp_path / "copy.xlsx"
    wb = xlsxwriter.Workbook(str(copy))
    ws = wb.add_worksheet("S")
    for cell, value in (("A1", 100000000.1), ("A2", 0.1), ("A3", 100000000.1 - 100000000 - 0.1), ("A4", 3.0),
                        ("A5", 33333335)):
        ws.write_number(cell, value)
    wb.close()
    report = compare(path, copy, GNUMERIC)
    assert [p.split(":")[0] for p in report.problems] == ["'S'!A4", "'S'!A5"]  # 99 vs 3; a count off by one


def test_the_command_verifies_in_each_engine(libreoffice: str, gnumeric: str, tmp_path: Path) -> None:
    path = _wrong(tmp_path / "wrong.xlsx")
    for engine, expected in (("libreoffice", ["LibreOffice"]), ("gnumeric", ["Gnumeric"]),
                             ("all", ["LibreOffice", "Gnumeric"])):
        proc = run("verify", path, "--engine", engine)
        assert proc.returncode == 4, proc.stderr
        engines = re.findall(r"compared in (\w+)", proc.stdout)
        assert engines == expected, proc.stdout
        assert all(f"!= {name} 3" in proc.stdout for name in expected)


def test_readme_says_why_gnumeric_prints_without_repeated_titles() -> None:
    text = documents_text()
    assert "Multiple expressions are not supported in this context" in text
