"""The built example workbook: formulas with the right cached values, conventions, determinism, atomic writes."""

from __future__ import annotations

import itertools
import math
import os
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
from openpyxl.utils import column_index_from_string, get_column_letter

from tests.conftest import EXAMPLE
from tests.helpers import example_workbook
from workbook.api import Model, build
from workbook.book import sheets
from workbook.book.constants import is_constant
from workbook.book.sheets import INPUTS as INPUTS_SHEET
from workbook.excel import layout as layout_mod
from workbook.excel import writer
from workbook.excel.layout import HEADER_ROW, LABEL, NAME, NOTE, UNIT, Layout
from workbook.formula.expr import UNIVERSAL
from workbook.formula.line import Line, message_at
from workbook.formula.units import factor
from workbook.libreoffice.sheet_reader import as_number

INPUT_FILL = "FFF2CC"
INPUT_FONT = "0000FF"


@dataclass
class Built:
    path: Path
    model: Model
    layout: Layout
    formulas: Any  # openpyxl workbook, data_only=False
    cached: Any  # openpyxl workbook, data_only=True


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    model, layout, out = example_workbook()
    return Built(out, model, layout, openpyxl.load_workbook(out), openpyxl.load_workbook(out, data_only=True))


def value_cells(b: Built, line: Line) -> list[tuple[str, int, int, Any]]:
    """(sheet, row, col, expected cached value) of each cell holding a line's value (one per period for a
    series line), zero-based."""
    sheet, row, col = b.layout.cells[line.id]
    v = np.asarray(b.model.values[line.id])
    periods = v.shape[-1] if getattr(line, "series", False) else 1
    out = []
    for t in range(periods):
        x = v.reshape(-1, periods)[0, t]
        if line.is_bool:
            expected: Any = bool(x)
        elif math.isnan(float(x)):
            expected = message_at(line, b.model.values, t) or line.guard_message
        else:
            expected = float(x)
        out.append((sheet, row, col + t, expected))
    return out


def cell(wb: Any, sheet: str, row: int, col: int) -> Any:
    return wb[sheet].cell(row=row + 1, column=col + 1)


@pytest.mark.slow
def test_every_calculated_cell_is_a_formula_caching_the_python_value(built: Built) -> None:
    checked = 0
    for line in built.model.book.lines.values():
        if line.kind == "input":
            continue
        assert line.sheet != INPUTS_SHEET or is_constant(line), line.id  # a unit conversion factor's own row
        for sheet, row, col, expected in value_cells(built, line):
            f = cell(built.formulas, sheet, row, col).value
            assert isinstance(f, str) and f.startswith("="), (line.id, f)
            got = as_number(cell(built.cached, sheet, row, col).value)  # a date is its serial number underneath
            assert got is not None, f"{line.id}: no cached value"
            if isinstance(expected, bool | str):
                assert got == expected, (line.id, got, expected)
            else:
                assert not isinstance(got, bool | str), (line.id, got)
                assert got == pytest.approx(expected, rel=1e-15, abs=1e-300), line.id
            checked += 1
    assert checked >= 40


def line_sheets(b: Built) -> list[str]:
    return [title for title, sl in b.layout.sheets.items() if any(isinstance(x, Line) for _, x in sl.rows)]


def build_time_table(ws: Any) -> bool:
    """A sheet of values computed at build time (the sensitivity tornado) holds no lines and says, at its
    top, that its numbers are values, not formulas."""
    top = " ".join(str(c.value) for row in ws.iter_rows(max_row=3) for c in row if c.value)
    return "not formulas" in top


