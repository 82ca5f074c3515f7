"""Cooling model: physics sanity, liquid heat from cold-plated components, CDU counts by scope, the air-only
case, heat rejection, floor loading, properties over many sites, bad inputs."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import example_model, invoke, site_model
from tests.strategies import COOLANTS, sites
from workbook.api import Model, load
from workbook.formula.units import Q_
from workbook.site.errors import InputError
from workbook.site.rules import check_rules
from workbook.site.spec import Value

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

LIQUID = {  # a direct-to-chip retrofit of the example site: cold plates on the GPUs and CPUs
    "gpu_liquid_share": 1,
    "cpu_liquid_share": 1,
    "cdu_redundancy": "N+1",
    "cdu_capacity": "500 kW",
    "cdu_flow": "1500 L/min",
}


def site_file(tmp_path: Path, name: str = "site", power: dict | None = None, **cooling: Any) -> Path:
    """The example site with some cooling (and power) keys changed, written to tmp_path; without its risk: section
    (no cooling figure reads a risk figure, and its 10,000 samples are most of a build)."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data.pop("risk")
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
    return example_model()


@pytest.fixture(scope="module")
def liquid(tmp_path_factory: pytest.TempPathFactory) -> Model:
    return load(site_file(tmp_path_factory.mktemp("liquid"), **LIQUID))


# ---------------------------------------------------------------- physics sanity


@pytest.mark.slow
def test_water_at_one_and_a_half_litres_per_minute_per_kw_rises_about_9_6_k(example: Model) -> None:
    """OCP's 1.5 L/min per kW keeps water within 10 K: 1 kW / (997 kg/m3 x 4.18 kJ/(kg K) x 1.5 L/min)."""
    assert value(example, "cooling.coolant_rise", "K") == pytest.approx(9.6, abs=0.01)
    by_hand = 1.0 / (997 * 4.18 * 1.5 / 1000 / 60)  # kW / (kg/m3 x kJ/(kg K) x m3/s)
    assert value(example, "cooling.coolant_rise", "K") == pytest.approx(by_hand, rel=1e-12)
    assert value(example, "cooling.coolant_return_temperature") == pytest.approx(30 + by_hand, rel=1e-12)


@pytest.mark.slow
def test_pg25_needs_more_flow_than_water_for_the_same_rise(tmp_path: Path) -> None:
    pg25 = load(site_file(tmp_path, **COOLANTS["PG25"]))
    assert value(pg25, "cooling.coolant_rise", "K") == pytest.approx(1.0 / (1021.5 * 3.92 * 1.5 / 60_000))
    water = load(site_file(tmp_path, "water", **COOLANTS["water"]))
    assert value(pg25, "cooling.min_flow_per_kw") > value(water, "cooling.min_flow_per_kw")


@pytest.mark.slow
@SETTINGS
@given(st.lists(st.floats(0.01, 20.0), min_size=1, max_size=20), st.one_of(st.just(0.0), st.floats(1e-6, 1.0)))
def test_flow_round_trips_between_litres_per_minute_and_gpm(liquid: Model, per_kw: list[float],
                                                            share: float) -> None:
    """The model's gpm row, converted back to L/min (1 US gallon = 3.785411784 L), is its L/min row."""
    v = liquid.book.evaluate({"cooling.flow_per_kw": np.array(per_kw), "cooling.gpu_liquid_share": share},
                             ranges=False)  # the arithmetic, over more than a site file may give
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


def test_the_example_counts_each_watt_of_facility_power_once(example: Model) -> None:
    """The air-cooled example: IT 1,393.6594 kW, design PUE 1.49 (overhead 682.89311 kW), indoor share 0.3,
    COP 3, no CDU pumps. The indoor share applies to the overhead other than the compressors, whose power
    includes the indoor rooms' own: indoor = 0.3 x (682.89311 - 1,393.6594 / 3) / (1 + 0.3 / 3) = 59.547 kW
    (0.3 x 682.89 = 204.87 would count 30% of the compressors' power as indoor heat and then its compressors'
    heat again). Compressors (1,393.6594 + 59.547) / 3 = 484.402 kW; the plant rejects 1,937.61 kW; the rest of
    the overhead, 682.89311 - 484.402 = 198.491 kW, is 30% indoors (the 59.547) and 70% outdoors without the
    plant (138.94 kW); heat out 1,937.61 + 138.94 = 2,076.553 kW = facility power 1,393.6594 x 1.49."""
    it, overhead = 1393.6594, 1393.6594 * 0.49
    assert value(example, "power.it_load", "kW") == pytest.approx(it, rel=1e-12)
    indoor = 0.3 * (overhead - it / 3) / (1 + 0.3 / 3)
    assert indoor == pytest.approx(59.547, abs=1e-3)
    assert value(example, "cooling.indoor_facility_heat", "kW") == pytest.approx(indoor, rel=1e-12)
    assert value(example, "cooling.heat_load", "kW") == pytest.approx(it + indoor, rel=1e-12)
    work = (it + indoor) / 3
    assert value(example, "cooling.compressor_power", "kW") == pytest.approx(work, rel=1e-12)
    assert work == pytest.approx(484.402, abs=1e-3)
    assert value(example, "cooling.heat_rejection", "kW") == pytest.approx(it + indoor + work, rel=1e-12)
    rest = overhead - work
    assert value(example, "cooling.other_overhead", "kW") == pytest.approx(rest, rel=1e-12)
    assert indoor == pytest.approx(0.3 * rest, rel=1e-12)  # the share of what is left, not of the compressors
    assert value(example, "cooling.heat_outside_plant", "kW") == pytest.approx(0.7 * rest, rel=1e-12)
    assert value(example, "cooling.heat_out", "kW") == pytest.approx(it * 1.49, rel=1e-12)
    assert value(example, "cooling.heat_in", "kW") == pytest.approx(it * 1.49, rel=1e-12)
    assert example.quantity("cooling.heat_balance")


