"""Cooling model: physics sanity, CDU counts, the air-only case, properties over many sites, bad inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE, ROOT
from tests.strategies import COOLANTS, sites
from workbook.api import Model, load
from workbook.inputs import InputError, Value, check_rules
from workbook.units import Q_

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

LIQUID = {  # a direct-to-chip retrofit of the example site
    "liquid_share": 0.8,
    "cdu_redundancy": "N+1",
    "cdu_capacity": "500 kW",
    "cdu_flow": "1500 L/min",
}


def site_file(tmp_path: Path, name: str = "site", power: dict | None = None, **cooling: Any) -> Path:
    """The example site with some cooling (and power) keys changed, written to tmp_path."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["cooling"].update(cooling)
    data["power"].update(power or {})
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def value(model: Model, line_id: str, unit: str | None = None) -> Any:
    q = model.quantity(line_id)
    return q.to(unit).magnitude if unit else (q if isinstance(q, bool | np.bool_) else q.magnitude)


@pytest.fixture(scope="module")
def example() -> Model:
    return load(EXAMPLE)


@pytest.fixture(scope="module")
def liquid(tmp_path_factory: pytest.TempPathFactory) -> Model:
    return load(site_file(tmp_path_factory.mktemp("liquid"), **LIQUID))


# ---------------------------------------------------------------- physics sanity


def test_water_at_one_and_a_half_litres_per_minute_per_kw_rises_about_9_6_k(example: Model) -> None:
    """OCP's 1.5 L/min per kW keeps water within 10 K: 1 kW / (997 kg/m3 x 4.18 kJ/(kg K) x 1.5 L/min)."""
    assert value(example, "cooling.coolant_rise", "K") == pytest.approx(9.6, abs=0.01)
    by_hand = 1.0 / (997 * 4.18 * 1.5 / 1000 / 60)  # kW / (kg/m3 x kJ/(kg K) x m3/s)
    assert value(example, "cooling.coolant_rise", "K") == pytest.approx(by_hand, rel=1e-12)
    assert value(example, "cooling.coolant_return_temperature") == pytest.approx(30 + by_hand, rel=1e-12)


def test_pg25_needs_more_flow_than_water_for_the_same_rise(tmp_path: Path) -> None:
    pg25 = load(site_file(tmp_path, **COOLANTS["PG25"]))
    assert value(pg25, "cooling.coolant_rise", "K") == pytest.approx(1.0 / (1021.5 * 3.92 * 1.5 / 60_000))
    water = load(site_file(tmp_path, "water", **COOLANTS["water"]))
    assert value(pg25, "cooling.min_flow_per_kw") > value(water, "cooling.min_flow_per_kw")


@SETTINGS
@given(st.lists(st.floats(0.01, 20.0), min_size=1, max_size=20), st.one_of(st.just(0.0), st.floats(1e-6, 1.0)))
def test_flow_round_trips_between_litres_per_minute_and_gpm(liquid: Model, per_kw: list[float],
                                                            share: float) -> None:
    """The model's gpm row, converted back to L/min (1 US gallon = 3.785411784 L), is its L/min row."""
    v = liquid.book.evaluate({"cooling.flow_per_kw": np.array(per_kw), "cooling.liquid_share": share})
    lpm, gpm = v["cooling.coolant_flow"][:, 0], v["cooling.coolant_flow_gpm"][:, 0]
    np.testing.assert_allclose(Q_(gpm, "gpm").to("L/min").magnitude, lpm, rtol=1e-12)
    np.testing.assert_allclose(gpm * 3.785411784, lpm, rtol=1e-12)
    np.testing.assert_allclose(Q_(lpm, "L/min").to("gpm").to("L/min").magnitude, lpm, rtol=1e-12)


def test_gpm_row_is_the_litre_row_in_us_gallons(liquid: Model) -> None:
    lpm = value(liquid, "cooling.coolant_flow", "L/min")
    assert lpm > 0
    assert value(liquid, "cooling.coolant_flow_gpm") * 3.785411784 == pytest.approx(lpm, rel=1e-12)
    assert value(liquid, "cooling.coolant_flow_gpm", "L/min") == pytest.approx(lpm, rel=1e-12)


