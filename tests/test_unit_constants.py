"""Unit conversion factors are named constants: a formula names the row that holds a factor, not the number.

Exact powers of ten stay in formulas (`/1000`); any other factor (CFM per m³/s, hours per month...) is a row of
the Inputs sheet's last section, with its label, unit, value and definition, and Python computes with the float
that row's cell holds, so LibreOffice's recalculation agrees with it.
"""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest
import yaml

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import example_model, two_fleets, unresolved_references
from tests.parity import build_all, check
from workbook.api import Model, load, save
from workbook.book.book import Book
from workbook.book.constants import METHOD_PATH, PATH, SECTION, constant, constants, is_constant, lookup
from workbook.book.document import engineering_copy
from workbook.book.presentation import Section
from workbook.book.sheets import INPUTS
from workbook.excel.layout import FIRST_PERIOD, plan
from workbook.excel.writer import CellContext
from workbook.formula.evaluation import reads
from workbook.formula.expr import UNIVERSAL, Named, Scale
from workbook.formula.units import Q_, power_of_ten, unit
from workbook.libreoffice.sheet_reader import coordinate
from workbook.libreoffice.verify import recalculated_values

SITES = sorted((ROOT / "inputs").glob("*.yaml"))
_NUMBER = re.compile(r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'!|[A-Za-z_$][A-Za-z0-9_.$]*|(?P<num>(?:\d+\.?\d*|\.\d+)'
                     r"(?:[Ee][+-]?\d+)?)")


@pytest.fixture(scope="module")
def example() -> Model:
    return example_model()


def numbers(formula: str) -> list[float]:
    """The numbers typed into a formula (not those in names, cell references or quoted text)."""
    return [float(m.group("num")) for m in _NUMBER.finditer(formula) if m.group("num")]


def rendered(model: Model) -> dict[str, list[str]]:
    """Every calculated line's formulas as the workbook writes them (a row's first month and its opening)."""
    layout = plan(model.book)
    out = {}
    for line in model.book.lines.values():
        if line.kind == "input":
            continue
        sheet = layout.cells[line.id][0]
        col = FIRST_PERIOD + 1 if line.series else layout.cells[line.id][2]
        texts = [line.formula.render(CellContext(layout, sheet, col))]
        if line.opening is not None:
            texts.append(line.opening.render(CellContext(layout, sheet, FIRST_PERIOD)))
        out[line.id] = texts
    return out


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_no_formula_of_a_site_shows_a_conversion_factor(site: Path) -> None:
    model = load(site)
    for line in model.book.lines.values():
        for root in (line.formula, line.opening):
            for node in root.walk() if root is not None else ():
                if isinstance(node, Scale) and not isinstance(node, Named):
                    assert power_of_ten(node.f), (f"{line.id}: the factor {node.f} ({node.inner.unit:~P} to "
                                                  f"{node.unit:~P}) is in its formula; define it in {PATH.name}")
    named = 0
    for line_id, texts in rendered(model).items():
        if is_constant(model.book.lines[line_id]):
            continue  # the constant's own row: =2118.88000328932
        for text in texts:
            named += "units_" in text
            for x in numbers(text):
                assert x in UNIVERSAL or power_of_ten(x), f"{line_id}: {x} in ={text}"
    assert named >= 10


def test_each_constant_is_pints_factor_with_label_unit_and_definition() -> None:
    entries = yaml.safe_load(PATH.read_text())
    methods = yaml.safe_load(METHOD_PATH.read_text())
    assert list(constants()) == [f"units.{key}" for key in entries] + [f"method.{key}" for key in methods]
    for key, entry in methods.items():  # the method's numbers: the value, with its label, unit and source
        line = constant(f"method.{key}")
        assert float(line.formula.value) == float(entry["value"]) and line.label == entry["label"], key
        assert entry["source"].split()[0] in line.note and (line.kind, line.section) == ("calc", SECTION), key
    for key, entry in entries.items():
        line = constant(f"units.{key}")
        value = float(line.formula.value)
        # pint to 15 significant digits, as a spreadsheet shows a number
        assert value == pytest.approx(Q_(1.0, entry["per"]).to(entry["of"]).magnitude, rel=1e-14), key
        assert line.unit == unit(entry["of"]) / unit(entry["per"]), key
        assert line.label == entry["label"] and line.unit_text == entry["unit"] and " per " in line.unit_text
        assert entry["definition"] in line.note and entry["source"] in line.note, key
        assert (line.kind, line.sheet, line.section) == ("calc", INPUTS, SECTION)
        match = lookup(unit(entry["per"]), unit(entry["of"]))  # no other constant does its conversion
        assert (match.line, match.divide, match.residual) == (line, False, 1.0), key
    exact = {"cfm_per_m3_s": 2118.88000328932, "m3_h_per_cfm": 1.69901079552, "l_min_per_m3_s": 60000.0,
             "l_min_per_gpm": 3.785411784, "h_per_month": 730.0, "months_per_year": 12.0}
    for key, value in exact.items():
        assert float(constant(f"units.{key}").formula.value) == value, key


