"""The Sensitivity sheet as a reviewer reads it: whole, distinct headers; each input's values in its own number
format; a tornado chart with its labels clear of the bars and a title that says what and in which unit; and a
live check, on the Checks sheet, that turns FALSE once an input the build-time table read is edited."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml

from tests.conftest import EXAMPLE
from workbook.api import Model, build
from workbook.excel.layout import Layout
from workbook.excel.pages import LINE_HEIGHT, wrapped_lines
from workbook.formula.line import Line
from workbook.sheets import SENSITIVITY
from workbook.verify import load_values, recalculate, same

CURRENT = "sensitivity.current"  # the check's id, as `evaluate --json` lists it
OUTPUTS = ("tco.owned_cost_per_gpu_hour", "tco.break_even_utilisation")


@dataclass
class Built:
    path: Path
    model: Model
    layout: Layout
    sheet: Any  # the Sensitivity worksheet, read by openpyxl


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Built:
    path = tmp_path_factory.mktemp("sensitivity") / "example.xlsx"
    model, layout = build(EXAMPLE, path)
    return Built(path, model, layout, openpyxl.load_workbook(path)[SENSITIVITY])


def header_row(ws: Any) -> int:
    """The table's header row (1-based): the row whose first cell reads "Input"."""
    return next(c.row for c in ws["A"] if c.value == "Input")


def table_rows(ws: Any) -> list[tuple[Any, ...]]:
    """The table's rows of cells, from under the header to the first empty label."""
    out = []
    for row in ws.iter_rows(min_row=header_row(ws) + 1):
        if row[0].value is None:
            break
        out.append(row)
    return out


def column_width(ws: Any, col: int) -> float:
    """A column's width in characters (a run of like columns is stored once, as a range)."""
    [width] = [d.width for d in ws.column_dimensions.values() if d.min is not None and d.min <= col <= d.max]
    return width


def inputs_by_label(model: Model) -> dict[str, Line]:
    return {line.label: line for line in model.book.lines.values() if line.kind == "input"}


def test_headers_are_distinct_and_each_reads_whole_at_its_width(example: Built) -> None:
    ws = example.sheet
    r = header_row(ws)
    heads = [c for c in ws[r] if c.value is not None]
    texts = [c.value for c in heads]
    assert len(texts) == len(set(texts)) == 13, texts
    height = ws.row_dimensions[r].height
    for c in heads:
        width = column_width(ws, c.column)
        assert c.alignment.wrap_text, c.value
        assert wrapped_lines(c.value, width) * LINE_HEIGHT <= height, (c.value, width, height)
    results = texts[5:]
    for text in results:  # each names its result, its unit and its case in full
        assert re.search(r"\((USD/GPU-h|%|percentage points)\): (change )?at (low|high)$", text), text
    assert "Owned cost per GPU-hour used, after tax (USD/GPU-h): change at high" in results


def test_each_input_row_is_in_that_inputs_format_and_each_result_in_its_own(example: Built) -> None:
    by_label = inputs_by_label(example.model)
    formats = {example.model.book.lines[out].fmt for out in OUTPUTS}
    rows = table_rows(example.sheet)
    assert len(rows) >= 5
    seen = set()
    for row in rows:
        line = by_label[row[0].value]
        assert [c.number_format for c in row[2:5]] == [line.fmt] * 3, line.id
        assert row[3].value == pytest.approx(float(line.value.reshape(-1)[0]), rel=1e-12), line.id
        seen.add(line.fmt)
        for c in row[5:]:
            if isinstance(c.value, float | int):
                assert c.number_format in formats, (line.id, c.coordinate, c.number_format)
    assert len(seen) >= 3  # shares, counts and currencies each in their own format


def sensitivity_charts(path: Path) -> list[str]:
    """The XML of each chart that plots the Sensitivity sheet's rows."""
    with zipfile.ZipFile(path) as z:
        xml = [z.read(n).decode() for n in z.namelist() if re.fullmatch(r"xl/charts/chart\d+\.xml", n)]
    return [x for x in xml if f"<c:f>{SENSITIVITY}!" in x or f"<c:f>'{SENSITIVITY}'!" in x]


