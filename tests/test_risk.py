"""Risk ranges (analysis.risk): the sampler and the quantiles on cases with a known answer, reproducibility from the
seed, the refusal of bad distributions in one line, and the Risk sheet's figures equal to the API's."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tests.conftest import EXAMPLE
from tests.helpers import B200, BASE, assert_one_line_error, invoke, site_with
from workbook import api, cli
from workbook.analysis.risk import analysis, sampling
from workbook.analysis.risk.analysis import PERCENTILES
from workbook.analysis.risk.section import Correlation, Distribution, RiskPlan
from workbook.build import define_models, load_all
from workbook.formula.evaluation import evaluate
from workbook.site.errors import InputError

SOURCE = "test range"


def plan(*inputs: Distribution, correlations: tuple[Correlation, ...] = ()) -> RiskPlan:
    return RiskPlan(10_000, 7, inputs, correlations)


def dist(key: str, kind: str, **params: float) -> Distribution:
    return Distribution(key, kind, tuple(params.items()), SOURCE)


def risk_site(tmp: Path, risk: dict[str, Any], name: str = "risky", **changes: Any) -> Path:
    """The example site (no scenarios) with its risk: section replaced."""
    data = site_with(changes or None, risk=risk)
    data.pop("scenarios", None)
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# ---------------------------------------------------------------- the sampler, on known answers


def test_a_uniform_inputs_quantiles_are_its_own_to_one_stratum():
    """A Latin hypercube puts exactly one sample in each of n equal strata: the empirical p-quantile of uniform(a,
    b) is a + p (b - a) to within one stratum's width."""
    a, b, n = 2.0, 5.0, 10_000
    x = sampling.draw(plan(dist("tco.on_demand_price", "uniform", low=a, high=b)), n, 11)["tco.on_demand_price"]
    counts = np.histogram(x, bins=n, range=(a, b))[0]
    assert (counts == 1).all()
    for p in (0.01, 0.1, 0.5, 0.9, 0.99):
        assert abs(np.quantile(x, p) - (a + p * (b - a))) <= (b - a) / n


def test_two_independent_normals_add_as_the_textbook_says():
    """X ~ N(1, 2), Y ~ N(-3, 1.5), bounds 8 sd away (the truncation moves nothing at this precision): X + Y ~
    N(-2, 2.5); its P90 is -2 + 1.2816 x 2.5 = 1.204; X and Y carry no rank correlation."""
    n = 20_000
    x = sampling.draw(plan(dist("tco.on_demand_price", "normal", mean=1.0, sd=2.0, low=-15.0, high=17.0),
                           dist("tco.rent_extras", "normal", mean=-3.0, sd=1.5, low=-15.0, high=9.0)), n, 5)
    total = x["tco.on_demand_price"] + x["tco.rent_extras"]
    assert total.mean() == pytest.approx(-2.0, abs=3 * 2.5 / np.sqrt(n))
    assert total.std() == pytest.approx(2.5, rel=0.02)
    assert np.quantile(total, 0.9) == pytest.approx(-2 + stats.norm.ppf(0.9) * 2.5, abs=0.06)
    assert abs(stats.spearmanr(x["tco.on_demand_price"], x["tco.rent_extras"]).statistic) < 4 / np.sqrt(n)


@pytest.mark.parametrize("target", [0.6, -0.4, 0.9])
def test_a_rank_correlation_is_recovered_within_sampling_error(target):
    """Iman-Conover on two skewed inputs: the samples' Spearman correlation is the target within 3 standard
    errors ((1 - rho^2) / sqrt(n)), and neither input's values change (only their pairing)."""
    n = 10_000
    corr = (Correlation("tco.utilisation", "tco.residual_value", target, SOURCE),)
    p = plan(dist("tco.utilisation", "triangular", low=0.3, mode=0.8, high=0.9),
             dist("tco.residual_value", "pert", low=0.0, mode=0.05, high=0.4, shape=4.0), correlations=corr)
    x = sampling.draw(p, n, 3)
    rho = stats.spearmanr(x["tco.utilisation"], x["tco.residual_value"]).statistic
    assert abs(rho - target) < 3 * (1 - target**2) / np.sqrt(n) + 1e-3
    alone = sampling.draw(RiskPlan(n, 3, p.inputs), n, 3)
    for key in alone:
        assert np.array_equal(np.sort(alone[key]), np.sort(x[key]))


