"""The bill of materials: every quantity from its model line, priced, tied out, and the TCO's IT capex.

Hand calculations for the example site (1,024 H100 in 128 DGX H100, 4 per rack, a two-tier non-blocking NDR
fabric on 64-port QM9700, all multimode within 50 m): see each test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE
from tests.helpers import example_model, site_with
from workbook.api import Model, load

GB200 = EXAMPLE.parent / "gb200-nvl72-colo.yaml"


def v(model: Model, line_id: str) -> float:
    return float(model.values[line_id].reshape(-1)[0])


@pytest.fixture(scope="module")
def example() -> Model:
    return example_model()


@pytest.mark.slow
def test_quantities_are_the_model_lines(example: Model) -> None:
    """Nodes 1,024 / 8 = 128; 39 racks (5 network racks for 65 switches, one storage rack: the 5.0 kW of storage
    the Reliability sheet sizes, one management rack); 142 PDUs; power cords 128 x 6 PSUs (DGX H100) = 768; leaves
    32, spines 16; storage 7 leaves and 2 spines; in-band 6 leaves and 2 spines (Fabric); OOB switches 8; no CDUs,
    manifolds or hoses on an air-cooled site."""
    expected = {"nodes": 128, "gpus": 1024, "racks": 39, "pdus": 142, "power_cords": 768, "leaf_switches": 32,
                "spine_switches": 16, "core_switches": 0, "storage_leaf_switches": 7, "storage_spine_switches": 2,
                "inband_leaf_switches": 6, "inband_spine_switches": 2, "inband_core_switches": 0,
                "oob_switches": 8, "cdus": 0, "manifolds": 0, "hoses": 0}
    for key, n in expected.items():
        assert v(example, f"bom.{key}_qty") == n, key
    formula = example.book.lines["bom.nodes_qty"].formula
    assert [line.id for node in formula.walk() for line in node.lines()] == ["power.nodes"]


def test_transceivers_by_end_and_type(example: Model) -> None:
    """The issue's mixed line split by end and type: 512 host-side twin-port (128 hosts x ROUNDUP(8 rails / 2
    links)), 512 leaf-side on host links (1,024 links / 2 per cage), 1,024 leaf-spine (2 x 1,024 / 2), 280
    single-port at storage endpoints (128 x 2 + 2 appliances x 8 + 4 head nodes x 2), 140 storage leaf-side
    (280 / 2), 112 storage leaf-spine; in-band 272 at the nodes and servers (128 x 2 + 16), 276 leaf-side (one per
    port, site uplinks included), 192 leaf-spine (2 x 96): 3,320 in all, the Fabric's total, none single-mode."""
    mm = {"node": 512, "leaf_host": 512, "leaf_spine": 1024, "spine_core": 0, "storage_port": 280,
          "storage_leaf": 140, "storage_leaf_spine": 112, "storage_spine_core": 0, "inband_port": 272,
          "inband_leaf": 276, "inband_leaf_spine": 192, "inband_spine_core": 0}
    for key, n in mm.items():
        assert v(example, f"bom.{key}_optics_mm_qty") == n, key
        assert v(example, f"bom.{key}_optics_sm_qty") == 0, key
    assert sum(mm.values()) == 3320 == v(example, "fabric.transceivers_total")
    for check in ("bom.transceivers_tie_out", "bom.single_mode_tie_out", "bom.cables_tie_out",
                  "bom.inband_switches_tie_out"):
        assert v(example, check) == 1


