"""Overlays: a scenario, a tornado's swing, a risk sample or an edit is a declarative set of input overrides, and a
list of them is evaluated as the rows of one batch, each row the same bits as that overlay evaluated alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.helpers import example_model, fixed_seed, site_model
from workbook.formula.evaluation import evaluate, evaluate_overlays, scenario_overlays, stacked
from workbook.formula.overrides import OverrideError, UnknownInput
from workbook.formula.units import ureg

SITES = sorted((ROOT / "inputs").glob("*.yaml"))
ANSWER = ["tco.npv_advantage"]
RANDOM_INPUTS = {"tco.utilisation": (0.3, 1.0), "tco.electricity_price": (0.03, 0.3), "power.gpu_tdp": (500, 1000),
                 "tco.cost_of_capital": (0.0, 0.2), "tco.on_demand_price": (1.0, 4.0), "power.pue": (1.1, 1.8)}


@pytest.fixture(scope="module")
def example() -> Any:
    return example_model()


@pytest.mark.slow
@pytest.mark.parametrize("site", [p.name for p in SITES])
def test_a_sites_scenarios_as_overlays_are_its_scenario_lines(site: str) -> None:
    """Each scenario's copy of a line (scenario.<name>.<line>, what the workbook shows) is its base line evaluated
    under the scenario's overlay: one batch, the base case in row 0, to the bit."""
    model = site_model(site)
    book = model.book
    overlays = scenario_overlays(book)
    assert overlays, "every site has at least the built-in delay scenario"
    copies = {name: {base: copy.id for base, copy in mapping.items() if copy.kind != "input"}
              for name, mapping in book.scenarios.items()}
    bases = sorted({base for mapping in copies.values() for base in mapping})
    rows = evaluate_overlays(book, [{}, *overlays.values()], bases)
    for r, name in enumerate(overlays, start=1):
        for base, copy_id in copies[name].items():
            assert np.array_equal(rows[base][r], model.values[copy_id][0], equal_nan=True), (name, base)
    for base in bases:
        assert np.array_equal(rows[base][0], model.values[base][0], equal_nan=True), base


def test_a_list_of_overlays_is_each_overlay_evaluated_alone(example: Any) -> None:
    """Twenty random overlays, each changing a random subset of six inputs (seed OVERLAY_SEED), evaluated as one
    batch: every answer equals the overlay evaluated on its own, to the bit."""
    seed = fixed_seed("OVERLAY_SEED", 20261205)
    rng = np.random.default_rng(seed)
    overlays = [{key: float(rng.uniform(lo, hi)) for key, (lo, hi) in RANDOM_INPUTS.items() if rng.random() < 0.5}
                for _ in range(20)]
    answers = ["tco.npv_advantage", "tco.owned_cost_per_gpu_hour", "power.contracted_feed", "tco.irr_buy"]
    batch = evaluate_overlays(example.book, overlays, answers, chunk=7)  # three chunks
    for k, overlay in enumerate(overlays):
        alone = evaluate(example.book, overlay, answers)
        for key in answers:
            assert np.array_equal(batch[key][k], alone[key][0], equal_nan=True), f"seed {seed}, overlay {k}: {key}"


def test_an_empty_overlay_is_the_base_case_and_a_quantity_is_converted(example: Any) -> None:
    book = example.book
    price = float(book.lines["tco.electricity_price"].value.reshape(-1)[0])  # USD/kWh
    rows = evaluate_overlays(book, [{}, {"tco.electricity_price": ureg.Quantity(price * 1000, "USD/MWh")}],
                             ["tco.npv_advantage"])["tco.npv_advantage"]
    assert rows.shape == (2, 1)
    assert rows[0, 0] == rows[1, 0] == example.values["tco.npv_advantage"][0, 0]


def test_overlays_are_refused_when_empty_or_not_inputs(example: Any) -> None:
    with pytest.raises(ValueError):
        evaluate_overlays(example.book, [])
    with pytest.raises(KeyError):
        stacked(example.book, [{"tco.npv_advantage": 1.0}])
    with pytest.raises(KeyError):
        stacked(example.book, [{"tco.no_such_input": 1.0}])


def test_every_line_asked_for_by_name_is_every_line_and_a_stranger_among_them_is_refused(example: Any) -> None:
    """Asking for every line by name (what an overlay evaluation does by default) takes a short way round the walk
    of what each line reads: the same lines, the same bits, and an id that is not a line is still refused."""
    book = example.book
    every = list(book.lines)
    named = evaluate(book, {}, every)
    assert list(named) == every
    assert all(np.array_equal(named[k], example.values[k], equal_nan=True) for k in every)
    with pytest.raises(KeyError) as refused:
        evaluate(book, {}, [*every[1:], "tco.no_such_line"])
    assert "tco.no_such_line" in str(refused.value)


