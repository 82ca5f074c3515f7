"""What a new user reads on the command line: figures as the sheet shows them, every problem of a site (its
scenarios and its risk: section too) in the first pass, the name a typo means, the figures a failing check
compares, and an exit status CI can act on."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.conftest import EXAMPLE
from tests.helpers import BASE, example_model, invoke, site_with
from workbook.build import load_all
from workbook.excel.figure_text import figure, number
from workbook.site.errors import InputError, InputErrors, closest


@pytest.fixture(scope="module")
def printed() -> str:
    proc = invoke("evaluate", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_evaluate_prints_figures_as_the_sheet_shows_them(printed: str) -> None:
    """No scientific notation, no fraction beside a percent sign: 70% (not 0.7 %), -16.80 MUSD (not -1.7e+07 USD),
    a date as a date, a break-even as a percentage, words where the cell shows words."""
    assert not re.search(r"\de[+-]\d", printed)
    assert not re.search(r"\b0\.\d+ %", printed)
    lines = {line.split()[0]: line for line in printed.splitlines()}
    assert re.search(r"\s-16\.80 MUSD\s", lines["tco.npv_advantage"])
    assert re.search(r"\s90\.4%\s", lines["tco.break_even_utilisation"])
    assert "never (ends behind)" in lines["tco.payback_month"]
    assert "Rent: owning costs 16.80 MUSD more than renting (NPV)" in lines["summary.answer"]
    assert re.search(r"01 Jan 2027 \.\. 31 Dec 2034 \(97 periods\)", lines["tco.month_end"])


def test_the_json_keeps_the_cells_values_and_says_so() -> None:
    proc = invoke("evaluate", EXAMPLE, "--json")
    data = json.loads(proc.stdout)
    assert "a share as a fraction (0.75 is 75%)" in data["values"]
    built = example_model().values["tco.break_even_utilisation"].item()  # the cell's value, unformatted
    assert 0 < built < 1 and data["lines"]["tco.break_even_utilisation"]["value"] == pytest.approx(built, rel=1e-12)


@pytest.mark.parametrize(("fmt", "x", "shown"), [
    ("0.0%", 0.7, "70.0%"), ("#,##0", 1234567.4, "1,234,567"), ('#,##0.0,,_);(#,##0.0,,);"-"_)', -14494600.0,
                                                               "-14.5"),
    ('[>1]"never (over 100%)";0.0%', 1.2, "never (over 100%)"), ('[>1]"never (over 100%)";0.0%', 0.924, "92.4%"),
    ("yyyy-mm-dd", 46402.0, "2027-01-15"), ("0.000", -0.0001, "0.000"), ("0.0E+00", -4.8e-16, "-4.8E-16"),
])
def test_a_number_as_its_format_shows_it(fmt: str, x: float, shown: str) -> None:
    assert number(fmt, x) == shown


def test_money_shows_one_more_decimal_than_the_sheet() -> None:
    example = example_model()
    line = example.book.lines["tco.capex"]
    usd = float(example.values[line.id].item())
    assert figure(line, np.array([[usd]])) == f"{usd / 1e6:,.2f} MUSD"


def test_risk_prints_money_in_musd_and_shares_as_percentages() -> None:
    proc = invoke("risk", EXAMPLE, "--samples", "500", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"\de[+-]\d", proc.stdout) and not re.search(r"\b0\.\d+ %", proc.stdout)
    row = next(line for line in proc.stdout.splitlines() if line.startswith("tco.npv_advantage"))
    assert row.split()[1] == "MUSD" and re.fullmatch(r"-?\d+\.\d\d", row.split()[2])


def test_every_problem_of_a_site_its_scenarios_and_its_risk_in_one_pass(tmp_path: Path) -> None:
    """A bad value, a scenario's misspelt key and a risk input's misspelt key: all three in the first build."""
    data = site_with({"power.gpus": "lots"}, risk=BASE["risk"])
    data["scenarios"] = {"low_utilisation": {"tco.utilisaton": 0.4}}
    inputs = dict(data["risk"]["inputs"])
    inputs["tco.utilisaton"] = inputs.pop("tco.utilisation")
    data["risk"] = {**data["risk"], "inputs": inputs}
    path = tmp_path / "typos.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputErrors) as err:
        load_all(path)
    keys = [e.key for e in err.value.errors]
    assert "power.gpus" in keys and "tco.utilisaton" in keys and "risk.inputs.tco.utilisaton" in keys
    proc = invoke("build", path, "-o", tmp_path / "typos.xlsx")
    assert proc.returncode == 2 and not (tmp_path / "typos.xlsx").exists()
    assert "did you mean tco.utilisation?" in proc.stderr


def test_did_you_mean_prefers_a_name_that_holds_what_was_typed() -> None:
    names = ["DGX-H100", "DGX-B200", "HGX-H200-Supermicro", "HGX-B200-Supermicro"]
    assert closest("HGX-H200", names) == "HGX-H200-Supermicro"  # not the nearer spelling DGX-H100
    assert closest("DGX-H10", names) == "DGX-H100"
    assert closest("xy", names) is None


def test_a_catalog_typo_names_the_entry_meant(tmp_path: Path) -> None:
    data = site_with({"catalog.node": "HGX-H200"})
    path = tmp_path / "node.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError) as err:
        load_all(path)
    assert "HGX-H200-Supermicro" in str(err.value) and "DGX-H100?" not in str(err.value)


def test_strict_exits_3_when_a_check_fails_and_the_line_gives_both_figures(tmp_path: Path) -> None:
    path = tmp_path / "tight.yaml"
    path.write_text(yaml.safe_dump(site_with({"power.site_available_power": "2 MW"}), sort_keys=False))
    plain = invoke("build", path, "-o", tmp_path / "a.xlsx")
    strict = invoke("build", path, "-o", tmp_path / "b.xlsx", "--strict")
    assert plain.returncode == 0 and strict.returncode == 3
    assert (tmp_path / "b.xlsx").exists()  # the workbook is written: strict only says the checks failed
    line = next(x for x in strict.stdout.splitlines() if "Contracted feed fits" in x)
    assert re.search(r"Contracted utility feed 2\.\d\d MW; Utility power available at the site 2 MW", line)