def test_the_charts_put_labels_at_the_low_end_and_name_what_changes_and_its_unit(example: Built) -> None:
    charts = sensitivity_charts(example.path)
    assert len(charts) == len(OUTPUTS)
    titles = []
    for xml in charts:
        assert '<c:tickLblPos val="low"/>' in xml
        title = "".join(re.findall(r"<a:t>([^<]*)</a:t>", xml.split("<c:title>")[1].split("</c:title>")[0]))
        assert not re.search(r"\d", title), title
        titles.append(title)
    assert "Change in owned cost per GPU-hour used, after tax from the base case (USD/GPU-h)" in titles


def test_the_sheet_says_where_its_currency_check_is(example: Built) -> None:
    top = " ".join(str(c.value) for row in example.sheet.iter_rows(max_row=header_row(example.sheet) - 1)
                   for c in row if c.value)
    check = example.model.book.lines[CURRENT]
    assert "Checks sheet" in top and check.name in top
    assert check.sheet == "Checks"


def test_the_currency_check_passes_as_built_with_scenarios_and_stays_out_of_the_master(example: Built) -> None:
    """As built it is TRUE, no scenario has a copy of it (a copy would compare the scenario's changed input with
    the base build value), and the master check does not read it: an edit to explore is not a failed design."""
    model = example.model
    assert model.book.scenarios  # the example has scenarios that change inputs the tornado moved
    assert bool(model.values[CURRENT].reshape(-1)[0])
    assert not any(CURRENT in mapping for mapping in model.book.scenarios.values())
    master = model.book.lines["checks.all_pass"]
    assert CURRENT not in {line.id for node in master.formula.walk() for line in node.lines()}


def test_editing_an_input_the_table_read_turns_the_check_false_in_libreoffice(libreoffice: str, example: Built,
                                                                            tmp_path: Path) -> None:
    first = inputs_by_label(example.model)[table_rows(example.sheet)[0][0].value]  # the widest bar's input
    sheet, row, col = example.layout.cells[first.id]
    wb = openpyxl.load_workbook(example.path)
    cell = wb[sheet].cell(row=row + 1, column=col + 1)
    cell.value = cell.value * 1.5
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    recalced = recalculate([example.path, edited], tmp_path / "recalculated")

    def read(path: Path, line_id: str) -> Any:
        s, r, c = example.layout.cells[line_id]
        return load_values(recalced[path.resolve()])[s].cell(row=r + 1, column=c + 1).value

    assert same(True, read(example.path, CURRENT))
    assert same(False, read(edited, CURRENT))
    assert same(True, read(edited, "checks.all_pass"))  # a notice, not part of the master check


def test_a_case_the_model_cannot_compute_is_na_with_its_reason_whole(tmp_path: Path) -> None:
    """A 60-month timeline cannot hold a useful life moved to 72 months: that case is n/a, and its reason is
    written whole under the table (a cell's text is cut at its neighbour)."""
    site = yaml.safe_load(EXAMPLE.read_text())
    site.pop("scenarios", None)
    site.setdefault("tco", {})["horizon"] = "60 months"
    (tmp_path / "short.yaml").write_text(yaml.safe_dump(site, sort_keys=False))
    _, _ = build(tmp_path / "short.yaml", tmp_path / "short.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "short.xlsx")[SENSITIVITY]
    na = [c.value for row in table_rows(ws) for c in row if isinstance(c.value, str) and c.value.startswith("n/a")]
    assert na and all(v.startswith("n/a: ") and len(v) > 6 for v in na)
    below = [str(c.value) for row in ws.iter_rows(min_row=header_row(ws) + len(table_rows(ws)) + 1) for c in row
             if c.value]
    assert any(all(v[len("n/a: "):] in text for v in na) for text in below), below
