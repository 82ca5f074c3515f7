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
from typing import Any

from workbook.inputs import Rule, Spec
from workbook.models import (
    bom,
    cooling,
    envelope,
    fabric,
    generation,
    generators,
    oob,
    overhead,
    power,
    printing,
    reliability,
    summary,
    tco,
    ups,
)

__all__ = ["ENGINEERING", "PRESENTATION", "all_rules", "all_specs", "bom", "cooling", "envelope", "fabric",
           "generation", "generators", "oob", "overhead", "power", "printing", "reliability", "summary", "tco", "ups"]

PRESENTATION: list[ModuleType] = [power, generators, fabric, cooling, envelope, reliability, bom, tco, printing]
ENGINEERING: list[ModuleType] = [power, generators, fabric, cooling]  # the models of one fleet of hardware


def all_specs() -> list[Spec]:
    return [spec for model in PRESENTATION for spec in model.INPUTS]


def all_rules() -> list[Rule]:
    """Every model's cross-key input rules (a module's optional RULES)."""
    return [rule for model in PRESENTATION for rule in getattr(model, "RULES", [])]


# Where the wiring and the build steps live now (issue 46): the names this package held, still found from it.
_MOVED = {
    "workbook.models.fleet": ("Fleet", "NEXT", "define_fleet", "define_site_fleet", "model_inputs"),
    "workbook.build": ("Loaded", "Models", "SITE_NODE", "build_book", "complete", "decision_risk", "decision_tornado",
                       "define_bom", "define_models", "define_results", "define_upgrade", "load_all", "named_parts",
                       "present", "risk_outputs"),
}


def __getattr__(name: str) -> Any:
    import importlib

    for module, names in _MOVED.items():
        if name in names:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'workbook.models' has no attribute {name!r}")