def test_cables_by_type_and_length_class(example: Model) -> None:
    """Length classes (network racks in the middle of the hall): the slack is 6 m, the hall 9.6 m deep and its rows
    7.2 m long, so a host-leaf run is 6 + 4.8 + 3.6 = 14.4 m at most (Fabric), spread along half a row and across
    half the rows; a leaf-spine run along the network row, 6 + 7.2 = 13.2 m at most.
    Host-leaf class 1: 6 + 8.4 / 3 = 8.8 -> a 10 m class; u = 10 - 6 = 4, a = 4.8, b = 3.6: share
    (4^2 - 0 - 0.4^2 + 0) / (2 x 4.8 x 3.6) = 15.84 / 34.56 = 0.458333; ROUNDUP(1,024 x 0.458333 = 469.3) = 470;
    class 2: 6 + 5.6 = 11.6 -> 15 m, u = 9 > a + b: every run (81 - 4.2^2 - 5.4^2 + 0.6^2 = 34.56): the other 554;
    class 3: 14.4 -> 15 m, the same length: empty. Leaf-spine class 1: 6 + 2.4 -> 10 m, share 4 / 7.2 = 0.5556,
    ROUNDUP(568.9) = 569, class 2 (15 m) the other 455. Storage 280 endpoint links: ROUNDUP(128.3) = 129 + 151;
    112 leaf-spine: ROUNDUP(62.2) = 63 + 49; in-band 276: ROUNDUP(126.5) = 127 + 149; 96: ROUNDUP(53.3) = 54 + 42;
    6 peer-link copper cables, 367 copper out-of-band cables (one per OOB endpoint: 128 BMCs, 65 switches, 142
    PDUs, 32 others). Every tier's classes add up to its links: 2,818 cables, the Fabric's count."""
    assert v(example, "fabric.node_leaf_run") == pytest.approx(14.4)
    assert v(example, "bom.node_leaf_class_1_share") == pytest.approx(15.84 / 34.56, rel=1e-12)
    classes = {"node_leaf": (470, 554), "leaf_spine": (569, 455), "storage_endpoint": (129, 151),
               "storage_leaf_spine": (63, 49), "inband_endpoint": (127, 149), "inband_leaf_spine": (54, 42)}
    for tier, (short, medium) in classes.items():
        assert v(example, f"bom.{tier}_cables_mm_1_length") == 10, tier
        assert v(example, f"bom.{tier}_cables_mm_2_length") == 15, tier
        assert v(example, f"bom.{tier}_cables_mm_3_length") == 15, tier
        got = [v(example, f"bom.{tier}_cables_mm_{k}_qty") for k in (1, 2, 3)]
        assert got == [short, medium, 0], tier
        assert sum(v(example, f"bom.{tier}_cables_sm_{k}_qty") for k in (1, 2, 3)) == 0, tier
    assert v(example, "bom.inband_peer_cables_dac_qty") == 6
    assert sum(map(sum, classes.values())) + 6 == 2818 == v(example, "fabric.cables_total")
    assert v(example, "bom.cables_tie_out") == 1
    assert v(example, "bom.oob_cables_qty") == v(example, "fabric.oob_endpoints") == 367


def test_capex_is_the_bom_total(example: Model) -> None:
    """By hand: nodes 128 x 270,000 = 34,560,000 and 4 management nodes x 25,000; switches (32 + 16 + 7 + 2) x
    30,000 = 1,710,000 and in-band 8 x 30,000 = 240,000; OOB 8 x 8,000 = 64,000; fabric managers 2 x 25,000 =
    50,000; transceivers 512 x 1,000 (host side) + (512 + 1,024 + 140 + 112) x 1,000 + 280 x 700 = 2,496,000 and
    in-band 740 x 150 = 111,000; fibre (2,048 + 392 + 372) x 150 = 421,800 (every length class at the one price);
    peer-link copper 6 x 100 = 600; out-of-band copper 367 x 8 = 2,936; the out-of-band aggregation pair 2 x
    30,000 = 60,000 (the in-band switch model) and its uplinks 8 x 2 = 16 x 150 = 2,400; power cords 128 x 6 x 25
    = 19,200 and (65 + 8 + 2 + 2 + 4) x 2 x 25 = 4,050 for switches and appliances; the colocation supplies the 39
    cabinets and 142 PDUs (counted, not bought). Storage, sized on the Reliability sheet: 2 all-flash appliances x
    350,000 + ROUNDUP(22.4) = 23 TB of capacity tier x 100 = 702,300.
    Spares (Reliability sheet): 10 nodes x 270,000 + 2 NICs x 1,500 + 3 transceivers x 1,000 + 2 cables x 150 + 3
    fans x 300 + a switch 30,000 (no PSU: a 4+2 set waits for its part) = 2,737,200.
    Fabric manager licences: 128 hosts x 500 = 64,000 (not equipment: not shipped or supported).
    Each group's shipping: 1% of its equipment (one lot). Services: 39 racks x 2,500 = 97,500 installation and
    (2,818 fabric + 367 out-of-band + 16 uplinks) = 3,201 cables x 20 = 64,020 cabling."""
    network = 1_710_000 + 240_000 + 64_000 + 50_000 + 2_496_000 + 111_000 + 421_800 + 600 + 2_936 + 60_000 + 2_400
    equipment = {"compute": 34_560_000 + 100_000, "network": network, "power": 19_200 + 4_050,
                 "storage": 2 * 350_000 + 23 * 100,
                 "spares": 10 * 270_000 + 2 * 1_500 + 3 * 1_000 + 2 * 150 + 3 * 300 + 30_000}
    licences = 128 * 500
    for group, cost in equipment.items():
        assert v(example, f"bom.equipment_{group}") == pytest.approx(cost, rel=1e-12), group
        assert v(example, f"bom.shipping_{group}_cost") == pytest.approx(0.01 * cost, rel=1e-12), group
        extra = licences if group == "network" else 0
        assert v(example, f"bom.total_{group}") == pytest.approx(1.01 * cost + extra, rel=1e-12), group
    assert v(example, "bom.fabric_manager_licences_cost") == licences
    services = 39 * 2_500 + 3_201 * 20
    assert v(example, "bom.total_services") == services == 161_520
    total = 1.01 * sum(equipment.values()) + licences + services
    assert v(example, "bom.total") == pytest.approx(total, rel=1e-12)
    assert v(example, "tco.it_capex") == v(example, "bom.total")
    assert v(example, "bom.variance_total") == 0  # no quotes: every price is the budget's
    assert "bom.racks_cost" not in example.values and v(example, "bom.racks_qty") == 39


