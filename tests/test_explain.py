"""explain: the differences between two versions of a site and the bridge of the headline outputs.

The bridge's steps are Shapley values (workbook.analysis.shapley): proven here on games whose values are known by
hand, against the definition (every order of the players, averaged), and on real pairs of sites: the steps sum
to the whole change, one change gets all of it, changes that do not interact get their own effects, reversing
the versions reverses every step, and no order of the groups is chosen."""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import (
    ATTACK_MEMORY,
    assert_one_line_error,
    example_model,
    example_with,
    filled,
    invoke,
    run,
    site_file,
)
from tests.strategies import sites
from workbook.analysis import shapley
from workbook.api import explain, explain_versions
from workbook.cli import main
from workbook.explain.bridge import OTHER, STRUCTURE, Bridge, template_note
from workbook.explain.changes_book import BRIDGE, DIFFERENCES, changes_workbook, waterfall
from workbook.explain.report import as_json, lines
from workbook.explain.versions import Version, version
from workbook.site.errors import InputError
from workbook.site.yaml_reader import MAX_BYTES

TOTAL = 1e-9  # relative: the steps sum to the whole change
CATALOG = ROOT / "templates" / "catalog.yaml"


def assert_sums(bridge: Bridge) -> None:
    """Each output's steps sum to its new value less its old one (where every step has a value)."""
    for oi, o in enumerate(bridge.outputs):
        steps = bridge.steps[:, oi]
        if np.isfinite(steps).all() and math.isfinite(o.new - o.old):
            scale = max(abs(o.old), abs(o.new), abs(steps).max(initial=0.0))
            assert abs(steps.sum() - (o.new - o.old)) <= TOTAL * scale, o.label


def step_of(bridge: Bridge, name: str) -> dict[str, float]:
    return {o.id: bridge.step(name, o.id) for o in bridge.outputs}


def step_named(bridge: Bridge, key: str) -> str:
    """The name of the step that holds the difference of `key` (a step per input is named by its label)."""
    return next(g.name for g in bridge.groups if key in g.differences)


def change(bridge: Bridge) -> dict[str, float]:
    return {o.id: o.new - o.old for o in bridge.outputs}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("explain")


@pytest.fixture(scope="module")
def example(folder: Path) -> Path:
    return example_with(folder, "example")


@functools.cache
def defined(path: Path) -> Version:
    """A site file of this module's folder as one side of a change, defined once for every test that compares
    with it (a Version is frozen, its book too): the example is the old side of most tests here."""
    return version(path)


def explained(old: Path, new: Path | Version, *, groups: dict[str, list[str]] | None = None,
              by_input: bool = False) -> Bridge:
    """explain(old, new) with the old version defined once (`defined`); `new` a file, or a version given."""
    return explain_versions(defined(old), new if isinstance(new, Version) else version(new), groups,
                            by_input=by_input)


# ---------------------------------------------------------------- Shapley values, on games known by hand


