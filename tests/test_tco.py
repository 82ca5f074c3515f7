"""Rent vs buy: worked numbers by hand, the finance functions' conventions, scenarios and sensitivity."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE, ROOT
from workbook.api import build, evaluation, load
from workbook.excel.layout import FIRST_PERIOD

BASE = yaml.safe_load(EXAMPLE.read_text())


def site_file(tmp: Path, name: str = "site", **sections: dict[str, Any]) -> Path:
    """The example site with some keys changed (sections merged key by key)."""
    data = copy.deepcopy(BASE)
    data.pop("scenarios", None)
    for section, changes in sections.items():
        if section == "scenarios":
            data["scenarios"] = changes
        else:
            data.setdefault(section, {}).update(changes)
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# One 8-GPU node bought for 240,000 USD, nothing else costs anything, no cost of capital, a 2-year life.
HAND = dict(
    power={"gpus": 8},
    tco={
        "server_price": "240000 USD", "switch_price": "0 USD", "transceiver_price": "0 USD", "cable_price": "0 USD",
        "oob_switch_price": "0 USD",
        "storage_capex": "0 USD", "fit_out_capex": "0 USD", "colo_price": "0 USD/kW/month",
        "cost_of_capital": 0.0, "useful_life": "2 years", "residual_value": 0.0, "electricity_price": "0 USD/kWh",
        "support_rate": "0 / year", "staff_fte": 0, "utilisation": 1.0, "on_demand_price": "2 USD/GPU/hour",
        "reserved_share": 0.0, "rent_extras": "0 USD/month", "horizon": "36 months",
    },
)


def test_worked_break_even_by_hand(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, **HAND))
    v = {k: model.values[k].reshape(-1)[0] for k in model.book.lines}
    # Owned cost per year: with no cost of capital the equivalent annual cost is capex / life
    #   = 240,000 USD / 2 years = 120,000 USD/year.
    assert v["tco.owned_annual_cost"] == pytest.approx(120_000, rel=1e-12)
    # Break-even utilisation = owned cost per year / (GPUs x 8760 h x rent price)
    #   = 120,000 / (8 x 8760 x 2.00) = 120,000 / 140,160 = 0.856164...
    assert v["tco.break_even_utilisation"] == pytest.approx(120_000 / 140_160, rel=1e-12)
    assert v["tco.break_even_utilisation"] == pytest.approx(0.8561643835616438, rel=1e-12)
    # Owned cost per GPU-hour at 100% utilisation = 120,000 / (8 x 8760 x 1.0) = 1.712328... USD/GPU-h
    assert v["tco.owned_cost_per_gpu_hour"] == pytest.approx(1.7123287671232876, rel=1e-12)
    # Renting the same hours: 8 GPUs x 730 h x 1.0 x 2.00 USD = 11,680 USD a month. Cumulative rent first
    # reaches the 240,000 USD paid in month 1 at month 21 (20 x 11,680 = 233,600 < 240,000 <= 245,280).
    assert v["tco.rent_cost"] == pytest.approx(11_680, rel=1e-12)
    assert v["tco.break_even_month"] == 21
    # NPV at 0% is the plain sum: owning 240,000; renting 24 x 11,680 = 280,320.
    assert v["tco.npv_own"] == pytest.approx(240_000)
    assert v["tco.npv_rent"] == pytest.approx(280_320)
    # A month of delay: 8 x 730 h x 1.0 = 5,840 GPU-hours, 11,680 USD at the on-demand price.
    assert v["tco.delay_gpu_hours"] == pytest.approx(5_840)
    assert v["tco.delay_cost"] == pytest.approx(11_680)


def test_cost_of_capital_prices_the_capital(tmp_path: Path) -> None:
    """At 12%/year the EAC of 240,000 over 24 months is the annuity: PMT(r_m, 24, -240,000 / (1 + r_m)) x 12.

    Excel's NPV discounts the month-1 capex by one month, so the EAC is the annuity on its present value."""
    model = load(site_file(tmp_path, power=HAND["power"], tco={**HAND["tco"], "cost_of_capital": 0.12}))
    r = 1.12 ** (1 / 12) - 1
    pv = 240_000 / (1 + r)
    annuity = pv * r / (1 - (1 + r) ** -24) * 12
    assert model.values["tco.owned_annual_cost"].item() == pytest.approx(annuity, rel=1e-12)


def test_zero_utilisation_shows_a_message_not_div0(tmp_path: Path, libreoffice: str) -> None:
    from tests.parity import build_all, check

    path = site_file(tmp_path, "idle", tco={"utilisation": 0.0})
    built = build_all([path], tmp_path / "built")
    outcome = check(built, tmp_path)
    assert outcome.problems == []
    model, layout = built[0].model, built[0].layout
    sheet, row, col = layout.cells["tco.owned_cost_per_gpu_hour"]
    ws = openpyxl.load_workbook(built[0].xlsx, data_only=True)[sheet]
    assert ws.cell(row + 1, col + 1).value == "no GPU-hours used (utilisation is 0)"
    assert evaluation(model)["lines"]["tco.owned_cost_per_gpu_hour"]["value"] is None


