"""Owning: capex, running costs at today's prices, and the unlevered monthly cash out (capex on its schedule,
working capital, running costs moved by their indices, tax on its lag, and the values received at exit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.formula.functions import lagged, max_, where
from workbook.formula.line import Line
from workbook.models.base import Inputs
from workbook.models.bom.bom import BomOut
from workbook.models.power.power import PowerOut
from workbook.models.tco.inputs import USD
from workbook.models.tco.schedule import MONTH, Schedule, index
from workbook.models.tco.values import ExitValues, exit_values


@dataclass(frozen=True)
class Capex:
    it: Line
    facility: Line
    capex: Line
    capacity: Line
    lead: Line


@dataclass(frozen=True)
class Running:
    """Running costs per month in service at today's prices (energy at the target utilisation)."""

    idle: Line
    slope: Line
    energy: Line
    facility: Line
    support: Line
    staff: Line
    opex: Line


@dataclass(frozen=True)
class Owning:
    """Owning's monthly rows the answers, the financing and the P&L read."""

    it: Line
    facility: Line
    working_capital: Line
    opex: Line
    energy: Line
    facility_opex: Line
    support: Line
    staff: Line
    tax: Line  # tax saved, as paid (after the lag)
    tax_accrued: Line  # tax saved in the month it arises
    proceeds: Line  # values received at exit, before tax
    own: Line  # owning: cash out, after tax
    own_pretax: Line  # owning: cash out before tax
    elec: Line  # the electricity index (the break-even's energy slope)
    values: ExitValues


def capex(s: SheetBuilder, i: Inputs, power: PowerOut, bom: BomOut) -> Capex:
    s.section("Capex (paid on the deployment schedule)")
    lead = s.calc("service_lead", "Lead time from order to service (the longer of the two below, + any delay)",
                  "months", max_(i.lead_time, bom.equipment_lead_months) + i.delay_months,
                  "MAX(the site's order-to-service lead time, the equipment's critical path from the BOM) + delay",
                  fmt="#,##0")
    it = s.calc("it_capex", "IT capex (the bill of materials' total)", "USD", bom.total,
                "BOM sheet: every quantity x its unit price, quoted where a vendor quoted", fmt=USD)
    critical = i.choice("facility_price_basis") == "critical-it"
    basis = power.critical_it_capacity if critical else power.contracted_feed
    capacity = s.calc("facility_capacity", "Capacity the facility is priced on", "kW", basis,
                      "contracted critical IT capacity (Power chain)" if critical else
                      "contracted utility feed (Power chain), facility overhead included", fmt=USD)
    if i.choice("facility_model") == "colo":
        facility = s.calc("facility_capex", "Facility capex (colocation fit-out)", "USD", i.fit_out_capex, fmt=USD)
    else:
        facility = s.calc("facility_capex", "Facility capex (build, per MW of capacity)", "USD",
                          capacity * i.build_cost, "capacity x build cost per MW", fmt=USD)
    total = s.calc("capex", "Total capex", "USD", it + facility, fmt=USD)
    return Capex(it, facility, total, capacity, lead)


def running_costs(s: SheetBuilder, i: Inputs, power: PowerOut, cap: Capex, bom: BomOut) -> Running:
    pue, load = power.pue_energy, power.it_energy_load
    s.section("Running costs per month in service, at today's prices and the target utilisation")
    idle = s.calc("energy_idle", "Energy at zero utilisation", "USD/month",
                  load * i.idle_power_share * pue * i.electricity_price,
                  "IT load at the component sum x idle share x annual PUE x price x hours in a month (8760/12)",
                  fmt=USD)
    slope = s.calc("energy_per_utilisation", "Energy per unit of utilisation", "USD/month",
                   load * (1 - i.idle_power_share) * pue * i.electricity_price,
                   "IT load at the component sum x (1 - idle share) x annual PUE x price x hours: energy rises "
                   "linearly with utilisation", fmt=USD)
    energy = s.calc("energy_cost", "Energy", "USD/month", idle + slope * i.utilisation,
                    "at zero utilisation + per unit of utilisation x utilisation", fmt=USD)
    if i.choice("facility_model") == "colo":
        facility = s.calc("colo_cost", "Colocation (capacity x price per kW-month)", "USD/month",
                          cap.capacity * i.colo_price, fmt=USD)
    else:
        facility = s.calc("facility_opex", "Facility maintenance", "USD/month", cap.facility * i.facility_opex_rate,
                          fmt=USD)
    support = s.calc("support_cost", "Hardware support and warranty", "USD/month", bom.support_per_year,
                     "BOM sheet: every group's support and warranty price per year of cover (quoted, else the "
                     "support rate x the group's equipment), a month's share; not in the IT capex", fmt=USD)
    staff = s.calc("staff", "Staff", "USD/month", i.staff_fte * i.staff_cost, fmt=USD)
    opex = s.calc("opex", "Running costs", "USD/month", energy + facility + support + staff, fmt=USD)
    return Running(idle, slope, energy, facility, support, staff, opex)