def brute_force(v: np.ndarray, k: int) -> np.ndarray:
    """The definition: each player's marginal effect averaged over all k! orders."""
    out = np.zeros((k, v.shape[1]))
    for order in itertools.permutations(range(k)):
        mask = 0
        for player in order:
            out[player] += v[mask | (1 << player)] - v[mask]
            mask |= 1 << player
    return out / math.factorial(k)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_exact_values_are_the_average_over_every_order(k: int, seed: int) -> None:
    v = np.random.default_rng(seed).normal(size=(2 ** k, 3)) * 1e6
    phi = shapley.exact(v)
    np.testing.assert_allclose(phi, brute_force(v, k), rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(phi.sum(axis=0), v[-1] - v[0], rtol=1e-12, atol=1e-6)  # efficiency


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_interchangeable_players_get_the_same_and_a_null_player_nothing(k: int, seed: int) -> None:
    """A game v(S) = f(|S without the last player|): players 0..k-2 are interchangeable, the last adds nothing."""
    f = np.random.default_rng(seed).normal(size=k)
    members = shapley.coalitions(k)
    v = f[members[:, :-1].sum(axis=1)][:, None]
    phi = shapley.exact(v)[:, 0]
    np.testing.assert_allclose(phi[:-1], phi[0], rtol=1e-12, atol=1e-12)
    assert abs(phi[-1]) <= 1e-12 * max(1.0, abs(f).max())
    assert phi[:-1].sum() == pytest.approx(f[k - 1] - f[0], rel=1e-12, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(k=st.integers(1, 16), seed=st.integers(0, 2**32 - 1))
def test_an_additive_game_gives_each_player_its_own_effect_exact_or_sampled(k: int, seed: int) -> None:
    """v(S) = sum of S's effects: in every order a player adds its own effect, so the sampled estimate (above 12
    players) is exact too, with no standard error."""
    effects = np.random.default_rng(seed).normal(size=(k, 2)) * 1e3
    got = shapley.attribute(k, lambda masks: masks.astype(float) @ effects, seed=seed)
    np.testing.assert_allclose(got.values, effects, rtol=1e-9, atol=1e-9)
    assert got.exact == (k <= shapley.EXACT_LIMIT)
    if not got.exact:
        assert np.abs(got.error).max() <= 1e-9 and got.orders == shapley.SAMPLED_ORDERS


@settings(max_examples=20, deadline=None)
@given(k=st.integers(13, 18), seed=st.integers(0, 2**32 - 1))
def test_sampled_values_sum_to_the_whole_change_and_are_near_the_exact_ones(k: int, seed: int) -> None:
    """A game with interactions (v = the square of the sum of S's effects): the estimate sums to v(all) - v(none)
    and lies within five standard errors of the exact value, known in closed form (each player's share of a
    square of a sum: a_i x total)."""
    a = np.random.default_rng(seed).normal(size=k)
    got = shapley.attribute(k, lambda masks: (masks.astype(float) @ a)[:, None] ** 2, seed=seed)
    assert got.values.sum() == pytest.approx(a.sum() ** 2, rel=1e-9, abs=1e-9)
    exact = a * a.sum()  # v(S) = (sum a)^2: pairwise terms split evenly, so player i gets a_i^2 + a_i sum_{j!=i} a_j
    assert (np.abs(got.values[:, 0] - exact) <= 5 * got.error[:, 0] + 1e-9).all()


def test_one_value_per_coalition_or_refused() -> None:
    with pytest.raises(ValueError):
        shapley.exact(np.zeros((6, 1)))


# ---------------------------------------------------------------- the bridge of real versions


def test_one_changed_input_gets_the_whole_change(folder: Path, example: Path) -> None:
    """Utilisation 70% -> 80%: one step (the TCO section), all of each output's change; what is bought and what
    the utility supplies do not depend on it (0 exactly), and the old and new values are each version's own."""
    new = example_with(folder, "busier", **{"tco.utilisation": 0.8})
    bridge = explained(example, new)
    assert [g.name for g in bridge.groups] == ["TCO"]
    assert step_of(bridge, "TCO") == pytest.approx(change(bridge), rel=1e-12, abs=1e-12)
    steps = step_of(bridge, "TCO")
    assert steps["bom.total"] == steps["power.it_load"] == steps["power.contracted_feed"] == 0
    assert steps["tco.npv_advantage"] > 0 and steps["tco.owned_cost_per_gpu_hour"] < 0
    built = example_model().values  # the example's own build (the process's shared one), not the bridge's
    assert [o.old for o in bridge.outputs] == pytest.approx([float(built[o.id].reshape(-1)[0])
                                                             for o in bridge.outputs], rel=1e-15)
    assert bridge.attribution.exact and "exact" in bridge.method
    assert [(d.key, d.old, d.new) for d in bridge.differences] == [("tco.utilisation", "70%", "80%")]


def test_changes_that_do_not_interact_get_their_own_effects(folder: Path, example: Path) -> None:
    """The switch price (TCO: 30,000 -> 27,000) and the management node's (BOM: 25,000 -> 30,000) add to the IT
    capex: each step is what that change alone moves it by, computed as a bridge of its own (an independent
    total); the two sum to the whole change."""
    changes = {"tco.switch_price": "27000 USD", "bom.management_node_price": "30000 USD"}
    alone_a = example_with(folder, "switch", **{"tco.switch_price": changes["tco.switch_price"]})
    alone_b = example_with(folder, "head", **{"bom.management_node_price": changes["bom.management_node_price"]})
    both = example_with(folder, "both", **changes)
    bridge = explained(example, both)
    a, b = explained(example, alone_a), explained(example, alone_b)
    capex = "bom.total"
    assert bridge.step("TCO", capex) == pytest.approx(change(a)[capex], rel=1e-12)
    assert bridge.step("BOM", capex) == pytest.approx(change(b)[capex], rel=1e-12)
    assert bridge.step("TCO", capex) + bridge.step("BOM", capex) == pytest.approx(change(bridge)[capex], rel=1e-12)
    assert_sums(bridge)


def test_the_gpu_count_by_hand(folder: Path, example: Path) -> None:
    """1,024 -> 2,048 GPUs: one step (Power chain) holds every output's change; IT capex and IT load roughly
    double (the fabric and the storage do not scale one for one, so not exactly)."""
    bridge = explained(example, example_with(folder, "bigger", **{"power.gpus": 2048}))
    assert [g.name for g in bridge.groups] == ["Power chain"]
    assert step_of(bridge, "Power chain") == pytest.approx(change(bridge), rel=1e-12, abs=1e-12)
    for o in bridge.outputs:
        if o.id in ("bom.total", "power.it_load"):
            assert 1.8 < o.new / o.old < 2.1


def test_named_groups_and_their_order_do_not_change_the_steps(folder: Path, example: Path) -> None:
    new = example_with(folder, "three", **{"tco.utilisation": 0.8, "power.gpus": 2048, "power.pue": 1.3})
    given = {"scale": ["power.gpus"], "running": ["tco", "power.pue"]}
    new = defined(new)  # one version, three bridges
    forward = explained(example, new, groups=given)
    backward = explained(example, new, groups=dict(reversed(given.items())))
    assert sorted(g.name for g in forward.groups) == ["running", "scale"]
    for name in given:
        assert step_of(forward, name) == pytest.approx(step_of(backward, name), rel=1e-12, abs=1e-9)
    by_input = explained(example, new, by_input=True)
    keys = ("tco.utilisation", "power.gpus", "power.pue")
    assert {g.name for g in by_input.groups} == {by_input.new.book.lines[k].label for k in keys}  # by label
    assert_sums(forward)
    assert_sums(by_input)


def test_a_group_naming_no_difference_is_refused(folder: Path, example: Path) -> None:
    new = example_with(folder, "busy2", **{"tco.utilisation": 0.8})
    with pytest.raises(InputError) as e:
        explained(example, new, groups={"power": ["power.gpus"]})
    assert e.value.key == "--group power"


@pytest.fixture(scope="module")
def quoted(folder: Path) -> tuple[Path, Path]:
    """The example before and after a vendor's quote for the nodes is imported (262,000 a node against the
    270,000 budget, 14 weeks), through the commands a user runs."""
    before = folder / "quoted" / "example.yaml"
    before.parent.mkdir()
    shutil.copy(EXAMPLE, before)
    after = folder / "quoted" / "after" / "example.yaml"
    after.parent.mkdir()
    shutil.copy(EXAMPLE, after)
    copy = folder / "quoted" / "copy.xlsx"
    assert main(["quote", str(after), "--vendor", "Acme", "--date", "2026-12-01", "-o", str(copy)]) == 0
    back = filled((after, copy), folder / "quoted" / "back.xlsx", {"nodes": (262000, 14, "")})
    assert main(["import-quote", str(back), "--site", str(after)]) == 0
    return before, after


def test_a_quote_imported_is_its_price_and_its_lead_time_checkable_by_hand(quoted: tuple[Path, Path]) -> None:
    """The quote adds rows (its lines, the price date), so the bridge is played on the book with the quote, the
    budget price and lead time standing in for the quoted ones: by input, the price's step and the lead time's.
    IT capex: 128 nodes x (262,000 - 270,000) x 1.01 (the shipping budget on equipment) = -1,034,240, all the
    price's; the lead time moves no capex. By section, one step (the quotes') holds the whole change. Removing the
    quote again gives the same steps negated."""
    by_input = explained(quoted[0], defined(quoted[1]), by_input=True)  # each version defined once
    price_key, lead_key = "bom.quote_nodes_price", "bom.quote_nodes_lead"
    price, lead = (step_named(by_input, k) for k in (price_key, lead_key))
    assert [g.name for g in by_input.groups] == [price, lead]
    assert price == by_input.new.book.lines[price_key].label  # a step is named by its input's label
    assert by_input.step(price, "bom.total") == pytest.approx(128 * (262_000 - 270_000) * 1.01, rel=1e-12)
    assert by_input.step(lead, "bom.total") == 0
    assert by_input.step(price, "tco.npv_advantage") > 0 > by_input.step(lead, "tco.npv_advantage")
    assert_sums(by_input)
    by_section = explained(quoted[0], defined(quoted[1]))
    assert [g.name for g in by_section.groups] == ["Vendor quotes (example.yaml)"]
    assert set(by_section.groups[0].differences) >= {price_key, lead_key, "bom.quote_nodes_qty", "quotes.nodes"}
    assert step_of(by_section, by_section.groups[0].name) == pytest.approx(change(by_section), rel=1e-9, abs=1e-6)
    back = explained(quoted[1], defined(quoted[0]), by_input=True)
    assert step_of(back, step_named(back, price_key)) == pytest.approx(
        {k: -v for k, v in step_of(by_input, price).items()}, rel=1e-9, abs=1e-6)
    kinds = {(d.kind, d.key) for d in by_section.differences}
    assert ("quote", "quotes.nodes") in kinds and ("input", price_key) in kinds


def test_a_quote_and_an_input_share_the_change_by_shapley(folder: Path, quoted: tuple[Path, Path]) -> None:
    """With the quote and a utilisation change: two steps summing to the change; the quote's IT capex step is
    still the hand figure, the utilisation's none of it."""
    data = yaml.safe_load(quoted[1].read_text())
    data["tco"]["utilisation"]["value"] = 0.8
    both = quoted[1].parent / "both.yaml"
    both.write_text(yaml.safe_dump(data, sort_keys=False))
    shutil.copy(quoted[1].parent / "quotes" / "example.yaml", quoted[1].parent / "quotes" / "both.yaml")
    bridge = explained(quoted[0], both)
    assert {g.name for g in bridge.groups} == {"Vendor quotes (both.yaml)", "TCO"}
    assert bridge.step("Vendor quotes (both.yaml)", "bom.total") == pytest.approx(128 * (262_000 - 270_000) * 1.01,
                                                                                 rel=1e-12)
    assert bridge.step("TCO", "bom.total") == 0
    assert_sums(bridge)


def test_a_quote_with_another_part_is_in_the_structural_step(folder: Path, quoted: tuple[Path, Path]) -> None:
    """A quote added and the GPU's catalog entry changed: the rows differ beyond what a stand-in can put back, so
    both are in the one structural step (evaluated on the new book with the old values of the rest)."""
    data = yaml.safe_load(quoted[1].read_text())
    data["catalog"]["gpu"] = "H200-SXM"
    other = quoted[1].parent / "h200.yaml"
    other.write_text(yaml.safe_dump(data, sort_keys=False))
    shutil.copy(quoted[1].parent / "quotes" / "example.yaml", quoted[1].parent / "quotes" / "h200.yaml")
    bridge = explained(quoted[0], other)
    structural = next(g for g in bridge.groups if g.structural)
    assert structural.name == STRUCTURE and {"catalog.gpu", "quotes.nodes"} <= set(structural.differences)
    assert_sums(bridge)


def test_another_site_and_another_catalog_part_are_said(folder: Path, example: Path) -> None:
    """The B200 site against the example: different sites (said, allowed); its catalog GPU differs, so every
    value that came with a catalog entry is in the structural step, not in its section's."""
    b200 = Path(EXAMPLE).parent / "b200-liquid-build.yaml"
    bridge = explained(example, b200)
    assert any("two different sites" in n for n in bridge.notes)
    structural = next(g for g in bridge.groups if g.name == STRUCTURE)
    assert "catalog.gpu" in structural.differences
    tdp = next(d for d in bridge.differences if d.key == "power.gpu_tdp")
    assert tdp.key in structural.differences and tdp.new_source.startswith("catalog gpu B200")
    assert_sums(bridge)


def test_a_difference_no_input_says_is_its_own_step(folder: Path, example: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the old book with every new value does not give the new outputs (a difference the list missed), the
    remainder is a step of its own, never spread over the others."""
    from workbook.explain import bridge as module

    new = example_with(folder, "two", **{"tco.utilisation": 0.8, "power.gpus": 2048})
    listed = module.differences
    monkeypatch.setattr(module, "differences", lambda a, b: [d for d in listed(a, b) if d.key != "power.gpus"])
    bridge = explained(example, new)
    assert [g.name for g in bridge.groups] == ["TCO", OTHER]
    assert_sums(bridge)
    assert bridge.step(OTHER, "power.it_load") == pytest.approx(change(bridge)["power.it_load"], rel=1e-12)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(a=sites(), b=sites())
def test_random_pairs_of_sites_sum_reverse_and_do_not_depend_on_order(tmp_path_factory: pytest.TempPathFactory,
                                                                      a: dict, b: dict) -> None:
    """Two random sites (their parts, choices and every value drawn): the steps sum to the change; swapping the
    versions negates every step (a Shapley value's symmetry: the reversed game is the complement's); the groups
    named in the opposite order get the same steps."""
    tmp = tmp_path_factory.mktemp("pair")
    old, new = (version(site_file(tmp, name, base=data)) for name, data in (("a", a), ("b", b)))
    bridge = explain_versions(old, new)
    assert_sums(bridge)
    back = explain_versions(new, old)
    assert [g.name for g in back.groups] == [g.name for g in bridge.groups]
    names = {f"named {g.name}": list(g.keys) for g in bridge.groups if not g.structural}
    reordered = explain_versions(old, new, dict(reversed(names.items())))
    for oi, o in enumerate(bridge.outputs):
        if not (np.isfinite(bridge.steps[:, oi]).all() and math.isfinite(o.new - o.old)):
            continue  # an output with no value in a version or a mix of them (a cost per GPU-hour of no hours)
        scale = max(abs(o.old), abs(o.new), 1.0)
        assert np.abs(bridge.steps[:, oi] + back.steps[:, oi]).max(initial=0.0) <= 1e-9 * scale, o.label
        for name in names:
            assert reordered.step(name, o.id) == pytest.approx(bridge.step(name.removeprefix("named "), o.id),
                                                               rel=1e-9, abs=1e-9 * scale)


# ---------------------------------------------------------------- the command, the workbook, the refusals


def test_the_command_prints_the_bridge_and_writes_the_workbook(folder: Path, example: Path) -> None:
    new = example_with(folder, "cli", **{"tco.utilisation": 0.8, "power.gpus": 2048})
    out = folder / "changes.xlsx"
    proc = invoke("explain", example, new, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "exact Shapley values" in proc.stdout and "NPV advantage of buying" in proc.stdout
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == [BRIDGE, DIFFERENCES]
    ws = wb[BRIDGE]
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any(BASE_SHA in t for t in texts for BASE_SHA in [defined(example).sha256])
    assert any("values, not formulas" in t for t in texts)
    assert not any(c.data_type == "f" for row in ws.iter_rows() for c in row)
    assert len(ws._charts) == 6
    data = as_json(explain(example, new))
    assert {b["output"] for b in data["bridges"]} >= {"tco.npv_advantage", "power.contracted_feed"}
    proc = invoke("explain", example, new, "--json")
    assert proc.returncode == 0 and '"method"' in proc.stdout


def test_a_waterfalls_bars_float_from_one_total_to_the_next(folder: Path, example: Path) -> None:
    """Each step's bar spans the running total before it to the one after, across zero in two parts."""
    bridge = explained(example, example_with(folder, "fall", **{"tco.utilisation": 0.95, "power.gpus": 2048}))
    for oi, o in enumerate(bridge.outputs):
        bars = waterfall(bridge, oi)
        total = o.old
        for (_, parts, _), gi in zip(bars[1:-1], range(len(bridge.groups)), strict=True):
            after = total + float(bridge.steps[gi, oi])
            base, visible = parts[0], parts[1:5]  # columns stack positives up from 0, negatives down from it
            pos, neg = sum(p for p in visible if p > 0), sum(p for p in visible if p < 0)
            span = (base, base + pos) if base > 0 else (base + neg, base) if base < 0 else (neg, pos)
            assert span == pytest.approx((min(total, after), max(total, after)), rel=1e-12, abs=1e-6)
            assert not (base > 0 and neg) and not (base < 0 and pos)
            total = after
        assert bars[-1][1][-1] == o.new


@pytest.mark.slow
def test_from_a_git_revision(tmp_path: Path) -> None:
    """--from HEAD: the file as committed against the file as it is; the quotes folder comes from the revision."""
    repo = tmp_path / "repo"
    (repo / "inputs").mkdir(parents=True)
    site = repo / "inputs" / "site.yaml"
    shutil.copy(site_file(tmp_path, "base"), site)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "site")
    data = yaml.safe_load(site.read_text())
    data["tco"]["utilisation"]["value"] = 0.8
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    proc = invoke("explain", "--from", "HEAD", site)
    assert proc.returncode == 0, proc.stderr
    assert "at HEAD (" in proc.stdout and "tco.utilisation: 70% -> 80%" in proc.stdout
    bad = invoke("explain", "--from", "no-such-rev", site)
    assert "--from" in assert_one_line_error(bad)


@pytest.mark.parametrize("args", [
    ["explain", "inputs/example.yaml"],  # one file without --from
    ["explain", "inputs/example.yaml", "inputs/example.yaml", "inputs/example.yaml"],
    ["explain", "--from", "HEAD", "inputs/example.yaml", "inputs/example.yaml"],
    ["explain", "inputs/example.yaml", "inputs/nope.yaml"],
    ["explain", "inputs/example.yaml", "inputs/example.yaml", "--group", "=tco"],
    ["explain", "inputs/example.yaml", "inputs/example.yaml", "--group", "x=\x1b[31m"],
    ["explain", "inputs/example.yaml", "inputs/example.yaml", "--group", "x" * 61 + "=tco"],
    ["explain", "--from=-rf", "inputs/example.yaml"],
    ["explain", "--from", "HEAD~100000", "inputs/example.yaml"],
])
def test_bad_arguments_are_refused_in_one_line_with_nothing_written(tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "changes.xlsx"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main([*args, "-o", str(out)])
    assert status != 0
    assert len(err.getvalue().strip().splitlines()) == 1 and "Traceback" not in err.getvalue()
    assert not out.exists()


def test_an_output_with_no_value_has_no_waterfall_but_a_sentence(folder: Path, example: Path) -> None:
    """At 0% utilisation the owned cost per GPU-hour has no value (no GPU-hour is used): n/a in the text and the
    table, a sentence in place of its waterfall; the other outputs keep theirs."""
    bridge = explained(example, example_with(folder, "idle", **{"tco.utilisation": 0}))
    owned = next(o for o in bridge.outputs if o.id == "tco.owned_cost_per_gpu_hour")
    assert math.isnan(owned.new) and "n/a" in "\n".join(lines(bridge))
    out = folder / "idle.xlsx"
    out.write_bytes(changes_workbook(bridge))
    ws = openpyxl.load_workbook(out)[BRIDGE]
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any(t.startswith("No waterfall of owned cost per gpu-hour") for t in texts)
    assert len(ws._charts) == len(bridge.outputs) - 1


def test_a_template_that_differs_at_the_revision_is_said_value_by_value() -> None:
    then = {"gpus": {"H100-SXM": {"tdp": "700 W", "source": "datasheet"}, "OLD-GPU": {"tdp": "300 W"}}}
    now = {"gpus": {"H100-SXM": {"tdp": "720 W", "source": "datasheet"}}}
    note = template_note("catalog.yaml", then, now)
    assert note.startswith("catalog.yaml at the old version's revision differs from this tool's in 2 value(s)")
    assert "gpus.H100-SXM.tdp (700 W -> 720 W)" in note and "gpus.OLD-GPU.tdp (300 W -> absent)" in note


@pytest.mark.parametrize(("groups", "key", "problem"), [
    ({"TCO": ["power.pue"]}, "--group TCO", "is the name of another step"),
    ({"x": ["tco"], "y": ["tco.utilisation"]}, "--group y", "holds only inputs an earlier --group holds"),
    ({"x": ["tco.utilisation", "nonsense.key"]}, "--group x", "names no input that differs"),
    ({"x": ["power.network_location"]}, "--group x", "changes the book's rows"),
])
def test_a_group_that_cannot_be_a_step_is_refused(folder: Path, example: Path, groups: dict[str, list[str]],
                                                  key: str, problem: str) -> None:
    new = example_with(folder, "grouped", **{"tco.utilisation": 0.8, "power.pue": 1.3,
                                             "power.network_location": "end-of-row"})
    with pytest.raises(InputError) as e:
        explained(example, new, groups=groups)
    assert e.value.key == key and problem in e.value.problem


def test_a_catalog_part_takes_only_its_own_values_into_the_structural_step(folder: Path, example: Path) -> None:
    """Another optic and a GPU TDP given in the file: the optic's catalog values are structural, the TDP (the GPU's
    catalog entry did not change) is its section's step."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["catalog"]["optic"] = next(name for name in yaml.safe_load(CATALOG.read_text())["optics"]
                                    if name != data["catalog"]["optic"])
    data["power"]["gpu_tdp"] = "650 W"
    other = folder / "optic.yaml"
    other.write_text(yaml.safe_dump(data, sort_keys=False))
    bridge = explained(example, other)
    structural = next(g for g in bridge.groups if g.structural)
    assert "catalog.optic" in structural.differences and "power.gpu_tdp" not in structural.differences
    assert "power.gpu_tdp" in next(g for g in bridge.groups if g.name == "Power chain").keys
    assert_sums(bridge)


def test_the_upgrade_plans_layout_is_a_difference(folder: Path) -> None:
    """Which zone a decommissioning comes from is no input: the layout of the generation: section is listed, and
    its effect (none on the site's own fleet's outputs) is in the structural step, the steps summing."""
    upgrade = EXAMPLE.parent / "example-b200-upgrade.yaml"
    text = upgrade.read_text()
    swapped = text.replace("        - {zone: a, month: 10, racks: 6}", "        - {zone: b, month: 10, racks: 6}")
    assert swapped != text
    shutil.copytree(EXAMPLE.parent / "fleets", folder / "fleets", dirs_exist_ok=True)
    before, after = folder / "upgrade.yaml", folder / "upgrade-b.yaml"
    before.write_text(text)
    after.write_text(swapped)
    bridge = explain(before, after)
    layout = next(d for d in bridge.differences if d.key == "generation")
    assert "plans.staged_swap" in layout.new and layout.moves
    assert [g.name for g in bridge.groups] == [STRUCTURE]
    assert_sums(bridge)
    assert "next fleet" in bridge.new.files


def test_a_fifo_or_a_link_in_the_way_is_refused_in_one_line(tmp_path: Path) -> None:
    """A FIFO given as a site file is refused without waiting for a writer; in a revision's folder, a link (to a
    file outside it) is left out: the site file that is a link is not a site file of that revision."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    proc = invoke("explain", EXAMPLE, fifo)
    assert "not a regular file" in assert_one_line_error(proc)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "site.yaml").symlink_to("/etc/hostname")
    shutil.copy(EXAMPLE, repo / "real.yaml")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "links"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    (repo / "site.yaml").unlink()
    shutil.copy(EXAMPLE, repo / "site.yaml")
    proc = invoke("explain", "--from", "HEAD", repo / "site.yaml")
    assert "not a file of that revision" in assert_one_line_error(proc)
    proc = invoke("explain", "--from", "HEAD", repo / "real.yaml")  # a link beside the file: left out
    assert proc.returncode == 0, proc.stderr


def test_a_command_line_argparse_refuses_is_one_line() -> None:
    for args in ([], ["explain"], ["explain", "a.yaml", "b.yaml", "--bogus"], ["explain", "a.yaml", "--from"]):
        proc = invoke(*args)
        assert proc.returncode == 2
        assert assert_one_line_error(proc).startswith("error: python -m workbook")


def test_words_are_a_difference_that_moves_nothing(folder: Path, example: Path) -> None:
    """A node's name is words, shown beside the inputs: listed, in no step."""
    bridge = explained(example, example_with(folder, "named", **{"power.node_name": "Our DGX H100"}))
    named = next(d for d in bridge.differences if d.key == "power.node_name")
    assert named.new == "Our DGX H100" and not named.moves
    assert bridge.groups == ()


def test_a_scenarios_changes_are_said_as_the_file_writes_them_and_move_nothing(folder: Path, example: Path) -> None:
    """A scenario cannot move the base case the bridge explains: listed, in no step, each change as written (the
    value read when the site was loaded, not the file's raw mapping)."""
    data = yaml.safe_load(example.read_text())
    data["scenarios"] = {"dear": {"tco.electricity_price": {"value": "0.2 USD/kWh", "source": "a quote"}}}
    dear = folder / "dear.yaml"
    dear.write_text(yaml.safe_dump(data, sort_keys=False))
    bridge = explained(example, dear)
    said = next(d for d in bridge.differences if d.key == "scenarios.dear")
    assert (said.old, said.new, said.moves) == ("", "tco.electricity_price: 0.2 USD/kWh", False)
    assert bridge.groups == ()


def test_no_difference_is_said(example: Path) -> None:
    bridge = explain(example, example)
    assert bridge.groups == () and not bridge.differences
    assert any("no difference" in n for n in bridge.notes)


GIT = ["-c", "user.name=t", "-c", "user.email=t@t"]


def committed(repo: Path, files: dict[str, bytes | Path], message: str = "x") -> None:
    """A commit of these files (bytes, or a file copied) in a repository made on the first call."""
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    for name, content in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, target)
        else:
            target.write_bytes(content)
    subprocess.run(["git", "-C", str(repo), *GIT, "add", "."], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(repo), *GIT, "commit", "-qm", message], check=True, capture_output=True)