def test_no_typed_in_numbers_outside_the_inputs_sheet(built: Built) -> None:
    for ws in built.formulas.worksheets:
        if ws.title == INPUTS_SHEET:
            continue
        if build_time_table(ws):
            assert ws.title not in line_sheets(built), ws.title
            continue
        for row in ws.iter_rows():
            for c in row:
                v = c.value
                counter = c.row == layout_mod.COUNTER_ROW + 1 and c.column > layout_mod.NOTE + 1
                if counter and isinstance(v, int | float):
                    # a period column's number (0 = the start) over its dated header, which is a formula of it
                    assert v == c.column - layout_mod.FIRST_PERIOD - 1, (ws.title, c.coordinate, v)
                    continue
                assert not (isinstance(v, int | float) and not isinstance(v, bool)), \
                    f"'{ws.title}'!{c.coordinate} holds the typed-in number {v!r}"


def test_inputs_live_on_the_inputs_sheet_styled_as_inputs(built: Built) -> None:
    inputs = [line for line in built.model.book.lines.values() if line.kind == "input"]
    assert len(inputs) >= 20
    for line in inputs:
        sheet, row, col = built.layout.cells[line.id]
        assert sheet == INPUTS_SHEET, line.id
        c = cell(built.formulas, sheet, row, col)
        value = as_number(c.value)  # a date (the start) is its serial number underneath
        assert isinstance(value, int | float) and not isinstance(value, bool), (line.id, c.value)
        assert value == pytest.approx(float(np.asarray(line.value).reshape(-1)[0]), rel=1e-15), line.id
        assert c.fill.fill_type == "solid" and c.fill.fgColor.rgb.upper().endswith(INPUT_FILL), line.id
        assert c.font.color is not None and c.font.color.rgb.upper().endswith(INPUT_FONT), line.id


def test_no_value_cell_outside_the_inputs_sheet_looks_like_an_input(built: Built) -> None:
    for ws in built.formulas.worksheets:
        if ws.title == INPUTS_SHEET:
            continue
        for row in ws.iter_rows():
            for c in row:
                if c.value is None or (isinstance(c.value, str) and not c.value.startswith("=")):
                    continue  # text (the Cover's colour legend shows the input style on purpose)
                rgb = (c.fill.fgColor.rgb or "") if c.fill.fill_type == "solid" else ""
                assert not str(rgb).upper().endswith(INPUT_FILL), f"'{ws.title}'!{c.coordinate}"


def test_every_line_row_has_label_name_and_unit(built: Built) -> None:
    grids = {title for title, sl in built.layout.sheets.items() if sl.grids}
    for line in built.model.book.lines.values():
        sheet, row, col = built.layout.cells[line.id]
        if sheet in grids:  # a table of lines (the BOM): the row says which item, the column's header what and unit
            assert cell(built.formulas, sheet, row, 0).value, line.id
            assert cell(built.formulas, sheet, layout_mod.GRID_HEADER_ROW, col).value, line.id
            continue
        assert cell(built.formulas, sheet, row, LABEL).value == line.label, line.id
        assert cell(built.formulas, sheet, row, NAME).value == line.name, line.id
        unit = cell(built.formulas, sheet, row, UNIT).value
        assert unit and unit_as_shown(unit, line, built.model.values[line.id]), f"{line.id}: unit column {unit!r}"
        assert line.label.strip(), line.id


def unit_as_shown(unit: str, line: Line, value: Any) -> bool:
    """The unit column says the line's unit; money in thousands (kUSD) from 10,000 or a timeline, in millions (MUSD)
    from 1,000,000 (the number format divides); a count of one in the singular (1 NIC, 1 switch)."""
    v = np.abs(np.asarray(value, dtype=float).reshape(-1))
    biggest = float(np.max(v[np.isfinite(v)], initial=0.0))
    if unit == line.unit_text:
        return True
    if line.unit_text in ("USD", "USD/month", "USD/year") and line.kind != "input":
        if unit == "M" + line.unit_text:
            return biggest >= 1e6 and not line.series
        return unit == "k" + line.unit_text and (line.series or 1e4 <= biggest < 1e6)
    return v.size == 1 and v[0] == 1 and line.unit_text in (unit + "s", unit + "es")


def test_every_sheet_has_the_same_column_headers(built: Built) -> None:
    for title in line_sheets(built):
        ws = built.formulas[title]
        heads = [ws.cell(row=HEADER_ROW + 1, column=c + 1).value for c in range(len(layout_mod.COLUMNS))]
        assert tuple(heads) == layout_mod.COLUMNS, title


