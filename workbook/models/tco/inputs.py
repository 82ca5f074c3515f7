"""The TCO's inputs and the conventions the TCO sheet states (one list of each, read by the rest of the package)."""

from __future__ import annotations

from workbook.formula.line import COUNT, PERCENT
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

USD = "#,##0"
PER_GPU_HOUR = "0.00"  # a calculated cost per GPU-hour: to the cent (a price typed in shows every digit it has)
_USD = dict(expect="an amount of money", example="270000 USD", lo=0.0, fmt=USD)
_SHARE = dict(expect="a fraction", example="0.1", lo=0.0, hi=1.0, fmt=PERCENT)
_PRICE = dict(expect="a price per GPU-hour", example="2.99 USD/GPU/hour", lo=0.0, lo_open=True, fmt="0.000")
_CHANGE = dict(expect="a fraction per year", example="0.03", lo=-0.9, hi=1.0, fmt=PERCENT)
_MONTHS = dict(expect="a duration", lo=0, integer=True, fmt=COUNT)
BUILD = ("tco.facility_model", "build")
LOAN = ("tco.financing", "loan")
MACRS = ("tco.tax_depreciation", "macrs-5")
MACRS_YEARS = 6  # MACRS 5-year property under the half-year convention is deducted over 6 tax years

_PRICES = [
    Spec("tco.server_price", "Price per node (server, installed)", "USD", **_USD),  # the BOM's budget prices
    Spec("tco.switch_price", "Price per network switch", "USD", **_USD),
    Spec("tco.transceiver_price", "Price per optical transceiver (multimode, the catalog optic)", "USD", **_USD),
    Spec("tco.single_mode_transceiver_price", "Price per single-mode transceiver (runs beyond multimode reach)",
         "USD", **_USD),
    Spec("tco.cable_price", "Price per cable", "USD", **_USD),
    Spec("tco.oob_switch_price", "Price per out-of-band management switch", "USD", **_USD),
    Spec("tco.storage_capex", "Shared storage capex (as given)", "USD",
         when=("reliability.storage_sizing", "given"), **_USD),  # else the BOM prices the sized tiers
]

_FACILITY = [
    Spec("tco.fit_out_capex", "Colocation fit-out capex (cages, PDUs, containment)", "USD",
         when=("tco.facility_model", "colo"), **_USD),
    Spec("tco.colo_price", "Colocation price per kW-month of capacity (see its basis)", "USD/kW-month",
         "a price per kW-month", "184 USD/kW/month", lo=0.0, when=("tco.facility_model", "colo")),
    Spec("tco.build_cost", "Facility build cost per MW of capacity (see its basis)", "USD/MW", "a price per MW",
         "11.7e6 USD/MW", lo=0.0, when=BUILD, fmt=USD),
    Spec("tco.facility_life", "Facility depreciation life (whole months)", "months", "a duration", "20 years",
         lo=12, hi=720, integer=True, when=BUILD, fmt=COUNT),
    Spec("tco.facility_opex_rate", "Facility maintenance per year, share of build cost", "share/year",
         "a share per year", "0.02 / year", lo=0.0, hi=1.0, when=BUILD, fmt=PERCENT),
    Spec("tco.facility_residual", "Facility value at the end of the IT life: its method", "", "a method", "book",
         choices=("book", "annuity", "zero", "stated"), when=BUILD),
    Spec("tco.facility_exit_value", "Facility value at the end of the IT life, share of build cost", "%",
         when=("tco.facility_residual", "stated"), **_SHARE),
]

