"""LibreOffice's recalculated values read from its CSV export (csv_values) are the values of its .xlsx copy, to the
digits its CSV writes, or that workbook is read from an .xlsx copy: the parity tests compare what this reads."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter

from tests.helpers import site_workbook
from workbook.libreoffice import csv_values, verify
from workbook.libreoffice.sheet_reader import Cells, Unusual, cell_values
from workbook.libreoffice.verify import recalculate, recalculated_values

CSV_DIGITS = 1e-14  # LibreOffice writes 15 significant digits (fewer below 1e-5: 20 decimal places at most)
CSV_PLACES = 1e-20


def differences(csv: Cells, xlsx: Cells) -> list[tuple[Any, Any, Any]]:
    """Where the CSV's value is not the .xlsx copy's: a number further than the CSV's digits, TRUE/FALSE against
    anything but TRUE/FALSE or 1/0 (LibreOffice's .xlsx writes a check's TRUE as 1 where its cell shows a number
    format), any other value not equal, or a cell in one and not the other (but a formula's empty text, which
    the .xlsx copy writes with no value)."""
    out = []
    for key in sorted(set(csv) | set(xlsx)):
        a, b = csv.get(key), xlsx.get(key)
        if isinstance(a, bool):
            ok = b in (0, 1) and a == bool(b)
        elif isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(b, bool):
            ok = abs(a - b) <= max(CSV_DIGITS * abs(b), CSV_PLACES)
        else:
            ok = a == b or (a == "" and b is None)
        if not ok:
            out.append((key, a, b))
    return out


def magnitudes(path: Path) -> Path:
    """Numbers from 1e-22 to 1e14, as numbers and as percentages, in the number formats a reviewer might give a
    cell, and the kinds of value a cell holds."""
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("P&L 'q', x")
    percent = wb.add_format({"num_format": "0.0%"})
    for i, k in enumerate(range(-22, 15)):
        ws.write_formula(i, 1, f"=1.2345678901234567*10^({k})", None, 0)
        ws.write_formula(i, 2, f"=-9.8765432109876543*10^({k})", percent, 0)
        ws.write_formula(i, 3, f"=2/3*10^({k})", None, 0)
    ws.write_formula("F1", '="123"', None, "")
    ws.write_formula("F2", '=""', None, "")
    ws.write_formula("F3", '="a,""b"""&CHAR(10)&"c"', None, "")
    ws.write_formula("F4", "=1/0", None, 0)
    ws.write_formula("F5", "=1=1", None, 0)
    ws.write_formula("F6", "=DATE(2027,1,31)", wb.add_format({"num_format": "yyyy-mm-dd"}), 0)
    ws.write_formula("F7", "=DATE(2027,1,31)", wb.add_format({"num_format": "d mmm yyyy"}), 0)
    ws.write_string("F8", "  spaced  ")
    ws.write_formula("H40", "=-0", None, 0)
    for row, fmt in enumerate(['"$"#,##0.00', "0.00E+00", "# ?/?", "@", '0.0" MW"', '#,##0,,"M"', '"Yes";"Yes";"No"',
                               "[$€-407] #,##0.00", "#,##0;[Red](#,##0)", ";;;", "0.000%"], start=50):
        ws.write_formula(row, 1, "=1234567.891/7", wb.add_format({"num_format": fmt}), 0)  # each shown its way,
        ws.write_formula(row, 2, "=-0.5", wb.add_format({"num_format": fmt}), 0)  # the CSV writes the number
    wb.add_worksheet("Empty")
    wb.close()
    return path


def test_libreoffices_csv_gives_every_value_of_its_xlsx_copy(libreoffice: str, tmp_path: Path) -> None:
    """Every cell of two sites' workbooks and of a workbook of awkward values, from the CSV and from the .xlsx copy
    of the same recalculation (LibreOffice writes 15 significant digits to both: 2^53 + 1 is 9007199254740990)."""
    books = [site_workbook(name)[2] for name in ("example.yaml", "b200-liquid-build.yaml")]
    books.append(magnitudes(tmp_path / "magnitudes.xlsx"))
    big, timed = tmp_path / "big.xlsx", tmp_path / "timed.xlsx"
    for path, formula, fmt in ((big, "=2^53+1", None), (timed, "=DATE(2027,1,31)+0.5", "d mmm yyyy hh:mm")):
        wb = xlsxwriter.Workbook(str(path))
        wb.add_worksheet("S").write_formula("A1", formula, wb.add_format({"num_format": fmt}) if fmt else None, 0)
        wb.close()
    got = recalculated_values([*books, big, timed], tmp_path / "csv")
    copies = recalculate([*books, big, timed], tmp_path / "xlsx")
    for book in books:
        xlsx = cell_values(copies[book.resolve()])
        assert len(xlsx) > 100
        assert differences(got[book.resolve()], xlsx) == []
    assert differences(got[big.resolve()], cell_values(copies[big.resolve()])) == []
    assert got[big.resolve()] == {("S", "A1"): 9007199254740990}
    assert got[timed.resolve()] == cell_values(copies[timed.resolve()]) == {("S", "A1"): 46418.5}  # its .xlsx copy
    sheet = "P&L 'q', x"
    awkward = got[books[2].resolve()]
    assert [awkward.get((sheet, f"F{r}")) for r in range(1, 9)] == [
        "123", "", 'a,"b"\nc', "#DIV/0!", True, 46418.0, 46418.0, "  spaced  "]