# ---------------------------------------------------------------- CDUs


@pytest.mark.slow
def test_cdu_count_with_n_plus_1_and_2n(tmp_path: Path, liquid: Model) -> None:
    """Row CDUs pool the hall: 8 x 700 W + 2 x 350 W = 6.3 kW a node on plates, and the 10.2 kW vendor maximum's
    allowance over the 8.89 / 0.94 = 9.4574 kW component sum by the same share: 6.3 x 10.2 / 9.4574 = 6.7947 kW;
    liquid heat = 128 x 6.7947 = 869.7 kW; CDUs (N) = the more of ROUNDUP(869.7 / 500) = 2 and
    ROUNDUP(869.7 x 1.5 / 1,500) = 1."""
    heat = 128 * 6.3 * 10.2 / (8.89 / 0.94)
    assert heat == pytest.approx(869.72, abs=0.01)
    n = max(int(np.ceil(heat / 500)), int(np.ceil(heat * 1.5 / 1500)))
    assert value(liquid, "cooling.liquid_heat", "kW") == pytest.approx(heat, rel=1e-12)
    assert value(liquid, "cooling.cdu_groups") == 1
    assert value(liquid, "cooling.cdus_n") == n == 2
    assert value(liquid, "cooling.cdus_installed") == n + 1
    assert liquid.quantity("cooling.cdu_heat_one_down")

    two_n = load(site_file(tmp_path, **{**LIQUID, "cdu_redundancy": "2N"}))
    assert value(two_n, "cooling.cdus_installed") == 2 * n
    assert two_n.quantity("cooling.cdu_heat_one_down")

    # N is the site's choice, accepted with its failure domain (the Reliability sheet's, which reads this row): one
    # of the 2 CDUs down stops ROUNDUP(32 liquid racks / 2) = 16 racks, 64 nodes; with N+1 or 2N none
    bare = load(site_file(tmp_path, "bare", **{**LIQUID, "cdu_redundancy": "N"}))
    assert value(bare, "cooling.cdus_installed") == n
    assert value(bare, "power.racks") == 32 and value(bare, "cooling.cdu_failure_racks") == 16
    assert value(bare, "reliability.cdu_domain") == 16 * 4
    assert bare.quantity("cooling.cdu_heat_one_down") and bare.quantity("cooling.cdu_flow_one_down")
    assert value(liquid, "cooling.cdu_failure_racks") == value(two_n, "cooling.cdu_failure_racks") == 0
    assert value(liquid, "reliability.cdu_domain") == 0


@pytest.mark.slow
def test_flow_can_need_more_cdus_than_heat(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, **{**LIQUID, "cdu_flow": "100 L/min"}))
    flow = value(model, "cooling.coolant_flow", "L/min")
    assert value(model, "cooling.cdus_for_flow") == np.ceil(flow / 100)
    assert value(model, "cooling.cdus_n") == value(model, "cooling.cdus_for_flow") > value(
        model, "cooling.cdus_for_heat")


@pytest.mark.slow
def test_rack_manifold_and_rise_checks_fail_when_broken(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, **{**LIQUID, "rack_manifold_flow": "10 L/min", "flow_per_kw": "1 L/min/kW"}))
    # 4 nodes x 6.7947 kW to liquid x 1 L/min/kW = 27.2 L/min per rack > 10; 1 L/min per kW of water rises ~14.4 K
    assert value(model, "cooling.rack_coolant_flow") == pytest.approx(4 * 6.3 * 10.2 / (8.89 / 0.94), rel=1e-12)
    assert not model.quantity("cooling.rack_flow_within_manifold")
    assert value(model, "cooling.coolant_rise") == pytest.approx(1000 / (997 * 4180 / 60_000), rel=1e-12)
    assert not model.quantity("cooling.rise_within_allowed")


# ---------------------------------------------------------------- cold plate


