"""The sensitivity tornado on the decision: every continuous input that moves the NPV advantage of buying, found by
evaluating them all; and the break-even rent change.

Each continuous input of the base case is moved down and up by the swing, one at a time (every value stays in its
valid range), in one vectorised evaluation of the same lines the workbook renders (only the lines the outputs and
the validity checks read: workbook.formula.evaluation). Whole-number inputs (GPUs per node, counts, the timeline's
months) are not swung: 6 or 10 GPUs per node is not an option a buyer has, and a whole number moved by 20% is a
different design, not a sensitivity; nor are dates and absolute temperatures (a percentage of either means
nothing). The inputs that move the NPV advantage of buying by more than THRESHOLD of the NPV of owning either way
are shown, widest first, with the break-even utilisation beside it. A case that breaks a check the model's own
numbers rely on (the useful life no longer fits the timeline, say), or that leaves a line the outputs read with
no value, is shown as n/a with the reason, never as a number.

The break-even rent change is the rent price change per year at which the NPV advantage is 0: a root found by
bisection over the input's valid range, many points of the bracket per evaluation of the batch (break_even).

All of these are values computed at build time, labelled so on the sheet, because unlike every other number they
do not recalculate when an input changes. So that an edited input cannot leave them standing unnoticed, the build
also records the value of every input they were computed from (on the Inputs sheet) and adds a live check that
each input still equals its record (current_check): it is a notice, kept out of the master check.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from workbook.book import formats as formats_
from workbook.book.book import Book
from workbook.book.presentation import Fact, Table
from workbook.book.sheets import INPUTS
from workbook.book.sheets import SENSITIVITY as SHEET
from workbook.formula.evaluation import evaluate, non_finite_cases, stacked
from workbook.formula.functions import all_
from workbook.formula.line import BREAK_EVEN, BREAK_EVEN_SHORT, PERCENT, Line
from workbook.formula.units import is_offset
from workbook.site.rules import rule_holds
from workbook.site.spec import Rule, Spec

PREFIX = "sensitivity"
THRESHOLD = 0.01  # an input is shown when it moves the first result by more than 1% of the scale (NPV of owning)
ROOT_POINTS = 64  # points of the bracket evaluated per batch while bisecting for a root
ROOT_TOLERANCE = 1e-10  # a root is found when its bracket is narrower than this (in the input's unit)
CURRENT_LABEL = "The sensitivity table is current: every input it was computed from still has its build value"
RECORD_SECTION = "Sensitivity table: the inputs as built (the record its check compares with; do not edit)"


def continuous(spec: Spec | None, line: Line) -> bool:
    """An input the tornado swings: a number that can take any value in its range. Not a whole number (a count,
    a radix, months of the timeline), a date, a choice, or an absolute temperature."""
    return (spec is not None and line.kind == "input" and not spec.integer and not spec.date and not spec.choices
            and not spec.structural and not is_offset(line.unit))


def _cases(book: Book, specs: dict[str, Spec], swing: float,
           steps: dict[str, float] | None = None) -> tuple[list[Line], np.ndarray]:
    """The continuous inputs to move and their low and high values, shape (inputs, 2); then each whole-month input
    of `steps` (id -> months) moved by its step either way (a useful life of 48/60/72 months), within its range."""
    lines, values = [], []
    for key, step in (steps or {}).items():
        line, spec = book.lines.get(key), specs.get(key)
        if line is None or spec is None or step <= 0:
            continue
        base = float(line.value.reshape(-1)[0])
        low_high = spec.bounds.clipped(np.array([base - step, base + step]), base)
        if (low_high != base).any():
            lines.append(line)
            values.append(low_high)
    for line in book.lines.values():
        spec = specs.get(line.id)
        if not continuous(spec, line):
            continue
        base = float(line.value.reshape(-1)[0])
        if base == 0:
            continue  # a swing of a share of nothing moves nothing
        low_high = np.array([base - swing * abs(base), base + swing * abs(base)])  # low below, high above
        low_high = spec.bounds.clipped(low_high, base)
        if (low_high == base).all():
            continue
        lines.append(line)
        values.append(low_high)
    return lines, np.array(values).reshape(-1, 2)


def tornado(book: Book, specs: list[Spec], rules: list[Rule], outputs: list[str], swing: float,
            scale: str | None = None, steps: dict[str, float] | None = None, sheet: str = SHEET,
            each: bool = False, together: dict[str, tuple[str, ...]] | None = None) -> Table:
    """The table of each continuous input's low and high case: the outputs at each, and their changes from the
    base case. An input is shown when it moves the first output by more than THRESHOLD of the base value of
    `scale` (a line: the NPV of owning, the size of the decision; by default the first output itself), widest bar
    first; or with `each`, when it moves any output by more than THRESHOLD of its own base value, the widest
    relative bar first. `together`: inputs that move in proportion with another's swing (a dense model's active
    parameters with all its parameters), so that the swing breaks no rule between them."""
    by_key = {s.key: s for s in specs}
    lines, low_high = _cases(book, by_key, swing, steps)
    n = 2 * len(lines) + 1  # the last case is the base
    swings = _swings(book, lines, low_high, together or {})
    overrides = stacked(book, [*swings, {}])  # each swing an overlay, all rows of one batch
    # only what the outputs and the base case's validity checks read is computed (not the scenarios' lines)
    validity = validity_checks(book)
    scale = scale or outputs[0]
    values = evaluate(book, overrides, [*outputs, scale, *(c.id for c in validity)], strict=False,
                      with_dependencies=True)
    result = {out: _cases_of(values[out], n) for out in outputs}
    broken = [rule or value or check for rule, value, check in
              zip(_broken_rules(book, overrides, rules, n), non_finite_cases(book, values),
                  _broken_validity(validity, values, n), strict=True)]
    limits = ({out: THRESHOLD * abs(float(result[out][-1])) for out in outputs} if each
              else {outputs[0]: THRESHOLD * abs(float(_cases_of(values[scale], n)[-1]))})
    shown = {out: _change_shown(book.lines[out]) for out in outputs}
    labels = {key: f"{book.lines[key].label}, with "
                   f"{', '.join(_lower_first(book.lines[f].label.split(' (')[0]) for f in follow)} in proportion"
              for key, follow in (together or {}).items() if key in book.lines}
    rows, formats, ids = _rows(lines, low_high, outputs, result, broken, limits, shown, labels, each)
    table = _table(book, outputs, {out: float(result[out][-1]) for out in outputs}, rows, formats, swing,
                   len(lines), None if each else book.lines[scale], sheet)
    table.inputs, table.outputs, table.swing = ids, list(outputs), swing
    swung = {line.id: line for line in lines}
    table.input_lines = tuple(swung[i] for i in ids)
    table.read = [k for k in values if book.lines[k].kind == "input"]
    return table


def _swings(book: Book, lines: list[Line], low_high: np.ndarray,
            together: dict[str, tuple[str, ...]]) -> list[dict[str, float]]:
    """Each input's low and high case, as overrides: the input's value, and its followers' scaled by its ratio."""
    out = []
    for line, pair in zip(lines, low_high, strict=True):
        base = float(line.value.reshape(-1)[0])
        follow = [book.lines[f] for f in together.get(line.id, ()) if f in book.lines]
        for x in pair:
            out.append({line.id: float(x), **{f.id: float(f.value.reshape(-1)[0]) * float(x) / base
                                             for f in follow}})
    return out