def test_the_distributions_have_their_known_means_and_weights():
    """PERT: (low + 4 mode + high) / 6; triangular: (low + mode + high) / 3; a discrete choice is drawn in
    proportion to its weights (to one sample, a Latin hypercube's strata)."""
    n = 10_000
    pert = dist("tco.on_demand_price", "pert", low=2.0, mode=3.0, high=7.0, shape=4.0)
    tri = dist("tco.utilisation", "triangular", low=0.5, mode=0.7, high=0.85)
    lead = Distribution("tco.lead_time", "discrete", (), SOURCE, (3.0, 6.0, 9.0), (0.25, 0.5, 0.25))
    x = sampling.draw(plan(pert, tri, lead), n, 1)
    assert sampling.mean(pert) == pytest.approx((2 + 4 * 3 + 7) / 6)
    assert sampling.mean(tri) == pytest.approx((0.5 + 0.7 + 0.85) / 3)
    assert x["tco.on_demand_price"].mean() == pytest.approx((2 + 4 * 3 + 7) / 6, abs=1e-3)
    values, counts = np.unique(x["tco.lead_time"], return_counts=True)
    assert list(values) == [3.0, 6.0, 9.0]
    assert [abs(c - w * n) <= 1 for c, w in zip(counts, (0.25, 0.5, 0.25), strict=True)] == [True] * 3


def test_the_same_seed_gives_the_same_bits_and_another_seed_other_samples():
    corr = (Correlation("tco.utilisation", "tco.on_demand_price", 0.5, SOURCE),)
    p = plan(dist("tco.utilisation", "triangular", low=0.5, mode=0.7, high=0.85),
             dist("tco.on_demand_price", "lognormal", median=3.0, sigma=0.2, low=1.0, high=6.0), correlations=corr)
    one, two, other = sampling.draw(p, 5000, 42), sampling.draw(p, 5000, 42), sampling.draw(p, 5000, 43)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    assert not np.array_equal(one["tco.utilisation"], other["tco.utilisation"])


def test_the_partial_rank_correlation_tells_an_inputs_own_effect_from_its_partners():
    """y = x1 + x2, x1 and x2 independent; x3 moves with x1 (rank 0.8) and has no effect of its own. Spearman gives
    x3 a large correlation with y (through x1); the partial rank correlation gives it about 0, and x1 and x2 their
    own effects."""
    corr = (Correlation("tco.utilisation", "tco.residual_value", 0.8, SOURCE),)
    p = plan(dist("tco.utilisation", "uniform", low=0.0, high=1.0), dist("tco.on_demand_price", "uniform", low=0.0,
                                                                          high=1.0),
             dist("tco.residual_value", "uniform", low=0.0, high=1.0), correlations=corr)
    x = sampling.draw(p, 10_000, 8)
    y = x["tco.utilisation"] + x["tco.on_demand_price"]
    spearman = stats.spearmanr(x["tco.residual_value"], y).statistic
    partial = analysis.partial_rank_correlations([x[d.key] for d in p.inputs], y)
    assert spearman > 0.4
    assert abs(partial[2]) < 0.05
    assert partial[0] > 0.9 and partial[1] > 0.9


def direct_partial(inputs: list[np.ndarray], output: np.ndarray, k: int) -> float:
    """The textbook partial rank correlation, by regression: the ranks of input k and of the output, each less its
    least-squares fit on the other inputs' ranks and a constant, then correlated."""
    ranks = [stats.rankdata(x) for x in inputs]
    others = np.column_stack([np.ones(len(output)), *(r for j, r in enumerate(ranks) if j != k)])

    def rest(v: np.ndarray) -> np.ndarray:
        return v - others @ np.linalg.lstsq(others, v, rcond=None)[0]

    return float(np.corrcoef(rest(ranks[k]), rest(stats.rankdata(output)))[0, 1])


