"""The Sensitivity sheet as a reviewer reads it: the tornado on the decision (the NPV advantage of buying, with the
break-even utilisation beside it), continuous inputs only; the break-even rent change beside the break-even
utilisation; whole, distinct headers; each input's values in its own number format; a tornado chart with its labels
clear of the bars and a title that says what and in which unit; and a live check, on the Checks sheet, that turns
FALSE once an input the build-time table read is edited."""

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
from tests.helpers import example_workbook
from workbook.api import Model, build
from workbook.book.formats import negatives_in_parentheses
from workbook.book.sheets import SENSITIVITY
from workbook.excel.layout import Layout
from workbook.excel.pages import LINE_HEIGHT, wrapped_lines
from workbook.formula.line import BREAK_EVEN_SHORT, Line
from workbook.libreoffice.sheet_reader import load_values
from workbook.libreoffice.verify import recalculate, same

CURRENT = "sensitivity.current"  # the check's id, as `evaluate --json` lists it
OUTPUTS = ("tco.npv_advantage", "tco.break_even_utilisation")


@dataclass
class Built:
    path: Path
    model: Model
    layout: Layout
    sheet: Any  # the Sensitivity worksheet, read by openpyxl


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Built:
    model, layout, path = example_workbook()
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


@pytest.mark.slow
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
        assert re.search(r"\((MUSD|%|percentage points)\): (change )?at (low|high)$", text), text
    assert "NPV advantage of buying (MUSD): change at high" in results


def test_each_input_row_is_in_that_inputs_format_and_each_result_in_its_own(example: Built) -> None:
    """An input's low, base and high in its format (negatives in parentheses); the results in MUSD (the NPV
    advantage: 18,774,057 USD reads 18.8) or as their line shows them (the break-even: 0.0%, or never), the changes
    signed (+2.4 MUSD, -10.9 pp: a change's sign is the news)."""
    by_label = inputs_by_label(example.model)
    levels = {'#,##0.0,,_);(#,##0.0,,);"-"_)', BREAK_EVEN_SHORT}  # the break-even's "never" short in a narrow column
    changes = {"+#,##0.0,,;-#,##0.0,,;#,##0.0,,", '+#,##0.0" pp";-#,##0.0" pp";#,##0.0" pp"'}
    rows = table_rows(example.sheet)
    assert len(rows) >= 5
    seen = set()
    for row in rows:
        line = by_label[row[0].value]
        assert [c.number_format for c in row[2:5]] == [negatives_in_parentheses(line.fmt)] * 3, line.id
        assert row[3].value == pytest.approx(float(line.value.reshape(-1)[0]), rel=1e-12), line.id
        seen.add(line.fmt)
        assert {c.number_format for c in row[5:9] if isinstance(c.value, float | int)} <= levels, line.id
        assert {c.number_format for c in row[9:13] if isinstance(c.value, float | int)} <= changes, line.id
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
    assert "Change in NPV advantage of buying from the base case (MUSD)" in titles


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


