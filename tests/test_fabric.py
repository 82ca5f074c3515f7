"""The Fabric model: the DGX SuperPOD B200 counts, the fat-tree limits, rules that hold for every input, and
one-line errors for bad fabric inputs."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE, ROOT
from tests.strategies import sites
from workbook.api import Model, load
from workbook.inputs import load_catalog

EXAMPLE_SITE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())


def site_file(tmp_path: Path, name: str = "site", **changes: dict[str, Any]) -> Path:
    """The example site with some sections changed (section -> {key: value}); None removes a key."""
    site = copy.deepcopy(EXAMPLE_SITE)
    site.pop("scenarios", None)
    for section, values in changes.items():
        body = site.setdefault(section, {})
        for key, value in values.items():
            if value is None:
                body.pop(key, None)
            else:
                body[key] = value
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(site, sort_keys=False))
    return path


def superpod(tmp_path: Path) -> Model:
    """The DGX SuperPOD B200 compute fabric: DGX B200 nodes (8 rails at 400G), QM9700 (64 ports), 1:1."""
    return load(site_file(
        tmp_path, "superpod",
        catalog={"gpu": "B200", "node": "DGX-B200", "switch": "QM9700", "optic": "MMA4Z00-NS"},
        fabric={"leaf_oversubscription": 1, "spine_oversubscription": 1},
    ))


def column(values: dict[str, np.ndarray], line_id: str) -> list[float]:
    return [float(x) for x in values[line_id][:, 0]]


# --------------------------------------------------------------------------- the reference design


# DGX SuperPOD B200 RA, "DGX SuperPOD architecture", larger SuperPOD component counts:
# SUs: nodes, GPUs, leaf, spine, core; cables node-leaf, leaf-spine, spine-core (= GPUs, or none).
SUPERPOD_B200 = [
    (2, 64, 512, 16, 8, 0),
    (4, 128, 1024, 32, 16, 0),
    (8, 256, 2048, 64, 32, 0),
    (16, 512, 4096, 128, 128, 64),
    (32, 1024, 8192, 256, 256, 128),
    (64, 2048, 16384, 512, 512, 256),
]


def test_superpod_b200_counts_for_2_to_64_scalable_units(tmp_path: Path) -> None:
    model = superpod(tmp_path)
    gpus = [row[2] for row in SUPERPOD_B200]
    v = model.book.evaluate({"power.gpus": np.array(gpus, dtype=float)})  # all six sizes in one evaluation
    assert column(v, "power.nodes") == [row[1] for row in SUPERPOD_B200]
    assert column(v, "fabric.rails") == [8] * 6
    assert column(v, "fabric.leaves") == [row[3] for row in SUPERPOD_B200]
    assert column(v, "fabric.spines") == [row[4] for row in SUPERPOD_B200]
    assert column(v, "fabric.cores") == [row[5] for row in SUPERPOD_B200]
    assert column(v, "fabric.tiers") == [2, 2, 2, 3, 3, 3]
    assert column(v, "fabric.leaves_per_rail") == [2, 4, 8, 16, 32, 64]
    assert column(v, "fabric.node_leaf_links") == gpus
    assert column(v, "fabric.leaf_spine_links") == gpus
    assert column(v, "fabric.spine_core_links") == [0, 0, 0, 4096, 8192, 16384]
    assert column(v, "fabric.holds_endpoints") == [1] * 6


def test_superpod_b200_small_sizes_with_a_node_per_su_given_to_ufm(tmp_path: Path) -> None:
    """B200 RA "Network fabrics", compute fabric component count: 1-4 SUs of 31, 63, 95, 127 nodes.
    The 3-SU row (24 leaves, 16 spines, not 24 x 32 / 64 = 12) is the equal-links-per-spine rule."""
    model = superpod(tmp_path)
    v = model.book.evaluate({"power.gpus": np.array([248, 504, 760, 1016], dtype=float)})
    assert column(v, "fabric.leaves") == [8, 16, 24, 32]
    assert column(v, "fabric.spines") == [4, 8, 16, 16]
    assert column(v, "fabric.leaf_spine_links") == [256, 512, 768, 1024]
    assert column(v, "fabric.leaf_spine_pair_links") == [8, 4, 2, 2]


# --------------------------------------------------------------------------- partial fabrics (issue 9, item 7)


def test_128_gpus_wire_uplinks_only_for_populated_ports(tmp_path: Path) -> None:
    """16 DGX H100 on 8 rails: 8 leaves with 16 of their 32 ports down used need ROUNDUP(16 x 32 / 32) = 16
    uplinks each; a spine's 64 ports split over 8 leaves give 8 links a pair, so ROUNDUP(16 / 8) = 2 spines.
    Leaf-spine links: 8 x 16 = 128 (not 8 x 32 = 256), exactly the 2 spines' 128 ports."""
    v = load(site_file(tmp_path, power={"gpus": 128})).values
    assert column(v, "fabric.leaves") == [8] and column(v, "fabric.fullest_leaf_up_ports") == [16]
    assert column(v, "fabric.leaf_spine_pair_links") == [8] and column(v, "fabric.spines") == [2]
    assert column(v, "fabric.leaf_spine_links") == [128]
    assert column(v, "fabric.switches") == [10]
    assert column(v, "fabric.leaf_spine_transceivers") == [2 * 128 / 2]  # both ends, 2 ports a cage


