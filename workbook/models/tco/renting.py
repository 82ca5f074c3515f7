"""Renting the same GPU-hours in the same months: the rent mix in force (a reserved share of the hours used, at a
price fixed for each contract term, the rest on demand at the market's price), and the extras.

The reservation is a share of the GPUs, never more than the planned use (a renter does not reserve hours it does
not plan to use), and it steps up with the utilisation ramp (reserved capacity sized to the service, as a ramped
commitment). So renting's cost is a straight line in the utilisation below the reserved share and another above it,
and the break-even utilisation is where those lines cross owning's (answers)."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.functions import ceil, floor, lagged, max_, min_, safe_div
from workbook.formula.line import PERCENT, Line
from workbook.models.base import Inputs
from workbook.models.tco.inputs import PER_GPU_HOUR, USD
from workbook.models.tco.schedule import MONTH, Schedule, index


@dataclass(frozen=True)
class Rent:
    """Rent per month at today's prices and the target utilisation (single values), and the mix in force."""

    used: Line
    committed: Line
    rent: Line
    reserved_use: Line  # the share of the GPUs reserved: the reserved share, at most the utilisation
    on_demand_use: Line  # the share of the GPUs' hours bought on demand: utilisation - reserved


@dataclass(frozen=True)
class Renting:
    index: Line  # the on-demand (market) rent index
    reserved_index: Line  # the reserved price index, fixed for each term
    used: Line  # GPU-hours used each month (the ramp included)
    rent: Line  # renting: cash out, after tax
    rent_pretax: Line


def rent_today(s: SheetBuilder, i: Inputs, p: Inputs) -> Rent:
    gpus = p.gpus
    s.section("Rent per month of the same service, at today's prices and the target utilisation")
    reserved = s.calc("reserved_use", "Share of the GPUs' hours reserved (the reserved share, at most the "
                      "utilisation)", "%", min_(i.reserved_share, i.utilisation),
                      "MIN(reserved share, utilisation): a renter reserves no more than it plans to use", fmt=PERCENT)
    on_demand_use = s.calc("on_demand_use", "Share of the GPUs' hours bought on demand", "%",
                           i.utilisation - reserved, "utilisation - the reserved share", fmt=PERCENT)
    used = s.calc("used_gpu_hours", "GPU-hours used", "GPU-h/month", gpus * i.utilisation,
                  "GPUs x utilisation x hours in a month", fmt=USD)
    committed = s.calc("committed_gpu_hours", "GPU-hours reserved (paid whether used or not)", "GPU-h/month",
                       gpus * reserved, fmt=USD)
    on_demand = s.calc("on_demand_gpu_hours", "GPU-hours bought on demand", "GPU-h/month", gpus * on_demand_use,
                       "GPUs x the share bought on demand x hours in a month", fmt=USD)
    hourly = s.calc("rent_hours_cost", "Rent for GPU-hours", "USD/month",
                    committed * i.reserved_price + on_demand * i.on_demand_price,
                    "reserved hours x reserved price + on-demand hours x on-demand price", fmt=USD)
    rent = s.calc("rent_cost", "Rent", "USD/month", hourly + i.rent_extras, "GPU-hours + storage and egress",
                  fmt=USD)
    s.calc("rent_price_effective", "Rent per GPU-hour used", "USD/GPU-h",
           safe_div(rent, used, "no GPU-hours used (utilisation is 0)"), fmt=PER_GPU_HOUR)
    return Rent(used, committed, rent, reserved, on_demand_use)


def renting_flows(c: SheetBuilder, i: Inputs, p: Inputs, when: Schedule, today: Rent) -> Renting:
    """Reserved hours at the price of the contract term they fall in (fixed for the term, each renewal at the
    market's index then); the hours used beyond them on demand at the market's index; extras. After tax."""
    c.section("Renting: cash out per month (the same GPU-hours in the same months)")
    market = index(c, "rent_index", "Rent price index (on demand, the market)", i.rent_price_change, when.year)
    term = c.calc("reserved_term_start", "Month the current reserved term began", "months",
                  when.in_service * (when.lead + floor((when.service_month - MONTH) / i.reserved_term) * i.reserved_term
                                     + MONTH),
                  "lead time + whole terms served x term + 1: a reserved price is fixed from then for the term",
                  fmt="#,##0", position=True)
    fixed = c.calc("reserved_index", "Reserved price index (fixed for each term)", "ratio",
                   (1 + i.rent_price_change) ** max_(0, ceil(term / (12 * MONTH)) - 1),
                   "the market index of the month the term began: (1 + change)^(its year - 1)", fmt="0.000")
    hours = when.in_service * MONTH * p.gpus * when.ramp
    used = c.calc("used_gpu_hours_flow", "GPU-hours used", "GPU-h", hours * i.utilisation,
                  "in service x GPUs x hours x ramp x utilisation", fmt=USD)
    reserved = c.calc("reserved_gpu_hours_flow", "GPU-hours reserved", "GPU-h", hours * today.reserved_use,
                      "in service x GPUs x hours x ramp x the reserved share of use", fmt=USD)
    on_demand = c.calc("on_demand_gpu_hours_flow", "GPU-hours bought on demand", "GPU-h",
                       hours * today.on_demand_use, "in service x GPUs x hours x ramp x the share bought on demand",
                       fmt=USD)
    pretax = c.calc("rent_pretax_flow", "Renting: cash out before tax", "USD",
                    reserved * i.reserved_price * fixed + on_demand * i.on_demand_price * market
                    + when.in_service * MONTH * i.rent_extras,
                    "reserved hours x reserved price x its term's index + on-demand hours x on-demand price x the "
                    "market index + extras", fmt=USD)
    tax = c.calc("rent_tax_flow", "Tax saved on rent, as paid (the tax lag later)", "USD",
                 -i.tax_rate * lagged(pretax, when.month, i.tax_lag), "rent is deductible", fmt=USD)
    flow = c.calc("rent_flow", "Renting: cash out", "USD", pretax + tax, "before tax + tax saved", fmt=USD)
    return Renting(market, fixed, used, flow, pretax)
