"""The generation upgrade: the example hall (inputs/example-b200-upgrade.yaml) moving from 32 racks of DGX H100 to
16 racks of liquid-cooled B200, worked by hand; an infeasible plan; random plans against LibreOffice; bad input."""

from __future__ import annotations

import copy
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from tests.conftest import ROOT
from tests.parity import Built, check
from workbook.api import Model, build, load
from workbook.inputs import InputError

UPGRADE = ROOT / "inputs" / "example-b200-upgrade.yaml"
FLEETS = ROOT / "inputs" / "fleets"


def row(model: Model, line_id: str) -> np.ndarray:
    return np.asarray(model.values[line_id]).reshape(-1)


def one(model: Model, line_id: str) -> float:
    return float(row(model, line_id)[0])


@pytest.fixture(scope="module")
def upgrade() -> Model:
    return load(UPGRADE)


def variant(tmp_path: Path, change: Any, name: str = "variant") -> Path:
    """The upgrade site with its generation section changed, beside a copy of the next fleet's file."""
    site = yaml.safe_load(UPGRADE.read_text())
    change(site["generation"])
    shutil.copytree(FLEETS, tmp_path / "fleets", dirs_exist_ok=True)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(site, sort_keys=False))
    return path


def test_each_fleets_rack_comes_from_its_own_model_instance(upgrade: Model) -> None:
    """DGX H100: 4 nodes x 10.2 kW = 40.8 kW a rack, all to air, 4 x 8 GPUs x 1.0 = 32 H100-eq. B200 (the `next`
    instance of the same models): 4 x 14.3 kW = 57.2 kW, of which 34.8 kW to the cold plates, 4 x 8 x 2.2 = 70.4."""
    assert one(upgrade, "generation.current_rack_power") == pytest.approx(40.8)
    assert one(upgrade, "generation.current_rack_liquid") == 0
    assert one(upgrade, "generation.current_rack_compute") == pytest.approx(32.0)
    assert one(upgrade, "generation.next_rack_power") == pytest.approx(one(upgrade, "next.power.rack_peak_power"))
    assert one(upgrade, "generation.next_rack_power") == pytest.approx(57.2)
    assert one(upgrade, "generation.next_rack_compute") == pytest.approx(4 * 8 * 2.2)
    assert one(upgrade, "generation.next_racks") == 16 and one(upgrade, "generation.current_racks") == 32


def test_build_ahead_by_hand(upgrade: Model) -> None:
    """Zone b holds 16 H100 racks in 24 positions; zone a 16 and the current fleet's 8 network, storage and
    management racks (5 network racks for its 67 compute, storage and in-band switches). Month 6 the liquid
    retrofit adds a row of 12 positions, 600 kW (to 1,400) and 900 kW of liquid cooling. Month 7: 8 B200 racks and
    the next fleet's 8 support racks into zone b: 16 + 8 + 8 = 32 of 36 positions; power 16 x 40.8 + 8 x 57.2 +
    8 x 15.357 (the larger support rack: the next fleet's (47.853 + 60 + 15) / 8; the current fleet's
    (47.579 + 28.9 + 30 + 8) / 8 = 14.310) = 1,233.25 kW <= 1,400; heat to liquid 8 x 34.8 = 278.4, to air the
    rest, 954.85 <= 1,000. Compute 1,024 + 8 x 70.4 = 1,587.2. Month 9 the 16 H100 racks leave: 8 x 70.4 + 16 x
    32 (zone a) = 1,075.2, still above the start's 1,024: no trough. Month 10 the other 8 arrive: 16 x 70.4 + 512
    = 1,638.4."""
    compute = row(upgrade, "build_ahead.generation.compute")
    assert compute[[0, 6, 7, 9, 10]] == pytest.approx([1024, 1024, 1587.2, 1075.2, 1638.4])
    support = (47.579 + 28.9 + 30 + 8) / 8
    assert one(upgrade, "generation.current_support_power") == pytest.approx(support, abs=0.01)
    larger = one(upgrade, "generation.next_support_power")
    assert larger == pytest.approx((47.853 + 60 + 15) / 8, abs=0.01) and larger > support
    assert row(upgrade, "build_ahead.generation.zone_b_power_used")[7] == pytest.approx(
        16 * 40.8 + 8 * 57.2 + 8 * larger)
    assert row(upgrade, "build_ahead.generation.zone_b_air_used")[7] == pytest.approx(1233.253 - 278.4, abs=0.01)
    # positions free: zone a none (16 + 8 of 24); zone b 8, then 20 with the new row, 4, 20, 12
    assert row(upgrade, "build_ahead.generation.free_positions")[[0, 6, 7, 9, 10]] == pytest.approx(
        [8, 20, 4, 20, 12])
    assert one(upgrade, "build_ahead.generation.trough_depth") == 0
    assert one(upgrade, "build_ahead.generation.infeasible_months") == 0
    assert one(upgrade, "checks.all_pass") == 1


