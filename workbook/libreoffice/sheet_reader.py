"""Read a workbook's cells in one pass over its sheets' XML, without openpyxl's object model.

The parity tests read every formula cell of each built workbook and every cell of LibreOffice's recalculated
copy; openpyxl builds a Cell object per cell (and needs two loads for a formula and its cached value), which made
reading take longer than LibreOffice's recalculation. What this pass does not read (shared or array formulas, a
cell without its address, an unusual value type) raises `Unusual`, and the caller's openpyxl twin reads that file:
the tests prove the two give the same values of the same types.
"""

from __future__ import annotations

import datetime
import posixpath
import warnings
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import openpyxl
from openpyxl.utils.datetime import to_excel

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"

Cells = dict[tuple[str, str], Any]  # (sheet title, "B12") -> value


class Unusual(Exception):
    """Something the one-pass reader leaves to openpyxl."""


def as_number(value: Any) -> Any:
    """A cell's value as the spreadsheet stores it: openpyxl reads a date-formatted number (a month's end date on
    the timeline) as a datetime, which is its serial number of days (since 1899-12-30) underneath."""
    if isinstance(value, datetime.datetime | datetime.date):
        return float(to_excel(value))
    return value


def formula_cells(path: Path) -> Cells:
    """(sheet, cell) -> (formula, cached value) for every formula cell of a workbook (a date as its serial number)."""
    try:
        return one_pass(Path(path), formulas=True)
    except Unusual:
        return formula_cells_openpyxl(Path(path))


def cell_values(path: Path) -> Cells:
    """(sheet, cell) -> value for every cell with a value (a date as its serial number, an error as its text)."""
    try:
        return one_pass(Path(path), formulas=False)
    except Unusual:
        return cell_values_openpyxl(Path(path))


def formula_cells_openpyxl(path: Path) -> Cells:
    formulas = openpyxl.load_workbook(path, data_only=False)
    values = openpyxl.load_workbook(path, data_only=True)
    out = {}
    for ws in formulas.worksheets:
        cached = values[ws.title]
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    out[(ws.title, cell.coordinate)] = (cell.value, as_number(cached[cell.coordinate].value))
    return out


def cell_values_openpyxl(path: Path) -> Cells:
    wb = load_values(path)
    return {(ws.title, cell.coordinate): as_number(cell.value)
            for ws in wb.worksheets for row in ws.iter_rows() for cell in row if cell.value is not None}


def load_values(path: Path) -> Any:
    """A workbook loaded with openpyxl (data_only), for a reader that goes cell by cell. Its charts are not read:
    openpyxl cannot read the date axis LibreOffice writes back (a month's end dates on the timeline charts) and
    says so in a warning, which would only be noise here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unable to read chart", category=UserWarning)
        return openpyxl.load_workbook(path, data_only=True)


def defined_names(path: Path) -> dict[str, str]:
    """The workbook's global defined names: name -> what it refers to ("'Cash flows'!$F$57:$CX$57")."""
    with zipfile.ZipFile(path) as zf:
        book = ElementTree.fromstring(zf.read("xl/workbook.xml"))
    return {d.get("name", ""): (d.text or "") for d in book.iter(f"{_MAIN}definedName")
            if d.get("localSheetId") is None}


def coordinate(row: int, col: int) -> str:
    """"B12" from a zero-based row and column."""
    letters, n = "", col + 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(65 + rest) + letters
    return f"{letters}{row + 1}"


def sheet_titles(path: Path) -> list[str]:
    """The workbook's worksheets' titles, in workbook order."""
    try:
        with zipfile.ZipFile(path) as zf:
            return [title for title, _ in _worksheet_parts(zf)]
    except (KeyError, ElementTree.ParseError, zipfile.BadZipFile) as e:
        raise Unusual(str(e)) from None


def _worksheet_parts(zf: zipfile.ZipFile) -> list[tuple[str, str]]:
    """(sheet title, part name) of every worksheet, in workbook order (chart sheets are not worksheets)."""
    rels = {}
    for rel in ElementTree.fromstring(zf.read("xl/_rels/workbook.xml.rels")).iter(f"{_PKG_REL}Relationship"):
        if rel.get("Type", "").endswith("/worksheet"):
            target = rel.get("Target", "")
            rels[rel.get("Id")] = target.lstrip("/") if target.startswith("/") else posixpath.normpath(
                posixpath.join("xl", target))
    book = ElementTree.fromstring(zf.read("xl/workbook.xml"))
    return [(sheet.get("name", ""), rels[sheet.get(f"{_REL}id")]) for sheet in book.iter(f"{_MAIN}sheet")
            if sheet.get(f"{_REL}id") in rels]


def _shared_strings(zf: zipfile.ZipFile) -> list[str]:
    """Each shared string's text: its runs joined, its phonetic guides left out (as openpyxl reads it)."""
    if "xl/sharedStrings.xml" not in zf.namelist():
        return []
    out = []
    for si in ElementTree.fromstring(zf.read("xl/sharedStrings.xml")).iter(f"{_MAIN}si"):
        out.append("".join(_texts(si)))
    return out


def _texts(elem: ElementTree.Element) -> list[str]:
    t = elem.find(f"{_MAIN}t")
    if t is not None:
        return [t.text or ""]
    return [(run.text or "") for r in elem.iter(f"{_MAIN}r") for run in r.iter(f"{_MAIN}t")]


def _value(kind: str | None, text: str | None, strings: list[str]) -> Any:
    """A cell's value as openpyxl's data_only load gives it (a date as its serial number)."""
    if text is None:
        return None
    if kind in (None, "n"):
        return float(text) if ("." in text or "E" in text or "e" in text) else int(text)
    if kind == "b":
        return bool(int(text))
    if kind in ("str", "e"):
        return text
    if kind == "s":
        return strings[int(text)]
    raise Unusual(kind)


def one_pass(path: Path, formulas: bool) -> Cells:
    """The formula cells (`formulas`) or every cell's value, in one pass; raises Unusual where openpyxl must read."""
    cell_tag, f_tag, v_tag, is_tag = f"{_MAIN}c", f"{_MAIN}f", f"{_MAIN}v", f"{_MAIN}is"
    out: Cells = {}
    try:
        with zipfile.ZipFile(path) as zf:
            strings = [] if formulas else _shared_strings(zf)
            for title, part in _worksheet_parts(zf):
                with zf.open(part) as stream:
                    for _, elem in ElementTree.iterparse(stream):
                        if elem.tag != cell_tag:
                            continue
                        coord, f = elem.get("r"), elem.find(f_tag)
                        if coord is None or (f is not None and f.get("t") not in (None, "normal")):
                            raise Unusual(coord)
                        v, kind = elem.find(v_tag), elem.get("t")
                        if formulas:
                            if f is not None:
                                if not f.text:
                                    raise Unusual(coord)
                                out[(title, coord)] = ("=" + f.text, _value(kind, None if v is None else v.text,
                                                                           strings))
                        elif kind == "inlineStr":
                            inline = elem.find(is_tag)
                            if inline is not None:
                                out[(title, coord)] = "".join(_texts(inline))
                        elif v is not None:
                            out[(title, coord)] = _value(kind, v.text, strings)
                        elem.clear()
    except (KeyError, ValueError, IndexError, ElementTree.ParseError, zipfile.BadZipFile) as e:
        raise Unusual(str(e)) from None
    return out
