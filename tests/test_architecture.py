"""The layers of the package: no import cycle between modules, and the formula core depends on nothing above it.

Imports are read from the source (every `import` and `from ... import`, inside functions too, where a cycle
hides, and under `if TYPE_CHECKING:`, where a type hint that names a module above is a layer the design got
wrong), not from what Python happens to have loaded. `from package import name` is an import of the submodule
when `name` is one, and importing a module also runs the __init__ of each package above it that the importer is
not inside.

The package is laid out as the flow, in LAYERS from the bottom: each module may import its own layer and the
layers below it, never one above.
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.helpers import load_sampling_little
from workbook import build
from workbook.analysis import sensitivity
from workbook.analysis.risk import analysis as risk_analysis
from workbook.book import book as book_module
from workbook.book.book import Book
from workbook.build import Loaded, build_book
from workbook.formula import evaluation
from workbook.site.quotes import quotes_path

PACKAGE = ROOT / "workbook"
# From the bottom: the language, then loading the site's files, the book the models fill, the models, what is
# computed from them, the build that runs those steps, the spreadsheet, the engines that recalculate and print it,
# the API's model and what reads it, and the commands on top. A module is in the layer of the longest name there
# that is it or a package above it (workbook itself: the package's __init__).
LAYERS = [
    ["workbook.version"],
    ["workbook.formula"],
    ["workbook.site"],
    ["workbook.book"],
    ["workbook.models"],
    ["workbook.analysis"],
    ["workbook.build"],
    ["workbook.excel"],
    ["workbook.libreoffice"],
    ["workbook.model"],
    ["workbook.findings"],
    ["workbook.explain"],
    ["workbook.api"],
    ["workbook.returned"],
    ["workbook.batch", "workbook.failures"],
    ["workbook.cli", "workbook.__main__", "workbook"],
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
                found |= _outside_packages(target, name, modules)
    return found


def _outside_packages(target: str, name: str, modules: dict[str, Path]) -> set[str]:
    """The packages Python initialises before `target` that `name` is not itself inside: importing
    workbook.models.bom.bom from workbook.site.quotes runs workbook/models/__init__.py first."""
    parts = target.split(".")
    parents = {".".join(parts[:k]) for k in range(1, len(parts))}
    return {p for p in parents if p in modules and not (name == p or name.startswith(p + "."))}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_reader_sees_imports_inside_functions_and_type_hints(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import b\n"
                      "def f():\n    from c import x\n")
    assert _imported("m", source, {"m": source, "b": source, "c": source, "d": source}) == {"b", "c"}


def test_a_cycle_through_a_package_init_is_found(tmp_path: Path) -> None:
    """quotes imports models.bom, which runs models/__init__.py, which imports quotes: a cycle, although no
    module names the other directly (the ImportError of `import workbook.site.quotes` in a fresh process)."""
    (tmp_path / "models").mkdir()
    files = {"quotes": tmp_path / "quotes.py", "models": tmp_path / "models" / "__init__.py",
             "models.bom": tmp_path / "models" / "bom.py", "models.power": tmp_path / "models" / "power.py"}
    files["quotes"].write_text("from models.bom import Quote\n")
    files["models"].write_text("from quotes import read\nfrom models import power\n")
    files["models.bom"].write_text("")
    files["models.power"].write_text("from models.bom import Quote\n")  # inside its own package: no cycle
    graph = {name: _imported(name, path, files) for name, path in files.items()}
    assert cycles(graph) == [["models", "quotes"]]


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    found = cycles(import_graph())
    assert found == [], f"import cycles: {found}"


def layer(module: str) -> int:
    """The index in LAYERS of the layer a module is in (a module of a package is in its package's layer)."""
    found = [(len(name), k) for k, names in enumerate(LAYERS) for name in names
             if module == name or module.startswith(name + ".")]
    assert found, f"{module} is in no layer: add it to LAYERS"
    return max(found)[1]


def upward(graph: dict[str, set[str]]) -> set[str]:
    """Every import from a module to one in a layer above it."""
    return {f"{name} -> {other}" for name, reads in graph.items() for other in reads if layer(other) > layer(name)}


def test_the_layer_check_finds_an_import_from_below_up() -> None:
    graph = {"workbook.formula.expr": {"workbook.book.book"}, "workbook.book.book": {"workbook.formula.expr"},
             "workbook.cli": {"workbook.models.power.power"}, "workbook.models.power.power": set()}
    assert upward(graph) == {"workbook.formula.expr -> workbook.book.book"}
    assert layer("workbook") == layer("workbook.cli") > layer("workbook.version") == 0


def test_every_module_imports_only_its_own_layer_and_those_below() -> None:
    assert upward(import_graph()) == set()


def test_the_top_of_the_package_holds_only_the_layers() -> None:
    """A new module goes into the layer it belongs to: the top level holds the layers' packages and the few
    modules that are a layer of their own."""
    top = {path.stem for path in PACKAGE.glob("*.py")} | {path.name for path in PACKAGE.iterdir() if
                                                           (path / "__init__.py").exists()}
    named = {name.split(".")[1] for names in LAYERS for name in names if name != "workbook"}
    assert top - {"__init__"} == named


def _test_modules_imported(source: str) -> set[str]:
    """The test modules (tests.test_*) a module's source imports, anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out |= {n for n in names if n.split(".")[:2][-1].startswith("test_") and n.startswith("tests.")}
    return out


def test_the_test_import_check_finds_a_test_module_imported() -> None:
    assert _test_modules_imported("from tests.test_rfq import fill\nimport tests.test_x\n") == {
        "tests.test_rfq", "tests.test_rfq.fill", "tests.test_x"}
    assert _test_modules_imported("from tests import helpers\nfrom tests.helpers import site_file\n") == set()


def test_test_modules_share_helpers_only_through_the_helper_modules() -> None:
    """docs/testing.md: tests share their helpers through tests/helpers.py (and the other helper modules), never by
    importing each other (a test module imported by another runs its module-level set-up twice and hides a
    shared helper where no one looks for it)."""
    found = {path.name: _test_modules_imported(path.read_text()) for path in (ROOT / "tests").glob("*.py")}
    assert {name: sorted(names) for name, names in found.items() if names} == {}


def _no_file_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, opening or reading any file fails the test."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a file was read while the book was defined: {args[:1]}")

    for owner, name in ((builtins, "open"), (io, "open"), (os, "open"), (Path, "open"), (Path, "read_text"),
                        (Path, "read_bytes")):
        monkeypatch.setattr(owner, name, refuse)


def _no_value_parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From here on, reading a value as a site file writes it (parse_value, split_value) fails the test, in every
    module of the package that holds either; returns the modules patched."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a value was parsed while the book was defined: {args[:1]}")

    patched = []
    for name, module in sorted(sys.modules.items()):
        for function in ("parse_value", "split_value"):
            if name.startswith("workbook.") and hasattr(module, function):
                monkeypatch.setattr(module, function, refuse)
                patched.append(name)
    return patched


@dataclass(frozen=True)
class Guarded:
    """A site of inputs/ built once with every file read and every value parse refused (the tests below share it):
    each site given a scenario of its own besides its built-in ones, and the example a vendor's quote beside it,
    which the BOM then prices."""

    site: str
    loaded: Loaded
    book: Book


@pytest.fixture(scope="module", params=sorted(p.name for p in (ROOT / "inputs").glob("*.yaml")))
def guarded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Guarded:
    site = request.param
    tmp = tmp_path_factory.mktemp("guarded")
    shutil.copytree(ROOT / "inputs", tmp / "inputs")  # with the files a site names beside it (a next fleet)
    data = yaml.safe_load((ROOT / "inputs" / site).read_text())
    data.setdefault("scenarios", {})["dearer_power"] = {"tco.electricity_price": "0.2 USD/kWh"}
    path = tmp / "inputs" / site
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    if site == "example.yaml":
        quotes_path(path).parent.mkdir()
        quotes_path(path).write_text(yaml.safe_dump({"quotes": [{
            "vendor": "Acme", "date": "2026-11-30", "file": "acme.xlsx", "sha256": "0" * 64,
            "lines": {"nodes": {"unit_price": 250000, "lead_time_weeks": 12, "quantity": 1}}}]}))
    loaded = load_sampling_little(path)
    import scipy.stats  # noqa: F401  the risk's lazy import: a library's own files, read once a process, not data
    with pytest.MonkeyPatch.context() as patched:
        _no_file_reads(patched)
        assert "workbook.site.values" in _no_value_parsed(patched)
        book = build_book(loaded)
    return Guarded(site, loaded, book)


def test_no_file_is_read_while_a_book_is_defined(guarded: Guarded) -> None:
    """Every site of inputs/ (the upgrade reads its next fleet's file), and the example with a quote imported:
    everything is read by load_all, then the models define the book from what was read (the shared build above
    refused every file read)."""
    assert guarded.book.lines
    assert (guarded.site != "example.yaml") or set(guarded.loaded.quotes) == {"nodes"}


def test_no_value_is_parsed_while_a_book_is_defined(guarded: Guarded) -> None:
    """Loading reads every value (the site's, its scenarios' changes, its risk: section's, its next fleet's) and
    definition takes them as read (the shared build above refused every parse)."""
    assert guarded.loaded.site.scenarios["dearer_power"]["tco.electricity_price"].magnitude == pytest.approx(0.2)
    line = guarded.book.lines["scenario.dearer_power.tco.electricity_price"]
    assert line.value.reshape(-1)[0] == pytest.approx(0.2)


def test_no_model_places_its_charts_views_or_grids_itself(guarded: Guarded, monkeypatch: pytest.MonkeyPatch) -> None:
    """The models return what they show (charts, views, grids, the Cover's headline) with their outputs, and the
    book places it in one step after every line is defined: with that step left out, the book has none of it;
    with it, it has each kind."""
    placed = guarded.book
    assert placed.charts and placed.grids and placed.headline and placed.tables
    with monkeypatch.context() as patched:
        patched.setattr(build, "present", lambda book, parts, tables=(): None)
        book = build_book(guarded.loaded)
    assert (book.charts, book.views, book.grids, book.headline, book.tables) == ((), (), (), (), ())
    assert list(book.lines) == list(placed.lines)


def test_the_models_define_without_evaluating_and_the_tornado_defines_nothing(
        guarded: Guarded, monkeypatch: pytest.MonkeyPatch) -> None:
    """Define, then evaluate, then define what shows results: no evaluation while the models define their lines
    (and the scenarios their copies), and the tornado's and the risk's evaluations add no line; the steps are the
    book (the whole build's, shared above)."""
    loaded = guarded.loaded
    with monkeypatch.context() as patched:
        def refuse(*args: object, **kwargs: object) -> None:
            raise AssertionError("the book was evaluated while the models defined it")

        for module in (evaluation, sensitivity, book_module, risk_analysis):
            for name in ("evaluate", "evaluate_many", "evaluate_overlays"):
                if hasattr(module, name):
                    patched.setattr(module, name, refuse)
        book, defined = build.define_models(loaded)
    count = len(book.lines)
    tornado = build.decision_tornado(book, defined.inputs, defined.money)
    work = build.workload_tornado(book, defined.inputs, defined.work) if defined.work is not None else None
    risk = (build.decision_risk(book, loaded.risk, defined.money, work=defined.work) if loaded.risk is not None
            else None)
    assert len(book.lines) == count and tornado.rows and tornado.read
    assert work is None or (work.rows and work.read)
    build.define_results(book, loaded.site, defined, tornado, risk, work)
    whole = guarded.book
    assert list(book.lines) == list(whole.lines) and len(book.lines) > count

    def shown(table: object) -> object:  # a tornado's rows; the risk's S-curve and odds
        rows = getattr(table, "rows", None)
        return rows if rows is not None else (table.curve, table.probability_buy_wins)

    assert [shown(t) for t in book.tables] == [shown(t) for t in whole.tables]
