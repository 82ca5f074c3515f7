"""The reader of returned (untrusted) .xlsx files: it reads real workbooks right, and refuses each kind of danger.

Each dangerous file is made from a good one by rewriting its zip members, so that a test proves the one rule it is
about. Tests check the refusal's kind, file and key, and that its message is one line naming the file.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import re
import struct
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import openpyxl
import pytest
import xlsxwriter

from tests.helpers import example_workbook
from workbook.libreoffice.sheet_reader import as_number
from workbook.returned import safe_xlsx
from workbook.returned.safe_xlsx import LIMITS, Cell, Limits, UntrustedFile, read_returned

MB = 1024 * 1024
ANY: Any = object()
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
BOOK_RELS = "xl/_rels/workbook.xml.rels"
SHEET1 = "xl/worksheets/sheet1.xml"
SHEET1_RELS = "xl/worksheets/_rels/sheet1.xml.rels"
TYPES = "[Content_Types].xml"


# --- making files ----------------------------------------------------------------------------------------------------


def xlsxwriter_book(path: Path, *, hyperlink: bool = False) -> Path:
    """Two sheets, Quote (numbers, strings, rich text, booleans, formulas, an error) and Cover, with properties."""
    wb = xlsxwriter.Workbook(str(path))
    wb.set_properties({"title": "Quote for site A", "subject": "GPUs", "author": "Vendor Ltd",
                       "keywords": "quote, gpu", "comments": "Prices valid 30 days"})
    ws = wb.add_worksheet("Quote")
    wb.add_worksheet("Cover").write("B2", "Cover page")
    ws.write_row("A1", ["Item", "Qty", "Price", "Total"])
    ws.write_row("A2", ["GPU server", 128, 250000.5])
    ws.write_formula("D2", "=B2*C2", None, 32000064)
    ws.write_rich_string("A3", "fast ", wb.add_format({"bold": True}), "switch")
    ws.write_boolean("A4", True)
    ws.write_boolean("B4", False)
    ws.write_formula("A5", "=1/0", None, "#DIV/0!")
    ws.write_formula("A6", '="a"&"b"', None, "ab")
    ws.write_string("A7", "bell\x07 _x0041_ tab\there")
    ws.write_number("F7", -1.5e-3)
    if hyperlink:
        ws.write_url("A9", "https://example.com/track")
    wb.close()
    return path


def openpyxl_book(path: Path) -> Path:
    """The same kind of workbook saved by openpyxl: inline strings, t="n", formulas without a cached value."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Quote"
    wb.create_sheet("Cover")
    ws["A1"], ws["B1"], ws["C1"], ws["D1"], ws["F7"] = "Item", 3.5, True, "=B1*2", 42
    wb.properties.title = "openpyxl quote"
    wb.save(path)
    return path


def rewrite(src: Path, dst: Path, replace: dict[str, bytes | str | None] | None = None) -> Path:
    """A copy of src's zip with members replaced (bytes or text), added (new names) or dropped (None)."""
    replace = dict(replace or {})
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            data = replace.pop(name, zin.read(name))
            if data is not None:
                zout.writestr(name, data.encode() if isinstance(data, str) else data)
        for name, data in replace.items():
            if data is not None:
                zout.writestr(name, data.encode() if isinstance(data, str) else data)
    return dst


def member(path: Path, name: str) -> str:
    with zipfile.ZipFile(path) as zf:
        return zf.read(name).decode()


def edit(src: Path, dst: Path, name: str, change: Callable[[str], str]) -> Path:
    """A copy of src with one text member changed."""
    return rewrite(src, dst, {name: change(member(src, name))})


def add_relationship(src: Path, dst: Path, rels: str, rel: str, extra: dict[str, bytes | str | None] | None = None
                     ) -> Path:
    """A copy of src with one <Relationship> added to `rels` (created if absent), and more members if given."""
    with zipfile.ZipFile(src) as zf:
        old = zf.read(rels).decode() if rels in zf.namelist() else f'<Relationships xmlns="{PKG_REL}"></Relationships>'
    return rewrite(src, dst, {rels: old.replace("</Relationships>", rel + "</Relationships>"), **(extra or {})})