@pytest.mark.slow
def test_a_case_the_model_cannot_compute_is_na_with_its_reason_whole(tmp_path: Path) -> None:
    """An 84-month timeline holds a 100-week compute lead time (24 whole months) and the 60-month life exactly;
    moved to 120 weeks (28 months) the life no longer fits: that case is n/a, and its reason is written whole under
    the table (a cell's text is cut at its neighbour)."""
    site = yaml.safe_load(EXAMPLE.read_text())
    site.pop("scenarios", None)
    site.setdefault("tco", {})["horizon"] = "84 months"
    site.setdefault("bom", {})["compute_lead_time"] = "100 weeks"
    (tmp_path / "short.yaml").write_text(yaml.safe_dump(site, sort_keys=False))
    _, _ = build(tmp_path / "short.yaml", tmp_path / "short.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "short.xlsx")[SENSITIVITY]
    na = [c.value for row in table_rows(ws) for c in row if isinstance(c.value, str) and c.value.startswith("n/a")]
    assert na and all(v.startswith("n/a: ") and len(v) > 6 for v in na)
    below = [str(c.value) for row in ws.iter_rows(min_row=header_row(ws) + len(table_rows(ws)) + 1) for c in row
             if c.value]
    assert any(all(v[len("n/a: "):] in text for v in na) for text in below), below


# ---------------------------------------------------------------- the tornado on the decision


def test_the_tornado_ranks_continuous_inputs_by_the_npv_advantage(example: Built) -> None:
    """Widest bar of the NPV advantage first; the rent inputs that decide the answer are in it, and no whole-number
    input is swung (6 or 10 GPUs per node is no option a buyer has) but the useful life and the lead time, by
    whole-month steps. Every row moves the NPV advantage by more than 1% of the NPV of owning one way or the
    other."""
    from workbook.models import all_specs

    specs = {spec.key: spec for spec in all_specs()}
    by_label = inputs_by_label(example.model)
    rows = table_rows(example.sheet)
    swung = [by_label[row[0].value] for row in rows]
    stepped = {"tco.useful_life", "tco.lead_time"}
    assert all((not specs[line.id].integer or line.id in stepped) and not specs[line.id].date for line in swung), [
        x.id for x in swung]
    ids = [line.id for line in swung]
    assert "tco.on_demand_price" in ids and "tco.rent_price_change" in ids and "power.gpus_per_node" not in ids
    change = [(row[9].value, row[10].value) for row in rows]  # the NPV advantage's change at low and at high
    widths = [sum(abs(v) for v in pair if isinstance(v, float | int)) for pair in change]
    assert widths == sorted(widths, reverse=True)
    npv_own = float(example.model.values["tco.npv_own"].reshape(-1)[0])
    assert all(max(abs(v) for v in pair if isinstance(v, float | int)) > 0.01 * npv_own for pair in change)


def test_the_on_demand_price_row_is_the_model_evaluated_at_its_low_and_high(example: Built) -> None:
    """The first row, hand-checked: the NPV advantage with the on-demand price at 2.99 x 0.8 and x 1.2 (every other
    input as built) is what the Python model gives for those inputs, and the break-even utilisation beside it."""
    row = table_rows(example.sheet)[0]
    assert row[0].value == "Rent: on-demand price (today)"
    assert (row[2].value, row[3].value, row[4].value) == pytest.approx((2.392, 2.99, 3.588), rel=1e-12)
    at = example.model.book.evaluate({"tco.on_demand_price": [2.392, 3.588]}, lines=list(OUTPUTS))
    assert [row[5].value, row[6].value] == pytest.approx(at["tco.npv_advantage"][:, 0].tolist(), rel=1e-12)
    assert [row[7].value, row[8].value] == pytest.approx(at["tco.break_even_utilisation"][:, 0].tolist(), rel=1e-12)


def facts(ws: Any) -> dict[str, tuple[Any, ...]]:
    """The figures above the table: label -> (unit, value cell, note)."""
    out = {}
    for row in ws.iter_rows(max_row=header_row(ws) - 1):
        if row[0].value and str(row[0].value).startswith("Break-even"):
            out[row[0].value] = (row[1].value, row[2], row[3].value)
    return out


RENT_ROOT = "Break-even rent price change per year (build-time value)"


def test_the_break_even_rent_change_sits_beside_the_break_even_utilisation(example: Built) -> None:
    """The root, hand-checked: the NPV advantage just below it is negative (renting ahead) and just above it
    positive (buying ahead); on the sheet beside the live break-even utilisation, labelled a build-time value."""
    shown = facts(example.sheet)
    assert list(shown) == ["Break-even utilisation (against the rent in force)", RENT_ROOT]
    live = shown["Break-even utilisation (against the rent in force)"][1]
    assert live.value == "=tco_break_even_utilisation"
    unit, cell, note = shown[RENT_ROOT]
    root = cell.value
    assert unit == "%/year" and isinstance(root, float) and "build time" in note
    assert -0.9 < root < 1.0
    at = example.model.book.evaluate({"tco.rent_price_change": [root - 1e-6, root, root + 1e-6]},
                                     lines=["tco.npv_advantage"])["tco.npv_advantage"][:, 0]
    assert at[0] < 0 < at[2]
    npv_own = float(example.model.values["tco.npv_own"].reshape(-1)[0])
    assert abs(at[1]) < 1e-6 * npv_own  # the bisection's bracket is 1e-10 wide: the NPV at its midpoint is ~0
    # the flat_rent scenario (0%/year) still rents: the root is above 0
    assert float(example.model.values["scenario.flat_rent.tco.npv_advantage"].reshape(-1)[0]) < 0 < root


@pytest.mark.slow
def test_no_break_even_rent_change_in_range_is_said_in_words(tmp_path: Path) -> None:
    """At 15 USD/GPU-h on demand, a year's rent (15 x 1,024 x 70% x 8,760 = 94 MUSD) already exceeds the NPV of
    owning (about 78 MUSD): buying is ahead even when rent falls 90% a year, so there is no root in range."""
    site = yaml.safe_load(EXAMPLE.read_text())
    site.pop("scenarios", None)
    site["tco"]["on_demand_price"] = "15 USD/GPU/hour"
    (tmp_path / "dear.yaml").write_text(yaml.safe_dump(site, sort_keys=False))
    _, _ = build(tmp_path / "dear.yaml", tmp_path / "dear.xlsx")
    _, cell, note = facts(openpyxl.load_workbook(tmp_path / "dear.xlsx")[SENSITIVITY])[RENT_ROOT]
    assert cell.value == "none"
    assert "No rent price change per year from -90% to +100% a year" in note and "buying is ahead" in note
