"""Rent vs buy: each finance convention with its arithmetic written out by hand, scenarios and sensitivity.

The HAND site is one 8-GPU node bought for 240,000 USD with nothing else costing anything, a 2-year life, rent
at 2 USD/GPU-h and full utilisation, prices that do not move and no tax, so every figure can be worked on paper;
each test then changes one thing.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.helpers import B200, example_model, example_workbook, hand, invoke, site_file, site_model, v
from workbook.api import build, evaluation, load
from workbook.excel.layout import FIRST_PERIOD

RENT = 8 * 730 * 1.0 * 2.0  # 8 GPUs x 730 h x full use x 2 USD = 11,680 USD a month






def monthly(rate: float) -> float:
    return (1 + rate) ** (1 / 12) - 1


# ---------------------------------------------------------------- 3. capex at time 0, on a deployment schedule


def test_capex_is_paid_at_time_0_and_not_discounted(tmp_path: Path) -> None:
    """At a 12% cost of capital, capex paid at the start (time 0) is not discounted: the NPV of owning is the
    240,000 USD paid, where the old timeline paid it at the end of month 1 and showed 240,000 / 1.00949."""
    m = hand(tmp_path, cost_of_capital=0.12)
    assert v(m, "tco.own_flow")[0] == 240_000  # the Start column
    assert v(m, "tco.npv_own") == pytest.approx(240_000, rel=1e-15)
    # Equivalent annual cost: the NPV spread as a level amount over the 24 discounted service months, x 12.
    r = monthly(0.12)
    annuity = sum((1 + r) ** -k for k in range(1, 25))  # 21.3122... discounted service months
    assert v(m, "tco.pv_service_months") == pytest.approx(annuity, rel=1e-12)
    assert v(m, "tco.owned_annual_cost") == pytest.approx(240_000 / annuity * 12, rel=1e-12)
    # Levelised cost per GPU-hour: 240,000 / (8 GPUs x 730 h x 21.3122) = 1.9289 USD
    assert v(m, "tco.owned_cost_per_gpu_hour") == pytest.approx(240_000 / (8 * 730 * annuity), rel=1e-12)


def test_deployment_schedule_deposit_then_balance_on_delivery(tmp_path: Path) -> None:
    """A 3-month lead time with a 25% deposit: 60,000 at order (time 0), 180,000 on delivery at the end of month
    3; service months 4 to 27. NPV of owning at 12% = 60,000 + 180,000 / (1 + r)^3."""
    m = hand(tmp_path, cost_of_capital=0.12, lead_time="3 months", deposit_share=0.25)
    r = monthly(0.12)
    capex = v(m, "tco.capex_flow")
    assert capex[:5].tolist() == [60_000, 0, 0, 180_000, 0]
    assert v(m, "tco.in_service").tolist()[:29] == [0] * 4 + [1] * 24 + [0]
    assert v(m, "tco.npv_own") == pytest.approx(60_000 + 180_000 / (1 + r) ** 3, rel=1e-12)
    # the rent is paid in the same months as the service it replaces
    assert v(m, "tco.npv_rent") == pytest.approx(sum(RENT / (1 + r) ** k for k in range(4, 28)), rel=1e-12)


def test_a_month_of_delay_counts_the_carry_and_the_lost_gpu_hours(tmp_path: Path) -> None:
    """A month of delay: rent the lost GPU-hours (8 x 730 x 1.0 = 5,840 GPU-h x 2 USD = 11,680), carry the
    capital a month longer (240,000 x 0.949% = 2,277.6) and pay the month's fixed costs (colo 1,000 + staff
    10,000 a month here): 24,957.6 USD."""
    m = hand(tmp_path, cost_of_capital=0.12, colo_price="1000 USD/kW/month", staff_fte=1,
             staff_cost="120000 USD/year")
    capacity = v(m, "tco.facility_capacity")
    assert v(m, "tco.delay_gpu_hours") == pytest.approx(5_840)
    assert v(m, "tco.delay_rent") == pytest.approx(11_680)
    assert v(m, "tco.delay_carry") == pytest.approx(240_000 * monthly(0.12), rel=1e-12)
    assert v(m, "tco.delay_fixed_costs") == pytest.approx(capacity * 1000 + 10_000, rel=1e-12)
    assert v(m, "tco.delay_cost") == pytest.approx(11_680 + 240_000 * monthly(0.12) + capacity * 1000 + 10_000)


# ---------------------------------------------------------------- 4. payback both ways; the coherent break-even


def test_payback_undiscounted_and_discounted(tmp_path: Path) -> None:
    """Cumulative rent 11,680 x m first covers the 240,000 paid at month 21 (20 x 11,680 = 233,600 < 240,000 <=
    245,280). Discounted at 12%, the months' rents are worth less: the month m where 11,680 x (1 - (1+r)^-m) / r
    first reaches 240,000 is 23."""
    m = hand(tmp_path, cost_of_capital=0.12)
    assert v(m, "tco.payback_month") == 21
    r = monthly(0.12)
    by_hand = next(k for k in range(1, 25) if RENT * (1 - (1 + r) ** -k) / r >= 240_000)
    assert by_hand == 23
    assert v(m, "tco.discounted_payback_month") == by_hand


@pytest.mark.slow
def test_break_even_is_the_root_where_the_npvs_are_equal(tmp_path: Path) -> None:
    """On the example (energy rises with utilisation; rent extras are part of the rent), the break-even
    utilisation is where the NPVs of owning and of renting on demand are equal. The old line,
    EAC / (GPUs x 8760 x on-demand price), held energy at the planned utilisation and left the extras out."""
    base = load(site_file(tmp_path, "example", tco={"rent_price_change": 0.0}))
    u = v(base, "tco.break_even_utilisation")
    assert 0.5 < u < 0.99
    at = base.book.evaluate({"tco.utilisation": np.array([u, u * 0.99, u * 1.01])})
    own, rent = at["tco.npv_own"][:, 0], at["tco.npv_rent"][:, 0]
    assert own[0] == pytest.approx(rent[0], rel=1e-9)
    assert own[1] > rent[1] and own[2] < rent[2]  # renting cheaper below it, owning above


def test_no_gpu_hours_shows_a_message_not_div0(tmp_path: Path, libreoffice: str) -> None:
    from tests.parity import build_all, check

    path = site_file(tmp_path, "idle", tco={"utilisation": 0.0})
    built = build_all([path], tmp_path / "built")
    outcome = check(built, tmp_path)
    assert outcome.problems == []
    model, layout = built[0].model, built[0].layout
    sheet, row, col = layout.cells["tco.owned_cost_per_gpu_hour"]
    ws = openpyxl.load_workbook(built[0].xlsx, data_only=True)[sheet]
    from workbook.models.tco.answers import NO_HOURS

    assert ws.cell(row + 1, col + 1).value == NO_HOURS
    assert evaluation(model)["lines"]["tco.owned_cost_per_gpu_hour"]["value"] is None




@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(price=st.floats(0.5, 10), util=st.floats(0.05, 1.0))
def test_owning_cheaper_exactly_above_break_even(price: float, util: float) -> None:
    """With no reservation, renting costs more than owning (in NPV) exactly when utilisation is above the
    break-even, which does not depend on the planned utilisation."""
    out = example_model().book.evaluate({"tco.on_demand_price": np.array([price]), "tco.utilisation": np.array([util])})
    own, rent = out["tco.npv_own"].item(), out["tco.npv_rent"].item()
    assert (rent > own) == (util > out["tco.break_even_utilisation"].item()) or abs(rent - own) < 1e-9 * own


# ---------------------------------------------------------------- 1. facility prices on critical IT capacity


@pytest.mark.slow
def test_colocation_is_charged_on_critical_it_capacity_not_the_feed(tmp_path: Path) -> None:
    """Example: IT load = 128 nodes x 10.2 kW (the DGX H100's maximum input, which holds its own transceivers) +
    46.579 kW of switches (57 x 747 W + 8 in-band x 500 W) + 28.458 kW of switch-side optics + 5.0224 kW storage
    (Reliability sheet: 2 appliances x 2.5 kW + 22.4 TB x 1 W/TB) + 8 kW management = 1,393.6594 kW; the vendor's
    maximum covers the GPUs' synchronised steps, so peak IT = IT load. Critical IT capacity = 1,393.6594 x 1.1 =
    1,533.025 kW; colocation = 1,533.025 x 184.06 = 282,168.6 USD a month. Charged on the feed (critical x PUE 1.49
    = 2,284.21 kW), it would be 420,431.3: the PUE paid twice, since energy is billed at the PUE already."""
    critical = load(site_file(tmp_path, "critical"))
    it = 128 * 10.2 + 57 * 0.747 + 8 * 0.5 + 28.458 + (2 * 2.5 + 22.4 / 1000) + 8
    assert v(critical, "power.it_load") == pytest.approx(it, rel=1e-12)
    assert v(critical, "power.peak_it_load") == pytest.approx(it, rel=1e-12)
    assert v(critical, "power.critical_it_capacity") == pytest.approx(it * 1.1, rel=1e-12)
    assert v(critical, "tco.colo_cost") == pytest.approx(it * 1.1 * 184.06, rel=1e-12)
    assert v(critical, "tco.colo_cost") == pytest.approx(282_168.6, abs=0.1)
    feed = load(site_file(tmp_path, "feed", tco={"facility_price_basis": "feed"}))
    assert v(feed, "tco.colo_cost") == pytest.approx(420_431.3, abs=0.1)
    assert v(feed, "tco.colo_cost") / v(critical, "tco.colo_cost") == pytest.approx(1.49, rel=1e-12)
    # energy carries the PUE in both: it is the same line
    assert v(feed, "tco.energy_cost") == v(critical, "tco.energy_cost")


@pytest.mark.slow
def test_build_cost_is_per_mw_of_critical_it(tmp_path: Path) -> None:
    m = site_model(B200.name)
    assert v(m, "tco.facility_capex") == pytest.approx(v(m, "power.critical_it_capacity") / 1000 * 11.7e6, rel=1e-12)


# ---------------------------------------------------------------- 2. the decision is on unlevered flows


DECISION = ["tco.npv_own", "tco.npv_rent", "tco.irr_buy", "tco.owned_annual_cost", "tco.owned_cost_per_gpu_hour",
            "tco.break_even_utilisation", "tco.payback_month", "tco.discounted_payback_month"]


@pytest.mark.slow
def test_the_decision_does_not_depend_on_the_financing(tmp_path: Path) -> None:
    """The B200 site with its 60% loan at 7.5% and the same site paid in cash give the same answers: the loan is
    discounted at its own rate beside the decision, not at the WACC inside it (which made 5.2 M of value from
    nothing and an IRR of 45% instead of 27.5%)."""
    loan = site_model(B200.name)
    cash_site = yaml.safe_load(B200.read_text())
    cash_site["tco"] = {k: x for k, x in cash_site["tco"].items() if not k.startswith("loan")}
    cash_site["tco"]["financing"] = "cash"
    cash = load(site_file(tmp_path, "cash", base=cash_site))
    for key in DECISION:
        assert np.array_equal(loan.values[key], cash.values[key], equal_nan=True), key
    # the WACC already holds the debt's tax shield: no APV adjustment is added to the decision (issue 26)
    assert "tco.apv_own" not in loan.values and "tco.financing_value" not in loan.values


def test_the_equity_irr_beside_the_project_irr(tmp_path: Path) -> None:
    """HAND with a 50% loan at 12% over 2 years (no fee, no tax): 120,000 drawn at time 0 against the 240,000, repaid
    from month 1 in 24 level payments. The project IRR is the IRR of rent - owning (numpy-financial), the equity's
    the IRR of rent - (owning + financing); both annualised from months."""
    import numpy_financial as npf

    m = hand(tmp_path, financing="loan", loan_share=0.5, loan_rate=0.12, loan_term="2 years", loan_fee_share=0.0,
             on_demand_price="2.5 USD/GPU/hour")
    i = monthly(0.12)
    payment = 120_000 * i / (1 - (1 + i) ** -24)
    assert v(m, "tco.loan_payment") == pytest.approx(payment, rel=1e-12)
    rent = [0.0] + [8 * 730 * 2.5] * 24 + [0.0] * 12
    own = [240_000.0] + [0.0] * 36
    equity = [240_000.0 - 120_000] + [payment] * 24 + [0.0] * 12
    project = (1 + npf.irr([r - o for r, o in zip(rent, own, strict=True)])) ** 12 - 1
    levered = (1 + npf.irr([r - e for r, e in zip(rent, equity, strict=True)])) ** 12 - 1
    assert v(m, "tco.project_irr") == v(m, "tco.irr_buy") == pytest.approx(project, rel=1e-9)
    assert v(m, "tco.equity_irr") == pytest.approx(levered, rel=1e-9)
    assert v(m, "tco.loan_repaid_in_term") and v(m, "tco.pl_ties_to_cash")


def test_sources_and_uses_and_the_equity_paid_in(tmp_path: Path) -> None:
    """HAND with a 3-month lead, the whole capex paid at order, a 50% loan at 12% drawn then, a 1% fee and a month
    of working capital at a 1,000 USD monthly staff cost: uses = 240,000 + interest during construction
    120,000 x ((1 + i)^3 - 1) + fee 1,200 + working capital 1,000; debt = 120,000 x (1 + i)^3 (the balance at
    delivery); equity paid in = 240,000 - 120,000 + 1,200 + 1,000 = 122,200. The old "peak equity funding" (the
    largest cumulative cash out) grew with every month of running costs; the peak funding need is the uses."""
    m = hand(tmp_path, financing="loan", loan_share=0.5, loan_rate=0.12, loan_term="2 years", lead_time="3 months",
             deposit_share=1.0, loan_fee_share=0.01, working_capital_months="1 month", staff_fte=1,
             staff_cost="12000 USD/year")
    i = monthly(0.12)
    idc = 120_000 * ((1 + i) ** 3 - 1)
    assert v(m, "tco.loan_interest_during_construction") == pytest.approx(idc, rel=1e-9)
    assert v(m, "tco.uses_total") == pytest.approx(240_000 + idc + 1_200 + 1_000, rel=1e-12)
    assert v(m, "tco.sources_debt") == pytest.approx(120_000 * (1 + i) ** 3, rel=1e-12)
    assert v(m, "tco.sources_equity") == pytest.approx(122_200, rel=1e-12)
    assert v(m, "tco.peak_funding") == v(m, "tco.uses_total") and v(m, "tco.sources_equal_uses")


def test_interest_during_construction_is_capitalised(tmp_path: Path) -> None:
    """With a 3-month lead time and everything paid on delivery, nothing is drawn before month 3: no interest
    during construction. With a 100% deposit at order, the 120,000 drawn at time 0 grows by 3 months' interest
    before the payments start."""
    m = hand(tmp_path, financing="loan", loan_share=0.5, loan_rate=0.12, loan_term="2 years", lead_time="3 months",
             deposit_share=1.0)
    i = monthly(0.12)
    assert v(m, "tco.loan_principal") == pytest.approx(120_000 * (1 + i) ** 3, rel=1e-12)
    assert v(m, "tco.loan_interest_during_construction") == pytest.approx(120_000 * ((1 + i) ** 3 - 1), rel=1e-9)


# ---------------------------------------------------------------- 5. prices move


@pytest.mark.slow
def test_rent_falls_and_costs_escalate_once_a_year(tmp_path: Path) -> None:
    """Rent at -20% a year: months 13-24 cost 0.8 x 11,680 = 9,344. On the example every running cost moves from
    year 2: electricity +2.5%, colocation +3%, staff +3.5%, support +3%: month 13's are those times month 5's (the
    first month past the 3-month ramp, so the energy is at the target)."""
    m = hand(tmp_path, rent_price_change=-0.2)
    rent = v(m, "tco.rent_flow")
    assert rent[1] == pytest.approx(RENT) and rent[12] == pytest.approx(RENT)
    assert rent[13] == pytest.approx(0.8 * RENT, rel=1e-12)
    ex = load(site_file(tmp_path, "moves", tco={"electricity_escalation": 0.025, "facility_escalation": 0.03,
                                                 "staff_escalation": 0.035, "support_escalation": 0.03}))
    for row, change in (("energy_flow", 1.025), ("facility_opex_flow", 1.03), ("staff_flow", 1.035),
                        ("support_flow", 1.03)):
        assert v(ex, f"tco.{row}")[13] / v(ex, f"tco.{row}")[5] == pytest.approx(change, rel=1e-12), row


def test_utilisation_ramps_up_over_its_first_months(tmp_path: Path) -> None:
    """A 3-month ramp from 25%: months 1-3 use 25%, 50%, 75% of the target, so the rented GPU-hours (and the energy
    above idle) follow: 2,920, 5,840, 8,760, then 11,680. The GPU-hours the costs per GPU-hour divide by follow too."""
    m = hand(tmp_path, ramp_months="3 months", ramp_first_share=0.25, electricity_price="0.1 USD/kWh",
             idle_power_share=0.0)
    assert v(m, "tco.ramp")[:6].tolist() == [0, 0.25, 0.5, 0.75, 1, 1]
    assert v(m, "tco.rent_flow")[:6].tolist() == pytest.approx([0, 0.25 * RENT, 0.5 * RENT, 0.75 * RENT, RENT, RENT])
    energy = v(m, "tco.energy_flow")
    assert energy[1] / energy[4] == pytest.approx(0.25, rel=1e-12) and energy[3] / energy[4] == pytest.approx(0.75)
    assert v(m, "tco.pv_gpu_hours") == pytest.approx(8 * 730 * (0.25 + 0.5 + 0.75 + 21), rel=1e-12)


@pytest.mark.slow
def test_a_reserved_rent_is_fixed_for_its_term(tmp_path: Path) -> None:
    """Half the GPUs reserved at 1.5 USD for 12-month terms, the market falling 20% a year: months 1-12 cost 4 x
    730 x 1.5 = 4,380 reserved + 4 x 730 x 2 = 5,840 on demand; the renewal at month 13 takes the market's index
    then (0.8). With a 24-month term the reserved price holds through month 24 while on demand falls: the old rule
    moved both with the market, understating the reserved rent."""
    m = hand(tmp_path, reserved_share=0.5, reserved_price="1.5 USD/GPU/hour", reserved_term="12 months",
             rent_price_change=-0.2)
    assert v(m, "tco.rent_flow")[[1, 12, 13, 24]].tolist() == pytest.approx([10_220, 10_220, 8_176, 8_176])
    long = hand(tmp_path, "long", reserved_share=0.5, reserved_price="1.5 USD/GPU/hour", reserved_term="24 months",
                rent_price_change=-0.2)
    assert v(long, "tco.rent_flow")[[1, 13, 24]].tolist() == pytest.approx([10_220, 9_052, 9_052])  # 4,380 + 4,672
    assert v(long, "tco.reserved_index")[[1, 13, 24]].tolist() == [1, 1, 1]


@pytest.mark.slow
def test_the_it_resale_value_follows_the_rent_market(tmp_path: Path) -> None:
    """A 10% residual in a flat market, the rent falling 20% a year: the 2-year-old node (exit in month 24, year 2)
    resells for 240,000 x 10% x 0.8 = 19,200; a share observed today (the default), for 24,000. With the rent flat
    the two agree."""
    falling = hand(tmp_path, rent_price_change=-0.2, residual_value=0.1, residual_basis="flat-market")
    assert v(falling, "tco.rent_index_at_exit") == pytest.approx(0.8) and v(falling, "tco.it_resale_value") == 19_200
    assert v(falling, "tco.residual_flow")[24] == -19_200
    fixed = hand(tmp_path, "fixed", rent_price_change=-0.2, residual_value=0.1)
    assert v(fixed, "tco.it_resale_value") == 24_000
    flat = hand(tmp_path, "flat", residual_value=0.1)
    assert v(flat, "tco.it_resale_value") == 24_000


@pytest.mark.slow
def test_a_payback_is_a_month_after_which_buying_stays_ahead(tmp_path: Path) -> None:
    """Rent at 8 USD falling 70% a year against a node with 25,000 USD of staff a month: cumulative renting passes
    owning in month 12 (560,640 against 540,000) and falls behind again in month 14, for good. The old running
    maximum named month 12; a payback is the month after the last one behind, and none when it ends behind."""
    m = hand(tmp_path, on_demand_price="8 USD/GPU/hour", rent_price_change=-0.7, staff_fte=1,
             staff_cost="300000 USD/year")
    ahead = (v(m, "tco.own_cumulative") <= v(m, "tco.rent_cumulative"))[:25]
    assert ahead.nonzero()[0].tolist() == [12, 13]
    assert math.isnan(v(m, "tco.payback_month"))
    assert m.book.lines["tco.payback_month"].guard_message == "never (ends behind)"
    back = hand(tmp_path, "back", on_demand_price="8 USD/GPU/hour", rent_price_change=-0.7)
    rows = (v(back, "tco.own_cumulative") > v(back, "tco.rent_cumulative")).nonzero()[0]
    assert v(back, "tco.payback_month") == rows.max() + 1 == 6  # 5 x 46,720 = 233,600 < 240,000 <= 6 x 46,720


# ---------------------------------------------------------------- 6. tax and the P&L


def test_tax_shields_and_the_pl_ties_to_the_cash(tmp_path: Path) -> None:
    """HAND at a 25% tax rate: depreciation 240,000 / 24 = 10,000 a month saves 2,500 of tax; the rent is
    deductible too (8,760 a month after tax). At a 0% cost of capital: NPV of owning 240,000 - 24 x 2,500 =
    180,000; of renting 24 x 8,760 = 210,240. The yearly P&L: depreciation 120,000 a year, cost after tax 90,000;
    cash out 240,000 at the start and -30,000 (tax saved) a year; they tie through the change in book value."""
    m = hand(tmp_path, tax_rate=0.25)
    assert v(m, "tco.depreciation_flow")[1] == pytest.approx(10_000)
    assert v(m, "tco.tax_flow")[1] == pytest.approx(-2_500)
    assert v(m, "tco.npv_own") == pytest.approx(180_000, rel=1e-12)
    assert v(m, "tco.npv_rent") == pytest.approx(24 * 8_760, rel=1e-12)
    # the start, then FY2027-FY2030: 36 months from January 2027 touch three fiscal years, and the book has a
    # column for each fiscal year any start date could make them touch (ceil((36 + 11) / 12) = 4)
    assert v(m, "tco.pl_depreciation").tolist() == pytest.approx([0, 120_000, 120_000, 0, 0])
    assert v(m, "tco.pl_cost_after_tax").tolist() == pytest.approx([0, 90_000, 90_000, 0, 0])
    assert v(m, "tco.cash_own").tolist() == pytest.approx([240_000, -30_000, -30_000, 0, 0])
    assert v(m, "tco.pl_asset_change").tolist() == pytest.approx([240_000, -120_000, -120_000, 0, 0])
    assert v(m, "tco.pl_ties_to_cash")


@pytest.mark.slow
def test_macrs_with_a_bonus_and_a_tax_lag(tmp_path: Path) -> None:
    """HAND at 25% tax with MACRS 5-year property and a 40% bonus: 96,000 deducted in month 1, then the other
    144,000 at 20%/12 a month in tax year 1 (2,400) and 32%/12 in year 2 (3,840); at exit (month 24) 144,000 x
    (1 - 0.52) = 69,120 of tax basis is written off. Book depreciation stays 10,000 a month: the difference is
    deferred tax. With a 3-month lag each month's tax is paid 3 months later, and the P&L still ties."""
    m = hand(tmp_path, tax_rate=0.25, tax_depreciation="macrs-5", bonus_share=0.4)
    tax_dep = v(m, "tco.it_tax_depreciation_flow")
    assert tax_dep[1] == pytest.approx(96_000 + 2_400) and tax_dep[2] == pytest.approx(2_400)
    assert tax_dep[13] == pytest.approx(3_840)
    assert v(m, "tco.it_tax_basis_left") == pytest.approx(144_000 * 0.48, rel=1e-12)
    assert v(m, "tco.tax_exit_loss_flow")[24] == pytest.approx(69_120, rel=1e-12)
    assert v(m, "tco.depreciation_flow")[1] == pytest.approx(10_000)
    assert v(m, "tco.pl_ties_to_cash")
    lagged = hand(tmp_path, "lag", tax_rate=0.25, tax_depreciation="macrs-5", bonus_share=0.4, tax_lag="3 months")
    assert v(lagged, "tco.tax_flow")[4] == pytest.approx(v(m, "tco.tax_flow")[1], rel=1e-12)
    assert v(lagged, "tco.tax_flow")[1:4].tolist() == [0, 0, 0] and v(lagged, "tco.pl_ties_to_cash")


def test_interest_during_construction_is_depreciated_not_expensed(tmp_path: Path) -> None:
    """The loan drawn at order grows for 3 months before service: that interest is capitalised (IAS 23) and
    depreciated over the 24 months of service (IDC / 24 a month, in the P&L and for tax); only interest after the
    start of service is expensed. The P&L ties."""
    m = hand(tmp_path, financing="loan", loan_share=0.5, loan_rate=0.12, loan_term="2 years", lead_time="3 months",
             deposit_share=1.0, tax_rate=0.25, loan_fee_share=0.0)
    idc = v(m, "tco.loan_interest_during_construction")
    assert v(m, "tco.loan_interest_expensed_flow")[:4].tolist() == [0, 0, 0, 0]
    assert v(m, "tco.capitalised_interest_depreciation_flow")[4] == pytest.approx(idc / 24, rel=1e-12)
    assert v(m, "tco.pl_interest")[0] == 0 and v(m, "tco.pl_ties_to_cash")


@pytest.mark.slow
@pytest.mark.parametrize("site", ["example", "b200-liquid-build"])
def test_the_pl_ties_with_tax_and_every_feature_on(tmp_path: Path, site: str) -> None:
    data = yaml.safe_load((ROOT / "inputs" / f"{site}.yaml").read_text())
    m = load(site_file(tmp_path, site, base=data, tco={"tax_rate": 0.21, "lead_time": "5 months",
                                                       "deposit_share": 0.3}))
    assert v(m, "tco.pl_ties_to_cash")
    assert abs(v(m, "tco.pl_explained_cash") - v(m, "tco.cash_equity" if site.startswith("b200") else "tco.cash_own")
               ).max() < 1.0


# ---------------------------------------------------------------- 7. the facility's value at exit


@pytest.mark.slow
def test_the_facility_at_exit_by_each_method(tmp_path: Path) -> None:
    """B200 site: a 20-year hall leaves the IT after 5 years with 180 of its 240 months to run. At book value (the
    default) 75% of its cost is left; the annuity method keeps (1 - (1+r)^-180) / (1 - (1+r)^-240) = 89.3% (at 10%
    a year); zero keeps nothing. The NPV advantage moves with the method by the exit month's discount factor x the
    value's difference x (1 - tax), the tax on the gain over the same book basis (no tax lag)."""
    m = site_model(B200.name)
    r = monthly(0.10)
    share = (1 - (1 + r) ** -180) / (1 - (1 + r) ** -240)
    assert share == pytest.approx(0.8934, abs=1e-4)
    capex = v(m, "tco.facility_capex")
    assert v(m, "tco.facility_value_share") == v(m, "tco.facility_book_share") == 0.75
    assert v(m, "tco.facility_value_left") == pytest.approx(capex * 0.75, rel=1e-12)
    assert v(m, "tco.facility_annuity_share") == pytest.approx(share, rel=1e-12)
    exit_df = 1 / (1 + r) ** (12 + 60)  # the exit month: a 12-month lead + the 60-month life
    assert v(m, "tco.discount_at_exit") == pytest.approx(exit_df, rel=1e-12)
    base = v(m, "tco.npv_advantage")
    assert v(m, "tco.npv_advantage_facility_book") == pytest.approx(base, rel=1e-12)
    assert v(m, "tco.npv_advantage_facility_annuity") - base == pytest.approx(
        exit_df * capex * (share - 0.75) * (1 - 0.21), rel=1e-9)
    assert v(m, "tco.npv_advantage_facility_zero") - base == pytest.approx(exit_df * capex * -0.75 * (1 - 0.21),
                                                                           rel=1e-9)
    data = yaml.safe_load(B200.read_text())
    stated = load(site_file(tmp_path, "stated", base=data, tco={"facility_residual": "stated",
                                                                "facility_exit_value": 0.5}))
    assert v(stated, "tco.facility_value_left") == pytest.approx(capex * 0.5, rel=1e-12)
    annuity = load(site_file(tmp_path, "annuity", base=data, tco={"facility_residual": "annuity"}))
    assert v(annuity, "tco.npv_advantage") == pytest.approx(v(m, "tco.npv_advantage_facility_annuity"), rel=1e-9)


@pytest.mark.slow
def test_lender_checks_the_loan_term_and_the_facility_life(tmp_path: Path) -> None:
    """A loan repaid 36 months after the IT is retired, or a hall written off before the IT it houses, passed
    before; each is now a check that fails."""
    data = yaml.safe_load(B200.read_text())
    m = load(site_file(tmp_path, "long_loan", base=data, tco={"loan_term": "8 years", "horizon": "120 months"}))
    assert v(m, "tco.loan_within_life") == 0 and v(m, "summary.all_checks_pass") == 0
    m = load(site_file(tmp_path, "short_hall", base=data, tco={"facility_life": "12 months"}))
    assert v(m, "tco.facility_outlives_it") == 0
    b200 = site_model(B200.name)
    assert v(b200, "tco.loan_within_life") == 1 and v(b200, "tco.facility_outlives_it") == 1


def test_owned_and_rented_per_gpu_hour_on_the_same_basis(tmp_path: Path) -> None:
    """HAND at a 25% tax rate and a 0% cost of capital: 24 x 5,840 = 140,160 GPU-hours. Before tax owning costs
    240,000 / 140,160 = 1.7123 and renting 2.000; after tax owning (240,000 - 25% x 240,000) / 140,160 = 1.2842 and
    renting 1.500."""
    m = hand(tmp_path, tax_rate=0.25)
    assert v(m, "tco.owned_cost_per_gpu_hour_pretax") == pytest.approx(240_000 / 140_160, rel=1e-12)
    assert v(m, "tco.rented_cost_per_gpu_hour_pretax") == pytest.approx(2.0, rel=1e-12)
    assert v(m, "tco.owned_cost_per_gpu_hour") == pytest.approx(180_000 / 140_160, rel=1e-12)
    assert v(m, "tco.rented_cost_per_gpu_hour") == pytest.approx(1.5, rel=1e-12)


@pytest.mark.slow
def test_a_month_of_delay_on_the_decision(tmp_path: Path) -> None:
    """At 12%: one more month of lead time pays the node a month later (240,000 / (1 + i)) and moves the 24 months
    of service (and the rent they replace) to months 2-25. The NPV advantage moves by [sum of rent over months 2-25
    - 240,000 / (1 + i)] - [sum over months 1-24 - 240,000] = -90.61 USD: live, from the built-in scenario."""
    m = hand(tmp_path, cost_of_capital=0.12)
    i = monthly(0.12)
    late = sum(RENT / (1 + i) ** k for k in range(2, 26)) - 240_000 / (1 + i)
    base = sum(RENT / (1 + i) ** k for k in range(1, 25)) - 240_000
    assert v(m, "tco.delay_npv_effect") == pytest.approx(late - base, rel=1e-9)
    assert "one_month_late" in m.book.scenarios
    tight = hand(tmp_path, "tight", cost_of_capital=0.12, horizon="24 months")  # no month to spare for a delay
    assert math.isnan(v(tight, "tco.delay_npv_effect"))
    assert not v(tight, "scenario.one_month_late.tco.life_within_timeline")
    master = tight.book.lines["checks.all_pass"].reads  # the built-in scenario's checks stay out
    assert not any(k.startswith("scenario.one_month_late") for k in master)
    assert tight.book.lines["tco.delay_npv_effect"].guard_message.startswith("n/a: the timeline has no month")


# ---------------------------------------------------------------- 8. sensitivity found by evaluation


@pytest.mark.slow
def test_tornado_holds_every_input_that_moves_the_npv_advantage_by_more_than_1_percent(tmp_path: Path) -> None:
    """The tornado on the decision: each input shown moves the NPV advantage of buying by more than 1% of the NPV
    of owning one way or the other; an input left out (the cable price) moves it by less; widest bar first."""
    model = load(site_file(tmp_path, "example"))
    [table] = model.book.tables
    shown = {row[0] for row in table.rows}
    labels = {line.label: key for key, line in model.book.lines.items() if line.kind == "input"}
    assert {"Colocation price per kW-month of capacity (see its basis)",
            "Hardware support per year, share of the equipment's price (the BOM's budget)",
            "Rent: on-demand price (today)", "Rent: price change per year (negative: rent falls)"} <= shown
    base, scale = v(model, "tco.npv_advantage"), v(model, "tco.npv_own")
    for row in table.rows:
        assert max(abs(row[5] - base), abs(row[6] - base)) > 0.01 * scale, row[0]
    cable = model.book.lines["tco.cable_price"]
    assert cable.label not in shown
    out = model.book.evaluate({"tco.cable_price": np.array([120.0, 180.0])})["tco.npv_advantage"][:, 0]
    assert abs(out - base).max() < 0.01 * scale
    widths = [abs(r[9]) + abs(r[10]) for r in table.rows]
    assert widths == sorted(widths, reverse=True)  # widest bar first
    assert {labels[r[0]] for r in table.rows} >= {"tco.colo_price", "tco.support_rate", "tco.server_price"}


def test_tornado_case_that_the_timeline_cannot_hold_is_not_a_number(tmp_path: Path) -> None:
    """Issue 8: an 84-month timeline holds a 24-month lead time (a 100-week compute lead time: ROUNDUP(100 /
    4.345) = 24) and a 5-year life exactly; the lead time at +20% (120 weeks: 28 months) does not fit, so that case
    is n/a, never a number computed on a timeline that cannot hold it (at -20%, 80 weeks, 19 months, it is a
    number). The life itself is a whole number of months: it is not swung."""
    model = load(site_file(tmp_path, "short", tco={"horizon": "84 months"}, bom={"compute_lead_time": "100 weeks"}))
    [table] = model.book.tables
    [lead] = [row for row in table.rows if row[0] == "Lead time, compute (budget, until a vendor quotes)"]
    assert isinstance(lead[6], str) and lead[6].startswith("n/a")
    assert isinstance(lead[5], float)
    assert not [row for row in table.rows if row[0] == "Useful life of the IT equipment (whole months)"]


@pytest.mark.slow
def test_sensitivity_row_is_the_model_evaluated_with_that_input(tmp_path: Path) -> None:
    model = example_model()
    [table] = [t for t in model.book.tables if t.sheet == "Sensitivity"]  # the Risk sheet's is the other
    assert len(table.inputs) == len(table.rows)  # each row's input, as the Summary's list of estimates reads it
    for key, row in zip(table.inputs[:3], table.rows[:3], strict=True):
        assert model.book.lines[key].label == row[0] and model.book.lines[key].kind == "input"
        single = model.book.evaluate({key: np.array([row[2]])})
        assert row[5] == pytest.approx(single["tco.npv_advantage"].item(), rel=1e-12)
        assert row[7] == pytest.approx(single["tco.break_even_utilisation"].item(), rel=1e-12)


# ---------------------------------------------------------------- the timeline and scenarios


@pytest.mark.slow
def test_same_formula_across_every_period(tmp_path: Path) -> None:
    """FAST: a row's formula is the same in every month (shifted one column at a time), and in the Start column
    too unless the row gives its opening there."""
    from openpyxl.formula.translate import Translator

    model, layout, path = example_workbook()
    wb = openpyxl.load_workbook(path)
    checked = 0
    for line in model.book.lines.values():
        if not line.series or line.kind == "input":
            continue
        sheet, row, _ = layout.cells[line.id]
        ws = wb[sheet]
        first = 1 if line.opening is not None else 0
        origin = ws.cell(row + 1, FIRST_PERIOD + 1 + first)
        for t in range(first + 1, model.book.columns(line.axis)):
            c = ws.cell(row + 1, FIRST_PERIOD + 1 + t)
            assert c.value == Translator(origin.value, origin=origin.coordinate).translate_formula(c.coordinate)
        checked += 1
    assert checked > 40


@pytest.mark.slow
def test_scenarios_are_live_clones(tmp_path: Path) -> None:
    path = site_file(tmp_path, tco={"utilisation": 0.7},
                     scenarios={"low": {"tco.utilisation": 0.35}, "dear": {"tco.electricity_price": "0.2 USD/kWh"}})
    model, layout = build(path, tmp_path / "s.xlsx")
    book, values = model.book, model.values
    low = book.scenarios["low"]
    assert low["tco.utilisation"].kind == "input" and low["tco.utilisation"].value == pytest.approx(0.35)
    assert "tco.energy_cost" in low and "tco.npv_own" in low and "tco.owned_cost_per_gpu_hour" in low
    assert "power.it_load" not in low and "tco.capex" not in low  # shared, not copied
    same = load(site_file(tmp_path, "low_base", tco={"utilisation": 0.35}))
    for key in ("tco.npv_own", "tco.owned_cost_per_gpu_hour", "tco.payback_month", "tco.pl_cost_after_tax"):
        assert np.array_equal(values[low[key].id], same.values[key], equal_nan=True), key
    ws = openpyxl.load_workbook(tmp_path / "s.xlsx")["Scenarios"]
    _, row, col = layout.cells[low["tco.npv_own"].id]
    assert str(ws.cell(row + 1, col + 1).value).startswith("=SUM(")


def test_unknown_scenario_key_is_one_line(tmp_path: Path) -> None:
    path = site_file(tmp_path, scenarios={"x": {"tco.utilisaton": 0.3}})
    out = tmp_path / "never.xlsx"
    proc = invoke("build", path, "-o", out)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "scenarios.x: tco.utilisaton" in proc.stderr and "did you mean tco.utilisation" in proc.stderr
    assert not out.exists()


def test_monthly_rate_is_the_annual_rate_compounded(tmp_path: Path) -> None:
    m = hand(tmp_path, cost_of_capital=0.12)
    assert v(m, "tco.monthly_rate") == pytest.approx(1.12 ** (1 / 12) - 1, rel=1e-14)
    assert v(m, "tco.discount_factor")[12] == pytest.approx(1 / 1.12, rel=1e-12)
    assert math.isclose(v(m, "tco.discount_factor")[0], 1.0)


def test_the_cost_curves_are_the_costs_at_each_utilisation_and_cross_at_the_break_even() -> None:
    """The Summary's chart: each point of the owned, the rented (as the site rents: on demand on the example) and
    the committed-contract curves is the cost per GPU-hour the TCO sheet computes, through its monthly timeline,
    with that utilisation typed in (two computations: the curve's closed form (fixed + u x per unit) / (u x hours
    at full use), and the NPVs' over the months). On the example the owned and rented curves cross at the
    break-even (90.4%, with the quote's shipping, licences and services in the capex): owning costs more at 90%,
    less at 100%."""
    base = example_model().book.evaluate()
    for k in (3, 7, 10):
        at = example_model().book.evaluate({"tco.utilisation": np.array([k / 10])})
        assert base[f"tco.curve_owned_{k}"].item() == pytest.approx(at["tco.owned_cost_per_gpu_hour"].item(), rel=1e-9)
        assert base[f"tco.curve_rented_{k}"].item() == pytest.approx(at["tco.rented_cost_per_gpu_hour"].item(),
                                                                     rel=1e-9)
        assert base[f"tco.curve_committed_{k}"].item() == pytest.approx(
            at["tco.rented_cost_per_gpu_hour_committed"].item(), rel=1e-9)
    assert round(base["tco.curve_owned_7"].item(), 2) == 3.22 and round(base["tco.curve_rented_7"].item(), 2) == 2.52
    assert round(base["tco.break_even_utilisation"].item(), 3) == 0.904
    assert base["tco.curve_owned_9"].item() > base["tco.curve_rented_9"].item()
    assert base["tco.curve_owned_10"].item() < base["tco.curve_rented_10"].item()
