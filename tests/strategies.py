"""Hypothesis strategies for valid site files: one place, so every property test draws the same sites."""

from __future__ import annotations

import datetime
import os
from typing import Any

from hypothesis import strategies as st

GPUS = ["H100-SXM", "H200-SXM", "B200", "MI300X"]
NODES = ["DGX-H100", "DGX-B200"]
REDUNDANCY = ["N", "N+1", "N+2", "2N", "2N+1"]


# PARITY_EXTREMES=1 weights every drawn number toward its range's ends (exactly the bound, a hair inside it, tiny
# and huge magnitudes): the hunt for the next parity bug, run by hand with many sites (README, tests).
EXTREMES = os.environ.get("PARITY_EXTREMES") == "1"


def _numbers(lo: float, hi: float, lo_open: bool = False) -> st.SearchStrategy[float]:
    plain = st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False, exclude_min=lo_open)
    if not EXTREMES:
        return plain
    ends = [x for x in (lo, hi, lo + (hi - lo) * 1e-9, hi - (hi - lo) * 1e-9, lo + 1e-9) if lo <= x <= hi]
    ends = [x for x in ends if not (lo_open and x == lo)]
    return st.one_of(st.sampled_from(ends), plain, plain.map(lambda x: lo + (x - lo) * 1e-6))


def qty(lo: float, hi: float, unit: str, *, lo_open: bool = False) -> st.SearchStrategy[str]:
    """A quantity as site-file text, e.g. '37.5 kW'."""
    return _numbers(lo, hi, lo_open).map(lambda x: f"{_typo_free(x, lo, lo_open)!r} {unit}")


def ratio(lo: float, hi: float) -> st.SearchStrategy[float]:
    return _numbers(lo, hi).map(lambda x: _typo_free(x, lo))


def _typo_free(x: float, lo: float, lo_open: bool = False) -> float:
    """Site files refuse non-zero magnitudes below 1e-9 as typos (inputs.TINY): draw 0 or a real value."""
    if 0 < abs(x) < 1e-9:
        return 0.0 if lo <= 0 and not lo_open else 1e-9
    return x


@st.composite
def power_section(draw: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "gpus": draw(st.integers(1, 40_000)),
        "rack_units": f"{draw(st.integers(8, 52))} U",
        "rack_power_limit": draw(qty(5, 200, "kW", lo_open=True)),
        "storage_power": draw(qty(0, 1_000, "kW")),
        "management_power": draw(qty(0, 200, "kW")),
        "sync_peak_factor": draw(ratio(1.0, 2.0)),
        "feed_headroom": draw(ratio(0.0, 1.0)),
        "feed_block_size": draw(qty(0.1, 20, "MVA", lo_open=True)),
        "feed_redundancy": draw(st.sampled_from(REDUNDANCY)),
        "site_available_power": draw(qty(0.1, 500, "MW", lo_open=True)),
        "power_factor": draw(ratio(0.5, 1.0)),
        "ups_block_size": draw(qty(10, 3_000, "kVA")),
        "ups_redundancy": draw(st.sampled_from(REDUNDANCY)),
        "hall_rows": draw(st.integers(1, 60)),
        "racks_per_row": draw(st.integers(1, 60)),
        "switches_per_network_rack": draw(st.integers(1, 40)),
        "support_rack_power": draw(qty(1, 50, "kW")),
    }
    if draw(st.booleans()):  # else the node's catalog figure
        s["node_max_input"] = draw(st.one_of(st.just("0 kW"), qty(1, 30, "kW")))
    if draw(st.booleans()):  # else 415 V three-phase at 63 A
        s["rack_supply"] = draw(st.sampled_from(["three-phase", "single-phase"]))
        s["rack_voltage"] = draw(qty(100, 480, "V"))
        s["pdu_breaker"] = draw(qty(10, 400, "A"))
        s["continuous_load_share"] = draw(ratio(0.5, 1.0))
    if draw(st.booleans()):
        s["pue_annual"] = draw(ratio(1.0, 3.0))
    if draw(st.booleans()):  # else 10 W/m² and the 5% loss estimate of a PUE site
        s["lighting_density"] = draw(qty(0, 100, "W/m^2"))
        s["distribution_loss"] = draw(ratio(0.0, 0.5))
    if draw(st.booleans()):  # else the node's catalog supplies, and a feed loss ridden through at full power
        s["psus_per_node"] = draw(st.integers(1, 12))
        s["psus_needed"] = draw(st.integers(1, s["psus_per_node"]))
        s["psu_rating"] = draw(qty(0.5, 10, "kW"))
        s["feed_loss_share"] = draw(ratio(0.0, 1.0))
    if draw(st.booleans()):
        s["gpu_tdp"] = draw(st.one_of(qty(100, 1500, "W", lo_open=True), qty(0.1, 1.5, "kW", lo_open=True)))
    if draw(st.booleans()):
        s["psu_efficiency"] = draw(ratio(0.5, 1.0))
    if draw(st.booleans()):
        s["facility_model"] = "pue"
        s["pue"] = draw(ratio(1.0, 3.0))
    else:
        s["facility_model"] = "itemised"
        s["cooling_overhead"] = draw(ratio(0.0, 2.0))
        s["distribution_loss"] = draw(ratio(0.0, 0.5))
        s["other_facility_power"] = draw(qty(0, 500, "kW"))
    return s