def test_air_flow_matches_the_sensible_heat_equation(example: Model) -> None:
    """CFM = 3412 x kW / (1.085 x dT_F): BTU/h over (lb/ft3 x BTU/(lb F) x 60 min/h x dT_F)."""
    rho, cp = Q_(0.075, "lb/ft^3").to("kg/m^3").magnitude, Q_(0.241, "Btu/lb/delta_degF").to("kJ/kg/K").magnitude
    values = example.book.evaluate({"cooling.air_density": rho, "cooling.air_specific_heat": cp})
    air_kw = values["cooling.air_heat"][0, 0]
    dt_f = 14 * 9 / 5  # the example's 22 -> 36 C
    assert values["cooling.air_flow"][0, 0] == pytest.approx(
        3412.142 * air_kw / (0.075 * 0.241 * 60 * dt_f), rel=1e-6)
    # with the catalog's air (1.2 kg/m3, 1.006 kJ/(kg K)) the same heat needs about 1.5% more than 1.085 says
    cfm = value(example, "cooling.air_flow")
    assert cfm == pytest.approx(3412 * air_kw / (1.085 * dt_f), rel=0.02)
    assert value(example, "cooling.air_flow_m3h") == pytest.approx(Q_(cfm, "CFM").to("m^3/h").magnitude)


def test_heat_rejection_in_refrigeration_tons(example: Model) -> None:
    kw = value(example, "cooling.heat_rejection", "kW")
    assert value(example, "cooling.heat_rejection_tons") == pytest.approx(kw * 3412.142 / 12_000, rel=1e-6)


# ---------------------------------------------------------------- the example site: air-cooled


def test_air_cooled_example_needs_no_cdus_and_no_flow(example: Model) -> None:
    for line in ("liquid_heat", "coolant_flow", "coolant_flow_gpm", "coolant_mass_flow", "rack_coolant_flow",
                 "cdus_for_heat", "cdus_for_flow", "cdus_n", "cdus_installed", "cdu_capacity_installed"):
        assert value(example, f"cooling.{line}") == 0, line
    assert value(example, "cooling.air_heat") == value(example, "cooling.heat_load")
    for check in ("rack_flow_within_manifold", "rise_within_allowed", "cdu_heat_one_down", "cdu_flow_one_down"):
        assert example.quantity(f"cooling.{check}"), check


def test_heat_load_is_it_load_plus_the_indoor_share_of_facility_overhead(example: Model) -> None:
    it = value(example, "power.it_load", "kW")
    overhead = value(example, "power.facility_power", "kW") - it
    assert value(example, "cooling.heat_load", "kW") == pytest.approx(it + 0.3 * overhead, rel=1e-12)


# ---------------------------------------------------------------- CDUs


def test_cdu_count_with_n_plus_1_and_2n(tmp_path: Path, liquid: Model) -> None:
    """Liquid heat = 0.8 x compute power; CDUs (N) = the more of heat / 500 kW and flow / 1,500 L/min."""
    compute = value(liquid, "power.compute_power", "kW")
    heat = 0.8 * compute
    n = max(int(np.ceil(heat / 500)), int(np.ceil(heat * 1.5 / 1500)))
    assert value(liquid, "cooling.liquid_heat", "kW") == pytest.approx(heat, rel=1e-12)
    # 128 nodes x 9.46 kW x 0.8 = 968 kW: 2 units of 500 kW; 1,453 L/min: 1 unit of 1,500 L/min
    assert value(liquid, "cooling.cdus_n") == n == 2
    assert value(liquid, "cooling.cdus_installed") == n + 1
    assert liquid.quantity("cooling.cdu_heat_one_down")

    two_n = load(site_file(tmp_path, **{**LIQUID, "cdu_redundancy": "2N"}))
    assert value(two_n, "cooling.cdus_installed") == 2 * n
    assert two_n.quantity("cooling.cdu_heat_one_down")

    bare = load(site_file(tmp_path, "bare", **{**LIQUID, "cdu_redundancy": "N"}))
    assert value(bare, "cooling.cdus_installed") == n
    assert not bare.quantity("cooling.cdu_heat_one_down")  # no spare: one unit down is too few
    assert not bare.quantity("checks.all_pass")