def add_type(text: str, entry: str) -> str:
    return text.replace("</Types>", entry + "</Types>")


def sheet_xml(rows: str) -> str:
    return f'<worksheet xmlns="{MAIN}" xmlns:r="{REL}"><sheetData>{rows}</sheetData></worksheet>'


def patch_sizes(path: Path, name: str, *, size: int | None = None, crc: int | None = None) -> Path:
    """Make a member's zip headers lie: its declared uncompressed size and/or CRC, in the local header and in the
    central directory (zipfile reads the central one)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        local = zf.getinfo(name).header_offset
    encoded = name.encode()
    central = data.find(b"PK\x01\x02")
    while data[central + 46:central + 46 + len(encoded)] != encoded:
        central = data.find(b"PK\x01\x02", central + 4)
        assert central > 0, name
    if size is not None:
        struct.pack_into("<I", data, local + 22, size)
        struct.pack_into("<I", data, central + 24, size)
    if crc is not None:
        struct.pack_into("<I", data, local + 14, crc)
        struct.pack_into("<I", data, central + 16, crc)
    path.write_bytes(bytes(data))
    return path


def refused(path: Path, kind: str, key: Any = ANY, *, sheets: tuple[str, ...] = ("Quote",),
            limits: Limits = LIMITS) -> UntrustedFile:
    """Reading path is refused with this kind (and key): one line, naming the file."""
    with pytest.raises(UntrustedFile) as caught:
        read_returned(path, sheets, limits=limits)
    error = caught.value
    assert (error.kind, error.file) == (kind, path), str(error)
    if key is not ANY:
        assert error.key == key, str(error)
    message = str(error)
    assert "\n" not in message and "\r" not in message
    assert path.name in message
    return error


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return xlsxwriter_book(tmp_path_factory.mktemp("good") / "returned.xlsx")


# --- good files are read right -----------------------------------------------------------------------------------


def test_reads_an_xlsxwriter_workbook(good: Path) -> None:
    returned = read_returned(good, ["Quote", "Cover"])
    assert returned.path == good
    assert returned.sheets == ("Quote", "Cover")
    assert returned.sha256 == hashlib.sha256(good.read_bytes()).hexdigest()
    quote = returned.cells["Quote"]
    assert [quote[0, col].value for col in range(4)] == ["Item", "Qty", "Price", "Total"]
    assert quote[1, 1] == Cell(128.0, None) and isinstance(quote[1, 1].value, float)
    assert quote[1, 2] == Cell(250000.5, None)
    assert quote[1, 3] == Cell(32000064.0, "B2*C2")
    assert quote[2, 0] == Cell("fast switch", None)  # rich-text runs joined
    assert quote[3, 0] == Cell(True, None) and quote[3, 1] == Cell(False, None)
    assert quote[4, 0] == Cell("#DIV/0!", "1/0", error=True)
    assert quote[5, 0] == Cell("ab", '"a"&"b"')
    assert quote[6, 0] == Cell("bell\x07 _x0041_ tab\there", None)  # OOXML's _xHHHH_ escapes undone
    assert quote[6, 5] == Cell(-1.5e-3, None)  # F7 -> (6, 5)
    assert len(quote) == 15  # nothing else: empty cells are absent
    assert returned.cells["Cover"] == {(1, 1): Cell("Cover page", None)}
    assert returned.properties == {"title": "Quote for site A", "subject": "GPUs", "creator": "Vendor Ltd",
                                   "keywords": "quote, gpu", "description": "Prices valid 30 days"}


def test_reads_only_the_sheets_asked_for(good: Path) -> None:
    returned = read_returned(str(good), ["Cover"])
    assert returned.sheets == ("Quote", "Cover") and list(returned.cells) == ["Cover"]
    assert read_returned(good, []).cells == {}
    with pytest.raises(TypeError):
        read_returned(good, "Quote")  # one name, not a sequence of names


def test_reads_an_openpyxl_workbook(tmp_path: Path) -> None:
    path = openpyxl_book(tmp_path / "reviewed.xlsx")
    assert 't="inlineStr"' in member(path, SHEET1)  # the other way of storing text
    returned = read_returned(path, ["Quote", "Cover"])
    assert returned.sheets == ("Quote", "Cover")
    assert returned.cells["Quote"] == {(0, 0): Cell("Item", None), (0, 1): Cell(3.5, None), (0, 2): Cell(True, None),
                                       (0, 3): Cell(None, "B1*2"), (6, 5): Cell(42.0, None)}
    assert returned.cells["Cover"] == {}
    assert returned.properties["title"] == "openpyxl quote"


@pytest.mark.slow
def test_reads_our_own_workbook_as_a_reviewer_returns_it(tmp_path: Path) -> None:
    """A reviewer's copy of the workbook we built passes every rule, and every cell reads as openpyxl reads it."""
    _, _, path = example_workbook()
    returned = read_returned(path, ["Inputs", "Summary"])
    book = openpyxl.load_workbook(path)
    for sheet, cells in returned.cells.items():
        expected = {(c.row - 1, c.column - 1): c.value for row in book[sheet].iter_rows() for c in row
                    if c.value is not None}
        assert set(cells) == set(expected), sheet
        for at, value in expected.items():
            cell = cells[at]
            if isinstance(value, str) and value.startswith("="):
                assert cell.formula == value[1:], (sheet, at)
            else:  # a date input (the start date) is its serial number underneath
                assert cell.value == as_number(value) and cell.formula is None, (sheet, at)