def test_cold_plate_time_to_thermal_limit_by_hand(example: Model) -> None:
    """60 mL of water (0.0598 kg) x 4.18 kJ/(kg K) = 250.05 J/K, plus 0.5 kg of copper x 0.385 kJ/(kg K) = 192.5
    J/K: 442.55 J/K. An H100 at 700 W heats it by 1.582 K/s. Its die runs 700 W x 0.025 K/W = 17.5 K above the
    coolant, so of the 57 K from the 30 C coolant to the 87 C maximum operating temperature the plate may use 39.5
    K: 24.97 s (36.0 s with the die's rise left out; the old rule, coolant only with the 10 K design rise as the
    margin, gave 3.57 s)."""
    mass_kg = 60e-6 * 997
    capacity = mass_kg * 4180 + 0.5 * 385
    assert capacity == pytest.approx(442.55, abs=0.01)
    assert value(example, "cooling.cold_plate_mass", "kg") == pytest.approx(mass_kg, rel=1e-12)
    assert value(example, "cooling.cold_plate_heat_capacity", "J/K") == pytest.approx(capacity, rel=1e-12)
    assert value(example, "cooling.cold_plate_margin", "K") == pytest.approx(87 - 30, rel=1e-12)
    assert value(example, "cooling.cold_plate_die_rise", "K") == pytest.approx(700 * 0.025, rel=1e-12)
    assert value(example, "cooling.cold_plate_usable_margin", "K") == pytest.approx(57 - 17.5, rel=1e-12)
    assert value(example, "cooling.cold_plate_heating_rate", "K/s") == pytest.approx(700 / capacity, rel=1e-12)
    seconds = capacity * 39.5 / 700
    assert value(example, "cooling.cold_plate_time", "s") == pytest.approx(seconds, rel=1e-12)
    assert seconds == pytest.approx(24.97, abs=0.01)
    assert capacity * 57 / 700 == pytest.approx(36.04, abs=0.01)  # without the die's rise
    assert mass_kg * 4180 * 10 / 700 == pytest.approx(3.572, abs=1e-3)  # the old figure
    assert example.quantity("cooling.throttle_above_coolant")


@pytest.mark.slow
def test_b200_cold_plate_rides_through_about_14_seconds(b200: Model) -> None:
    """80 mL of PG25 (81.72 g x 3.92 kJ/(kg K) = 320.34 J/K) + 0.5 kg of copper (192.5 J/K) = 512.84 J/K; a B200 at
    1,000 W heats it by 1.950 K/s, and its die runs 1,000 x 0.025 = 25 K above the coolant: of the 52 K from the 35
    C supply to 87 C the plate may use 27 K, 13.85 s (26.67 s without the die's rise, the review's 11-14 s with
    it; it was 3.20 s under the old rule)."""
    capacity = 80e-6 * 1021.5 * 3920 + 0.5 * 385
    assert capacity == pytest.approx(512.84, abs=0.01)
    assert value(b200, "cooling.cold_plate_heating_rate", "K/s") == pytest.approx(1000 / capacity, rel=1e-12)
    assert value(b200, "cooling.cold_plate_die_rise", "K") == pytest.approx(25, rel=1e-12)
    assert value(b200, "cooling.cold_plate_time", "s") == pytest.approx(capacity * 27 / 1000, rel=1e-12)
    assert capacity * 27 / 1000 == pytest.approx(13.85, abs=0.01)


def test_a_die_at_its_limit_with_the_flow_running_fails_the_check(example: Model) -> None:
    """The check is on the die with the flow running: coolant supply + the die's 17.5 K at 700 W below the GPU's
    maximum operating temperature. At 87 C: 39.5 K to use; at 47.5 C none (0 s) and the check fails; at 40 C, or
    at 30 C (the coolant's own), the usable margin (and the time) would be negative."""
    v = example.book.evaluate({"cooling.gpu_throttle_temperature": np.array([87.0, 47.5, 40.0, 30.0])},
                              ranges=False)  # limits below the site file's range: the check must still fail
    np.testing.assert_allclose(v["cooling.cold_plate_margin"][:, 0], [57.0, 17.5, 10.0, 0.0], rtol=1e-12)
    np.testing.assert_allclose(v["cooling.cold_plate_usable_margin"][:, 0], [39.5, 0.0, -7.5, -17.5], atol=1e-12)
    assert v["cooling.cold_plate_time"][1, 0] == pytest.approx(0, abs=1e-12)
    assert list(v["cooling.throttle_above_coolant"][:, 0]) == [True, False, False, False]


# ---------------------------------------------------------------- the B200 site: liquid heat from components

B200_SITE = ROOT / "inputs" / "b200-liquid-build.yaml"


def b200_file(tmp_path: Path, name: str = "b200", catalog: dict | None = None, drop: tuple[str, ...] = (),
              **cooling: Any) -> Path:
    """The B200 liquid site with some catalog choices changed, cooling keys dropped (so the catalog's apply)
    and others changed; without its risk: section (no cooling figure reads one)."""
    data = yaml.safe_load(B200_SITE.read_text())
    data.pop("risk", None)
    data["catalog"].update(catalog or {})
    for key in drop:
        del data["cooling"][key]
    data["cooling"].update(cooling)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def b200() -> Model:
    return site_model(B200_SITE.name)