def _radix() -> st.SearchStrategy[int]:
    """Switch radixes: real ones (small enough that big sites need three tiers) and very large even ones
    (so that small sites fit one switch): 1-, 2- and 3-tier fabrics all occur."""
    return st.one_of(st.sampled_from([2, 8, 16, 32, 36, 40, 48, 64, 128, 256]),
                     st.integers(1, 1_024).map(lambda n: 2 * n))


@st.composite
def fabric_section(draw: Any) -> dict[str, Any]:
    """Fabric inputs: compute switch and optics (reach short enough that some tiers need single-mode), storage and
    out-of-band networks; the node side (NICs per GPU, NIC speed, node transceivers, storage and BMC ports) comes
    from the node catalog entry unless drawn here."""
    s: dict[str, Any] = {
        "switch_radix": draw(_radix()),
        "switch_port_speed": f"{draw(st.sampled_from([100, 200, 400, 800]))} Gbit/s",
        "switch_breakout": draw(st.integers(1, 4)),
        "switch_power": draw(qty(0, 3_000, "W")),
        "switch_optic_power": draw(qty(0, 30, "W")),
        "storage_system_ports": draw(st.integers(0, 2_000)),
        "storage_switch_radix": draw(_radix()),
        "storage_switch_power": draw(qty(0, 3_000, "W")),
        "storage_optic_power": draw(qty(0, 30, "W")),
        "storage_switch_breakout": draw(st.integers(1, 4)),
        "storage_switch_optic_power": draw(qty(0, 30, "W")),
        "optic_reach": draw(st.one_of(st.just("50 m"), qty(0.5, 500, "m"))),  # short: long tiers go single-mode
        "optic_single_mode": draw(st.integers(0, 1)),  # a single-mode catalog optic: every compute tier single-mode
        "inband_system_ports": draw(st.integers(0, 500)),
        "inband_site_uplinks": draw(st.integers(0, 16)),
        "inband_switch_radix": draw(st.one_of(st.sampled_from([16, 32, 48, 64, 128]), st.integers(8, 1_024).map(
            lambda n: 2 * n))),
        "inband_switch_power": draw(qty(0, 3_000, "W")),
        "inband_optic_power": draw(qty(0, 30, "W")),
        "inband_optic_reach": draw(st.one_of(st.just("100 m"), qty(0.5, 500, "m"))),
        "oob_other_endpoints": draw(st.integers(0, 500)),
        "oob_switch_ports": draw(st.integers(1, 96)),
        "oob_switch_power": draw(qty(0, 500, "W")),
        "oob_uplink_ports": (uplink_ports := draw(st.integers(1, 8))),
        "oob_uplinks_per_switch": draw(st.integers(1, uplink_ports)),
    }
    if draw(st.booleans()):  # else the default, rail-optimised
        s["wiring"] = draw(st.sampled_from(["rail-optimised", "flat"]))
    for key in ("leaf_oversubscription", "spine_oversubscription", "storage_oversubscription",
                "inband_oversubscription"):
        if draw(st.booleans()):  # else the default: 1 (non-blocking), the storage ratio derived, in-band 3
            s[key] = draw(st.one_of(st.just(1), st.just(3), ratio(1.0, 16.0)))
    if draw(st.booleans()):  # else the defaults (2 peer links, one port a cage, 2 in-band ports a server)
        s["inband_peer_links"] = draw(st.integers(0, 4))
        s["inband_switch_breakout"] = draw(st.integers(1, 4))
        s["inband_ports_per_node"] = draw(st.integers(0, 4))
        s["server_inband_ports"] = draw(st.integers(0, 4))
        s["head_node_storage_ports"] = draw(st.integers(0, 4))
        s["storage_port_speed"] = f"{draw(st.sampled_from([100, 200, 400, 800]))} Gbit/s"
    if draw(st.booleans()):
        s["nics_per_gpu"] = draw(st.integers(1, 4))
        s["nic_speed"] = f"{draw(st.sampled_from([100, 200, 400, 800]))} Gbit/s"
        s["links_per_node_optic"] = draw(st.integers(1, 4))
        s["node_optic_power"] = draw(qty(0, 30, "W"))
    if draw(st.booleans()):  # else the defaults (MMS4X00-NS: 500 m, 17 W)
        s["single_mode_reach"] = draw(qty(0.5, 10_000, "m"))
        s["single_mode_optic_power"] = draw(qty(0, 30, "W"))
    if draw(st.booleans()):
        s["storage_ports_per_node"] = draw(st.integers(0, 8))
        s["oob_ports_per_node"] = draw(st.integers(0, 3))
    return s