def test_reads_every_cell_type_as_the_format_allows(good: Path, tmp_path: Path) -> None:
    """Hand-written XML: inline rich text, shared formulas (empty text), cells and rows without references,
    NaN and infinity kept, formula strings, styled empty cells absent, phonetic guides not text."""
    rows = ('<row r="1"><c r="A1" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c>'
            '<c r="B1"><f t="shared" ref="B1:B2" si="0">A2*2</f><v>2</v></c><c r="C1" s="3"/>'
            '<c r="D1" t="s"><v>1</v></c></row>'
            '<row r="2"><c r="B2"><f t="shared" si="0"/><v>4</v></c><c><v>NaN</v></c><c t="b"><v>true</v></c></row>'
            '<row><c><v>-INF</v></c><c t="str"><f>"x"</f><v>x</v></c><c t="str"><f>T(1)</f></c></row>')
    strings = (f'<sst xmlns="{MAIN}"><si><t>zero</t></si><si><r><t>ka</t></r><r><t>nji</t></r>'
               '<rPh sb="0" eb="1"><t>kana</t></rPh></si></sst>')
    path = rewrite(good, tmp_path / "types.xlsx", {SHEET1: sheet_xml(rows), "xl/sharedStrings.xml": strings})
    cells = read_returned(path, ["Quote"]).cells["Quote"]
    assert cells[0, 0] == Cell("inline", None)
    assert cells[0, 1] == Cell(2.0, "A2*2") and cells[1, 1] == Cell(4.0, "")
    assert (0, 2) not in cells
    assert cells[0, 3] == Cell("kanji", None)
    assert cells[1, 2].value != cells[1, 2].value  # NaN, kept
    assert cells[1, 3] == Cell(True, None)
    assert cells[2, 0] == Cell(float("-inf"), None)
    assert cells[2, 1] == Cell("x", '"x"') and cells[2, 2] == Cell(None, "T(1)")
    assert len(cells) == 9


def test_relative_and_absolute_sheet_targets(good: Path, tmp_path: Path) -> None:
    path = edit(good, tmp_path / "absolute.xlsx", BOOK_RELS,
                lambda text: text.replace('Target="worksheets/sheet1.xml"', 'Target="/xl/worksheets/sheet1.xml"'))
    assert "/xl/worksheets/sheet1.xml" in member(path, BOOK_RELS)
    assert read_returned(path, ["Quote"]).cells == read_returned(good, ["Quote"]).cells


