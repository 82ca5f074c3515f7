"""The bridge from one version's headline outputs to the other's: one step per group of changes (default: per
section of the Inputs sheet), each step the group's Shapley value (workbook.analysis.shapley), so that no order of
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

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbook.analysis import shapley
from workbook.build import Models
from workbook.explain.diff import QUOTE, Difference, changed_keys, differences, flat, quote_key
from workbook.explain.versions import Version
from workbook.formula.echo import clip
from workbook.formula.evaluation import evaluate, evaluate_overlays, scalar
from workbook.site.errors import InputError
from workbook.site.quotes import SECTION

STRUCTURE = "Parts, choices and quotes"  # the one group that changes the book's structure
OTHER = "Other differences"  # what no listed input explains (see the module's docstring)
CATALOG_SOURCE = re.compile(r"(^|, )catalog (\S+) \S+: ")  # a value's source where it came with a catalog entry
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
class Flip:
    """A check that passes in one version and fails in the other, with the figures it compares in each."""

    id: str
    label: str
    old: bool
    new: bool
    old_figures: str
    new_figures: str


MASTER = "checks.all_pass"


def flips(old: Version, new: Version) -> tuple[Flip, ...]:
    """Every check of both versions (the master check's and the rest, in the new book's order) whose TRUE/FALSE
    differs, with the figures each compares (workbook.findings)."""
    from workbook.analysis.summary import master_checks
    from workbook.findings import check_figures
    from workbook.models.tco import DELAY_SCENARIO

    ids = [k for k, line in new.book.lines.items() if line.kind == "check" and k in old.book.lines]
    a = evaluate(old.book, {}, ids, strict=False, with_dependencies=True)
    b = evaluate(new.book, {}, ids, strict=False, with_dependencies=True)
    out = []
    for k in ids:
        was, now = bool(scalar(a[k])), bool(scalar(b[k]))
        if was != now:
            out.append(Flip(k, new.book.lines[k].label, was, now, check_figures(old.book, a, k),
                            check_figures(new.book, b, k)))
    master = [all(bool(scalar(v[c.id])) for c in master_checks(version.book, (DELAY_SCENARIO,)) if c.id in v)
              for version, v in ((old, a), (new, b))]
    if master[0] != master[1]:
        out.insert(0, Flip(MASTER, "All checks pass (the master check)", master[0], master[1], "", ""))
    return tuple(out)


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
    flips: tuple[Flip, ...] = ()  # the checks that pass in one version and fail in the other

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
    named = headlines(new.models)
    ids = [i for i, _ in named]
    a = evaluate(old.book, {}, ids, strict=False)
    b = evaluate(new.book, {}, ids, strict=False)
    outputs = tuple(Output(i, label, new.book.lines[i].unit_text, new.book.lines[i].fmt, scalar(a[i]), scalar(b[i]))
                    for i, label in named)
    game, chosen = _quote_game(old, new, diffs, groups or {}, by_input, outputs, ids)
    if game is None:
        chosen = _groups(diffs, old, new, groups or {}, by_input)
        structural = next((k for k, g in enumerate(chosen) if g.structural), None)
        game = _Game(old, new, _values(new, chosen), _values(old, chosen), structural)
        if structural is None and chosen and not _reproduces(game, chosen, ids, outputs, to_new=True):
            chosen.append(Group(OTHER, (), (), structural=True))
            game = dataclasses.replace(game, switch=len(chosen) - 1)
    attribution = shapley.attribute(len(chosen), lambda masks: _overlay_rows(game, chosen, masks, ids), seed=seed)
    return Bridge(old, new, tuple(diffs), tuple(chosen), outputs, attribution.values, attribution,
                  tuple(_notes(old, new, diffs)), flips(old, new))


@dataclass(frozen=True)
class _Game:
    """How v(S) is evaluated: on the old book with the new values of S's inputs put in, or on the new book with
    the old values of the inputs outside S put back. `switch`: the structural group, whose presence picks the new
    book; else every coalition on `on_new`'s book."""

    old: Version
    new: Version
    new_values: dict[str, float]  # each input a group puts in: its new value (or what stands in for it)
    old_values: dict[str, float]
    switch: int | None = None
    on_new: bool = False


def _values(v: Version, groups: Sequence[Group]) -> dict[str, float]:
    return {key: scalar(v.book.lines[key].value) for g in groups for key in g.keys if key in v.book.lines}


