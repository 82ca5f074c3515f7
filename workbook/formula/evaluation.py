"""Evaluating a book in Python: every line, or only what some lines need, for one site or a million.

A line's value is its magnitude in its declared unit, an array (rows, columns): one column for a single value,
the book's periods for a monthly row, its years for a yearly one. `rows` is the batch (one row per site or
case) where the line depends on an input given per case, and 1 where it does not (the timeline's month row is
the same for every site, so it is computed and stored once); the values returned are broadcast to the batch
(read-only views, no copies), unless `compact` asks for the stored shapes.

- evaluate(book, overrides, lines=[...]) computes only the lines the requested ones depend on (transitively)
  and returns only those asked for, dropping every other value as soon as no line still to compute reads it;
- evaluate_many(book, overrides, lines, chunk=...) does the same a chunk of cases at a time, so the memory is
  bounded by the chunk, not by the batch (a million sites' monthly rows do not fit in memory at once);
- a line that reads its own previous period (line.recursive) is computed one column at a time, but only the
  part of its formula that reads that previous value: every other part is computed once for all columns, and for
  a few rows the column loop runs on Python floats (workbook.formula.kernels: the same bits as numpy);
- a book's scenarios are rows of one batch: the base case in row 0 and each scenario's inputs in its own row, so
  each base line is evaluated once and a scenario's copy of it is its row (see _Scenarios);
- evaluate_overlays(book, [overlay, ...]) evaluates a list of overlays (each a declarative set of input overrides:
  a scenario, a tornado's swing, a risk run's sample, an edit to explain) as the rows of one batch.

Every value is the same, to the bit, as evaluating each line in turn as written (tests/test_evaluation_speed.py
keeps that straightforward evaluation as its reference).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from workbook.formula import kernels
from workbook.formula.expr import (
    MONTHS,
    YEARS,
    AddSub,
    BinOp,
    Compare,
    Const,
    Env,
    FormulaError,
    Func,
    Guard,
    Neg,
    Node,
    Prev,
    Ref,
    RowAgg,
    Scale,
    derived,
)
from workbook.formula.line import reads
from workbook.formula.overrides import OverrideError, check_values, input_line, magnitude

if TYPE_CHECKING:
    from workbook.formula.line import Book, Line

# cases per chunk in evaluate_many: 3 MB per monthly row of 97 periods, which keeps a formula's operands near the
# cache (bench/risk.py: 10^5 samples a fifth faster than in chunks of 20,000; 1,000 a chunk is slower again)
DEFAULT_CHUNK = 4_000


# ---------------------------------------------------------------- what each line reads


def needed(book: Book, lines: Iterable[str] | None, reading: Callable[[Line], tuple[str, ...]] = reads) -> list[Line]:
    """The lines to compute for `lines` (all when None): they and everything they read, in book order."""
    if lines is None:
        return list(book.lines.values())
    todo = list(lines)
    if len(todo) >= len(book.lines):  # every line asked for (an overlay evaluation's default): nothing to walk
        asked = set(todo)
        unknown = asked - book.lines.keys()
        if unknown:
            raise KeyError(f"{min(unknown)} is not a line of this book")
        if len(asked) == len(book.lines):
            return list(book.lines.values())
    want: set[str] = set()
    while todo:
        line_id = todo.pop()
        if line_id in want:
            continue
        if line_id not in book.lines:
            raise KeyError(f"{line_id} is not a line of this book")
        want.add(line_id)
        todo.extend(reading(book.lines[line_id]))
    return [line for line in book.lines.values() if line.id in want]


# ---------------------------------------------------------------- scenarios as rows of one batch


class _Scenarios:
    """A book's scenarios evaluated as rows of one batch: row 0 the base case, row r scenario r.

    A scenario is a set of input overrides; its copy of a line (workbook.analysis.scenarios, for the workbook's live
    scenario sheets) is the base line's formula re-pointed at the scenario's lines, so its value is row r of the
    base line evaluated with every input a scenario changes holding one row per scenario. That holds by
    construction: add_scenarios is the one maker of copies and a line in a book never changes (a book derived with
    a calculation replaced says its copies are no longer rows, Book.scenario_copies_are_rows). One evaluation of
    the base lines then gives every copy. A line defined after the scenarios (the master check) is row 0 too."""

    def __init__(self, book: Book):
        if not book.scenario_copies_are_rows:
            raise _NotRows
        self.row: dict[str, tuple[str, int]] = {}  # copy id -> (base line id, its row)
        self.changes: list[dict[str, str]] = []  # per scenario: base input id -> the scenario's input id
        for r, mapping in enumerate(book.scenarios.values(), start=1):
            changed = {}
            for base_id, copy in mapping.items():
                if base_id not in book.lines or book.lines.get(copy.id) is not copy:
                    raise _NotRows
                if copy.kind == "input":
                    changed[base_id] = copy.id
                else:
                    self.row[copy.id] = (base_id, r)
            self.changes.append(changed)
        self.copies: dict[str, list[tuple[str, int]]] = {}  # base line id -> its copies and their rows
        for copy_id, (base_id, r) in self.row.items():
            self.copies.setdefault(base_id, []).append((copy_id, r))

    def reading(self, line: Line) -> tuple[str, ...]:
        """What a line needs computed: a copy, its base line; any other line, what its formula reads."""
        at = self.row.get(line.id)
        return (at[0],) if at is not None else reads(line)

    def inputs(self, book: Book, overrides: dict[str, Any]) -> dict[str, np.ndarray]:
        """The inputs a scenario changes, one row per case: the base value, and each scenario's own in its row."""
        overlays = [{}, *({key: _value(book, overrides, own) for key, own in changed.items()}
                          for changed in self.changes)]
        return {k: v.reshape(-1, 1) for k, v in stacked(book, overlays, overrides, ranges=False).items()}


