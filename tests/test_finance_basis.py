"""Finance, part three: the rent a buyer could sign, an IRR that is a proven root, paybacks that say where they come
from, a residual share on a stated basis, and risk drivers that hold under correlation.

The HAND site (tests/helpers.py) is one 8-GPU node bought for 240,000 USD with nothing else costing anything, a
2-year life, rent at 2 USD/GPU-h and full use, no price changes, no tax and a 0% cost of capital, so each figure
below is worked on paper first.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import numpy_financial as npf
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE
from tests.helpers import B200, documents_text, example_model, hand, site_file, site_model, v
from workbook.analysis.risk.drivers import shapley_effects
from workbook.analysis.risk.section import read
from workbook.api import load
from workbook.excel.cells import cached
from workbook.excel.layout import has_total
from workbook.models import all_specs
from workbook.site.errors import InputError
from workbook.site.load import load_site

HOURS = 8 * 730  # GPU-hours in a month at full use: 8 GPUs x 730 h
RESERVED = "1.5 USD/GPU/hour"


# ---------------------------------------------------------------- 1. the rent in force, on demand, committed


def test_the_committed_contract_beside_on_demand_by_hand(tmp_path: Path) -> None:
    """On demand: 5,840 GPU-h x 2 USD x 24 months = 280,320 USD; a committed contract (every GPU-hour used reserved
    at 1.5 USD): 210,240 USD. Owning costs 240,000: buying wins against on demand by 40,320 and loses against the
    contract by 29,760. Break-evens: 240,000 / 280,320 = 85.6% of the hours, and 240,000 / 210,240 = 114% (never)."""
    m = hand(tmp_path, reserved_price=RESERVED)
    assert v(m, "tco.npv_rent_on_demand") == pytest.approx(HOURS * 2 * 24, rel=1e-12)
    assert v(m, "tco.npv_rent_committed") == pytest.approx(HOURS * 1.5 * 24, rel=1e-12)
    assert v(m, "tco.npv_advantage_on_demand") == pytest.approx(40_320, rel=1e-12)
    assert v(m, "tco.npv_advantage_committed") == pytest.approx(-29_760, rel=1e-12)
    assert v(m, "tco.npv_advantage") == v(m, "tco.npv_advantage_on_demand")  # nothing reserved: on demand in force
    assert v(m, "tco.break_even_utilisation_on_demand") == pytest.approx(240_000 / 280_320, rel=1e-12)
    assert v(m, "tco.break_even_utilisation_committed") == pytest.approx(240_000 / 210_240, rel=1e-12)
    assert v(m, "tco.rented_cost_per_gpu_hour_committed") == pytest.approx(1.5, rel=1e-12)


def test_the_break_even_against_a_reserved_mix_by_hand(tmp_path: Path) -> None:
    """Half the GPUs reserved at 1.5 USD, the rest on demand at 2 USD, full use: renting costs 0.5 x 210,240 +
    0.5 x 280,320 = 245,280, so buying wins by 5,280. Above the reserved share each more unit of use is on demand:
    the break-even is (240,000 + 0.5 x (280,320 - 210,240)) / 280,320 = 98.1%, against on demand alone's 85.6%."""
    m = hand(tmp_path, reserved_price=RESERVED, reserved_share=0.5)
    assert v(m, "tco.npv_rent") == pytest.approx(0.5 * 210_240 + 0.5 * 280_320, rel=1e-12)
    assert v(m, "tco.npv_advantage") == pytest.approx(5_280, rel=1e-9)
    be = (240_000 + 0.5 * (280_320 - 210_240)) / 280_320
    assert v(m, "tco.break_even_utilisation") == pytest.approx(be, rel=1e-12)
    assert v(m, "tco.break_even_utilisation_on_demand") == pytest.approx(240_000 / 280_320, rel=1e-12)
    assert bool(m.values["tco.rent_by_parts"].item())  # the flows' NPV and its parts agree


@pytest.fixture(scope="module")
def ramped(tmp_path_factory: pytest.TempPathFactory) -> object:
    """The HAND site with a 3-month ramp, a 10% cost of capital, falling rent and a reserved price."""
    tmp = tmp_path_factory.mktemp("ramped")
    return hand(tmp, reserved_price=RESERVED, ramp_months="3 months", cost_of_capital=0.1, rent_price_change=-0.15,
                electricity_price="0.1 USD/kWh", rent_extras="500 USD/month")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(share=st.floats(0.0, 1.0), reserved=st.floats(0.5, 1.99), on_demand=st.floats(1.0, 4.0))
