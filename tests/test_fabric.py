"""The Fabric model: the DGX SuperPOD B200 counts, the fat-tree limits, rules that hold for every input, and
one-line errors for bad fabric inputs."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE
from tests.helpers import example_model, invoke, site_model
from tests.strategies import sites
from workbook.api import Model, load
from workbook.site.templates import load_catalog

EXAMPLE_SITE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())


def site_file(tmp_path: Path, name: str = "site", **changes: dict[str, Any]) -> Path:
    """The example site with some sections changed (section -> {key: value}); None removes a key. No scenarios
    and no risk: section (no fabric figure reads a risk figure, and its 10,000 samples are most of a build)."""
    site = copy.deepcopy(EXAMPLE_SITE)
    site.pop("scenarios", None)
    site.pop("risk", None)
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_2056_gpus_build_only_the_third_groups_populated_part(tmp_path: Path) -> None:
    """257 DGX H100: 257 hosts a rail, 9 leaves a rail (8 full, one with 1 host): 72 leaves, three tiers.
    Groups of 32 leaves: 64 full leaves fill two groups of 32 spines; the third holds the 8 part-filled leaves,
    each needing ROUNDUP(1 / 1) = 1 uplink, so it has 1 spine (not 32).
    Spines 2 x 32 + 1 = 65; leaf-spine links 64 x 32 + 8 x 1 = 2,056; that spine has 8 leaves and needs
    MIN(32, 8) = 8 uplinks: spine-core links 2 x 32 x 32 + 8 = 2,056, cores ROUNDUP(2,056 / 64) = 33."""
    v = load(site_file(tmp_path, power={"gpus": 2056})).values
    assert column(v, "fabric.leaves") == [72] and column(v, "fabric.tiers") == [3]
    assert column(v, "fabric.full_leaves") == [64] and column(v, "fabric.partial_leaves") == [8]
    assert column(v, "fabric.spine_groups") == [3] and column(v, "fabric.full_spine_groups") == [2]
    assert column(v, "fabric.mixed_group_full_leaves") == [0]
    assert column(v, "fabric.mixed_group_partial_leaves") == [8]
    assert column(v, "fabric.spines") == [65]
    assert column(v, "fabric.leaf_spine_links") == [2056]
    assert column(v, "fabric.spine_core_links") == [2056]
    assert column(v, "fabric.cores") == [33]
    assert column(v, "fabric.switches") == [72 + 65 + 33]


# --------------------------------------------------------------------------- spine-core links (issue 25, item 7)


@pytest.mark.slow
def test_10000_gpus_spine_core_links_count_the_ports_used() -> None:
    """1,250 DGX H100 on 8 rails: 40 leaves a rail (39 full, one with 2 hosts), 320 leaves, three tiers.
    Groups of 32: the 312 full leaves fill 9 groups (288) and 24 of the tenth, whose 8 other leaves are the
    part-filled ones, each with ROUNDUP(2 / 1) = 2 uplinks. The tenth group's 32 spines: 2 reached by all 32 of
    its leaves (32 uplinks each), 30 by its 24 full leaves only (24 each). Spine-core links 9 x 32 x 32 + 2 x 32
    + 30 x 24 = 9,216 + 64 + 720 = 10,000 = the leaf-spine links (312 x 32 + 8 x 2), not 10,240 (counting the
    group's 32 leaves on every spine). Cores per plane (the spines at one position in every group reach only
    their plane's cores): the 2 planes the part-filled leaves reach take 9 x 32 + 32 = 320 links, ROUNDUP(320 /
    64) = 5 cores each; the other 30 take 9 x 32 + 24 = 312, also 5 each: 2 x 5 + 30 x 5 = 160 cores, not the
    157 of ROUNDUP(10,000 / 64) pooled (a core cannot take links from two planes' spines)."""
    v = example_model().book.evaluate({"power.gpus": np.array([10000.0])})
    assert column(v, "fabric.leaves") == [320] and column(v, "fabric.tiers") == [3]
    assert column(v, "fabric.full_spine_groups") == [9]
    assert column(v, "fabric.mixed_group_full_leaves") == [24]
    assert column(v, "fabric.mixed_group_partial_leaves") == [8]
    assert column(v, "fabric.spines") == [320]
    assert column(v, "fabric.leaf_spine_links") == [312 * 32 + 8 * 2]
    assert column(v, "fabric.spine_core_links") == [9 * 32 * 32 + 2 * 32 + 30 * 24] == [10000]
    assert column(v, "fabric.core_plane_links_first") == [320] and column(v, "fabric.core_plane_links_other") == [312]
    assert column(v, "fabric.cores") == [2 * 5 + 30 * 5] == [160]
    assert column(v, "fabric.spine_core_transceivers") == [2 * 10000 / 2]


@pytest.mark.slow
def test_part_filled_leaves_spilling_into_a_group_of_their_own(tmp_path: Path) -> None:
    """3 NICs per GPU: 24 rails. 552 GPUs are 69 hosts a rail: 2 full leaves a rail (48) and one with 5 hosts
    (24 part-filled leaves of ROUNDUP(5 / 1) = 5 uplinks): 72 leaves, three tiers. Groups of 32: 32 full leaves
    fill one; the second holds the other 16 full and 16 part-filled leaves; the third the last 8 part-filled.
    Spines: 32 + 32 (a full leaf in the second group) + 5 = 69. Spine-core links (1:1, a spine uplinks each
    populated port down): 32 x 32 + 5 spines x 32 (all 32 leaves of the second group) + 27 x 16 (its full leaves
    only) + 5 x 8 = 1,024 + 160 + 432 + 40 = 1,656 = the leaf-spine links 48 x 32 + 24 x 5. (Counting the
    second group as full gave 2 x 32 x 32 + 5 x 8 = 2,088.) Cores per plane: the 5 planes the part-filled leaves
    reach take 32 + 32 + 8 = 72 links, 2 cores each; the other 27 take 32 + 16 = 48, one each: 5 x 2 + 27 = 37
    (26 if the 1,656 links were pooled across planes)."""
    v = load(site_file(tmp_path, power={"gpus": 552}, fabric={"nics_per_gpu": 3})).values
    assert column(v, "fabric.rails") == [24] and column(v, "fabric.leaves") == [72]
    assert column(v, "fabric.full_leaves") == [48] and column(v, "fabric.partial_leaf_up_ports") == [5]
    assert column(v, "fabric.full_spine_groups") == [1] and column(v, "fabric.mixed_group_full_leaves") == [16]
    assert column(v, "fabric.mixed_group_partial_leaves") == [16]
    assert column(v, "fabric.spines") == [32 + 32 + 5]
    assert column(v, "fabric.leaf_spine_links") == [48 * 32 + 24 * 5]
    assert column(v, "fabric.spine_core_links") == [1024 + 160 + 432 + 40]
    assert column(v, "fabric.core_plane_links_first") == [72]
    assert column(v, "fabric.core_plane_links_other") == [48]
    assert column(v, "fabric.cores") == [5 * 2 + 27 * 1]


# --------------------------------------------------------------------------- the storage network (item 9)


@pytest.mark.slow
def test_example_storage_network_follows_the_sized_storage_and_tapers() -> None:
    """Endpoints: 128 nodes x 2 + 2 appliances (Reliability) x 8 ports + 4 head nodes x 2 = 280 (not 304 with the
    48 ports the site once gave). Taper: a node's 2 x 400 Gb/s over the 40 GB/s = 320 Gb/s it reads: 2.5, so a
    leaf puts ROUNDDOWN(64 x 2.5 / 3.5) = 45 ports down, 19 up, and a full leaf needs ROUNDUP(45 / 2.5) = 18.
    6 full leaves and one with 10 (ROUNDUP(10 / 2.5) = 4 uplinks): 7 leaves; a spine gives each ROUNDDOWN(64 / 7)
    = 9 links, so at least ROUNDUP(18 / 9) = 2 spines, and 2 x 9 = 18 fits 19 ports up: 2 spines. Leaf-spine links
    6 x 18 + 2 x ROUNDUP(4 / 2) = 112. Transceivers: 280 endpoint ports, 140 leaf cages, 2 x 56 = 532."""
    v = example_model().values
    assert column(v, "fabric.storage_node_ports") == [256] and column(v, "fabric.storage_server_ports") == [24]
    assert column(v, "fabric.storage_endpoints") == [280]
    assert column(v, "fabric.storage_leaf_ratio") == [2.5]
    assert column(v, "fabric.storage_leaf_down_ports") == [45] and column(v, "fabric.storage_leaf_up_ports") == [19]
    assert column(v, "fabric.storage_full_leaf_up_ports") == [18]
    assert column(v, "fabric.storage_leaves") == [7] and column(v, "fabric.storage_spines") == [2]
    assert column(v, "fabric.storage_leaf_spine_pair_links") == [9]
    assert column(v, "fabric.storage_leaf_spine_links") == [6 * 18 + 4]
    assert column(v, "fabric.storage_transceivers") == [280 + 140 + 112]
    assert column(v, "fabric.storage_switches") == [9]
    assert column(v, "fabric.storage_cables") == [280 + 112]
    w = {k: float(x.reshape(-1)[0]) for k, x in v.items() if k.startswith("fabric.")}
    assert w["fabric.storage_node_optics_power"] == pytest.approx(256 * 9 / 1000)
    assert w["fabric.storage_server_optics_power"] == pytest.approx(24 * 9 / 1000)
    assert w["fabric.storage_switch_optics_power"] == pytest.approx((140 + 112) * 15 / 1000)


@pytest.mark.slow
def test_the_10k_site_storage_network_tapers_to_two_tiers() -> None:
    """The 10k site gives its storage (280 system ports): 1,250 x 2 + 280 = 2,780 endpoints. At the derived 2.5
    (45 down, 18 uplinks a full leaf): 61 full leaves and one with 35 (ROUNDUP(35 / 2.5) = 14 uplinks), 62 leaves
    <= 64: two tiers (non-blocking it was three: 87 leaves, 96 spines, 44 cores, 227 switches). One link per
    pair (ROUNDDOWN(64 / 62) = 1): 18 spines; leaf-spine links 61 x 18 + 18 x ROUNDUP(14 / 18) = 1,116; 80
    switches."""
    v = site_model("h100-10k-build.yaml").values
    assert column(v, "fabric.storage_endpoints") == [2780] and column(v, "fabric.storage_leaf_ratio") == [2.5]
    assert column(v, "fabric.storage_leaves") == [62] and column(v, "fabric.storage_tiers") == [2]
    assert column(v, "fabric.storage_spines") == [18] and column(v, "fabric.storage_cores") == [0]
    assert column(v, "fabric.storage_leaf_spine_links") == [61 * 18 + 18]
    assert column(v, "fabric.storage_switches") == [80]


@pytest.mark.slow
def test_a_stated_storage_ratio_is_kept_and_grows_a_third_tier(tmp_path: Path) -> None:
    """Non-blocking as stated: 1,250 DGX H100 x 2 + 16 + 8 = 2,524 endpoints, 78 full leaves and one with 28:
    79 leaves > 64, three tiers. Groups of 32 (non-blocking spines): 2 full groups; the third holds 14 full leaves
    and the part-filled one (28 uplinks), so 32 spines: 28 reached by 15 leaves, 4 by 14. Spines 96; spine-core
    links 2 x 32 x 32 + 28 x 15 + 4 x 14 = 2,524 = the leaf-spine links 78 x 32 + 28. Cores per plane: 28 planes
    take 2 x 32 + 15 = 79 links and 4 take 64 + 14 = 78, ROUNDUP(/ 64) = 2 cores each: 64 (40 were the 2,524 links
    pooled: each plane's 3 spines have more uplinks than one core has ports)."""
    v = load(site_file(tmp_path, fabric={"storage_oversubscription": 1})).book.evaluate(
        {"power.gpus": np.array([10000.0])})
    assert column(v, "fabric.storage_endpoints") == [2524]
    assert column(v, "fabric.storage_leaves") == [79] and column(v, "fabric.storage_tiers") == [3]
    assert column(v, "fabric.storage_spines") == [96] and column(v, "fabric.storage_cores") == [28 * 2 + 4 * 2]
    assert column(v, "fabric.storage_leaf_spine_links") == [78 * 32 + 28]
    assert column(v, "fabric.storage_spine_core_links") == [2 * 32 * 32 + 28 * 15 + 4 * 14]
    assert bool(v["fabric.storage_holds_endpoints"].reshape(-1)[0])


@pytest.mark.slow
def test_given_storage_keeps_the_given_ports_and_a_fleet_without_reliability_is_non_blocking() -> None:
    """The upgrade site gives its storage: 128 x 2 + 48 = 304 endpoints, tapered at 2.5 (45 down): 6 full leaves and
    one with 34 (ROUNDUP(34 / 2.5) = 14 uplinks); 7 leaves, 2 spines of 9 links: 6 x 18 + 2 x 7 = 122 leaf-spine
    links. Its next fleet (64 DGX B200) states 1:1 and has no Reliability sheet: 64 x 2 + 96 = 224 endpoints on
    leaves of 32: 7 full leaves; ROUNDDOWN(64 / 7) = 9 links a pair, at least ROUNDUP(32 / 9) = 4 spines, and 4
    divides 32: 4 spines of 8 links, 224 leaf-spine links."""
    v = site_model("example-b200-upgrade.yaml").values
    assert column(v, "fabric.storage_endpoints") == [304] and column(v, "fabric.storage_leaves") == [7]
    assert column(v, "fabric.storage_spines") == [2] and column(v, "fabric.storage_leaf_spine_links") == [122]
    assert column(v, "next.fabric.storage_endpoints") == [224]
    assert column(v, "next.fabric.storage_leaves") == [7] and column(v, "next.fabric.storage_spines") == [4]
    assert column(v, "next.fabric.storage_leaf_spine_links") == [224]
    assert "next.fabric.storage_leaf_ratio" not in v


# --------------------------------------------------------------------------- rack-scale systems (item 6)


@pytest.mark.slow
def test_gb200_nvl72_fabric_is_sized_for_its_compute_trays(tmp_path: Path) -> None:
    """8 GB200 NVL72 racks (576 GPUs): 18 compute trays of 4 GPUs and 4 NICs each, so 4 rails (not 72) and
    8 x 18 = 144 hosts a rail: ROUNDUP(144 / 32) = 5 leaves a rail (4 full, one with 16 hosts), 20 leaves, two
    tiers. Host-side transceivers: 144 x 4 single-port. Storage: 8 racks x 36 ports + 2 appliances x 8 + 4 x 2."""
    v = load(site_file(tmp_path, catalog={"gpu": "B200-GB200", "node": "GB200-NVL72"}, power={"gpus": 576})).values
    assert column(v, "fabric.gpus_per_host") == [4] and column(v, "fabric.rails") == [4]
    assert column(v, "fabric.hosts") == [144] and column(v, "fabric.leaves_per_rail") == [5]
    assert column(v, "fabric.leaves") == [20] and column(v, "fabric.tiers") == [2]
    assert column(v, "fabric.node_transceivers") == [576]
    assert column(v, "fabric.storage_endpoints") == [8 * 36 + 16 + 8]


@pytest.mark.slow
def test_gb200_spines_divide_a_leafs_uplinks() -> None:
    """The GB200 site (issue 25, item 6): 20 leaves of 32 uplinks. A spine gives each leaf ROUNDDOWN(64 / 20) = 3
    links, so at least ROUNDUP(32 / 3) = 11 spines; 11 x ROUNDUP(32 / 11) = 33 > 32 ports up, and so for 12 to 15;
    16 x 2 = 32 fits: 16 spines of 2 links (not 11 of 3, which asks 33 uplinks of a leaf that has 32). The 4
    part-filled leaves (16 hosts, 16 uplinks) give each spine ROUNDUP(16 / 16) = 1. Leaf-spine links 16 x 32 +
    4 x 16 = 576; switches 20 + 16 = 36; compute transceivers 576 host-side + ROUNDUP(576 / 2) = 288 leaf cages +
    2 x 288 leaf-spine = 1,440."""
    v = site_model("gb200-nvl72-colo.yaml").values
    assert column(v, "fabric.leaves") == [20] and column(v, "fabric.fewest_spines") == [11]
    assert column(v, "fabric.spines") == [16] and column(v, "fabric.leaf_spine_pair_links") == [2]
    assert column(v, "fabric.full_leaf_links") == [32] and column(v, "fabric.partial_leaf_links") == [16]
    assert column(v, "fabric.leaf_spine_links") == [576]
    assert column(v, "fabric.switches") == [36]
    assert column(v, "fabric.transceivers") == [576 + 288 + 576]
    assert column(v, "fabric.two_tier_balanced") == [1] and column(v, "fabric.spine_search_covers") == [1]


@st.composite
def two_tier_cases(draw: Any) -> dict[str, Any]:
    """A compute fabric of any radix the limits allow, any leaf ratio, flat or rail wiring's leaves: GPU counts
    (one GPU and one NIC a node, so endpoints = GPUs) from one switch to the two-tier limit."""
    k = 2 * draw(st.integers(2, 1024))
    o = draw(st.one_of(st.just(1.0), st.just(3.0), st.floats(1, 16)))
    down = int(k * o / (1 + o))
    return {"fabric.switch_radix": float(k), "fabric.leaf_oversubscription": o,
            "power.gpus": sorted(draw(st.lists(st.integers(k + 1, k * down), min_size=1, max_size=30)))}


@pytest.fixture(scope="module")
def widest(tmp_path_factory: pytest.TempPathFactory) -> Model:
    """The example built with the largest radix the limits allow, so its spine search has every candidate any
    radix needs (32), with one GPU and one NIC a node (endpoints = GPUs)."""
    return load(site_file(tmp_path_factory.mktemp("widest"), power={"gpus_per_node": 1},
                          fabric={"switch_radix": 2048, "nics_per_gpu": 1}))


def _fewest_balanced(up: int, k: int, leaves: int, need: int) -> int:
    """By brute force: the fewest spines s such that a leaf needing `need` uplinks wires s x ROUNDUP(need / s) of
    its `up` ports and a spine takes ROUNDUP(need / s) links from each of `leaves` leaves."""
    cap = max(1, k // max(1, leaves))
    return next(s for s in range(1, max(1, need) + 1)
                if -(-need // s) <= cap and s * -(-need // s) <= up)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=two_tier_cases())
def test_two_tier_spines_are_the_fewest_balanced_ones(widest: Model, case: dict[str, Any]) -> None:
    """For every radix (4 to 2,048), ratio and size: two tiers use the fewest spines that take the same links from
    every leaf (found by brute force), the search covers the leaf's ports up, and every leaf's links to the
    spines are spines x links per pair."""
    v = widest.book.evaluate({key: np.asarray(x, dtype=float) for key, x in case.items()},
                             ranges=False)  # sizes beyond the site file's range too: the rule holds for all
    c = {key: v[key][:, 0] for key in v if key.startswith("fabric.")}
    k = int(case["fabric.switch_radix"])
    for row in np.nonzero(c["fabric.tiers"] == 2)[0]:
        up, leaves = int(c["fabric.leaf_up_ports"][row]), int(c["fabric.leaves"][row])
        need = int(c["fabric.fullest_leaf_up_ports"][row])
        assert c["fabric.spines"][row] == _fewest_balanced(up, k, leaves, need), (k, up, leaves, need)
        assert c["fabric.spine_search_covers"][row] == 1
        assert c["fabric.two_tier_balanced"][row] == 1


# --------------------------------------------------------------------------- power, each watt once (item 8)


@pytest.mark.slow
def test_node_side_transceivers_are_counted_once_in_power(tmp_path: Path) -> None:
    """The example's node-side transceivers: 512 host-side x 15 W + 256 storage ports x 9 W + 256 in-band ports x
    3.5 W = 10.88 kW, 11.574 kW at the wall (/ 0.94). A DGX H100's 10.2 kW maximum is 0.743 kW above its 9.457 kW
    component sum (8,890 W / 0.94), 95.05 kW over 128 nodes: it holds them, so the power chain's optics line is
    the switch side alone, 1,536 x 15 + (140 + 112) x 15 + (276 + 192) x 3.5 = 28,458 W (it was every transceiver,
    40.3 kW, in the network racks). The energy bill's load puts them back once: IT - 95.05 + 11.574 kW.
    Without a vendor maximum the component sum is the node's power and does not hold them: all 11.574 kW added."""
    v = {k: float(x.reshape(-1)[0]) for k, x in example_model().values.items()}
    assert v["fabric.node_optics_power"] == pytest.approx((512 * 15 + 256 * 9 + 256 * 3.5) / 1000)
    assert v["power.node_optics_wall_power"] == pytest.approx(10.88 / 0.94)
    assert v["power.node_optics_added_power"] == 0
    assert v["fabric.switch_optics_power"] == pytest.approx((1536 * 15 + 252 * 15 + 468 * 3.5) / 1000)
    assert v["power.optics_power"] == pytest.approx(28.458)
    assert v["power.it_load"] == pytest.approx(v["power.compute_power"] + v["power.network_power"] + 28.458
                                               + v["power.storage_load"] + v["power.management_power"])
    allowance = 128 * (10.2 - 8.890 / 0.94)
    assert v["power.it_energy_load"] == pytest.approx(v["power.it_load"] - allowance + 10.88 / 0.94)
    w = {k: float(x.reshape(-1)[0]) for k, x in
         load(site_file(tmp_path, power={"node_max_input": "0 kW"})).values.items()}
    assert w["power.node_optics_added_power"] == pytest.approx(10.88 / 0.94)
    assert w["power.optics_power"] == pytest.approx(28.458 + 10.88 / 0.94)
    assert w["power.it_energy_load"] == pytest.approx(w["power.it_load"])
    assert w["power.it_load"] - w["power.compute_power"] == pytest.approx(v["power.it_load"] - v["power.compute_power"]
                                                                          + 10.88 / 0.94)


# --------------------------------------------------------------------------- the in-band network (item 10)


@pytest.mark.slow
def test_example_in_band_network_in_leaf_pairs() -> None:
    """128 DGX H100 x 2 in-band ports + (4 head nodes + 2 fabric managers) x 2 + 2 appliances x 2 + 4 site
    uplinks = 276 ports, 138 on each side of the leaf pairs. SN4600C (64 ports) at 3:1: ROUNDDOWN(64 x 3 / 4) =
    48 less 2 peer links = 46 down, 16 up. 3 full leaves a side: 6 leaves (3 pairs), each needing
    ROUNDUP(46 / 3) = 16 uplinks; ROUNDDOWN(64 / 6) = 10 links a pair, so at least 2 spines, and 2 x 8 = 16 fits:
    2 spines, 96 leaf-spine links, 8 switches; 3 x 2 = 6 peer-link copper cables. Transceivers 256 + 16 at the
    nodes and servers, 276 leaf cages, 2 x 96 leaf-spine = 740; power 8 x 500 W and (276 + 192) x 3.5 W in the
    network racks, 256 x 3.5 W in the nodes."""
    v = {k: float(x.reshape(-1)[0]) for k, x in example_model().values.items()}
    assert (v["fabric.inband_node_ports"], v["fabric.inband_server_ports"]) == (256, 16)
    assert v["fabric.inband_endpoints"] == 276 and v["fabric.inband_ports_per_side"] == 138
    assert (v["fabric.inband_leaf_down_ports"], v["fabric.inband_leaf_up_ports"]) == (46, 16)
    assert v["fabric.inband_leaves"] == 6 and v["fabric.inband_spines"] == 2 and v["fabric.inband_cores"] == 0
    assert v["fabric.inband_leaf_spine_pair_links"] == 8 and v["fabric.inband_leaf_spine_links"] == 96
    assert v["fabric.inband_switches"] == 8 and v["fabric.inband_peer_cables"] == 6
    assert v["fabric.inband_cables"] == 276 + 96 + 6
    assert v["fabric.inband_transceivers"] == 256 + 16 + 276 + 192
    assert v["fabric.inband_switches_power"] == pytest.approx(4.0)
    assert v["fabric.inband_switch_optics_power"] == pytest.approx((276 + 192) * 3.5 / 1000)
    assert v["fabric.inband_node_optics_power"] == pytest.approx(256 * 3.5 / 1000)
    assert v["fabric.inband_server_optics_power"] == pytest.approx(16 * 3.5 / 1000)
    # its switches are in the totals, the network racks and the out-of-band network's management ports
    assert v["fabric.switches_total"] == v["fabric.switches"] + v["fabric.storage_switches"] + 8
    assert v["fabric.oob_switch_ports_used"] == v["fabric.switches_total"]


@pytest.mark.slow
def test_in_band_network_one_pair_and_three_tiers(tmp_path: Path) -> None:
    """8 GPUs (one DGX): 2 + 16 + 4 = 22 ports, 11 a side, fit one pair's 62 non-peer ports: one tier, 2 leaves,
    no spines. 24-port leaves at 1:1 (12 - 2 = 10 down, 12 up) for 2,048 DGX: 4,096 + 16 + 4 = 4,116 ports, 2,058
    a side: 206 leaves a side (205 full, one with 8): 412 leaves > 24, three tiers, groups of 12 leaves."""
    v = load(site_file(tmp_path, "one", power={"gpus": 8})).values
    assert column(v, "fabric.inband_tiers") == [1] and column(v, "fabric.inband_leaves") == [2]
    assert column(v, "fabric.inband_spines") == [0] and column(v, "fabric.inband_peer_cables") == [2]
    w = load(site_file(tmp_path, "three", fabric={"inband_switch_radix": 24, "inband_oversubscription": 1})).book
    x = w.evaluate({"power.gpus": np.array([16384.0])})
    assert column(x, "fabric.inband_leaf_down_ports") == [10] and column(x, "fabric.inband_leaf_up_ports") == [12]
    assert column(x, "fabric.inband_ports_per_side") == [2058]
    assert column(x, "fabric.inband_leaves") == [412] and column(x, "fabric.inband_tiers") == [3]
    assert column(x, "fabric.inband_leaf_spine_links") == [410 * 10 + 2 * 8]
    # non-blocking spines uplink every populated port down: spine-core links = leaf-spine links
    assert column(x, "fabric.inband_spine_core_links") == column(x, "fabric.inband_leaf_spine_links")
    assert column(x, "fabric.inband_holds_endpoints") == [0]  # 412 leaves > 24 x 12: more than three tiers


# --------------------------------------------------------------------------- reach (item 9)


@pytest.mark.slow
def test_a_hall_beyond_multimode_reach_moves_long_tiers_to_single_mode(tmp_path: Path) -> None:
    """10 rows at 2.4 m of 100 positions at 0.6 m (a 60 m row), network row across the middle: host-leaf runs
    24 / 2 + 60 / 2 + 6 = 48 m (multimode, 50 m reach), leaf-spine runs 60 + 6 = 66 m (single-mode). The
    example's 1,024 leaf-spine transceivers and the storage network's 112 go single-mode (the in-band network's
    100 m optic still reaches): optics power +1,136 x (17 - 15) W, network capex +1,136 x (1,500 - 1,000) USD for
    the transceivers and 1,136 x (120 - 150) USD for their links' fibre (single-mode cable instead of
    multimode)."""
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
    assert two["fabric.storage_single_mode_transceivers"] == 112
    assert two["fabric.inband_single_mode_transceivers"] == 0
    assert two["fabric.transceivers_total"] == one["fabric.transceivers_total"]
    assert two["fabric.switch_optics_power"] - one["fabric.switch_optics_power"] == pytest.approx(1136 * 2 / 1000)
    assert two["fabric.node_optics_power"] == pytest.approx(one["fabric.node_optics_power"])
    # the BOM prices them: 1,136 single-mode transceivers at 1,500 instead of 1,000, and their 1,136 links on
    # single-mode fibre at 120 instead of multimode at 150; the network group's shipping lot (bom.shipping_share,
    # 1% of its equipment) follows: 533,920 x 1.01 = 539,259.2
    assert one["bom.shipping_share"] == 0.01
    assert two["bom.total_network"] - one["bom.total_network"] == pytest.approx((1136 * 500 - 1136 * 30) * 1.01)
    assert bool(big["fabric.runs_within_single_mode_reach"].reshape(-1)[0])
    end = load(site_file(tmp_path, "end", power={**hall, "racks_per_row": 100, "network_location": "end-of-row"}))
    e = {k: float(x.reshape(-1)[0]) for k, x in end.values.items() if k.startswith("fabric.")}
    # leaves at each row's end: 60 + 6 = 66 m; spines at the hall's end: 10 x 2.4 + 6 = 30 m
    assert (e["fabric.node_leaf_run"], e["fabric.leaf_spine_run"]) == pytest.approx((66, 30))
    assert (e["fabric.node_leaf_single_mode"], e["fabric.leaf_spine_single_mode"]) == (1, 0)
    far = load(site_file(tmp_path, "far", power={**hall, "racks_per_row": 1000})).values
    assert not bool(far["fabric.runs_within_single_mode_reach"].reshape(-1)[0])  # a 600 m row


# --------------------------------------------------------------------------- fat-tree limits


@pytest.mark.slow
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


@pytest.mark.slow
def test_rail_optimised_wiring_rounds_leaves_per_rail_and_flat_wiring_does_not(tmp_path: Path) -> None:
    """33 nodes of 8 GPUs on 64-port leaves: 33 endpoints per rail need 2 leaves on each of 8 rails (16), while
    filled in any order 264 endpoints need ROUNDUP(264 / 32) = 9. At 264 nodes both need a third tier."""
    gpus = np.array([8 * 264, 8 * 33], dtype=float)  # 2,112 and 264 endpoints
    rail = load(site_file(tmp_path, "rail")).book.evaluate({"power.gpus": gpus})
    flat = load(site_file(tmp_path, "flat", fabric={"wiring": "flat"})).book.evaluate({"power.gpus": gpus})
    assert column(rail, "fabric.leaves") == [72, 16] and column(rail, "fabric.tiers") == [3, 2]
    assert column(flat, "fabric.leaves") == [66, 9] and column(flat, "fabric.tiers") == [3, 2]
    # 16 leaves: 4 links per leaf-spine pair, 8 spines. 9 leaves: a spine gives each ROUNDDOWN(64 / 9) = 7 links,
    # so at least ROUNDUP(32 / 7) = 5 spines; 5, 6 and 7 spines ask 35, 36 and 35 uplinks of a leaf with 32, 8 spines
    # x 4 links fit: 8 spines (5 would give each leaf 7 links to four spines and 4 to the fifth)
    assert column(rail, "fabric.spines")[1] == 8 and column(flat, "fabric.spines")[1] == 8
    assert column(flat, "fabric.leaf_spine_pair_links")[1] == 4
    assert "fabric.leaves_per_rail" not in flat


@pytest.mark.slow
def test_oversubscription_moves_ports_up_to_down(tmp_path: Path) -> None:
    model = load(site_file(tmp_path, fabric={"leaf_oversubscription": 3, "spine_oversubscription": 1.5}))
    v = model.values
    assert column(v, "fabric.leaf_down_ports") == [48] and column(v, "fabric.leaf_up_ports") == [16]
    assert column(v, "fabric.spine_down_ports") == [38]  # ROUNDDOWN(64 x 1.5 / 2.5) = ROUNDDOWN(38.4)
    assert column(v, "fabric.max_two_tier_endpoints") == [64 * 48]
    assert column(v, "fabric.leaf_ratio_built") == [3.0]


# --------------------------------------------------------------------------- the example site


@pytest.mark.slow
def test_example_site_fabric_feeds_the_power_chain() -> None:
    model = example_model()
    v = {k: float(x.reshape(-1)[0]) for k, x in model.values.items()}
    assert (v["fabric.tiers"], v["fabric.leaves"], v["fabric.spines"], v["fabric.cores"]) == (2, 32, 16, 0)
    assert v["fabric.switches"] == 48  # the DGX SuperPOD H100 4-SU compute fabric: 32 leaves + 16 spines
    assert (v["fabric.node_transceivers"], v["fabric.switch_transceivers"]) == (512, 1536)
    assert v["fabric.cables"] == 2048
    assert v["power.network_power"] == pytest.approx(v["fabric.switches_power"])
    # the DGX's 10.2 kW maximum holds its transceivers: only the switch side is added
    assert v["power.optics_power"] == pytest.approx(v["fabric.switch_optics_power"])
    assert v["summary.share_network"] == pytest.approx(v["fabric.power"])
    # switches: 48 compute + 9 storage + 8 in-band = 65, in ROUNDUP(65 / 16) = 5 network racks
    assert v["fabric.switches_total"] == 65 and v["power.network_racks"] == 5
    # BMCs 128 + switch management 65 + rack PDUs 142 (32 x 4 + 7 x 2: 5 network racks, one storage rack for the
    # 5 kW of storage the Reliability sheet sizes, one management rack) + CDUs 0 + other endpoints 32
    assert v["fabric.oob_pdu_ports"] == v["power.pdus"] == 142
    assert v["fabric.oob_endpoints"] == 128 + 65 + 142 + 0 + 32
    assert bool(model.values["checks.all_pass"].reshape(-1)[0])


def test_out_of_band_leaves_uplink_to_an_aggregation_pair() -> None:
    """The example's 367 endpoints on 48-port leaves: ROUNDUP(367 / 48) = 8 leaves, each with 2 of its 4 uplink
    ports to a pair of the in-band switch model (SN4600C, 64 ports): 16 uplinks, 2 x ROUNDUP(16 / 128) = 2
    aggregation switches at 500 W = 1.0 kW, shown, not added to the power chain. 4-port leaves: 92 leaves, 184
    uplinks, 2 x ROUNDUP(184 / 128) = 4. Five uplinks on a leaf with four uplink ports fail the check."""
    book = example_model().book
    v = book.evaluate({"fabric.oob_switch_ports": np.array([48.0, 4.0, 48.0]),
                       "fabric.oob_uplinks_per_switch": np.array([2.0, 2.0, 5.0])})
    assert column(v, "fabric.oob_switches") == [8, 92, 8]
    assert column(v, "fabric.oob_uplinks") == [16, 184, 40]
    assert column(v, "fabric.oob_aggregation") == [2, 4, 2]
    assert column(v, "fabric.oob_aggregation_power") == pytest.approx([1.0, 2.0, 1.0])
    assert column(v, "fabric.oob_uplinks_fit") == [1, 1, 0]
    assert column(v, "bom.oob_uplink_cables_qty") == [16, 184, 40]
    assert column(v, "bom.oob_aggregation_switches_qty") == [2, 4, 2]


@pytest.mark.slow
def test_catalog_network_entries_have_sources_and_load_by_singular_kind(tmp_path: Path) -> None:
    catalog = load_catalog()
    for table in ("switches", "optics", "storage_switches", "oob_switches", "inband_switches"):
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
        "fabric.storage_ports_per_node": float(draw(st.integers(0, 8))),
        "fabric.inband_switch_radix": 2 * draw(st.integers(8, 128)),
        "fabric.inband_oversubscription": draw(st.one_of(st.just(3.0), st.floats(1, 16))),
        "fabric.inband_ports_per_node": float(draw(st.integers(0, 4))),
        "power.gpus": sorted(draw(st.lists(st.integers(1, 60_000), min_size=2, max_size=40))),
    }


@pytest.fixture(scope="module", params=["rail-optimised", "flat"])
def wired_example(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Model:
    return load(site_file(tmp_path_factory.mktemp("wiring"), fabric={"wiring": request.param}))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(f=fabrics())
def test_ports_suffice_and_more_gpus_never_need_fewer_switches(wired_example: Model, f: dict[str, Any]) -> None:
    v = wired_example.book.evaluate({k: np.asarray(x, dtype=float) for k, x in f.items()})
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
    # uplinks keep each leaf's ratio (the input's): at 1:1 the leaf-spine links carry every endpoint
    assert np.all(c["fabric.leaf_spine_links"][~one] * f["fabric.leaf_oversubscription"] >= e[~one] - 1e-9)
    # three tiers: a spine uplinks its populated ports down at the spine ratio (all of them at 1:1)
    assert np.all(c["fabric.spine_core_links"][three] * f["fabric.spine_oversubscription"]
                  >= c["fabric.leaf_spine_links"][three] - 1e-9)
    # every network, two tiers: every leaf the same links to every spine (its links are spines x links per
    # pair), within its ports up, and a spine's ports take every leaf's links
    for net, radix in (("", k), ("storage_", f["fabric.storage_switch_radix"]),
                       ("inband_", f["fabric.inband_switch_radix"])):
        t2 = c[f"fabric.{net}tiers"] == 2
        s2, pair = c[f"fabric.{net}spines"][t2], c[f"fabric.{net}leaf_spine_pair_links"][t2]
        for kind in ("full", "partial"):  # where there are such leaves
            has = c[f"fabric.{net}{kind}_leaves"][t2] > 0
            links = c[f"fabric.{net}{kind}_leaf_links"][t2][has]
            up = c[f"fabric.{net}{kind}_leaf_up_ports"][t2][has]
            assert np.all(links == s2[has] * np.ceil(up / s2[has])), (net, kind)
            assert np.all((links >= up) & (links <= c[f"fabric.{net}leaf_up_ports"][t2][has])), (net, kind)
        assert np.all(s2 * pair <= c[f"fabric.{net}leaf_up_ports"][t2]), net
        assert np.all(c[f"fabric.{net}leaves"][t2] * pair <= radix), net
        assert np.all(c[f"fabric.{net}two_tier_balanced"] == 1), net
    # more GPUs (sorted) never need fewer switches, transceivers, cables or power
    for key in ("fabric.leaves", "fabric.spines", "fabric.cores", "fabric.switches", "fabric.switches_total",
                "fabric.tiers", "fabric.storage_switches", "fabric.inband_switches",
                "fabric.transceivers_total", "fabric.cables_total", "fabric.power"):
        assert np.all(np.diff(c[key]) >= 0), key


@pytest.mark.long
@pytest.mark.slow
def test_random_sites_are_valid_and_cover_one_two_and_three_tiers() -> None:
    """60 random sites each build, and between them need one, two and three tiers (the draw is derandomized, so
    the same 60 every run)."""
    import tempfile

    seen_tiers: set[int] = set()

    @settings(max_examples=60, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(site=sites())
    def one_site(site: dict[str, Any]) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "site.yaml"
            path.write_text(yaml.safe_dump(site, sort_keys=False))
            model = load(path)
        seen_tiers.add(int(model.values["fabric.tiers"].reshape(-1)[0]))

    one_site()
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
    ("fabric", "inband_switch_radix", 8, "must be at least 16"),
    ("fabric", "inband_peer_links", 5, "must be at most 4"),
    ("fabric", "storage_system_ports", 48, "only used when reliability.storage_sizing is given"),
])
def test_bad_fabric_input_is_one_line_naming_key_and_value(
        tmp_path: Path, section: str, key: str, value: Any, words: str) -> None:
    site = site_file(tmp_path, "bad", **{section: {key: value}})
    out = tmp_path / "bad.xlsx"
    run = invoke("build", site, "-o", out)  # the command's refusal, in this process (its subject is not the process)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr
    assert f"{section}.{key} = {value!r}" in lines[0] and words in lines[0], lines[0]
    assert not out.exists() and not list(tmp_path.glob("*.xlsx*"))


def test_unknown_catalog_kind_lists_switch_kinds_in_the_singular(tmp_path: Path) -> None:
    site = site_file(tmp_path, "bad", catalog={"swich": "QM9700"})
    run = invoke("build", site, "-o", tmp_path / "x.xlsx")
    assert run.returncode == 2
    assert "did you mean switch?" in run.stderr and "storage_switch, oob_switch" in run.stderr