def test_two_workbooks_whose_sheet_files_would_share_a_name_are_read_apart(libreoffice: str, tmp_path: Path,
                                                                           ) -> None:
    """LibreOffice names a sheet's CSV `<workbook>-<sheet>.csv`: "a" with a sheet "b-c" and "a-b" with a sheet
    "c" would both write a-b-c.csv."""
    paths = []
    for name, sheet, value in (("a", "b-c", 1), ("a-b", "c", 2)):
        path = tmp_path / f"{name}.xlsx"
        wb = xlsxwriter.Workbook(str(path))
        wb.add_worksheet(sheet).write_formula("A1", f"={value}+0", None, 0)
        wb.close()
        paths.append(path)
    got = recalculated_values(paths, tmp_path / "work")
    assert got[paths[0].resolve()] == {("b-c", "A1"): 1}
    assert got[paths[1].resolve()] == {("c", "A1"): 2}


@pytest.mark.parametrize("locale", ["en_GB.UTF-8", "de_DE.UTF-8"])
def test_a_date_is_read_the_same_whatever_the_machines_locale(libreoffice: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch, locale: str) -> None:
    """LibreOffice writes a date in its locale's form (01/02/2027 is the 1st of February in en-GB, 01.02.2027 in
    de-DE): the recalculation's profile sets en-US, the form the reader reads."""
    path = tmp_path / "february.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    wb.add_worksheet("S").write_formula("A1", "=DATE(2027,2,1)", wb.add_format({"num_format": "d mmm yyyy"}), 0)
    wb.close()
    monkeypatch.setenv("LC_ALL", locale)
    assert recalculated_values([path], tmp_path / "work")[path.resolve()] == {
        ("S", "A1"): float((datetime.date(2027, 2, 1) - datetime.date(1899, 12, 30)).days)}


def test_a_sheets_fields_are_read_by_their_quoting() -> None:
    text = ',"1.5",1.5,,TRUE,"TRUE"\n"two\n""lines""",-2.5E-003,12.5%,01/31/2027,2027-01-31,"#N/A"\n\n,,7\n'
    assert csv_values.read_sheet("S", text) == {
        ("S", "B1"): "1.5", ("S", "C1"): 1.5, ("S", "E1"): True, ("S", "F1"): "TRUE",
        ("S", "A2"): 'two\n"lines"', ("S", "B2"): -0.0025, ("S", "C2"): 0.125, ("S", "D2"): 46418.0,
        ("S", "E2"): 46418.0, ("S", "F2"): "#N/A", ("S", "C4"): 7}


@pytest.mark.parametrize("text", ["01/31/2027 12:00:00", "31/01/2027", "2027-1-31", "Err:502", "TRUE ", "0x10",
                                  "inf", "nan", '1"5'])
def test_what_the_csv_cannot_give_exactly_is_left_to_the_xlsx_copy(text: str) -> None:
    with pytest.raises(Unusual):
        csv_values.read_sheet("S", f'"x",{text}\n')


@pytest.mark.parametrize(("text", "expected"), [("999999999999999", 999999999999999), ("-0", 0), ("0.1", 0.1),
                                                ("9.00719925474099E+015", 9007199254740990.0),
                                                ("3.33333333333333E-021", 3.33333333333333e-21),
                                                ("-9.87654321098765E+013%", -987654321098.765),
                                                ("0.00000000000001234568", 1.234568e-14), ("FALSE", False),
                                                ("02/29/2028", float((datetime.date(2028, 2, 29)
                                                                      - datetime.date(1899, 12, 30)).days))])
def test_a_value_is_the_number_the_cell_holds(text: str, expected: Any) -> None:
    got = csv_values.value(text)
    assert got == expected and type(got) is type(expected)


def test_workbooks_soffice_leaves_out_go_through_a_new_start(libreoffice: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """soffice may exit 0 before the end of a long list: the workbooks it left out are converted by the next start,
    and a workbook never converted is named (its own path, not the batch's copy) after the last start."""
    paths = []
    for name in ("first", "second"):
        paths.append(tmp_path / f"{name}.xlsx")
        wb = xlsxwriter.Workbook(str(paths[-1]))
        wb.add_worksheet("S").write_formula("A1", f"={len(paths)}+0", None, 0)
        wb.close()
    real, starts = verify.run_soffice, []

    def stopping_early(files: list[Path], *args: Any, **kwargs: Any) -> Any:
        starts.append(len(files))
        return real(files[:1] if len(starts) == 1 else files, *args, **kwargs)

    monkeypatch.setattr(verify, "run_soffice", stopping_early)
    got = recalculated_values(paths, tmp_path / "csv")
    assert [got[p.resolve()] for p in paths] == [{("S", "A1"): 1}, {("S", "A1"): 2}] and starts == [2, 1]
    starts.clear()
    assert set(recalculate(paths, tmp_path / "xlsx")) == {p.resolve() for p in paths} and starts == [2, 1]
    monkeypatch.setattr(verify, "run_soffice", lambda files, *args, **kwargs: subprocess.CompletedProcess(
        ["soffice"], 0, "", "Error: source file could not be loaded"))  # as soffice says, exiting 0
    with pytest.raises(RuntimeError) as never:
        recalculated_values(paths[1:], tmp_path / "never", attempts=2)
    assert str(paths[1].resolve()) in str(never.value) and "in 2 starts" in str(never.value)