def test_a_defined_name_for_every_line_points_at_its_cell(built: Built) -> None:
    names = built.formulas.defined_names
    for line in built.model.book.lines.values():
        assert line.name in names, line.id
        assert line.name == line.id.replace(".", "_")
        target = names[line.name].attr_text
        if getattr(line, "series", False):
            assert target == built.layout.row_address(line), line.id
        else:
            assert target == built.layout.address(line.id, absolute=True), line.id
            sheet, row, col = built.layout.cells[line.id]
            assert target == f"'{sheet}'!${chr(ord('A') + col)}${row + 1}"


def test_inputs_have_data_validation_with_their_bounds(built: Built) -> None:
    """Each input's validation is its range as the site file enforces it: the bounds of its Spec with
    templates/limits.yaml, a count above 0 from 1, a decimal above 0 from the least magnitude a site file takes."""
    ws = built.formulas[INPUTS_SHEET]
    dvs = ws.data_validations.dataValidation
    validated = 0
    for line in built.model.book.lines.values():
        if line.kind != "input":
            continue
        lo, hi, lo_open = line.bounds
        sheet, row, col = built.layout.cells[line.id]
        coord = cell(built.formulas, sheet, row, col).coordinate
        covering = [dv for dv in dvs if coord in dv.sqref]
        if lo is None and hi is None:
            assert not covering, line.id
            continue
        assert len(covering) == 1, f"{line.id} ({coord}): {len(covering)} validations"
        dv = covering[0]
        assert dv.type == ("whole" if line.integer else "decimal"), line.id
        low = lo
        if lo is not None and lo_open:
            low = lo + 1 if line.integer else lo + 1e-9
        if lo is not None and hi is not None:
            assert dv.operator in (None, "between"), line.id  # between is the OOXML default
            assert float(dv.formula1) == low and float(dv.formula2) == hi, line.id
        elif lo is not None:
            assert dv.operator == "greaterThanOrEqual", line.id
            assert float(dv.formula1) == low, line.id
        else:
            assert dv.operator == "lessThanOrEqual" and float(dv.formula1) == hi, line.id
        assert dv.showInputMessage and dv.prompt, f"{line.id}: the allowed range is not shown on hover"
        assert dv.showErrorMessage, line.id
        validated += 1
    assert validated >= 20
    pue = built.model.book.lines.get("power.pue")
    if pue is not None:
        assert pue.bounds[:2] == (1.0, 3.0)


def test_no_count_validation_allows_zero_where_the_site_file_refuses_it(built: Built) -> None:
    """GPUs and GPUs per node are counts above 0: their cells take 1 to the limit of templates/limits.yaml (1,000,000
    GPUs: 5x the largest cluster announced; 576 GPUs per node: the largest scale-up domain), not 0."""
    ws = built.formulas[INPUTS_SHEET]
    for key, hi in (("power.gpus", 1_000_000), ("power.gpus_per_node", 576)):
        sheet, row, col = built.layout.cells[key]
        coord = cell(built.formulas, sheet, row, col).coordinate
        [dv] = [dv for dv in ws.data_validations.dataValidation if coord in dv.sqref]
        assert (dv.type, float(dv.formula1), float(dv.formula2)) == ("whole", 1.0, hi), key
        assert "between 1 and" in dv.prompt, dv.prompt
    zero_ok = [line.id for line in built.model.book.lines.values() if line.kind == "input"
               and line.bounds[0] == 0 and line.bounds[2]]
    assert "power.gpus" in zero_ok and "tco.on_demand_price" in zero_ok  # an open bound at 0: none of them takes 0
    for key in zero_ok:
        sheet, row, col = built.layout.cells[key]
        coord = cell(built.formulas, sheet, row, col).coordinate
        [dv] = [dv for dv in ws.data_validations.dataValidation if coord in dv.sqref]
        assert float(dv.formula1) > 0, key