class _NotRows(Exception):
    """The book's scenario copies are not rows of their base lines (a derived book, or a copy not in the book)."""


_SCENARIOS: dict[int, tuple[Any, Any, _Scenarios | None]] = {}  # id(book) -> (its weakref, state, plan)


def scenarios_as_rows(book: Book) -> _Scenarios | None:
    """The book's scenarios as rows, or None (no scenarios, or copies that are not rows of their base lines)."""
    if not book.scenarios:
        return None
    # a line in a book never changes and lines are only added, so the plan holds while the counts do
    state = (len(book.lines), len(book.scenarios), book.scenario_copies_are_rows)
    cached = _SCENARIOS.get(id(book))
    if cached is not None and cached[0]() is book and cached[1] == state:
        return cached[2]
    try:
        plan = _Scenarios(book)
    except _NotRows:
        plan = None
    if cached is None or cached[0]() is not book:
        weakref.finalize(book, _SCENARIOS.pop, id(book), None)
    _SCENARIOS[id(book)] = (weakref.ref(book), state, plan)
    return plan


def scalar(v: Any) -> float:
    """The one value of an input or a single-value line's answer (an array of one, in any shape)."""
    return float(np.asarray(v, dtype=float).reshape(-1)[0])


def _value(book: Book, overrides: Mapping[str, Any], key: str) -> float:
    return scalar(overrides.get(key, book.lines[key].value))


# ---------------------------------------------------------------- evaluate


