"""sheet_reader reads formulas and their cached values, and every cell's value, in one pass over the XML: it must
give exactly what the openpyxl loads it replaces give (values and their types), and leave unusual files to
openpyxl."""

from __future__ import annotations

import datetime
import math
import zipfile
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.helpers import example_workbook, site_workbook
from workbook.libreoffice import sheet_reader as reader
from workbook.libreoffice.verify import compare, is_count, is_error, recalculate, same

SITES = sorted((ROOT / "inputs").glob("*.yaml"))


def typed(cells: dict[tuple[str, str], tuple[str, Any]]) -> dict[tuple[str, str], tuple[str, Any, type]]:
    return {k: (f, v, type(v)) for k, (f, v) in cells.items()}


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES, ids=[s.name for s in SITES])
def test_one_pass_reader_equals_two_openpyxl_loads(site: Path) -> None:
    _, _, path = site_workbook(site.name)
    fast = reader.one_pass(path, formulas=True)
    assert len(fast) > 1000
    assert typed(fast) == typed(reader.formula_cells_openpyxl(path))
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
    fast, slow = typed(reader.one_pass(path, formulas=True)), typed(reader.formula_cells_openpyxl(path))
    # openpyxl takes a text cell starting with "=" for a formula; it is a string, with nothing to recalculate
    assert slow.pop(("P&L 'q' x", "A7"))[0] == "=not a formula, a string"
    assert fast == slow
    assert reader.formula_cells(path)[("P&L 'q' x", "A4")] == ('=IF(A1>0,"yes <&>","no")', "yes <&>")


def test_what_the_reader_does_not_read_goes_to_openpyxl(tmp_path: Path) -> None:
    path = tmp_path / "array.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("S")
    ws.write_formula("A1", "=1+2", None, 3)
    ws.write_array_formula("B1:B1", "{=SUM(A1:A1*2)}", None, 6)
    wb.close()
    with pytest.raises(reader.Unusual):
        reader.one_pass(path, formulas=True)
    assert reader.formula_cells(path) == reader.formula_cells_openpyxl(path)

    shared = tmp_path / "shared.xlsx"  # a shared formula, as Excel and LibreOffice write them
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(shared, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<f>1+2</f>", b'<f t="shared" ref="A1" si="0">1+2</f>')
            dst.writestr(item, data)
    with pytest.raises(reader.Unusual):
        reader.one_pass(shared, formulas=True)
    assert reader.formula_cells(shared) == reader.formula_cells_openpyxl(shared)


def test_not_a_workbook_still_fails_as_before(tmp_path: Path) -> None:
    path = tmp_path / "x.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "not a workbook")
    with pytest.raises(Exception) as fast:
        reader.formula_cells(path)
    with pytest.raises(Exception) as slow:
        reader.formula_cells_openpyxl(path)
    assert type(fast.value) is type(slow.value)


def numeric(cells: dict[tuple[str, str], Any]) -> dict[tuple[str, str], Any]:
    """A whole number is an int in the XML and a float once openpyxl has read it as a date: the same value."""
    return {k: (float(v), "number") if isinstance(v, int | float) and not isinstance(v, bool) else (v, type(v))
            for k, v in cells.items()}


def test_every_cell_value_equals_openpyxls_data_only_load() -> None:
    _, _, path = example_workbook()
    fast = reader.one_pass(path, formulas=False)
    assert len(fast) > 5000
    assert numeric(fast) == numeric(reader.cell_values_openpyxl(path))
    assert {type(v) for v in fast.values()} >= {bool, str, float, int}


def test_every_value_of_libreoffices_copy_equals_openpyxls(libreoffice: str, tmp_path: Path) -> None:
    """LibreOffice writes its own XML (its shared strings, rich text, errors): the parity tests read that file."""
    path = tmp_path / "kinds.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("P&L 'q' x")
    bold = wb.add_format({"bold": True})
    ws.write_formula("A1", "=1+2", None, 0)
    ws.write_formula("A2", "=1/0", None, 0)
    ws.write_formula("A3", '=IF(A1>0,"yes <&>","no")', None, "")
    ws.write_formula("A4", "=A1>2", None, False)
    ws.write_rich_string("A5", "plain ", bold, "bold", " tail")
    ws.write_string("A6", "  spaced  ")
    ws.write_datetime("A7", datetime.datetime(2027, 1, 31), wb.add_format({"num_format": "yyyy-mm-dd"}))
    ws.write_number("C9", 0.1 + 0.2)
    wb.close()
    lo = recalculate([path], tmp_path / "lo")[path.resolve()]
    fast = reader.one_pass(lo, formulas=False)
    assert numeric(fast) == numeric(reader.cell_values_openpyxl(lo))
    sheet = "P&L 'q' x"
    assert [fast[(sheet, c)] for c in ("A1", "A2", "A3", "A4", "A5", "A6")] == [
        3, "#DIV/0!", "yes <&>", True, "plain bold tail", "  spaced  "]
    assert fast[(sheet, "A7")] == 46418 and (sheet, "C9") in fast


@pytest.mark.parametrize(("row", "col", "coord"), [(0, 0, "A1"), (11, 1, "B12"), (0, 25, "Z1"), (0, 26, "AA1"),
                                                    (4, 701, "ZZ5"), (4, 702, "AAA5")])
def test_coordinate(row: int, col: int, coord: str) -> None:
    assert reader.coordinate(row, col) == coord


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), st.sampled_from(
    ["", "1", "TRUE", "#DIV/0!", "Err:502", "#N/A", "text"]))


@given(expected=VALUES, got=VALUES, formula=st.sampled_from(["=A1", "=ROUNDUP(A1,0)", "=A1>0"]))
def test_compare_passes_a_cell_exactly_when_same_does(expected: Any, got: Any, formula: str) -> None:
    """compare passes a cell whose value equals its cached one without asking same(): its verdict must be the
    rule's, whatever the values (no error, a cached value, and same() at the tolerance the formula asks)."""
    counted = (is_count(formula, expected) and isinstance(got, int | float) and not isinstance(got, bool)
               and math.isfinite(got) and float(got).is_integer())
    rule = not is_error(got) and expected is not None and same(expected, got, exact=counted)
    report = compare(Path("never-read.xlsx"), {("S", "A1"): got}, formulas={("S", "A1"): (formula, expected)})
    assert (report.problems == []) == rule and report.compared == 1