@pytest.mark.slow
def test_from_a_revision_reads_only_the_site_its_quotes_and_its_fleet(tmp_path: Path) -> None:
    """The hardening review's attack: a site at the top of its repository, and a 1.2 GB file beside it: the whole
    folder was read from git (git archive) and ran out of memory at 1.27 GB. Only the site file, its quotes and the
    next fleet it names are read now: explained within 2 GiB."""
    repo = tmp_path / "repo"
    repo.mkdir()
    with open(repo / "unrelated.bin", "wb") as big:
        big.truncate(1200 * 2**20)  # zeros: git stores them in kilobytes, and hands out 1.2 GB
    committed(repo, {"site.yaml": EXAMPLE})
    data = yaml.safe_load(EXAMPLE.read_text())
    data["tco"]["utilisation"]["value"] = 0.8
    committed(repo, {"site.yaml": yaml.safe_dump(data, sort_keys=False).encode()})
    proc = run("explain", "--from", "HEAD~1", repo / "site.yaml", memory=ATTACK_MEMORY)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert "tco.utilisation: 70% -> 80%" in proc.stdout


def test_from_a_revision_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    committed(repo, {"site.yaml": EXAMPLE.read_bytes() + b"#" * MAX_BYTES + b"\n"})
    committed(repo, {"site.yaml": EXAMPLE})
    with pytest.raises(InputError) as refused:
        explain(None, repo / "site.yaml", revision="HEAD~1")
    assert (refused.value.file, refused.value.key) == (Path("site.yaml at HEAD~1"), "--from")
    assert_one_line_error(invoke("explain", "--from", "HEAD~1", repo / "site.yaml"), "error: site.yaml at HEAD~1")