_TIMING_AND_MONEY = [
    Spec("tco.lead_time", "Lead time from order to service (the site's: facility works, contracts)", "months",
         example="4 months", hi=60, **_MONTHS),
    Spec("tco.delay_months", "Delay added to the lead time (0: as planned; the delay scenario adds 1)", "months",
         example="1 month", hi=24, **_MONTHS),
    Spec("tco.deposit_share", "Deposit paid at order, share of IT capex", "%", **_SHARE),
    Spec("tco.cost_of_capital", "Cost of capital (WACC after tax, nominal, annual)", "%",
         **{**_SHARE, "example": "0.1"}),
    Spec("tco.tax_rate", "Tax rate (0 = pre-tax)", "%", **{**_SHARE, "hi": 0.6, "example": "0.21"}),
    Spec("tco.tax_lag", "Tax paid (or saved) this many months after the month it arises", "months",
         example="3 months", hi=24, **_MONTHS),
    Spec("tco.tax_depreciation", "Tax depreciation of the IT", "", "a method", "straight-line",
         choices=("straight-line", "macrs-5")),
    Spec("tco.bonus_share", "Bonus depreciation: share of the IT's tax basis deducted when placed in service", "%",
         **_SHARE),
    *(Spec(f"tco.macrs_year_{n}", f"MACRS 5-year property, half-year convention: tax year {n}", "%",
           when=MACRS, **_SHARE) for n in range(1, MACRS_YEARS + 1)),
    Spec("tco.working_capital_months", "Working capital: months of running costs held from the start of service",
         "months", "a duration", "1 month", lo=0.0, hi=12.0, fmt="#,##0.0"),
    Spec("tco.loan_share", "Share of capex financed by the loan", "%", when=LOAN, **_SHARE),
    Spec("tco.loan_rate", "Loan interest rate (annual)", "%", when=LOAN, **_SHARE),
    Spec("tco.loan_term", "Loan term (whole months, repaid monthly from service start)", "months", "a duration",
         "4 years", lo=3, hi=360, integer=True, when=LOAN, fmt=COUNT),
    Spec("tco.loan_fee_share", "Loan arrangement fee, share of the loan (paid at the first draw)", "%",
         when=LOAN, **{**_SHARE, "hi": 0.1}),
    Spec("tco.cost_of_equity", "Cost of equity (the equity IRR's hurdle, nominal, annual)", "%", when=LOAN,
         **{**_SHARE, "example": "0.15"}),
    Spec("tco.useful_life", "Useful life of the IT equipment (whole months)", "months", "a duration", "5 years",
         lo=3, hi=240, integer=True, fmt=COUNT),
    Spec("tco.residual_value", "Residual value at end of life, share of IT capex (on the basis below)", "%",
         **_SHARE),
    Spec("tco.residual_basis", "Residual share's basis: observed today for equipment of this age (not indexed), or "
         "at exit in a flat market (moved by the rent index)", "", "a basis", "observed",
         choices=("observed", "flat-market")),
]

_RUNNING = [
    Spec("tco.electricity_price", "Electricity price (today)", "USD/kWh", "a price of energy", "0.08 USD/kWh",
         lo=0.0, fmt="0.0000"),
    Spec("tco.electricity_escalation", "Electricity price change per year", "%", **_CHANGE),
    Spec("tco.facility_escalation", "Colocation price (or facility maintenance) change per year", "%", **_CHANGE),
    Spec("tco.staff_escalation", "Staff cost change per year", "%", **_CHANGE),
    Spec("tco.support_escalation", "Hardware support price change per year", "%", **_CHANGE),
    Spec("tco.idle_power_share", "Power drawn at idle, share of design IT load", "%", **_SHARE),
    Spec("tco.utilisation", "Utilisation once ramped up (share of GPU-hours doing work)", "%", **_SHARE),
    Spec("tco.ramp_months", "Utilisation ramp: months from service start to the target", "months",
         example="3 months", hi=36, **_MONTHS),
    Spec("tco.ramp_first_share", "Utilisation ramp: first month's share of the target (then straight up)", "%",
         **_SHARE),
    Spec("tco.support_rate", "Hardware support per year, share of the equipment's price (the BOM's budget)",
         "share/year", "a share per year",
         "0.08 / year", lo=0.0, hi=1.0, fmt=PERCENT),
    Spec("tco.staff_fte", "Operations staff", "FTE", "a head count", "4", lo=0.0, fmt="#,##0.0"),
    Spec("tco.staff_cost", "Cost per FTE per year", "USD/year", "a cost per year", "200000 USD/year", lo=0.0,
         fmt=USD),
]

