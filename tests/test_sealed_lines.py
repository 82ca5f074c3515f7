"""A line in a book never changes: the book seals it as it adds it. What a line reads (Line.reads) and what reads
it (Book.readers) are public; a changed book is derived (Book.replaced), never edited in place. A built book is
frozen: no write to it, its lines' values, its sheets or its scenarios is accepted (issue 46: the API took
`book.lines["tco.utilisation"].value[...] = 0.1` and the next evaluation returned it)."""

from __future__ import annotations

import dataclasses
import operator

import pytest

from tests.helpers import example_model
from workbook.book.book import Book, FrozenBook
from workbook.formula import evaluation
from workbook.formula.expr import FormulaError
from workbook.formula.line import Line


@pytest.fixture(scope="module")
def book() -> Book:
    return example_model().book


@pytest.mark.parametrize("field", ["formula", "opening", "value", "label", "axis", "bounds", "year_keys", "extra"])
def test_no_field_of_a_line_in_a_book_changes(book: Book, field: str) -> None:
    line = book.lines["tco.npv_own"]
    before = dict(vars(line))
    with pytest.raises(FormulaError) as refused:
        setattr(line, field, None)
    assert refused.value.line == "tco.npv_own"
    assert vars(line) == before


def test_every_line_of_the_book_is_sealed(book: Book) -> None:
    assert all(line.sealed for line in book.lines.values())


def test_readers_are_what_each_line_reads_turned_round(book: Book) -> None:
    pairs = {(pred, line.id) for line in book.lines.values() for pred in line.reads}
    turned = {(line_id, reader) for line_id in book.lines for reader in book.readers(line_id)}
    assert pairs == turned
    assert len(pairs) > 2 * len(book.lines)  # the book is a graph, not a list
    order = list(book.lines)
    for line_id in order:  # each reader comes after what it reads (definition order is evaluation order)
        assert all(order.index(r) > order.index(line_id) for r in book.readers(line_id)[:3])


def test_what_the_energy_cost_reads_and_who_reads_the_electricity_price(book: Book) -> None:
    # energy = idle energy + energy per unit of utilisation x utilisation; both parts are priced at the electricity
    # price, which the Sensitivity sheet also shows as the current value of an estimate
    assert book.lines["tco.energy_cost"].reads == ("tco.energy_idle", "tco.energy_per_utilisation", "tco.utilisation")
    assert book.readers("tco.electricity_price") == ("tco.energy_idle", "tco.energy_per_utilisation",
                                                      "sensitivity.current")
    assert book.readers("tco.npv_advantage") == tuple(
        line.id for line in book.lines.values() if "tco.npv_advantage" in line.reads)
    with pytest.raises(KeyError):
        book.readers("tco.no_such_line")


def test_a_changed_book_is_derived_and_the_first_is_unchanged(book: Book) -> None:
    base = book.lines["tco.energy_cost"]
    doubled = dataclasses.replace(base, formula=base.formula * 2)
    changed = book.replaced(doubled)
    assert changed.lines["tco.energy_cost"] is doubled and doubled.sealed
    assert book.lines["tco.energy_cost"] is base
    assert list(changed.lines) == list(book.lines)
    assert any(x is doubled for x in changed.sheets[base.sheet]) and not any(
        x is doubled for x in book.sheets[base.sheet])
    old = book.evaluate(lines=["tco.energy_cost"])["tco.energy_cost"]
    new = changed.evaluate(lines=["tco.energy_cost"])["tco.energy_cost"]
    assert new.tolist() == (old * 2).tolist()


def test_a_replacement_keeps_the_lines_periods(book: Book) -> None:
    base = book.lines["tco.npv_own"]  # a single value
    with pytest.raises(FormulaError):
        book.replaced(dataclasses.replace(base, formula=book.lines["tco.month"].formula, axis="months"))
    with pytest.raises(KeyError):
        book.replaced(dataclasses.replace(base, id="tco.no_such_line"))