def test_support_is_the_groups_support_lines_counted_once(example: Model) -> None:
    """Each hardware group's support and warranty line, priced per year of cover: budget 8% a year x the group's
    equipment (compute 34,660,000 -> 2,772,800), for ROUNDUP(60 months / 12) = 5 years. The TCO's hardware support
    is their yearly prices added, 8% x 43,281,486 = 3,462,518.88 a year = 288,543.24 a month, and the support
    lines are not in the capex (the total is the groups' equipment, shipping, licences and services)."""
    equipment = 34_660_000 + 5_158_736 + 23_250 + 702_300 + 2_737_200
    assert equipment == 43_281_486
    assert v(example, "bom.support_compute_unit_price") == pytest.approx(0.08 * 34_660_000, rel=1e-12)
    assert v(example, "bom.support_compute_qty") == 5
    assert v(example, "bom.support_cooling_qty") == 0  # nothing to support on an air-cooled site
    assert v(example, "bom.support_per_year") == pytest.approx(0.08 * equipment, rel=1e-12)
    assert v(example, "tco.support_cost") == pytest.approx(0.08 * equipment / 12, rel=1e-12)
    assert v(example, "bom.total") == pytest.approx(1.01 * equipment + 64_000 + 161_520, rel=1e-12)


@pytest.mark.slow
def test_bought_cabinets_are_priced(tmp_path: Path) -> None:
    """Bought instead: 39 x 2,500 + 142 x 3,000 = 523,500 more equipment, and 1% of it shipping: 528,735 more
    capex."""
    data = site_with()  # the example without its risk: section (no figure here reads one)
    data["bom"]["cabinets"] = "buy"
    site = tmp_path / "buy.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    bought = load(site)
    assert v(bought, "bom.racks_cost") + v(bought, "bom.pdus_cost") == 39 * 2500 + 142 * 3000
    assert v(bought, "bom.total") - v(example_model(), "bom.total") == pytest.approx(523_500 * 1.01, rel=1e-12)


