"""The sensitivity tornado: each main input moved down and up by a swing, one at a time.

All cases are one vectorised evaluation of the same lines the workbook renders (a batch of input arrays).
The results are values computed at build time, written as a labelled table and a bar chart: the workbook says
so beside them, because unlike every other number they do not recalculate when an input changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbook.formula.line import Book
from workbook.inputs import Spec

SHEET = "Sensitivity"


@dataclass
class Table:
    """A block of build-time values (not formulas), with the inputs they were computed from."""

    sheet: str
    title: str
    note: str
    header: list[str]
    rows: list[list[Any]]
    formats: list[str]
    charts: list[dict[str, Any]] = field(default_factory=list)  # {"title", "columns": [(name, col)], "axis"}


def tornado(book: Book, specs: list[Spec], inputs: list[str], outputs: list[str], swing: float) -> Table:
    by_key = {s.key: s for s in specs}
    present = [k for k in inputs if k in book.lines and book.lines[k].kind == "input"]
    base_values = {k: float(book.lines[k].value.reshape(-1)[0]) for k in present}
    cases: list[tuple[str, float]] = []
    for key in present:
        spec = by_key[key]
        for sign in (-1.0, 1.0):
            v = base_values[key] * (1.0 + sign * swing)
            lo = spec.lo if spec.lo is not None else -np.inf
            hi = spec.hi if spec.hi is not None else np.inf
            cases.append((key, float(np.clip(v, lo, hi))))
    n = len(cases) + 1  # the last case is the base
    overrides = {k: np.full(n, base_values[k]) for k in present}
    for row, (key, value) in enumerate(cases):
        overrides[key][row] = value
    values = book.evaluate(overrides)
    result = {out: values[out].reshape(n, -1)[:, 0] for out in outputs}
    base = {out: float(result[out][-1]) for out in outputs}

    rows = []
    for j, key in enumerate(present):
        line = book.lines[key]
        lo_case, hi_case = 2 * j, 2 * j + 1
        row = [line.label, line.unit_text, cases[lo_case][1], base_values[key], cases[hi_case][1]]
        for out in outputs:
            row += [float(result[out][lo_case]), float(result[out][hi_case])]
        for out in outputs:
            row += [float(result[out][lo_case]) - base[out], float(result[out][hi_case]) - base[out]]
        rows.append(row)
    first = outputs[0]
    rows.sort(key=lambda r: -abs(r[5 + 2 * len(outputs) + 1] - r[5 + 2 * len(outputs)]))  # widest bar on top
    header = ["Input", "Unit", f"Low (-{swing:.0%})", "Base", f"High (+{swing:.0%})"]
    formats = ["", "", "#,##0.0000", "#,##0.0000", "#,##0.0000"]
    for out in outputs:
        label = book.lines[out].label
        header += [f"{label}: at low", f"{label}: at high"]
        formats += [book.lines[out].fmt] * 2
    for out in outputs:
        label = book.lines[out].label
        header += [f"{label}: change at low", f"{label}: change at high"]
        formats += [book.lines[out].fmt] * 2
    charts = []
    for k, out in enumerate(outputs):
        col = 5 + 2 * len(outputs) + 2 * k
        line = book.lines[out]
        charts.append({"title": f"Tornado: {line.label} ({line.unit_text}), change from base "
                                f"{base[out]:.4g}", "columns": [("at low input", col), ("at high input", col + 1)],
                       "fmt": line.fmt})
    note = (f"Computed at build time by the Python model from the inputs shown (base case: the Inputs sheet; "
            f"each row moves one input by -/+{swing:.0%}, kept within its valid range). These are values, not "
            f"formulas: rebuild the workbook to refresh them. Base {book.lines[first].label}: {base[first]:.6g} "
            f"{book.lines[first].unit_text}.")
    return Table(SHEET, "Sensitivity of the owned cost to the main inputs", note, header, rows, formats, charts)