def test_a_book_derived_with_an_input_replaced_still_evaluates_its_scenarios_as_rows(book: Book) -> None:
    utilisation = book.lines["tco.utilisation"]
    changed = book.replaced(dataclasses.replace(utilisation, value=utilisation.value * 0.9))
    assert evaluation.scenarios_as_rows(changed) is not None
    rows = changed.evaluate()
    with pytest.MonkeyPatch.context() as mp:  # each scenario copy evaluated as written
        mp.setattr(evaluation, "scenarios_as_rows", lambda book: None)
        as_written = changed.evaluate()
    for key in ("tco.npv_advantage", "scenario.low_utilisation.tco.npv_advantage",
                "scenario.one_month_late.tco.npv_advantage"):
        assert rows[key].tobytes() == as_written[key].tobytes()
    assert rows["tco.npv_advantage"].item() != book.evaluate()["tco.npv_advantage"].item()


def test_a_book_derived_with_a_calculation_replaced_evaluates_its_scenario_copies_as_written(book: Book) -> None:
    base = book.lines["tco.energy_cost"]
    changed = book.replaced(dataclasses.replace(base, formula=base.formula * 2))
    assert evaluation.scenarios_as_rows(changed) is None  # its copies read the old formula: not rows of the new
    copy = "scenario.low_utilisation.tco.energy_cost"
    assert changed.evaluate()[copy].item() == book.evaluate()[copy].item()  # as written: still the old formula
    assert evaluation.scenarios_as_rows(book) is not None


def _copy(b: Book) -> Line:
    base = b.lines["tco.npv_own"]
    return base.cloned("tco.extra", "Extra", base.sheet, base.section)


# each write and what refuses it: the book itself, or the read-only mapping, tuple or array it hands out
WRITES = {
    "a value in place": (lambda b: b.lines["tco.utilisation"].value.__setitem__(..., 0.1), ValueError),
    "a line in place of another": (lambda b: operator.setitem(b.lines, "tco.utilisation", b.lines["tco.npv_own"]),
                                   TypeError),
    "a line removed": (lambda b: b.lines.pop("tco.utilisation"), AttributeError),
    "a row on a sheet": (lambda b: b.sheets["Summary"].append(b.lines["tco.npv_own"]), AttributeError),
    "a sheet": (lambda b: operator.setitem(b.sheets, "Extra", []), TypeError),
    "a scenario's copy": (lambda b: operator.setitem(next(iter(b.scenarios.values())), "tco.utilisation", None),
                          TypeError),
    "a scenario": (lambda b: operator.setitem(b.scenarios, "extra", {}), TypeError),
    "a chart": (lambda b: b.charts.append(b.charts[0]), AttributeError),
    "a table": (lambda b: b.tables.append(None), AttributeError),
    "the headline": (lambda b: b.headline.append(b.lines["tco.npv_own"]), AttributeError),
    "an attribute": (lambda b: setattr(b, "charts", []), FrozenBook),
    "the bill of materials": (lambda b: setattr(b, "bom", None), FrozenBook),
    "a line added": (lambda b: b.add(_copy(b)), FrozenBook),
    "a line defined": (lambda b: b.sheet("Summary", "summary").calc("extra", "Extra", "USD", b.lines["tco.npv_own"]),
                       AttributeError),
    "a section": (lambda b: b.sheet("Summary", "summary").section("Extra"), AttributeError),
}


@pytest.mark.parametrize("write", list(WRITES), ids=list(WRITES))
def test_a_built_book_refuses_every_write(book: Book, write: str) -> None:
    before = book.evaluate(lines=["tco.npv_advantage"])["tco.npv_advantage"].tolist()
    assert book.frozen
    action, refusal = WRITES[write]
    with pytest.raises(refusal):
        action(book)
    assert book.lines["tco.utilisation"].value.tolist() == 0.7
    assert isinstance(book.lines["tco.npv_own"], Line) and "tco.extra" not in book.lines
    assert book.evaluate(lines=["tco.npv_advantage"])["tco.npv_advantage"].tolist() == before


def test_a_book_derived_from_a_frozen_one_is_frozen_and_evaluates(book: Book) -> None:
    base = book.lines["tco.energy_cost"]
    changed = book.replaced(dataclasses.replace(base, formula=base.formula * 2))
    assert changed.frozen
    with pytest.raises(FrozenBook):
        changed.add(_copy(changed))
    assert changed.evaluate(lines=["tco.energy_cost"])["tco.energy_cost"].sum() > 0