def test_stacked_puts_each_overlay_in_its_row_and_the_base_elsewhere(example: Any) -> None:
    book = example.book
    base = float(book.lines["tco.utilisation"].value.reshape(-1)[0])
    columns = stacked(book, [{"tco.utilisation": 0.5}, {}, {"power.pue": 1.5, "tco.utilisation": 0.9}])
    assert columns["tco.utilisation"].tolist() == [0.5, base, 0.9]
    assert columns["power.pue"].tolist() == [float(book.lines["power.pue"].value.reshape(-1)[0])] * 2 + [1.5]


@pytest.mark.parametrize("key", list(RANDOM_INPUTS))
def test_a_base_evaluation_reused_gives_the_same_bits(example: Any, key: str) -> None:
    """A search that moves one input round after round (the break-even rent change) reuses the base evaluation for
    every line the input does not reach: each answer equals the evaluation computed from nothing, to the bit, and
    a line the input reaches is computed again (not taken from the base)."""
    book = example.book
    answers = ["tco.npv_advantage", "tco.owned_cost_per_gpu_hour", "power.contracted_feed", "tco.irr_buy"]
    base = evaluate(book, {}, answers, strict=False, compact=True, with_dependencies=True)
    lo, hi = RANDOM_INPUTS[key]
    moved = {key: np.linspace(lo, hi, 9)}
    reused = evaluate(book, moved, answers, strict=False, base=base)
    fresh = evaluate(book, moved, answers, strict=False)
    for out in answers:
        assert np.array_equal(reused[out], fresh[out], equal_nan=True), (key, out)
    assert any(np.ptp(fresh[out][:, 0]) > 0 for out in answers), f"{key} moves none of the answers"


# ---------------------------------------------------------------- overrides held to what the site file is held to


def test_an_override_given_as_a_quantity_is_converted_not_stripped(example: Any) -> None:
    book = example.book
    price = float(book.lines["tco.electricity_price"].value.reshape(-1)[0])  # USD/kWh, as the Inputs sheet
    as_mwh = book.evaluate({"tco.electricity_price": ureg.Quantity(price * 1000, "USD/MWh")}, lines=ANSWER)
    as_number = book.evaluate({"tco.electricity_price": price}, lines=ANSWER)
    assert as_mwh["tco.npv_advantage"].tobytes() == as_number["tco.npv_advantage"].tobytes()
    assert as_mwh["tco.npv_advantage"][0, 0] == example.values["tco.npv_advantage"][0, 0]
    many = book.evaluate({"tco.electricity_price": ureg.Quantity(np.array([50.0, 110.0]), "USD/MWh")}, lines=ANSWER)
    assert many["tco.npv_advantage"].shape == (2, 1)  # one row per case, one column for a single value
    assert many["tco.npv_advantage"][0, 0] > many["tco.npv_advantage"][1, 0]  # dearer power: buying wins less


def test_an_override_of_another_dimension_is_refused(example: Any) -> None:
    with pytest.raises(OverrideError) as refused:
        example.book.evaluate({"tco.electricity_price": ureg.Quantity(110, "kW")}, lines=ANSWER)
    assert refused.value.key == "tco.electricity_price" and "USD/kWh" in str(refused.value)


@pytest.mark.parametrize(("key", "value"), [("tco.utilisation", 1.5), ("tco.utilisation", -0.1),
                                            ("power.gpus", 1024.5), ("power.pue", float("nan")),
                                            ("power.pue", np.array([1.3, 1.4, 0.5])), ("tco.utilisation", "0.6")])
def test_an_override_the_input_cannot_take_is_refused(example: Any, key: str, value: Any) -> None:
    with pytest.raises(OverrideError) as refused:
        example.book.evaluate({key: value}, lines=ANSWER)
    assert refused.value.key == key
    with pytest.raises(OverrideError):  # the same rule for an overlay
        evaluate_overlays(example.book, [{}, {key: value if np.size(value) == 1 else 0.5}], ANSWER)


@pytest.mark.parametrize(("key", "quantity"), [
    ("reliability.state_bytes", (16, "")),  # 16 bits: a 0.14 TB checkpoint instead of 1.12 TB
    ("reliability.state_bytes", (1600, "percent")),
    ("power.gpus", (128, "byte")),  # 1,024 GPUs
    ("reliability.model_parameters", (70e9, "byte")),  # 560 B params
    ("tco.utilisation", (0.7, "bit")),
])
def test_a_quantity_that_is_information_where_the_input_is_not_or_the_reverse_is_refused(
        example: Any, key: str, quantity: tuple[float, str]) -> None:
    """pint takes a bit for the number 1 and a byte for 8: the API refuses what a site file refuses."""
    given = ureg.Quantity(*quantity)
    with pytest.raises(OverrideError) as refused:
        example.book.evaluate({key: given}, lines=ANSWER)
    assert (refused.value.key, refused.value.value) == (key, given)


