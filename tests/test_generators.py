"""Standby generators on the Power chain sheet: the UPS-backed load plus the rest of the facility on the design
day and the UPS batteries' recharge, in kVA at the sets' 0.8 rated power factor, a bus per supply path with N+1
sets (N+2 above ten), the chance the plant fails to start, and the check that they carry it with one set out.
Each test writes out the hand calculation it checks."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE
from tests.helpers import B200, example_model, site_file, site_model, v
from workbook.api import load
from workbook.book.document import engineering_copy
from workbook.site.errors import InputError


@pytest.fixture(scope="module")
def example() -> object:
    return example_model()


@pytest.fixture(scope="module")
def b200() -> object:
    return site_model(B200.name)


UPS_PF = 0.95  # the load's power factor (power.power_factor): the UPS recharge's kVA in kW


@pytest.mark.slow
def test_the_example_needs_three_2500_kva_sets(example) -> None:
    """IT 1,393.6594 kW; critical IT capacity 1,393.6594 x 1.1 = 1,533.025 kW (the DGX H100's 10.2 kW maximum
    already covers the GPUs' steps), no CDU pumps: the UPS-backed load. The rest of the facility on the design day,
    IT x (1.49 - 1) = 682.893 kW (chillers, fans, losses, lighting), restarts on the sets, and the UPS recharges its
    batteries: 15% of its 3 x 1,250 kVA x 0.95 = 534.375 kW: 2,750.293 kW, / 0.8 = 3,437.87 kVA on the one bus (N+1
    transformers: one supply path). ROUNDUP(3,437.87 / 2,500) = 2 sets, N+1 = 3 (7,500 kVA); one out leaves 5,000
    kVA. With a 0.5% chance a set fails to start, the bus fails when 2 of its 3 do: at most (3 x 0.005)^2 =
    0.0225%."""
    it = 1393.6594
    recharge = 0.15 * 3 * 1250 * UPS_PF
    load_kw = it * 1.1 + it * 0.49 + recharge
    assert v(example, "power.generator_buses") == 1
    assert v(example, "power.generator_ups_load") == pytest.approx(it * 1.1, rel=1e-12)
    assert v(example, "power.generator_plant_load") == pytest.approx(it * 0.49, rel=1e-12)
    assert v(example, "power.generator_recharge_load") == pytest.approx(recharge, rel=1e-12)
    assert v(example, "power.generator_load") == pytest.approx(load_kw, rel=1e-12)
    assert v(example, "power.generator_load_apparent") == pytest.approx(load_kw / 0.8, rel=1e-12)
    assert load_kw / 0.8 == pytest.approx(3437.87, abs=0.01)
    assert v(example, "power.generator_blocks_n") == 2
    assert v(example, "power.generator_blocks") == 3 and v(example, "summary.generator_sets") == 3
    assert v(example, "power.installed_generator") == 7500
    assert v(example, "power.generator_start_failure") == pytest.approx((3 * 0.005) ** 2, rel=1e-12)
    assert example.quantity("power.generators_one_down")


@pytest.mark.slow
def test_the_b200_build_has_a_bus_per_supply_path(b200) -> None:
    """UPS-backed: critical IT 3,905.833 x 1.1 = 4,296.416 kW + 3 CDU pumps x 15 kW = 4,341.416 kW. The rest of the
    facility: overhead 1,080.482 kW ((3,905.833 x 1.2 + 50) / 0.95 - 3,905.833) less the 45 kW of pumps already
    counted = 1,035.482 kW. The recharge of one path's UPS (2N: 8 blocks of 1,250 kVA over two paths): 15% x 5,000
    x 0.95 = 712.5 kW. 6,089.40 kW / 0.8 = 7,611.75 kVA on each bus (it was 6,721 without the recharge, 3 sets):
    4 sets of 2,500, N+1 = 5 on each of the two buses the 2N transformers feed: 10 sets (25,000 kVA), where one N+1
    bus of 4 sets did not match the topology. The plant fails to start only when both buses do: at most ((5 x
    0.005)^2)^2."""
    it = 3905.833
    overhead = (it * 1.2 + 50) / 0.95 - it
    recharge = 0.15 * 10_000 / 2 * UPS_PF
    load_kw = it * 1.1 + 45 + overhead - 45 + recharge
    assert v(b200, "power.generator_buses") == 2
    assert v(b200, "power.generator_ups_load") == pytest.approx(it * 1.1 + 45, rel=1e-12)
    assert v(b200, "power.generator_plant_load") == pytest.approx(overhead - 45, rel=1e-12)
    assert v(b200, "power.generator_recharge_load") == pytest.approx(recharge, rel=1e-12)
    assert v(b200, "power.generator_load") == pytest.approx(load_kw, rel=1e-12)
    assert load_kw / 0.8 == pytest.approx(7611.75, abs=0.01)
    assert v(b200, "power.generator_blocks_n") == math.ceil(load_kw / 0.8 / 2500) == 4
    assert v(b200, "power.generator_sets_per_bus") == 5 and v(b200, "power.generator_blocks") == 10
    assert v(b200, "power.installed_generator") == 25_000
    assert v(b200, "power.generator_start_failure") == pytest.approx(((5 * 0.005) ** 2) ** 2, rel=1e-12)
    # the plant load holds the compressors the Cooling sheet computes, and more (fans, losses, lighting)
    assert v(b200, "power.generator_plant_load") > v(b200, "cooling.compressor_power")


@pytest.mark.slow
def test_above_ten_sets_a_bus_gets_a_second_spare() -> None:
    """The 10k site's bus carries 29,215 kVA: 12 sets of 2,500 kVA, above the 10 a bus may carry on one spare, so
    N+2 = 14 (a second set failing to start is no longer rare among 14: at most (14 x 0.005)^3 = 0.034%)."""
    m = load(EXAMPLE.parent / "h100-10k-build.yaml")
    assert v(m, "power.generator_blocks_n") == 12 and v(m, "power.generator_extra_spare") == 1
    assert v(m, "power.generator_blocks") == 14
    assert v(m, "power.generator_start_failure") == pytest.approx((14 * 0.005) ** 3, rel=1e-12)


@pytest.mark.slow
def test_without_a_spare_the_check_fails_and_2n_doubles(tmp_path: Path) -> None:
    """N: 2 sets carry the example's 3,437.87 kVA, but not with one out (2,500 kVA): the check fails, and with it
    the master check. 2N on the bus: 4 sets. A 0.9-rated set needs 2,750.293 / 0.9 = 3,055.9 kVA: 2 sets (N), 3
    with N+1."""
    bare = load(site_file(tmp_path, "bare", generator={"redundancy": "N"}))
    assert v(bare, "power.generator_blocks") == 2
    assert not bare.quantity("power.generators_one_down")
    assert not bare.quantity("checks.all_pass")
    two_n = load(site_file(tmp_path, "two_n", generator={"redundancy": "2N"}))
    assert v(two_n, "power.generator_blocks") == 4 and two_n.quantity("power.generators_one_down")
    pf = load(site_file(tmp_path, "pf", generator={"power_factor": 0.9}))
    load_kw = 1393.6594 * 1.59 + 0.15 * 3 * 1250 * UPS_PF
    assert v(pf, "power.generator_load_apparent") == pytest.approx(load_kw / 0.9, rel=1e-12)
    assert (v(pf, "power.generator_blocks_n"), v(pf, "power.generator_blocks")) == (2, 3)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(gpus=st.lists(st.integers(8, 200_000), min_size=1, max_size=8), size=st.floats(10.0, 10_000.0),
       spares=st.integers(0, 2), multiple=st.integers(1, 2))
def test_sets_carry_the_load_and_one_out_only_with_a_spare(example, gpus: list[int], size: float, spares: int,
                                                         multiple: int) -> None:
    """N sets carry the load and N - 1 do not; with a spare (the redundancy's, or the second one above ten sets) or
    2N, one set out still carries it."""
    wanted = ["power.generator_load_apparent", "power.generator_blocks_n", "power.generator_blocks",
              "power.generators_one_down"]
    out = example.book.evaluate({"power.gpus": np.array(gpus, float), "generator.block_size": size,
                                 "generator.redundancy_spares": spares, "generator.redundancy_multiplier": multiple},
                                lines=wanted)
    kva, n = out["power.generator_load_apparent"][:, 0], out["power.generator_blocks_n"][:, 0]
    extra = n > 10
    assert np.all(n * size >= kva * (1 - 1e-12)) and np.all((n - 1) * size < kva)
    assert np.all(out["power.generator_blocks"][:, 0] == n * multiple + spares + extra)
    assert np.all(out["power.generators_one_down"][:, 0] == ((spares + extra) > 0) | (multiple > 1))


@pytest.mark.parametrize(("changes", "words"), [
    ({"power_factor": 1.5}, ["generator.power_factor = 1.5", "at most 1"]),
    ({"redundancy": "N+X"}, ["generator.redundancy = 'N+X'", "redundancy scheme"]),
    ({"block_size": "2500 A"}, ["generator.block_size = '2500 A'", "kVA"]),
    ({"size": "2500 kVA"}, ["generator.size", "unknown key", "generator.block_size"]),
    ({"ups_recharge_share": 1.5}, ["generator.ups_recharge_share = 1.5", "at most 1"]),
    ({"fail_to_start": "often"}, ["generator.fail_to_start = 'often'"]),
    ({"n_plus_two_above": 0}, ["generator.n_plus_two_above = 0", "at least 1"]),
])
def test_bad_generator_input_is_one_line_naming_key_and_value(tmp_path: Path, changes: dict,
                                                              words: list[str]) -> None:
    path = site_file(tmp_path, generator=changes)
    with pytest.raises(InputError) as e:
        load(path)
    message = str(e.value)
    assert "\n" not in message and message.startswith(str(path))
    for w in words:
        assert w in message


def test_the_engineering_copy_holds_the_generator_inputs(example) -> None:
    """The engineering copy (power chain, fabric, cooling, no prices) keeps the generator rows and their inputs
    live, not as values."""
    doc = engineering_copy(example.book)
    for line in ("generator.block_size", "generator.power_factor", "power.generator_blocks",
                 "power.generators_one_down"):
        assert doc.holds(example.book.lines[line]), line


@pytest.mark.slow
def test_a_site_states_its_own_sets_with_sources(tmp_path: Path) -> None:
    """A site's generator section overrides the defaults, and every default carries its source."""
    data = copy.deepcopy(yaml.safe_load(EXAMPLE.read_text()))
    data["generator"] = {"block_size": {"value": "3000 kVA", "source": "hall design: 3 MVA sets"}}
    path = tmp_path / "own.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    m = load(path)
    assert v(m, "generator.block_size") == 3000
    assert m.site.values["generator.block_size"].source == "hall design: 3 MVA sets"
    for key in ("generator.power_factor", "generator.redundancy", "generator.ups_recharge_share",
                "generator.fail_to_start", "generator.n_plus_two_above"):
        assert m.site.values[key].source.startswith("default: "), key