def evaluate(book: Book, overrides: dict[str, Any] | None = None, lines: Iterable[str] | None = None, *,
             strict: bool = True, compact: bool = False, with_dependencies: bool = False,
             base: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Magnitudes of `lines` (every line when None), each in its declared unit, as arrays (batch, columns).

    `overrides` replaces input values, e.g. with arrays of many sampled sites at once (each of one value or of
    the batch's). Only the lines the requested ones read, directly or through others, are computed, and a value
    is dropped once nothing still to compute reads it, unless it was asked for (`with_dependencies` keeps every
    computed line and returns them all). A line with no finite value (an unguarded division by zero) raises,
    unless `strict` is off: then the caller finds the cases that have none (non_finite_cases). `compact`
    returns each line as stored: one row where it does not depend on the cases. `base` is an earlier compact
    evaluation of the same book without overrides, or with the same overrides of one value (with_dependencies): a
    line no override of many values reaches takes its value from there (the same bits) instead of being computed
    again, as a search that evaluates the book round after round under one moved input does, and evaluate_many
    chunk after chunk."""
    overrides = overrides or {}
    batch = 1
    for key, v in overrides.items():
        input_line(book, key)  # UnknownInput (a KeyError) naming the input it may have meant
        size = np.size(v)
        if size != 1:
            if batch not in (1, size):
                raise ValueError(f"{key}: {size} values, where other inputs have {batch}")
            batch = size
    lines = None if lines is None else list(lines)
    order = needed(book, lines)
    scenarios = scenarios_as_rows(book) if batch == 1 else None
    if scenarios is not None and any(line.id in scenarios.row for line in order):
        order = needed(book, lines, scenarios.reading)
    else:
        scenarios = None  # no scenario's copy is asked for, or they cannot be rows: each line as written
    wanted = None if lines is None or with_dependencies else set(lines)
    if wanted is not None and len(wanted) == len(order):  # every line computed is asked for: none is dropped
        wanted = None
    values = _run(book, order, overrides, batch, strict, wanted, scenarios, base or {})
    if not compact:  # an input keeps its own shape: one value, or one per case
        values = {k: v if book.lines[k].kind == "input" else _broadcast(v, batch) for k, v in values.items()}
    return values


def _broadcast(v: np.ndarray, batch: int) -> np.ndarray:
    return v if v.shape[0] == batch else np.broadcast_to(v, (batch, v.shape[1]))


def _run(book: Book, order: list[Line], overrides: dict[str, Any], batch: int, strict: bool,
         wanted: set[str] | None, scenarios: _Scenarios | None, base: dict[str, np.ndarray],
         ) -> dict[str, np.ndarray]:
    env = Env(sizes={MONTHS: book.periods, YEARS: book.years})
    values = env.values
    widths = {None: 1, MONTHS: book.periods, YEARS: book.years}
    per_case = {k for k, v in overrides.items() if np.size(v) != 1}  # lines that differ between cases
    scenario_inputs: dict[str, np.ndarray] = {}
    copy_of: dict[str, tuple[str, int]] = {}
    if scenarios is not None:
        scenario_inputs = scenarios.inputs(book, overrides)
        per_case |= scenario_inputs.keys()
        copy_of = scenarios.row
    reading = scenarios.reading if scenarios is not None else reads
    last_reader: dict[str, int] = {}
    if wanted is not None:
        for k, line in enumerate(order):
            for other in reading(line):
                last_reader[other] = k
    rows_of = len(scenarios.changes) + 1 if scenarios is not None else batch
    for k, line in enumerate(order):
        if line.kind == "input":
            v = scenario_inputs[line.id] if line.id in scenario_inputs else overrides.get(line.id, line.value)
            values[line.id] = np.asarray(v, dtype=float).reshape(-1, 1)
            continue
        at = copy_of.get(line.id)
        if at is not None:  # a scenario's copy: its row of the base line
            rows_of_base = values[at[0]]
            v = rows_of_base[at[1] : at[1] + 1] if rows_of_base.shape[0] > 1 else rows_of_base
            if strict and not line.is_bool:
                _check_finite(line, v)
            values[line.id] = v
        else:
            deps = reads(line)
            rows = rows_of if per_case and not per_case.isdisjoint(deps) else 1
            if rows != 1:
                per_case.add(line.id)
            if rows == 1 and line.id in base:  # no override reaches it: as computed before
                values[line.id] = base[line.id]
            else:
                v = _row(book, line, env, rows) if line.axis == MONTHS else np.asarray(_formula(line).evaluate(env))
                v = _stored(line, v, (rows, widths[line.axis]))
                if strict and not line.is_bool:
                    _check_finite(line, v if scenarios is None else v[:1])
                values[line.id] = v
        if wanted is not None:
            for other in reading(line):
                if last_reader.get(other) == k and other not in wanted:
                    del values[other]
    keep = order if wanted is None else [line for line in order if line.id in wanted]
    if scenarios is None:
        return {line.id: values[line.id] for line in keep}
    return {line.id: values[line.id] if line.id in copy_of else values[line.id][:1] for line in keep}


def _stored(line: Line, v: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A line's value as it is kept: its shape, floats (TRUE/FALSE as booleans), never a view of an input."""
    if line.is_bool:
        return v if v.shape == shape else np.broadcast_to(v, np.broadcast_shapes(v.shape, shape))
    if v.shape != shape or v.dtype != float or v.base is not None:
        v = np.array(np.broadcast_to(v, np.broadcast_shapes(v.shape, shape)), dtype=float)
    return v


def _check_finite(line: Line, v: np.ndarray) -> None:
    """A line with no finite value (an unguarded division by zero; NaN is a guarded line's message) fails."""
    if v.size == 1:
        x = v.item()
        finite = math.isfinite(x) if line.guard_message is None else not math.isinf(x)
    else:
        finite = bool(np.isfinite(v).all()) if line.guard_message is None else not np.isinf(v).any()
    if not finite:
        raise FormulaError(
            "has no finite value for these inputs (a division by zero?); guard it with safe_div or fix "
            "the inputs", line=line.id, label=line.label
        )


def non_finite_cases(book: Book, values: dict[str, np.ndarray]) -> list[str]:
    """For each case of a non-strict evaluation, the label of the first line (of those evaluated, in book order)
    with no finite value, or ''."""
    batch = max(v.shape[0] for v in values.values())
    out = [""] * batch
    for line in book.lines.values():
        if line.id not in values or line.kind == "input" or line.is_bool:
            continue
        v = np.broadcast_to(values[line.id], (batch, values[line.id].shape[1]))
        bad = np.isinf(v) if line.guard_message is not None else ~np.isfinite(v)
        for c in np.flatnonzero(bad.any(axis=1)):
            out[c] = out[c] or f"no value for {line.label.lower()}"
    return out


# ---------------------------------------------------------------- many cases, a chunk at a time


def evaluate_many(book: Book, overrides: dict[str, Any], lines: Iterable[str], *, chunk: int = DEFAULT_CHUNK,
                  strict: bool = True, compact: bool = False) -> dict[str, np.ndarray]:
    """evaluate(book, overrides, lines) a chunk of cases at a time: the memory is that of one chunk's lines in
    use plus the answers asked for, whatever the batch. Same values as one evaluate of the whole batch. The lines
    no override of many values reaches are computed once, not once a chunk (evaluate's `base`)."""
    lines = list(lines)
    if chunk < 1:
        raise ValueError("chunk is at least one case")
    flat = {k: np.asarray(v, dtype=float).reshape(-1) for k, v in overrides.items()}
    batch = max([v.size for v in flat.values()] + [1])
    need = needed(book, lines)
    varies = {k for k, v in flat.items() if v.size > 1}  # and the lines that read them, in book order:
    for line in need:
        if line.kind != "input" and not varies.isdisjoint(reads(line)):
            varies.add(line.id)
    out: dict[str, np.ndarray] = {}
    same = [line.id for line in need if line.id not in varies]
    shared = {k: v for k, v in flat.items() if v.size == 1}  # the lines the same in every case, computed once:
    base = evaluate(book, shared, same, strict=strict, compact=True, with_dependencies=True) if same else {}
    # not a line that varies: a last chunk of one case gives its inputs one value, and evaluate would take them
    base = {k: v for k, v in base.items() if k not in varies and book.lines[k].kind != "input"}
    for start in range(0, batch, chunk):
        stop = min(start + chunk, batch)
        part = {k: (v if v.size == 1 else v[start:stop]) for k, v in flat.items()}
        got = evaluate(book, part, lines, strict=strict, compact=True, base=base)
        for key, v in got.items():
            if key not in varies:
                out.setdefault(key, v)  # the same for every case: kept once
                continue
            if key not in out:
                out[key] = np.empty((batch, v.shape[1]), dtype=v.dtype)
            out[key][start:stop] = v
    if not compact:
        out = {k: v if book.lines[k].kind == "input" else _broadcast(v, batch) for k, v in out.items()}
    return out


# ---------------------------------------------------------------- monthly rows


def _formula(line: Line) -> Node:
    """A calculation's formula (an input has none: it is never evaluated)."""
    assert line.formula is not None, line.id
    return line.formula


def _row(book: Book, line: Line, env: Env, rows: int) -> np.ndarray:
    """A monthly line: column 0 from its opening (if it has one), the rest from its formula, all at once or,
    for a line that reads its own previous column, one column at a time."""
    n = book.periods
    if line.opening is None:
        return np.asarray(_formula(line).evaluate(env))
    env.column = 0
    first = np.broadcast_to(np.asarray(line.opening.evaluate(env), float), (rows, 1))
    env.column = None
    if line.recursive:
        v = np.full((rows, n), np.nan)
        v[:, :1] = first
        env.values[line.id] = v
        try:
            _recurse(line, env, v)
        finally:
            env.column, env.window = None, None
        return v
    env.window = slice(1, n)
    try:
        rest = np.asarray(_formula(line).evaluate(env), float)
    finally:
        env.window = None
    return np.concatenate([first, np.broadcast_to(rest, (rows, n - 1))], axis=1)


# Nodes whose value in a window of columns is, column by column, what they give one column at a time: the
# elementwise arithmetic of spreadsheet.py and whole-row functions. (Not pow and the like: numpy's SIMD pow can
# differ in the last bit with the shape of the call.)
_COLUMNWISE = (Const, Ref, Prev, AddSub, BinOp, Neg, Scale, Compare, Guard, RowAgg)
_COLUMNWISE_FUNCS = {"MAX", "MIN", "IF", "AND", "OR", "NOT", "ROUNDUP", "ROUNDDOWN", "ABS", "SIGN"}


def _columnwise(node: Node) -> bool:
    for n in node.walk():
        if isinstance(n, Func):
            if n.name not in _COLUMNWISE_FUNCS:
                return False
        elif not isinstance(n, _COLUMNWISE):
            return False
    return True


def _recurse(line: Line, env: Env, v: np.ndarray) -> None:
    """Columns 1.. of a line that reads its own previous column, into v (column 0 holds its opening).

    The parts of the formula that do not read the line itself are computed once over columns 1..n (as a line
    with an opening is); only the path from them to the line's previous value is computed column by column."""
    rows, n = v.shape
    formula = line.formula
    assert formula is not None  # a recursive line is a calculation
    mine = _reads_self(formula, line, {})
    pieces = _pieces(formula, mine)
    if pieces is None or not all(_columnwise(p) for p in pieces):
        for t in range(1, n):  # as written: every part of the formula, one column at a time
            env.column = t
            v[:, t : t + 1] = formula.evaluate(env)
        return
    env.column, env.window = None, slice(1, n)
    known = {id(p): np.asarray(p.evaluate(env)) for p in pieces}
    env.window = None
    if rows <= kernels.SMALL:  # a row at a time, on Python floats; a row the same as an earlier one (its
        # opening and every known part: cases that share it) is a copy of that row
        per_row = [k for k in known.values() if k.ndim == 2 and k.shape[0] > 1]
        first, at = kernels.distinct_rows(np.concatenate([v[:, :1], *per_row], axis=1))
        steps = {int(b): _scalar(formula, mine, known, int(b)) for b in first}
        found = {b: step for b, step in steps.items() if step is not None}
        if len(found) == len(steps):
            for b, step in found.items():
                row = v[b]
                prev = float(row[0])
                for t in range(1, n):
                    prev = float(step(t, prev))
                    row[t] = prev
            v[:] = v[first[at]]  # each row a copy of the first row like it (itself, where it is the first)
            return
    tree = _substituted(formula, mine, known)
    for t in range(1, n):
        env.column = t
        v[:, t : t + 1] = tree.evaluate(env)


def _reads_self(node: Node, line: Line, memo: dict[int, bool]) -> dict[int, bool]:
    """memo[id(n)]: whether node n reads the line's own previous value (for every n in the tree)."""
    if id(node) not in memo:
        own = isinstance(node, Prev) and node.line is line
        kids = [_reads_self(c, line, memo)[id(c)] for c in node.children()]
        memo[id(node)] = own or any(kids)
    return memo


def _pieces(node: Node, mine: dict[int, bool]) -> list[Node] | None:
    """The largest parts of the formula that do not read the line itself (None: the formula is not one
    whose path to prev(line) goes only through nodes with known parts)."""
    out: list[Node] = []

    def visit(n: Node) -> bool:
        if not mine[id(n)]:
            out.append(n)
            return True
        if isinstance(n, Prev):
            return True
        if isinstance(n, RowAgg) or not n.NODES:
            return False
        return all(visit(c) for c in n.children())

    return out if visit(node) else None


class _Known(Node):
    """A part of a recursive formula computed for columns 1..n at once, read one column at a time."""

    def __init__(self, value: np.ndarray, like: Node):
        self.value, self.unit, self.is_bool, self.axis = value, like.unit, like.is_bool, like.axis

    def evaluate(self, env: Env) -> np.ndarray:
        v = self.value
        if v.ndim == 2 and self.axis is not None:
            t = env.column
            assert t is not None  # a substituted tree is evaluated one column at a time
            return v[:, t - 1 : t]
        return v


def _substituted(node: Node, mine: dict[int, bool], known: dict[int, np.ndarray]) -> Node:
    """The formula with its parts that do not read the line itself replaced by their computed values."""
    if not mine[id(node)]:
        return _Known(known[id(node)], node)
    if isinstance(node, Prev):
        return node
    changes: dict[str, Any] = {}
    for attr in node.NODES:
        v = getattr(node, attr)
        if isinstance(v, list | tuple):
            changes[attr] = type(v)(_substituted(c, mine, known) for c in v)
        else:
            changes[attr] = _substituted(v, mine, known)
    return derived(node, changes)


Step = Callable[[int, float], Any]


def _scalar(node: Node, mine: dict[int, bool], known: dict[int, np.ndarray], b: int) -> Step | None:
    """For row b: the formula as a function of (column, previous value) on Python floats, with the same
    arithmetic as its numpy evaluation; None where a node on the path has no such twin."""
    if not mine[id(node)]:
        v = known[id(node)]
        if v.ndim < 2:
            c = v.item()
            return lambda t, p: c
        cells = v[b if v.shape[0] > 1 else 0].tolist()
        if node.axis is not None and len(cells) > 1:
            return lambda t, p: cells[t - 1]
        c = cells[0]
        return lambda t, p: c
    if isinstance(node, Prev):
        return lambda t, p: p
    maybe = [_scalar(c, mine, known, b) for c in node.children()]
    parts = [p for p in maybe if p is not None]
    if len(parts) < len(maybe):
        return None
    if isinstance(node, AddSub):
        x, y = parts
        fn = kernels.approx_add_s if node.op == "+" else kernels.approx_sub_s
        return lambda t, p: fn(float(x(t, p)), float(y(t, p)))
    if isinstance(node, BinOp):
        x, y = parts
        if node.op == "*":
            return lambda t, p: float(x(t, p)) * float(y(t, p))
        return lambda t, p: kernels.divide_s(float(x(t, p)), float(y(t, p)))
    if isinstance(node, Compare):
        x, y = parts
        op = node.op
        return lambda t, p: kernels.compare_s(op, float(x(t, p)), float(y(t, p)))
    if isinstance(node, Scale):
        [a] = parts
        f = node.f
        if node.divide:
            return lambda t, p: float(a(t, p)) / f
        return lambda t, p: float(a(t, p)) * f
    if isinstance(node, Neg):
        [a] = parts
        return lambda t, p: -float(a(t, p))
    if isinstance(node, Guard):
        _, y, div = parts
        return lambda t, p: float("nan") if float(y(t, p)) == 0 else div(t, p)
    if isinstance(node, Func):
        twin = getattr(node, "scalar", None)
        if twin is None:
            return None
        return lambda t, p: twin(*(f(t, p) for f in parts))
    return None


# ---------------------------------------------------------------- overlays: many sets of input overrides, one batch

Overlay = Mapping[str, Any]  # input id -> its value in the input's unit (a number, or a pint quantity converted)


def stacked(book: Book, overlays: Sequence[Overlay], base: Overlay | None = None, *,
            ranges: bool = True) -> dict[str, np.ndarray]:
    """The overrides that evaluate a list of overlays as rows: for each input any overlay changes, a column of one
    value per overlay, the base value where that overlay leaves it (`base`'s, else the input's own). Each value as
    an override of Book.evaluate is (workbook.formula.overrides): a quantity converted to the input's unit, and
    within its range unless `ranges` is False."""
    out: dict[str, np.ndarray] = {}
    for key in dict.fromkeys(k for overlay in overlays for k in overlay):
        line = input_line(book, key)
        column = np.full(len(overlays), _value(book, base or {}, key))
        for row, overlay in enumerate(overlays):
            if key in overlay:
                v = magnitude(line, overlay[key])
                if v.size != 1:
                    raise OverrideError(key, overlay[key], "is not one value (an overlay holds one per input)",
                                        "one number or quantity")
                column[row] = v.item()
        check_values(line, column, column, ranges=ranges)  # finite always; within its range unless ranges is False
        out[key] = column
    return out


def evaluate_overlays(book: Book, overlays: Sequence[Overlay], lines: Iterable[str] | None = None, *,
                      strict: bool = True, chunk: int = DEFAULT_CHUNK, ranges: bool = True) -> dict[str, np.ndarray]:
    """Row k of every value is the book under overlays[k] (an empty overlay is the base case): one batch of
    len(overlays) rows, a chunk at a time, each value the same bits as evaluating that overlay alone. `lines`
    as in evaluate (default: every line); each overlay's values checked as stacked says (`ranges`)."""
    if not overlays:
        raise ValueError("no overlay to evaluate")
    wanted = [line.id for line in book.lines.values()] if lines is None else list(lines)
    values = evaluate_many(book, stacked(book, overlays, ranges=ranges), wanted, chunk=chunk, strict=strict,
                           compact=True)
    return {k: np.broadcast_to(v, (len(overlays), v.shape[1])) for k, v in values.items()}


def scenario_overlays(book: Book) -> dict[str, dict[str, float]]:
    """The book's scenarios as overlays: each scenario's inputs, by the base input they stand in for."""
    return {name: {base_id: float(np.asarray(copy.value, dtype=float).reshape(-1)[0])
                   for base_id, copy in mapping.items() if copy.kind == "input"}
            for name, mapping in book.scenarios.items()}