def test_a_quantity_of_information_or_of_none_converts_within_its_kind(example: Any) -> None:
    size = ["reliability.checkpoint_size"]
    built = example.values[size[0]][0, 0]
    for key, quantity in (("reliability.state_bytes", (128, "bit")), ("reliability.model_parameters", (70e9, "")),
                          ("tco.utilisation", (70, "percent"))):
        line = example.book.lines[key]
        as_number = example.book.evaluate({key: float(line.value.reshape(-1)[0])}, lines=[*size, *ANSWER])
        as_quantity = example.book.evaluate({key: ureg.Quantity(*quantity)}, lines=[*size, *ANSWER])
        for k, v in as_number.items():  # 70 percent is 0.7000000000000001: the same to the last bits but one
            np.testing.assert_allclose(as_quantity[k], v, rtol=1e-12)
    assert built == pytest.approx(1.12)  # TB: 70 B params at 16 bytes each


def other_registry_watts() -> Any:
    import pint

    return pint.UnitRegistry().Quantity(700, "W")  # a registry of the caller's own, not workbook.formula.units.ureg


GAPS = {"nan-without-ranges": ("power.pue", float("nan"), False), "inf-without-ranges": ("power.pue", np.inf, False),
        "another-registry": ("power.gpu_tdp", None, True), "empty-array": ("power.pue", np.array([]), True),
        "10**400": ("power.gpus", 10**400, True), "shape-2x3": ("power.pue", np.full((2, 3), 1.3), True)}


@pytest.mark.parametrize("gap", GAPS)
def test_what_the_api_let_through_or_crashed_on_is_refused_as_an_override(example: Any, gap: str) -> None:
    """ranges=False let NaN and inf through (finiteness is always checked); a quantity of another pint registry
    was a bare AssertionError, an empty array an IndexError, 10**400 an OverflowError; a (2, 3) array was taken as
    6 cases. Each an OverrideError naming the key and the value, in one line, for an evaluation and an overlay."""
    key, value, ranges = GAPS[gap]
    value = other_registry_watts() if gap == "another-registry" else value
    with pytest.raises(OverrideError) as refused:
        example.book.evaluate({key: value}, lines=ANSWER, ranges=ranges)
    assert refused.value.key == key and refused.value.value is value and "\n" not in str(refused.value)
    if np.size(value) == 1:
        with pytest.raises(OverrideError):
            evaluate_overlays(example.book, [{}, {key: value}], ANSWER, ranges=ranges)


def test_a_column_of_cases_is_as_many_cases(example: Any) -> None:
    column = example.book.evaluate({"power.pue": np.array([[1.3], [1.4], [1.5]])}, lines=ANSWER)
    flat = example.book.evaluate({"power.pue": np.array([1.3, 1.4, 1.5])}, lines=ANSWER)
    assert column["tco.npv_advantage"].tobytes() == flat["tco.npv_advantage"].tobytes()


def test_an_unknown_key_is_said_escaped(example: Any) -> None:
    key = "power.\x1b]0;pwned\x07gpus"
    with pytest.raises(UnknownInput) as refused:
        example.book.evaluate({key: 1}, lines=ANSWER)
    assert refused.value.key == key and str(refused.value).isprintable() and "\\x1b" in str(refused.value)


def test_a_date_is_expected_as_dates(example: Any) -> None:
    """start_date expected "a number from 36,526 to 73,415 in date"."""
    with pytest.raises(OverrideError) as refused:
        example.book.evaluate({"tco.start_date": 1.0}, lines=ANSWER)
    assert "2000-01-01 to 2100-12-31" in refused.value.expected


def test_the_range_check_can_be_left_out_for_speed(example: Any) -> None:
    got = example.book.evaluate({"tco.utilisation": 1.5}, lines=ANSWER, ranges=False)
    assert got["tco.npv_advantage"][0, 0] > example.values["tco.npv_advantage"][0, 0]


def test_a_key_that_is_not_an_input_says_which_it_may_have_meant(example: Any) -> None:
    with pytest.raises(UnknownInput) as refused:
        example.book.evaluate({"tco.utilsation": 0.6}, lines=ANSWER)
    assert isinstance(refused.value, KeyError)
    assert (refused.value.key, refused.value.close) == ("tco.utilsation", "tco.utilisation")
    assert "did you mean tco.utilisation?" in str(refused.value)