# The DGX B200 node of the B200 site, by hand (W): GPUs 8 x 1,000 and CPUs 2 x 350 on plates (8,700); memory 320,
# drives 220, fans 600 (cut from the air-cooled 2,000), NICs 10 x 25 = 250 and baseboard 600 on air (1,990); DC load
# 10,690, component sum 10,690 / 0.94 = 11,372.34, PSU loss 682.34; the vendor's 14,300 W maximum sizes the
# electrical chain, 2,927.66 W above the component sum.
B200_DC_LIQUID, B200_DC_AIR, B200_DC = 8.7, 1.99, 10.69  # kW
B200_COMPONENT = B200_DC / 0.94
B200_ALLOWANCE = 14.3 - B200_COMPONENT


def test_b200_liquid_heat_is_the_cold_plated_dc_power_and_its_share_of_the_allowance(b200: Model) -> None:
    """The allowance is split as the explained watts are: 8,700 / 11,372.34 = 76.5% to liquid (2,239.70 W), the
    rest (1,990 + 682.34) / 11,372.34 = 23.5% to air (687.96 W). A node: 10,939.70 W to liquid, 3,360.30 W to air,
    14,300 W in all. Liquid heat 256 x 10.93970 = 2,800.56 kW (2,227.2 kW of cold-plated DC power + 573.4 kW of
    allowance); the old rule put all 749.5 kW of allowance on air."""
    share, allowance = B200_DC_LIQUID / B200_COMPONENT, B200_ALLOWANCE
    assert share == pytest.approx(0.76502, abs=1e-5) and allowance == pytest.approx(2.92766, abs=1e-5)
    node_liquid = B200_DC_LIQUID + B200_ALLOWANCE * share
    node_air = B200_DC_AIR + (B200_COMPONENT - B200_DC) + B200_ALLOWANCE * (1 - share)
    assert value(b200, "cooling.node_liquid_dc", "kW") == pytest.approx(B200_DC_LIQUID, rel=1e-12)
    assert value(b200, "cooling.node_air_dc", "kW") == pytest.approx(B200_DC_AIR, rel=1e-12)
    assert value(b200, "cooling.node_psu_heat", "kW") == pytest.approx(B200_COMPONENT - B200_DC, rel=1e-12)
    assert value(b200, "cooling.node_allowance_liquid", "kW") == pytest.approx(2.23970, abs=1e-5)
    assert value(b200, "cooling.node_allowance_air", "kW") == pytest.approx(0.68796, abs=1e-5)
    assert value(b200, "cooling.node_liquid_heat", "kW") == pytest.approx(node_liquid, rel=1e-12)
    assert value(b200, "cooling.node_air_heat", "kW") == pytest.approx(node_air, rel=1e-12)
    assert node_liquid + node_air == pytest.approx(14.3, rel=1e-12)
    assert value(b200, "power.node_power", "kW") == 14.3  # electrical sizing keeps the vendor maximum
    liquid = 256 * node_liquid
    assert value(b200, "cooling.liquid_heat", "kW") == pytest.approx(liquid, rel=1e-12)
    assert liquid == pytest.approx(2800.56, abs=0.01)
    # the rack's coolant flow uses the same per-node liquid heat: 4 x 10.94 kW x 1.5 L/min/kW
    assert value(b200, "cooling.rack_coolant_flow", "L/min") == pytest.approx(4 * node_liquid * 1.5, rel=1e-12)
    assert value(b200, "cooling.coolant_flow", "L/min") == pytest.approx(liquid * 1.5, rel=1e-12)


def test_b200_air_heat_is_the_explained_934_kw_plus_the_allowances_air_share(b200: Model) -> None:
    """The issue's explained air heat: 256 x (1,990 + 682.34) W = 684.12 kW of node air heat + 245.03 kW of
    switches, switch-side optics, storage and management (IT load 3,905.833 - 256 x 14.3; the node-side optics are
    inside the node's 14.3 kW, counted once since the fabric's fix: the issue's 249.71 held them twice) = 929.15 kW.
    The allowance's air share adds 256 x 0.68796 = 176.12 kW: 1,105.27 kW (it was 1,683.31, the whole allowance
    on air)."""
    others = 3905.833 - 256 * 14.3
    explained = 256 * (B200_DC_AIR + B200_COMPONENT - B200_DC) + others
    assert explained == pytest.approx(929.15, abs=0.01)
    share = B200_DC_LIQUID / B200_COMPONENT
    air = explained + 256 * B200_ALLOWANCE * (1 - share)
    assert value(b200, "cooling.air_heat", "kW") == pytest.approx(air, rel=1e-12)
    assert air == pytest.approx(1105.27, abs=0.01)