def test_buying_loses_exactly_below_the_break_even(ramped: object, share: float, reserved: float,
                                                    on_demand: float) -> None:
    """For any reserved share and prices, the NPV advantage of buying against the rent in force is negative exactly
    at the utilisations below the break-even, and the break-even does not move with the planned utilisation."""
    us = np.linspace(0.05, 1.0, 96)
    n = us.size
    got = ramped.book.evaluate({"tco.utilisation": us, "tco.reserved_share": np.full(n, share),
                                "tco.reserved_price": np.full(n, reserved),
                                "tco.on_demand_price": np.full(n, on_demand)},
                               lines=["tco.npv_advantage", "tco.break_even_utilisation"], strict=False)
    adv, be = got["tco.npv_advantage"][:, 0], got["tco.break_even_utilisation"][:, 0]
    if np.isnan(be).all():  # renting costs no more than owning for each extra GPU-hour: no break-even
        return
    assert np.ptp(be) <= 1e-9 * abs(be[0])
    away = np.abs(us - be[0]) > 1e-6  # at the break-even itself the advantage is 0 up to rounding
    assert np.array_equal((adv < 0)[away], (us < be[0])[away])


# ---------------------------------------------------------------- 2. the IRR, a proven root; MIRR


def _irr_roots(flows: np.ndarray) -> list[float]:
    """Every root of the NPV of monthly flows from -99% to +1,000% a year, found by a fine grid and bisection (no
    spreadsheet, no Newton): annual rates."""
    def npv(r: float) -> float:
        return float(sum(f / (1 + r) ** k for k, f in enumerate(flows)))

    grid = np.exp(np.linspace(math.log(0.01), math.log(11.0), 4_001)) ** (1 / 12) - 1
    k = np.arange(len(flows))  # the whole grid at once
    values = list((np.asarray(flows, float)[None, :] / (1 + grid[:, None]) ** k[None, :]).sum(axis=1))
    roots = []
    for a, b, fa, fb in zip(grid[:-1], grid[1:], values[:-1], values[1:], strict=True):
        if (fa > 0) != (fb > 0):
            for _ in range(100):
                mid = (a + b) / 2
                if (npv(mid) > 0) == (fa > 0):
                    a = mid
                else:
                    b = mid
            roots.append((1 + (a + b) / 2) ** 12 - 1)
    return roots


def test_the_irr_by_hand_and_against_numpy_financial(tmp_path: Path) -> None:
    """-240,000 at time 0, then 11,680 a month for 24 months: the monthly root of 11,680 x (1 - (1+r)^-24) / r =
    240,000, annualised; numpy-financial's IRR gives the same root, and the MIRR at a 0% cost of capital is
    (280,320 / 240,000)^(1/36) - 1 a month over the 36-month timeline."""
    m = hand(tmp_path)
    flows = v(m, "tco.savings_flow")
    monthly = npf.irr(flows)
    assert v(m, "tco.irr_buy") == pytest.approx((1 + monthly) ** 12 - 1, rel=1e-9)
    assert v(m, "tco.irr_buy_roots") == 1
    assert bool(m.values["tco.irr_buy_proven"].item())
    assert v(m, "tco.mirr_buy") == pytest.approx((280_320 / 240_000) ** (12 / 36) - 1, rel=1e-12)
    assert v(m, "tco.mirr_buy") == pytest.approx((1 + npf.mirr(flows, 0.0, 0.0)) ** 12 - 1, rel=1e-9)


def test_a_zero_first_flow_gives_a_root_not_a_runaway(tmp_path: Path) -> None:
    """A 6-month lead time with nothing paid at order: the first flow is 0 (Newton from the cost of capital ran
    away to 10^10 %): the proven IRR is the root a bisection finds."""
    m = hand(tmp_path, lead_time="6 months", horizon="40 months", cost_of_capital=0.1)
    flows = v(m, "tco.savings_flow")
    assert flows[0] == 0
    [root] = _irr_roots(flows)
    assert v(m, "tco.irr_buy") == pytest.approx(root, rel=1e-9)


@pytest.fixture(scope="module")
def example() -> object:
    return example_model()