def test_same_formula_across_every_period(tmp_path: Path) -> None:
    """FAST: a row's formula is the same in every period column (shifted one column at a time)."""
    model, layout = build(EXAMPLE, tmp_path / "e.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "e.xlsx")
    from openpyxl.formula.translate import Translator

    checked = 0
    for line in model.book.lines.values():
        if not line.series or line.kind == "input":
            continue
        sheet, row, _ = layout.cells[line.id]
        ws = wb[sheet]
        first = ws.cell(row + 1, FIRST_PERIOD + 1)
        for t in range(1, model.book.periods):
            cell = ws.cell(row + 1, FIRST_PERIOD + 1 + t)
            assert cell.value == Translator(first.value, origin=first.coordinate).translate_formula(cell.coordinate)
        checked += 1
    assert checked > 20


def test_scenarios_are_live_clones(tmp_path: Path) -> None:
    path = site_file(tmp_path, tco={"utilisation": 0.7},
                     scenarios={"low": {"tco.utilisation": 0.35}, "dear": {"tco.electricity_price": "0.2 USD/kWh"}})
    model, layout = build(path, tmp_path / "s.xlsx")
    book, v = model.book, model.values
    low = book.scenarios["low"]
    # the scenario's utilisation is its own input cell; energy and everything downstream are cloned
    assert low["tco.utilisation"].kind == "input" and low["tco.utilisation"].value == pytest.approx(0.35)
    assert "tco.energy_cost" in low and "tco.npv_own" in low and "tco.owned_cost_per_gpu_hour" in low
    # what utilisation cannot change is shared, not copied
    assert "power.it_load" not in low and "tco.capex" not in low
    # a scenario equals the base model evaluated with the changed input
    same = load(site_file(tmp_path, "low_base", tco={"utilisation": 0.35}))
    for key in ("tco.npv_own", "tco.owned_cost_per_gpu_hour", "tco.break_even_month"):
        assert v[low[key].id].item() == pytest.approx(same.values[key].item(), rel=1e-12, nan_ok=True)
    # and its cells are formulas on the Scenarios sheet
    ws = openpyxl.load_workbook(tmp_path / "s.xlsx")["Scenarios"]
    _, row, col = layout.cells[low["tco.npv_own"].id]
    assert str(ws.cell(row + 1, col + 1).value).startswith("=NPV(")


def test_unknown_scenario_key_is_one_line(tmp_path: Path) -> None:
    path = site_file(tmp_path, scenarios={"x": {"tco.utilisaton": 0.3}})
    out = tmp_path / "never.xlsx"
    proc = subprocess.run([sys.executable, "-m", "workbook", "build", str(path), "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "scenarios.x: tco.utilisaton" in proc.stderr and "did you mean tco.utilisation" in proc.stderr
    assert not out.exists()


def test_sensitivity_is_the_model_evaluated_one_input_at_a_time(tmp_path: Path) -> None:
    model = load(EXAMPLE)
    [table] = model.book.tables
    labels = {model.book.lines[k].label: k for k in model.book.lines}
    for row in table.rows[:3]:
        key = labels[row[0]]
        low_value = row[2]
        single = load(site_file(tmp_path, key.replace(".", "_"),
                                **{key.split(".")[0]: {key.split(".")[1]: _as_text(model, key, low_value)}}))
        assert row[5] == pytest.approx(single.values["tco.owned_cost_per_gpu_hour"].item(), rel=1e-9)
        assert row[7] == pytest.approx(single.values["tco.break_even_utilisation"].item(), rel=1e-9)
    # the widest bar first: a tornado
    widths = [abs(r[-3] - r[-4]) for r in table.rows]
    assert widths == sorted(widths, reverse=True)


def _as_text(model: Any, key: str, value: float) -> Any:
    unit = model.book.lines[key].unit_text
    text = {"years": "fyear", "USD/GPU-h": "USD/GPU/hour"}.get(unit, unit)
    return value if unit in ("%", "ratio", "") else f"{value!r} {text}"


EXAMPLE_BOOK = load(EXAMPLE).book


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(price=st.floats(0.5, 10), util=st.floats(0.05, 1.0))
def test_owning_cheaper_exactly_above_break_even(price: float, util: float) -> None:
    """Renting the used hours costs more than owning exactly when utilisation exceeds the break-even."""
    v = EXAMPLE_BOOK.evaluate({"tco.on_demand_price": np.array([price]), "tco.utilisation": np.array([util])})
    eac = v["tco.owned_annual_cost"].item()
    rent_year = 1024 * 8760 * util * price
    above = util > v["tco.break_even_utilisation"].item()
    assert (rent_year > eac) == above or abs(rent_year - eac) < 1e-6 * eac