def test_2056_gpus_build_only_the_third_groups_populated_part(tmp_path: Path) -> None:
    """257 DGX H100: 257 hosts a rail, 9 leaves a rail (8 full, one with 1 host): 72 leaves, three tiers.
    Groups of 32 leaves: 64 full leaves fill two groups of 32 spines; the third holds the 8 part-filled leaves,
    each needing ROUNDUP(1 x 32 / 32) = 1 uplink, so it has 1 spine (not 32).
    Spines 2 x 32 + 1 = 65; leaf-spine links 64 x 32 + 8 x 1 = 2,056; that spine has 8 leaves and needs
    ROUNDUP(8 x 32 / 32) = 8 uplinks: spine-core links 64 x 32 + 8 = 2,056, cores ROUNDUP(2,056 / 64) = 33."""
    v = load(site_file(tmp_path, power={"gpus": 2056})).values
    assert column(v, "fabric.leaves") == [72] and column(v, "fabric.tiers") == [3]
    assert column(v, "fabric.full_leaves") == [64] and column(v, "fabric.partial_leaves") == [8]
    assert column(v, "fabric.spine_groups") == [3] and column(v, "fabric.last_group_spines") == [1]
    assert column(v, "fabric.spines") == [65]
    assert column(v, "fabric.leaf_spine_links") == [2056]
    assert column(v, "fabric.spine_core_links") == [2056]
    assert column(v, "fabric.cores") == [33]
    assert column(v, "fabric.switches") == [72 + 65 + 33]


# --------------------------------------------------------------------------- the storage network (item 8)


def test_example_storage_transceivers_count_twin_port_cages(tmp_path: Path) -> None:
    """128 nodes x 2 ports + 48 system ports = 304 endpoints on 64-port leaves at 1:1 (32 down, 32 up):
    9 full leaves and one with 16 ports down used, which needs 16 uplinks. Spines: 64 / 10 leaves = 6 links a
    pair, ROUNDUP(32 / 6) = 6 spines; the part-filled leaf spreads 16 uplinks over 6 spines, 6 x ROUNDUP(16 / 6)
    = 18. Leaf-spine links 9 x 32 + 18 = 306. Transceivers: 304 at the endpoints (one single-port each), 152 leaf
    cages (2 ports each) and 2 x 153 on the leaf-spine links = 762 (1,248 when counted per link end)."""
    v = load(site_file(tmp_path)).values
    assert column(v, "fabric.storage_endpoints") == [304]
    assert column(v, "fabric.storage_leaves") == [10] and column(v, "fabric.storage_spines") == [6]
    assert column(v, "fabric.storage_leaf_spine_links") == [306]
    assert column(v, "fabric.storage_leaf_transceivers") == [152]
    assert column(v, "fabric.storage_leaf_spine_transceivers") == [306]
    assert column(v, "fabric.storage_transceivers") == [304 + 152 + 306]
    assert column(v, "fabric.storage_switches") == [16]
    assert column(v, "fabric.storage_cables") == [304 + 306]
    w = {k: float(x.reshape(-1)[0]) for k, x in v.items() if k.startswith("fabric.")}
    assert w["fabric.storage_optics_power"] == pytest.approx((304 * 9 + (152 + 306) * 15) / 1000)