def test_b200_compressor_power_by_hand(b200: Model) -> None:
    """W32 water: the liquid heat and the 3 x 15 kW CDU pumps go to dry coolers. The hall's 1,105.27 kW of air
    needs chillers at COP 3, and so do the facility rooms: overhead 1,080.482 kW (itemised: (3,905.833 x 1.2 + 50)
    / 0.95 - 3,905.833), less the pumps and the compressors, 40% indoors: 0.4 x (1,080.482 - 45 - 1,105.27 / 3)
    / (1 + 0.4 / 3) = 235.43 kW. Compressors (1,105.27 + 235.43) / 3 = 446.9 kW. The issue's explained 456 kW
    ((933.8 + 432.7) / 3) kept the old indoor heat (40% of an overhead that held the compressors: 432.7 kW) and
    the node-side optics twice (4.68 kW)."""
    share = B200_DC_LIQUID / B200_COMPONENT
    air = 256 * (B200_DC_AIR + B200_COMPONENT - B200_DC + B200_ALLOWANCE * (1 - share)) + 3905.833 - 256 * 14.3
    overhead = (3905.833 * 1.2 + 50) / 0.95 - 3905.833
    assert value(b200, "power.facility_overhead", "kW") == pytest.approx(overhead, rel=1e-12)
    indoor = 0.4 * (overhead - 45 - air / 3) / (1 + 0.4 / 3)
    assert value(b200, "cooling.indoor_facility_heat", "kW") == pytest.approx(indoor, rel=1e-12)
    work = (air + indoor) / 3
    assert value(b200, "cooling.compressor_power", "kW") == pytest.approx(work, rel=1e-12)
    assert work == pytest.approx(446.90, abs=0.01)
    issue = (933.83 + 432.69) / 3  # the issue's "about 456 kW"
    assert issue == pytest.approx(455.5, abs=0.1)
    liquid = value(b200, "cooling.liquid_heat", "kW")
    assert value(b200, "cooling.heat_dry_cooler", "kW") == pytest.approx(liquid + 45, rel=1e-12)
    assert value(b200, "cooling.heat_rejection", "kW") == pytest.approx(liquid + 45 + air + indoor + work,
                                                                        rel=1e-12)
    assert b200.quantity("cooling.overhead_carries_cooling_plant") and b200.quantity("cooling.heat_balance")


# a share as a site file can give it: 0, or at least 1e-9 (smaller is refused as a typo; a subnormal share makes
# a spreadsheet's ROUNDUP overflow its scaling to an error, in LibreOffice as here)
SHARE = st.one_of(st.just(0.0), st.floats(1e-9, 1.0))


@pytest.mark.slow
@SETTINGS
@given(st.floats(0.0, 40.0), st.floats(0.5, 1.0), SHARE, SHARE)
def test_the_allowance_splits_by_the_component_sums_shares(b200: Model, maximum: float, efficiency: float,
                                                         gpu_share: float, cpu_share: float) -> None:
    """For any vendor maximum, PSU and cold-plate shares: a node's liquid and air heat add to its design power,
    and the liquid share of the design power is the liquid share of the component sum. Heat out equals heat in
    wherever the overhead carries the compressors and pumps (an air-cooled B200 hall at COP 3 needs more than this
    site's overhead: then the indoor rooms get 0 and the balance fails, as it should)."""
    wanted = ["cooling.node_liquid_heat", "cooling.node_air_heat", "power.node_power", "cooling.node_liquid_dc",
              "power.node_component_power", "cooling.heat_balance", "cooling.other_overhead"]
    v = b200.book.evaluate({"power.node_max_input": maximum, "power.psu_efficiency": efficiency,
                            "cooling.gpu_liquid_share": gpu_share, "cooling.cpu_liquid_share": cpu_share},
                           lines=wanted)
    liquid, air = v["cooling.node_liquid_heat"][0, 0], v["cooling.node_air_heat"][0, 0]
    assert liquid + air == pytest.approx(v["power.node_power"][0, 0], rel=1e-12)
    assert liquid / (liquid + air) == pytest.approx(
        v["cooling.node_liquid_dc"][0, 0] / v["power.node_component_power"][0, 0], rel=1e-12, abs=1e-15)
    assert bool(v["cooling.heat_balance"][0, 0]) == (v["cooling.other_overhead"][0, 0] >= 0)


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


@pytest.mark.slow
def test_gb200_nvl72_cold_plates_gpus_cpus_switch_chips_and_nics(tmp_path: Path) -> None:
    """72 x 1,200 W + 36 x 250 W + 0.8 x 7,200 W + 108 x 25 W = 103.86 kW per rack-scale node; its 1.36 t is
    the whole rack, so there is no empty rack to add: (1,360 + 30 L x 1.0215 kg/L) / 0.72 m2 = 1,931 kg/m2."""
    shares = tuple(f"{part}_liquid_share" for part in ("gpu", "cpu", "baseboard", "nic"))
    model = load(b200_file(tmp_path, "gb200", catalog={"gpu": "B200-GB200", "node": "GB200-NVL72"}, drop=shares))
    assert value(model, "cooling.node_liquid_dc", "kW") == pytest.approx(103.86, rel=1e-12)
    # the 132 kW vendor maximum over the component sum (the B200 site's 600 W of fans in place of the catalog's
    # 4 kW: 107.34 kW DC / 0.97 = 110.66 kW), by the same share: 103.86 x 132 / 110.66 = 123.89 kW
    assert value(model, "cooling.node_liquid_heat", "kW") == pytest.approx(103.86 * 132 / (107.34 / 0.97),
                                                                           rel=1e-12)
    assert value(model, "power.nodes_per_rack") == 1
    assert value(model, "cooling.rack_weight", "kg") == pytest.approx(1360 + 30 * 1.0215, rel=1e-12)
    assert value(model, "cooling.floor_load", "kg/m^2") == pytest.approx((1360 + 30 * 1.0215) / 0.72, rel=1e-12)
    assert not model.quantity("cooling.floor_within_rating")  # an NVL72 row needs a slab, not a raised floor