def record(book: Book, table: Table, also: tuple[str, ...] = ()) -> tuple[Table, Line]:
    """The table with the live check that it is still current (current_check of the inputs it was computed from,
    and of `also`: those another build-time table read, the Risk sheet's; defined here, after the evaluations that
    made the tables, never inside them), and the check, for the other table to say where it is."""
    read = list(dict.fromkeys([*table.read, *also]))
    check = current_check(book, [book.lines[k] for k in read])
    return dataclasses.replace(table, current=current_sentence("these values", check)), check


def current_sentence(subject: str, check: Line) -> str:
    """Where a build-time table says its live currency check is: `subject` ("these values", "the Risk sheet's
    values") and the check."""
    return (f"Are {subject} current? See the Checks sheet, section {SHEET} ({check.name}): TRUE while every input "
            f"they were computed from is as built; FALSE: rebuild the workbook.")


def _rows(lines: list[Line], low_high: np.ndarray, outputs: list[str], result: dict[str, np.ndarray],
          broken: list[str], limits: dict[str, float], shown: dict[str, tuple[float, int | None]],
          labels: dict[str, str], relative: bool) -> tuple[list[list[Any]], list[str], list[str]]:
    """The rows of the inputs that move an output of `limits` by more than its limit either way, widest bar on the
    first output first (`relative`: on any output, as a share of its base), each row's number format (its input's)
    and its input's id. Each change is as `shown` says (_change_shown); a row's label is its input's, or `labels`'."""
    base = {out: float(result[out][-1]) for out in outputs}
    rows, formats, ids = [], [], []
    for j, line in enumerate(lines):
        lo_case, hi_case = 2 * j, 2 * j + 1
        if not any(_moves(result[out][[c for c in (lo_case, hi_case) if not broken[c]]], base[out], limit)
                   for out, limit in limits.items()):
            continue
        row: list[Any] = [labels.get(line.id, line.label), line.unit_text, low_high[j, 0],
                          float(line.value.reshape(-1)[0]), low_high[j, 1]]
        for out in outputs:
            row += [_shown(result[out][c], broken[c]) for c in (lo_case, hi_case)]
        for out in outputs:
            row += [_change(result[out][c] - base[out], broken[c], *shown[out]) for c in (lo_case, hi_case)]
        rows.append(row)
        formats.append(formats_.negatives_in_parentheses(line.fmt))
        ids.append(line.id)
    width = 5 + 2 * len(outputs)
    if relative:
        order = sorted(range(len(rows)), key=lambda r: -max(
            _bar(rows[r], width + 2 * k) / shown[out][0] / abs(base[out]) if base[out] else 0.0
            for k, out in enumerate(outputs)))
    else:
        order = sorted(range(len(rows)), key=lambda r: -_bar(rows[r], width))
    return [rows[r] for r in order], [formats[r] for r in order], [ids[r] for r in order]