# --- not-xlsx, too-large ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".xlsm", ".xltm", ".xlsb", ".xls", ".csv", ""])
def test_refuses_other_file_names(good: Path, tmp_path: Path, suffix: str) -> None:
    """A macro-enabled, binary or legacy workbook is refused by its name, even when its content is a clean .xlsx."""
    path = tmp_path / f"returned{suffix}"
    path.write_bytes(good.read_bytes())
    refused(path, "not-xlsx", None)


def test_accepts_the_suffix_in_capitals(good: Path, tmp_path: Path) -> None:
    path = tmp_path / "RETURNED.XLSX"
    path.write_bytes(good.read_bytes())
    assert read_returned(path, ["Quote"]).sheets == ("Quote", "Cover")


@pytest.mark.parametrize("make", ["text", "empty", "directory", "absent", "ole", "truncated", "polyglot"])
def test_refuses_what_is_not_a_zip(good: Path, tmp_path: Path, make: str) -> None:
    path = tmp_path / "returned.xlsx"
    if make == "text":
        path.write_text("Item,Qty\nGPU,128\n")
    elif make == "empty":
        path.write_bytes(b"")
    elif make == "directory":
        path.mkdir()
    elif make == "ole":
        path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))
    elif make == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif make == "polyglot":  # zipfile finds a zip after other data; Excel would not
        path.write_bytes(b"<html><script>alert(1)</script></html>" + good.read_bytes())
    refused(path, "not-xlsx", None)


@pytest.mark.parametrize("drop", [TYPES, "xl/workbook.xml"])
def test_refuses_a_zip_that_is_not_a_workbook(good: Path, tmp_path: Path, drop: str) -> None:
    refused(rewrite(good, tmp_path / "returned.xlsx", {drop: None}), "not-xlsx", None)


def test_refuses_a_member_given_twice(good: Path, tmp_path: Path) -> None:
    """Two members of one name: one reader would use the first, another the last."""
    path = tmp_path / "returned.xlsx"
    rewrite(good, path)
    with warnings.catch_warnings(), zipfile.ZipFile(path, "a") as zf:
        warnings.simplefilter("ignore")
        zf.writestr(SHEET1, sheet_xml(""))
    refused(path, "not-xlsx", SHEET1)


def test_refuses_a_corrupt_member(good: Path, tmp_path: Path) -> None:
    path = patch_sizes(rewrite(good, tmp_path / "returned.xlsx"), SHEET1, crc=0x12345678)
    refused(path, "not-xlsx", SHEET1)


def test_refuses_a_member_shorter_than_declared(good: Path, tmp_path: Path) -> None:
    path = rewrite(good, tmp_path / "returned.xlsx")
    with zipfile.ZipFile(path) as zf:
        size = zf.getinfo(SHEET1).file_size
    refused(patch_sizes(path, SHEET1, size=size + 10), "not-xlsx", SHEET1)


def test_refuses_a_file_over_the_size_limit(good: Path) -> None:
    refused(good, "too-large", None, limits=Limits(max_file_bytes=1000))
    size = good.stat().st_size  # one byte over: the two sizes are said apart, not "7.5 kB, over the 7.5 kB"
    error = refused(good, "too-large", None, limits=Limits(max_file_bytes=size - 1))
    assert f"{size:,} bytes" in error.problem and f"{size - 1:,} bytes" in error.problem


def test_refuses_more_members_than_the_limit(good: Path) -> None:
    with zipfile.ZipFile(good) as zf:
        members = len(zf.namelist())
    refused(good, "too-large", None, limits=Limits(max_members=members - 1))
    assert read_returned(good, ["Quote"], limits=Limits(max_members=members)).sheets


