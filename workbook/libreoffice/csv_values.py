"""LibreOffice's recalculated values, read from its CSV export of every sheet instead of an .xlsx copy.

Writing an .xlsx copy is most of what a recalculation costs LibreOffice (1.9 s a random site's workbook, 1.1 s as
CSV on this machine), and reading it back costs more than reading CSV. Every sheet of every workbook of a batch
goes through one soffice start (`<name>-<sheet>.csv`, each cell where the sheet has it, from A1); text is quoted,
so a text that looks like a number stays text, and a formula's empty text is "" where an empty cell is nothing.

LibreOffice writes a number to 15 significant digits in both formats (2^53 + 1 is 9007199254740990 in its .xlsx
copy, 9.00719925474099E+015 in its CSV); below 1e-5 the CSV writes 20 decimal places, so a value there is known to
5e-21, far inside the comparisons' 1e-12 (verify.same). A percentage is written as one ("5.25%") and a date in the
locale's form ("01/31/2027", or ISO where the cell's format is), both read back as the number the cell holds: the
recalculation's profile sets the locale to en-US (in en-GB, 01/02/2027 is the 1st of February). What this reader
does not know (a date with a time of day, an unquoted text) raises `Unusual`, and that workbook is recalculated into
an .xlsx copy instead (verify.recalculated_values).
"""

from __future__ import annotations

import datetime
import functools
import re
import shutil
from decimal import Decimal
from pathlib import Path

from workbook.libreoffice.sheet_reader import Cells, Unusual, coordinate

# field separator 44 (,), text delimiter 34 ("), UTF-8 (76), from line 1, no cell format, the default language,
# every text cell quoted, special numbers detected, values (not as shown), no formulas, spaces kept, every sheet
FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,true,true,false,false,false,-1"

_TOKEN = re.compile(r'("(?:[^"]|"")*")|([^,\n"]+)|(,+)|(\n)')  # a quoted field, a bare one, commas, a line's end
_US_DATE = re.compile(r"(\d{2})/(\d{2})/(\d{4})")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_EPOCH = datetime.date(1899, 12, 30)
_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)(E[+-]?\d+)?")


def stage(paths: list[Path], folder: Path) -> dict[Path, Path]:
    """Each workbook copied under a name of its place in the batch (w00000.xlsx...), so that no two workbooks'
    sheets can give the same CSV name (a workbook "a" with a sheet "b-c" and a workbook "a-b" with a sheet "c")."""
    folder.mkdir(parents=True, exist_ok=True)
    staged = {}
    for i, p in enumerate(paths):
        staged[p] = folder / f"w{i:05d}.xlsx"
        shutil.copyfile(p, staged[p])
    return staged


def exported(staged: Path, outdir: Path, titles: list[str]) -> list[Path] | None:
    """The CSV files of a staged workbook's sheets, in order; None when any is missing (soffice stopped early)."""
    files = [outdir / f"{staged.stem}-{title}.csv" for title in titles]
    return files if all(f.exists() for f in files) else None


def read_workbook(titles: list[str], files: list[Path]) -> Cells:
    """(sheet, cell) -> value of every cell with a value, as sheet_reader.cell_values reads the .xlsx copy."""
    out: Cells = {}
    for title, f in zip(titles, files, strict=True):
        out.update(read_sheet(title, f.read_text(encoding="utf-8")))
    return out


def read_sheet(title: str, text: str) -> Cells:
    """One sheet's CSV: a quoted field is text (an error too: "#DIV/0!"), an unquoted one a number, TRUE/FALSE, a
    percentage or a date, and an empty unquoted field no value. One pass of the pattern finds the fields, each run
    of commas and each line's end (most fields are empty: a sheet's grid is written whole); what it skips is a
    field this reader does not know."""
    out: Cells = {}
    row = col = used = 0
    for quoted, bare, commas, end in _TOKEN.findall(text):
        if commas:
            col += len(commas)
        elif end:
            row, col = row + 1, 0
        elif quoted:
            out[(title, f"{_letters(col)}{row + 1}")] = quoted[1:-1].replace('""', '"')
        else:
            out[(title, f"{_letters(col)}{row + 1}")] = value(bare)
        used += len(quoted) + len(bare) + len(commas) + len(end)
    if used != len(text):
        raise Unusual(f"{title}: a field that is neither quoted nor a value")
    return out


@functools.cache
def _letters(col: int) -> str:
    return coordinate(0, col)[:-1]


def value(text: str) -> bool | int | float:
    """An unquoted field's value, the number (or TRUE/FALSE) the cell holds, or Unusual."""
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    number = _NUMBER.fullmatch(text)
    if number:
        return int(text) if number.group(2) is None and "." not in text else float(text)
    if text.endswith("%") and _NUMBER.fullmatch(text[:-1]):
        return float(Decimal(text[:-1]) / 100)
    for pattern, (y, m, d) in ((_US_DATE, (3, 1, 2)), (_ISO_DATE, (1, 2, 3))):
        found = pattern.fullmatch(text)
        if found:
            try:
                day = datetime.date(int(found.group(y)), int(found.group(m)), int(found.group(d)))
            except ValueError:
                raise Unusual(f"not a date of the locale's form: {text!r}") from None
            return float((day - _EPOCH).days)
    raise Unusual(f"an unquoted field not read: {text[:40]!r}")