def test_10000_gpu_storage_network_grows_a_third_tier(tmp_path: Path) -> None:
    """1,250 DGX H100 x 2 + 48 = 2,548 storage endpoints: 79 full leaves and one with 20 used, 80 leaves > 64
    ports: three tiers. Groups of 32 leaves (non-blocking spines): 3, the last with 16 leaves (one part-filled)
    and so 32 spines, each needing ROUNDUP(16 x 32 / 32) = 16 uplinks. Spines 96; leaf-spine links
    79 x 32 + 20 = 2,548; spine-core links 64 x 32 + 32 x 16 = 2,560; cores 2,560 / 64 = 40."""
    v = load(site_file(tmp_path, power={"gpus": 10000})).values
    assert column(v, "fabric.storage_endpoints") == [2548]
    assert column(v, "fabric.storage_leaves") == [80] and column(v, "fabric.storage_tiers") == [3]
    assert column(v, "fabric.storage_spines") == [96] and column(v, "fabric.storage_cores") == [40]
    assert column(v, "fabric.storage_leaf_spine_links") == [2548]
    assert column(v, "fabric.storage_spine_core_links") == [2560]
    assert column(v, "fabric.storage_switches") == [80 + 96 + 40]
    assert bool(v["fabric.storage_holds_endpoints"].reshape(-1)[0])


# --------------------------------------------------------------------------- rack-scale systems (item 6)


def test_gb200_nvl72_fabric_is_sized_for_its_compute_trays(tmp_path: Path) -> None:
    """8 GB200 NVL72 racks (576 GPUs): 18 compute trays of 4 GPUs and 4 NICs each, so 4 rails (not 72) and
    8 x 18 = 144 hosts a rail: ROUNDUP(144 / 32) = 5 leaves a rail (4 full, one with 16 hosts), 20 leaves, two
    tiers. Host-side transceivers: 144 x 4 single-port. Storage: 8 racks x 36 ports + 48 = 336 endpoints."""
    v = load(site_file(tmp_path, catalog={"gpu": "B200-GB200", "node": "GB200-NVL72"}, power={"gpus": 576})).values
    assert column(v, "fabric.gpus_per_host") == [4] and column(v, "fabric.rails") == [4]
    assert column(v, "fabric.hosts") == [144] and column(v, "fabric.leaves_per_rail") == [5]
    assert column(v, "fabric.leaves") == [20] and column(v, "fabric.tiers") == [2]
    assert column(v, "fabric.node_transceivers") == [576]
    assert column(v, "fabric.storage_endpoints") == [336]
    # 20 leaves: 3 links a pair, ROUNDUP(32 / 3) = 11 spines; the part-filled leaf's 16 uplinks on 11 spines: 22
    assert column(v, "fabric.spines") == [11]
    assert column(v, "fabric.leaf_spine_links") == [16 * 32 + 4 * 22]


# --------------------------------------------------------------------------- reach (item 9)


