"""The build at the speed of the file format: the fast formula path writes the same bytes as xlsxwriter's own."""

from __future__ import annotations

import inspect
import io
import re
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from tests.conftest import ROOT
from tests.helpers import site_model
from workbook.api import save
from workbook.excel import fast_formulas
from workbook.excel.cells import CellContext, ColumnTemplate, filled
from workbook.excel.layout import FIRST_PERIOD

SITES = sorted((ROOT / "inputs").glob("*.yaml"))


def test_the_fast_path_is_on_for_the_installed_xlsxwriter() -> None:
    """A new xlsxwriter turns the fast path off (correct, but slow): read its Worksheet._write_formula and
    _prepare_formula again, then add the version to fast_formulas.AUDITED."""
    assert fast_formulas.ENABLED, (
        f"xlsxwriter {xlsxwriter.__version__} is not in fast_formulas.AUDITED {fast_formulas.AUDITED}")


def _renamed_functions() -> list[str]:
    """Every function name xlsxwriter's preparation rewrites, read from its source (dynamic and future)."""
    source = inspect.getsource(Worksheet._prepare_formula)
    names = re.findall(r're\.sub\(\s*r"\\[bS]([A-Z0-9.]+)\\\(', source)
    assert len(names) > 100, "xlsxwriter's _prepare_formula changed shape; read it again"
    return names


@pytest.mark.parametrize("future", [False, True])
def test_the_guard_sends_every_formula_preparation_would_change_to_xlsxwriter(future: bool) -> None:
    wb = xlsxwriter.Workbook(io.BytesIO(), {"in_memory": True, "use_future_functions": future})
    ws = wb.add_worksheet()
    samples = [f"=1+{name}(A1)" for name in _renamed_functions()]
    samples += [f"=X{name[1:]}(A1)" for name in _renamed_functions()]  # \SINGLE\( matches any first letter
    samples += ["={1,2}", "=SUM(A1:A3)}", "=_xlfn.XLOOKUP(A1,B1:B3,C1:C3)", "A1+1", "", "=",
                "=IF(A1>0,ROUNDUP(A1/B1,0),MAX(C1,D1))", "=SUM(power_it_load)*'Power chain'!D12",
                '=IF(x_y>0,x_y,"no value: x is 0")', "=IRR(tco_cash_flow)", "=A1@B1", "=Table1[[#This Row],[a]]"]
    for formula in samples:
        if not fast_formulas.needs_preparation(ws, formula):
            assert ws._prepare_formula(formula) == formula[1:], formula
    assert fast_formulas.needs_preparation(ws, "=1+SORT(A1:A3)")
    assert fast_formulas.needs_preparation(ws, "=1+XSINGLE(A1)")
    assert fast_formulas.needs_preparation(ws, "=1+ACOT(A1)") == future
    assert not fast_formulas.needs_preparation(ws, "=IF(A1>0,ROUNDUP(A1/B1,0),MAX(C1,D1))") or future


def test_the_fast_path_stores_what_xlsxwriter_stores() -> None:
    wb = xlsxwriter.Workbook(io.BytesIO(), {"in_memory": True})
    slow, fast = wb.add_worksheet("slow"), wb.add_worksheet("fast")
    fmt = wb.add_format({"num_format": "0.00"})
    cells = [(3, 4, "=A1*2", fmt, 2.5), (0, 0, "=1+SORT(B1:B3)", None, 1), (7, 1, "=X1>0", None, True),
             (9, 2, '=IF(A1=0,"none",A1)', fmt, "none"), (1048576, 0, "=1", None, 0), (5, 16384, "=1", None, 0)]
    for row, col, formula, f, value in cells:
        assert fast_formulas.write_formula(fast, row, col, formula, f, value) == slow.write_formula(
            row, col, formula, f, value)
    assert fast.table == slow.table
    assert (fast.dim_rowmin, fast.dim_rowmax, fast.dim_colmin, fast.dim_colmax) == (
        slow.dim_rowmin, slow.dim_rowmax, slow.dim_colmin, slow.dim_colmax)
    assert fast.has_dynamic_arrays == slow.has_dynamic_arrays
    wb.close()


@pytest.fixture(scope="module")
def models() -> dict[str, Any]:
    return {site.name: site_model(site.name) for site in SITES}


@pytest.mark.slow
@pytest.mark.parametrize("site", [s.name for s in SITES])
def test_every_site_is_byte_identical_with_the_fast_formula_path(
    site: str, models: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each workbook of inputs/ built with xlsxwriter's own write_formula and with every formula cell going
    through fast_formulas.write_formula (whether or not the writer calls it yet) gives the same bytes."""
    model = models[site]
    with monkeypatch.context() as m:  # the reference: xlsxwriter's own path for every formula
        m.setattr(fast_formulas, "ENABLED", False)
        save(model, tmp_path / "reference.xlsx")

    calls = {"fast": 0, "xlsxwriter": 0}
    guard = fast_formulas.needs_preparation

    def counted(ws: Worksheet, formula: Any) -> bool:
        slow = guard(ws, formula)
        calls["xlsxwriter" if slow else "fast"] += 1
        return slow

    def routed(ws: Worksheet, row: Any, col: Any, *args: Any, **kwargs: Any) -> int:
        if isinstance(row, str):  # A1 notation: xlsxwriter's own path
            return original(ws, row, col, *args, **kwargs)
        return fast_formulas.write_formula(ws, row, col, *args, **kwargs)

    original = fast_formulas.xlsxwriter_write_formula
    monkeypatch.setattr(fast_formulas, "needs_preparation", counted)
    monkeypatch.setattr(Worksheet, "write_formula", routed)
    save(model, tmp_path / "fast.xlsx")
    reference, fast = (tmp_path / "reference.xlsx").read_bytes(), (tmp_path / "fast.xlsx").read_bytes()
    assert calls["fast"] > 1000, calls
    assert calls["xlsxwriter"] == 0, f"{calls['xlsxwriter']} formulas took xlsxwriter's own path"
    assert fast == reference


@pytest.mark.slow
@pytest.mark.parametrize("site", [s.name for s in SITES])
def test_a_rows_formula_rendered_once_is_each_columns_own(site: str, models: dict[str, Any], tmp_path: Path) -> None:
    """The writer renders a row's formula once with its column letters left open (cells.ColumnTemplate) and
    fills them in for each period column: for every column of every row of every site, the text is the formula
    rendered in that column (same column, previous column, headers, other sheets)."""
    model = models[site]
    layout = save(model, tmp_path / "book.xlsx")
    checked = 0
    for line in model.book.lines.values():
        if line.kind == "input" or not line.series or line.formula is None or line.id in layout.as_values:
            continue
        sheet = layout.cells[line.id][0]
        template = line.formula.render(ColumnTemplate(layout, sheet))
        for t in range(model.values[line.id].shape[1]):
            col = FIRST_PERIOD + t
            assert filled(template, col) == line.formula.render(CellContext(layout, sheet, col)), (line.id, col)
            checked += 1
    assert checked > 5_000
