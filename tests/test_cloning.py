"""One cloning mechanism: a formula tree is rebuilt through the parts each node declares (NODES, LINES).

A node that held a line or a node in an undeclared attribute would be silently left pointing at the base case
when a scenario re-points its formula; the first test finds any such attribute in every formula of every site.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.helpers import site_model
from workbook.api import load
from workbook.book.book import Book
from workbook.formula.expr import MONTHS, Env, Func, Node
from workbook.formula.functions import max_
from workbook.formula.line import Line

SITES = sorted((ROOT / "inputs").glob("*.yaml"))


def _parts(node: Node) -> tuple[set[str], set[str]]:
    """The attributes of a node that hold nodes and lines, found by looking (what the declarations must cover); not
    the tuple children() keeps, which is the declared parts gathered."""
    nodes, lines = set(), set()
    gathered = node.children()
    for attr, v in vars(node).items():
        if v is gathered:
            continue
        if isinstance(v, Line):
            lines.add(attr)
        elif isinstance(v, Node) or (isinstance(v, list | tuple) and v and all(isinstance(x, Node) for x in v)):
            nodes.add(attr)
    return nodes, lines


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_every_node_declares_every_part_it_holds(site: Path) -> None:
    book = load(site).book
    seen = 0
    for line in book.lines.values():
        for root in (line.formula, line.opening):
            for node in root.walk() if root is not None else ():
                nodes, lines = _parts(node)
                assert nodes <= set(node.NODES), f"{line.id}: {type(node).__name__} holds undeclared {nodes}"
                assert lines <= set(node.LINES), f"{line.id}: {type(node).__name__} holds undeclared {lines}"
                seen += 1
    assert seen > 1000


def _book() -> tuple[Book, Line, Line, Line]:
    book = Book("t")
    book.timeline(3)
    s = book.sheet("Inputs", "x")
    a = s.input("a", "a", "kW", 2.0)
    b = s.input("b", "b", "kW", 5.0)
    c = s.input("c", "c", "kW", 7.0)
    return book, a, b, c


def _value(book: Book, node: Node, extra: dict[str, float]) -> np.ndarray:
    env = Env({k: np.asarray([[v]]) for k, v in extra.items()}, {MONTHS: book.periods})
    return np.asarray(node.evaluate(env)).reshape(-1)


def test_a_function_built_with_a_tuple_of_arguments_is_re_pointed() -> None:
    book, a, b, c = _book()
    fn = Func("MAX", (a.node(), b.node()), lambda *v: np.maximum.reduce(np.broadcast_arrays(*v)), a.unit)
    clone = fn.rebuilt({b.id: c})
    assert isinstance(clone.args, tuple)
    assert [line.id for n in clone.walk() for line in n.lines()] == ["x.a", "x.c"]
    assert _value(book, clone, {"x.a": 2.0, "x.c": 7.0}) == [7.0]
    assert [line.id for n in fn.walk() for line in n.lines()] == ["x.a", "x.b"]  # the base tree is untouched


def test_rebuilding_shares_what_reads_no_mapped_line_and_keeps_shared_parts_shared() -> None:
    book, a, b, c = _book()
    left = a * 3
    tree = max_(left, b) + left
    clone = tree.rebuilt({b.id: c})
    assert clone is not tree
    assert clone.a.args[0] is tree.a.args[0]  # a * 3 reads no mapped line: the same object
    assert tree.rebuilt({"x.none": c}) is tree
    assert _value(book, clone, {"x.a": 2.0, "x.c": 7.0}) == [13.0]


def _walked(node: Node) -> tuple[str, ...]:
    """The ids of the lines a tree reads, found by walking it (what Node.read_ids caches), first met first."""
    return tuple(dict.fromkeys(line.id for n in node.walk() for line in n.lines()))


def test_the_lines_a_tree_reads_are_its_walks_also_in_a_clone_of_a_tree_that_worked_them_out() -> None:
    _, a, b, c = _book()
    left = a * 3
    tree = max_(left, b) + left - b
    assert tree.read_ids == _walked(tree) == ("x.a", "x.b")
    clone = tree.rebuilt({b.id: c})  # the base's cached ids must not come along
    assert clone.read_ids == _walked(clone) == ("x.a", "x.c")
    assert tree.read_ids == ("x.a", "x.b")


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_every_formula_of_every_site_reads_the_lines_its_walk_finds(site: Path) -> None:
    book = load(site).book  # its scenarios' clones included
    roots = [r for line in book.lines.values() for r in (line.formula, line.opening) if r is not None]
    assert len(roots) > 1000
    for root in roots:
        for node in root.walk():
            assert node.read_ids == _walked(node)


@pytest.mark.slow
def test_a_scenario_clone_reads_the_scenario_lines_only(tmp_path: Path) -> None:
    model = site_model("example.yaml")
    book = model.book
    for name, mapping in book.scenarios.items():
        clones = {line.id for line in mapping.values()}
        for line in mapping.values():
            if line.formula is None:
                continue
            for base_id, clone in mapping.items():
                if base_id in clones or clone is line:
                    continue
                read = {x.id for n in line.formula.walk() for x in n.lines()}
                assert base_id not in read, f"{name}: {line.id} still reads the base case's {base_id}"


def test_two_lines_whose_ids_give_one_defined_name_are_refused() -> None:
    """`power.a_b` and `power_a.b` would both be the name power_a_b; the second would silently not be defined."""
    from workbook.formula.expr import FormulaError

    book = Book("t")
    book.sheet("Inputs", "power").input("a_b", "a", "kW", 1.0)
    with pytest.raises(FormulaError) as err:
        book.sheet("Inputs", "power_a").input("b", "b", "kW", 1.0)
    assert err.value.line == "power_a.b"