def _catalog_table(kind: str) -> dict[str, dict[str, Any]]:
    """Values of each entry of one catalog table, keyed without the section (coolant_density: ...)."""
    import yaml

    from tests.conftest import ROOT

    table = yaml.safe_load((ROOT / "templates" / "catalog.yaml").read_text())[kind]
    return {name: {k.split(".", 1)[1]: v["value"] for k, v in entry["values"].items()}
            for name, entry in table.items()}


COOLANTS = _catalog_table("coolants")  # water and PG25, as the catalog gives them


@st.composite
def cooling_section(draw: Any) -> dict[str, Any]:
    """Cooling inputs: air-only, mixed and fully liquid sites, water or PG25, row and in-rack CDUs, loops below
    and above the dry-cooler threshold, floors that hold the racks and floors that do not; the air always warms
    up and the coolant is warmer than the facility water."""
    air_supply = draw(st.floats(5, 35))
    share = st.one_of(st.just(0.0), st.just(1.0), ratio(0.05, 0.95))
    coolant_supply = draw(st.floats(5, 50))
    return {
        **{f"{part}_liquid_share": draw(share) for part in ("gpu", "cpu", "baseboard", "nic")},
        "indoor_loss_share": draw(ratio(0.0, 1.0)),
        **draw(st.sampled_from(sorted(COOLANTS.items())))[1],
        "coolant_supply_temperature": f"{coolant_supply!r} degC",
        "facility_water_temperature": f"{_typo_free(coolant_supply - draw(st.floats(0.5, 5)), -100.0)!r} degC",
        "dry_cooler_threshold": f"{draw(st.floats(20, 45))!r} degC",
        "chiller_cop": draw(ratio(1.0, 15.0)),
        "cdu_scope": draw(st.sampled_from(["row", "rack"])),
        "cdu_unit_pump_power": draw(qty(0, 50, "kW")),
        "rack_empty_weight": draw(qty(0, 300, "kg")),
        "rack_depth": draw(qty(0.6, 1.4, "m")),
        "rack_coolant_volume": draw(qty(0, 100, "L")),
        "floor_rating": draw(qty(250, 5_000, "kg/m^2")),
        "allowed_rise": draw(qty(2, 30, "K")),
        "flow_per_kw": draw(qty(0.3, 5, "L/min/kW")),
        "rack_manifold_flow": draw(qty(10, 800, "L/min")),
        "cold_plate_volume": draw(qty(5, 500, "mL")),
        "cold_plate_metal_mass": draw(qty(0, 5, "kg")),
        "cold_plate_metal_specific_heat": draw(qty(0.1, 1, "kJ/(kg*K)")),
        "gpu_throttle_temperature": f"{draw(st.floats(40, 130))!r} degC",  # some at or below the supply: a check
        "cdu_capacity": draw(qty(10, 3_000, "kW")),
        "cdu_flow": draw(qty(10, 5_000, "L/min")),
        "cdu_redundancy": draw(st.sampled_from(REDUNDANCY)),
        "air_density": draw(qty(0.9, 1.3, "kg/m^3")),
        "air_specific_heat": draw(qty(1.0, 1.02, "kJ/(kg*K)")),
        "air_supply_temperature": f"{air_supply!r} degC",
        "air_return_temperature": f"{air_supply + draw(st.floats(1, 25))!r} degC",
        "air_mover_power": draw(qty(0, 5, "kW/(m^3/s)")),  # the PUE floor's drivers
        "plant_pump_share": draw(ratio(0.0, 0.2)),
        "die_to_coolant_resistance": draw(qty(0, 0.05, "K/W")),  # the cold plate's ride-through
    }