def test_counts_the_elements_of_every_part_before_parsing_any_and_refuses_one_over(good: Path, tmp_path: Path) -> None:
    """The count made in a part's bytes is its elements, exactly for a workbook (no comment holding a '<'): each
    limit takes the file at its count and refuses one element more, naming the part, then the whole file. A '<'
    inside a comment counts once more, never less."""
    with zipfile.ZipFile(good) as zf:
        counts = {info.filename: sum(1 for _ in ElementTree.iterparse(io.BytesIO(zf.read(info)), events=("start",)))
                  for info in zf.infolist() if info.filename.endswith((".xml", ".rels"))}
    biggest, total = max(counts, key=lambda name: counts[name]), sum(counts.values())
    exact = Limits(max_xml_part_elements=counts[biggest], max_xml_total_elements=total)
    assert read_returned(good, ["Quote"], limits=exact).cells["Quote"]
    refused(good, "too-large", biggest, limits=Limits(max_xml_part_elements=counts[biggest] - 1))
    refused(good, "too-large", None, limits=Limits(max_xml_total_elements=total - 1))
    commented = edit(good, tmp_path / "commented.xlsx", biggest, lambda xml: xml.replace("?>", "?><!-- <a> -->", 1))
    refused(commented, "too-large", biggest, limits=exact)


# --- zip bombs --------------------------------------------------------------------------------------------------


def test_refuses_a_member_too_big_when_unzipped(good: Path, tmp_path: Path) -> None:
    """150 MB of zeros: about 150 kB zipped, under every file limit, over the one-member limit."""
    path = rewrite(good, tmp_path / "returned.xlsx")
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as zf, \
            zf.open("xl/media/zeros.bin", "w", force_zip64=True) as out:
        zeros = bytes(MB)
        for _ in range(150):
            out.write(zeros)
    assert path.stat().st_size < 2 * MB
    refused(path, "zip-bomb", "xl/media/zeros.bin")


def test_refuses_a_member_that_compresses_too_well(good: Path, tmp_path: Path) -> None:
    path = rewrite(good, tmp_path / "returned.xlsx", {"xl/media/image1.png": bytes(2 * MB)})
    refused(path, "zip-bomb", "xl/media/image1.png")


def test_refuses_members_too_big_in_all(good: Path) -> None:
    refused(good, "zip-bomb", None, limits=Limits(max_total_bytes=10_000))


@pytest.mark.parametrize(("name", "data"), [
    ("docProps/app.xml", b'<?xml version="1.0"?><Properties/>' + b" " * (3 * MB)),  # a part read as XML
    ("xl/media/image1.png", bytes(3 * MB)),  # a member read only to check it
], ids=["xml-part", "binary-member"])
def test_refuses_a_member_whose_header_lies_about_its_size(good: Path, tmp_path: Path, name: str, data: bytes) -> None:
    """It declares 1,000 bytes (too few for the ratio rule to apply) and inflates to 3 MB: reading stops one chunk
    past 1,000 bytes."""
    path = rewrite(good, tmp_path / "returned.xlsx", {name: data})
    refused(path, "zip-bomb", name)  # honest, it is refused by its ratio
    refused(patch_sizes(path, name, size=1000), "zip-bomb", name)


# --- macros, links, embedded objects ------------------------------------------------------------------------------


VBA_REL = '<Relationship Id="rId99" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" ' \
          'Target="vbaProject.bin"/>'


@pytest.mark.parametrize("name", ["xl/vbaProject.bin", "XL/VBAPROJECT.BIN", "xl\\vbaProject.bin",
                                  "xl/other/vbaProjectSignature.bin"])
def test_refuses_a_vba_project(good: Path, tmp_path: Path, name: str) -> None:
    vba_type = '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
    types = add_type(member(good, TYPES), vba_type)
    path = add_relationship(good, tmp_path / "returned.xlsx", BOOK_RELS, VBA_REL, {name: b"\xd0\xcf", TYPES: types})
    error = refused(path, "macro", name)
    assert str(error).startswith(f"{path}: {name}: macros are not accepted")