def _reproduces(game: _Game, groups: Sequence[Group], ids: list[str], outputs: Sequence[Output], *,
                to_new: bool) -> bool:
    """Whether the game's book with every other value put in gives the other version's outputs (to SAME)."""
    mask = np.full((1, len(groups)), to_new, dtype=bool)
    got = _overlay_rows(game, groups, mask, ids)[0]
    want = [o.new if to_new else o.old for o in outputs]
    return bool(np.allclose(got, want, rtol=SAME, atol=0, equal_nan=True))


def _quote_game(old: Version, new: Version, diffs: list[Difference], named: Mapping[str, Sequence[str]],
                by_input: bool, outputs: Sequence[Output], ids: list[str]) -> tuple[_Game | None, list[Group]]:
    """Where the only rows one version has are a vendor's quotes (added, or removed), the bridge is played on
    the book with the quotes, the quoted price and lead time of each being put back as the line's price and lead
    time in the other version (its budget ones): a quote's price and lead time are then steps of their own, not
    one structural step. Used only where that book with every other value gives the other version's outputs."""
    added = set(new.loaded.quotes) - set(old.loaded.quotes)
    removed = set(old.loaded.quotes) - set(new.loaded.quotes)
    moving = [d for d in diffs if d.moves and not d.overlay]
    if not moving or bool(added) == bool(removed) or not all(d.kind == QUOTE or d.section.startswith(SECTION)
                                                             for d in moving):
        return None, []
    with_quotes, other = (new, old) if added else (old, new)
    used = evaluate(other.book, {}, [line.id for k in added | removed for line in other.models.bill.used[k]])
    quoted = with_quotes.models.bill.quoted
    stand = {mine.id: scalar(used[theirs.id]) for k in added | removed  # the price and the lead time
             for mine, theirs in zip(quoted[k][:2], other.models.bill.used[k], strict=True)}
    hosts = {key: quoted[k][0].id for k in added | removed for key in (quote_key(k), *(x.id for x in quoted[k]))}
    chosen = _groups(diffs, old, new, named, by_input, stand, hosts)
    theirs = {**_values(other, chosen), **stand}
    game = (_Game(old, new, _values(new, chosen), theirs, on_new=True) if added
            else _Game(old, new, theirs, _values(old, chosen)))
    return (game, chosen) if _reproduces(game, chosen, ids, outputs, to_new=not added) else (None, [])


def _groups(diffs: list[Difference], old: Version, new: Version, named: Mapping[str, Sequence[str]],
            by_input: bool, stand: Mapping[str, float] | None = None,
            hosts: Mapping[str, str] | None = None) -> list[Group]:
    """The steps: the user's named groups, then one per section (or input) of the other changes that can be put in
    on their own, then the structural step, holding every change that moves the outputs and cannot. `stand`: the
    quoted lines put in by their stand-ins; `hosts`: where each quote's other rows go (their key -> the quoted
    price's key)."""
    placed, structural, along = _sorted(diffs, old, new, stand)
    members = _members(placed, structural, named, by_input)
    for d in along:  # a quote's quantity and date, the price date: no number in the other version; with its price
        host = (hosts or {}).get(d.key)
        home = next((n for n, ds in members.items() if any(x.key == host for x in ds)),
                    next(n for n, ds in members.items() if any(x.key in (stand or {}) for x in ds)))
        members[home].append(d)
    out = [Group(n, tuple(d.key for d in ds if d.overlay or d.key in (stand or {})), tuple(d.key for d in ds))
           for n, ds in members.items()]
    if structural:
        out.append(Group(STRUCTURE, (), tuple(d.key for d in structural), structural=True))
    return out


def _sorted(diffs: list[Difference], old: Version, new: Version,
            stand: Mapping[str, float] | None) -> tuple[list[Difference], list[Difference], list[Difference]]:
    """The differences that move the outputs: those put in on their own, the structural ones (a value that came
    with a catalog part that changed among them), and a quote's rows that go with its stand-ins."""
    placed, structural, along = [], [], []
    a, b = old.loaded.site.parts, new.loaded.site.parts
    for d in diffs:
        if not d.moves:
            continue
        kinds = [m.group(2) for m in (CATALOG_SOURCE.search(x) for x in (d.old_source, d.new_source)) if m]
        if stand is not None and not d.overlay and d.key not in stand:
            along.append(d)
        elif not (d.overlay or d.key in (stand or {})) or any(a.get(k) != b.get(k) for k in kinds):
            structural.append(d)
        else:
            placed.append(d)
    return placed, structural, along