# ---------------------------------------------------------------- CDU scope: pooled row units, per-rack units


@pytest.mark.slow
def test_in_rack_cdus_are_counted_per_rack_with_redundancy(tmp_path: Path, b200: Model) -> None:
    """rack-100kW on the B200 site: a rack's 4 x 10.94 = 43.76 kW and 65.6 L/min need ROUNDUP(43.76 / 100) = 1
    unit; N+1 in every rack gives 2 a rack, x 64 racks = 128 installed (pooling the hall gave 22 for 64 racks)."""
    model = load(b200_file(tmp_path, catalog={"cdu": "rack-100kW"}))
    racks = value(model, "power.racks")
    assert racks == 64
    assert value(model, "cooling.cdu_group_heat", "kW") == pytest.approx(
        4 * B200_DC_LIQUID * 14.3 / B200_COMPONENT, rel=1e-12)
    assert value(model, "cooling.cdus_group_n") == 1
    assert value(model, "cooling.cdus_group_installed") == 1 + 1
    assert value(model, "cooling.cdus_n") == 64
    assert value(model, "cooling.cdus_installed") == 2 * 64 == 128
    assert value(model, "cooling.cdu_pump_power", "kW") == pytest.approx(64 * 2.0, rel=1e-12)  # 64 running x 2 kW
    assert model.quantity("cooling.cdu_heat_one_down") and model.quantity("cooling.cdu_flow_one_down")
    two_n = load(b200_file(tmp_path, "two_n", catalog={"cdu": "rack-100kW"}, cdu_redundancy="2N"))
    assert value(two_n, "cooling.cdus_installed") == 2 * 64
    # an in-rack CDU without redundancy (N): accepted with its domain, its own rack (4 nodes) on the Reliability
    # sheet, where the Cooling sheet's check used to fail it; the two sheets no longer contradict
    bare = load(b200_file(tmp_path, "bare", catalog={"cdu": "rack-100kW"}, cdu_redundancy="N"))
    assert value(bare, "cooling.cdus_installed") == 64
    assert value(bare, "cooling.cdu_group_redundant") == 0 and value(bare, "cooling.cdu_failure_racks") == 1
    assert value(bare, "reliability.cdu_domain") == 4
    assert bare.quantity("cooling.cdu_heat_one_down") and bare.quantity("cooling.cdu_flow_one_down")
    assert bare.quantity("checks.all_pass")
    assert value(model, "cooling.cdu_failure_racks") == 0 and value(model, "reliability.cdu_domain") == 0
    # the row units of the site file pool the hall: ROUNDUP(2,800.6 / 1,000) = 3, ROUNDUP(4,200.9 / 1,500) = 3
    assert value(b200, "cooling.cdu_groups") == 1
    assert value(b200, "cooling.cdus_n") == 3 and value(b200, "cooling.cdus_installed") == 4
    assert value(b200, "cooling.cdu_pump_power", "kW") == pytest.approx(3 * 15, rel=1e-12)


# ---------------------------------------------------------------- heat rejection and air of the IT hall


def test_dry_coolers_take_a_w32_loop_and_compressors_the_rest(b200: Model) -> None:
    """Facility water at 32 C (W32) meets the 32 C threshold: the liquid heat and the CDU pumps' work go to dry
    coolers; the hall's air and the facility rooms' losses need chillers at COP 3, which add their own heat. One
    kelvin colder (W27-style water) every watt of the hall and the pumps needs a compressor too, more than the
    site's overhead can carry."""
    liquid, air = value(b200, "cooling.liquid_heat", "kW"), value(b200, "cooling.air_heat", "kW")
    heat = value(b200, "cooling.heat_load", "kW")
    assert value(b200, "cooling.loop_on_dry_coolers") == 1
    assert value(b200, "cooling.heat_dry_cooler", "kW") == pytest.approx(liquid + 45, rel=1e-12)
    needs = heat - liquid - 45
    assert value(b200, "cooling.heat_compressor", "kW") == pytest.approx(needs, rel=1e-12)
    assert value(b200, "cooling.compressor_power", "kW") == pytest.approx(needs / 3.0, rel=1e-12)
    assert value(b200, "cooling.heat_rejection", "kW") == pytest.approx(heat + needs / 3.0, rel=1e-12)
    assert b200.quantity("cooling.heat_balance")
    v = b200.book.evaluate({"cooling.facility_water_temperature": np.array([32.0, 31.0])})
    assert v["cooling.loop_on_dry_coolers"][1, 0] == 0 and v["cooling.heat_dry_cooler"][1, 0] == 0
    hall = liquid + 45 + air
    assert v["cooling.hall_heat_compressor"][1, 0] == pytest.approx(hall, rel=1e-12)
    # 3,955.5 kW / 3 = 1,318.5 kW of compressors: more than the site's whole 1,081.7 kW overhead, so no overhead
    # is left for the indoor rooms (0, not negative) and both the overhead check and the heat balance fail
    overhead = value(b200, "power.facility_overhead", "kW")
    assert overhead - 45 - hall / 3 < 0
    assert v["cooling.indoor_facility_heat"][1, 0] == 0
    assert v["cooling.compressor_power"][1, 0] == pytest.approx(hall / 3, rel=1e-12)
    assert not v["cooling.overhead_carries_cooling_plant"][1, 0] and not v["cooling.heat_balance"][1, 0]


