"""Hypothesis strategies for valid site files: one place, so every property test draws the same sites."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

GPUS = ["H100-SXM", "H200-SXM", "B200", "MI300X"]
NODES = ["DGX-H100", "DGX-B200"]
REDUNDANCY = ["N", "N+1", "N+2", "2N", "2N+1"]


def qty(lo: float, hi: float, unit: str, *, lo_open: bool = False) -> st.SearchStrategy[str]:
    """A quantity as site-file text, e.g. '37.5 kW'."""
    floats = st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False,
                       exclude_min=lo_open)
    return floats.map(lambda x: f"{x!r} {unit}")


def ratio(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


@st.composite
def power_section(draw: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "gpus": draw(st.integers(1, 40_000)),
        "rack_units": f"{draw(st.integers(8, 52))} U",
        "rack_power_limit": draw(qty(5, 200, "kW", lo_open=True)),
        "network_power": draw(qty(0, 2_000, "kW")),
        "optics_power": draw(qty(0, 1_000, "kW")),
        "storage_power": draw(qty(0, 1_000, "kW")),
        "management_power": draw(qty(0, 200, "kW")),
        "sync_peak_factor": draw(ratio(1.0, 2.0)),
        "feed_headroom": draw(ratio(0.0, 1.0)),
        "feed_block_size": draw(qty(0.1, 20, "MW", lo_open=True)),
        "feed_redundancy": draw(st.sampled_from(REDUNDANCY)),
        "site_available_power": draw(qty(0.1, 500, "MW", lo_open=True)),
    }
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


@st.composite
def fabric_section(draw: Any) -> dict[str, Any]:
    """Fabric inputs (issue 3)."""
    return {}


@st.composite
def cooling_section(draw: Any) -> dict[str, Any]:
    """Cooling inputs (issue 3)."""
    return {}


@st.composite
def sites(draw: Any) -> dict[str, Any]:
    """A valid site file as a mapping, ready for yaml.safe_dump."""
    site = {
        "site": "hypothesis site",
        "catalog": {"gpu": draw(st.sampled_from(GPUS)), "node": draw(st.sampled_from(NODES))},
        "power": draw(power_section()),
        "fabric": draw(fabric_section()),
        "cooling": draw(cooling_section()),
    }
    return {k: v for k, v in site.items() if v != {}}