@pytest.mark.slow
def test_from_a_revision_its_templates_are_read_as_a_site_file_is(tmp_path: Path) -> None:
    """An 871-byte alias bomb in templates/catalog.yaml at a revision of the tool's own repository cost 45 s and
    1.8 GB before it ran out of memory: a revision's template is read by the site loader's reader (no aliases)."""
    repo = tmp_path / "tool"
    shutil.copytree(ROOT / "workbook", repo / "workbook", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "templates", repo / "templates")
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    committed(repo, {"templates/catalog.yaml": bomb.encode(), "inputs/site.yaml": EXAMPLE})
    committed(repo, {"templates/catalog.yaml": ROOT / "templates" / "catalog.yaml"})
    proc = run("explain", "--from", "HEAD~1", "inputs/site.yaml", cwd=repo, memory=ATTACK_MEMORY)
    err = assert_one_line_error(proc, "error: templates/catalog.yaml at HEAD~1")
    assert proc.returncode == 2 and "anchors and aliases" in err


def test_from_a_revision_a_refusal_names_the_file_at_the_revision(tmp_path: Path) -> None:
    """An error in the site at the revision named the temporary folder it was read from (gone once it is read)."""
    repo = tmp_path / "repo"
    committed(repo, {"inputs/site.yaml": EXAMPLE.read_bytes().replace(b"gpus: {value: 1024,", b"gpus: {value: -8,")})
    committed(repo, {"inputs/site.yaml": EXAMPLE})
    with pytest.raises(InputError) as refused:
        explain(None, repo / "inputs" / "site.yaml", revision="HEAD~1")
    assert (refused.value.file, refused.value.key) == (Path("inputs/site.yaml at HEAD~1"), "power.gpus")
    assert "workbook-explain-" not in str(refused.value)