def test_two_roots_are_counted_and_the_lowest_shown(example: object) -> None:
    """On-demand at 12 USD falling 70% a year: the savings change sign more than once; the NPV advantage at 10% is
    positive, and the NPV of the savings is zero at several rates (three here: -81.9%, -33.4% and +70.2% a year).
    The IRR cell shows the lowest, the count says how many, and the MIRR is one answer."""
    got = example.book.evaluate({"tco.on_demand_price": 12.0, "tco.rent_price_change": -0.7})
    flows = got["tco.savings_flow"][0]
    roots = _irr_roots(flows)
    assert len(roots) >= 2
    assert got["tco.irr_buy_roots"].item() == len(roots)
    assert got["tco.irr_buy"].item() == pytest.approx(roots[0], rel=1e-9)
    assert got["tco.npv_advantage"].item() > 0
    assert math.isfinite(got["tco.mirr_buy"].item())


def test_no_root_says_none(example: object) -> None:
    """Rent at a tenth of its price, nothing resold and no working capital returned at exit: every month of buying
    costs more than renting, so no rate makes the NPV 0; the cell shows the message, and the count is 0."""
    values = example.book.evaluate({"tco.on_demand_price": 0.3, "tco.residual_value": 0.0,
                                    "tco.working_capital_months": 0.0})
    assert _irr_roots(values["tco.savings_flow"][0]) == []
    assert values["tco.irr_buy_roots"].item() == 0
    assert math.isnan(values["tco.irr_buy"].item())
    line = example.book.lines["tco.irr_buy"]
    assert cached(line, values["tco.irr_buy"], values=values).startswith("none: no root from -99% to +1,000%")


IRR_RANGES = {"tco.on_demand_price": (0.5, 15.0), "tco.rent_price_change": (-0.9, 0.3), "tco.utilisation": (0.05, 1.0),
              "tco.residual_value": (0.0, 0.6)}


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_irr_shown_is_always_the_lowest_root(seed: int) -> None:
    """Whatever the inputs, the IRR shown is the lowest root a bisection finds (or none where it finds none), and
    the count of roots is the bisection's: 12 cases a draw as one batch, as the tool evaluates many (2 corners of
    the ranges, each input at its lower or its upper end, and 10 cases uniform in them, from `seed`, which
    hypothesis prints)."""
    rng = np.random.default_rng(seed)
    cases = {k: np.concatenate([rng.choice([lo, hi], 2), rng.uniform(lo, hi, 10)]) for k, (lo, hi) in
             IRR_RANGES.items()}
    got = example_model().book.evaluate(cases, lines=["tco.savings_flow", "tco.irr_buy_roots", "tco.irr_buy"])
    for c in range(12):
        case = {k: float(v[c]) for k, v in cases.items()}
        roots = _irr_roots(got["tco.savings_flow"][c])
        assert got["tco.irr_buy_roots"][c].item() == len(roots), case
        if roots:
            assert got["tco.irr_buy"][c].item() == pytest.approx(roots[0], rel=1e-8, abs=1e-10), case
        else:
            assert math.isnan(got["tco.irr_buy"][c].item()), case


def test_the_equity_irr_is_proven_and_beside_its_hurdle() -> None:
    m = site_model(B200.name)
    assert bool(m.values["tco.equity_irr_proven"].item()) or math.isnan(v(m, "tco.equity_irr"))
    assert v(m, "tco.equity_hurdle") == pytest.approx(0.15)
    [root] = _irr_roots(v(m, "tco.equity_savings_flow"))
    assert v(m, "tco.equity_irr") == pytest.approx(root, rel=1e-9)


# ---------------------------------------------------------------- 4. paybacks, with and without the exit


def test_a_payback_that_rests_on_the_exit(tmp_path: Path) -> None:
    """Rent at 1.6 USD: 9,344 USD a month, 224,256 over the life, below the 240,000 paid; the 10% resale (24,000)
    at month 24 brings owning to 216,000, so buying gets ahead only then: payback month 24 with the exit, never
    without it, and the Summary says the payback rests on the exit."""
    m = hand(tmp_path, on_demand_price="1.6 USD/GPU/hour", residual_value=0.1)
    assert v(m, "tco.payback_month") == 24
    assert math.isnan(v(m, "tco.operating_payback_month"))
    assert bool(m.values["tco.payback_rests_on_exit"].item())
    line = m.book.lines["tco.operating_payback_month"]
    assert cached(line, m.values[line.id], values=m.values) == "never (ends behind)"
    ahead = hand(tmp_path, "ahead")  # rent at 2 USD: 21 either way
    assert v(ahead, "tco.payback_month") == v(ahead, "tco.operating_payback_month") == 21
    assert not bool(ahead.values["tco.payback_rests_on_exit"].item())