def test_air_flow_counts_the_it_hall_only(b200: Model) -> None:
    """Air heat = IT load - liquid heat; the UPS and electrical rooms' losses are cooled in their own rooms,
    so the indoor loss share moves the heat load but not the hall's air flow."""
    it = value(b200, "power.it_load", "kW")
    liquid = value(b200, "cooling.liquid_heat", "kW")
    assert value(b200, "cooling.air_heat", "kW") == pytest.approx(it - liquid, rel=1e-12)
    rho, cp, dt = 1.2, 1.006, 38 - 24  # catalog sea-level-20C air, the site's 24 -> 38 C
    m3s = (it - liquid) / (rho * cp * dt)
    assert value(b200, "cooling.air_flow", "m^3/s") == pytest.approx(m3s, rel=1e-12)
    v = b200.book.evaluate({"cooling.indoor_loss_share": np.array([0.0, 1.0])})
    assert v["cooling.air_flow"][0, 0] == v["cooling.air_flow"][1, 0]
    assert v["cooling.heat_load"][1, 0] > v["cooling.heat_load"][0, 0]
    assert v["cooling.heat_balance"].all()


# ---------------------------------------------------------------- the heat balance is a check, not an identity


def test_heat_out_is_built_without_the_power_chains_totals(b200: Model) -> None:
    """The IT hall's heat in heat out is built from the power chain's parts (node components, PSU loss,
    allowance, switches, optics, storage, management), never from its IT load; the overhead (facility power - IT
    load) is shared by both sides, so the balance compares the IT heat from the parts with the IT load."""
    from workbook.formula.evaluation import reads

    def upstream(line_id: str) -> set[str]:
        seen, todo = set(), [line_id]
        while todo:
            for other in reads(b200.book.lines[todo.pop()]):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    hall = upstream("cooling.it_heat")
    assert "power.it_load" not in hall and "power.facility_power" not in hall
    assert {"power.node_component_power", "power.node_psu_loss", "power.node_unexplained_power",
            "power.network_power", "power.optics_power"} <= hall
    assert {"cooling.liquid_heat", "cooling.air_heat"} <= upstream("cooling.heat_out")
    assert "power.facility_power" in upstream("cooling.heat_in")


def test_an_overhead_too_small_for_the_plant_fails_the_balance(example: Model) -> None:
    """PUE 1.2 gives 281.4 kW of overhead where the compressors alone need 1,406.8 / 3 = 468.9 kW: the indoor
    rooms get 0, the rest of the overhead is negative, and heat out no longer equals heat in (with the overhead
    check). With the indoor share at 0 the balance holds, and the overhead check alone says so."""
    v = example.book.evaluate({"power.pue": np.array([1.4, 1.2, 1.2]),
                               "cooling.indoor_loss_share": np.array([0.3, 0.3, 0.0])})
    assert v["cooling.indoor_facility_heat"][1, 0] == 0
    assert list(v["cooling.heat_balance"][:, 0]) == [True, False, True]
    assert list(v["cooling.overhead_carries_cooling_plant"][:, 0]) == [True, False, False]


# ---------------------------------------------------------------- floor loading


def _floor_by_hand(it: float, pue: float) -> dict[str, float]:
    """The example's overhead from its drivers at a design PUE: all of its IT heat is on air, on chillers at COP 3;
    the electrical rooms' losses (30% of the overhead besides the compressors, solved) too."""
    hall = it
    indoor = 0.3 * (it * (pue - 1) - hall / 3) / (1 + 0.3 / 3)
    compressors = (hall + indoor) / 3
    air = it / (1.2 * 1.006 * 14)  # m³/s: kW / (kg/m³ x kJ/(kg K) x K)
    fans = air * 0.6
    pumps = (hall + indoor + compressors) * 0.02
    lighting = 4 * 12 * 0.6 * 2.4 * 10 / 1000
    facility = (it + compressors + fans + pumps + lighting) / 0.95
    return {"compressors": compressors, "fans": fans, "pumps": pumps, "lighting": lighting, "facility": facility,
            "floor": facility / it}