def test_decommission_first_by_hand(upgrade: Model) -> None:
    """Zone b is emptied in month 3 and the B200 racks arrive in month 7: months 3 to 6 deliver only zone a's
    16 x 32 = 512, a trough 512 deep and 4 months long."""
    compute = row(upgrade, "decom_first.generation.compute")
    assert compute[[2, 3, 6, 7]] == pytest.approx([1024, 512, 512, 1638.4])
    assert one(upgrade, "decom_first.generation.trough_depth") == 512
    assert one(upgrade, "decom_first.generation.trough_months") == 4


def test_the_costs_by_hand(upgrade: Model) -> None:
    """The build-ahead plan pays 16 racks x 2.2 MUSD, the 3.5 MUSD retrofit in month 6, and gets 16 x 240,000 for
    the H100 racks in month 9; every month the hall's power x 1.3 (annual PUE) x 0.08 USD/kWh x 730 h."""
    cost = row(upgrade, "build_ahead.generation.cost_flow")
    power = row(upgrade, "build_ahead.generation.power_used")
    energy = power * 1.3 * 0.08 * 730
    assert cost[0] == 0  # the Start column (time 0) has no month of service, as in the TCO
    assert cost[6] == pytest.approx(3_500_000 + energy[6])
    assert cost[7] == pytest.approx(8 * 2_200_000 + energy[7])
    assert cost[9] == pytest.approx(energy[9] - 16 * 240_000)
    assert one(upgrade, "build_ahead.generation.cost") == pytest.approx(cost.sum())
    months = row(upgrade, "build_ahead.generation.compute")[1:].sum()
    assert one(upgrade, "build_ahead.generation.compute_months") == pytest.approx(months)
    assert one(upgrade, "build_ahead.generation.cost_per_compute") == pytest.approx(cost.sum() / months)


def test_moving_keeps_the_hall_and_pays_the_second_site(upgrade: Model) -> None:
    """The hall keeps its 1,024; from month 14 (its lead time, counted as a delivery's month) the 16 B200 racks add
    1,126.4 at the second site, whose capex is 11 MUSD/MW of the next fleet's critical IT (1.143 MW)."""
    compute = row(upgrade, "generation.move_compute")
    assert compute[[13, 14]] == pytest.approx([1024, 1024 + 16 * 70.4])
    it_mw = one(upgrade, "next.power.critical_it_capacity") / 1000
    assert one(upgrade, "generation.move_capex") == pytest.approx(11e6 * it_mw)
    assert one(upgrade, "generation.move_trough_depth") == 0


def test_an_infeasible_plan_fails_in_its_months_and_on_the_master_check(tmp_path: Path, libreoffice: str) -> None:
    """The first 8 B200 racks go to zone a in month 7, which has no liquid cooling and 41 kW positions for a
    57.2 kW rack: zone a fails from month 7 on (never a silent negative), the plan's check and the master fail."""
    def to_zone_a(gen: dict[str, Any]) -> None:
        gen["plans"]["build_ahead"]["deliveries"][0]["zone"] = "a"

    path = variant(tmp_path, to_zone_a, "infeasible")
    model, layout = build(path, tmp_path / "infeasible.xlsx")
    fits = row(model, "build_ahead.generation.zone_a_fits")
    assert list(fits[:7]) == [True] * 7 and not fits[7:].any()
    assert one(model, "build_ahead.generation.infeasible_months") == len(fits) - 7
    assert one(model, "build_ahead.generation.fits") == 0 and one(model, "checks.all_pass") == 0
    assert one(model, "decom_first.generation.fits") == 1
    outcome = check([Built(path, tmp_path / "infeasible.xlsx", model, layout)], tmp_path)
    assert outcome.problems == []