# ---------------------------------------------------------------- 5. the residual share's basis


def test_the_residual_share_is_observed_or_indexed_never_both(tmp_path: Path) -> None:
    """A 10% share of 240,000 with rent falling 20% a year: observed today (the default) it is 24,000 at exit; on a
    flat market's basis it is moved by the rent index of year 2 (0.8): 19,200. Each shows the other's effect on
    the NPV advantage at a 0% cost of capital and no tax: -4,800 and +4,800."""
    observed = hand(tmp_path, rent_price_change=-0.2, residual_value=0.1)
    assert v(observed, "tco.it_resale_value") == pytest.approx(24_000, rel=1e-12)
    assert v(observed, "tco.it_resale_value_other_basis") == pytest.approx(19_200, rel=1e-12)
    assert v(observed, "tco.residual_basis_effect") == pytest.approx(-4_800, rel=1e-12)
    flat = hand(tmp_path, "flat", rent_price_change=-0.2, residual_value=0.1, residual_basis="flat-market")
    assert v(flat, "tco.it_resale_value") == pytest.approx(19_200, rel=1e-12)
    assert v(flat, "tco.residual_basis_effect") == pytest.approx(4_800, rel=1e-12)
    assert v(flat, "tco.npv_advantage") - v(observed, "tco.npv_advantage") == pytest.approx(-4_800, rel=1e-9)


# ---------------------------------------------------------------- 6-7. risk drivers and the drivers sampled


def test_shapley_effects_of_a_correlated_linear_output_by_hand() -> None:
    """y = 2 a + b with a and b standard normal, correlated 0.5: Var y = 4 + 1 + 2 x 2 x 0.5 = 7; Var E[y|a] =
    (2 + 0.5)^2 = 6.25, Var E[y|b] = (1 + 2 x 0.5)^2 = 4. Shapley: a gets (6.25 + 7 - 4) / 2 / 7 = 66.1%, b 33.9%
    (Owen 2014's two-input formula); the rank correlations squared would say 4:1 of something else."""
    rng = np.random.default_rng(7)
    z = rng.standard_normal((200_000, 2))
    a = z[:, 0]
    b = 0.5 * z[:, 0] + math.sqrt(1 - 0.25) * z[:, 1]
    effects = shapley_effects([a, b], 2 * a + b)
    assert effects.shares[0] == pytest.approx((6.25 + 7 - 4) / 2 / 7, abs=0.005)
    assert effects.shares[1] == pytest.approx((4 + 7 - 6.25) / 2 / 7, abs=0.005)
    assert effects.explained == pytest.approx(1.0, abs=1e-9)


def test_an_input_that_does_not_vary_drives_nothing() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000)
    effects = shapley_effects([x, np.full(1000, 3.0)], x ** 2)
    assert effects.shares[1] == 0
    assert effects.shares[0] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("site", [EXAMPLE, B200], ids=["example", "b200"])
def test_the_risk_section_samples_what_the_tornado_says_matters(site: Path) -> None:
    """Every input the tornado shows moving the NPV advantage by more than 5% of the NPV of owning is sampled by
    the site's risk: section."""
    m = load(site)
    table = m.book.tables[0]
    scale = abs(v(m, "tco.npv_own"))
    width = 5 + 2 * len(table.outputs)
    sampled = set(yaml.safe_load(site.read_text())["risk"]["inputs"])
    movers = {key for key, row in zip(table.inputs, table.rows, strict=True)
              if any(isinstance(x, float) and abs(x) > 0.05 * scale for x in row[width:width + 2])}
    assert movers and movers <= sampled, movers - sampled


def test_the_tornado_swings_the_life_and_the_lead_time_by_whole_months(example: object) -> None:
    table = example.book.tables[0]
    rows = {key: row for key, row in zip(table.inputs, table.rows, strict=True)}
    assert rows["tco.useful_life"][2:5] == [48.0, 60.0, 72.0]
    assert rows["tco.lead_time"][2:5] == [0.0, 0.0, 3.0]  # no lead time below 0