@pytest.mark.parametrize("seed", range(5))
def test_the_partial_rank_correlation_is_a_direct_regression_of_the_ranks(seed):
    """Against the regression itself, sign and size: three inputs (one with no spread, left out), an output of
    two of them and noise; and one input whose rank correlation is +1, where the inverse of the singular rank
    matrix gave -1."""
    rng = np.random.default_rng(seed)
    x = [rng.uniform(size=400), rng.uniform(size=400), np.full(400, 3.0), rng.uniform(size=400)]
    y = 2 * x[0] - x[1] + 0.3 * rng.normal(size=400)
    got = analysis.partial_rank_correlations(x, y)
    varied = [x[0], x[1], x[3]]
    assert got[2] == 0.0
    for k, g in zip((0, 1, 3), (got[0], got[1], got[3]), strict=True):
        assert g == pytest.approx(direct_partial(varied, y, (0, 1, 3).index(k)), abs=1e-9), (seed, k)
    assert got[0] > 0.5 > -0.5 > got[1]
    assert analysis.partial_rank_correlations([x[0]], 5 * x[0] + 1) == [pytest.approx(1.0)]
    assert analysis.partial_rank_correlations([x[0], np.full(400, 1.0)], -x[0]) == [pytest.approx(-1.0), 0.0]


def test_an_input_that_never_varies_gives_valid_json_and_no_warning(tmp_path):
    """A discrete input of one value, correlated with another: no rank correlation is defined. `risk --json` wrote
    "in_samples": NaN (not JSON) and scipy warned of a constant input; it writes null, and nothing on stderr."""
    path = risk_site(tmp_path, {"samples": 200, "inputs": {
        "tco.utilisation": GOOD,
        "tco.lead_time": {"distribution": "discrete", "values": ["3 months"], "weights": [1], "source": SOURCE}},
        "correlations": [{"between": ["tco.utilisation", "tco.lead_time"], "rank": 0.3, "source": SOURCE}]})
    proc = invoke("risk", path, "--json")
    assert (proc.returncode, proc.stderr) == (0, "")

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    printed = json.loads(proc.stdout, parse_constant=refuse)
    assert printed["correlations"][0]["in_samples"] is None


def test_a_range_up_to_the_inputs_own_limit_never_oversteps_it(tmp_path):
    """A truncated normal's high at utilisation's limit of 100%: scipy's inverse can overshoot a bound by a
    rounding; every sample stays within the input's range (or the evaluation would refuse it)."""
    path = risk_site(tmp_path, {"samples": 2000, "inputs": {"tco.utilisation": {
        "distribution": "normal", "mean": 0.95, "sd": 0.2, "low": 0.5, "high": 1.0, "source": SOURCE}}})
    result = api.risk(path)
    assert result.kept == 2000
    drawn = sampling.draw(load_all(path).risk, 2000, 20261205)["tco.utilisation"]
    assert drawn.max() <= 1.0 and drawn.min() >= 0.5


# ---------------------------------------------------------------- through the book


def test_a_linear_output_of_one_uniform_input_has_the_inputs_quantiles_mapped(tmp_path):
    """The NPV advantage is linear in the rent's extras (a monthly cost of renting, discounted and taxed alike):
    f(x) = f(a) + (x - a) (f(b) - f(a)) / (b - a), with f(a) and f(b) evaluated by hand. Under uniform(a, b), its
    percentiles are f of the input's (np.quantile's interpolation commutes with an increasing linear map)."""
    a, b = 10_000.0, 50_000.0
    path = risk_site(tmp_path, {"samples": 4000, "seed": 9, "inputs": {
        "tco.rent_extras": {"distribution": "uniform", "low": f"{a:g} USD/month", "high": f"{b:g} USD/month",
                            "source": SOURCE}}})
    result = api.risk(path)
    book, models = define_models(load_all(path))
    npv = models.money.npv_advantage.id
    ends = evaluate(book, {"tco.rent_extras": np.array([a, b])}, [npv])[npv][:, 0]
    drawn = sampling.draw(load_all(path).risk, 4000, 9)["tco.rent_extras"]
    slope = (ends[1] - ends[0]) / (b - a)
    for p, got in zip(PERCENTILES, result.decision.percentiles, strict=True):
        assert got == pytest.approx(ends[0] + (np.quantile(drawn, p / 100) - a) * slope, rel=1e-9)
    assert result.contributions[0].rank == pytest.approx(1.0)  # rent's extras raise the NPV advantage of buying
    assert result.probability_buy_wins == pytest.approx(float(np.mean(ends[0] + (drawn - a) * slope > 0)))


