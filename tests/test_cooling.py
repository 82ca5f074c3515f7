"""Cooling model: physics sanity, liquid heat from cold-plated components, CDU counts by scope, the air-only
case, heat rejection, floor loading, properties over many sites, bad inputs."""

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

LIQUID = {  # a direct-to-chip retrofit of the example site: cold plates on the GPUs and CPUs
    "gpu_liquid_share": 1,
    "cpu_liquid_share": 1,
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
    v = liquid.book.evaluate({"cooling.flow_per_kw": np.array(per_kw), "cooling.gpu_liquid_share": share})
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
    assert value(example, "cooling.air_heat") == value(example, "cooling.it_heat")
    assert value(example, "cooling.cdu_pump_power") == 0
    for check in ("rack_flow_within_manifold", "rise_within_allowed", "cdu_heat_one_down", "cdu_flow_one_down",
                  "heat_balance", "floor_within_rating"):
        assert example.quantity(f"cooling.{check}"), check


def test_heat_load_is_it_load_plus_the_indoor_share_of_facility_overhead(example: Model) -> None:
    it = value(example, "power.it_load", "kW")
    overhead = value(example, "power.facility_power", "kW") - it
    assert value(example, "cooling.heat_load", "kW") == pytest.approx(it + 0.3 * overhead, rel=1e-12)


# ---------------------------------------------------------------- CDUs


def test_cdu_count_with_n_plus_1_and_2n(tmp_path: Path, liquid: Model) -> None:
    """Row CDUs pool the hall: liquid heat = 128 x (8 x 700 W + 2 x 350 W) = 806.4 kW; CDUs (N) = the more of
    ROUNDUP(806.4 / 500) = 2 and ROUNDUP(806.4 x 1.5 / 1,500) = 1."""
    heat = 128 * (8 * 700 + 2 * 350) / 1000
    n = max(int(np.ceil(heat / 500)), int(np.ceil(heat * 1.5 / 1500)))
    assert value(liquid, "cooling.liquid_heat", "kW") == pytest.approx(heat, rel=1e-12)
    assert value(liquid, "cooling.cdu_groups") == 1
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
    # 4 nodes x 6.3 kW on cold plates x 1 L/min/kW = 25.2 L/min per rack > 10; 1 L/min per kW of water rises ~14.4 K
    assert value(model, "cooling.rack_coolant_flow") == pytest.approx(4 * 6.3 * 1.0, rel=1e-12)
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


# ---------------------------------------------------------------- the B200 site: liquid heat from components

B200_SITE = ROOT / "inputs" / "b200-liquid-build.yaml"


def b200_file(tmp_path: Path, name: str = "b200", catalog: dict | None = None, drop: tuple[str, ...] = (),
              **cooling: Any) -> Path:
    """The B200 liquid site with some catalog choices changed, cooling keys dropped (so the catalog's apply)
    and others changed."""
    data = yaml.safe_load(B200_SITE.read_text())
    data["catalog"].update(catalog or {})
    for key in drop:
        del data["cooling"][key]
    data["cooling"].update(cooling)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def b200() -> Model:
    return load(B200_SITE)


def test_b200_liquid_heat_is_the_cold_plated_dc_power(b200: Model) -> None:
    """256 nodes x (8 GPUs x 1,000 W + 2 CPUs x 350 W) x share 1 = 2,227.2 kW; the old rule (0.72 of the node's
    wall power, 10,690 W DC / 0.94 = 11,372 W) gave 2,096.1 kW: 6% low, and it put PSU loss in the coolant."""
    by_hand = 256 * (8 * 1000 + 2 * 350) / 1000
    assert value(b200, "cooling.node_liquid_heat", "kW") == pytest.approx(8.7, rel=1e-12)
    assert value(b200, "cooling.liquid_heat", "kW") == pytest.approx(by_hand, rel=1e-12) == 2227.2
    old_rule = 0.72 * 256 * (8000 + 700 + 250 + 320 + 600 + 220 + 600) / 0.94 / 1000
    assert old_rule == pytest.approx(2096.1, abs=0.1)
    assert value(b200, "cooling.liquid_heat", "kW") / old_rule == pytest.approx(1.0625, abs=1e-3)
    # the rack's coolant flow uses the same per-node liquid heat: 4 x 8.7 kW x 1.5 L/min/kW
    assert value(b200, "cooling.rack_coolant_flow", "L/min") == pytest.approx(4 * 8.7 * 1.5, rel=1e-12)
    assert value(b200, "cooling.coolant_flow", "L/min") == pytest.approx(by_hand * 1.5, rel=1e-12)


def test_psu_loss_goes_to_air_not_to_the_coolant(b200: Model) -> None:
    """A worse PSU adds wall power, all of it to air: the liquid heat stays 8.7 kW a node. Without a vendor maximum
    the node's own transceivers (4 x 15 W host side + 2 x 9 W storage + 2 x 3.5 W in-band = 85 W a node, Fabric)
    are behind its PSUs too."""
    v = b200.book.evaluate({"power.psu_efficiency": np.array([0.94, 0.8]), "power.node_max_input": 0.0})
    liquid, air = v["cooling.liquid_heat"][:, 0], v["cooling.air_heat"][:, 0]
    assert liquid[0] == liquid[1] == pytest.approx(2227.2, rel=1e-12)
    dc = (8000 + 700 + 250 + 320 + 600 + 220 + 600) / 1000  # the node's DC load, kW
    optics = (4 * 15 + 2 * 9 + 2 * 3.5) / 1000  # the node-side transceivers' DC load, kW
    assert air[1] - air[0] == pytest.approx(256 * (dc + optics) * (1 / 0.8 - 1 / 0.94), rel=1e-9)
    node_air = v["cooling.node_air_heat"][:, 0]
    np.testing.assert_allclose(node_air, dc / np.array([0.94, 0.8]) - 8.7, rtol=1e-12)


def test_gb200_nvl72_cold_plates_gpus_cpus_switch_chips_and_nics(tmp_path: Path) -> None:
    """72 x 1,200 W + 36 x 250 W + 0.8 x 7,200 W + 108 x 25 W = 103.86 kW per rack-scale node; its 1.36 t is
    the whole rack, so there is no empty rack to add: (1,360 + 30 L x 1.0215 kg/L) / 0.72 m2 = 1,931 kg/m2."""
    shares = tuple(f"{part}_liquid_share" for part in ("gpu", "cpu", "baseboard", "nic"))
    model = load(b200_file(tmp_path, "gb200", catalog={"gpu": "B200-GB200", "node": "GB200-NVL72"}, drop=shares))
    assert value(model, "cooling.node_liquid_heat", "kW") == pytest.approx(103.86, rel=1e-12)
    assert value(model, "power.nodes_per_rack") == 1
    assert value(model, "cooling.rack_weight", "kg") == pytest.approx(1360 + 30 * 1.0215, rel=1e-12)
    assert value(model, "cooling.floor_load", "kg/m^2") == pytest.approx((1360 + 30 * 1.0215) / 0.72, rel=1e-12)
    assert not model.quantity("cooling.floor_within_rating")  # an NVL72 row needs a slab, not a raised floor


# ---------------------------------------------------------------- CDU scope: pooled row units, per-rack units


def test_in_rack_cdus_are_counted_per_rack_with_redundancy(tmp_path: Path, b200: Model) -> None:
    """rack-100kW on the B200 site: a rack's 4 x 8.7 = 34.8 kW and 52.2 L/min need ROUNDUP(34.8 / 100) = 1 unit;
    N+1 in every rack gives 2 a rack, x 64 racks = 128 installed (pooling the hall gave 22 for 64 racks)."""
    model = load(b200_file(tmp_path, catalog={"cdu": "rack-100kW"}))
    racks = value(model, "power.racks")
    assert racks == 64
    assert value(model, "cooling.cdu_group_heat", "kW") == pytest.approx(4 * 8.7, rel=1e-12)
    assert value(model, "cooling.cdus_group_n") == 1
    assert value(model, "cooling.cdus_group_installed") == 1 + 1
    assert value(model, "cooling.cdus_n") == 64
    assert value(model, "cooling.cdus_installed") == 2 * 64 == 128
    assert value(model, "cooling.cdu_pump_power", "kW") == pytest.approx(64 * 2.0, rel=1e-12)  # 64 running x 2 kW
    assert model.quantity("cooling.cdu_heat_one_down") and model.quantity("cooling.cdu_flow_one_down")
    two_n = load(b200_file(tmp_path, "two_n", catalog={"cdu": "rack-100kW"}, cdu_redundancy="2N"))
    assert value(two_n, "cooling.cdus_installed") == 2 * 64
    bare = load(b200_file(tmp_path, "bare", catalog={"cdu": "rack-100kW"}, cdu_redundancy="N"))
    assert value(bare, "cooling.cdus_installed") == 64
    assert not bare.quantity("cooling.cdu_heat_one_down")  # a rack's only unit down: that rack is lost
    # the row units of the site file pool the hall: ROUNDUP(2,227.2 / 1,000) = 3, ROUNDUP(3,340.8 / 1,500) = 3
    assert value(b200, "cooling.cdu_groups") == 1
    assert value(b200, "cooling.cdus_n") == 3 and value(b200, "cooling.cdus_installed") == 4
    assert value(b200, "cooling.cdu_pump_power", "kW") == pytest.approx(3 * 15, rel=1e-12)


# ---------------------------------------------------------------- heat rejection and air of the IT hall


def test_dry_coolers_take_a_w32_loop_and_compressors_the_rest(b200: Model) -> None:
    """Facility water at 32 C (W32) meets the 32 C threshold: the 2,227.2 kW of liquid heat goes to dry
    coolers; the hall's air and the facility rooms' losses need chillers at COP 3, which add their own heat."""
    heat = value(b200, "cooling.heat_load", "kW")
    liquid = 2227.2
    assert value(b200, "cooling.heat_dry_cooler", "kW") == pytest.approx(liquid, rel=1e-12)
    needs = heat - liquid
    assert value(b200, "cooling.heat_compressor", "kW") == pytest.approx(needs, rel=1e-12)
    assert value(b200, "cooling.compressor_power", "kW") == pytest.approx(needs / 3.0, rel=1e-12)
    assert value(b200, "cooling.heat_rejection", "kW") == pytest.approx(heat + needs / 3.0, rel=1e-12)
    assert b200.quantity("cooling.heat_balance")
    # one kelvin colder than the threshold (W27-style water): every watt needs a compressor
    v = b200.book.evaluate({"cooling.facility_water_temperature": np.array([32.0, 31.0])})
    assert v["cooling.heat_dry_cooler"][1, 0] == 0
    assert v["cooling.heat_compressor"][1, 0] == pytest.approx(heat, rel=1e-12)
    assert v["cooling.compressor_power"][1, 0] == pytest.approx(heat / 3.0, rel=1e-12)
    assert v["cooling.heat_balance"].all()


def test_air_flow_counts_the_it_hall_only(b200: Model) -> None:
    """Air heat = IT load - liquid heat; the UPS and electrical rooms' losses are cooled in their own rooms,
    so the indoor loss share moves the heat load but not the hall's air flow."""
    it = value(b200, "power.it_load", "kW")
    assert value(b200, "cooling.air_heat", "kW") == pytest.approx(it - 2227.2, rel=1e-12)
    rho, cp, dt = 1.2, 1.006, 38 - 24  # catalog sea-level-20C air, the site's 24 -> 38 C
    m3s = (it - 2227.2) / (rho * cp * dt)
    assert value(b200, "cooling.air_flow", "m^3/s") == pytest.approx(m3s, rel=1e-12)
    v = b200.book.evaluate({"cooling.indoor_loss_share": np.array([0.0, 1.0])})
    assert v["cooling.air_flow"][0, 0] == v["cooling.air_flow"][1, 0]
    assert v["cooling.heat_load"][1, 0] > v["cooling.heat_load"][0, 0]


# ---------------------------------------------------------------- floor loading


def test_floor_load_of_a_dgx_b200_rack_of_four_by_hand(tmp_path: Path, b200: Model) -> None:
    """4 x 142.4 kg + 150 kg rack + 30 L of PG25 at 1.0215 kg/L = 750.2 kg over 0.6 x 1.2 m = 1,042 kg/m2:
    within a heavy-duty raised floor's 1,200, far beyond an older floor's 340 (70 lb/ft2)."""
    weight = 4 * 142.4 + 150 + 30 * 1.0215
    assert value(b200, "cooling.rack_weight", "kg") == pytest.approx(weight, rel=1e-12)
    assert value(b200, "cooling.rack_footprint", "m^2") == pytest.approx(0.72, rel=1e-12)
    assert value(b200, "cooling.floor_load", "kg/m^2") == pytest.approx(weight / 0.72, rel=1e-12)
    assert weight / 0.72 == pytest.approx(1042.0, abs=0.1)
    assert b200.quantity("cooling.floor_within_rating")
    old_floor = load(b200_file(tmp_path, floor_rating="340 kg/m^2"))
    assert not old_floor.quantity("cooling.floor_within_rating")
    assert not old_floor.quantity("checks.all_pass")


def test_air_cooled_rack_carries_no_coolant(example: Model) -> None:
    """4 DGX H100 x 130.45 kg + 150 kg = 671.8 kg over 0.72 m2 = 933 kg/m2; no coolant in an air-cooled rack."""
    assert value(example, "cooling.rack_coolant_weight", "kg") == 0
    assert value(example, "cooling.floor_load", "kg/m^2") == pytest.approx((4 * 130.45 + 150) / 0.72, rel=1e-12)


def test_catalog_cooling_entries_carry_their_sources() -> None:
    """Every CDU class says its scope and pump power, every node its weight and cold-plate shares, with sources."""
    from workbook.inputs import load_catalog

    catalog = load_catalog()
    for name, entry in catalog["cdus"].items():
        for key in ("cooling.cdu_scope", "cooling.cdu_unit_pump_power"):
            assert entry["values"][key]["source"], (name, key)
    for name in ("DGX-H100", "DGX-B200", "GB200-NVL72"):
        values = catalog["nodes"][name]["values"]
        for key in ("node_weight", "gpu_liquid_share", "cpu_liquid_share", "baseboard_liquid_share",
                    "nic_liquid_share"):
            assert values[f"cooling.{key}"]["source"], (name, key)


# ---------------------------------------------------------------- properties over many inputs


@SETTINGS
@given(st.lists(st.integers(8, 100_000), min_size=2, max_size=12),
       st.floats(0.05, 1.0), st.sampled_from(["N", "N+1", "2N", "2N+1"]))
def test_more_load_never_needs_less_flow_or_fewer_cdus(liquid: Model, gpus: list[int], share: float,
                                                      redundancy: str) -> None:
    gpus = sorted(gpus)
    mult, spares = {"N": (1, 0), "N+1": (1, 1), "2N": (2, 0), "2N+1": (2, 1)}[redundancy]
    v = liquid.book.evaluate({"power.gpus": np.array(gpus, float), "cooling.gpu_liquid_share": share,
                              "cooling.cdu_redundancy_multiplier": mult, "cooling.cdu_redundancy_spares": spares})
    for line in ("cooling.heat_load", "cooling.liquid_heat", "cooling.coolant_flow", "cooling.coolant_mass_flow",
                 "cooling.air_flow", "cooling.cdus_n", "cooling.cdus_installed", "cooling.heat_rejection"):
        assert (np.diff(v[line][:, 0]) >= 0).all(), line


@SETTINGS
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=2, max_size=12))
def test_a_larger_liquid_share_moves_heat_from_air_to_liquid(liquid: Model, shares: list[float]) -> None:
    shares = sorted(shares)
    v = liquid.book.evaluate({"cooling.gpu_liquid_share": np.array(shares)})
    assert (np.diff(v["cooling.coolant_flow"][:, 0]) >= 0).all()
    assert (np.diff(v["cooling.air_flow"][:, 0]) <= 1e-9 * v["cooling.air_flow"][0, 0]).all()
    np.testing.assert_allclose(v["cooling.liquid_heat"][:, 0] + v["cooling.air_heat"][:, 0],
                               v["cooling.it_heat"][:, 0], rtol=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(site=sites())
def test_heat_out_equals_heat_in_on_random_sites(tmp_path_factory: pytest.TempPathFactory, site: dict) -> None:
    path = tmp_path_factory.mktemp("random") / "site.yaml"
    path.write_text(yaml.safe_dump(site, sort_keys=False))
    model = load(path)
    heat = value(model, "cooling.heat_load", "kW")
    liquid, air = value(model, "cooling.liquid_heat", "kW"), value(model, "cooling.air_heat", "kW")
    assert liquid + air == pytest.approx(value(model, "power.it_load", "kW"), rel=1e-12)  # the IT hall
    assert liquid + air + value(model, "cooling.indoor_facility_heat", "kW") == pytest.approx(heat, rel=1e-12)
    # heat out = heat in: the heat load plus the compressors' own heat leaves outdoors
    work = value(model, "cooling.compressor_power", "kW")
    assert value(model, "cooling.heat_rejection", "kW") == pytest.approx(heat + work, rel=1e-12)
    assert work * model.site.values["cooling.chiller_cop"].magnitude == pytest.approx(
        value(model, "cooling.heat_compressor", "kW"), rel=1e-12, abs=1e-9)
    assert model.quantity("cooling.heat_balance")
    assert heat >= value(model, "power.it_load", "kW") * (1 - 1e-12)  # every watt of IT load is heat
    # the node's liquid heat never exceeds its DC power, so PSU loss is always on air
    assert value(model, "cooling.node_air_heat", "kW") >= value(model, "power.node_psu_loss", "kW") * (1 - 1e-12)
    assert value(model, "cooling.cdus_installed") == value(model, "cooling.cdus_group_installed") * value(
        model, "cooling.cdu_groups")
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
    ({"gpu_liquid_share": 1.5}, ["cooling.gpu_liquid_share = 1.5", "at most 1"]),
    ({"liquid_share": 0.7}, ["cooling.liquid_share", "unknown key"]),  # replaced by the per-component shares
    ({"cdu_scope": "hall"}, ["cooling.cdu_scope = 'hall'", "row, rack"]),
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
