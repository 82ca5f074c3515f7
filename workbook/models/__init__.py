"""The models. Each module has TITLE, PREFIX, INPUTS and define(book, inputs), optionally more definition
functions for lines that use models defined after it, and summarise(book, s) for its rows on the Summary.

Sheets and input sections appear in PRESENTATION order; lines are defined in EVALUATION order, so a model
can use the lines of any model defined before it (the fabric's power feeds the power chain).
"""

from __future__ import annotations

from types import ModuleType

from workbook import scenarios, sensitivity
from workbook.formula.line import CHECKS_SHEET, INPUTS_SHEET, Book
from workbook.inputs import Rule, Site, Spec
from workbook.models import cooling, fabric, power, summary, tco
from workbook.models.base import AllInputs, Inputs

PRESENTATION: list[ModuleType] = [power, fabric, cooling, tco]
# Definition order: the fabric's power feeds the power chain, which cooling uses; the UPS carries the CDU pumps and
# the out-of-band network counts the racks' PDUs and the CDUs, so both come after cooling; the TCO prices everything.
EVALUATION: list[tuple[ModuleType, str]] = [
    (fabric, "define"), (power, "define"), (cooling, "define"), (power, "define_ups"), (fabric, "define_oob"),
    (tco, "define")]


def all_specs() -> list[Spec]:
    return [spec for model in PRESENTATION for spec in model.INPUTS]


def all_rules() -> list[Rule]:
    """Every model's cross-key input rules (a module's optional RULES)."""
    return [rule for model in PRESENTATION for rule in getattr(model, "RULES", [])]


def build_book(site: Site) -> Book:
    """Every line of the site's workbook, defined once; evaluation and rendering both read this."""
    book = Book(site.name)
    book.sheet(INPUTS_SHEET, "inputs")
    book.sheet(summary.TITLE, summary.PREFIX)
    book.sheet(tco.COMPARISON, "comparison")
    for model in PRESENTATION:
        book.sheet(model.TITLE, model.PREFIX)
    book.sheet(tco.PL_SHEET, "tco")
    book.sheet(tco.CASH_SHEET, "tco")
    book.sheet(scenarios.SHEET, "scenario")
    book.sheet(scenarios.YEARLY_SHEET, "scenario")
    book.sheet(sensitivity.SHEET, "sensitivity")
    book.sheet(CHECKS_SHEET, "checks")
    inputs = AllInputs({m.PREFIX: Inputs(book, site, m.TITLE, m.PREFIX, m.INPUTS) for m in PRESENTATION})
    for model, function in EVALUATION:
        getattr(model, function)(book, inputs)
    book.scenarios = scenarios.add_scenarios(book, site, all_specs(), all_rules())
    summary.define_checks(book)
    summary.define(book, [m for m in PRESENTATION if hasattr(m, "summarise")])
    book.tables.append(sensitivity.tornado(
        book, all_specs(), all_rules(), ["tco.owned_cost_per_gpu_hour", "tco.break_even_utilisation"],
        float(inputs.tco.choice("sensitivity_swing"))))
    return book