def test_the_example_and_b200_sites_risk_is_reproducible_and_sourced():
    """Both sites carry a risk: section over the inputs the issue names, each with its source; the same seed gives
    the same figures, another seed figures within sampling error of them."""
    for site in (EXAMPLE, B200):
        loaded = load_all(site)
        varied = {d.key for d in loaded.risk.inputs}
        assert {"tco.utilisation", "tco.on_demand_price", "tco.rent_price_change", "tco.electricity_price",
                "tco.residual_value", "tco.lead_time"} <= varied
        assert all(d.source for d in loaded.risk.inputs)
    one, two = api.risk(EXAMPLE, samples=2000), api.risk(EXAMPLE, samples=2000)
    assert one.dataframe().equals(two.dataframe())
    other = api.risk(EXAMPLE, samples=2000, seed=1)
    assert other.probability_buy_wins != one.probability_buy_wins or other.curve != one.curve
    assert abs(other.probability_buy_wins - one.probability_buy_wins) < 4 * np.sqrt(0.25 / 2000)


# ---------------------------------------------------------------- refusals


GOOD = {"distribution": "triangular", "low": 0.5, "mode": 0.7, "high": 0.85, "source": SOURCE}
BAD = [  # (the inputs: entry or the whole section changed, the key the error names)
    ({"tco.utilisation": {**GOOD, "mode": 0.9}}, "risk.inputs.tco.utilisation.mode"),
    ({"tco.utilisation": {**GOOD, "low": 0.9}}, "risk.inputs.tco.utilisation.low"),
    ({"tco.utilisation": {**GOOD, "high": 1.5}}, "risk.inputs.tco.utilisation.high"),
    ({"tco.utilisation": {**GOOD, "distribution": "beta"}}, "risk.inputs.tco.utilisation.distribution"),
    ({"tco.utilisation": {**GOOD, "distribution": ["pert"]}}, "risk.inputs.tco.utilisation.distribution"),
    ({"tco.utilisation": {**GOOD, "source": ""}}, "risk.inputs.tco.utilisation.source"),
    ({"tco.utilisation": {**GOOD, "source": "a\x1b[2Jb"}}, "risk.inputs.tco.utilisation.source"),
    ({"tco.utilisation": {**GOOD, "median": 3}}, "risk.inputs.tco.utilisation"),
    ({"tco.utilisatoin": GOOD}, "risk.inputs.tco.utilisatoin"),
    ({"tco.horizon": {**GOOD, "low": "60 months", "mode": "90 months", "high": "120 months"}},
     "risk.inputs.tco.horizon"),
    ({"tco.financing": GOOD}, "risk.inputs.tco.financing"),
    ({"tco.lead_time": {**GOOD, "low": "1 month", "mode": "2 months", "high": "3 months"}},
     "risk.inputs.tco.lead_time.distribution"),
    ({"tco.lead_time": {"distribution": "discrete", "values": ["3 months", "6 months"], "weights": [1],
                        "source": SOURCE}}, "risk.inputs.tco.lead_time.weights"),
    ({"tco.lead_time": {"distribution": "discrete", "values": ["3 months", "6.5 months"], "weights": [0.5, 0.5],
                        "source": SOURCE}}, "risk.inputs.tco.lead_time.values[1]"),
    ({"tco.electricity_price": {"distribution": "normal", "mean": "0.08 USD/kWh", "sd": "0 USD/kWh",
                                "low": "0.04 USD/kWh", "high": "0.2 USD/kWh", "source": SOURCE}},
     "risk.inputs.tco.electricity_price.sd"),
    ({"tco.electricity_price": {"distribution": "normal", "mean": 0.08, "sd": "0.01 USD/kWh",
                                "low": "0.04 USD/kWh", "high": "0.2 USD/kWh", "source": SOURCE}},
     "risk.inputs.tco.electricity_price.mean"),
    ({"tco.rent_price_change": {"distribution": "lognormal", "median": -0.1, "sigma": 0.2, "low": -0.3,
                                "high": 0.0, "source": SOURCE}}, "risk.inputs.tco.rent_price_change.low"),
]


@pytest.mark.parametrize(("inputs", "key"), BAD, ids=[key for _, key in BAD])
def test_a_bad_distribution_is_refused_naming_its_key(tmp_path, inputs, key):
    path = risk_site(tmp_path, {"inputs": inputs})
    with pytest.raises(InputError) as e:
        load_all(path)
    assert e.value.key == key
    assert e.value.file == path
    assert "\n" not in str(e.value)