def test_the_master_check_is_false_not_an_error_when_an_input_breaks_the_model(libreoffice: str, built: Built,
                                                                            tmp_path: Path) -> None:
    """0 GPUs per node pasted past the validation: LibreOffice fills the workings with #DIV/0!, and the master check
    (on the Checks sheet and on the Summary) shows FALSE."""
    from workbook.libreoffice.sheet_reader import load_values
    from workbook.libreoffice.verify import recalculate

    wb = openpyxl.load_workbook(built.path)
    sheet, row, col = built.layout.cells["power.gpus_per_node"]
    wb[sheet].cell(row + 1, col + 1).value = 0
    edited = tmp_path / "zero.xlsx"
    wb.save(edited)
    lo = load_values(recalculate([edited], tmp_path / "lo")[edited.resolve()])
    nodes = built.layout.cells["power.nodes"]
    assert str(lo[nodes[0]].cell(nodes[1] + 1, nodes[2] + 1).value).startswith("#DIV/0")
    for key in ("checks.all_pass", "summary.all_checks_pass"):
        sheet, row, col = built.layout.cells[key]
        assert lo[sheet].cell(row + 1, col + 1).value in (False, 0), key


def test_percent_inputs_show_their_allowed_range_in_percent(built: Built) -> None:
    """A fraction shown as 94.0% must not be described as 'between 0.5 and 1 %' (1 % is 0.01)."""
    ws = built.formulas[INPUTS_SHEET]
    percent = [line for line in built.model.book.lines.values() if line.kind == "input" and line.unit_text == "%"
               and line.bounds[:2] != (None, None)]
    assert percent
    for line in percent:
        sheet, row, col = built.layout.cells[line.id]
        coord = cell(built.formulas, sheet, row, col).coordinate
        [dv] = [dv for dv in ws.data_validations.dataValidation if coord in dv.sqref]
        lo, hi, _ = line.bounds
        for text in (dv.prompt, dv.error):
            if lo is not None:
                assert f"{lo * 100:g}%" in text, f"{line.id}: {text!r}"
            if hi is not None:
                assert f"{hi * 100:g}%" in text, f"{line.id}: {text!r}"


def test_freeze_panes_and_print_areas(built: Built) -> None:
    for ws in built.formulas.worksheets:
        assert ws.print_area, f"{ws.title}: no print area"
        assert ws.page_setup.orientation == "landscape", ws.title
        if ws.title == sheets.COVER:
            continue
        if ws.title not in line_sheets(built):
            assert ws.freeze_panes, ws.title
            continue
        assert ws.freeze_panes == f"C{HEADER_ROW + 2}", ws.title  # the Name and Label columns stay in view
        last_row = built.layout.sheets[ws.title].last_row
        m = re.search(r"\$[A-Z]+\$(\d+)$", ws.print_area if isinstance(ws.print_area, str) else ws.print_area[0])
        assert m and int(m.group(1)) >= last_row + 1, (ws.title, ws.print_area)


def test_the_summary_has_a_chart_of_live_cells(built: Built) -> None:
    """The pie of where the facility power goes reads the Summary's own rows, and the Summary holds the drawing."""
    pie = charts(built)["Where the facility power goes (kW, design load)"]
    refs = re.findall(r"<c:f>([^<]+)</c:f>", pie)
    assert refs and all(r.startswith("Summary!") for r in refs), refs
    with zipfile.ZipFile(built.path) as z:
        workbook_xml = z.read("xl/workbook.xml").decode()
        rels = z.read("xl/_rels/workbook.xml.rels").decode()
    # which worksheet part is the Summary, and does it hold the drawing?
    rid = re.search(r'<sheet name="Summary" sheetId="\d+" r:id="(rId\d+)"', workbook_xml).group(1)
    part = re.search(rf'Id="{rid}"[^>]*Target="([^"]+)"', rels) or re.search(rf'Target="([^"]+)"[^>]*Id="{rid}"', rels)
    sheet_rels = f"xl/worksheets/_rels/{Path(part.group(1)).name}.rels"
    with zipfile.ZipFile(built.path) as z:
        assert sheet_rels in z.namelist()
        assert "drawing" in z.read(sheet_rels).decode()