def test_a_hall_beyond_multimode_reach_moves_long_tiers_to_single_mode(tmp_path: Path) -> None:
    """10 rows at 2.4 m of 100 positions at 0.6 m (a 60 m row), network row across the middle: host-leaf runs
    24 / 2 + 60 / 2 + 6 = 48 m (multimode, 50 m reach), leaf-spine runs 60 + 6 = 66 m (single-mode). The
    example's 1,024 leaf-spine transceivers and the storage network's 306 go single-mode: optics power
    +1,330 x (17 - 15) W, network capex +1,330 x (1,500 - 1,000) USD for the transceivers and 1,330 x (120 - 150)
    USD for their links' fibre (single-mode cable instead of multimode)."""
    hall = {"hall_rows": 10, "row_pitch": "2.4 m", "rack_width": "0.6 m", "cable_slack": "6 m",
            "network_location": "centre"}
    small = load(site_file(tmp_path, "small", power={**hall, "racks_per_row": 20})).values
    big = load(site_file(tmp_path, "big", power={**hall, "racks_per_row": 100})).values
    one = {k: float(x.reshape(-1)[0]) for k, x in small.items()}
    two = {k: float(x.reshape(-1)[0]) for k, x in big.items()}
    assert (one["fabric.node_leaf_run"], one["fabric.leaf_spine_run"]) == pytest.approx((24, 18))
    assert (two["fabric.node_leaf_run"], two["fabric.leaf_spine_run"]) == pytest.approx((48, 66))
    assert one["fabric.single_mode_transceivers_total"] == 0
    assert (two["fabric.node_leaf_single_mode"], two["fabric.leaf_spine_single_mode"]) == (0, 1)
    assert two["fabric.compute_single_mode_transceivers"] == 1024
    assert two["fabric.storage_single_mode_transceivers"] == 306
    assert two["fabric.transceivers_total"] == one["fabric.transceivers_total"]
    assert two["fabric.optics_power"] - one["fabric.optics_power"] == pytest.approx(1330 * 2 / 1000)
    # the BOM prices them: 1,330 single-mode transceivers at 1,500 instead of 1,000, and their 1,330 links on
    # single-mode fibre at 120 instead of multimode at 150
    assert two["bom.total_network"] - one["bom.total_network"] == pytest.approx(1330 * 500 - 1330 * 30)
    assert bool(big["fabric.runs_within_single_mode_reach"].reshape(-1)[0])
    end = load(site_file(tmp_path, "end", power={**hall, "racks_per_row": 100, "network_location": "end-of-row"}))
    e = {k: float(x.reshape(-1)[0]) for k, x in end.values.items() if k.startswith("fabric.")}
    # leaves at each row's end: 60 + 6 = 66 m; spines at the hall's end: 10 x 2.4 + 6 = 30 m
    assert (e["fabric.node_leaf_run"], e["fabric.leaf_spine_run"]) == pytest.approx((66, 30))
    assert (e["fabric.node_leaf_single_mode"], e["fabric.leaf_spine_single_mode"]) == (1, 0)
    far = load(site_file(tmp_path, "far", power={**hall, "racks_per_row": 1000})).values
    assert not bool(far["fabric.runs_within_single_mode_reach"].reshape(-1)[0])  # a 600 m row


# --------------------------------------------------------------------------- fat-tree limits


@pytest.mark.parametrize("radix", [4, 8, 16, 36, 48, 64, 128])  # at 2, k = k^2/2 = k^3/4
def test_two_and_three_tier_limits_are_k2_over_2_and_k3_over_4(tmp_path: Path, radix: int) -> None:
    """One rail (one GPU per node): the largest two-tier fabric is k^2/2 endpoints, one more needs a core;
    the largest three-tier fabric is k^3/4, one more no longer fits."""
    model = load(site_file(tmp_path, fabric={"switch_radix": radix}))
    two, three = radix**2 // 2, radix**3 // 4
    gpus = np.array([radix, radix + 1, two, two + 1, three, three + 1], dtype=float)
    v = model.book.evaluate({"power.gpus": gpus, "power.gpus_per_node": np.array([1.0]),
                             "fabric.nics_per_gpu": np.array([1.0])})
    assert column(v, "fabric.max_two_tier_endpoints") == [two] * 6
    assert column(v, "fabric.max_three_tier_endpoints") == [three] * 6
    assert column(v, "fabric.tiers") == [1, 2, 2, 3, 3, 3]
    assert [bool(x) for x in v["fabric.holds_endpoints"][:, 0]] == [True] * 5 + [False]
    # the full fat trees: k leaves and k/2 spines; k^2/2 leaves, k^2/2 spines and k^2/4 cores
    assert column(v, "fabric.leaves")[2] == radix and column(v, "fabric.spines")[2] == radix // 2
    assert column(v, "fabric.leaves")[4] == two and column(v, "fabric.spines")[4] == two
    assert column(v, "fabric.cores")[4] == radix**2 // 4