CORRELATED = {"tco.utilisation": GOOD, "tco.on_demand_price": {**GOOD, "low": "2 USD/GPU/hour",
                                                                "mode": "3 USD/GPU/hour", "high": "4 USD/GPU/hour"},
              "tco.residual_value": {**GOOD, "low": 0, "mode": 0.1, "high": 0.2}}
PAIRS = [("tco.utilisation", "tco.on_demand_price"), ("tco.utilisation", "tco.residual_value"),
         ("tco.on_demand_price", "tco.residual_value")]


@pytest.mark.parametrize(("ranks", "key"), [
    ((0.9, 0.9, -0.9), "risk.correlations"),  # cannot hold together: not positive definite
    ((1.0, None, None), "risk.correlations"),  # two inputs made one
    ((1.5, None, None), "risk.correlations[0].rank"),
], ids=["not-positive-definite", "exactly-one", "above-one"])
def test_correlations_that_cannot_hold_are_refused(tmp_path, ranks, key):
    correlations = [{"between": list(pair), "rank": r, "source": SOURCE}
                    for pair, r in zip(PAIRS, ranks, strict=True) if r is not None]
    path = risk_site(tmp_path, {"inputs": CORRELATED, "correlations": correlations})
    with pytest.raises(InputError) as e:
        load_all(path)
    assert e.value.key == key


@pytest.mark.parametrize(("section", "key"), [
    ({"samples": 5, "inputs": {"tco.utilisation": GOOD}}, "risk.samples"),
    ({"seed": -1, "inputs": {"tco.utilisation": GOOD}}, "risk.seed"),
    ({"inputs": {}}, "risk.inputs"),
    ({"sample": 100, "inputs": {"tco.utilisation": GOOD}}, "risk.sample"),
    ([1, 2], "risk"),
])
def test_a_bad_risk_section_is_refused(tmp_path, section, key):
    with pytest.raises(InputError) as e:
        load_all(risk_site(tmp_path, section))
    assert e.value.key == key


def test_a_scenario_may_not_change_a_distribution(tmp_path):
    data = copy.deepcopy(BASE)
    data["scenarios"] = {"wide": {"risk.samples": 100}}
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError) as e:
        api.load(path)  # a scenario's changes are checked where its lines are defined
    assert e.value.scenario == "wide"
    assert e.value.key == "risk.samples"


def test_the_command_refuses_in_one_line_and_writes_nothing(tmp_path):
    path = risk_site(tmp_path, {"inputs": {"tco.utilisation": {**GOOD, "mode": 0.95}}})
    out = tmp_path / "out.xlsx"
    err = assert_one_line_error(invoke("build", path, "-o", out), f"error: {path}")
    assert "risk.inputs.tco.utilisation.mode" in err
    assert not out.exists()
    assert "risk.samples" in assert_one_line_error(invoke("risk", EXAMPLE, "--samples", "10"))


# ---------------------------------------------------------------- the Risk sheet, the Summary, the command


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Any]:
    """The example with its risk: section at 2,000 samples, built, and the API's figures for the same file."""
    tmp = tmp_path_factory.mktemp("risk")
    data = copy.deepcopy(BASE)
    data["risk"]["samples"] = 2000
    path = tmp / "example-risk.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp / "example-risk.xlsx"
    api.build(path, out)
    return out, api.risk(path)


def stored(x: float) -> Any:
    """A number as the workbook holds it: xlsxwriter writes 16 significant digits (`{:.16G}`); n/a for none."""
    return "n/a" if isinstance(x, float) and np.isnan(x) else float(f"{x:.16G}")


def _found(ws: Any, label: str) -> int:
    return next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == label)


def test_the_risk_sheets_figures_are_the_apis(built):
    out, result = built
    ws = openpyxl.load_workbook(out)["Risk"]
    assert ws.cell(_found(ws, "Probability that buying wins"), 3).value == stored(result.probability_buy_wins)
    assert ws.cell(_found(ws, "Expected shortfall: mean NPV advantage in the worst 10%"), 3).value == stored(
        result.expected_shortfall)
    for stat in result.statistics:
        r = _found(ws, stat.label)
        row = [ws.cell(r, c).value for c in range(3, 12)]
        expected = [stat.base, stat.mean, *stat.percentiles, stat.base_percentile, stat.count]
        assert row == [stored(float(x)) for x in expected]
    for c in result.contributions:
        r = _found(ws, c.label)
        assert [ws.cell(r, col).value for col in (3, 4, 5)] == [stored(c.share), stored(c.rank), stored(c.partial)]
    assert len(ws._charts) == 4  # the S-curve, the histogram, the drivers, the convergence


