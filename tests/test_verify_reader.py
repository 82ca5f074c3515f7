"""verify.formula_cells reads formulas and their cached values in one pass over the XML: it must give exactly
what the two openpyxl loads it replaces give (values and their types), and leave unusual files to openpyxl."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter

from tests.conftest import ROOT
from workbook import verify
from workbook.api import load, save

SITES = sorted((ROOT / "inputs").glob("*.yaml"))


def typed(cells: dict[tuple[str, str], tuple[str, Any]]) -> dict[tuple[str, str], tuple[str, Any, type]]:
    return {k: (f, v, type(v)) for k, (f, v) in cells.items()}


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES, ids=[s.name for s in SITES])
def test_one_pass_reader_equals_two_openpyxl_loads(site: Path, tmp_path: Path) -> None:
    path = tmp_path / "book.xlsx"
    save(load(site), path)
    fast = verify._read_formula_cells(path)
    assert len(fast) > 1000
    assert typed(fast) == typed(verify._formula_cells_openpyxl(path))
    assert {type(v) for _, v in fast.values()} >= {bool, str, float}


def test_a_workbook_of_every_cached_kind(tmp_path: Path) -> None:
    path = tmp_path / "kinds.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("P&L 'q' x")
    ws.write_formula("A1", "=1+2", None, 3)
    ws.write_formula("A2", "=A1/2", None, 1.5)
    ws.write_formula("A3", "=A1>2", None, True)
    ws.write_formula("A4", '=IF(A1>0,"yes <&>","no")', None, "yes <&>")
    ws.write_formula("A5", "=1/0", None, "#DIV/0!")
    ws.write_formula("A6", "=A2*1E+300", None, 1.5e300)
    ws.write_string("A7", "=not a formula, a string")
    wb.close()
    fast, slow = typed(verify._read_formula_cells(path)), typed(verify._formula_cells_openpyxl(path))
    # openpyxl takes a text cell starting with "=" for a formula; it is a string, with nothing to recalculate
    assert slow.pop(("P&L 'q' x", "A7"))[0] == "=not a formula, a string"
    assert fast == slow
    assert verify.formula_cells(path)[("P&L 'q' x", "A4")] == ('=IF(A1>0,"yes <&>","no")', "yes <&>")


def test_what_the_reader_does_not_read_goes_to_openpyxl(tmp_path: Path) -> None:
    path = tmp_path / "array.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("S")
    ws.write_formula("A1", "=1+2", None, 3)
    ws.write_array_formula("B1:B1", "{=SUM(A1:A1*2)}", None, 6)
    wb.close()
    with pytest.raises(verify._Unusual):
        verify._read_formula_cells(path)
    assert verify.formula_cells(path) == verify._formula_cells_openpyxl(path)

    shared = tmp_path / "shared.xlsx"  # a shared formula, as Excel and LibreOffice write them
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(shared, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<f>1+2</f>", b'<f t="shared" ref="A1" si="0">1+2</f>')
            dst.writestr(item, data)
    with pytest.raises(verify._Unusual):
        verify._read_formula_cells(shared)
    assert verify.formula_cells(shared) == verify._formula_cells_openpyxl(shared)


def test_not_a_workbook_still_fails_as_before(tmp_path: Path) -> None:
    path = tmp_path / "x.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "not a workbook")
    with pytest.raises(Exception) as fast:
        verify.formula_cells(path)
    with pytest.raises(Exception) as slow:
        verify._formula_cells_openpyxl(path)
    assert type(fast.value) is type(slow.value)
