"""Documents and model instances: two kinds of file from one book, and two fleets of the same models in one book.

Every reference in a written document must resolve inside it: each formula's sheet references name a sheet of
the file, each name it uses is defined, and each defined name points at a sheet of the file. The two-fleet
book is recalculated in LibreOffice and every line of both fleets compared with Python.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import openpyxl
import pytest

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import B200, example_model, site_model, two_fleets, unresolved_references
from tests.parity import Built, check
from workbook.api import Model, build, save
from workbook.book import sheets
from workbook.book.book import Book
from workbook.book.document import Document, engineering_copy, full_workbook
from workbook.excel.writer import write_book
from workbook.formula.expr import FormulaError
from workbook.models import ENGINEERING, all_rules, all_specs
from workbook.models.fleet import define_fleet, model_inputs
from workbook.site.load import load_site

SITES = sorted((ROOT / "inputs").glob("*.yaml"))




@pytest.fixture(scope="module")
def example() -> Model:
    return example_model()


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_every_reference_of_the_full_workbook_resolves_inside_it(site: Path, tmp_path: Path) -> None:
    build(site, tmp_path / "full.xlsx")
    assert unresolved_references(tmp_path / "full.xlsx") == []


@pytest.mark.slow
def test_the_resolution_check_finds_a_reference_outside_the_file(example: Model, tmp_path: Path) -> None:
    """The check itself can fail: a document that drops the TCO sheet but keeps the Summary's formulas as
    formulas (no values substituted) has references to a sheet it does not hold."""
    doc = Document("broken", tuple(t for t in example.book.sheets if t != sheets.TCO))
    layout_path = tmp_path / "broken.xlsx"
    save(example, layout_path, doc)
    wb = openpyxl.load_workbook(layout_path)
    ws = wb[sheets.SUMMARY]
    ws["D5"] = "='TCO'!D9+tco_npv_own"
    wb.save(layout_path)
    problems = unresolved_references(layout_path)
    assert any("sheet 'TCO'" in p for p in problems) and any("tco_npv_own" in p for p in problems)


def test_the_engineering_copy_holds_no_prices_and_resolves_inside_itself(example: Model, tmp_path: Path) -> None:
    out = tmp_path / "engineering.xlsx"
    layout = save(example, out, engineering_copy(example.book))
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == [sheets.COVER, sheets.POWER, sheets.FABRIC, sheets.COOLING, sheets.INPUTS,
                             sheets.CHECKS]  # the Inputs behind the results, as in the full workbook
    units = {str(c.value) for ws in wb.worksheets for row in ws.iter_rows(max_col=3) for c in row if c.value}
    assert not any("USD" in u for u in units), "a price or a cost reached the engineering copy"
    # the generator inputs (their rows are on the Power chain), the unit conversion factors (units.*) read and
    # the method's tolerance its checks compare within (method.*)
    assert {line_id.split(".")[0] for line_id in layout.cells} == {"power", "generator", "fabric", "cooling",
                                                                    "units", "method"}
    assert unresolved_references(out) == []
    full = save(example, tmp_path / "full.xlsx", full_workbook(example.book))
    assert len(full.cells) > len(layout.cells) > 300


def test_a_line_reading_outside_its_document_is_written_as_its_value(example: Model, tmp_path: Path) -> None:
    """A copy of the Power chain alone: the lines that read the fabric or the inputs become values."""
    doc = Document("power only", (sheets.POWER,), cover=False)
    out = tmp_path / "power.xlsx"
    layout = save(example, out, doc)
    assert layout.as_values and all(line_id.startswith("power.") for line_id in layout.as_values)
    assert "power.node_gpu_power" in layout.as_values  # GPUs per node x TDP: both inputs, not in this copy
    assert unresolved_references(out) == []
    ws = openpyxl.load_workbook(out)[sheets.POWER]
    _, row, col = layout.cells["power.node_gpu_power"]
    cell = ws.cell(row=row + 1, column=col + 1).value
    assert cell == pytest.approx(float(example.values["power.node_gpu_power"].reshape(-1)[0]))




@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_the_lines_written_as_values_are_those_whose_formula_reads_outside_the_document(site: Path) -> None:
    """as_values against a walk of every node of every held line's formula and opening, for each kind of document
    on every site: the full workbook (none), the engineering copy, and a copy of each sheet alone."""
    book = site_model(site.name).book
    documents = [full_workbook(book), engineering_copy(book),
                 *(Document(f"{title} only", (title,), cover=False) for title in book.sheets)]
    for doc in documents:
        walked = set()
        for line in book.lines.values():
            if line.kind == "input" or not doc.holds(line):
                continue
            roots = [root for root in (line.formula, line.opening) if root is not None]
            if any(not doc.holds(read) for root in roots for node in root.walk() for read in node.lines()):
                walked.add(line.id)
        assert doc.as_values(book) == walked, doc.name
    assert not full_workbook(book).as_values(book)
    assert any(Document(f"{t} only", (t,), cover=False).as_values(book) for t in book.sheets)


def test_two_instances_of_the_power_chain_with_different_hardware(tmp_path: Path, libreoffice: str) -> None:
    book, (site, old, new) = two_fleets()
    values = book.evaluate()
    assert old.power.it_load.id == "power.it_load" and new.power.it_load.id == "fleet_new.power.it_load"
    old_gpu = values["power.node_gpu_power"].item()
    new_gpu = values["fleet_new.power.node_gpu_power"].item()
    assert (old_gpu, new_gpu) == (pytest.approx(8 * 0.7), pytest.approx(8 * 1.0))  # H100 700 W, B200 1000 W
    alone = site_model(B200.name)  # the second fleet's numbers are the B200 site's own
    for key in ("it_load", "contracted_feed", "racks_total", "ups_blocks"):
        assert values[f"fleet_new.power.{key}"].item() == pytest.approx(alone.values[f"power.{key}"].item())
    out = tmp_path / "fleets.xlsx"
    layout = write_book(book, values, site, out, Document("fleets", tuple(book.sheets)))
    assert {"Power chain (fleet_new)", "Fabric (fleet_new)", "Cooling (fleet_new)"} <= set(layout.sheets)
    assert unresolved_references(out) == []
    outcome = check([Built(EXAMPLE, out, Model(site, book, values), layout)], tmp_path)
    assert outcome.problems == []
    calculated = [x for x in book.lines.values() if x.kind != "input"]
    assert outcome.lines == len(calculated) > 400
    assert sum(x.id.startswith("fleet_new.") for x in calculated) > 200


def test_the_engineering_copy_prints_to_pdf_in_libreoffice(example: Model, tmp_path: Path, libreoffice: str) -> None:
    """A reviewer circulates it as a PDF: LibreOffice must export it (7.4 fails on some scaled sheets)."""
    out = tmp_path / "engineering.xlsx"
    save(example, out, engineering_copy(example.book))
    subprocess.run([libreoffice, f"-env:UserInstallation=file://{tmp_path}/profile", "--headless", "--convert-to",
                    "pdf", "--outdir", str(tmp_path), str(out)], capture_output=True, text=True, timeout=600)
    pdf = tmp_path / "engineering.pdf"
    assert pdf.exists(), "LibreOffice did not export the engineering copy"
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf.read_bytes()))
    assert pages >= 6  # a page per sheet at least


@pytest.mark.parametrize("namespace", ["fleet-2", "fleet.new", "Fleet", "2nd", "a_namespace_too_long"])
def test_a_namespace_that_cannot_name_ids_sheets_and_names_is_refused(namespace: str) -> None:
    site = load_site(EXAMPLE, all_specs(), rules=all_rules())
    book = Book("t")
    with pytest.raises(FormulaError):
        define_fleet(book, model_inputs(book, site, ENGINEERING), namespace)


def test_the_engineering_copy_of_two_fleets_holds_both_and_no_prices(tmp_path: Path) -> None:
    book, (site, _, _) = two_fleets()
    doc = engineering_copy(book)
    assert {"Power chain (fleet_new)", "Fabric (fleet_new)", "Cooling (fleet_new)"} <= set(doc.sheets)
    out = tmp_path / "fleets.xlsx"
    layout = write_book(book, book.evaluate(), site, out, doc)
    held = {line_id.split(".")[0] for line_id in layout.cells}
    # generator.*: the generator inputs; units.*: the conversion factors read; method.*: the checks' tolerance
    assert held == {"power", "generator", "fabric", "cooling", "fleet_new", "units", "method"}
    assert sum(line_id.startswith("fleet_new.") for line_id in layout.cells) > 300
    assert unresolved_references(out) == []
