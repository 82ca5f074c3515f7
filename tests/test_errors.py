"""Errors are structured: a refused site names the file and the key as attributes, and prints as one line per
problem (every problem of the file at once: InputErrors, each an InputError).

The property: a valid site (tests/strategies.py) with one to three changes to its data (a hostile value, a value
scaled, a key dropped or misspelt, a top-level entry replaced, scenarios that change a key) either loads, or
raises InputError(s) whose `file` is the site file and whose `key` says where in it, and whose message (what the
CLI prints) is one line per problem that starts with the file. The changes are made to the data, so the file is
always YAML (values are copied: one object used twice would be written as a YAML anchor, which is refused as the
file's YAML, placed by line, not by key).
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.fuzz import HOSTILE_VALUES
from tests.strategies import sites
from workbook.api import load
from workbook.formula.expr import FormulaError, UnitError
from workbook.site.errors import InputError, InputErrors
from workbook.site.yaml_reader import YamlError

TOP_LEVEL = ["site", "description", "catalog", "scenarios", "power", "tco", "nonsense", 7]
TOP_VALUES = [*HOSTILE_VALUES, {"gpu": ["B200"]}, {"gpu": "Nope"}, {"x": {"power.gpus": 1}}]
SCENARIO_KEYS = ["tco.utilisation", "cooling.air_supply_temperature", "power.gpus", "power.pue", "nope"]
FACTORS = [0, -1, 1e-6, 1e-3, 0.5, 2, 1e3, 1e6, 1e12]


@st.composite
def changed(draw: Any, data: dict[str, Any]) -> dict[str, Any]:
    """`data` with one change, drawn so that hypothesis can shrink it to the simplest that fails."""
    kind = draw(st.sampled_from(["value", "value", "scale", "drop", "unknown", "top", "scenarios"]))
    sections = sorted(k for k, v in data.items() if isinstance(k, str) and isinstance(v, dict) and v)
    if kind in ("value", "scale", "drop", "unknown") and sections:
        body = data[draw(st.sampled_from(sections))]
        key = draw(st.sampled_from(sorted(body, key=str)))
        if kind == "value":
            body[key] = copy.deepcopy(draw(st.sampled_from(HOSTILE_VALUES)))
        elif kind == "scale":
            v, factor = body[key], draw(st.sampled_from(FACTORS))
            if isinstance(v, int | float) and not isinstance(v, bool):
                body[key] = v * factor
            elif isinstance(v, str) and v.split() and v.split()[0].replace(".", "", 1).isdigit():
                number, *unit = v.split(maxsplit=1)
                body[key] = f"{float(number) * factor!r} {unit[0] if unit else ''}".strip()
        elif kind == "drop":
            del body[key]
        else:
            body[f"{key}{draw(st.sampled_from(['_x', 's', '']))}z"] = 1
    elif kind == "top":
        data[draw(st.sampled_from(TOP_LEVEL))] = copy.deepcopy(draw(st.sampled_from(TOP_VALUES)))
    elif kind == "scenarios":
        key = draw(st.sampled_from(SCENARIO_KEYS))
        value = draw(st.sampled_from([*HOSTILE_VALUES, "50 degC", 0.4]))
        data["scenarios"] = {f"s{i}": {key: copy.deepcopy(value)} for i in range(draw(st.sampled_from([1, 2, 25])))}
    return data


@st.composite
def mutated_sites(draw: Any) -> dict[str, Any]:
    data = draw(sites())
    for _ in range(draw(st.integers(1, 3))):
        data = draw(changed(data))
    return data


@pytest.mark.fuzz
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutated_sites())
def test_every_refusal_of_a_mutated_site_names_the_file_and_the_key_one_line_each(data: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "site.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8",
                        errors="surrogatepass")
        try:
            load(path)
            event("loaded")
        except InputError as exc:
            errors = exc.errors if isinstance(exc, InputErrors) else (exc,)
            event("refused in a scenario" if exc.scenario else "refused" if len(errors) == 1 else "refused, several")
            assert str(exc).splitlines() == [str(e) for e in errors]
            for e in errors:
                assert e.file == path, e
                assert e.key, e
                assert e.problem and "\n" not in str(e) and str(e).startswith(f"{path}: "), str(e)
                if e.scenario is not None:
                    assert e.scenario in data["scenarios"], e


# ---------------------------------------------------------------- the attributes, one error of each kind


def test_an_input_error_composes_its_one_line_from_its_attributes() -> None:
    e = InputError("is not a whole number", file=Path("s.yaml"), key="power.gpus", value=7.5,
                   expected="a count of GPUs, e.g. gpus: 1024")
    assert isinstance(e, ValueError)
    assert (e.file, e.key, e.value, e.unit, e.line, e.scenario) == (Path("s.yaml"), "power.gpus", 7.5, None, None, None)
    assert str(e) == "s.yaml: power.gpus = 7.5: is not a whole number; expected a count of GPUs, e.g. gpus: 1024"
    moved = e.located(file=Path("t.yaml"), scenario="low")
    assert (moved.file, moved.key, moved.value, moved.scenario) == (Path("t.yaml"), "power.gpus", 7.5, "low")
    assert str(moved).startswith("t.yaml: power.gpus = 7.5: ")


def test_a_rule_between_two_keys_names_both() -> None:
    e = InputError("the air must leave warmer", file="f.yaml", key="a.x", value="30 degC", others=(("a.y", "20 degC"),),
                   expected="a.x < a.y")
    assert e.others == (("a.y", "20 degC"),)
    assert str(e) == "f.yaml: a.x = '30 degC' and a.y = '20 degC': the air must leave warmer; expected a.x < a.y"


def test_an_error_with_only_a_message_still_reads_as_before() -> None:
    """Callers that give only a message (the CLI's argument errors) keep it, with no attributes."""
    e = InputError("-o/--output names one file")
    assert (str(e), e.problem, e.file, e.key, e.value) == ("-o/--output names one file",
                                                            "-o/--output names one file", None, None, None)


def test_a_yaml_error_is_placed_by_file_line_column_and_key(tmp_path: Path) -> None:
    from workbook.site.yaml_reader import read_yaml

    path = tmp_path / "s.yaml"
    path.write_text("site: x\npower:\n  gpus: 0x400\n")
    with pytest.raises(YamlError) as err:
        read_yaml(path)
    assert isinstance(err.value, ValueError)
    assert (err.value.file, err.value.line, err.value.column, err.value.key) == (path, 3, 9, "power.gpus")


def test_a_formula_error_names_its_line_and_a_unit_error_its_units() -> None:
    from workbook.book.book import Book

    book = Book("t")
    i, c = book.sheet("Inputs", "t"), book.sheet("Calc", "c")
    tdp = i.input("tdp", "GPU TDP", "W", 700)
    with pytest.raises(UnitError) as err:
        c.calc("bad", "Bad", "m", tdp)
    e = err.value
    assert isinstance(e, FormulaError) and isinstance(e, ValueError)
    assert (e.line, e.label, e.units, e.kind) == ("c.bad", "Bad", ("W", "m"), "line")
    assert str(e) == f"line c.bad (Bad): {e.problem}" and "\n" not in str(e)
    c.calc("ok", "Ok", "kW", tdp)
    with pytest.raises(FormulaError) as err2:
        c.calc("ok", "Again", "W", tdp)
    assert (err2.value.line, err2.value.label, err2.value.problem) == ("c.ok", "Again", "is defined twice")