def test_a_stop_empties_the_zone_in_the_months_before_its_project_is_done(tmp_path: Path) -> None:
    """The retrofit (done month 6) stops zone b for 2 months: months 4 and 5 deliver nothing there and draw no
    power; the added capacity counts from month 6, when the zone runs again."""
    def stop(gen: dict[str, Any]) -> None:
        gen["projects"][0]["stop_months"] = 2

    model = load(variant(tmp_path, stop))
    stopped = row(model, "build_ahead.generation.zone_b_stopped")
    assert list(np.flatnonzero(stopped)) == [4, 5]
    assert row(model, "build_ahead.generation.zone_b_power_used")[[3, 4, 5, 6]] == pytest.approx(
        [652.8, 0, 0, 652.8])
    assert one(model, "build_ahead.generation.trough_depth") == 512
    assert one(model, "build_ahead.generation.trough_months") == 2


def test_a_month_after_the_timeline_fails_a_check(tmp_path: Path) -> None:
    """A decommissioning in month 120 of a 96-month timeline would never happen: the plan's check says so."""
    def late(gen: dict[str, Any]) -> None:
        gen["plans"]["decom_first"]["decommissions"][0]["month"] = 120

    model = load(variant(tmp_path, late))
    assert one(model, "decom_first.generation.within_timeline") == 0
    assert one(model, "checks.all_pass") == 0


def test_the_envelope_counts_the_next_fleets_fixed_facility_load(upgrade: Model) -> None:
    """B200 nodes at 1 MW: the itemised facility adds lighting and offices (50 kW / 0.95 x 1.1 = 57.9 kW) as a fixed
    load, not a share of each node. 40 nodes would need (40 x 16.93 + 60 + 15) ... by the chain's own formula
    (677.35 x 1.22 + 50) / 0.95 x 1.1 = 1,014.7 kW > 1,000: 39 fit."""
    assert one(upgrade, "envelope.next_nodes") == 39
    assert one(upgrade, "envelope.nodes") == 56  # the H100 fleet's, as in the example


def random_plan(rng: random.Random) -> dict[str, Any]:
    """Deliveries of the 16 B200 racks and decommissionings of zone b's 16 H100 racks, in random batches."""
    def batches(total: int) -> list[dict[str, Any]]:
        out, left = [], total
        while left:
            racks = rng.randint(1, left)
            out.append({"zone": "b", "month": rng.randint(1, 60), "racks": racks})
            left -= racks
        return out

    return {"deliveries": batches(16), "decommissions": batches(rng.randint(0, 16))}