@pytest.mark.slow
def test_two_builds_are_byte_identical(built: Built, tmp_path: Path) -> None:
    again = tmp_path / "again.xlsx"
    build(EXAMPLE, again)
    assert again.read_bytes() == built.path.read_bytes()


# ---------------------------------------------------------------- the FAST rule: no typed-in numbers

_TOKEN = re.compile(
    r'"(?:[^"]|"")*"'  # a string (a guard's message)
    r"|'(?:[^']|'')*'!"  # a quoted sheet name
    r"|[A-Za-z_$][A-Za-z0-9_.$]*"  # a name, a function or a cell reference
    r"|(?P<num>(?:\d+\.?\d*|\.\d+)(?:[Ee][+-]?\d+)?)"
    r"|."
)


def literals(formula: str) -> list[float]:
    return [float(m.group("num")) for m in _TOKEN.finditer(formula.lstrip("=")) if m.group("num")]


def test_the_literal_scanner() -> None:
    assert literals("=power_a*power_b/1000") == [1000]
    assert literals("=ROUNDUP(x/y,0)") == [0]
    assert literals("='Power chain'!D12*1E-05+C3") == [1e-05]
    assert literals('=IF(a=0,"no 42 here",b/a)') == [0]
    assert literals("=x*0.94") == [0.94]


def allowed_literals(model: Model) -> list[float]:
    """Universal constants, and pint's conversion factor between any two like units that the rows or the
    terms of their formulas are in (a term in L/min x kg/m^3 into a kg/s row is /60000)."""
    units = {line.unit for line in model.book.lines.values()}
    for line in model.book.lines.values():
        if line.formula is not None:
            units |= {node.unit for node in line.formula.walk()}
    factors = set()
    for a, b in itertools.permutations(units, 2):
        try:
            factors.add(factor(a, b))
        except Exception:
            continue
    method = {abs(float(line.formula.value)) for line in model.book.lines.values() if is_constant(line)}
    return sorted(set(UNIVERSAL) | factors | method | {10.0**k for k in range(-12, 13)})


def test_formulas_contain_no_numbers_but_constants_and_conversion_factors(built: Built) -> None:
    allowed = allowed_literals(built.model)
    seen = 0
    for ws in built.formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if not (isinstance(c.value, str) and c.value.startswith("=")):
                    continue
                seen += 1
                for x in literals(c.value):
                    assert any(math.isclose(x, a, rel_tol=1e-12) for a in allowed), \
                        f"'{ws.title}'!{c.coordinate}: the number {x} is typed into {c.value}"
    assert seen >= 40


# ---------------------------------------------------------------- atomic writes


def _boom(*args: Any, **kwargs: Any) -> None:
    raise RuntimeError("disk full (simulated)")