@pytest.mark.slow
def test_lead_times_set_the_service_start(tmp_path: Path) -> None:
    """Budget lead times per group: the longest (network, 20 weeks; cooling's 40 weeks do not count on an
    air-cooled site: it has no CDUs, manifolds or hoses to wait for) plus 3 weeks of installation = 23 weeks =
    23 / (730 / 168) = 5.29 months -> service after 6 whole months, longer than the site's 4 months."""
    data = site_with()  # the example without its risk: section (no figure here reads one)
    data["bom"].update({"compute_lead_time": "12 weeks", "network_lead_time": "20 weeks",
                        "power_lead_time": "6 weeks", "cooling_lead_time": "40 weeks", "install_time": "3 weeks"})
    data["tco"]["lead_time"] = "4 months"
    site = tmp_path / "lead.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    m = load(site)
    assert v(m, "bom.equipment_lead") == 23
    assert v(m, "bom.equipment_lead_months") == 6
    assert v(m, "tco.service_lead") == 6
    delivery = m.values["tco.delivery_flag"].reshape(-1)
    assert list(delivery).index(1) == 6  # the capex balance is paid at month 6


@pytest.mark.slow
def test_liquid_cooled_racks_have_manifolds_and_hoses() -> None:
    """The GB200 NVL72 site: every compute rack is liquid-cooled, so a manifold and 2 hoses each; CDUs from the
    Cooling sheet, priced at the catalog CDU class's price."""
    m = load(GB200)
    racks = v(m, "power.racks")
    assert racks > 0
    assert v(m, "bom.manifolds_qty") == racks
    assert v(m, "bom.hoses_qty") == 2 * racks
    assert v(m, "bom.cdus_qty") == v(m, "cooling.cdus_installed") > 0
    assert v(m, "bom.cdus_cost") == v(m, "bom.cdus_qty") * v(m, "bom.cdu_price")


@pytest.mark.slow
def test_in_band_rows_split_by_reach_and_tie_out(tmp_path: Path) -> None:
    """With a 10 m in-band optic the example's in-band runs (host-leaf 14.4 m, leaf-spine 7.2 + 6 = 13.2 m) go
    single-mode: its 272 endpoint, 276 leaf and 192 leaf-spine transceivers move to the single-mode rows at 400
    instead of 150 USD, and their 276 + 96 fibres (every length class) to single-mode cable at 120 instead of 150
    USD; the compute and
    storage rows stay multimode (50 m). The tie-outs hold: 740 single-mode transceivers, the Fabric's count."""
    data = site_with()  # the example without its risk: section (no figure here reads one)
    data["fabric"]["inband_optic_reach"] = "10 m"
    site = tmp_path / "short.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    m = load(site)
    for key, n in (("inband_port", 272), ("inband_leaf", 276), ("inband_leaf_spine", 192)):
        assert (v(m, f"bom.{key}_optics_sm_qty"), v(m, f"bom.{key}_optics_mm_qty")) == (n, 0), key
    assert v(m, "bom.leaf_spine_optics_sm_qty") == 0 and v(m, "bom.storage_port_optics_sm_qty") == 0
    for tier, n in (("inband_endpoint", 276), ("inband_leaf_spine", 96)):
        assert sum(v(m, f"bom.{tier}_cables_sm_{k}_qty") for k in (1, 2, 3)) == n, tier
        assert sum(v(m, f"bom.{tier}_cables_mm_{k}_qty") for k in (1, 2, 3)) == 0, tier
    assert v(m, "fabric.single_mode_transceivers_total") == 740
    for check in ("bom.transceivers_tie_out", "bom.single_mode_tie_out", "bom.cables_tie_out"):
        assert v(m, check) == 1
    base = example_model()
    assert v(m, "bom.total_network") - v(base, "bom.total_network") == pytest.approx(
        (740 * (400 - 150) + (276 + 96) * (120 - 150)) * 1.01, rel=1e-12)  # and 1% shipping on the difference
    # power: the single-mode modules at 4.5 W instead of 3.5 W, in the racks and (the node ports) in the nodes
    assert v(m, "fabric.inband_switch_optics_power") - v(base, "fabric.inband_switch_optics_power") == \
        pytest.approx((276 + 192) * 1.0 / 1000)
    assert v(m, "fabric.inband_node_optics_power") == pytest.approx(256 * 4.5 / 1000)