def test_a_check_that_flips_is_named_with_both_figures(folder: Path, example: Path) -> None:
    """Doubling the GPUs takes the contracted feed from 2.28 to 4.55 MW against the 3 MW the site has: the feed
    check and the master check flip to FAILS, each said with the figures it compares in both versions."""
    doubled = example_with(folder, "doubled", risk=False, **{"power.gpus": 2048})
    bridge = explained(example, doubled)
    flipped = {f.id: f for f in bridge.flips}
    assert {"checks.all_pass", "power.feed_within_site"} <= set(flipped)
    feed = flipped["power.feed_within_site"]
    assert (feed.old, feed.new) == (True, False)
    assert "Contracted utility feed 2.28 MW" in feed.old_figures and "Contracted utility feed 4.55 MW" in \
        feed.new_figures
    text = lines(bridge)
    assert any(line.startswith("  Contracted feed fits the site's available power: passes -> FAILS (") for line in text)
    assert as_json(bridge)["checks_that_change"][0]["check"] == "checks.all_pass"


def test_figures_are_shown_at_their_outputs_decimals() -> None:
    from workbook.explain.bridge import Output
    from workbook.explain.report import figure

    be = Output("tco.break_even_utilisation", "Break-even utilisation", "%", '[>1]"never (over 100%)";0.0%', 0, 0)
    assert figure(0.924, be) == "92.4%" and figure(1.2, be) == "never (over 100%)"
    assert figure(-0.00004, be, signed=True) == "0.0 pp" and figure(-0.043, be, signed=True) == "-4.3 pp"
    kw = Output("power.it_load", "IT load", "kW", "#,##0.00", 0, 0)
    assert figure(1380.2110, kw, signed=True) == "+1,380.21 kW"