@pytest.mark.parametrize("where", ["add_charts", "write_cover", "validate"])
def test_a_failed_write_leaves_the_previous_file_and_no_temp_file(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    out = tmp_path / "site.xlsx"
    out.write_bytes(built.path.read_bytes())
    before = out.read_bytes()
    monkeypatch.setattr(writer, where, _boom)
    with pytest.raises(RuntimeError, match="simulated"):
        writer.write_book(built.model.book, built.model.values, built.model.site, out)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site.xlsx"]


def test_a_failed_first_write_leaves_nothing(built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "new" / "site.xlsx"
    monkeypatch.setattr(writer, "add_charts", _boom)
    with pytest.raises(RuntimeError):
        writer.write_book(built.model.book, built.model.values, built.model.site, out)
    assert not out.exists()
    assert not out.parent.exists() or list(out.parent.iterdir()) == []


def test_the_output_has_the_permissions_of_an_ordinary_file(built: Built, tmp_path: Path) -> None:
    """The temporary file (mkstemp: mode 0600) is renamed into place; the workbook must still be readable
    by whoever could read any other file the user writes (mode 0666 & ~umask), like before the rename."""
    out = tmp_path / "perm.xlsx"
    writer.write_book(built.model.book, built.model.values, built.model.site, out)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_the_cover_says_where_each_choice_came_from_and_what_each_sheet_is(built: Built) -> None:
    """A share reads as a percentage, a default says so (not "set in the site file"), and every sheet listed has
    its purpose rather than the generic "workings"."""
    ws = built.formulas[sheets.COVER]
    rows = {ws.cell(row=r, column=1).value: ws.cell(row=r, column=2).value for r in range(1, ws.max_row + 1)}
    assert rows["Sensitivity swing (+/- on each input)"] == "20% (the default)"
    assert rows["Facility overhead method"] == "pue (set in the site file)"
    assert rows["CDU scope: row (shared by the hall) or rack (in-rack, one rack each)"] == "row (from the catalog)"
    listed = [f"{c.value}: {ws.cell(row=c.row, column=2).value}" for row in ws.iter_rows(max_col=1) for c in row
              if c.hyperlink]  # the link (its title) beside its purpose
    assert all(any(title in str(x) for x in listed) for title in built.layout.sheets), listed  # each named
    assert not any(": workings" in str(x) for x in listed), listed


def test_no_formula_divides_or_multiplies_by_one_unit(built: Built) -> None:
    """x / (1 month) is rendered x: only the unit changes, so a reviewer never reads a "/1"; and no conversion
    goes there and back (MAX(0, (a - b)/units_h_per_month)*units_h_per_month once came from the 0's unit)."""
    there_and_back = r"/(units_\w+|\d+(?:\.\d+)?)\)\*\1(?![\w.])|\*(units_\w+|\d+(?:\.\d+)?)\)/\2(?![\w.])"
    found = [f"{ws.title}!{c.coordinate}: {c.value}" for ws in built.formulas.worksheets for row in ws.iter_rows()
             for c in row if isinstance(c.value, str) and c.value.startswith("=")
             and (re.search(r"/1(?![0-9.E])", c.value) or re.search(there_and_back, c.value))]
    assert found == []


def test_the_master_check_reads_as_a_check_and_the_comparison_names_its_changes(built: Built) -> None:
    sheet, row, col = built.layout.cells["checks.all_pass"]
    cell = built.formulas[sheet].cell(row=row + 1, column=col + 1)
    assert cell.font.b and cell.alignment.horizontal == "center"
    ws = built.formulas[sheets.COMPARISON]
    changes = [str(c.value) for row in ws.iter_rows(min_row=5, max_row=5, min_col=4) for c in row if c.value]
    assert "Utilisation once ramped up (share of GPU-hours doing work) = 40%" in changes
    assert not any(re.search(r"\b[a-z]+\.[a-z_]+\b", c) for c in changes), changes  # no internal ids


def charts(built: Built) -> dict[str, str]:
    """Each chart's XML in the built file, by its title (its part name where it has none)."""
    out = {}
    with zipfile.ZipFile(built.path) as z:
        for name in z.namelist():
            if name.startswith("xl/charts/chart"):
                xml = z.read(name).decode()
                title = re.search(r"<a:t>([^<]*)</a:t>", xml)
                out[title.group(1) if title else name] = xml
    return out


COST_CURVE = "Cost per GPU-hour used against utilisation: owning, renting as the site rents, a committed contract"
CUMULATIVE = "Cumulative cash out: owning vs renting"
MUSD = '#,##0.0,,_);(#,##0.0,,);&quot;-&quot;_)'  # millions to 0.1, negatives in parentheses, zero as -


def test_chart_axes_carry_the_number_formats_of_their_rows(built: Built) -> None:
    """Money axes in the scale of their largest value (the example's NPVs and cumulative cash, up to about 90
    million USD: MUSD, 90.0); the cost curve's utilisation from 0% to 100% and its cost to the cent."""
    formats = {title: re.findall(r'<c:numFmt formatCode="([^"]*)"', xml) for title, xml in charts(built).items()}
    assert formats["NPV of owning and renting by scenario"] == [MUSD]
    assert formats[CUMULATIVE] == ["mmm yyyy", MUSD]
    assert formats[COST_CURVE] == ["0%_);(0%)", "0.00_);(0.00)"]
    assert re.search(r"<c:title>.*?<a:t>MUSD</a:t>", charts(built)[CUMULATIVE].split("<c:valAx>")[1])


def test_bar_charts_start_from_zero(built: Built) -> None:
    """Bars compare by their lengths: every bar or column chart's value axis starts at 0 (the Power envelope's two
    fleets, 420 and 450 GPUs per MW, once started at 420 and read as six times apart)."""
    bars = {title: xml for title, xml in charts(built).items() if "<c:barChart>" in xml
            and not any(float(x) < 0 for x in re.findall(r"<c:v>(-?[\d.eE+-]+)</c:v>", xml))}  # a tornado spans 0
    assert len(bars) >= 4, list(bars)
    for title, xml in bars.items():
        assert '<c:min val="0"/>' in xml.split("<c:valAx>")[1], title


def test_the_cost_curve_shows_the_rent_and_the_operating_point(built: Built) -> None:
    """Owning's curve, renting's as the site rents (the same GPU-hours: they cross at the break-even), a committed
    contract's, and the site's point: its utilisation (70%) and owned cost (3.29 USD/GPU-h). The value axis runs
    from 0 to twice the larger of the point and renting at full use (2 x 3.29 = 6.58), rounded up to 10, so the
    decision is not squeezed under the curve's steep end at 10% (22.55 USD/GPU-h)."""
    xml = charts(built)[COST_CURVE]
    refs = re.findall(r"<c:f>([^<]+)</c:f>", xml)
    for line in ("tco.utilisation", "tco.owned_cost_per_gpu_hour"):  # the point: one cell each, where the line is
        sheet, row, col = built.layout.cells[line]
        where = sheet if re.fullmatch(r"\w+", sheet) else f"'{sheet}'"
        assert f"{where}!${get_column_letter(col + 1)}${row + 1}" in refs, (line, refs)
    assert re.findall(r"<c:tx><c:v>([^<]*)</c:v></c:tx>", xml) == [
        "Owned cost per GPU-hour", "Rented cost per GPU-hour as the site rents",
        "Rented cost per GPU-hour under a committed contract", "This site: owned, at its utilisation"]
    value_axis = xml.split("<c:valAx>")[-1]
    assert '<c:max val="10.0"/>' in value_axis and '<c:min val="0"/>' in value_axis
    assert '<c:max val="1"/>' in xml.split("<c:valAx>")[1]  # utilisation to 100%


def column_width(ws: Any, column: int) -> float:
    """A column's width as the file stores it: columns of one width share one <col min max> entry, which openpyxl
    keeps under the first column's letter only."""
    for dim in ws.column_dimensions.values():
        if dim.min is not None and dim.min <= column <= dim.max:
            return dim.width
    return ws.column_dimensions[get_column_letter(column)].width


def test_every_name_label_and_note_reads_whole(built: Built) -> None:
    """No name is cut off by its column (three scenario lines once all showed `scenario_low_utilisation_tco_break_eve`)
    and long labels and notes wrap inside their columns, in rows tall enough for their lines."""
    from workbook.excel.pages import LINE_HEIGHT, ROW_HEIGHT, wrapped_lines

    for title in line_sheets(built):
        ws = built.formulas[title]
        width = {k: column_width(ws, k + 1) for k in (LABEL, NAME, NOTE)}
        for row, item in built.layout.sheets[title].rows:
            if not isinstance(item, Line):
                continue
            assert len(item.name) * 1.05 <= width[NAME], (title, item.name, width[NAME])
            label, note = ws.cell(row + 1, LABEL + 1), ws.cell(row + 1, NOTE + 1)
            assert label.alignment.wrap_text, (title, item.id)
            if note.value:
                assert note.alignment.wrap_text, (title, item.id)
            lines = max(wrapped_lines(item.label, width[LABEL]), wrapped_lines(note.value or "", width[NOTE]))
            assert (ws.row_dimensions[row + 1].height or ROW_HEIGHT) >= lines * LINE_HEIGHT, (title, item.id)


def test_the_cumulative_chart_ends_with_the_useful_life_and_the_share_axis_at_100_percent(built: Built) -> None:
    lead, life = (float(built.model.values[k].reshape(-1)[0]) for k in ("tco.lead_time", "tco.useful_life"))
    by_title = charts(built)
    cumulative = by_title[CUMULATIVE]
    ranges = re.findall(r"<c:f>'[^']+'!\$([A-Z]+)\$\d+:\$([A-Z]+)\$\d+</c:f>", cumulative)
    assert ranges
    columns = {column_index_from_string(b) - column_index_from_string(a) + 1 for a, b in ranges}
    assert columns == {round(lead + life) + 1}  # the start and every month to the end of the useful life
    curve = by_title[COST_CURVE]
    assert "<c:max val=\"1\"/>" in curve and "<c:min val=\"0\"/>" in curve


def test_every_check_says_what_it_compares(built: Built) -> None:
    """A check the model wrote no note for gets its rule in words, from its own formula with labels for cells."""
    checks = [x for x in built.model.book.lines.values() if x.kind == "check"]
    assert checks and all(x.note for x in checks), [x.id for x in checks if not x.note]
    feed = built.model.book.lines["power.feed_within_site"]
    assert feed.note == "[Contracted utility feed] <= [Utility power available at the site]"


def test_what_does_not_apply_is_collapsed_and_not_printed(built: Built) -> None:
    """Issue 27 item 9 on the air-cooled example: the coolant loop, the CDUs and the cold plate are collapsed under
    headings that say why; BOM rows of quantity 0 are collapsed and the footer counts them; the timelines print up
    to the last period with money in it."""
    from workbook.book.presentation import Section

    cooling = built.layout.sheets[sheets.COOLING]
    unused = [item.title for _, item in cooling.rows if isinstance(item, Section) and item.unused]
    assert unused == ["Coolant loop (technology cooling system)", "Coolant distribution units (CDUs)",
                      "Cold plate when the flow stops"]  # every liquid share of the DGX H100 is 0
    ws = built.formulas[sheets.COOLING]
    assert cooling.collapsed
    for row, item in cooling.rows:
        dim = ws.row_dimensions[row + 1]
        assert bool(dim.hidden) == (row in cooling.collapsed) == (dim.outline_level == 1), (row, item)
    assert "does not apply: every liquid share is 0" in ws.cell(
        next(r for r, x in cooling.rows if isinstance(x, Section) and x.unused) + 1, LABEL + 1).value
    # the BOM: a row is collapsed exactly when its quantity is 0
    bom = built.formulas["BOM"]
    quantities = [line for grid in built.model.book.grids if grid.sheet == "BOM"
                  for _, c, line in grid.lines() if grid.columns[c].omit_zero]
    zero = sum(not np.any(built.model.values[line.id]) for line in quantities)
    hidden = sum(bool(d.hidden) for d in bom.row_dimensions.values())
    assert zero > 0 and hidden == zero
    assert f"{zero} rows of quantity 0" in bom.oddFooter.left.text
    # lead time 0 + a useful life of 60 months: money moves up to month 60 (year 5); the print areas stop there
    assert built.formulas["Cash flows"].print_area.endswith(f"${get_column_letter(layout_mod.FIRST_PERIOD + 61)}"
                                                              f"${built.layout.sheets['Cash flows'].last_row + 1}")
    pl = built.formulas["P&L"].print_area
    assert re.search(rf"\${get_column_letter(layout_mod.FIRST_PERIOD + 6)}\$\d+$", pl), pl
    assert "Months M61 to M96 are not printed" in built.formulas["Cash flows"].oddFooter.left.text