def test_the_summary_shows_the_odds_and_the_p10_to_p90(built):
    out, result = built
    ws = openpyxl.load_workbook(out)["Summary"]
    texts = [str(cell.value) for row in ws.iter_rows() for cell in row if isinstance(cell.value, str)]
    d = result.decision
    assert f"Probability that buying wins (NPV advantage above 0): {result.probability_buy_wins:.0%}." in texts
    assert any(f"P10 to P90: {d.percentiles[1] / 1e6:+,.1f} to {d.percentiles[3] / 1e6:+,.1f} MUSD" in t
               for t in texts)


def test_the_command_prints_the_same_figures_as_json():
    proc = invoke("risk", EXAMPLE, "--samples", "1000", "--seed", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    result = api.risk(EXAMPLE, samples=1000, seed=3)
    assert printed["probability_buy_wins"] == result.probability_buy_wins
    assert printed["outputs"]["tco.npv_advantage"]["P50"] == result.decision.percentiles[2]
    assert [(c["input"], c["partial_rank_correlation"]) for c in printed["contributions"]] == [
        (c.key, c.partial) for c in result.contributions]


# ---------------------------------------------------------------- samples the model cannot count


def test_a_sample_that_breaks_a_check_is_left_out_and_counted(tmp_path):
    """Lead time 0 or 40 months, half each: 40 + the 60-month life overruns the 96-month timeline (the validity
    check the tornado also honours), so those samples are left out, counted by their reason, and the figures are
    those of the samples with lead time 0 alone."""
    lead = {"distribution": "discrete", "values": ["0 months", "40 months"], "weights": [0.5, 0.5], "source": SOURCE}
    mixed = api.risk(risk_site(tmp_path, {"samples": 1000, "seed": 4, "inputs": {"tco.utilisation": GOOD,
                                                                                  "tco.lead_time": lead}}))
    drawn = sampling.draw(load_all(risk_site(tmp_path, {"samples": 1000, "seed": 4, "inputs": {
        "tco.utilisation": GOOD, "tco.lead_time": lead}}, name="again")).risk, 1000, 4)
    late = int((drawn["tco.lead_time"] == 40).sum())
    assert 499 <= late <= 501  # a Latin hypercube's strata: the weights to one sample
    assert mixed.excluded == {"fails the check: The lead time, the useful life and the tax lag fit the timeline": late}
    assert mixed.kept == 1000 - late
    on_time = drawn["tco.utilisation"][drawn["tco.lead_time"] == 0]
    book, models = define_models(load_all(EXAMPLE))
    npv = models.money.npv_advantage.id
    alone = evaluate(book, {"tco.utilisation": on_time}, [npv])[npv][:, 0]
    assert mixed.decision.percentiles == tuple(float(x) for x in np.quantile(alone, np.array(PERCENTILES) / 100))


def test_ranges_that_leave_no_sample_are_refused_in_one_line(tmp_path):
    lead = {"distribution": "discrete", "values": ["40 months"], "weights": [1], "source": SOURCE}
    path = risk_site(tmp_path, {"samples": 100, "inputs": {"tco.lead_time": lead}})
    with pytest.raises(InputError) as e:
        api.risk(path)
    assert (e.value.file, e.value.key) == (path, "risk.inputs")
    assert "\n" not in str(e.value)


def test_a_next_fleets_file_has_no_risk_section(tmp_path):
    site = (EXAMPLE.parent / "example-b200-upgrade.yaml")
    (tmp_path / "fleets").mkdir()
    fleet = yaml.safe_load((EXAMPLE.parent / "fleets" / "b200-liquid-512.yaml").read_text())
    fleet["risk"] = {"inputs": {"tco.utilisation": GOOD}}
    (tmp_path / "fleets" / "b200-liquid-512.yaml").write_text(yaml.safe_dump(fleet, sort_keys=False))
    (tmp_path / site.name).write_text(site.read_text())
    with pytest.raises(InputError) as e:
        load_all(tmp_path / site.name)
    assert (e.value.file, e.value.key) == (tmp_path / "fleets" / "b200-liquid-512.yaml", "risk")


# ---------------------------------------------------------------- every distribution, any valid parameters

@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["uniform", "triangular", "pert", "normal", "lognormal"]),
       points=st.lists(st.floats(0.01, 1e6), min_size=3, max_size=3, unique=True),
       spread=st.floats(0.01, 10), seed=st.integers(0, 2**32 - 1))