@st.composite
def generator_section(draw: Any) -> dict[str, Any]:
    """Standby generator sets: the defaults (no section), or any rating and power factor the limits allow, every
    redundancy (N fails a check), recharge shares, fail-to-start rates (0 and 1 too) and N+2 thresholds."""
    if draw(st.booleans()):
        return {}
    return {"block_size": draw(qty(10, 10_000, "kVA")), "power_factor": draw(ratio(0.7, 1.0)),
            "redundancy": draw(st.sampled_from(REDUNDANCY)), "ups_recharge_share": draw(ratio(0.0, 1.0)),
            "fail_to_start": draw(st.one_of(st.just(0.0), ratio(0.0, 1.0))),
            "n_plus_two_above": draw(st.integers(1, 30))}


@st.composite
def tco_section(draw: Any) -> dict[str, Any]:
    """TCO inputs: colo or build, cash or loan, both facility price bases, lead times and deposits, tax, price
    changes, utilisation including exactly 0 and 1, rates including 0 and tiny ones, short and long timelines."""
    horizon = draw(st.integers(12, 240))
    lead = draw(st.integers(0, 12))
    life_months = draw(st.integers(3, min(horizon + 12, 240)))  # sometimes beyond the timeline: a check says so
    s: dict[str, Any] = {
        "horizon": f"{horizon} months",
        "lead_time": f"{lead} months",
        "deposit_share": draw(ratio(0, 1)),
        "facility_price_basis": draw(st.sampled_from(["critical-it", "feed"])),
        "switch_price": draw(qty(0, 100_000, "USD")),
        "transceiver_price": draw(qty(0, 5_000, "USD")),
        "cable_price": draw(qty(0, 1_000, "USD")),
        "oob_switch_price": draw(qty(0, 20_000, "USD")),
        "storage_capex": draw(qty(0, 1e7, "USD")),
        "cost_of_capital": draw(rate()),
        "tax_rate": draw(st.one_of(st.just(0.0), ratio(0, 0.6))),
        "useful_life": f"{life_months} months",
        "residual_value": draw(ratio(0, 0.5)),
        "electricity_price": draw(qty(0, 0.5, "USD/kWh")),
        "electricity_escalation": draw(change()),
        "facility_escalation": draw(change()),
        "idle_power_share": draw(ratio(0, 1)),
        "utilisation": draw(st.one_of(st.just(0.0), st.just(1.0), ratio(0, 1))),
        "support_rate": f"{draw(ratio(0, 0.2))!r} / year",
        "staff_fte": draw(ratio(0, 50)),
        "staff_cost": draw(qty(0, 500_000, "USD/year")),
        "on_demand_price": draw(qty(0.5, 15, "USD/GPU/hour")),
        "reserved_price": draw(qty(0.3, 10, "USD/GPU/hour")),
        "reserved_share": draw(ratio(0, 1)),
        "rent_price_change": draw(change()),
        "rent_extras": draw(qty(0, 1e5, "USD/month")),
        "start_date": draw(st.dates(datetime.date(2000, 1, 1), datetime.date(2100, 12, 31))).isoformat(),
        "fiscal_year_end": draw(st.integers(1, 12)),
    }
    if draw(st.booleans()):
        s["server_price"] = draw(qty(1_000, 1e6, "USD"))
    if draw(st.booleans()):
        s["facility_model"] = "colo"
        s["fit_out_capex"] = draw(qty(0, 5e6, "USD"))
        s["colo_price"] = draw(qty(0, 400, "USD/kW/month"))
    else:
        s["facility_model"] = "build"
        s["build_cost"] = draw(qty(1e6, 2e7, "USD/MW"))
        s["facility_life"] = f"{draw(st.integers(5, 40))} years"
        s["facility_opex_rate"] = f"{draw(ratio(0, 0.1))!r} / year"
        if draw(st.booleans()):
            s["facility_residual"] = "stated"
            s["facility_exit_value"] = draw(ratio(0, 1))
    if draw(st.booleans()):
        s["financing"] = "loan"
        s["loan_share"] = draw(ratio(0, 1))
        s["loan_rate"] = draw(rate())
        s["loan_term"] = f"{draw(st.integers(3, horizon))} months"
    return s


