"""The models: each module defines one model's lines, and this package lists them.

A model is a function of its inputs and of other models' outputs that returns a small frozen object of the
lines it provides (`power.define(scope, inputs, fabric) -> PowerOut`). The wiring (workbook.models.fleet for one
fleet of hardware, workbook.build for the site's book) passes those objects along, so the order the models are
defined in is the order their arguments allow: no list of names, no line looked up by a string. A model called
under a namespace (its Scope) is a second instance of it in the same book, with its own inputs and sheets
(`fleet_new.power.it_load` on `Power chain (fleet_new)`).

Each module with inputs has INPUTS (its Specs) and may have RULES (between keys); input sections appear on the
Inputs sheet in PRESENTATION order.
"""

from __future__ import annotations

from types import ModuleType

import workbook.models.bom.bom
import workbook.models.generation.generation
import workbook.models.network.fabric
import workbook.models.network.oob
import workbook.models.power.envelope
import workbook.models.power.generators
import workbook.models.power.power  # noqa: F401  (each model module is loaded here; the lists name them below)
from workbook.models import bom, cooling, generation, network, overhead, power, printing, reliability, tco, workload
from workbook.site.spec import Rule, Spec

__all__ = ["ENGINEERING", "PRESENTATION", "all_rules", "all_specs", "bom", "cooling", "generation", "network",
           "overhead", "power", "printing", "reliability", "tco",
           "workload"]

# the models with inputs, in the Inputs sheet's order
PRESENTATION: list[ModuleType] = [power.power, power.generators, network.fabric, cooling, power.envelope, reliability,
                                  bom.bom, tco, printing]
ENGINEERING: list[ModuleType] = [power.power, power.generators, network.fabric, cooling]  # one fleet of hardware


def all_specs() -> list[Spec]:
    """Every model's input keys; the workload's are read only where the site file has its section."""
    return [spec for model in (*PRESENTATION, workload) for spec in model.INPUTS]


def all_rules() -> list[Rule]:
    """Every model's cross-key input rules (a module's optional RULES)."""
    return [rule for model in (*PRESENTATION, workload) for rule in getattr(model, "RULES", [])]
