"""The bridge from one version's headline outputs to the other's: one step per group of changes (default: per
section of the Inputs sheet), each step the group's Shapley value (workbook.explain.shapley), so that no order of
the changes is chosen and the steps sum to the whole change.

v(S), the outputs with the groups in S changed and the others not, is one row of a batch (evaluate_overlays):
- without the structural group (parts, choices, quotes added or removed, inputs only one version has), the OLD
  version's book with the NEW values of S's inputs put in;
- with it, the NEW version's book with the OLD values of the inputs outside S put back.
So v(none) is the old outputs and v(all) the new ones, each evaluated as the workbooks are. Where the versions
differ in a way no input says (a generation plan's dates, say), the old book with every new value does not give
the new outputs: that remainder is a step of its own, "other differences", never hidden in another.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbook.explain import shapley
from workbook.explain.diff import Difference, differences
from workbook.explain.versions import Version
from workbook.formula.evaluation import evaluate, evaluate_overlays
from workbook.inputs import InputError
from workbook.models import Models

STRUCTURE = "Parts, choices and quotes"  # the one group that changes the book's structure
OTHER = "Other differences"  # what no listed input explains (see the module's docstring)
CATALOG_SOURCE = re.compile(r"(^|, )catalog \S+ \S+: ")  # a value's source where it came with a catalog entry
SAME = 1e-9  # relative: the old book with every new value gives the new outputs (else: other differences)


@dataclass(frozen=True)
class Output:
    """A headline output: its line, and its value in each version."""

    id: str
    label: str
    unit: str
    fmt: str
    old: float
    new: float


@dataclass(frozen=True)
class Group:
    """A step of the bridge: the differences it holds, the inputs it puts in (none for the structural step)."""

    name: str
    keys: tuple[str, ...]
    differences: tuple[str, ...]
    structural: bool = False


@dataclass(frozen=True)
class Bridge:
    old: Version
    new: Version
    differences: tuple[Difference, ...]
    groups: tuple[Group, ...]
    outputs: tuple[Output, ...]
    steps: np.ndarray  # groups x outputs, in each output's unit
    attribution: shapley.Attribution
    notes: tuple[str, ...] = field(default=())

    @property
    def method(self) -> str:
        return self.attribution.method

    def step(self, group: str, output: str) -> float:
        g = [x.name for x in self.groups].index(group)
        o = [x.id for x in self.outputs].index(output)
        return float(self.steps[g, o])

    def dataframe(self) -> Any:
        """The bridge as a pandas table: a row per output, the old value, a column per step, the new value."""
        import pandas as pd

        rows = [{"output": o.id, "label": o.label, "unit": o.unit, "old": o.old,
                 **{g.name: float(self.steps[gi, oi]) for gi, g in enumerate(self.groups)}, "new": o.new}
                for oi, o in enumerate(self.outputs)]
        return pd.DataFrame(rows).set_index("output")


def headlines(m: Models) -> list[tuple[str, str]]:
    """The outputs a change is explained on, (line id, label): the decision, its unit cost and break-even, what
    is bought and what the utility must supply."""
    return [(m.money.npv_advantage.id, "NPV advantage of buying"),
            (m.money.owned_cost_per_gpu_hour.id, "Owned cost per GPU-hour"),
            (m.money.break_even_utilisation.id, "Break-even utilisation"),
            (m.bill.total.id, "IT capex (bill of materials)"),
            (m.fleet.power.it_load.id, "IT load"),
            (m.fleet.power.contracted_feed.id, "Contracted utility feed")]


def explain(old: Version, new: Version, groups: Mapping[str, Sequence[str]] | None = None, *,
            by_input: bool = False, seed: int = 0) -> Bridge:
    """The differences between two versions and the bridge of the headline outputs. `groups`: steps the user
    names, each a list of input keys or section prefixes (`tco`, `tco.utilisation`); changes in none of them are
    grouped by section (`by_input`: one step each)."""
    diffs = differences(old, new)
    chosen = _groups(diffs, old, new, groups or {}, by_input)
    named = headlines(new.models)
    ids = [i for i, _ in named]
    a = evaluate(old.book, {}, ids, strict=False)
    b = evaluate(new.book, {}, ids, strict=False)
    outputs = tuple(Output(i, label, new.book.lines[i].unit_text, new.book.lines[i].fmt, _first(a[i]), _first(b[i]))
                    for i, label in named)
    if not any(g.structural for g in chosen) and chosen:
        everything = _overlay_rows(old, new, chosen, np.ones((1, len(chosen)), dtype=bool), ids)[0]
        if not np.allclose(everything, [o.new for o in outputs], rtol=SAME, atol=0, equal_nan=True):
            chosen.append(Group(OTHER, (), (), structural=True))
    attribution = shapley.attribute(len(chosen), lambda masks: _overlay_rows(old, new, chosen, masks, ids),
                                    seed=seed)
    return Bridge(old, new, tuple(diffs), tuple(chosen), outputs, attribution.values, attribution,
                  tuple(_notes(old, new, diffs)))


def _first(v: np.ndarray) -> float:
    return float(np.asarray(v, dtype=float).reshape(-1)[0])


def _groups(diffs: list[Difference], old: Version, new: Version, named: Mapping[str, Sequence[str]],
            by_input: bool) -> list[Group]:
    """The steps: the user's named groups, then one per section (or input) of the other overlay changes, then
    the structural step, holding every change that moves the outputs and cannot be put in on its own."""
    parts_changed = old.loaded.site.parts != new.loaded.site.parts
    members: dict[str, list[Difference]] = {name: [] for name in named}
    structural: list[Difference] = []
    for d in diffs:
        if not d.moves:
            continue
        with_part = parts_changed and any(CATALOG_SOURCE.search(x) for x in (d.old_source, d.new_source))
        if not d.overlay or with_part:
            structural.append(d)
            continue
        name = next((n for n, keys in named.items() if any(_matches(d.key, k) for k in keys)), None)
        members.setdefault(name or (d.key if by_input else d.section), []).append(d)
    for name, keys in named.items():
        if not members[name]:
            raise InputError("names no input that differs between the two versions", key=f"--group {name}",
                             value=",".join(keys), expected="input keys or sections (tco, tco.utilisation) "
                             "whose values differ")
    out = [Group(n, tuple(d.key for d in ds), tuple(d.key for d in ds)) for n, ds in members.items()]
    if structural:
        out.append(Group(STRUCTURE, (), tuple(d.key for d in structural), structural=True))
    return out


def _matches(key: str, given: str) -> bool:
    return key == given or key.startswith(given + ".")


def _overlay_rows(old: Version, new: Version, groups: Sequence[Group], masks: np.ndarray,
                  ids: list[str]) -> np.ndarray:
    """v(S) for each coalition (a row of `masks`): the outputs, one column each (see the module's docstring)."""
    structural = [i for i, g in enumerate(groups) if g.structural]
    s = structural[0] if structural else None
    out = np.full((len(masks), len(ids)), math.nan)
    for into_new in (False, True):
        rows = [r for r in range(len(masks)) if (s is not None and masks[r, s]) == into_new]
        if not rows:
            continue
        book, other = (new.book, old.book) if into_new else (old.book, new.book)
        overlays = [{key: _first(other.lines[key].value) for gi, g in enumerate(groups)
                     if bool(masks[r, gi]) != into_new for key in g.keys} for r in rows]
        values = evaluate_overlays(book, overlays, ids, strict=False, ranges=False)
        out[rows] = np.column_stack([values[i][:, 0] for i in ids])
    return out


def _notes(old: Version, new: Version, diffs: list[Difference]) -> list[str]:
    """What a reader must know before reading the steps: two different sites; a catalog that differs."""
    notes = []
    if old.loaded.site.name != new.loaded.site.name:
        notes.append(f"two different sites: {old.loaded.site.name!r} and {new.loaded.site.name!r} (allowed: the "
                     "bridge says how every difference between them moves the outputs)")
    if old.catalog is not None:
        notes.append(catalog_note(old.catalog, new))
    if not any(d.moves for d in diffs):
        notes.append("no difference moves the headline outputs")
    return notes


def catalog_note(then: dict[str, Any], now: Version) -> str:
    """The catalog values that differ between a revision's catalog and this tool's; both versions are evaluated
    with this tool's, so none of those is a step of the bridge."""
    from workbook.inputs import load_catalog

    a, b = _flat(then), _flat(load_catalog())
    keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k) and not k.endswith(".source")]
    shown = ", ".join(f"{k} ({a.get(k, 'absent')} -> {b.get(k, 'absent')})" for k in keys[:8])
    more = f" and {len(keys) - 8} more" if len(keys) > 8 else ""
    return (f"the catalog of the old version's revision differs from this tool's in {len(keys)} value(s): "
            f"{shown}{more}; both versions are evaluated with this tool's catalog, so these are not in the bridge")


def _flat(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        return {k: v for key, value in data.items() for k, v in _flat(value, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): data}