def test_flow_can_need_more_cdus_than_heat(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, **{**LIQUID, "cdu_flow": "100 L/min"}))
    flow = value(model, "cooling.coolant_flow", "L/min")
    assert value(model, "cooling.cdus_for_flow") == np.ceil(flow / 100)
    assert value(model, "cooling.cdus_n") == value(model, "cooling.cdus_for_flow") > value(
        model, "cooling.cdus_for_heat")


def test_rack_manifold_and_rise_checks_fail_when_broken(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, **{**LIQUID, "rack_manifold_flow": "10 L/min", "flow_per_kw": "1 L/min/kW"}))
    # 4 nodes x 9.46 kW x 0.8 x 1 L/min/kW ~ 30 L/min per rack > 10; 1 L/min per kW of water rises ~14.4 K
    assert value(model, "cooling.rack_coolant_flow") == pytest.approx(
        4 * value(model, "power.node_power", "kW") * 0.8 * 1.0, rel=1e-12)
    assert not model.quantity("cooling.rack_flow_within_manifold")
    assert value(model, "cooling.coolant_rise") == pytest.approx(1000 / (997 * 4180 / 60_000), rel=1e-12)
    assert not model.quantity("cooling.rise_within_allowed")


# ---------------------------------------------------------------- cold plate


def test_cold_plate_time_to_thermal_limit_by_hand(example: Model) -> None:
    """60 mL of water (0.0598 kg) x 4.18 kJ/(kg K) x 10 K / 700 W = 3.57 s."""
    mass_kg = 60e-6 * 997
    seconds = mass_kg * 4180 * 10 / 700
    assert value(example, "cooling.cold_plate_mass", "kg") == pytest.approx(mass_kg, rel=1e-12)
    assert value(example, "cooling.cold_plate_time", "s") == pytest.approx(seconds, rel=1e-12)
    assert seconds == pytest.approx(3.572, abs=1e-3)


# ---------------------------------------------------------------- properties over many inputs


@SETTINGS
@given(st.lists(st.integers(8, 100_000), min_size=2, max_size=12),
       st.floats(0.05, 1.0), st.sampled_from(["N", "N+1", "2N", "2N+1"]))
def test_more_load_never_needs_less_flow_or_fewer_cdus(liquid: Model, gpus: list[int], share: float,
                                                      redundancy: str) -> None:
    gpus = sorted(gpus)
    mult, spares = {"N": (1, 0), "N+1": (1, 1), "2N": (2, 0), "2N+1": (2, 1)}[redundancy]
    v = liquid.book.evaluate({"power.gpus": np.array(gpus, float), "cooling.liquid_share": share,
                              "cooling.cdu_redundancy_multiplier": mult, "cooling.cdu_redundancy_spares": spares})
    for line in ("cooling.heat_load", "cooling.liquid_heat", "cooling.coolant_flow", "cooling.coolant_mass_flow",
                 "cooling.air_flow", "cooling.cdus_n", "cooling.cdus_installed", "cooling.heat_rejection"):
        assert (np.diff(v[line][:, 0]) >= 0).all(), line