def test_refuses_a_macro_enabled_content_type(good: Path, tmp_path: Path) -> None:
    path = edit(good, tmp_path / "returned.xlsx", TYPES,
                lambda text: text.replace("spreadsheetml.sheet.main+xml", "ms-excel.sheet.macroEnabled.main+xml"))
    refused(path, "macro", TYPES)


def test_refuses_a_vba_relationship(good: Path, tmp_path: Path) -> None:
    refused(add_relationship(good, tmp_path / "returned.xlsx", BOOK_RELS, VBA_REL), "macro", BOOK_RELS)


def test_refuses_an_excel4_macro_sheet(good: Path, tmp_path: Path) -> None:
    path = rewrite(good, tmp_path / "returned.xlsx", {"xl/macrosheets/sheet1.xml": sheet_xml("")})
    refused(path, "macro", "xl/macrosheets/sheet1.xml")


EXTERNAL_LINK_REL = ('<Relationship Id="rId98" Target="externalLinks/externalLink1.xml" Type="http://schemas.'
                     'openxmlformats.org/officeDocument/2006/relationships/externalLink"/>')


def test_refuses_a_link_to_another_workbook(good: Path, tmp_path: Path) -> None:
    link = f'<externalLink xmlns="{MAIN}"><externalBook xmlns:r="{REL}" r:id="rId1"/></externalLink>'
    path = add_relationship(good, tmp_path / "returned.xlsx", BOOK_RELS, EXTERNAL_LINK_REL,
                            {"xl/externalLinks/externalLink1.xml": link})
    refused(path, "external-link", "xl/externalLinks/externalLink1.xml")


def test_refuses_an_external_link_relationship(good: Path, tmp_path: Path) -> None:
    refused(add_relationship(good, tmp_path / "returned.xlsx", BOOK_RELS, EXTERNAL_LINK_REL), "external-link",
            BOOK_RELS)


def test_refuses_an_outside_hyperlink(tmp_path: Path) -> None:
    path = xlsxwriter_book(tmp_path / "returned.xlsx", hyperlink=True)
    assert 'TargetMode="External"' in member(path, SHEET1_RELS)
    error = refused(path, "external-link", SHEET1_RELS)
    assert "hyperlink" in error.problem


@pytest.mark.parametrize("rel", [
    f'<Relationship Id="rId1" Type="{REL}/image" Target="https://tracker.example/pixel.png" TargetMode="External"/>',
    f'<Relationship Id="rId1" Type="{REL}/image" Target="https://tracker.example/pixel.png"/>',
    f'<Relationship Id="rId1" Type="{REL}/image" Target="\\\\server\\share\\pixel.png"/>',
])
def test_refuses_any_target_outside_the_file(good: Path, tmp_path: Path, rel: str) -> None:
    """Excel fetches an image linked from outside when the file opens (a beacon), whatever the part."""
    path = add_relationship(good, tmp_path / "returned.xlsx", "xl/drawings/_rels/drawing1.xml.rels", rel)
    refused(path, "external-link", "xl/drawings/_rels/drawing1.xml.rels")


def test_refuses_a_data_connection(good: Path, tmp_path: Path) -> None:
    path = rewrite(good, tmp_path / "returned.xlsx", {"xl/connections.xml": f'<connections xmlns="{MAIN}"/>'})
    refused(path, "external-link", "xl/connections.xml")


def test_refuses_an_embedded_ole_object(good: Path, tmp_path: Path) -> None:
    rel = f'<Relationship Id="rId1" Type="{REL}/oleObject" Target="../embeddings/oleObject1.bin"/>'
    path = add_relationship(good, tmp_path / "returned.xlsx", SHEET1_RELS, rel,
                            {"xl/embeddings/oleObject1.bin": b"\xd0\xcf\x11\xe0"})
    refused(path, "embedded-object", "xl/embeddings/oleObject1.bin")