def test_rail_optimised_wiring_rounds_leaves_per_rail_and_flat_wiring_does_not(tmp_path: Path) -> None:
    """33 nodes of 8 GPUs on 64-port leaves: 33 endpoints per rail need 2 leaves on each of 8 rails (16), while
    filled in any order 264 endpoints need ROUNDUP(264 / 32) = 9. At 264 nodes both need a third tier."""
    gpus = np.array([8 * 264, 8 * 33], dtype=float)  # 2,112 and 264 endpoints
    rail = load(site_file(tmp_path, "rail")).book.evaluate({"power.gpus": gpus})
    flat = load(site_file(tmp_path, "flat", fabric={"wiring": "flat"})).book.evaluate({"power.gpus": gpus})
    assert column(rail, "fabric.leaves") == [72, 16] and column(rail, "fabric.tiers") == [3, 2]
    assert column(flat, "fabric.leaves") == [66, 9] and column(flat, "fabric.tiers") == [3, 2]
    # 16 leaves: 4 links per leaf-spine pair, 8 spines; 9 leaves: 7 links per pair, ROUNDUP(32 / 7) = 5 spines
    assert column(rail, "fabric.spines")[1] == 8 and column(flat, "fabric.spines")[1] == 5
    assert "fabric.leaves_per_rail" not in flat


def test_oversubscription_moves_ports_up_to_down(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, fabric={"leaf_oversubscription": 3, "spine_oversubscription": 1.5}))
    v = model.values
    assert column(v, "fabric.leaf_down_ports") == [48] and column(v, "fabric.leaf_up_ports") == [16]
    assert column(v, "fabric.spine_down_ports") == [38]  # ROUNDDOWN(64 x 1.5 / 2.5) = ROUNDDOWN(38.4)
    assert column(v, "fabric.max_two_tier_endpoints") == [64 * 48]
    assert column(v, "fabric.leaf_ratio_built") == [3.0]


# --------------------------------------------------------------------------- the example site


def test_example_site_fabric_feeds_the_power_chain() -> None:
    model = load(EXAMPLE)
    v = {k: float(x.reshape(-1)[0]) for k, x in model.values.items()}
    assert (v["fabric.tiers"], v["fabric.leaves"], v["fabric.spines"], v["fabric.cores"]) == (2, 32, 16, 0)
    assert v["fabric.switches"] == 48  # the DGX SuperPOD H100 4-SU compute fabric: 32 leaves + 16 spines
    assert (v["fabric.node_transceivers"], v["fabric.switch_transceivers"]) == (512, 1536)
    assert v["fabric.cables"] == 2048
    assert v["power.network_power"] == pytest.approx(v["fabric.switches_power"])
    assert v["power.optics_power"] == pytest.approx(v["fabric.optics_power"])
    assert v["summary.share_network"] == pytest.approx(v["fabric.power"])
    # BMCs 128 + switch management 64 + rack PDUs 140 (32 x 4 + 6 x 2: one storage rack for the 5 kW of storage the
    # Reliability sheet sizes) + CDUs 0 + other endpoints 32
    assert v["fabric.oob_pdu_ports"] == v["power.pdus"] == 140
    assert v["fabric.oob_endpoints"] == 128 + 64 + 140 + 0 + 32
    assert bool(model.values["checks.all_pass"].reshape(-1)[0])