@SETTINGS
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=2, max_size=12))
def test_a_larger_liquid_share_moves_heat_from_air_to_liquid(liquid: Model, shares: list[float]) -> None:
    shares = sorted(shares)
    v = liquid.book.evaluate({"cooling.liquid_share": np.array(shares)})
    assert (np.diff(v["cooling.coolant_flow"][:, 0]) >= 0).all()
    assert (np.diff(v["cooling.air_flow"][:, 0]) <= 1e-9 * v["cooling.air_flow"][0, 0]).all()
    np.testing.assert_allclose(v["cooling.heat_rejection"][:, 0], v["cooling.heat_load"][:, 0], rtol=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(site=sites())
def test_heat_out_equals_heat_in_on_random_sites(tmp_path_factory: pytest.TempPathFactory, site: dict) -> None:
    path = tmp_path_factory.mktemp("random") / "site.yaml"
    path.write_text(yaml.safe_dump(site, sort_keys=False))
    model = load(path)
    heat = value(model, "cooling.heat_load", "kW")
    assert value(model, "cooling.liquid_heat", "kW") + value(model, "cooling.air_heat", "kW") == pytest.approx(
        heat, rel=1e-12)
    assert value(model, "cooling.heat_rejection", "kW") == pytest.approx(heat, rel=1e-12)
    assert heat >= value(model, "power.it_load", "kW") * (1 - 1e-12)  # every watt of IT load is heat
    # coolant: Q = m' x cp x dT, so the rise is the liquid heat over (mass flow x cp) whenever there is flow
    liquid_w = value(model, "cooling.liquid_heat", "W")
    if liquid_w > 0:
        mass = value(model, "cooling.coolant_mass_flow", "kg/s")
        cp = model.site.values["cooling.coolant_specific_heat"].magnitude * 1000  # kJ -> J
        assert liquid_w / (mass * cp) == pytest.approx(value(model, "cooling.coolant_rise", "K"), rel=1e-9)
    else:
        assert value(model, "cooling.cdus_installed") == 0
    # air: Q = density x flow x cp x dT
    air = model.site.values
    rho, cp_air = air["cooling.air_density"].magnitude, air["cooling.air_specific_heat"].magnitude * 1000
    dt = air["cooling.air_return_temperature"].magnitude - air["cooling.air_supply_temperature"].magnitude
    assert value(model, "cooling.air_flow", "m^3/s") * rho * cp_air * dt == pytest.approx(
        value(model, "cooling.air_heat", "W"), rel=1e-9)


# ---------------------------------------------------------------- bad input: one line, exit 2, nothing written


def _build(path: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "out.xlsx"
    result = subprocess.run([sys.executable, "-m", "workbook", "build", str(path), "-o", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    return result, out


@pytest.mark.parametrize(("change", "words"), [
    ({"air_supply_temperature": "40 degC"},
     ["cooling.air_supply_temperature = '40 degC'", "cooling.air_return_temperature = '36 °C'", "warmer"]),
    ({"air_supply_temperature": "36 degC"}, ["cooling.air_supply_temperature = '36 degC'"]),
    ({"air_supply_temperature": "100 degF"}, ["cooling.air_supply_temperature = '100 degF'"]),  # 37.8 C
    ({"cdu_redundancy": "N+X"}, ["cooling.cdu_redundancy = 'N+X'", "redundancy scheme"]),
    ({"coolant_supply_temperature": 30}, ["cooling.coolant_supply_temperature = 30", "has no unit"]),
    ({"allowed_rise": "10 L"}, ["cooling.allowed_rise = '10 L'", "temperature difference"]),
    ({"liquid_share": 1.5}, ["cooling.liquid_share = 1.5", "at most 1"]),
])
def test_bad_cooling_input_is_one_line_naming_key_and_value(tmp_path: Path, change: dict, words: list[str]) -> None:
    path = site_file(tmp_path, **change)
    result, out = _build(path, tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith(f"error: {path}: ")
    for w in words:
        assert w in lines[0]
    assert not out.exists()


def test_unknown_coolant_in_the_catalog_is_refused(tmp_path: Path) -> None:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["catalog"]["coolant"] = "glycol"
    for key in ("coolant_density", "coolant_specific_heat"):
        data["cooling"].pop(key, None)
    path = tmp_path / "glycol.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(InputError, match=r"catalog.coolant = 'glycol': not in catalog.yaml.*PG25"):
        load(path)


def test_rules_compare_two_keys_and_skip_absent_ones() -> None:
    values = {"a.x": Value(1.0, "1 K", ""), "a.y": Value(2.0, "2 K", "")}
    check_rules("f.yaml", values, [("a.x", "<", "a.y", "x below y"), ("a.x", "<", "a.absent", "skipped")])
    with pytest.raises(InputError) as e:
        check_rules("f.yaml", values, [("a.y", "<=", "a.x", "y at most x")])
    assert str(e.value) == "f.yaml: a.y = '2 K' and a.x = '1 K': y at most x; expected a.y <= a.x"
