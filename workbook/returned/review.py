"""Write a reviewer's changes to a built workbook's Inputs sheet back into the site file it was built from.

The workbook comes back from outside: it is read only through `safe_xlsx` (bounded, no macros, no external
parts), and only the Inputs sheet, which must still be the one the current site file builds (same digest, same
rows). Each value is checked like a typed input (a number within the input's range, never a formula or text),
and what reaches the site file is a number the tool formats with the input's unit, never the reviewer's text.
Every edit either lands in the site file or is refused in one line: an edit the site file cannot hold (a unit
constant, a line of the next fleet's file) is named with where to make it instead, never dropped.

The site file is edited as text, in place: only the changed values (and their sources) are replaced, so its
comments, key order and every other line stay byte for byte. The edited text is loaded and built again from a
temporary file beside it, and only when every changed input reads back as reviewed does it replace the site
file (os.replace, atomic).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from xlsxwriter.utility import xl_rowcol_to_cell

from workbook.analysis.shapley import EXACT_LIMIT
from workbook.book import formats
from workbook.book.book import Book
from workbook.book.sheets import INPUTS
from workbook.build import build_book, complete
from workbook.excel.layout import HEADER_ROW, LABEL, NAME, NOTE, UNIT, VALUE, Layout, plan
from workbook.excel.writer import CellContext
from workbook.explain.bridge import Bridge, explain
from workbook.explain.versions import version
from workbook.formula.echo import clip
from workbook.formula.evaluation import scalar
from workbook.formula.line import Line
from workbook.formula.overrides import expected
from workbook.formula.units import factor, is_information, unit
from workbook.models import all_rules, all_specs
from workbook.returned.safe_xlsx import Cell, read_returned
from workbook.site.errors import InputError
from workbook.site.load import load_site
from workbook.site.output import locked, stage, sync_folder
from workbook.site.spec import Site, Spec
from workbook.site.values import writable_unit

# What a refusal is about (ReviewError.kind); a refused file itself is safe_xlsx.UntrustedFile.
NOT_BUILT_FROM_SITE = "not-built-from-site"  # the workbook's recorded digest is not the site file's
STRUCTURE = "structure"  # a row of the build is missing, moved or relabelled
FORMULA, TEXT, BOOLEAN, ERROR, EMPTY = "formula", "text", "boolean", "error", "empty"
NOT_FINITE, OUT_OF_RANGE, NOT_WHOLE = "not-finite", "out-of-range", "not-whole"
ELSEWHERE = "not-in-site-file"  # changed, but the site file does not hold it: say where to edit it
INVALID = "invalid"  # the site file with the reviewed values would be refused by the site loader
NOT_REPRODUCED = "not-reproduced"  # the edited site file does not read back as reviewed
SITE_CHANGED = "site-changed"  # the site file changed on disk while this ran

SAME = 1e-12  # relative: a value closer than this to the build's is unchanged
READ_BACK = 1e-9  # relative: how closely the edited site file must reproduce a reviewed value
_DIGEST = re.compile(r"\(SHA-256 ([0-9a-f]{64})\)")
# Safe unquoted in a flow mapping: a number and a unit, or a redundancy (N+1, 2N).
_PLAIN = re.compile(r"[-+]?[0-9][0-9.]*(?: [^\s,\[\]{}#:'\"&!|>%@`]+)?|[0-9]*N(?:\+[0-9]+)?")
_SCENARIO = re.compile(r"^scenario\.([a-z0-9_]+)\.(.+)$")
_REDUNDANCY_PARTS = ("_multiplier", "_spares")
SPREADSHEET_DAY_0 = date(1899, 12, 30)  # a date input's cell holds days since this (workbook.site.values.serial)


class ReviewError(InputError):
    """A refused review, in one line naming the reviewed workbook (`file`), the cell (`cell`, `Inputs!D12`) and
    the key (`key`) where there is one; `kind` says what is wrong (one of this module's kind constants)."""

    def __init__(self, problem: str, *, kind: str, file: Path, cell: str | None = None, **parts: Any):
        self.kind, self.cell = kind, cell
        where = f"{file} {cell}" if cell else str(file)
        super().__init__(problem, file=file, where=where, **parts)


@dataclass(frozen=True)
class Change:
    """One site-file key the review changed; `str()` is the line the command prints."""

    key: str  # power.pue, or scenarios.<name>.<key> for a scenario's change
    old: str  # as the site file (or the catalog or defaults it took the value from) wrote it
    new: str  # as written now: a number with the input's unit, or a redundancy such as N+2
    cells: tuple[str, ...]  # the reviewed cells it comes from
    lines: tuple[tuple[str, float], ...]  # (line id, reviewed value): what the edited file must reproduce

    def __str__(self) -> str:
        return f"{self.key}: {self.old} -> {self.new}"


@dataclass(frozen=True)
class _Target:
    """Where a change goes in the site file, before its old value and source are read from there."""

    path: tuple[str, ...]  # ("power", "pue"), ("scenarios", "low_utilisation", "tco.utilisation")
    new: str
    cells: tuple[str, ...]
    lines: tuple[tuple[str, float], ...]
    old: str = ""  # where the site file does not hold it: the value it took (from the catalog or defaults)
    old_source: str = ""


def import_inputs(reviewed: Path | str, site_path: Path | str, today: date | None = None,
                  show: Callable[[Bridge], None] | None = None) -> list[Change]:
    """Write the reviewed workbook's changed inputs into the site file; returns the changes (none: untouched).
    `show`: given the bridge of the edits (what they move and by how much) once the edited file is checked and
    before it replaces the site file. Raises ReviewError (or safe_xlsx.UntrustedFile, or the site file's own
    InputError) with nothing written."""
    reviewed, site_path = Path(reviewed), Path(site_path)
    site = load_site(site_path, all_specs(), rules=all_rules())
    returned = read_returned(reviewed, [INPUTS])
    _check_built_from(reviewed, returned.properties.get("description"), site)
    book = build_book(complete(site), risk=False)  # its Inputs sheet as built; no risk figure is read
    layout = plan(book)
    cells = returned.cells.get(INPUTS)
    if cells is None:
        raise ReviewError(f"has no {INPUTS} sheet", kind=STRUCTURE, file=reviewed)
    values = _reviewed_values(reviewed, cells, book, layout)
    _check_settings(reviewed, cells, layout)
    changed = {k: v for k, v in values.items() if _differs(v, _built(book.lines[k]))}
    if not changed:
        return []
    targets = _targets(reviewed, changed, values, book, site, layout)
    raw = site_path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != site.digest:
        raise ReviewError(f"{site.path} changed while the review was imported; run the command again",
                          kind=SITE_CHANGED, file=reviewed)
    edited, changes = _edited(raw.decode("utf-8"), targets, today or date.today())
    _replace_checked(reviewed, site, edited, changes, book, show)
    return changes


def _check_built_from(reviewed: Path, description: str | None, site: Site) -> None:
    m = _DIGEST.search(description or "")
    if m is not None and m.group(1) == site.digest:
        return
    found = f"the SHA-256 of another version ({m.group(1)[:12]}...)" if m else "no SHA-256 of its site file"
    raise ReviewError(
        f"was not built from {site.path} as it is now: its properties record {found}, the file's is "
        f"{site.digest[:12]}...; rebuild the workbook from the site file and review it again, or pass the site "
        "file it was built from with --site", kind=NOT_BUILT_FROM_SITE, file=reviewed)


def _cell_name(row: int, col: int) -> str:
    return f"{INPUTS}!{xl_rowcol_to_cell(row, col)}"


def _text(cell: Cell | None) -> str:
    """A label, name or unit cell as text (an empty string is a blank cell)."""
    if cell is None or cell.value is None:
        return ""
    return cell.value if isinstance(cell.value, str) else repr(cell.value)


def _reviewed_values(reviewed: Path, cells: dict[tuple[int, int], Cell], book: Book,
                     layout: Layout) -> dict[str, float]:
    """Every input line's reviewed value, after checking that each row of the build is where the build put it,
    with its label and unit, and each value is a number the input accepts. Other lines (unit constants) must
    keep their formula."""
    names = {c.value: row for (row, col), c in cells.items() if col == NAME and isinstance(c.value, str)}
    _check_same_quotes(reviewed, names, book)
    out: dict[str, float] = {}
    for row, item in layout.sheets[INPUTS].rows:
        if not isinstance(item, Line):
            continue
        _check_row(reviewed, cells, row, item, names.get(item.name))
        if item.kind == "input":
            out[item.id] = _number(reviewed, cells.get((row, VALUE)), item, _cell_name(row, VALUE))
        elif item.formula is not None and not item.series:
            _check_formula(reviewed, cells.get((row, VALUE)), item, layout, _cell_name(row, VALUE))
    return out


_QUOTE_NAME = re.compile(r"^bom_quote_(?P<line>.+)_price$")  # a vendor quote's price row (workbook.site.quotes)


def _check_same_quotes(reviewed: Path, names: dict[str, int], book: Book) -> None:
    """The workbook was built with the quotes the site has now: a quote imported (or removed) since the build adds
    (or drops) input rows, which is not a reviewer moving rows, and is said so."""
    quoted = sorted(m["line"] for line in book.lines.values() if (m := _QUOTE_NAME.match(line.name)))
    built = sorted(m["line"] for name in names if (m := _QUOTE_NAME.match(name)))
    if quoted != built:
        now, then = (", ".join(q) or "none" for q in (quoted, built))
        raise ReviewError(f"was built with quotes for {clip(then)}, and the site's quotes file now quotes {clip(now)}: "
                          "a quote was imported or removed since the build; rebuild the workbook and review again",
                          kind=NOT_BUILT_FROM_SITE, file=reviewed)


def _check_row(reviewed: Path, cells: dict[tuple[int, int], Cell], row: int, line: Line, found: int | None) -> None:
    name = _text(cells.get((row, NAME)))
    if name != line.name:
        where = (f"it is at row {found + 1} now" if found is not None and found != row
                 else "it is not in the Name column")
        raise ReviewError(f"row {row + 1} holds {clip(name)!r} in the Name column where the build has "
                          f"{line.name} ({where}): rows were moved, renamed or deleted; rebuild and review again "
                          "without moving rows", kind=STRUCTURE, file=reviewed, cell=_cell_name(row, NAME),
                          key=line.id)
    # the unit as the build wrote it: its plural, or its singular beside a value of 1 (1 unit, 2 units)
    units = {line.unit_text, formats.SINGULAR.get(line.unit_text, line.unit_text)}
    for col, want, what in ((LABEL, line.label, "label"), (UNIT, line.unit_text, "unit")):
        got = _text(cells.get((row, col)))
        if got != want and not (col == UNIT and got in units):
            raise ReviewError(f"its {what} is {clip(got)!r}, the build's is {clip(want)!r}: the sheet's structure "
                              "changed; rebuild and review again, changing only values", kind=STRUCTURE,
                              file=reviewed, cell=_cell_name(row, col), key=line.id)


def _refused(reviewed: Path, cell_name: str, line: Line, kind: str, problem: str, value: Any) -> ReviewError:
    return ReviewError(problem, kind=kind, file=reviewed, cell=cell_name, key=line.id, value=value,
                       expected=expected(line), unit=line.unit_text or None)


def _number(reviewed: Path, cell: Cell | None, line: Line, cell_name: str) -> float:
    """The reviewed value of an input cell: a finite number within the input's range, nothing else."""
    def refuse(kind: str, problem: str, value: Any) -> ReviewError:
        return _refused(reviewed, cell_name, line, kind, problem, value)

    if cell is not None and cell.formula is not None:
        raise refuse(FORMULA, "is a formula; an input holds a typed-in number", "=" + cell.formula.lstrip("="))
    if cell is not None and cell.error:
        raise refuse(ERROR, "is an error value, not a number", cell.value)
    value = None if cell is None else cell.value
    if value is None or value == "":
        raise refuse(EMPTY, "is empty", None)
    if isinstance(value, bool):
        raise refuse(BOOLEAN, "is TRUE/FALSE, not a number", value)
    if isinstance(value, str):
        raise refuse(TEXT, "is text, not a number (text is never written to the site file)", value)
    x = float(value)
    if not math.isfinite(x):
        raise refuse(NOT_FINITE, "is not a finite number", value)
    if not line.bounds.holds(x):
        raise refuse(OUT_OF_RANGE, "is outside the input's range", value)
    if line.integer and not x.is_integer():
        raise refuse(NOT_WHOLE, "is not a whole number", value)
    return x


def _check_formula(reviewed: Path, cell: Cell | None, line: Line, layout: Layout, cell_name: str) -> None:
    """A calculated line on the Inputs sheet (a unit constant) keeps the build's formula: a change to it would
    be lost, so it is refused with where to change it."""
    want = line.formula.render(CellContext(layout, INPUTS)).lstrip("=")
    got = cell.formula.lstrip("=") if cell is not None and cell.formula is not None else None
    if got is None or got.replace(" ", "") != want.replace(" ", ""):
        shown = "=" + got if got is not None else (cell.value if cell is not None else None)
        raise ReviewError(f"was changed, but {_elsewhere(line.id, None)}", kind=ELSEWHERE, file=reviewed,
                          cell=cell_name, key=line.id, value=shown)


def _check_settings(reviewed: Path, cells: dict[tuple[int, int], Cell], layout: Layout) -> None:
    """The structural choices beside the inputs are words from the site file; changing them here changes
    nothing, so a change is refused rather than lost."""
    for k, setting in enumerate(layout.settings, start=1):
        row, col = HEADER_ROW + k, NOTE + 3
        if _text(cells.get((row, col))) != setting.value or _text(cells.get((row, col - 1))) != setting.label:
            raise ReviewError(f"structural choice {setting.key} was changed: it decides which rows exist; change "
                              "it in the site file and rebuild", kind=ELSEWHERE, file=reviewed,
                              cell=_cell_name(row, col), key=setting.key, value=_text(cells.get((row, col))))


def _built(line: Line) -> float:
    return scalar(line.value)


def _differs(a: float, b: float, rel: float = SAME) -> bool:
    return not math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


def _elsewhere(line_id: str, site: Site | None) -> str:
    """Where a line that is not a key of the site file is changed instead."""
    if line_id.startswith("next."):
        gen = site.generation if site is not None and isinstance(site.generation, dict) else {}
        fleet = gen.get("next_fleet") or "the file named by generation.next_fleet"
        return f"it is a line of the next fleet: change it in {fleet} (the next fleet's file) and rebuild"
    if line_id.startswith("generation."):
        return "it is an upgrade plan's input: change it in the generation: section of the site file and rebuild"
    if line_id.startswith(("bom.quote", "quote.")):
        return "it is a vendor quote: change the quote where its note says it comes from, and rebuild"
    if line_id.startswith("units."):
        return "it is a unit conversion constant, not an input (templates/unit_constants.yaml defines it)"
    if line_id.startswith("sensitivity."):
        return "it records the value the Sensitivity table was built with, not an input: rebuild to refresh it"
    return "it is not a key of the site file: change what its note names and rebuild"


def _targets(reviewed: Path, changed: dict[str, float], values: dict[str, float], book: Book, site: Site,
             layout: Layout) -> list[_Target]:
    """Each changed line as the site-file key it is written to, in sheet order; a change the site file does not
    hold is refused, naming where to make it."""
    specs = {s.key: s for s in all_specs()}
    out: dict[tuple[str, ...], _Target] = {}
    for line_id in changed:
        cell = _cell_name(*layout.cells[line_id][1:])
        base = next((line_id.removesuffix(p) for p in _REDUNDANCY_PARTS if line_id.endswith(p)), None)
        m = _SCENARIO.match(line_id)
        if line_id in specs and not specs[line_id].redundancy:
            spec, x = specs[line_id], changed[line_id]
            if getattr(spec, "date", False) and not x.is_integer():
                raise _refused(reviewed, cell, book.lines[line_id], NOT_WHOLE, "is not a whole day (a date without "
                               "a time of day)", x)
            out[tuple(line_id.split(".", 1))] = _spec_target(book.lines[line_id], spec, x, cell, site)
        elif base in specs and specs[base].redundancy:
            key = tuple(base.split(".", 1))
            if key not in out:
                out[key] = _redundancy_target(base, values, layout, site)
        elif m and isinstance(site.scenarios.get(m[1]), dict) and m[2] in site.scenarios[m[1]] and m[2] in specs:
            out[("scenarios", m[1], m[2])] = _Target(("scenarios", m[1], m[2]),
                                                     _value_text(changed[line_id], specs[m[2]]), (cell,),
                                                     ((line_id, changed[line_id]),))
        else:
            line = book.lines[line_id]
            raise ReviewError(f"was changed from {_built(line):,.10g} to {changed[line_id]:,.10g}, but "
                              f"{_elsewhere(line_id, site)}", kind=ELSEWHERE, file=reviewed, cell=cell, key=line_id,
                              value=changed[line_id])
    return list(out.values())


def _spec_target(line: Line, spec: Spec, x: float, cell: str, site: Site) -> _Target:
    """A key's new value; where the site has no value for it (an optional key the tool filled in, such as the
    day of the build), the old value is the build's and its source the line's note."""
    old = site.values.get(spec.key)
    given, source = (old.given, old.source) if old is not None else (_value_text(_built(line), spec), line.note)
    return _Target(tuple(spec.key.split(".", 1)), _value_text(x, spec), (cell,), ((line.id, x),), given, source)


def _redundancy_target(key: str, values: dict[str, float], layout: Layout, site: Site) -> _Target:
    ids = [f"{key}{p}" for p in _REDUNDANCY_PARTS]
    mult, spares = (int(values[i]) for i in ids)
    text = ("N" if mult == 1 else f"{mult}N") + (f"+{spares}" if spares else "")
    old = site.values[key]
    cells = tuple(_cell_name(*layout.cells[i][1:]) for i in ids)
    return _Target(tuple(key.split(".", 1)), text, cells, tuple((i, values[i]) for i in ids), old.given, old.source)


def _number_text(x: float) -> str:
    """The shortest text that reads back as x, without an exponent; a whole number without `.0`."""
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return str(np.format_float_positional(x, trim="-"))


def _value_text(x: float, spec: Spec) -> str:
    """A value as a site file writes it: the number with the input's unit (a share as a plain fraction)."""
    if getattr(spec, "date", False):  # a calendar date, stored as days since the spreadsheet's day 0
        return (SPREADSHEET_DAY_0 + timedelta(days=math.floor(x))).isoformat()
    if not spec.pint_unit.dimensionality and not is_information(spec.pint_unit):
        # a count or a share, as a plain number: the count itself where the sheet shows it scaled (70 B params is
        # written 70000000000, as the file gives it; 70 would be read as 70 parameters)
        return _number_text(float(x) * factor(spec.pint_unit, unit("")))
    number = _number_text(float(x))
    unit_text = writable_unit(spec)
    return f"{number} /{unit_text[2:]}" if unit_text.startswith("1/") else f"{number} {unit_text}"


def _scalar(text: str) -> str:
    """A value or source as YAML: plain where that is unambiguous (a number and a unit), else double-quoted."""
    return text if _PLAIN.fullmatch(text) else json.dumps(text, ensure_ascii=False)


def _find(node: yaml.Node | None, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def _span(text: str, node: yaml.Node) -> tuple[int, int]:
    """A node's characters; a block scalar's (| or >) line breaks after it are not its own."""
    start, end = node.start_mark.index, node.end_mark.index
    if getattr(node, "style", None) in ("|", ">"):
        end = start + len(text[start:end].rstrip("\r\n"))
    return start, end


def _line_end(text: str, pos: int) -> int:
    """Where the line holding pos ends (before its line break)."""
    n = text.find("\n", pos)
    if n < 0:
        return len(text)
    return n - 1 if n > 0 and text[n - 1] == "\r" else n


def _last_end(text: str, node: yaml.Node) -> int:
    """The end of the last character a block node's value holds (not the comments and blank lines after it)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _last_end(text, node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _last_end(text, node.value[-1])
    return _span(text, node)[1]


Edit = tuple[int, int, str]  # replace text[start:end] with this


def _edited(text: str, targets: list[_Target], today: date) -> tuple[str, list[Change]]:
    """The site file's text with each target's value (and source) replaced in place, or added under its section;
    every other character is kept."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    nl = "\r\n" if "\r\n" in text else "\n"
    edits: list[Edit] = []
    additions: dict[str, list[str]] = {}
    changes = []
    for t in targets:
        parent: yaml.Node | None = root
        for part in t.path[:-1]:
            found = _find(parent, part)
            parent = found[1] if found is not None else None
        entry = _find(parent, t.path[-1])
        if entry is None:
            old = t.old
            additions.setdefault(t.path[0], []).append(
                f"{t.path[-1]}: {_mapping(t.new, _source(today, old, t.old_source))}")
        else:
            old, more = _replaced(text, entry[1], t.new, today, nl)
            edits.extend(more)
        changes.append(Change(".".join(t.path), old, t.new, t.cells, t.lines))
    edits.extend(_addition(text, root, section, entries, nl) for section, entries in additions.items())
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text, changes


def _source(today: date, old: str, old_source: str) -> str:
    head = f"changed in review, {today.isoformat()} (was {' '.join(old.split())})"
    return f"{head}; {old_source}" if old_source.strip() else head


def _mapping(new: str, source: str) -> str:
    return f"{{value: {_scalar(new)}, source: {json.dumps(source, ensure_ascii=False)}}}"


def _replaced(text: str, node: yaml.Node, new: str, today: date, nl: str) -> tuple[str, list[Edit]]:
    """The edits that give a present key its new value and source: a bare value becomes {value, source}; in a
    {value, source} mapping (flow or block) the value is replaced and the source replaced or added after it.
    Returns the old value as written, and the edits."""
    if isinstance(node, yaml.ScalarNode):
        start, end = _span(text, node)
        return node.value, [(start, end, _mapping(new, _source(today, node.value, "")))]
    value, source = _find(node, "value"), _find(node, "source")
    note = _find(node, "note")
    if value is None or not isinstance(value[1], yaml.ScalarNode):
        raise ValueError(f"not a value of the site file at line {node.start_mark.line + 1}")  # load_site refuses it
    old_source = next((n[1].value for n in (source, note) if n is not None and isinstance(n[1], yaml.ScalarNode)
                       and n[1].value.strip()), "")
    quoted = json.dumps(_source(today, value[1].value, old_source), ensure_ascii=False)
    start, end = _span(text, value[1])
    edits = [(start, end, _scalar(new))]
    if source is not None:  # from its key on: a null source (`source:`) has no characters of its own
        edits.append((source[0].start_mark.index, _span(text, source[1])[1], f"source: {quoted}"))
    elif node.flow_style:
        edits.append((end, end, f", source: {quoted}"))
    else:
        pos = _line_end(text, end)
        edits.append((pos, pos, f"{nl}{' ' * value[0].start_mark.column}source: {quoted}"))
    return value[1].value, edits


def _addition(text: str, root: yaml.Node, section: str, entries: list[str], nl: str) -> Edit:
    """Keys the site file did not give (they came from the catalog or defaults), added at the end of their
    section, after its last value's line; a section the file lacks is added at its end."""
    found = _find(root, section)
    if found is None:
        lead = "" if not text or text.endswith("\n") else nl
        return len(text), len(text), lead + f"{section}:{nl}" + "".join(f"  {e}{nl}" for e in entries)
    node = found[1]
    if not isinstance(node, yaml.MappingNode):
        raise ValueError(f"section {section} is not a mapping")  # load_site refuses it
    if node.flow_style:
        pos = node.end_mark.index - 1  # its closing brace
        return pos, pos, (", " if node.value else "") + ", ".join(entries)
    indent = " " * node.value[0][0].start_mark.column
    pos = _line_end(text, _last_end(text, node))
    return pos, pos, "".join(f"{nl}{indent}{e}" for e in entries)


def _replace_checked(reviewed: Path, site: Site, edited: str, changes: list[Change], book: Book,
                     show: Callable[[Bridge], None] | None = None) -> None:
    """Write the edited text beside the site file, check that it loads and reproduces every reviewed value (and
    no other input moved), show the bridge of the edits, then rename it over the site file; on any failure the
    site file is untouched."""
    target = site.path.resolve()
    tmp = Path(stage(target, edited.encode("utf-8"), target.stat().st_mode & 0o7777))  # and a killed import's gone
    try:
        _check_reads_back(reviewed, tmp, changes, book)
        if show is not None:
            edits = version(tmp, f"{site.path} with the review's edits", read_as=site.path)
            show(explain(version(site.path), edits, by_input=len(changes) <= EXACT_LIMIT))
        with locked(target.parent):  # no other import renames over the file between the check and ours
            if hashlib.sha256(target.read_bytes()).hexdigest() != site.digest:
                raise ReviewError(f"{site.path} changed while the review was imported; run the command again",
                                  kind=SITE_CHANGED, file=reviewed)
            os.replace(tmp, target)
            sync_folder(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _check_reads_back(reviewed: Path, edited: Path, changes: list[Change], book: Book) -> None:
    try:
        new_book = build_book(complete(load_site(edited, all_specs(), rules=all_rules())), risk=False)
    except InputError as e:
        key = f"scenarios.{e.scenario}.{e.key}" if e.scenario else e.key
        cells = next((c.cells for c in changes if c.key == key), ())
        value = {"value": e.value} if getattr(e, "_has_value", False) else {}
        raise ReviewError(f"the site file would then be refused: {e.problem}", kind=INVALID, file=reviewed,
                          cell=", ".join(cells) or None, key=key, expected=e.expected, unit=e.unit,
                          others=e.others, **value) from None
    reviewed_lines = {i: x for c in changes for i, x in c.lines}
    for line_id, line in book.lines.items():
        if line.kind != "input" or line_id.startswith("sensitivity.") or line_id not in new_book.lines:
            continue
        want = reviewed_lines.get(line_id, _built(line))
        got = _built(new_book.lines[line_id])
        if _differs(got, want, READ_BACK):
            change = next((c for c in changes if any(i == line_id for i, _ in c.lines)), None)
            raise ReviewError(f"the edited site file gives {got:g} where {want:g} was expected; nothing written",
                              kind=NOT_REPRODUCED, file=reviewed, cell=", ".join(change.cells) if change else None,
                              key=line_id)
