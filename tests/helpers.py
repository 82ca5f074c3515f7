"""Helpers the tests share, one per job. Test modules import from here (and conftest, parity, strategies,
fuzz, overlaps), never from each other."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import io
import os
import random
import re
import resource
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

import openpyxl
import yaml
from openpyxl.formula.tokenizer import Token, Tokenizer

from tests.conftest import EXAMPLE, ROOT
from workbook import cli
from workbook.analysis import summary
from workbook.api import Model, load, save
from workbook.book.book import Book
from workbook.build import Loaded, load_all, present
from workbook.excel.layout import Layout
from workbook.models import ENGINEERING, all_rules, all_specs, reliability
from workbook.models.bom import bom
from workbook.models.fleet import define_fleet, define_site_fleet, model_inputs
from workbook.returned.vendor_copy import COMMENT, KEY, LEAD, PRICE, QUOTE_SHEET
from workbook.site.examples import example_for
from workbook.site.load import load_site

BASE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())  # the example site file, as read
_CELL = re.compile(r"^\$?[A-Z]{1,3}\$?\d+(:\$?[A-Z]{1,3}\$?\d+)?$")


def binomial_quantile_exactly(n: int, p: float, level: float) -> int:
    """The smallest k with P(X <= k) >= level for X ~ Binomial(n, p), in exact rational arithmetic: the
    definition, not an algorithm, to check a spreadsheet's CRITBINOM and the spares sized with it."""
    p_, level_ = Fraction(p), Fraction(level)
    q = 1 - p_
    if q == 0:
        return n  # every trial succeeds
    total, term = Fraction(0), q**n
    for k in range(n + 1):
        if k:
            term = term * (n - k + 1) / k * p_ / q
        total += term
        if total >= level_:
            return k
    return n


def site_with(changes: dict[str, Any] | None = None, remove: tuple[str, ...] = (), **top: Any) -> dict[str, Any]:
    """The example site with `section.key` values changed or removed, and top-level keys replaced; without its
    risk: section unless `risk=` gives one (its 10,000 samples would add a second or two to every build of a
    variant; tests/test_risk.py and the builds of the example's own file keep it)."""
    data = copy.deepcopy(BASE)
    if "risk" not in top:
        data.pop("risk", None)
    for dotted, v in (changes or {}).items():
        section, key = dotted.split(".", 1)
        data.setdefault(section, {})[key] = v
    for dotted in remove:
        section, key = dotted.split(".", 1)
        del data[section][key]
    data.update(top)
    return data


GIB = 2**30
ATTACK_MEMORY = 2 * GIB  # the address space an attack on memory runs in (RLIMIT_AS): a small machine's


