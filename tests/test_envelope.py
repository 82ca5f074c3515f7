"""The power envelope: the GPUs and compute a fixed feed holds, from each fleet's own power chain, at TDP and
power-capped. A hand calculation of the example at 1 MW, rules that hold for every input, and the workbook of two
fleets side by side recalculated in LibreOffice."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE, ROOT
from tests.helpers import unresolved_references
from tests.parity import Built, check
from workbook.analysis import summary
from workbook.api import Model
from workbook.book import sheets
from workbook.book.book import Book
from workbook.book.document import Document
from workbook.build import present
from workbook.excel.writer import write_book
from workbook.models import ENGINEERING, PRESENTATION, all_rules, all_specs
from workbook.models import reliability as reliability_model
from workbook.models.base import Scope
from workbook.models.bom import bom as bom_model
from workbook.models.fleet import define_fleet, define_site_fleet, model_inputs
from workbook.models.power import envelope as envelope_model
from workbook.models.power.envelope import EnvelopeOut
from workbook.site.load import load_site
from workbook.site.spec import Site

B200 = ROOT / "inputs" / "b200-liquid-build.yaml"
SITES = sorted((ROOT / "inputs").glob("*.yaml"))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def specs() -> list:
    """Every model's inputs and the envelope's (its own until build_book lists it among the models)."""
    known = all_specs()
    return known + ([] if envelope_model in PRESENTATION else envelope_model.INPUTS)


def envelope_book(site_path: Path, *others: tuple[str, Path, str]) -> tuple[Book, Site, EnvelopeOut]:
    """The engineering models of the site's fleet and of each other (label, site file, namespace) fleet, then the
    envelope over all of them, as build_book would call it after define_fleet."""
    book = Book("envelope")
    for title in sheets.ORDER:
        book.sheets.setdefault(title, [])
    site = load_site(site_path, specs(), rules=all_rules())
    inputs = model_inputs(book, site, [*ENGINEERING, reliability_model, bom_model, envelope_model])
    rel, fleet = define_site_fleet(book, inputs)
    fleets = [("Site fleet", fleet, fleet.inputs.power.gpu_throughput)]
    for label, path, namespace in others:
        other = load_site(path, specs(), rules=all_rules())
        more = define_fleet(book, model_inputs(book, other, ENGINEERING, namespace), namespace)
        fleets.append((label, more, more.inputs.power.gpu_throughput))
    out = envelope_model.define(Scope(book, envelope_model.PREFIX), inputs.envelope, fleets)
    summary.define_checks(book)
    present(book, [rel.presented, out.presented])
    return book, site, out


@functools.cache
def example_book() -> tuple[Book, dict[str, np.ndarray]]:
    book, _, _ = envelope_book(EXAMPLE)
    return book, book.evaluate()


@pytest.fixture(scope="module")
def example() -> tuple[Book, dict[str, np.ndarray]]:
    return example_book()


def value(values: dict[str, np.ndarray], line_id: str) -> float:
    return float(values[line_id].reshape(-1)[0])


# ---------------------------------------------------------------- the example by hand


def test_the_example_at_one_mw_by_hand(example: tuple[Book, dict[str, np.ndarray]]) -> None:
    """The example's own figures (Power chain): a DGX H100 peaks at 10.2 kW (the vendor maximum: components
    9.457 kW + GPU excursion 0.596 kW = 10.053 kW is below it, and holds its transceivers); 46.579 kW of switches
    and 28.458 kW of switch-side optics over 128 nodes = 0.58623 kW a node; storage 5.0224 kW (sized on the
    Reliability sheet: 2 all-flash appliances of 2.5 kW and 22.4 TB of capacity tier at 1 W/TB) + management 8 kW;
    feed headroom 10%, design PUE 1.49, so a kW of peak IT takes 1.1 x 1.49 = 1.639 kW of feed. At the margin a kW at
    the GPUs' wall takes (1 + the Cooling sheet's 0.333 kW of compressors (all air on chillers at COP 3)) / (1 - the
    5% distribution-loss estimate) = 1.4035 kW of facility power: the marginal factor, not the design PUE.

    Fixed part: 13.0224 kW x 1.639 = 21.3437 kW. Feed per node: (10.2 + 0.58623) x 1.639 = 17.6786 kW (the chain's
    own: (contracted feed - fixed part) / 128). At 1 MW: ROUNDDOWN((1,000 - 21.3437) / 17.6786) = ROUNDDOWN(55.36)
    = 55 nodes, 440 GPUs and 440 H100-equivalents per MW (6.33 kW left over).

    Capped at 70%: 8 x 700 W x 0.3 / 0.94 = 1.7872 kW saved at the wall per node, x 1.1 x 1.4035 = 2.7592 kW of
    feed, so 14.9194 kW a node: ROUNDDOWN(978.6563 / 14.9194) = ROUNDDOWN(65.60) = 65 nodes, 520 GPUs (80 more),
    each at 0.7^0.3333 = 88.79% throughput: 461.7 H100-equivalents per MW, a net gain of 461.7 / 440 - 1 = 4.9%."""
    _, v = example
    per_node = (10.2 + (57 * 0.747 + 8 * 0.5 + 28.458) / 128) * 1.1 * 1.49
    factor = (1 + (0.06 + 0.94) / 3) / 0.95
    assert value(v, "envelope.cap_facility_factor") == pytest.approx(factor, rel=1e-12)
    capped = per_node - 8 * 0.7 * 0.3 / 0.94 * 1.1 * factor
    assert value(v, "envelope.feed_per_peak_it") == pytest.approx(1.639, rel=1e-12)
    assert value(v, "envelope.fixed_feed") == pytest.approx((2 * 2.5 + 22.4 / 1000 + 8) * 1.639, rel=1e-12)
    assert value(v, "envelope.feed_per_node") == pytest.approx(per_node, rel=1e-12)
    assert per_node == pytest.approx(17.6786, abs=1e-4) and capped == pytest.approx(14.9194, abs=1e-4)
    room = 1000 - (2 * 2.5 + 22.4 / 1000 + 8) * 1.639
    assert (value(v, "envelope.nodes"), value(v, "envelope.gpus")) == (55, 440)
    assert value(v, "envelope.gpus_per_mw") == value(v, "envelope.compute_per_mw") == 440
    assert value(v, "envelope.feed_left") == pytest.approx(room - 55 * per_node, rel=1e-9)
    assert value(v, "envelope.capped_feed_per_node") == pytest.approx(capped, rel=1e-12)
    assert (value(v, "envelope.capped_nodes"), value(v, "envelope.capped_gpus")) == (65, 520)
    assert value(v, "envelope.extra_gpus") == 80
    assert value(v, "envelope.cap_throughput") == pytest.approx(0.7 ** 0.3333, rel=1e-12)
    assert value(v, "envelope.capped_compute_per_mw") == pytest.approx(520 * 0.7 ** 0.3333, rel=1e-12)
    assert value(v, "envelope.compute_gain") == pytest.approx(520 * 0.7 ** 0.3333 / 440 - 1, rel=1e-12)
    assert 0.049 < value(v, "envelope.compute_gain") < 0.050
    assert bool(v["envelope.node_fits"].reshape(-1)[0])


def test_the_fleets_own_feed_holds_the_fleets_own_nodes(example: tuple[Book, dict[str, np.ndarray]]) -> None:
    """The envelope is the power chain read backwards: given the example's own contracted feed (2.2842 MW, a hair
    more for rounding), it holds exactly the example's 128 nodes."""
    book, v = example
    feed = value(v, "power.contracted_feed")
    at = book.evaluate({"envelope.feed": feed * (1 + 1e-9)})
    assert value(at, "envelope.nodes") == value(v, "power.nodes") == 128