def rate() -> st.SearchStrategy[float]:
    """Annual rates: exactly 0, tiny (1e-9 to 1e-6, where textbook annuity formulas lose their digits), ordinary
    and large."""
    return st.one_of(st.just(0.0), st.floats(1e-9, 1e-6), ratio(0, 0.3), ratio(0.3, 1.0))


def change() -> st.SearchStrategy[float]:
    """A price change per year: none, ordinary rises and falls, and extremes."""
    return st.one_of(st.just(0.0), ratio(-0.5, 0.5), ratio(-0.9, 1.0))


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["low_use"] = {"tco.utilisation": draw(ratio(0, 1))}
    if draw(st.booleans()):
        out["dear_power"] = {"tco.electricity_price": draw(qty(0, 0.5, "USD/kWh")),
                             "power.gpus": draw(st.integers(1, 40_000))}
    return out


@st.composite
def bom_section(draw: Any) -> dict[str, Any]:
    """BOM inputs: cabinets bought or the colocation's, lead times per group (0 included) and installation, the
    length step of the cables, prices including 0."""
    s: dict[str, Any] = {"cabinets": draw(st.sampled_from(["buy", "colocation"])),
                         "cable_length_step": draw(qty(0.5, 20, "m")),
                         "install_time": f"{draw(st.integers(0, 12))} weeks"}
    for group in ("compute", "network", "power", "cooling", "storage"):
        if draw(st.booleans()):
            s[f"{group}_lead_time"] = f"{draw(st.integers(0, 60))} weeks"
    for key, hi in (("node_transceiver_price", 5_000), ("power_cord_price", 200), ("cdu_price", 500_000),
                    ("management_node_price", 300_000)):
        if draw(st.booleans()):
            s[key] = draw(qty(0, hi, "USD"))
    if s["cabinets"] == "buy" and draw(st.booleans()):
        s["rack_price"], s["pdu_price"] = draw(qty(0, 10_000, "USD")), draw(qty(0, 10_000, "USD"))
    return s