def test_catalog_network_entries_have_sources_and_load_by_singular_kind(tmp_path: Path) -> None:
    catalog = load_catalog()
    for table in ("switches", "optics", "storage_switches", "oob_switches"):
        for name, entry in catalog[table].items():
            for key, value in entry["values"].items():
                assert key.startswith("fabric.") and value["source"].strip(), (table, name, key)
    model = load(site_file(tmp_path, catalog={"switch": "QM9790", "optic": "MMS4X00-NS"}))
    assert model.quantity("fabric.switch_power").to("W").magnitude == 747
    assert "catalog optic MMS4X00-NS" in model.book.lines["fabric.switch_optic_power"].note


# --------------------------------------------------------------------------- rules for every input


@st.composite
def fabrics(draw: Any) -> dict[str, Any]:
    """Scalar fabric inputs and a sorted list of GPU counts, evaluated together in one call."""
    return {
        "fabric.switch_radix": 2 * draw(st.integers(1, 256)),
        "fabric.leaf_oversubscription": draw(st.one_of(st.just(1.0), st.floats(1, 16))),
        "fabric.spine_oversubscription": draw(st.one_of(st.just(1.0), st.floats(1, 16))),
        "fabric.switch_breakout": float(draw(st.integers(1, 4))),
        "fabric.links_per_node_optic": float(draw(st.integers(1, 4))),
        "fabric.nics_per_gpu": float(draw(st.integers(1, 4))),
        "power.gpus_per_node": float(draw(st.integers(1, 16))),
        "power.hosts_per_node": float(draw(st.integers(1, 4))),
        "fabric.storage_switch_breakout": float(draw(st.integers(1, 4))),
        "fabric.storage_switch_radix": 2 * draw(st.integers(1, 128)),
        "fabric.storage_system_ports": float(draw(st.integers(0, 500))),
        "power.gpus": sorted(draw(st.lists(st.integers(1, 60_000), min_size=2, max_size=40))),
    }


@pytest.fixture(scope="module", params=["rail-optimised", "flat"])
def example_model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Model:
    return load(site_file(tmp_path_factory.mktemp("wiring"), fabric={"wiring": request.param}))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(f=fabrics())
def test_ports_suffice_and_more_gpus_never_need_fewer_switches(example_model: Model, f: dict[str, Any]) -> None:
    v = example_model.book.evaluate({k: np.asarray(x, dtype=float) for k, x in f.items()})
    c = {k: v[k][:, 0] for k in v if k.startswith("fabric.")}
    k = f["fabric.switch_radix"]
    e, tiers = c["fabric.endpoints"], c["fabric.tiers"]
    one, two, three = tiers == 1, tiers == 2, tiers == 3
    # every endpoint has a leaf port; one tier only when one switch holds them all
    assert np.all(e[one] <= k)
    assert np.all(c["fabric.leaves"][~one] * c["fabric.leaf_down_ports"][~one] >= e[~one])
    # two tiers: every leaf reaches every spine, and the spines' ports carry every leaf uplink
    assert np.all(c["fabric.leaves"][two] <= k)
    assert np.all(c["fabric.leaves"][two] * c["fabric.leaf_spine_pair_links"][two] <= k)
    assert np.all(c["fabric.spines"][two] * k >= c["fabric.leaf_spine_links"][two])
    assert np.all(c["fabric.cores"][~three] == 0)
    # three tiers: the spines' ports down carry the leaf uplinks, the cores' ports the spine uplinks
    assert np.all(c["fabric.spines"][three] * c["fabric.spine_down_ports"][three]
                  >= c["fabric.leaf_spine_links"][three])
    assert np.all(c["fabric.cores"][three] * k >= c["fabric.spine_core_links"][three])
    assert np.all(c["fabric.holds_endpoints"] == (c["fabric.spine_groups"] <= k))
    # transceivers: every link end has a transceiver port
    assert np.all(c["fabric.node_transceivers"] * f["fabric.links_per_node_optic"] >= e)
    assert np.all(c["fabric.switch_transceivers"] * f["fabric.switch_breakout"]
                  >= c["fabric.node_leaf_links"] + 2 * (c["fabric.leaf_spine_links"] + c["fabric.spine_core_links"]))
    # storage: one switch while the endpoints fit, else leaves carry them all
    se, sl = c["fabric.storage_endpoints"], c["fabric.storage_leaves"]
    assert np.all((sl * c["fabric.storage_leaf_down_ports"] >= se) | (se <= f["fabric.storage_switch_radix"]))
    ks, st = f["fabric.storage_switch_radix"], c["fabric.storage_tiers"]
    assert np.all(c["fabric.storage_spines"][st == 2] * ks >= c["fabric.storage_leaf_spine_links"][st == 2])
    assert np.all(c["fabric.storage_spines"][st == 3] * c["fabric.storage_spine_down_ports"][st == 3]
                  >= c["fabric.storage_leaf_spine_links"][st == 3])
    assert np.all(c["fabric.storage_cores"] * ks >= c["fabric.storage_spine_core_links"])
    # uplinks keep each leaf's ratio: at 1:1 the leaf-spine links carry every endpoint
    assert np.all(c["fabric.leaf_spine_links"][~one] * c["fabric.leaf_down_ports"][~one]
                  >= e[~one] * c["fabric.leaf_up_ports"][~one] - 1e-9)
    # more GPUs (sorted) never need fewer switches, transceivers, cables or power
    for key in ("fabric.leaves", "fabric.spines", "fabric.cores", "fabric.switches", "fabric.switches_total",
                "fabric.tiers", "fabric.storage_switches",
                "fabric.transceivers_total", "fabric.cables_total", "fabric.power"):
        assert np.all(np.diff(c[key]) >= 0), key