def test_random_plans_match_libreoffice(tmp_path: Path, libreoffice: str) -> None:
    """Six random plans, each a site; every formula cell and every line equal to LibreOffice's recalculation.
    On failure the sites are left in outputs/fuzz-failures/ with the seed in their name."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    built = []
    for k in range(6):
        plans = {"build_ahead": random_plan(rng), "decom_first": random_plan(rng)}
        path = variant(tmp_path, lambda gen, p=plans: gen.__setitem__("plans", copy.deepcopy(p)), f"plan_{seed}_{k}")
        model, layout = build(path, tmp_path / f"{path.stem}.xlsx")
        built.append(Built(path, tmp_path / f"{path.stem}.xlsx", model, layout))
    outcome = check(built, tmp_path)
    if outcome.problems:
        keep = ROOT / "outputs" / "fuzz-failures"
        keep.mkdir(parents=True, exist_ok=True)
        for b in built:
            shutil.copy(b.site_file, keep / b.site_file.name)
    assert outcome.problems == [], f"seed {seed}: {outcome.problems[:5]}"
    assert outcome.workbooks == 6


@pytest.mark.parametrize(("change", "key"), [
    (lambda g: g.__setitem__("next_fleet", "../example.yaml"), "generation.next_fleet"),
    (lambda g: g.__setitem__("next_fleet", "fleets/missing.yaml"), "generation.next_fleet"),
    (lambda g: g.__setitem__("next_fleet", "variant.yaml"), "generation.next_fleet"),
    (lambda g: g["zones"][0].__setitem__("name", "Zone A"), "generation.zones[1].name"),
    (lambda g: g["zones"][1].__setitem__("name", "a"), "generation.zones[2].name"),
    (lambda g: g["zones"][0].__setitem__("feed", "800 m"), "generation.zone_a_feed"),
    (lambda g: g["zones"][0].pop("positions"), "generation.zone_a_positions"),
    (lambda g: g["projects"][0].__setitem__("zone", "c"), "generation.projects[1].zone"),
    (lambda g: g["plans"]["build_ahead"]["deliveries"][0].__setitem__("zone", "c"),
     "generation.plans.build_ahead.deliveries[1].zone"),
    (lambda g: g["plans"]["build_ahead"]["deliveries"][0].__setitem__("month", 0),
     "generation.build_ahead_del_1_month"),
    (lambda g: g["plans"]["build_ahead"]["deliveries"][0].__setitem__("racks", 2.5),
     "generation.build_ahead_del_1_racks"),
    (lambda g: g["plans"].__setitem__("Build-Ahead", {}), "generation.plans.Build-Ahead"),
    (lambda g: g.__setitem__("plans", {}), "generation.plans"),
    (lambda g: g.__setitem__("zones", [{"name": f"z{k}"} for k in range(9)]), "generation.zones"),
    (lambda g: g.__setitem__("speed", 3), "generation.speed"),
    (lambda g: g["plans"].__setitem__("move", g["plans"].pop("decom_first")), "generation.plans.move"),
    (lambda g: g["zones"][1].pop("support_racks"), "generation.zone_b_support_racks"),
])
def test_bad_upgrade_input_is_refused_naming_the_file_and_the_key(tmp_path: Path, change: Any, key: str) -> None:
    path = variant(tmp_path, change)
    with pytest.raises(InputError) as err:
        load(path)
    assert err.value.file == path and err.value.key == key
    assert "\n" not in str(err.value)


def test_a_bad_next_fleet_file_is_named(tmp_path: Path) -> None:
    path = variant(tmp_path, lambda g: None)
    fleet = tmp_path / "fleets" / "b200-liquid-512.yaml"
    fleet.write_text(fleet.read_text().replace("gpu_tdp", "gpu_tdpp") if "gpu_tdp" in fleet.read_text()
                     else fleet.read_text().replace("fan_power:", "fan_powr:"))
    with pytest.raises(InputError) as err:
        load(path)
    assert err.value.file == fleet


def _mutated(rng: random.Random, base: dict[str, Any]) -> dict[str, Any]:
    """The generation section with one to three hostile changes: a value replaced, a key dropped, an entry
    repeated (the same kinds of value tests/fuzz.py throws at the rest of a site file)."""
    from tests.fuzz import HOSTILE_VALUES

    def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        out = [prefix] if prefix else []
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
        for k, v in items:
            out += paths(v, (*prefix, k))
        return out

    data = copy.deepcopy(base)
    for _ in range(rng.randint(1, 3)):
        *parent, last = rng.choice(paths(data["generation"]))
        node = data["generation"]
        for k in parent:
            node = node[k]
        roll = rng.random()
        if roll < 0.7:
            node[last] = copy.deepcopy(rng.choice([*HOSTILE_VALUES, 1, 600, 601, "a", "zz"]))
        elif roll < 0.85:
            del node[last]
        elif isinstance(node, list):
            node.append(copy.deepcopy(node[0]))
    return data


def test_hostile_upgrade_sections_load_or_are_refused_in_one_line(tmp_path: Path) -> None:
    """Forty mutated generation sections: each loads, or is refused with an InputError naming the file and a key
    in one line; never an internal error. A failing case is kept in outputs/fuzz-failures/ with its seed."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    base = yaml.safe_load(UPGRADE.read_text())
    shutil.copytree(FLEETS, tmp_path / "fleets")
    for case in range(40):
        path = tmp_path / f"hostile_{seed}_{case}.yaml"
        path.write_text(yaml.safe_dump(_mutated(rng, base), sort_keys=False, allow_unicode=True),
                        encoding="utf-8", errors="surrogatepass")
        try:
            load(path)
        except InputError as e:
            if e.file is not None and e.key is not None and "\n" not in str(e):
                continue
            _keep(path)
            pytest.fail(f"seed {seed} case {case}: {str(e)[:300]!r}")
        except Exception as e:
            _keep(path)
            pytest.fail(f"seed {seed} case {case}: {type(e).__name__}: {str(e)[:300]}")


def _keep(path: Path) -> None:
    keep = ROOT / "outputs" / "fuzz-failures"
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, keep / path.name)