@pytest.mark.slow
def test_a_sampled_bridge_carries_each_steps_standard_error_to_the_workbook(folder: Path, example: Path) -> None:
    """Thirteen inputs changed, a step each: more than the 12 computed exactly, so the steps are estimated from
    sampled orders, and the Changes workbook lists each step's standard error below the bridge table."""
    keys = ["tco.utilisation", "tco.on_demand_price", "tco.electricity_price", "tco.residual_value",
            "tco.cost_of_capital", "tco.staff_fte", "tco.colo_price", "tco.rent_extras", "tco.fit_out_capex",
            "tco.switch_price", "tco.cable_price", "tco.idle_power_share", "tco.transceiver_price"]
    data = yaml.safe_load(EXAMPLE.read_text())
    data.pop("risk", None)
    changes = {k: None for k in keys}
    for k in keys:
        section, key = k.split(".")
        entry = data[section][key]
        value = entry["value"] if isinstance(entry, dict) else entry
        changed = f"{float(str(value).split()[0]) * 1.1:g}" + ("" if " " not in str(value) else
                                                              " " + str(value).split(" ", 1)[1])
        changes[k] = changed
        data[section][key] = changed
    many = folder / "thirteen.yaml"
    many.write_text(yaml.safe_dump(data, sort_keys=False))
    bridge = explained(example, many, by_input=True)
    assert not bridge.attribution.exact and len(bridge.groups) == 13
    ws = openpyxl.load_workbook(io.BytesIO(changes_workbook(bridge)))[BRIDGE]
    labels = [c.value for c in ws["A"] if isinstance(c.value, str)]
    assert sum(label.endswith(": standard error (sampled orders)") for label in labels) == 13