def test_the_example_pue_floor_by_hand(example: Model) -> None:
    """The example at its design PUE 1.49: IT 1,393.66 kW all on air, on chillers at COP 3; the electrical rooms'
    losses 0.3 x (682.89 - 464.55) / 1.1 = 59.55 kW also need them: compressors (1,393.66 + 59.55) / 3 = 484.40 kW;
    air movers 82.46 m³/s x 0.6 = 49.48 kW; plant pumps 2% of the 1,937.6 kW rejected = 38.75 kW; lighting 69.12 m²
    x 10 W = 0.69 kW: 573.3 kW, and the facility power (1,393.66 + 573.3) / (1 - 5% losses) = 2,070.5 kW: a floor of
    1.4857, just below the design PUE."""
    it = value(example, "power.it_load")
    want = _floor_by_hand(it, 1.49)
    assert value(example, "cooling.floor_compressors") == pytest.approx(want["compressors"], rel=1e-12)
    assert value(example, "cooling.floor_air_movers") == pytest.approx(want["fans"], rel=1e-9)
    assert value(example, "cooling.floor_plant_pumps") == pytest.approx(want["pumps"], rel=1e-12)
    assert value(example, "cooling.floor_lighting") == pytest.approx(want["lighting"], rel=1e-12)
    assert value(example, "cooling.floor_facility_power") == pytest.approx(want["facility"], rel=1e-9)
    assert value(example, "cooling.pue_floor") == pytest.approx(want["floor"], rel=1e-9)
    assert round(want["floor"], 4) == 1.4857
    assert value(example, "cooling.pue_shortfall") == 0 and value(example, "cooling.pue_above_floor")


def test_a_pue_below_its_drivers_fails_and_says_by_how_much(example: Model) -> None:
    """At the old 1.4 the compressors alone take 473 of its 557.5 kW of overhead, leaving 84.5 kW for losses,
    fans, pumps and lighting: the floor is 1.4764 (the review's 1.45-1.47), 0.0764 above it, and the check fails."""
    old = example.book.evaluate({"power.pue": 1.4})
    it = value(example, "power.it_load")
    want = _floor_by_hand(it, 1.4)
    assert round(want["compressors"], 1) == 473.0 and round(it * 0.4, 1) == 557.5
    floor = float(old["cooling.pue_floor"].reshape(-1)[0])
    assert floor == pytest.approx(want["floor"], rel=1e-9) and round(floor, 4) == 1.4764
    assert float(old["cooling.pue_shortfall"].reshape(-1)[0]) == pytest.approx(floor - 1.4, rel=1e-9)
    assert not bool(old["cooling.pue_above_floor"].reshape(-1)[0])
    assert not bool(old["checks.all_pass"].reshape(-1)[0])


@pytest.mark.slow
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
    from workbook.site.templates import load_catalog

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


@pytest.mark.slow
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


@pytest.mark.slow
@SETTINGS
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=2, max_size=12))
def test_a_larger_liquid_share_moves_heat_from_air_to_liquid(liquid: Model, shares: list[float]) -> None:
    shares = sorted(shares)
    v = liquid.book.evaluate({"cooling.gpu_liquid_share": np.array(shares)})
    assert (np.diff(v["cooling.coolant_flow"][:, 0]) >= 0).all()
    assert (np.diff(v["cooling.air_flow"][:, 0]) <= 1e-9 * v["cooling.air_flow"][0, 0]).all()
    np.testing.assert_allclose(v["cooling.liquid_heat"][:, 0] + v["cooling.air_heat"][:, 0],
                               v["cooling.it_heat"][:, 0], rtol=1e-12)


@pytest.mark.long
@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(site=sites())
def test_heat_out_equals_heat_in_on_random_sites(tmp_path_factory: pytest.TempPathFactory, site: dict) -> None:
    path = tmp_path_factory.mktemp("random") / "site.yaml"
    path.write_text(yaml.safe_dump(site, sort_keys=False))
    model = load(path)
    heat = value(model, "cooling.heat_load", "kW")
    liquid, air = value(model, "cooling.liquid_heat", "kW"), value(model, "cooling.air_heat", "kW")
    assert liquid + air == pytest.approx(value(model, "power.it_load", "kW"), rel=1e-12)  # the IT hall
    pumps, indoor = value(model, "cooling.cdu_pump_power", "kW"), value(model, "cooling.indoor_facility_heat", "kW")
    assert liquid + air + pumps + indoor == pytest.approx(heat, rel=1e-12)
    # the plant rejects the heat load plus the compressors' own heat
    work = value(model, "cooling.compressor_power", "kW")
    assert value(model, "cooling.heat_rejection", "kW") == pytest.approx(heat + work, rel=1e-12)
    assert work * model.site.values["cooling.chiller_cop"].magnitude == pytest.approx(
        value(model, "cooling.heat_compressor", "kW"), rel=1e-12, abs=1e-9)
    # heat out = heat in wherever the overhead carries the plant (else the indoor rooms get 0 and both fail)
    rest = value(model, "power.facility_overhead", "kW") - work - pumps
    share = model.site.values["cooling.indoor_loss_share"].magnitude
    if rest >= 0:
        assert indoor == pytest.approx(share * rest, rel=1e-9, abs=1e-9)
        assert model.quantity("cooling.heat_balance")
    elif share > 0 and indoor == 0:
        assert not model.quantity("cooling.heat_balance")
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
    """`build` of a site, in this process: the subject is the command's refusal, not the process."""
    out = tmp_path / "out.xlsx"
    return invoke("build", path, "-o", out), out


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
