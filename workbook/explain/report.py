"""The explanation as text (the command line's, and import-inputs') and as JSON: the two files and their SHA-256,
what a reader must know first, the differences, then each headline output's bridge with the method named."""

from __future__ import annotations

import math
from typing import Any

from workbook.book import formats
from workbook.explain.bridge import Bridge, Output
from workbook.explain.diff import QUOTE, Difference


def figure(value: float, o: Output, signed: bool = False) -> str:
    """A value of an output as its line shows it, to the line's decimals: a share in % (a step in percentage points),
    money in whole USD, a break-even above 100% as never; a step that rounds to nothing is 0, never -0.0."""
    if not math.isfinite(value):
        return "n/a"
    if o.unit == "%" and not signed and '"never' in o.fmt and value > 1:
        return "never (over 100%)"
    shown = formats.decimals(o.fmt.split(";")[-1]) if o.unit != "USD" else 0
    x = value * 100 if o.unit == "%" else value
    text = f"{x:{'+' if signed else ''},.{shown}f}"
    if float(text.replace(",", "")) == 0:
        text = text.lstrip("+-")
    if o.unit == "%":
        return f"{text} pp" if signed else f"{text}%"
    return f"{text} {o.unit}"


def lines(bridge: Bridge, *, sources: bool = True) -> list[str]:
    """The explanation as lines of text."""
    out = [f"old: {bridge.old.files}", f"new: {bridge.new.files}"]
    out += [f"note: {n}" for n in bridge.notes]
    out.append(f"{len(bridge.differences)} difference(s), in the Inputs sheet's order:")
    out += [f"  {t}" for d in bridge.differences for t in difference_lines(d, sources)]
    return out + flip_lines(bridge) + bridge_lines(bridge)


def flip_lines(bridge: Bridge) -> list[str]:
    """Each check that passes in one version and fails in the other, with the figures it compares in each."""
    if not bridge.flips:
        return ["no check changes: each passes (or fails) in both versions"]
    out = [f"{len(bridge.flips)} check(s) change:"]
    for f in bridge.flips:
        state = {True: "passes", False: "FAILS"}
        figures = f" ({f.old_figures} -> {f.new_figures})" if f.old_figures or f.new_figures else ""
        out.append(f"  {f.label}: {state[f.old]} -> {state[f.new]}{figures}")
    return out


def bridge_lines(bridge: Bridge) -> list[str]:
    """Each headline output's old and new value and its steps (an estimated step with its standard error)."""
    out = [f"bridge of the headline outputs over {len(bridge.groups)} step(s): {bridge.method}"]
    error = bridge.attribution.error
    for oi, o in enumerate(bridge.outputs):
        out.append(f"  {o.label}: {figure(o.old, o)} -> {figure(o.new, o)} ({figure(o.new - o.old, o, True)})")
        for gi, g in enumerate(bridge.groups):
            about = "" if error is None else f" (standard error {figure(float(error[gi, oi]), o)})"
            out.append(f"    {g.name:40} {figure(float(bridge.steps[gi, oi]), o, True):>24}{about}")
    return out


def difference_lines(d: Difference, sources: bool = True) -> list[str]:
    unit = f" [{d.section}]" if d.section else ""
    what = f"{d.kind:8} {d.key}: {d.old or '(none)'} -> {d.new or '(none)'}{unit}"
    if d.kind == QUOTE and d.old and d.new:
        what += " (its price, lead time and quantity are the inputs above)"
    elif not d.moves:
        what += " (moves no headline output)"
    said = [what]
    if sources and d.old_source != d.new_source:
        said.append(f"         source: {d.old_source or '(none)'} -> {d.new_source or '(none)'}")
    return said


def as_json(bridge: Bridge) -> dict[str, Any]:
    """The explanation as plain data (numbers in each output's unit; shares as fractions)."""
    def number(x: float | None) -> float | None:
        return None if x is None or not math.isfinite(x) else x

    return {
        **{side: {"file": v.name, "sha256": v.sha256, "site": v.loaded.site.name,
                  "other_files": {name: sha for name, sha in v.companions}}
           for side, v in (("old", bridge.old), ("new", bridge.new))},
        "notes": list(bridge.notes),
        "checks_that_change": [{"check": f.id, "label": f.label, "old": f.old, "new": f.new,
                                "old_figures": f.old_figures, "new_figures": f.new_figures} for f in bridge.flips],
        "method": bridge.method,
        "exact": bridge.attribution.exact,
        "differences": [{"kind": d.kind, "key": d.key, "label": d.label, "unit": d.unit, "old": d.old, "new": d.new,
                         "old_source": d.old_source, "new_source": d.new_source, "section": d.section,
                         "moves_outputs": d.moves, "old_value": number(d.old_value),
                         "new_value": number(d.new_value)} for d in bridge.differences],
        "steps": [{"name": g.name, "structural": g.structural, "differences": list(g.differences)}
                  for g in bridge.groups],
        "bridges": [{"output": o.id, "label": o.label, "unit": o.unit, "old": number(o.old), "new": number(o.new),
                     "steps": {g.name: number(float(bridge.steps[gi, oi])) for gi, g in enumerate(bridge.groups)},
                     **({} if bridge.attribution.error is None else {"standard_errors": {
                         g.name: number(float(bridge.attribution.error[gi, oi]))
                         for gi, g in enumerate(bridge.groups)}})}
                    for oi, o in enumerate(bridge.outputs)],
    }