def test_discrete_weights_that_do_not_sum_to_1_are_refused(tmp_path: Path) -> None:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["risk"]["inputs"]["tco.lead_time"]["weights"] = [0.4, 0.4, 0.4]
    path = tmp_path / "weights.yaml"
    path.write_text(yaml.safe_dump(data))
    site = load_site(path, all_specs())
    with pytest.raises(InputError) as err:
        read(site, all_specs())
    assert err.value.key == "risk.inputs.tco.lead_time.weights"


# ---------------------------------------------------------------- 8. smaller


def test_an_invalid_timeline_blanks_the_answer(tmp_path: Path) -> None:
    """A 12-month timeline cannot hold a 60-month life: the Summary's answers say n/a and which check fails."""
    m = load(site_file(tmp_path, "short", tco={"horizon": "12 months", "sensitivity_swing": 0.2}))
    assert not bool(m.values["checks.figures_valid"].item())
    assert not bool(m.values["tco.life_within_timeline"].item())
    for key in ("summary.answer", "summary.tco_npv_advantage", "summary.tco_irr_buy"):
        line = m.book.lines[key]
        assert cached(line, m.values[key], values=m.values).startswith("n/a: a check these figures rest on fails")
    assert "summary.valid_tco_life_within_timeline" in m.book.lines


def test_no_tax_is_said_and_listed_to_confirm(example: object) -> None:
    confirm = [line.id for line in example.book.lines.values() if line.id.startswith("summary.confirm_")]
    assert "summary.confirm_tco_tax_rate" in confirm
    shown = example.book.lines["summary.tax_rate_shown"]
    assert "no tax modelled" in shown.label


def test_a_month_number_has_no_total(example: object) -> None:
    for key in ("tco.service_month", "tco.reserved_term_start", "tco.behind_month", "tco.month"):
        assert not has_total(example.book.lines[key]), key
    assert has_total(example.book.lines["tco.own_flow"])


def test_readme_names_the_rent_cases() -> None:
    text = documents_text()
    for words in ("committed contract", "rent in force", "proven root", "MIRR", "Shapley"):
        assert words in text, words


def test_the_readme_figures_come_from_a_build(example: object) -> None:
    """The figures the README quotes for the rent cases and the operating payback are what a build gives."""
    import re

    text = documents_text()
    said = re.search(r"the NPV advantage is (-?[\d.]+) MUSD against on demand and (-?[\d.]+) MUSD against a "
                     r"committed contract", text)
    assert said is not None
    assert float(said.group(1)) == round(v(example, "tco.npv_advantage_on_demand") / 1e6, 1)
    assert float(said.group(2)) == round(v(example, "tco.npv_advantage_committed") / 1e6, 1)
    share = re.search(r"a 10% share read as ([\d.]+)% on the example", text)
    assert share is not None
    indexed = v(example, "tco.it_resale_value_other_basis") / v(example, "tco.it_resale_value")
    assert float(share.group(1)) == round(10 * indexed, 1)
    payback = re.search(r"\(B200: month (\d+) with them, never without\)", text)
    assert payback is not None
    b200 = site_model(B200.name)
    assert v(b200, "tco.payback_month") == int(payback.group(1))
    assert math.isnan(v(b200, "tco.operating_payback_month"))
    assert bool(b200.values["tco.payback_rests_on_exit"].item())


@pytest.mark.slow
def test_the_readme_shapley_figure_comes_from_the_risk() -> None:
    """The README's B200 on-demand price: a rank correlation near 0 (its correlated partner cancels it) but a share
    of the variance the Shapley effects give it."""
    import re

    from workbook.api import risk

    text = documents_text()
    said = re.search(r"on B200 the on-demand price's is ([+-][\d.]+) while its Shapley effect is ([\d.]+)%", text)
    assert said is not None
    result = risk(B200)
    [price] = [c for c in result.contributions if c.key == "tco.on_demand_price"]
    assert f"{price.rank:+.2f}" == said.group(1)
    assert f"{price.share * 100:.1f}" == said.group(2)
    irr = next(stat for stat in result.statistics if stat.line_id == "tco.irr_buy")
    assert irr.count + sum(n for _, n in irr.left_out) == result.kept  # every kept sample counted