@pytest.mark.parametrize("kind", ["oleObject", "package", "activeXControl", "control"])
def test_refuses_an_embedding_relationship(good: Path, tmp_path: Path, kind: str) -> None:
    rel = f'<Relationship Id="rId1" Type="{REL}/{kind}" Target="../embeddings/thing.bin"/>'
    refused(add_relationship(good, tmp_path / "returned.xlsx", SHEET1_RELS, rel), "embedded-object", SHEET1_RELS)


@pytest.mark.parametrize("name", ["xl/activeX/activeX1.xml", "xl/ctrlProps/ctrlProp1.xml", "/xl/activeX/x.bin"])
def test_refuses_controls(good: Path, tmp_path: Path, name: str) -> None:
    refused(rewrite(good, tmp_path / "returned.xlsx", {name: "<x/>"}), "embedded-object", name)


# --- XML attacks and bad XML -------------------------------------------------------------------------------------


BILLION_LAUGHS = ('<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                  '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">'
                  '<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">'
                  '<!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">'
                  '<!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">]>'
                  f'<sst xmlns="{MAIN}"><si><t>&i;</t></si></sst>')
EXTERNAL_ENTITY = (f'<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                   f'<worksheet xmlns="{MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&x;</t></is>'
                   '</c></row></sheetData></worksheet>')
DOCTYPE = '<?xml version="1.0"?><!DOCTYPE Properties SYSTEM "http://attacker.example/x.dtd"><Properties/>'


@pytest.mark.parametrize(("name", "xml"), [
    ("xl/sharedStrings.xml", BILLION_LAUGHS),
    (SHEET1, EXTERNAL_ENTITY),
    ("docProps/app.xml", DOCTYPE),  # a part the reader does not otherwise use
    ("docProps/app.xml", DOCTYPE.replace('"1.0"', '"1.0" encoding="UTF-16"').encode("utf-16")),
    ("xl/drawings/vmlDrawing1.vml", DOCTYPE),  # a part never parsed: only the byte scan sees it
    ("xl/media/image1.svg", DOCTYPE),  # neither .xml nor .rels, XML by its content type
], ids=["billion-laughs", "external-entity", "doctype-unread-part", "doctype-utf16", "doctype-vml", "doctype-svg"])
def test_refuses_xml_attacks(good: Path, tmp_path: Path, name: str, xml: str | bytes) -> None:
    types = add_type(member(good, TYPES), '<Default Extension="svg" ContentType="image/svg+xml"/>')
    path = rewrite(good, tmp_path / "returned.xlsx", {name: xml, TYPES: types})
    refused(path, "xml-attack", name)


@pytest.mark.parametrize(("name", "xml"), [("xl/sharedStrings.xml", BILLION_LAUGHS), (SHEET1, EXTERNAL_ENTITY)],
                         ids=["billion-laughs", "external-entity"])
def test_defusedxml_refuses_what_the_byte_scan_would_miss(good: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          name: str, xml: str) -> None:
    """The byte scan is the first guard, not the only one: without it the safe parser still refuses."""
    monkeypatch.setattr(safe_xlsx, "_DTD_MARK", re.compile(b"(?!)"))
    refused(rewrite(good, tmp_path / "returned.xlsx", {name: xml}), "xml-attack", name)