def test_a_feed_too_small_for_one_node_fails_its_check(example: tuple[Book, dict[str, np.ndarray]]) -> None:
    """15 kW: 20.05 kW of storage and management alone does not fit, so no node does (0, not a negative count)."""
    book, _ = example
    v = book.evaluate({"envelope.feed": 0.015}, strict=False)
    assert value(v, "envelope.nodes") == value(v, "envelope.capped_nodes") == 0
    assert not bool(v["envelope.node_fits"].reshape(-1)[0])
    assert np.isnan(v["envelope.compute_gain"]).all()  # shown as "no node fits", not #DIV/0!


@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_one_mw_holds_a_node_of_every_site(site: Path) -> None:
    book, _, _ = envelope_book(site)
    v = book.evaluate()
    assert bool(v["envelope.node_fits"].reshape(-1)[0])
    assert value(v, "envelope.capped_gpus") >= value(v, "envelope.gpus") > 0


# ---------------------------------------------------------------- the cap at the margin, and without rounding

GB200 = ROOT / "inputs" / "gb200-nvl72-colo.yaml"


@functools.cache
def site_values(path: Path) -> dict[str, np.ndarray]:
    book, _, _ = envelope_book(path)
    return book.evaluate()


def test_the_b200_cap_saves_through_the_marginal_facility_factor() -> None:
    """The B200 build is itemised (cooling 0.2 kW/kW of IT, distribution loss 5%) and liquid-cooled on a W32 loop.
    Its feed per node is (14.3 + 0.66419 kW of network and optics) x 1.1 x 1.2 / 0.95 = 20.7923 kW. Capped at 70%
    a node saves 8 x 1,000 W x 0.3 / 0.94 = 2.5532 kW at the wall. Of a kW at a GPU's wall 6% is PSU loss on air
    and 94% goes to the plates, which dry coolers take: 0.06 / COP 3 = 0.02 kW of compressor per kW, so the
    marginal facility factor is 1.02 / 0.95 = 1.0737 (the chain's average, 1.2 / 0.95 = 1.2632, would have the
    GPUs' watts go through chillers). Capped feed per node 20.7923 - 2.5532 x 1.1 x 1.0737 = 17.7769 kW:
    ROUNDDOWN(837.89 / 17.7769) = 47 nodes, 376 GPUs (384 at the average factor), +4.33% compute per MW with
    whole nodes, +3.85% per node (20.7923 / 17.7769 x 0.7^0.3333 - 1)."""
    v = site_values(B200)
    network = value(v, "envelope.network_per_node")
    per_node = (14.3 + network) * 1.1 * 1.2 / 0.95
    assert value(v, "envelope.feed_per_node") == pytest.approx(per_node, rel=1e-12)
    assert per_node == pytest.approx(20.7923, abs=1e-4)
    saving = 8 * 1.0 * 0.3 / 0.94
    assert value(v, "cooling.gpu_marginal_cooling") == pytest.approx(0.06 / 3, rel=1e-12)
    factor = (1 + 0.06 / 3) / 0.95
    assert value(v, "envelope.cap_facility_factor") == pytest.approx(factor, rel=1e-12)
    capped = per_node - saving * 1.1 * factor
    assert value(v, "envelope.capped_feed_per_node") == pytest.approx(capped, rel=1e-12)
    assert capped == pytest.approx(17.7769, abs=1e-4)
    room = value(v, "envelope.feed_for_nodes")
    assert (room // per_node, room // capped) == (40, 47)
    assert (value(v, "envelope.gpus"), value(v, "envelope.capped_gpus")) == (320, 376)
    assert room // (per_node - saving * 1.1 * 1.2 / 0.95) == 48  # at the average factor (the old figure)
    share = 0.7 ** 0.3333
    assert value(v, "envelope.compute_gain") == pytest.approx(376 / 320 * share - 1, rel=1e-12)
    assert value(v, "envelope.compute_gain_continuous") == pytest.approx(per_node / capped * share - 1, rel=1e-12)
    assert round(value(v, "envelope.compute_gain"), 4) == 0.0433
    assert round(value(v, "envelope.compute_gain_continuous"), 4) == 0.0385


def test_the_gb200_headline_gain_is_mostly_rounding() -> None:
    """The site gives a design PUE of 1.25, but the cap's saving goes through the plant at the margin: the GPUs'
    plated watts on dry coolers take no compressor, so a kW at the GPUs' wall costs (1 + the Cooling sheet's
    ((1 - 0.97) + 0.97 x (1 - 1)) / 3 = 0.01 kW) / (1 - 0.05) = 1.0632 kW of facility power, not 1.25. A rack saves
    72 x 1,200 W x 0.3 / 0.97 = 26.72 kW at the wall, x 1.1 x 1.0632 = 31.25 kW of feed: 1 MW holds 4 GB200 NVL72
    racks at TDP and 5 capped, +11.0% compute with whole racks (+33.2% at the design PUE); per rack the gain is feed
    per rack at TDP / at the cap x 0.8879 - 1 = +5.9% (+9.6% at the design PUE)."""
    v = site_values(GB200)
    per_node, capped = value(v, "envelope.feed_per_node"), value(v, "envelope.capped_feed_per_node")
    factor = (1 + ((1 - 0.97) + 0.97 * (1 - 1)) / 3) / 0.95
    assert value(v, "envelope.cap_facility_factor") == pytest.approx(factor, rel=1e-12)
    assert capped == pytest.approx(per_node - 72 * 1.2 * 0.3 / 0.97 * 1.1 * factor, rel=1e-12)
    assert (value(v, "envelope.nodes"), value(v, "envelope.capped_nodes")) == (4, 5)
    share = 0.7 ** 0.3333
    assert value(v, "envelope.compute_gain") == pytest.approx(5 / 4 * share - 1, rel=1e-12)
    assert round(value(v, "envelope.compute_gain"), 3) == 0.110
    assert value(v, "envelope.compute_gain_continuous") == pytest.approx(per_node / capped * share - 1, rel=1e-12)
    assert round(value(v, "envelope.compute_gain_continuous"), 3) == 0.059


@pytest.mark.slow
@SETTINGS
@given(feed=st.floats(0.5, 1000.0), cap=st.floats(0.1, 1.0))
def test_whole_nodes_approach_the_continuous_gain_as_the_feed_grows(feed: float, cap: float) -> None:
    """With a = feed per node at TDP, b at the cap and R the room for nodes: a/b - a/R <= capped nodes / nodes <=
    (a/b) / (1 - a/R), so the whole-node gain brackets the continuous one ever more closely as the feed grows."""
    book, _ = example_book()
    v = book.evaluate({"envelope.feed": feed, "envelope.power_cap": cap}, strict=False)
    a, b = value(v, "envelope.feed_per_node"), value(v, "envelope.capped_feed_per_node")
    room, share = value(v, "envelope.feed_for_nodes"), value(v, "envelope.cap_throughput")
    if room < 2 * a:  # not one node, or too few for the bound to mean anything
        return
    whole, continuous = value(v, "envelope.compute_gain"), value(v, "envelope.compute_gain_continuous")
    assert continuous == pytest.approx(a / b * share - 1, rel=1e-12)
    assert share * (a / b - a / room) * (1 - 1e-12) <= whole + 1 <= share * (a / b) / (1 - a / room) * (1 + 1e-12)


# ---------------------------------------------------------------- rules for every input


@pytest.mark.slow
@SETTINGS
@given(feeds=st.lists(st.floats(0.01, 1000.0), min_size=2, max_size=12),
       cap=st.floats(0.1, 1.0), exponent=st.floats(0.0, 1.0), pue=st.floats(1.0, 3.0),
       tdp=st.floats(100.0, 2000.0), headroom=st.floats(0.0, 1.0))
def test_more_feed_never_fits_fewer_gpus_and_a_cap_never_fewer(feeds: list[float], cap: float, exponent: float,
                                                              pue: float, tdp: float, headroom: float) -> None:
    book, _ = example_book()
    feeds = sorted(feeds)
    v = book.evaluate({"envelope.feed": np.array(feeds), "envelope.power_cap": cap,
                       "envelope.cap_exponent": exponent, "power.pue": pue, "power.gpu_tdp": tdp,
                       "power.feed_headroom": headroom}, strict=False)
    gpus, capped = v["envelope.gpus"].reshape(-1), v["envelope.capped_gpus"].reshape(-1)
    assert np.all(np.diff(gpus) >= 0) and np.all(np.diff(capped) >= 0)
    assert np.all(capped >= gpus)
    # whole nodes: they fit the feed left for nodes (none when storage and management take it all), one more not
    room = np.maximum(v["envelope.feed_for_nodes"].reshape(-1), 0)
    nodes, per_node = v["envelope.nodes"].reshape(-1), v["envelope.feed_per_node"].reshape(-1)
    assert np.all(nodes * per_node <= room * (1 + 1e-9))
    assert np.all((nodes + 1) * per_node > room * (1 - 1e-9))


@pytest.mark.slow
@SETTINGS
@given(feed=st.floats(0.01, 1000.0), exponent=st.floats(0.0, 1.0))
def test_a_cap_at_tdp_changes_nothing(feed: float, exponent: float) -> None:
    book, _ = example_book()
    v = book.evaluate({"envelope.feed": feed, "envelope.power_cap": 1.0, "envelope.cap_exponent": exponent},
                      strict=False)
    assert value(v, "envelope.capped_gpus") == value(v, "envelope.gpus")
    assert value(v, "envelope.capped_compute") == pytest.approx(value(v, "envelope.compute"), rel=1e-12)


# ---------------------------------------------------------------- two fleets side by side, in LibreOffice


def test_two_fleets_side_by_side_agree_with_libreoffice(tmp_path: Path, libreoffice: str) -> None:
    """The example's H100 fleet and the B200 build's fleet (namespace fleet_new) in one envelope: their lines,
    the rows of the two charts and the checks, recalculated in LibreOffice and compared line by line."""
    book, site, out = envelope_book(EXAMPLE, ("B200 fleet", B200, "fleet_new"))
    values = book.evaluate()
    assert [f.label for f in out.fleets] == ["Site fleet", "B200 fleet"]
    assert out.fleets[1].nodes.id == "envelope.fleet_new_nodes"
    b200 = value(values, "envelope.fleet_new_gpus_per_mw")
    assert 0 < b200 < value(values, "envelope.gpus_per_mw")  # a B200 node draws more than a DGX H100
    assert value(values, "envelope.fleet_new_compute_per_mw") > value(values, "envelope.compute_per_mw")
    xlsx = tmp_path / "envelope.xlsx"
    layout = write_book(book, values, site, xlsx, Document("envelope", tuple(book.sheets)))
    assert sheets.ENVELOPE in layout.sheets and sum(c.sheet == sheets.ENVELOPE for c in layout.charts) == 2
    assert unresolved_references(xlsx) == []
    outcome = check([Built(EXAMPLE, xlsx, Model(site, book, values), layout)], tmp_path)
    assert outcome.problems == []
    assert outcome.lines == sum(line.kind != "input" for line in book.lines.values())