_RENT = [
    Spec("tco.on_demand_price", "Rent: on-demand price (today)", "USD/GPU-h", **_PRICE),
    Spec("tco.reserved_price", "Rent: reserved (committed) price (today)", "USD/GPU-h", **_PRICE),
    Spec("tco.reserved_share", "Rent: share of GPUs reserved (hours paid whether used or not)", "%", **_SHARE),
    Spec("tco.reserved_term", "Rent: reserved contract term (its price fixed for it, then re-priced)", "months",
         "a duration", "12 months", lo=1, hi=120, integer=True, fmt=COUNT),
    Spec("tco.rent_price_change", "Rent: price change per year (negative: rent falls)", "%", **_CHANGE),
    Spec("tco.rent_extras", "Rent: storage and egress per month", "USD/month", "a cost per month",
         "20000 USD/month", lo=0.0, fmt=USD),
    Spec("tco.utilisation_step", "Cost curve: utilisation step", "%", "a fraction", "0.1", lo=0.01, hi=0.1,
         fmt=PERCENT),
]

INPUTS = with_limits([
    Spec("tco.horizon", "Timeline length (months after the start)", "months", "a duration", "96 months",
         lo=12, hi=240, integer=True, structural=True, fmt=COUNT),
    Spec("tco.facility_model", "Facility: colocation or own build", "", "a choice", "colo", choices=("colo", "build")),
    Spec("tco.financing", "Financing of the capex", "", "a choice", "cash", choices=("cash", "loan")),
    Spec("tco.facility_price_basis", "Capacity the facility price is charged on", "", "a choice", "critical-it",
         choices=("critical-it", "feed")),
    Spec("tco.start_date", "Start of the timeline: the order date (time 0)", "date", "a date", "2027-01-15",
         date=True, fmt="yyyy-mm-dd"),
    Spec("tco.fiscal_year_end", "Fiscal year ends in month (12 = December; FY named by the year it ends in)",
         "month no.", "a month number", "6", lo=1, hi=12, integer=True, fmt="0"),
    Spec("tco.sensitivity_swing", "Sensitivity swing (+/- on each input)", "%", "a fraction", "0.2",
         lo=0.01, hi=0.9, structural=True),
    Spec("tco.life_swing", "Sensitivity: the useful life's step either way (whole months)", "months", "a duration",
         "12 months", lo=0, hi=60, integer=True, structural=True, fmt=COUNT),
    Spec("tco.lead_time_swing", "Sensitivity: the lead time's step either way (whole months)", "months",
         "a duration", "3 months", lo=0, hi=24, integer=True, structural=True, fmt=COUNT),
    *_PRICES, *_FACILITY, *_TIMING_AND_MONEY, *_RUNNING, *_RENT,
])

CONVENTIONS = [
    "Money: nominal USD. Costs and cash paid out are positive; money received (residual value, tax savings, "
    "loan draws) is negative.",
    "Time: the Start column is time 0, the order date; each month's flow is at the month's end (month t ends on "
    "EOMONTH(start date, t - 1)). Capex follows the deployment schedule; service runs from the month after delivery "
    "for the useful life; utilisation ramps up over its first months. The P&L sums the months by fiscal year, "
    "named by the year it ends in.",
    "Decision: NPV, IRR, equivalent annual cost, cost per GPU-hour and break-even are on unlevered flows "
    "discounted at the cost of capital (WACC). The WACC is after tax: it already holds the debt's interest tax "
    "shield, which is therefore not added again. The financing is shown apart (the equity's cash flows and IRR).",
    "Prices: colocation per kW-month and build cost per MW of contracted capacity (its basis is an input); "
    "energy billed separately at the PUE; rent, electricity, facility, staff and support prices change once a "
    "year from today's. A reserved rent is fixed for its term, then re-priced at the market's index.",
    "Tax: at the tax rate (0% = pre-tax) on running costs, tax depreciation, interest and rent, assumed usable "
    "against other profits, paid the tax lag after it arises; book depreciation is straight line; interest "
    "during construction is capitalised and depreciated (IAS 23; IRC 263A(f)); a value received at exit is "
    "taxed as a gain over its tax basis.",
    "Exit: the IT is resold at its residual share of capex, on the site's basis: a share observed today for "
    "equipment of the IT's age (it already holds the decline the market expects: not indexed), or the share in a "
    "flat market, moved by the rent index at exit; the other basis's effect is shown. The facility is valued by the "
    "stated method (book value by default).",
]