@st.composite
def reliability_section(draw: Any, gpus: int | None) -> dict[str, Any]:
    """Reliability inputs: storage sized from the checkpoint burst or given (the power and TCO sections then keep
    their storage_power and storage_capex), models from 1B to 2T parameters, a job of all or some of the GPUs
    (`gpus`: the most it may hold in every scenario, None to leave it out), intervals short and long."""
    s: dict[str, Any] = {"storage_sizing": draw(st.sampled_from(["sized", "given"]))}
    if draw(st.booleans()):
        s["model_parameters"] = draw(st.sampled_from([1e9, 7e9, 70e9, 405e9, 2e12]))
        s["checkpoint_interval"] = draw(qty(1, 600, "min"))
        s["restart_time"] = draw(qty(0, 120, "min"))
        s["correlated_domain"] = draw(st.sampled_from(["largest", "rack", "leaf", "cdu", "none"]))
    if gpus is not None and draw(st.booleans()):
        s["job_gpus"] = draw(st.integers(1, gpus))
    if s["storage_sizing"] == "sized" and draw(st.booleans()):
        s["target_write_time"] = draw(qty(1, 600, "s"))
        s["fast_data"] = draw(qty(0, 10_000, "TB"))
        s["capacity_checkpoints"] = draw(st.integers(0, 100))
    if s["storage_sizing"] == "given" and draw(st.booleans()):
        s["storage_write_bandwidth"] = draw(qty(1, 5_000, "GB/s"))
    if draw(st.booleans()):  # spares: the service level, a unit smaller than the node, long repairs
        s["service_level"] = draw(ratio(0.5, 0.9999))
        s["support_contract"] = draw(st.sampled_from(["onsite-4h", "onsite-nbd", "depot", "own"]))
        if s["support_contract"] == "own":
            s["repair_turnaround"] = draw(qty(0, 365, "days"))
        else:
            s[f"turnaround_{s['support_contract'].replace('-', '_')}"] = draw(qty(0, 365, "days"))
        s["fan_redundancy"] = draw(st.integers(0, 3))
        if draw(st.booleans()):  # an elastic job drops a replica of any size (more than the job's: the whole job)
            s["job_kind"] = "elastic"
            s["replica_gpus"] = draw(st.integers(1, 2_048))
        if draw(st.booleans()):
            s["spare_unit"] = "host"
            s["spare_unit_price"] = draw(qty(0, 1e6, "USD"))
    return s


@st.composite
def sites(draw: Any) -> dict[str, Any]:
    """A valid site file as a mapping, ready for yaml.safe_dump."""
    site = {
        "site": "hypothesis site",
        "catalog": {"gpu": draw(st.sampled_from(GPUS)), "node": draw(st.sampled_from(NODES))},
        "power": draw(power_section()),
        "fabric": draw(fabric_section()),
        "cooling": draw(cooling_section()),
        "generator": draw(generator_section()),
        "bom": draw(bom_section()),
        "tco": draw(tco_section()),
        "scenarios": draw(scenarios()),
    }
    gpus = site["power"]["gpus"]
    most = min(gpus, site["scenarios"]["dear_power"]["power.gpus"]) if "dear_power" in site["scenarios"] else gpus
    site["reliability"] = draw(reliability_section(most))
    if site["reliability"]["storage_sizing"] == "sized":  # the Reliability sheet sizes it: no lump sum, and its
        del site["power"]["storage_power"], site["tco"]["storage_capex"]  # appliances and head nodes are endpoints
        del site["fabric"]["storage_system_ports"], site["fabric"]["inband_system_ports"]
    else:  # the per-server ports are the sized storage's
        site["fabric"].pop("server_inband_ports", None)
        site["fabric"].pop("head_node_storage_ports", None)
    return {k: v for k, v in site.items() if v != {}}
