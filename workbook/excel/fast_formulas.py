"""Write a formula cell without xlsxwriter's formula preparation, for formulas that preparation leaves alone.

`Worksheet.write_formula` runs every formula through `_prepare_formula`: it strips the leading `=` (and array
braces), then runs 29 `re.sub` passes adding the `_xlfn.` prefix to dynamic-array functions (and about 100 more
for "future functions" when the workbook asks for them). The formulas we render use none of those functions,
so for them the preparation only strips the `=`; it was about half of the time of writing a workbook.

`write_formula(ws, row, col, formula, fmt, value)` stores exactly the cell `Worksheet.write_formula` would
store (the same `CellFormulaTuple` in the same place, the same dimension bookkeeping), so the file is
byte-identical (tests/test_build_speed.py builds every site both ways and compares the bytes). It falls back
to xlsxwriter's own path for anything the preparation could change or route elsewhere:

- a formula not starting with `=`, or ending with `}` (array braces are stripped), or empty;
- a dynamic-array function (xlsxwriter's own `re_dynamic_function`, which routes the cell to
  `write_dynamic_array_formula`), and the text `INGLE(` (xlsxwriter 3.3's `\\SINGLE\\(` pattern matches any
  character before `INGLE(`);
- a worksheet with `use_future_functions` (the ~100 further renames) or in `constant_memory` mode (rows are
  flushed as they are written);
- an xlsxwriter version this module was not checked against (`AUDITED`): then every formula takes the normal
  path, and tests/test_build_speed.py says so.

Table references (`[#This Row]`, `@`) are only rewritten inside `add_table` column formulas, never by
`write_formula`, so they need no guard here.
"""

from __future__ import annotations

from typing import Any

import xlsxwriter
from xlsxwriter.worksheet import CellFormulaTuple, Worksheet

try:
    from xlsxwriter.worksheet import re_dynamic_function
except ImportError:  # xlsxwriter 3.3.4 tells a dynamic-array function otherwise: not audited, no shortcut
    re_dynamic_function = None

# xlsxwriter versions whose Worksheet._write_formula / _prepare_formula were read for this module (pyproject.toml
# pins the first: the workbook's bytes are checked against it).
AUDITED = ("3.3.1",)
ENABLED = xlsxwriter.__version__ in AUDITED and re_dynamic_function is not None

xlsxwriter_write_formula = Worksheet.write_formula
_dynamic = re_dynamic_function.search if re_dynamic_function is not None else None


def needs_preparation(ws: Worksheet, formula: Any) -> bool:
    """True when xlsxwriter's own write_formula could store something other than `formula[1:]`."""
    return (
        not ENABLED
        or ws.use_future_functions
        or ws.constant_memory
        or not isinstance(formula, str)
        or formula[:1] != "="
        or formula[-1:] == "}"
        or "INGLE(" in formula
        or _dynamic(formula) is not None  # not None where ENABLED
    )


def write_formula(ws: Worksheet, row: int, col: int, formula: str, fmt: Any = None, value: Any = 0) -> int:
    """`ws.write_formula(row, col, formula, fmt, value)` (row and column as numbers), without the regex
    passes when they would change nothing; returns what xlsxwriter returns (0, or -1 out of bounds)."""
    if needs_preparation(ws, formula):
        return xlsxwriter_write_formula(ws, row, col, formula, fmt, value)
    if ws._check_dimensions(row, col):
        return -1
    ws.table[row][col] = CellFormulaTuple(formula[1:], fmt, value)
    return 0