def run(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None,
        memory: int | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m workbook ARGS` in a process of its own; `env`: variables set for it besides this one's; `memory`:
    its address space in bytes (RLIMIT_AS), so that an attack on memory fails there as on a small machine rather
    than taking this one's."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-m", "workbook", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=None if env is None else {**os.environ, **env},
                          preexec_fn=None if memory is None else limit)


def invoke(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`python -m workbook ARGS` in this process (the CLI's main, in `cwd`), for a test whose subject is the
    command and not the process: its exit status, standard output and standard error as run() gives them, without
    starting Python and importing the package again for each command (about a CPU-second each). A test of what
    only a process shows (its memory limit, its environment, signals, a closed pipe) uses run()."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main([str(a) for a in args])
        except SystemExit as e:  # argparse's refusal of the command line
            status = e.code if isinstance(e.code, int) else int(e.code is not None)
    return subprocess.CompletedProcess(["python", "-m", "workbook", *map(str, args)], status, out.getvalue(),
                                       err.getvalue())


MIB = 2**20


def flooded(src: Path, out: Path, parts: list[str], *, part_bytes: int = int(15.9 * MIB),
            xml_bytes: int = 64 * MIB) -> Path:
    """A copy of an .xlsx whose `parts` are filled with empty elements of random one-letter names and attributes
    (`<q x=""/>`, about 5:1 compressed) inside every limit a returned file has: each part up to `part_bytes` (the
    limit is 16 MiB) and the XML in all up to `xml_bytes` (the limit). The hardening review's attack: 1.8 million
    elements a part, gigabytes as trees. Made here, never committed; the same file every run (a fixed seed). The
    flood is deflated at level 1 (4.7:1, as at the default level's 4.9:1, in a twelfth of the time)."""
    rng = random.Random(20261206)
    letters = "abcdefghijklmnopqrstuvwxyz"
    block = "".join(f'<{rng.choice(letters)} {rng.choice(letters)}=""/>' for _ in range(30_000)).encode()
    with zipfile.ZipFile(src) as zin:
        infos = zin.infolist()
        other = sum(i.file_size for i in infos if i.filename.endswith((".xml", ".rels")) and i.filename not in parts)
        size = min(part_bytes, (xml_bytes - other) // len(parts))
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in infos:
                data = zin.read(info)
                if info.filename in parts:
                    flood = (block * (size // len(block) + 1))[: size - len(data)]
                    flood = flood[: flood.rindex(b"/>") + 2]  # whole elements, before the root's end tag
                    close = data.rindex(b"</")
                    data = data[:close] + flood + data[close:]
                    zout.writestr(info, data, zipfile.ZIP_DEFLATED, compresslevel=1)
                else:
                    zout.writestr(info, data)
    return out


def assert_one_line_error(proc: subprocess.CompletedProcess[str], prefix: str = "error:") -> str:
    assert "Traceback" not in proc.stderr + proc.stdout
    err = proc.stderr.strip()
    assert err.startswith(prefix), err
    assert "\n" not in err, err
    return err


B200 = ROOT / "inputs" / "b200-liquid-build.yaml"


HAND_TCO = {
    "server_price": "240000 USD", "switch_price": "0 USD", "transceiver_price": "0 USD", "cable_price": "0 USD",
    "oob_switch_price": "0 USD", "fit_out_capex": "0 USD", "colo_price": "0 USD/kW/month",
    "cost_of_capital": 0.0, "useful_life": "2 years", "residual_value": 0.0, "electricity_price": "0 USD/kWh",
    "support_rate": "0 / year", "staff_fte": 0, "utilisation": 1.0, "on_demand_price": "2 USD/GPU/hour",
    "reserved_share": 0.0, "rent_extras": "0 USD/month", "horizon": "36 months", "rent_price_change": 0.0,
    "electricity_escalation": 0.0, "facility_escalation": 0.0, "lead_time": "0 months", "tax_rate": 0.0,
    "staff_escalation": 0.0, "support_escalation": 0.0, "ramp_months": "0 months", "working_capital_months": "0 months",
}


# the BOM's other budget prices at 0 (its services and shipping too), so the capex is the one node's 240,000 (the
# colocation supplies the cabinets)
HAND_BOM = {key: "0 USD" for key in ("power_cord_price", "node_transceiver_price", "storage_port_transceiver_price",
                                     "single_mode_cable_price", "oob_cable_price", "oob_uplink_cable_price",
                                     "fabric_manager_price", "cdu_price",
                                     "manifold_price", "hose_price", "management_node_price",
                                     "inband_switch_price", "inband_transceiver_price",
                                     "inband_single_mode_transceiver_price", "dac_price", "licence_price",
                                     "install_price", "cabling_price")} | {"shipping_share": 0.0}


# the storage tiers at 0 USD, and no spares held: a part is held only when waiting for it costs more than the
# part, and with no lead time nothing is waited for (Reliability sheet)
HAND_RELIABILITY = {"fast_price": "0 USD", "capacity_price": "0 USD", "turnaround_onsite_nbd": "0 days",
                    "parts_lead_time": "0 days"}


def example_text_without_risk() -> str:
    """The example site file's text as written (its comments, its flow style), without its risk: section (its last):
    for a test that edits the text and reads no risk figure (the 10,000 samples would be most of each build)."""
    head, found, _ = EXAMPLE.read_text().partition("\nrisk:\n")
    if not found:
        raise AssertionError("inputs/example.yaml has no risk: section at the start of a line")
    return head + "\n"


def site_file(tmp: Path, name: str = "site", base: dict[str, Any] | None = None, **sections: dict[str, Any]) -> Path:
    """A site (the example by default) with some keys changed (sections merged key by key), no scenarios and no
    risk: section (its 10,000 samples would add a second to every build; tests/test_risk.py gives one), and no
    workload: section unless given (tests/test_workload.py gives one)."""
    data = copy.deepcopy(base or BASE)
    data.pop("scenarios", None)
    for optional in ("risk", "workload"):
        if optional not in sections:
            data.pop(optional, None)
    for section, changes in sections.items():
        if section == "scenarios":
            data["scenarios"] = changes
        else:
            data.setdefault(section, {}).update(changes)
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def hand(tmp: Path, name: str = "hand", **tco: Any) -> Any:
    """The HAND site's evaluated model, with some TCO keys changed."""
    return load(site_file(tmp, name, power={"gpus": 8}, tco={**HAND_TCO, **tco}, bom=HAND_BOM,
                          reliability=HAND_RELIABILITY))


def v(model: Any, key: str) -> Any:
    """A line's value: a float for a single value, the row for a row."""
    x = model.values[key]
    return float(x.reshape(-1)[0]) if x.size == 1 else x[0]


def unresolved_references(path: Path) -> list[str]:
    """Every reference in the file that points outside it: a sheet it lacks, or a name it does not define."""
    wb = openpyxl.load_workbook(path)
    titles = set(wb.sheetnames)
    names = set(wb.defined_names)
    problems = []
    for name, defined in wb.defined_names.items():
        for title, _ in defined.destinations:
            if title not in titles:
                problems.append(f"name {name} -> missing sheet {title!r}")
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if not (isinstance(cell.value, str) and cell.value.startswith("=")):
                    continue
                for token in Tokenizer(cell.value).items:
                    if token.type != Token.OPERAND or token.subtype != Token.RANGE:
                        continue
                    ref = token.value
                    if "!" in ref:
                        title = ref.rsplit("!", 1)[0].strip("'")
                        if title not in titles:
                            problems.append(f"{ws.title}!{cell.coordinate}: sheet {title!r} is not in the file")
                    elif not _CELL.match(ref) and ref not in names:
                        problems.append(f"{ws.title}!{cell.coordinate}: name {ref} is not defined")
    return problems


def two_fleets() -> tuple[Book, object]:
    """The example's fleet and, under the namespace fleet_new, the B200 build's hardware, in one book (the example
    sizes its storage on the Reliability sheet, so that model comes first; the BOM's head node count is an endpoint
    of its storage and in-band networks)."""
    old_site = load_site(EXAMPLE, all_specs(), rules=all_rules())
    new_site = load_site(B200, all_specs(), rules=all_rules())
    book = Book("two fleets")
    rel, old = define_site_fleet(book, model_inputs(book, old_site, [*ENGINEERING, reliability, bom]))
    new = define_fleet(book, model_inputs(book, new_site, ENGINEERING, "fleet_new"), "fleet_new")
    summary.define_checks(book)
    present(book, [rel.presented])
    return book, (old_site, old, new)


def bad_site(path: Path, change: dict[str, Any] | None = None, remove: str | None = None) -> Path:
    """The example site with keys changed or one removed, written to `path` (for the CLI's refusals)."""
    path.write_text(yaml.safe_dump(site_with(change, (remove,) if remove else ()), sort_keys=False))
    return path


def fixed_seed(variable: str, default: int) -> int:
    """A random test's seed: fixed, so a run passes or fails the same way every time; the environment variable
    draws another set (the hunt for the next bug). The test names the seed in its failure message."""
    return int(os.environ.get(variable, str(default)))


QUOTE_FIRST = 5  # openpyxl's row of the first quote line (1-based): title, note, blank, header


def rows(ws: Any) -> dict[str, int]:
    """Line key -> openpyxl row (the group headings between them are not keys)."""
    return {ws.cell(r, KEY + 1).value: r for r in range(QUOTE_FIRST, ws.max_row + 1)
            if re.fullmatch(r"[a-z0-9_]+", str(ws.cell(r, KEY + 1).value or ""))}


def filled(issued: tuple[Path, Path], out: Path, prices: dict[str, tuple[Any, Any, Any]],
           edit: Callable[[Any], None] | None = None) -> Path:
    """The vendor's copy filled as a vendor would with openpyxl: key -> (unit price, lead weeks, comment)."""
    wb = openpyxl.load_workbook(issued[1])
    ws = wb[QUOTE_SHEET]
    at = rows(ws)
    for key, (price, lead, comment) in prices.items():
        ws.cell(at[key], PRICE + 1).value = price
        ws.cell(at[key], LEAD + 1).value = lead
        if comment is not None:
            cell = ws.cell(at[key], COMMENT + 1)
            cell.value = comment
            cell.data_type = "s"  # typed text, as Excel stores "=..." typed after an apostrophe
    if edit is not None:
        edit(wb)
    wb.save(out)
    return out


FEW_SAMPLES = 200  # risk samples for a test of the build's steps, not of the risk's figures


def load_sampling_little(site_path: Path | str) -> Loaded:
    """load_all of a site, its risk: section (where it has one) drawing FEW_SAMPLES instead of its own count: every
    step of the build runs, at a twentieth of the example's 10,000 samples' cost."""
    loaded = load_all(site_path)
    if loaded.risk is None:
        return loaded
    return dataclasses.replace(loaded, risk=dataclasses.replace(loaded.risk, samples=FEW_SAMPLES))


@functools.cache
def site_model(name: str) -> Model:
    """A site of inputs/ as its model, built once per test process and shared by every test that only reads it (the
    example is about 3 CPU-seconds, most of them its 10,000 risk samples). Nothing can change it under another
    test: the book is frozen, each value array read-only, and the mapping of values a read-only view."""
    model = load(ROOT / "inputs" / name)
    for v in model.values.values():
        v.setflags(write=False)  # a calculated line's array too (the frozen book makes only the inputs' read-only)
    return dataclasses.replace(model, values=MappingProxyType(model.values))


def example_model() -> Model:
    """The example's model, shared (site_model)."""
    return site_model(EXAMPLE.name)


@functools.cache
def site_workbook(name: str) -> tuple[Model, Layout, Path]:
    """A site of inputs/ as its workbook, written once per test process from site_model() into a folder of its own,
    and left read-only (a test that changes a workbook copies it first)."""
    model = site_model(name)
    path = Path(tempfile.mkdtemp(prefix="site-workbook-")) / f"{Path(name).stem}.xlsx"
    layout = save(model, path)
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return model, layout, path


def example_workbook() -> tuple[Model, Layout, Path]:
    """The example's workbook, shared (site_workbook)."""
    return site_workbook(EXAMPLE.name)


def example_with(tmp: Path, name: str, *, risk: bool = True, **values: Any) -> Path:
    """The example site file (its scenarios kept, and its risk: section unless `risk` is False) with `section.key`
    values changed in place of the value only: each keeps its source (a key the file leaves out is added)."""
    data = yaml.safe_load(EXAMPLE.read_text())
    if not risk:
        data.pop("risk", None)
    for dotted, value in values.items():
        section, key = dotted.split(".", 1)
        entry = data.setdefault(section, {}).get(key)
        if isinstance(entry, dict):
            entry["value"] = value
        else:
            data[section][key] = value
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def too_wide(path: Path) -> list[str]:
    """Every number cell whose figure, as its number format shows it at its font (Carlito's widths), is wider
    than its column: what a spreadsheet shows as ### on screen and on paper. Merged cells (a span of columns) and
    text are left out: text overflows or wraps, a number does not."""
    from openpyxl.utils import get_column_letter

    from workbook.excel.figure_text import number
    from workbook.excel.text_width import room, text_points

    formulas, values = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    out = []
    for ws in formulas.worksheets:
        merged = {(r, c) for rng in ws.merged_cells.ranges for r in range(rng.min_row, rng.max_row + 1)
                  for c in range(rng.min_col, rng.max_col + 1)}
        widths = {c: dim.width for dim in ws.column_dimensions.values() if dim.min is not None
                  for c in range(dim.min, dim.max + 1)}
        for row in values[ws.title].iter_rows():
            for cell in row:
                x, fmt = cell.value, ws.cell(cell.row, cell.column).number_format
                if isinstance(x, bool) or not isinstance(x, int | float) or fmt == "General" or \
                        (cell.row, cell.column) in merged:
                    continue
                shown = number(fmt, float(x))
                width = widths.get(cell.column, 8.43)
                if text_points(shown, cell.font.sz or 10, bool(cell.font.b)) > room(width):
                    out.append(f"'{ws.title}'!{get_column_letter(cell.column)}{cell.row}: {shown!r} in {width:g}")
    return out


def documents_text() -> str:
    """The README and every page of docs/ as one text, whitespace folded (a phrase may wrap): what a test of the
    documents' words and figures reads."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in pages)


def cut_texts(path: Path) -> list[str]:
    """Every text a printed page cuts: a text's printed box is its cell (or merged range), and for text that does
    not wrap the empty cells it runs on into; a page prints the part of that box in its own columns (on a page
    after the first across, the repeated columns' part only). A text wider than the part printed, or a wrapped or
    merged one whose box the page prints in part, loses its glyphs past the page's edge ("...(128 x D" on the
    example's continuation pages). Only the pages a spreadsheet prints are read: a page after the first across
    prints where its own columns hold something."""
    out = []
    for ws in openpyxl.load_workbook(path).worksheets:
        if ws.print_area:
            out += _cut_on(_PrintedSheet(ws))
    return sorted(set(out))


class _PrintedSheet:
    """A worksheet as it prints: its print area's pages across and bands down, the repeated columns, widths."""

    def __init__(self, ws: Any) -> None:
        from openpyxl.utils import range_boundaries

        self.ws = ws
        c0, r0, c1, self.r1 = range_boundaries(str(ws.print_area).split("!")[-1].replace("$", ""))
        self.c1 = c1
        self.widths = {c: dim.width for dim in ws.column_dimensions.values() if dim.min is not None
                       for c in range(dim.min, dim.max + 1)}
        self.merged = {(m.min_row, m.min_col): m.max_col for m in ws.merged_cells.ranges}
        self.inside = {(r, c) for m in ws.merged_cells.ranges for r in range(m.min_row, m.max_row + 1)
                       for c in range(m.min_col, m.max_col + 1)}
        self.filled = {(cell.row, cell.column) for row in ws.iter_rows(min_row=r0, max_row=self.r1, min_col=c0,
                                                                        max_col=c1)
                       for cell in row if cell.value not in (None, "")}
        starts = [c0, *sorted(b.id + 1 for b in ws.col_breaks.brk if c0 < b.id + 1 <= c1)]
        self.pages = [range(a, b) for a, b in zip(starts, [*starts[1:], c1 + 1], strict=True)]
        rows = [r0, *sorted(b.id + 1 for b in ws.row_breaks.brk if r0 < b.id + 1 <= self.r1)]
        self.bands = [range(a, b) for a, b in zip(rows, [*rows[1:], self.r1 + 1], strict=True)]
        self.repeat: range = range(0)
        if ws.print_title_cols and len(self.pages) > 1:
            lo, hi = (range_boundaries(f"{part}1")[0] for part in ws.print_title_cols.replace("$", "").split(":"))
            self.repeat = range(lo, hi + 1)

    def width(self, cols: list[int]) -> float:
        return sum(self.widths.get(c, 8.43) for c in cols)

    def box(self, r: int, c: int) -> range:
        """The columns a text at (r, c) prints across: its merged range, or its cell and the empty ones it runs
        on into (text that neither wraps nor aligns right)."""
        cell, last = self.ws.cell(r, c), self.merged.get((r, c), c)
        if last == c and not cell.alignment.wrap_text and cell.alignment.horizontal in (None, "left", "general"):
            while last < self.c1 and (r, last + 1) not in self.filled and (r, last + 1) not in self.inside:
                last += 1
        return range(c, last + 1)


def _cut_on(sheet: _PrintedSheet) -> list[str]:
    from openpyxl.utils import get_column_letter

    from workbook.excel.text_width import room, text_points

    out = []
    for k, own in enumerate(sheet.pages):
        shown = [*sheet.repeat, *own] if k else list(own)
        for band in sheet.bands:
            if k and not any((r, c) in sheet.filled for r in band for c in own if c not in sheet.repeat):
                continue  # a page after the first across with nothing of its own is not printed
            for r, c in ((r, c) for r in band for c in shown if (r, c) in sheet.filled):
                cell = sheet.ws.cell(r, c)
                if not isinstance(cell.value, str) or cell.value.startswith("="):
                    continue
                box = sheet.box(r, c)
                printed = [col for col in box if col in (sheet.repeat if k and c in sheet.repeat else own)]
                if cell.alignment.wrap_text or (r, c) in sheet.merged:
                    cut = len(printed) < len(box)
                else:
                    cut = text_points(cell.value, cell.font.sz or 10, bool(cell.font.b)) > room(sheet.width(printed))
                if cut:
                    out.append(f"'{sheet.ws.title}'!{get_column_letter(c)}{r} on page {k + 1} across: "
                               f"{cell.value[:40]!r}")
    return out


# ---------------------------------------------------------------- a first site file, a request for quotation

SPECS = {s.key: s for s in all_specs()}  # every input key's spec


def fill_required(text: str, values: dict[str, str] | None = None) -> str:
    """Every REQUIRED line (`  key:` with no value) given a value: `values`, else the key's own example."""
    out, section = [], None
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+):", line)
        section = m[1] if m else section
        m = re.match(r"^  ([a-z_0-9]+):$", line)
        if m:
            key = f"{section}.{m[1]}"
            line = f"  {m[1]}: {(values or {}).get(key, example_for(SPECS[key])[0])}"
        out.append(line)
    return "\n".join(out) + "\n"


def accepting_throttling(text: str) -> str:
    """The site's answer to the one check a standard HGX H200 fails: its 4+2 supplies put 3 on a feed, 75% of the
    node's design power (3 of the 4 needed), below the default 100%; the site accepts throttling on a feed loss, as
    the example sites do with their reason."""
    assert "\n  # feed_loss_share: 1\n" in text
    return text.replace("\n  # feed_loss_share: 1\n", "\n  feed_loss_share: 0.75\n")


ISSUED = "2026-12-04"  # the date a test's request for quotation is issued on


def issue_copy(site: Path, out: Path, vendor: str, *extra: str, date: str = ISSUED) -> Path:
    """`workbook quote` of a site for a vendor to `out` (`extra`: its other options), in this process."""
    assert cli.main(["quote", str(site), "--vendor", vendor, "--date", date, "-o", str(out), *extra]) == 0
    return out