@pytest.mark.slow
def test_end_of_row_length_classes(tmp_path: Path) -> None:
    """Network racks at each row's end: host-leaf runs go along a row, 6 + 7.2 = 13.2 m at most, spread evenly:
    class 1 6 + 7.2 / 3 = 8.4 -> 10 m, share (10 - 6) / 7.2 = 0.5556, ROUNDUP(1,024 x 0.5556 = 568.9) = 569;
    class 2 10.8 -> 15 m holds the other 455, class 3 (13.2 -> 15 m) none. Leaf-spine runs go across the rows to
    the spines at the hall's end, 6 + 9.6 = 15.6 m: class 1 6 + 3.2 = 9.2 -> 10 m, share 4 / 9.6,
    ROUNDUP(426.7) = 427; class 2 6 + 6.4 = 12.4 -> 15 m, share 9 / 9.6 = 0.9375, 960 - 427 = 533; class 3
    15.6 -> 20 m: the other 64. The cables still tie out with the Fabric's count."""
    data = site_with()  # the example without its risk: section (no figure here reads one)
    data["power"]["network_location"] = "end-of-row"
    site = tmp_path / "end.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    m = load(site)
    assert (v(m, "fabric.node_leaf_run"), v(m, "fabric.leaf_spine_run")) == pytest.approx((13.2, 15.6))
    for tier, lengths, counts in (("node_leaf", (10, 15, 15), (569, 455, 0)),
                                  ("leaf_spine", (10, 15, 20), (427, 533, 64))):
        assert tuple(v(m, f"bom.{tier}_cables_mm_{k}_length") for k in (1, 2, 3)) == lengths, tier
        assert tuple(v(m, f"bom.{tier}_cables_mm_{k}_qty") for k in (1, 2, 3)) == counts, tier
    assert v(m, "bom.leaf_spine_class_2_share") == pytest.approx(0.9375, rel=1e-12)
    assert v(m, "bom.cables_tie_out") == 1


@pytest.mark.slow
def test_a_single_mode_catalog_optic_makes_the_compute_rows_single_mode(tmp_path: Path) -> None:
    """The example with the single-mode MMS4X00-NS as its switch-side optic (500 m reach, so no run exceeds it):
    the compute fabric's 512 host-side, 512 leaf host-link and 1,024 leaf-spine transceivers were multimode rows at
    1,000 USD (2,048,000); a single-mode switch end makes the link single-mode at both ends, so they are single-mode
    rows at 1,500 USD: 3,072,000, 1,024,000 more, and the 1,024 host-leaf and 1,024 leaf-spine fibres single-mode
    cable. The storage and in-band networks, with their own optics, stay multimode; the tie-outs hold (2,048
    single-mode transceivers, the Fabric's count); the host side draws 17 W a module (512 x 2 W more)."""
    data = site_with()  # the example without its risk: section (no figure here reads one)
    data["catalog"]["optic"] = "MMS4X00-NS"
    site = tmp_path / "single.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    m = load(site)
    assert v(m, "fabric.optic_single_mode") == 1 and v(m, "fabric.node_leaf_single_mode") == 0  # not by the runs
    for tier in ("node_leaf", "leaf_spine", "spine_core"):
        assert v(m, f"fabric.compute_{tier}_single_mode") == 1, tier
    cost = 0.0
    for key, n in (("node", 512), ("leaf_host", 512), ("leaf_spine", 1024)):
        assert (v(m, f"bom.{key}_optics_sm_qty"), v(m, f"bom.{key}_optics_mm_qty")) == (n, 0), key
        cost += v(m, f"bom.{key}_optics_sm_cost")
    assert cost == 2048 * 1500 and cost - 2048 * 1000 == 1_024_000
    for tier in ("node_leaf", "leaf_spine"):
        assert sum(v(m, f"bom.{tier}_cables_sm_{k}_qty") for k in (1, 2, 3)) == 1024, tier
        assert sum(v(m, f"bom.{tier}_cables_mm_{k}_qty") for k in (1, 2, 3)) == 0, tier
    for key in ("storage_port", "storage_leaf", "inband_port"):
        assert v(m, f"bom.{key}_optics_sm_qty") == 0, key
    assert v(m, "fabric.single_mode_transceivers_total") == 2048
    assert v(m, "fabric.compute_node_optics_power") == pytest.approx(512 * 17 / 1000, rel=1e-12)
    for check in ("bom.transceivers_tie_out", "bom.single_mode_tie_out", "bom.cables_tie_out", "checks.all_pass"):
        assert v(m, check) == 1