def test_every_sample_lies_in_its_range_and_the_mean_is_the_distributions(kind, points, spread, seed):
    """For any valid parameters: every sample within [low, high], and their mean the distribution's within four
    standard errors (a Latin hypercube is closer still). Hypothesis prints the failing parameters and seed."""
    low, mid, high = sorted(points)
    params = {"uniform": {"low": low, "high": high}, "triangular": {"low": low, "mode": mid, "high": high},
              "pert": {"low": low, "mode": mid, "high": high, "shape": 4.0},
              "normal": {"mean": mid, "sd": spread * (high - low), "low": low, "high": high},
              "lognormal": {"median": mid, "sigma": min(spread / 4, 3.0), "low": low, "high": high}}[kind]
    d = dist("tco.on_demand_price", kind, **params)
    x = sampling.draw(RiskPlan(2000, seed, (d,)), 2000, seed)["tco.on_demand_price"]
    assert ((x >= low) & (x <= high)).all()
    assert abs(x.mean() - sampling.mean(d)) <= 4 * (high - low) / np.sqrt(2000) + 1e-9 * high


def test_the_init_skeletons_risk_example_reads_as_a_valid_section(tmp_path):
    """The commented risk: block `init` writes, uncommented, is a section the example site accepts."""
    out = tmp_path / "new.yaml"
    assert invoke("init", "--gpu", "H100-SXM", "--node", "DGX-H100", "-o", out).returncode == 0
    lines = out.read_text().splitlines()
    start = lines.index("# risk:")
    block = "\n".join(line[2:] for line in lines[start:] if line.startswith("# ") and not line.startswith("# ---"))
    section = yaml.safe_load(block)["risk"]
    plan = load_all(risk_site(tmp_path, section)).risk
    assert [d.key for d in plan.inputs] == ["tco.utilisation", "tco.electricity_price"]


# ---------------------------------------------------------------- sampled only where a risk figure is asked for


@pytest.fixture(scope="module")
def returned_copies(tmp_path_factory) -> tuple[Path, Path, Path]:
    """The example with its risk: section at 100 samples, its workbook (built before the sampler is counted) and a
    vendor's copy filled: what every command of the CLI needs."""
    from tests.helpers import filled

    tmp = tmp_path_factory.mktemp("sampled")
    data = copy.deepcopy(BASE)
    data["risk"]["samples"] = 100  # the fewest: the counting is what is tested here
    site = tmp / "example.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    assert cli.main(["build", str(site), "-o", str(tmp / "example.xlsx")]) == 0
    assert cli.main(["quote", str(site), "--vendor", "Acme", "-o", str(tmp / "copy.xlsx")]) == 0
    returned = filled((site, tmp / "copy.xlsx"), tmp / "returned.xlsx", {"nodes": (262000, 14, None)})
    return site, tmp / "example.xlsx", returned


def commands(site: Path, built: Path, returned: Path, out: Path) -> dict[str, list[str]]:
    return {"build": ["build", str(site), "-o", str(out / "b.xlsx")],
            "risk": ["risk", str(site)],
            "evaluate": ["evaluate", str(site), "--json"],
            "quote": ["quote", str(site), "--vendor", "Beta", "-o", str(out / "q.xlsx")],
            "import-quote": ["import-quote", str(returned), "--site", str(site)],
            "import-inputs": ["import-inputs", str(built), "--site", str(site)]}


SAMPLED = {"build": 1, "risk": 1, "evaluate": 0, "quote": 0, "import-quote": 0, "import-inputs": 0}


@pytest.mark.slow
@pytest.mark.parametrize("command", SAMPLED)
def test_only_a_command_that_shows_a_risk_figure_samples_once(command, returned_copies, tmp_path, monkeypatch):
    """A million samples made every command take two minutes (import-inputs, which builds twice, four and a half):
    the risk: section is sampled by build, pdf (the same rendering as build) and risk, once each, and by no other."""
    original, built, returned = returned_copies
    site = tmp_path / original.name  # each command its own site file: an import adds to it
    site.write_bytes(original.read_bytes())
    draws = []
    draw = sampling.draw
    monkeypatch.setattr(sampling, "draw", lambda *args: draws.append(args) or draw(*args))
    assert cli.main(commands(site, built, returned, tmp_path)[command]) == 0
    assert len(draws) == SAMPLED[command]