def _moves(cases: np.ndarray, base: float, limit: float) -> bool:
    """Whether any finite case moves a finite base by more than the limit."""
    return bool(np.isfinite(base)) and any(abs(m - base) > limit for m in cases if np.isfinite(m))


def _change_shown(line: Line) -> tuple[float, int | None]:
    """How a change in a result is shown: a percentage's in percentage points (x 100, to 0.1), money's to 0.1 MUSD
    (the table's unit), any other's as computed: (factor, decimals to round to, or None)."""
    if _named(line)[2] == POINTS:
        return 100.0, 1
    if line.unit_text == "USD":
        return 1.0, -5
    return 1.0, None


def _change(value: float, broken: str, factor: float, decimals: int | None) -> Any:
    """A change from the base case as the table shows it (_change_shown), rounded to the precision it is shown at
    so that float noise never reads as -0.0; n/a with its reason for a broken case."""
    if broken or not np.isfinite(value):
        return _shown(value, broken)
    v = value * factor
    return (v if decimals is None else round(v, decimals)) + 0.0


def break_even(book: Book, input_id: str, output_id: str, lo: float, hi: float) -> float | None:
    """The value of an input in [lo, hi] at which an output is 0 (its first sign change from lo), by bisection:
    each round evaluates ROOT_POINTS + 1 points across the bracket as one batch and keeps the interval where the
    sign changes, until it is narrower than ROOT_TOLERANCE; the root is its midpoint. None where the output keeps
    one sign (or has no value) over the whole range."""
    a, b = lo, hi
    base = evaluate(book, {}, [output_id], strict=False, compact=True, with_dependencies=True)
    while True:
        xs = np.linspace(a, b, ROOT_POINTS + 1)
        ys = _cases_of(evaluate(book, {input_id: xs}, [output_id], strict=False, base=base)[output_id], xs.size)
        exact = np.flatnonzero(ys == 0)
        if exact.size:
            return float(xs[exact[0]])
        finite = np.isfinite(ys)
        change = np.flatnonzero(finite[:-1] & finite[1:] & (np.sign(ys[:-1]) != np.sign(ys[1:])))
        if not change.size:
            return None if (a, b) == (lo, hi) else (a + b) / 2
        a, b = float(xs[change[0]]), float(xs[change[0] + 1])
        if b - a < ROOT_TOLERANCE:
            return (a + b) / 2


def break_even_facts(book: Book, spec: Spec, output: Line, beside: Line, what: str) -> list[Fact]:
    """The break-even utilisation (`beside`, live from its line) and, beside it, the value of `spec`'s input (`what`
    it is, in words) at which `output` is 0: a build-time value, found by break_even over the input's range."""
    line = book.lines[spec.key]
    lo, hi = float(spec.lo), float(spec.hi)
    root = break_even(book, line.id, output.id, lo, hi)
    base = float(line.value.reshape(-1)[0])
    span = f"{lo:+.0%} to {hi:+.0%} a year"
    result = _lower_first(output.label.split(" (")[0])
    if root is None:
        at_lo = float(_cases_of(evaluate(book, {line.id: np.array([lo, lo])}, [output.id])[output.id], 2)[0])
        said = (f"No {what} from {span} makes the {result} 0: {'buying' if at_lo > 0 else 'renting'} is ahead at "
                f"every one (base case: {base:+.1%} a year).")
    else:
        said = (f"The {what} at which the {result} is 0 (base case: {base:+.1%} a year): above it buying is "
                f"ahead, below it renting.")
    return [
        Fact(beside.label, beside.unit_text, BREAK_EVEN_SHORT if beside.fmt == BREAK_EVEN else beside.fmt,
             "Live: the formula on the TCO sheet (this cell refers to it); never: above 100%.", line=beside),
        Fact(f"Break-even {what} (build-time value)", "%/year", "+0.00%;-0.00%;0.00%",
             f"{said} Found at build time by bisection over {span}, every other input as built: rebuild the "
             f"workbook to refresh it.", value="none" if root is None else root),
    ]