def owning_flows(s: SheetBuilder, c: SheetBuilder, i: Inputs, when: Schedule, cap: Capex, run: Running,
                 rate: Line, rent_index: Line) -> Owning:
    """Owning's unlevered cash out per month, after tax at the tax rate on the tax lag."""
    c.section("Prices over time (indices on today's prices)")
    elec = index(c, "electricity_index", "Electricity price index", i.electricity_escalation, when.year)
    fac_index = index(c, "facility_index", "Facility price index", i.facility_escalation, when.year)
    staff_index = index(c, "staff_index", "Staff cost index", i.staff_escalation, when.year)
    support_index = index(c, "support_index", "Hardware support price index", i.support_escalation, when.year)
    c.section("Owning: cash out per month (unlevered)")
    lead_n = when.lead / MONTH
    it_flow = c.calc("it_capex_flow", "IT capex paid", "USD",
                     cap.it * (i.deposit_share * when.order + (1 - i.deposit_share) * when.delivery),
                     "deposit at order, the balance on delivery", fmt=USD)
    fac_flow = c.calc("facility_capex_flow", "Facility capex paid", "USD",
                      cap.facility * where(lead_n > 0, when.construction / max_(1, lead_n), when.order),
                      "in equal parts over the lead time (at the start without one)", fmt=USD)
    wc = c.calc("working_capital_flow", "Working capital (held from the first month of service, released at exit)",
                "USD", run.opex * i.working_capital_months * (when.first_service - when.exit),
                "months of running costs at today's prices, in at the start of service and back at exit", fmt=USD)
    live = when.in_service * MONTH
    energy = c.calc("energy_flow", "Energy", "USD", live * elec * (run.idle + run.slope * i.utilisation * when.ramp),
                    "in service x index x (energy at idle + per unit of utilisation x utilisation x ramp)", fmt=USD)
    fac_opex = c.calc("facility_opex_flow", "Colocation or facility maintenance", "USD",
                      live * fac_index * run.facility, fmt=USD)
    support = c.calc("support_flow", "Hardware support", "USD", live * support_index * run.support, fmt=USD)
    staff = c.calc("staff_flow", "Staff", "USD", live * staff_index * run.staff, fmt=USD)
    opex = c.calc("opex_flow", "Running costs", "USD", energy + fac_opex + support + staff, fmt=USD)
    values = exit_values(s, c, i, when, cap, rate, rent_index)
    return _taxed(c, i, when, dict(it=it_flow, facility=fac_flow, working_capital=wc, opex=opex, energy=energy,
                                   facility_opex=fac_opex, support=support, staff=staff, elec=elec), values)


def _taxed(c: SheetBuilder, i: Inputs, when: Schedule, rows: dict[str, Any], values: ExitValues) -> Owning:
    """Tax saved on running costs, tax depreciation and the loss (gain) at exit, paid the tax lag later; the
    values received at exit; owning's cash out before and after tax."""
    c.section("Owning: tax and the values received at exit")
    accrued = c.calc("tax_accrued_flow", "Tax saved, in the month it arises", "USD",
                     -i.tax_rate * (rows["opex"] + values.tax_depreciation + values.tax_exit_loss),
                     "-(tax rate) x (running costs + tax depreciation + the loss over tax basis at exit)", fmt=USD)
    tax = c.calc("tax_flow", "Tax saved, as paid (the tax lag later)", "USD", lagged(accrued, when.month, i.tax_lag),
                 "the month's tax saved, tax lag months after it arises: SUMIF(month row, month - lag, row)", fmt=USD)
    proceeds = c.calc("residual_flow", "Values received at exit (IT resale and the facility), before tax", "USD",
                      -(values.it_resale + values.facility_value), "received: negative cash out", fmt=USD)
    capital = rows["it"] + rows["facility"] + rows["working_capital"]
    pretax = c.calc("own_pretax_flow", "Owning: cash out before tax", "USD", capital + rows["opex"] + proceeds,
                    "capex + working capital + running costs - values received", fmt=USD)
    own = c.calc("own_flow", "Owning: cash out", "USD", pretax + tax, "before tax + tax saved (as paid)", fmt=USD)
    return Owning(tax=tax, tax_accrued=accrued, proceeds=proceeds, own=own, own_pretax=pretax, values=values,
                  **rows)