def _members(placed: list[Difference], structural: list[Difference], named: Mapping[str, Sequence[str]],
             by_input: bool) -> dict[str, list[Difference]]:
    """Each step's differences: a named group's (the first group naming a key takes it), then by section (input)."""
    labels = [d.label for d in placed]
    step = {d.key: d.label if labels.count(d.label) == 1 and d.label not in {x.section for x in placed} else d.key
            for d in placed}  # a step per input is named by its label (by its key where two share one)
    sections = {d.section for d in placed} | {d.key for d in placed} | set(step.values()) | {STRUCTURE, OTHER}
    members: dict[str, list[Difference]] = {name: [] for name in named}
    for name, keys in named.items():
        if name in sections:
            raise _refused(name, name, "is the name of another step (a section's, an input's or the structural one)")
        for key in keys:
            if not any(_matches(d.key, key) for d in placed):
                raise _refused(name, key, "is a difference that changes the book's rows, in the step " + STRUCTURE
                               if any(_matches(d.key, key) for d in structural)
                               else "names no input that differs between the two versions")
    for d in placed:
        name = next((n for n, keys in named.items() if any(_matches(d.key, k) for k in keys)), None)
        members.setdefault(name or (step[d.key] if by_input else d.section), []).append(d)
    for name, keys in named.items():
        if not members[name]:
            raise InputError("holds only inputs an earlier --group holds", key=f"--group {name}",
                             value=",".join(keys), expected="each input in one group")
    return members


def _refused(name: str, value: str, problem: str) -> InputError:
    return InputError(problem, key=f"--group {name}", value=value,
                      expected="input keys or sections (tco, tco.utilisation) whose values differ")


def _matches(key: str, given: str) -> bool:
    return key == given or key.startswith(given + ".")


def _overlay_rows(game: _Game, groups: Sequence[Group], masks: np.ndarray, ids: list[str]) -> np.ndarray:
    """v(S) for each coalition (a row of `masks`): the outputs, one column each (see the module's docstring)."""
    out = np.full((len(masks), len(ids)), math.nan)
    for into_new in (False, True):
        rows = [r for r in range(len(masks))
                if (game.on_new if game.switch is None else bool(masks[r, game.switch])) == into_new]
        if not rows:
            continue
        book, values = (game.new.book, game.old_values) if into_new else (game.old.book, game.new_values)
        overlays = [{key: values[key] for gi, g in enumerate(groups) if bool(masks[r, gi]) != into_new
                     for key in g.keys} for r in rows]
        got = evaluate_overlays(book, overlays, ids, strict=False, ranges=False)
        out[rows] = np.column_stack([got[i][:, 0] for i in ids])
    return out


def _notes(old: Version, new: Version, diffs: list[Difference]) -> list[str]:
    """What a reader must know before reading the steps: two different sites; a catalog that differs."""
    notes = []
    if old.loaded.site.name != new.loaded.site.name:
        notes.append(f"two different sites: {old.loaded.site.name!r} and {new.loaded.site.name!r} (allowed: the "
                     "bridge says how every difference between them moves the outputs)")
    notes += [template_note(name, then, now) for name, then, now in old.templates]
    if not any(d.moves for d in diffs):
        notes.append("no difference moves the headline outputs")
    return notes


def template_note(name: str, then: Any, now: Any) -> str:
    """The values of a template (the catalog, the defaults) that differ between a revision's and this tool's, its
    sources' wording counted apart; both versions are evaluated with this tool's, so none is a step of the bridge."""
    changed = changed_keys(then, now)
    keys = [k for k in changed if not k.endswith(".source")]
    a, b = flat(then), flat(now)
    shown = ", ".join(f"{k} ({clip(a.get(k, 'absent'))} -> {clip(b.get(k, 'absent'))})" for k in keys[:8])
    more = f" and {len(keys) - 8} more" if len(keys) > 8 else ""
    sources = len(changed) - len(keys)
    worded = f" (and {sources} source text(s) reworded)" if sources else ""
    return (f"{name} at the old version's revision differs from this tool's in {len(keys)} value(s): {shown}{more}"
            f"{worded}; both versions are evaluated with this tool's, so these are not steps of the bridge")
