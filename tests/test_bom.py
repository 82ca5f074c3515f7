"""The bill of materials: every quantity from its model line, priced, tied out, and the TCO's IT capex.

Hand calculations for the example site (1,024 H100 in 128 DGX H100, 4 per rack, a two-tier non-blocking NDR
fabric on 64-port QM9700, all multimode within 50 m): see each test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE
from workbook.api import Model, load

GB200 = EXAMPLE.parent / "gb200-nvl72-colo.yaml"


def v(model: Model, line_id: str) -> float:
    return float(model.values[line_id].reshape(-1)[0])


@pytest.fixture(scope="module")
def example() -> Model:
    return load(EXAMPLE)


def test_quantities_are_the_model_lines(example: Model) -> None:
    """Nodes 1,024 / 8 = 128; 38 racks (one storage rack: the 5.0 kW of storage the Reliability sheet sizes); 140
    PDUs; power cords 128 x 6 PSUs (DGX H100) = 768; leaves 32, spines 16 (Fabric); OOB switches 8; no CDUs,
    manifolds or hoses on an air-cooled site."""
    expected = {"nodes": 128, "gpus": 1024, "racks": 38, "pdus": 140, "power_cords": 768, "leaf_switches": 32,
                "spine_switches": 16, "core_switches": 0, "storage_leaf_switches": 10, "storage_spine_switches": 6,
                "oob_switches": 8, "cdus": 0, "manifolds": 0, "hoses": 0}
    for key, n in expected.items():
        assert v(example, f"bom.{key}_qty") == n, key
    formula = example.book.lines["bom.nodes_qty"].formula
    assert [line.id for node in formula.walk() for line in node.lines()] == ["power.nodes"]


def test_transceivers_by_end_and_type(example: Model) -> None:
    """The issue's mixed line split by end and type: 512 host-side twin-port (128 hosts x ROUNDUP(8 rails / 2
    links)), 512 leaf-side on host links (1,024 links / 2 per cage), 1,024 leaf-spine (2 x 1,024 / 2), 304
    single-port at storage endpoints (128 x 2 + 48), 152 storage leaf-side (304 / 2), 306 storage leaf-spine:
    2,810 in all, the Fabric's total, none single-mode."""
    mm = {"node": 512, "leaf_host": 512, "leaf_spine": 1024, "spine_core": 0, "storage_port": 304,
          "storage_leaf": 152, "storage_leaf_spine": 306, "storage_spine_core": 0}
    for key, n in mm.items():
        assert v(example, f"bom.{key}_optics_mm_qty") == n, key
        assert v(example, f"bom.{key}_optics_sm_qty") == 0, key
    assert sum(mm.values()) == 2810 == v(example, "fabric.transceivers_total")
    for check in ("bom.transceivers_tie_out", "bom.single_mode_tie_out", "bom.cables_tie_out"):
        assert v(example, check) == 1


def test_cables_by_type_and_length_class(example: Model) -> None:
    """Host-leaf runs are 14.4 m (Fabric), rounded up to the 5 m step: a 15 m class; 1,024 host-leaf and 1,024
    leaf-spine fibres, 304 + 306 storage, 364 copper out-of-band cables (one per OOB endpoint)."""
    assert v(example, "fabric.node_leaf_run") == pytest.approx(14.4)
    assert v(example, "bom.node_leaf_cables_mm_length") == 15
    assert v(example, "bom.node_leaf_cables_mm_qty") == 1024
    assert v(example, "bom.leaf_spine_cables_mm_qty") == 1024
    assert v(example, "bom.storage_endpoint_cables_mm_qty") + v(example, "bom.storage_leaf_spine_cables_mm_qty") \
        == 304 + 306
    assert v(example, "bom.oob_cables_qty") == v(example, "fabric.oob_endpoints") == 364


def test_capex_is_the_bom_total(example: Model) -> None:
    """By hand: nodes 128 x 270,000 = 34,560,000 and 4 management nodes x 25,000; switches (32 + 16 + 10 + 6) x
    30,000 = 1,920,000; OOB 8 x 8,000 = 64,000; fabric managers 2 x 25,000 = 50,000; transceivers 512 x 1,000
    (host side) + (512 + 1,024 + 152 + 306) x 1,000 + 304 x 700 = 2,718,800; fibre 2,658 x 150 = 398,700; copper
    364 x 8 = 2,912; power cords 128 x 6 x 25 = 19,200 and (64 + 8 + 2 + 4) x 2 x 25 = 3,900 for switches and
    appliances; the colocation supplies the 38 cabinets and 140 PDUs (counted, not bought). Storage, sized on the
    Reliability sheet: 2 all-flash appliances x 350,000 + ROUNDUP(22.4) = 23 TB of capacity tier x 100 = 702,300.
    Spares (Reliability sheet): 15 nodes x 270,000 + 2 NICs x 1,500 + 3 transceivers x 1,000 + 2 cables x 150 + a
    switch 30,000 (no PSU or fan: a redundant set waits for its part) = 4,086,300."""
    network = 1_920_000 + 64_000 + 50_000 + 2_718_800 + 398_700 + 2_912
    power = 19_200 + 3_900
    storage = 2 * 350_000 + 23 * 100
    spares = 15 * 270_000 + 2 * 1_500 + 3 * 1_000 + 2 * 150 + 30_000
    assert v(example, "bom.total_storage") == pytest.approx(storage, rel=1e-12)
    assert v(example, "bom.total_spares") == pytest.approx(spares, rel=1e-12)
    total = 34_560_000 + 100_000 + network + power + storage + spares
    assert v(example, "bom.total_network") == pytest.approx(network, rel=1e-12)
    assert v(example, "bom.total_power") == pytest.approx(power, rel=1e-12)
    assert v(example, "bom.total") == pytest.approx(total, rel=1e-12)
    assert v(example, "tco.it_capex") == v(example, "bom.total")
    assert v(example, "bom.variance_total") == 0  # no quotes: every price is the budget's
    assert "bom.racks_cost" not in example.values and v(example, "bom.racks_qty") == 38


def test_bought_cabinets_are_priced(tmp_path: Path) -> None:
    """Bought instead: 38 x 2,500 + 140 x 3,000 = 515,000 more capex."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["bom"]["cabinets"] = "buy"
    site = tmp_path / "buy.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    bought = load(site)
    assert v(bought, "bom.racks_cost") + v(bought, "bom.pdus_cost") == 38 * 2500 + 140 * 3000
    assert v(bought, "bom.total") - v(load(EXAMPLE), "bom.total") == pytest.approx(515_000, rel=1e-12)


def test_lead_times_set_the_service_start(tmp_path: Path) -> None:
    """Budget lead times per group: the longest (network, 20 weeks; cooling's 40 weeks do not count on an
    air-cooled site: it has no CDUs, manifolds or hoses to wait for) plus 3 weeks of installation = 23 weeks =
    23 / (730 / 168) = 5.29 months -> service after 6 whole months, longer than the site's 4 months."""
    data = yaml.safe_load(EXAMPLE.read_text())
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