@pytest.mark.parametrize("name", [SHEET1, "xl/styles.xml", BOOK_RELS, TYPES])
def test_refuses_malformed_xml_used_or_not(good: Path, tmp_path: Path, name: str) -> None:
    path = edit(good, tmp_path / "returned.xlsx", name, lambda text: text[: len(text) // 2])
    refused(path, "bad-xml", name)


@pytest.mark.parametrize(("name", "change"), [
    ("xl/workbook.xml", lambda text: re.sub(r"<sheets>.*</sheets>", "", text)),
    ("xl/workbook.xml", lambda text: text.replace('name="Cover"', 'name="QUOTE"')),
    (BOOK_RELS, lambda text: text.replace("worksheets/sheet1.xml", "worksheets/nowhere.xml")),
    (SHEET1, lambda text: text.replace("<worksheet", "<chartsheet").replace("</worksheet>", "</chartsheet>")),
], ids=["no-sheets", "two-sheets-one-name", "sheet-part-missing", "not-a-worksheet"])
def test_refuses_a_workbook_without_the_structure_needed(good: Path, tmp_path: Path, name: str,
                                                         change: Callable[[str], str]) -> None:
    refused(edit(good, tmp_path / "returned.xlsx", name, change), "bad-xml", name)


def test_refuses_a_workbook_without_its_relationships(good: Path, tmp_path: Path) -> None:
    refused(rewrite(good, tmp_path / "returned.xlsx", {BOOK_RELS: None}), "bad-xml", BOOK_RELS)


# --- sheets and cells ------------------------------------------------------------------------------------------------


def test_refuses_a_sheet_it_does_not_have(good: Path) -> None:
    error = refused(good, "missing-sheet", "Quotes", sheets=("Cover", "Quotes"))
    assert "'Quote'" in str(error) and "'Cover'" in str(error)  # the message lists the sheets it has


@pytest.mark.parametrize(("rows", "key"), [
    ('<row r="1"><c r="F0"><v>1</v></c></row>', "Quote!F0"),
    ('<row r="1"><c r="XFE1"><v>1</v></c></row>', "Quote!XFE1"),
    ('<row r="1"><c r="a1"><v>1</v></c></row>', "Quote!a1"),
    ('<row r="1"><c r="A1" t="s"><v>99</v></c></row>', "Quote!A1"),
    ('<row r="1"><c r="A1" t="s"><v>-1</v></c></row>', "Quote!A1"),
    ('<row r="1"><c r="B1"><v>12 GPUs</v></c></row>', "Quote!B1"),
    ('<row r="1"><c r="B1"><v>1_000</v></c></row>', "Quote!B1"),
    ('<row r="1"><c r="C1" t="b"><v>2</v></c></row>', "Quote!C1"),
    ('<row r="1"><c r="D1" t="d"><v>2024-01-01</v></c></row>', "Quote!D1"),
    ('<row r="1"><c r="A1"><v>1</v></c><c r="A1"><v>2</v></c></row>', "Quote!A1"),
    ('<row r="x"><c r="A1"><v>1</v></c></row>', "Quote"),
])
def test_refuses_cells_it_cannot_read(good: Path, tmp_path: Path, rows: str, key: str) -> None:
    refused(rewrite(good, tmp_path / "returned.xlsx", {SHEET1: sheet_xml(rows)}), "bad-cell", key)


def test_cells_are_checked_only_in_the_sheets_asked_for(good: Path, tmp_path: Path) -> None:
    path = rewrite(good, tmp_path / "returned.xlsx", {SHEET1: sheet_xml('<row r="1"><c r="F0"><v>1</v></c></row>')})
    assert read_returned(path, ["Cover"]).cells == {"Cover": {(1, 1): Cell("Cover page", None)}}


# --- the refusal itself ------------------------------------------------------------------------------------------


def test_untrusted_file_is_an_input_error_with_its_kind() -> None:
    error = UntrustedFile("macros are not accepted", file="x.xlsx", kind="macro", key="xl/vbaProject.bin")
    assert str(error) == "x.xlsx: xl/vbaProject.bin: macros are not accepted"
    assert (error.kind, error.file, error.key, error.value) == ("macro", Path("x.xlsx"), "xl/vbaProject.bin", None)
    moved = error.located(file="y.xlsx")
    assert isinstance(moved, UntrustedFile) and (moved.kind, str(moved.file)) == ("macro", "y.xlsx")
    assert UntrustedFile("odd", file="x.xlsx", kind="bad-cell", key="Q!A1", value="z").value == "z"
    with pytest.raises(ValueError):
        UntrustedFile("?", file="x.xlsx", kind="scary")
    again = pickle.loads(pickle.dumps(error))  # crosses a process pool
    assert (type(again), str(again), again.kind, again.key) == (UntrustedFile, str(error), "macro", error.key)