def test_a_book_without_its_risk_figures_is_laid_out_as_built_and_never_written(tmp_path):
    """evaluate's cells and import-inputs' Inputs sheet are the build's: the unsampled book places every line where
    the sampled one does; a document showing the Summary or the Risk sheet is refused, the engineering copy is not."""
    from workbook.book.document import engineering_copy
    from workbook.build import build_book
    from workbook.excel.layout import plan as layout_of

    data = copy.deepcopy(BASE)
    data["risk"]["samples"] = 100
    site = tmp_path / "example.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    sampled, unsampled = (build_book(load_all(site), risk=risk) for risk in (True, False))
    assert layout_of(unsampled).cells == layout_of(sampled).cells
    model = api.Model(load_all(site).site, unsampled, unsampled.evaluate())
    with pytest.raises(ValueError):
        api.save(model, tmp_path / "x.xlsx")
    assert not (tmp_path / "x.xlsx").exists()
    api.save(model, tmp_path / "engineering.xlsx", engineering_copy(model.book))
    assert (tmp_path / "engineering.xlsx").exists()


def test_samples_past_what_a_minute_draws_are_refused(tmp_path):
    """The largest allowed value (templates/limits.yaml, with the rate it rests on) keeps a build under a minute;
    a million, once inside the range, is refused in one line by the build and by the command."""
    from workbook.analysis.risk.section import SETTINGS

    largest = next(s for s in SETTINGS if s.key == "risk.samples").hi
    assert largest == 200_000
    data = copy.deepcopy(BASE)
    data["risk"]["samples"] = largest
    site = tmp_path / "largest.yaml"
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    assert load_all(site).risk.samples == largest  # read, not sampled
    data["risk"]["samples"] = 1_000_000
    site.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError) as refused:
        load_all(site)
    assert (refused.value.key, refused.value.value) == ("risk.samples", 1_000_000)
    assert_one_line_error(invoke("build", site, "-o", tmp_path / "x.xlsx"), f"error: {site}")
    assert "risk.samples" in assert_one_line_error(invoke("risk", EXAMPLE, "--samples", "1000000"))
    assert not (tmp_path / "x.xlsx").exists()


def test_a_flood_of_repeated_correlations_names_the_first_hundred_and_the_count(tmp_path):
    """A 1 MB risk: section of 10,600 repeated correlations printed 10,600 lines (1.9 MB): the first 100 problems
    are printed, then how many there are; the API's error still holds every one."""
    text = EXAMPLE.read_text()
    line = '    - {between: [tco.on_demand_price, tco.rent_price_change], rank: -0.4, source: "a pair"}\n'
    at = text.index("  correlations:\n") + len("  correlations:\n")
    path = tmp_path / "flood.yaml"
    path.write_text(text[:at] + line * 10_600 + text[at:])
    assert path.stat().st_size < 1_000_000  # inside the site file's size limit
    with pytest.raises(InputError) as refused:
        load_all(path)
    assert len(refused.value.errors) == 10_600 and refused.value.key == "risk.correlations[1].between"
    proc = invoke("build", path, "-o", tmp_path / "x.xlsx")
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 101 and "10,600 problems" in lines[-1]
    assert lines[:100] == [f"error: {e}" for e in refused.value.errors[:100]]
    assert not (tmp_path / "x.xlsx").exists()


def test_the_example_of_a_normals_sd_is_a_spread(tmp_path):
    """The key's own example was shown for its sd: `sd: -0.1` for the rent change, a spread that is refused."""
    normal = {"distribution": "normal", "mean": -0.1, "sd": -0.07, "low": -0.3, "high": 0.05, "source": SOURCE}
    with pytest.raises(InputError) as refused:
        load_all(risk_site(tmp_path, {"inputs": {"tco.rent_price_change": normal}}))
    assert refused.value.key == "risk.inputs.tco.rent_price_change.sd"
    example = refused.value.expected.rpartition("e.g. sd: ")[2]
    assert float(example.split()[0]) > 0