def current_check(book: Book, inputs: list[Line]) -> Line:
    """A live check that the build-time table still matches the workbook: every input its values were computed
    from equals its value at the build, recorded beside the other inputs (a formula may hold no typed-in number).

    Not part of the master check, and defined after the scenarios and the tornado's cases on purpose: an input
    edited to explore is what a live workbook is for, and every live figure stays right (only this table goes
    stale), so it must not turn "All checks pass" FALSE; a scenario's copy of it would compare the scenario's
    changed input with the base build value, FALSE by construction; and as a validity check it would make every
    tornado case (each moves an input) n/a."""
    record = book.sheet(INPUTS, PREFIX, group=RECORD_SECTION)
    same = []
    for line in inputs:
        built = record.input(f"built_{line.name}", f"{line.label} [as built]", line.unit_text,
                             float(line.value.reshape(-1)[0]), f"{line.name} when the Sensitivity table was built",
                             fmt=line.fmt, integer=line.integer)
        same.append(line.eq(built))
    note = (f"AND of {len(inputs)} equalities: each input the Sensitivity table read against its build value "
            f"(Inputs sheet, section \"{RECORD_SECTION.split(':')[0]}\"). FALSE: rebuild the workbook to refresh "
            f"the table. A notice, not part of the master check: the live figures are right either way.")
    return book.sheet(SHEET, PREFIX).check("current", CURRENT_LABEL, all_(*same), note)


def _broken_rules(book: Book, overrides: dict[str, np.ndarray], rules: list[Rule], n: int) -> list[str]:
    """For each case, the input rule it breaks (a moved value against its partner's), or ''."""
    def case_values(key: str) -> np.ndarray | None:
        if key in overrides:
            return overrides[key]
        line = book.lines.get(key)
        return None if line is None else np.full(n, float(line.value.reshape(-1)[0]))

    out = [""] * n
    for key, op, other, why in rules:
        a, b = case_values(key), case_values(other)
        if a is None or b is None:
            continue
        for c in range(n):
            if not rule_holds(op, a[c], b[c]):
                out[c] = out[c] or why
    return out


def validity_checks(book: Book) -> list[Line]:
    """The checks the base case's own numbers rely on (a scenario's copies are other cases than the tornado's)."""
    copies = {line.id for mapping in book.scenarios.values() for line in mapping.values()}
    return [line for line in book.lines.values() if line.kind == "check" and line.validity and line.id not in copies]


def _cases_of(value: np.ndarray, n: int) -> np.ndarray:
    """A single-value line's value in each of the n cases (one stored value serves them all)."""
    return np.broadcast_to(value[:, 0], (n,))


def _broken_validity(checks: list[Line], values: dict[str, np.ndarray], n: int) -> list[str]:
    """For each case, the label of a validity check it breaks (which the base case passes), or ''."""
    out = [""] * n
    for line in checks:
        ok = _cases_of(values[line.id], n).astype(bool)
        for c in np.flatnonzero(~ok & ok[-1]):
            out[c] = out[c] or line.label
    return out


def _shown(value: float, broken: str) -> Any:
    return f"n/a: {broken}" if broken else float(value)


def _bar(row: list[Any], width: int) -> float:
    """The width of the input's bar on the first output (n/a counts as nothing)."""
    low, high = row[width], row[width + 1]
    return sum(abs(x) for x in (low, high) if isinstance(x, float) and np.isfinite(x))