def test_a_conversion_names_its_constant_and_computes_with_its_value() -> None:
    book = Book("t")
    i, c = book.sheet(INPUTS, "t"), book.sheet("Calc", "c")
    flow = i.input("flow", "Flow", "L/min", 100.0)
    heat = i.input("heat", "Heat", "W", 7000.0)
    gpm = c.calc("gpm", "Flow in gpm", "gpm", flow)
    tons = c.calc("tons", "Heat in TR", "TR", heat)
    kw = c.calc("kw", "Heat in kW", "kW", heat)
    hp = c.calc("hp", "Heat in hp", "hp", heat)  # no constant converts W to hp: the factor stays
    ctx = CellContext(plan(book), "Calc")
    assert gpm.formula.render(ctx) == "t_flow/units_l_min_per_gpm"
    assert tons.formula.render(ctx) == "t_heat/1000/units_kw_per_ton_of_refrigeration"  # W -> kW -> TR
    assert kw.formula.render(ctx) == "t_heat/1000"
    assert "units_" not in hp.formula.render(ctx)
    order = list(book.lines)
    assert order.index("units.l_min_per_gpm") < order.index("c.gpm")  # defined before its first reader
    assert set(reads(gpm)) == {"t.flow", "units.l_min_per_gpm"}
    v = book.evaluate()
    assert v["c.gpm"].item() == 100.0 / v["units.l_min_per_gpm"].item()  # the same float, the same operation
    assert v["c.tons"].item() == 7000.0 / 1000 / v["units.kw_per_ton_of_refrigeration"].item()
    assert v["c.tons"].item() == pytest.approx(Q_(7000.0, "W").to("ton_of_refrigeration").magnitude, rel=1e-14)


@pytest.mark.slow
def test_constants_are_the_last_section_of_the_inputs_sheet(example: Model) -> None:
    items = [item for _, item in plan(example.book).sheets[INPUTS].rows]
    start = next(k for k, item in enumerate(items) if isinstance(item, Section) and item.title == SECTION)
    tail = items[start + 1 :]
    assert tail and all(is_constant(x) for x in tail)
    assert not any(is_constant(x) for x in items[:start] if not isinstance(x, Section))
    assert {x.id for x in tail} == {x.id for x in example.book.lines.values() if is_constant(x)}
    assert sum(1 for x in items if isinstance(x, Section) and x.title == SECTION) == 1


def test_scenarios_and_fleets_share_one_row_per_constant(example: Model) -> None:
    """A scenario's copy of a line, and a second fleet's, read the book's own constant: one row each."""
    readers = {}
    for book in (example.book, two_fleets()[0]):
        order = {line_id: k for k, line_id in enumerate(book.lines)}
        for line in book.lines.values():
            for other in reads(line):
                if other.startswith("units."):
                    assert book.lines[other] is constant(other), line.id
                    assert order[other] < order[line.id], line.id
                    readers.setdefault(other, set()).add(line.id)
    assert {"scenario.low_utilisation.tco.used_gpu_hours", "tco.used_gpu_hours"} <= readers["units.h_per_month"]
    assert {"cooling.air_flow", "fleet_new.cooling.air_flow"} <= readers["units.cfm_per_m3_s"]


def test_the_engineering_copy_holds_the_constants_its_lines_read(example: Model, tmp_path: Path) -> None:
    book = example.book
    doc = engineering_copy(book)
    held = [line for line in book.lines.values() if doc.holds(line)]
    needed = {other for line in held for other in reads(line) if other.startswith(("units.", "method."))}
    assert {"units.cfm_per_m3_s", "units.l_min_per_gpm", "method.check_tolerance"} <= needed
    assert {line.id for line in held if is_constant(line)} == needed  # no finance constant (hours per month)
    frozen = doc.as_values(book)
    for line in held:
        if not is_constant(line) and all(doc.holds(book.lines[o]) for o in reads(line)):
            assert line.id not in frozen, line.id  # a formula reading a constant stays a formula
    out = tmp_path / "engineering.xlsx"
    save(example, out, doc)
    assert unresolved_references(out) == []
    formulas = [c.value for row in openpyxl.load_workbook(out)["Cooling"].iter_rows() for c in row
                if isinstance(c.value, str) and c.value.startswith("=")]
    assert any("units_cfm_per_m3_s" in f for f in formulas)


def test_the_example_with_its_constants_matches_libreoffice(libreoffice: str, tmp_path: Path) -> None:
    [built] = build_all([EXAMPLE], tmp_path / "built")
    outcome = check([built], tmp_path)
    assert outcome.problems == []
    lines = built.model.book.lines.values()
    ids = [line.id for line in lines if is_constant(line)]
    assert len(ids) >= 7
    lo = recalculated_values([built.xlsx], tmp_path / "lo")[built.xlsx.resolve()]
    wb = openpyxl.load_workbook(built.xlsx)
    for line_id in ids:
        sheet, row, col = built.layout.cells[line_id]
        assert sheet == INPUTS
        recalculated = lo[(sheet, coordinate(row, col))]
        assert recalculated == built.model.values[line_id].item(), line_id  # the very float Python used
        cell = wb[sheet].cell(row=row + 1, column=col + 1)
        assert cell.value.startswith("="), line_id  # a number written once, as a formula: not an input
        assert not (cell.fill.fill_type == "solid" and str(cell.fill.fgColor.rgb).upper().endswith("FFF2CC"))