@settings(max_examples=60, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(site=sites())
def test_random_sites_are_valid_and_cover_one_two_and_three_tiers(site: dict[str, Any]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "site.yaml"
        path.write_text(yaml.safe_dump(site, sort_keys=False))
        model = load(path)
    seen_tiers.add(int(model.values["fabric.tiers"].reshape(-1)[0]))


seen_tiers: set[int] = set()


def test_the_random_sites_covered_every_tier_count() -> None:
    if not seen_tiers:  # run alone: draw them now
        test_random_sites_are_valid_and_cover_one_two_and_three_tiers()
    assert seen_tiers == {1, 2, 3}


# --------------------------------------------------------------------------- bad input: one line, exit 2


@pytest.mark.parametrize("section,key,value,words", [
    ("fabric", "switch_radix", 63, "is not an even number"),
    ("fabric", "switch_radix", 0, "must be greater than 0"),
    ("fabric", "switch_radix", -64, "must be greater than 0"),
    ("fabric", "switch_radix", 64.5, "is not a whole number"),
    ("fabric", "storage_switch_radix", 33, "is not an even number"),
    ("fabric", "leaf_oversubscription", 0.5, "must be at least 1"),
    ("fabric", "spine_oversubscription", 0.5, "must be at least 1"),
    ("fabric", "storage_oversubscription", 0, "must be at least 1"),
    ("fabric", "nic_speed", "400 W", "is not a data rate"),
    ("fabric", "oob_switch_ports", 0, "must be greater than 0"),
])
def test_bad_fabric_input_is_one_line_naming_key_and_value(
        tmp_path: Path, section: str, key: str, value: Any, words: str) -> None:
    site = site_file(tmp_path, "bad", **{section: {key: value}})
    out = tmp_path / "bad.xlsx"
    run = subprocess.run([sys.executable, "-m", "workbook", "build", str(site), "-o", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr
    assert f"{section}.{key} = {value!r}" in lines[0] and words in lines[0], lines[0]
    assert not out.exists() and not list(tmp_path.glob("*.xlsx*"))


def test_unknown_catalog_kind_lists_switch_kinds_in_the_singular(tmp_path: Path) -> None:
    site = site_file(tmp_path, "bad", catalog={"swich": "QM9700"})
    run = subprocess.run([sys.executable, "-m", "workbook", "build", str(site), "-o", str(tmp_path / "x.xlsx")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "did you mean switch?" in run.stderr and "storage_switch, oob_switch" in run.stderr