def _table(book: Book, outputs: list[str], base: dict[str, float], rows: list[list[Any]], formats: list[str],
           swing: float, tried: int, scale: Line | None, sheet: str) -> Table:
    """The table with headers that each name the result, its unit and the case in full (a reader of one
    column, or of a printed page, sees which of the four it is), and a chart per result."""
    header = ["Input", "Unit", f"Low (-{swing:.0%} or a step)", "Base", f"High (+{swing:.0%} or a step)"]
    column_formats = ["", "", "", "", ""]
    named = {out: _named(book.lines[out]) for out in outputs}
    for out in outputs:
        header += [f"{named[out][0]} ({named[out][1]}): at low", f"{named[out][0]} ({named[out][1]}): at high"]
        column_formats += [_level_format(book.lines[out])] * 2
    for out in outputs:
        header += [f"{named[out][0]} ({named[out][2]}): change at low",
                   f"{named[out][0]} ({named[out][2]}): change at high"]
        column_formats += [_change_format(book.lines[out])] * 2
    charts = []
    for k, out in enumerate(outputs):
        col = 5 + 2 * len(outputs) + 2 * k
        short, _, change_unit = named[out]
        charts.append({"title": f"Change in {_lower_first(short)} from the base case ({change_unit})",
                       "columns": [(f"input {swing:.0%} lower", col), (f"input {swing:.0%} higher", col + 1)],
                       "fmt": _change_format(book.lines[out])})
    first = book.lines[outputs[0]]
    what = _lower_first(first.label.split(" (")[0])
    if scale is None:
        rule = (f"move any result shown by more than {THRESHOLD:.0%} of its base value either way are shown, the "
                f"widest change as a share of its result's base first")
    else:
        by = "of its base value" if scale is first else f"of the {_lower_first(scale.label.split(' (')[0])}"
        rule = f"move the {what} by more than {THRESHOLD:.0%} {by} either way are shown, widest first"
    note = (f"Computed at build time by the Python model (the same definitions as every formula) from the inputs "
            f"shown: each row moves one continuous input by -/+{swing:.0%} within its valid range, and the useful life "
            f"and the lead time by a whole-month step either way (their steps and sources are on the Inputs sheet); "
            f"other whole numbers such as GPUs per node and counts are not swung (a fraction of a node is no option), "
            f"nor are dates, choices and absolute temperatures. Of the {tried} inputs swung, those that "
            f"{rule}. These are "
            f"values, not formulas: rebuild the workbook to refresh them. A case that breaks a check the model "
            f"relies on is n/a. " + _bases(book, outputs if scale is None else outputs[:1], base))
    title = " and the ".join(_lower_first(book.lines[out].label.split(" (")[0])
                             for out in (outputs if scale is None else outputs[:1]))
    return Table(sheet, f"Sensitivity: what moves the {title}", note, header, rows, column_formats, formats, charts)


def _bases(book: Book, outputs: list[str], base: dict[str, float]) -> str:
    """The base values of the results the rows were chosen on: `Base cost of the run, owned: 14.5 MUSD.`"""
    return " ".join(f"Base {_lower_first(book.lines[out].label.split(' (')[0])}: "
                    f"{_figure(base[out], book.lines[out])}." for out in outputs)


def _level_format(line: Line) -> str:
    """A result's value in a case: money in MUSD (the header says so), a break-even above 100% as never (short: the
    column is narrow), a percentage as its line shows it, any other with its negatives in parentheses."""
    if line.unit_text == "USD":
        return formats_.money(",,")
    if line.fmt == BREAK_EVEN:
        return BREAK_EVEN_SHORT
    return formats_.negatives_in_parentheses(line.fmt)


def _change_format(line: Line) -> str:
    """A change from the base case, its sign always shown: +1.2 MUSD, -10.9 pp (percentage points)."""
    if _named(line)[2] == POINTS:
        return formats_.signed(1, "pp")
    if line.unit_text == "USD":
        return formats_.signed(1, scale=",,")
    return formats_.signed(formats_.decimals(line.fmt))


def _figure(value: float, line: Line) -> str:
    """A value in words with its unit: money in MUSD to 0.1 (-18.8 MUSD)."""
    return f"{value / 1e6:,.1f} MUSD" if line.unit_text == "USD" else f"{value:.4g} {line.unit_text}"


POINTS = "percentage points"


def _named(line: Line) -> tuple[str, str, str]:
    """A result's short name (its label without the parenthesis), its unit as the table shows it (money in MUSD),
    and the unit of a change in it: a change in a percentage is in percentage points, which a finance reader
    expects said."""
    percent = line.fmt == PERCENT or line.unit_text == "%"
    unit = "MUSD" if line.unit_text == "USD" else line.unit_text
    return line.label.split(" (")[0], unit, POINTS if percent else unit


def _lower_first(text: str) -> str:
    """Mid-sentence: the first letter in lower case, the rest as written (GPU stays GPU, and so does NPV)."""
    if text[1:2].isupper():
        return text
    return text[:1].lower() + text[1:]
