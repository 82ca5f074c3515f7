"""Expression nodes: one tree, evaluated in Python and rendered as an Excel formula.

Each node knows the unit its magnitude is in. Python evaluates magnitudes (numpy arrays shaped
(batch, columns)) applying exactly the conversion factors the Excel text carries, so both renderings do
the same arithmetic. Where a spreadsheet and IEEE arithmetic differ (approximate equality in comparisons and in
`a + b`, `a - b`), Python computes what LibreOffice computes (workbook.formula.spreadsheet).

A value is a single number or a row on an axis: the monthly timeline (column 0 is time 0, the start, then
one column per month) or its yearly roll-up (column 0 the start, then one column per year).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, cast

import numpy as np
import pint

from workbook.formula.kernels import approx_add, approx_sub, compare
from workbook.formula.spreadsheet import power
from workbook.formula.units import factor, is_offset, power_of_ten, unit, ureg

# Precedence of Excel operators, loosest first. Unary minus is rendered with brackets, because Excel binds
# it tighter than ^ (=-2^2 is 4) while Python binds it looser.
CMP, ADD, MUL, POW, ATOM = 1, 2, 3, 4, 5

DIMENSIONLESS = unit("")
# Literals a calculation may contain (FAST: no typed-in numbers but universal constants). Anything else is
# an input with a source.
UNIVERSAL = {0, 0.5, 1, 2, 3, 4, 7, 10, 12, 24, 52, 60, 100, 365, 1000, 3600, 8760}

MONTHS, YEARS = "months", "years"  # the axes a row can run along


class FormulaError(ValueError):
    """A formula cannot be built or evaluated (unknown literal, division by zero...).

    Its message is one line, composed from the attributes: `line` (the id of the line or check at fault, or None
    when the error is found before the formula has a line), `label` (that line's label, or None), `problem` (the
    reason), `units` (the unit texts involved, for a UnitError: the unit found first, then the unit wanted) and
    `value` (an offending Python value, e.g. a literal typed into a formula, or None). `kind` names the line in
    the message: "line" or "check".
    """

    def __init__(self, problem: str, *, line: str | None = None, label: str | None = None,
                 units: tuple[str, ...] = (), value: Any = None, kind: str = "line"):
        self.problem = " ".join(str(problem).split())
        self.line, self.label, self.units, self.value, self.kind = line, label, tuple(units), value, kind
        where = f"{kind} {line}" + (f" ({label})" if label else "") if line is not None else ""
        super().__init__(f"{where}: {self.problem}" if where else self.problem)


class UnitError(FormulaError):
    """A formula mixes dimensions; raised while the model is built, naming the line."""

    @classmethod
    def of(cls, node: Node, **where: Any) -> UnitError:
        """The first unit mismatch in a formula, with the units it involves; `where` names the line (see
        FormulaError)."""
        bad = next(n for n in node.walk() if getattr(n, "error", None))
        parts = [bad.inner, bad] if hasattr(bad, "inner") else list(bad.children())
        units = tuple(f"{p.unit:~P}" or "dimensionless" for p in parts)
        return cls(str(bad.error), units=units, **where)


class Env:
    """Values of the lines evaluated so far, each a float array shaped (batch, columns or 1).

    A row is read whole, or in a `window` of its columns (a line with an opening is evaluated on columns 1..n,
    its opening on column 0), or one `column` at a time (a line that uses its own previous period)."""

    def __init__(self, values: dict[str, np.ndarray] | None = None, sizes: dict[str, int] | None = None):
        self.values: dict[str, np.ndarray] = dict(values or {})
        self.sizes: dict[str, int] = dict(sizes or {})  # columns of each axis
        self.column: int | None = None
        self.window: slice | None = None

    def __getitem__(self, line_id: str) -> np.ndarray:
        return self.values[line_id]

    def get(self, line: LineRef) -> np.ndarray:
        v = self.values[line.id]
        if line.axis is None:
            return v
        if self.column is not None:
            return v[:, self.column : self.column + 1]
        if self.window is not None:
            return v[:, self.window]
        return v

    def previous(self, line: LineRef) -> np.ndarray:
        v = self.values[line.id]
        if self.column is not None:
            return v[:, self.column - 1 : self.column]
        w = self.window
        if w is None or not w.start:
            raise FormulaError(f"prev({line.id}) read outside the periods after the first")
        return v[:, w.start - 1 : w.stop - 1]

    def whole_rows(self) -> tuple[int | None, slice | None]:
        """Read whole rows (SUM, IRR...): returns the state to restore."""
        state = (self.column, self.window)
        self.column, self.window = None, None
        return state

    def restore(self, state: tuple[int | None, slice | None]) -> None:
        self.column, self.window = state


class Context:
    """What a node needs to render itself: how to write a reference to a line from the current cell."""

    def ref(self, line: LineRef) -> str:  # pragma: no cover - interface
        """A line's value as seen from the current cell (the same period, for a series)."""
        raise NotImplementedError

    def prev_ref(self, line: LineRef) -> str:  # pragma: no cover - interface
        """A series line's value in the period before the current cell's (its opening, in the first)."""
        raise NotImplementedError

    def row_range(self, line: LineRef) -> str:  # pragma: no cover - interface
        """A series line's whole row of periods."""
        raise NotImplementedError

    def header(self) -> str:  # pragma: no cover - interface
        """The current column's header cell (its period number, or its fiscal year), for a roll-up's SUMIF
        criterion."""
        raise NotImplementedError

    def period(self) -> str:  # pragma: no cover - interface
        """The current column's period number (0 at the start), as a cell: what a header's formula reads."""
        raise NotImplementedError


def num(x: float) -> str:
    """A literal as Excel reads it (integers without '.0', exponents in capitals)."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    if x.is_integer() and abs(x) < 1e16:  # where repr writes 1000000000000000.0: its digits are exact here
        digits = str(abs(int(x)))
        tail = digits[1:].rstrip("0")
        return f"{'-' if x < 0 else ''}{digits[0]}{'.' + tail if tail else ''}E+{len(digits) - 1}"
    return repr(x).upper()


# ---------------------------------------------------------------- nodes


class LineRef(Protocol):
    """What an expression reads of a line it names (workbook.formula.line.Line, which builds on this module): a
    protocol, so that the two modules do not import each other."""

    @property
    def id(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def unit(self) -> pint.Unit: ...

    @property
    def axis(self) -> str | None: ...

    @property
    def formula(self) -> Node | None: ...

    @property
    def opening(self) -> Node | None: ...

    @property
    def year_keys(self) -> Node | None: ...

    @property
    def is_bool(self) -> bool: ...

    @property
    def series(self) -> bool: ...

    @property
    def guard_message(self) -> str | None: ...


class Operand:
    """Arithmetic on nodes and lines builds trees; it never computes."""

    def node(self) -> Node:  # pragma: no cover - interface
        raise NotImplementedError

    def __add__(self, o: Any) -> Node:
        return add(self, o)

    def __radd__(self, o: Any) -> Node:
        return add(o, self)

    def __sub__(self, o: Any) -> Node:
        return sub(self, o)

    def __rsub__(self, o: Any) -> Node:
        return sub(o, self)

    def __mul__(self, o: Any) -> Node:
        return BinOp("*", self, o)

    def __rmul__(self, o: Any) -> Node:
        return BinOp("*", o, self)

    def __truediv__(self, o: Any) -> Node:
        return BinOp("/", self, o)

    def __rtruediv__(self, o: Any) -> Node:
        return BinOp("/", o, self)

    def __pow__(self, o: Any) -> Node:
        return Pow(self, o)

    def __neg__(self) -> Node:
        return Neg(self)

    def __lt__(self, o: Any) -> Node:
        return Compare("<", self, o)

    def __le__(self, o: Any) -> Node:
        return Compare("<=", self, o)

    def __gt__(self, o: Any) -> Node:
        return Compare(">", self, o)

    def __ge__(self, o: Any) -> Node:
        return Compare(">=", self, o)

    def eq(self, o: Any) -> Node:
        return Compare("=", self, o)

    def ne(self, o: Any) -> Node:
        return Compare("<>", self, o)

    def __bool__(self) -> bool:
        raise FormulaError("a formula has no truth value at build time; use where(...) for a condition")

    __hash__ = object.__hash__


class Node(Operand):
    unit: pint.Unit = DIMENSIONLESS
    prec: int = ATOM
    is_bool: bool = False
    error: str | None = None

    # The attributes that hold a node's parts, declared so one mechanism can rebuild any tree (scenarios):
    # each names a node or a list/tuple of nodes (NODES), or a line the node reads (LINES).
    NODES: tuple[str, ...] = ()
    LINES: tuple[str, ...] = ()

    def node(self) -> Node:
        return self

    def children(self) -> tuple[Node, ...]:
        """The node's parts, in NODES' order: gathered once (a node is complete when made; derived() makes a new
        one, which gathers its own), since a book's definition walks each tree three times and more."""
        kids = self.__dict__.get("_parts")
        if kids is None:
            out: list[Node] = []
            for attr in self.NODES:
                v = getattr(self, attr)
                if isinstance(v, list | tuple):
                    out.extend(v)
                else:
                    out.append(v)
            kids = self.__dict__["_parts"] = tuple(out)
        return kids

    def lines(self) -> tuple[LineRef, ...]:
        """The lines this node reads itself (not through its children)."""
        return tuple([getattr(self, attr) for attr in self.LINES]) if self.LINES else ()

    def rebuilt(self, mapping: dict[str, LineRef], memo: dict[int, Node] | None = None) -> Node:
        """This tree with every line in `mapping` (by id) replaced; parts that read none of them are shared.
        Units and conversions are unchanged: a mapped line has the unit of the line it replaces."""
        memo = {} if memo is None else memo
        if id(self) in memo:
            return memo[id(self)]
        changes: dict[str, Any] = {}
        for attr in self.LINES:
            line = getattr(self, attr)
            if line.id in mapping:
                changes[attr] = mapping[line.id]
        for attr in self.NODES:
            v = getattr(self, attr)
            if isinstance(v, list | tuple):
                parts = type(v)(c.rebuilt(mapping, memo) for c in v)
                if any(a is not b for a, b in zip(parts, v, strict=True)):
                    changes[attr] = parts
            else:
                part = v.rebuilt(mapping, memo)
                if part is not v:
                    changes[attr] = part
        new = self
        if changes:
            new = derived(self, changes)
        memo[id(self)] = new
        return new

    def evaluate(self, env: Env) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def render(self, ctx: Context) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    @functools.cached_property
    def axis(self) -> str | None:
        """The axis the value runs along (MONTHS, YEARS), or None for a single value."""
        axes = {c.axis for c in self.children()} - {None}
        if len(axes) > 1:
            raise FormulaError("a formula mixes monthly and yearly rows; roll the months up first (rollup())")
        return axes.pop() if axes else None

    @property
    def series(self) -> bool:
        """True when the value is a row (monthly or yearly)."""
        return self.axis is not None

    @functools.cached_property
    def read_ids(self) -> tuple[str, ...]:
        """The ids of the lines this tree reads (values, previous periods, whole rows, roll-up keys), each once,
        in the order walk() meets them. Computed once per node (a node is immutable; parts are shared)."""
        kids = self.children()
        if not self.LINES and len(kids) == 1:  # a conversion, a negation, a function of one part: its part's
            return kids[0].read_ids
        ids = dict.fromkeys([line.id for line in self.lines()])
        for c in kids:
            ids.update(dict.fromkeys(c.read_ids))
        return tuple(ids)

    def walk(self):
        yield self
        for c in self.children():
            yield from c.walk()

    def wrapped(self, ctx: Context, prec: int) -> str:
        text = self.render(ctx)
        return f"({text})" if self.prec < prec else text


_FROM_LINES = frozenset({"read_ids", "_parts"})  # what a node keeps of its parts and the lines they read


def derived(node: Node, changes: dict[str, Any]) -> Node:
    """A copy of `node` with some parts changed (attribute -> new part). The lines it reads are worked out
    again; its axis is kept (a changed part has its old part's axis and unit)."""
    new = object.__new__(type(node))
    new.__dict__.update((k, v) for k, v in node.__dict__.items() if k not in _FROM_LINES)
    new.__dict__.update(changes)
    return new


def _unit_one(n: Node) -> bool:
    """One of a unit (1 month): multiplying by it changes the unit, not the number."""
    return isinstance(n, Const) and n.value == 1 and n.unit != DIMENSIONLESS


def as_node(x: Any) -> Node:
    if isinstance(x, Operand):
        return x.node()
    if isinstance(x, bool):
        raise FormulaError("use a comparison, not a Python bool, in a formula", value=x)
    if isinstance(x, int | float):
        return Const(x)
    if isinstance(x, pint.Quantity):
        raise FormulaError(f"the quantity {x} is typed into a formula; make it an input with a source", value=x)
    raise FormulaError(f"cannot use {x!r} in a formula", value=x)


class Const(Node):
    def __init__(self, value: float, unit_text: str | pint.Unit = ""):
        if value not in UNIVERSAL:
            raise FormulaError(
                f"the literal {value} is typed into a formula; only universal constants "
                f"({', '.join(num(v) for v in sorted(UNIVERSAL))}) may be, anything else is an input", value=value
            )
        self.value = float(value)
        self.unit = unit_text if isinstance(unit_text, pint.Unit) else unit(unit_text)

    def evaluate(self, env: Env) -> np.ndarray:
        return np.asarray(self.value)

    def render(self, ctx: Context) -> str:
        return num(self.value)


class Constant(Const):
    """A defined number that is no universal constant (a unit conversion factor): the formula of the one line
    that holds it, which other formulas name (workbook.book.constants)."""

    def __init__(self, value: float, unit_of: pint.Unit):
        self.value, self.unit = float(value), unit_of


class Ref(Node):
    LINES = ("line",)

    def __init__(self, line: LineRef):
        self.line = line
        self.unit = line.unit
        self.is_bool = line.is_bool
        self.axis = line.axis

    def evaluate(self, env: Env) -> np.ndarray:
        return env.get(self.line)

    def render(self, ctx: Context) -> str:
        return ctx.ref(self.line)


class Scale(Node):
    """A unit conversion: the magnitude times a factor written in the formula (rendered /1000 where that reads
    better). Only powers of ten, and factors no named constant gives (see convert)."""

    NODES = ("inner",)

    def __init__(self, inner: Node, f: float, to_unit: pint.Unit):
        self.inner, self.unit = inner, to_unit
        inv = 1.0 / f
        self.divide = f < 1 and abs(inv - round(inv)) < 1e-9 * inv
        self.f = float(round(inv)) if self.divide else f
        self.prec = MUL

    def evaluate(self, env: Env) -> np.ndarray:
        v = self.inner.evaluate(env)
        return v / self.f if self.divide else v * self.f

    def render(self, ctx: Context) -> str:
        return f"{self.inner.wrapped(ctx, MUL)}{'/' if self.divide else '*'}{num(self.f)}"


class Named(Scale):
    """A unit conversion by a named constant: the magnitude times (or divided by) the line that holds the factor,
    so the formula says what it converts (`flow*units_cfm_per_m3_s`). Python uses the float that line's cell
    holds, so both do the same arithmetic."""

    LINES = ("constant",)

    def __init__(self, inner: Node, constant: LineRef, divide: bool, to_unit: pint.Unit):
        self.inner, self.unit, self.constant, self.divide = inner, to_unit, constant, divide
        formula = constant.formula
        assert isinstance(formula, Const)  # a unit conversion factor is a constant line
        self.f = float(formula.value)
        self.prec = MUL

    def render(self, ctx: Context) -> str:
        return f"{self.inner.wrapped(ctx, MUL)}{'/' if self.divide else '*'}{ctx.ref(self.constant)}"


_DIM_NAMES = {
    "W": "power", "J": "energy", "m": "length", "kg": "mass", "s": "time", "K": "temperature",
    "USD": "money", "m^3": "volume", "m^3/s": "volume flow", "kg/s": "mass flow", "kg/m^3": "density",
    "J/kg/K": "specific heat", "USD/s": "money per time", "USD/J": "price of energy", "bit/s": "data rate",
    "USD/W": "money per power", "USD/W/s": "money per power and time", "m^2": "area",
    "kg/m^2": "mass per area",
}


def _dims(u: pint.Unit) -> str:
    """A dimension in words where it has a common name ('power'), else pint's formula."""
    if not u.dimensionality:
        return "pure number"
    for ref, name in _DIM_NAMES.items():
        if unit(ref).dimensionality == u.dimensionality:
            return name
    return str(u.dimensionality)


def convert(n: Node, to_unit: pint.Unit, what: str) -> Node:
    """`n` expressed in `to_unit`; a mismatch becomes a Bad node that the line reports with its name."""
    if n.unit == to_unit:
        return n
    if isinstance(n, Const) and n.value == 0 and not is_offset(to_unit):
        return Const(0, to_unit)  # nothing is nothing in any unit
    if is_offset(n.unit) or is_offset(to_unit):
        return Bad(n, to_unit, f"{what}: cannot convert absolute temperature {n.unit:~P} to "
                   f"{to_unit:~P} inside a formula; give such inputs in one temperature unit")
    try:
        f = factor(n.unit, to_unit)
    except pint.DimensionalityError:
        return Bad(n, to_unit, f"{what}: got {n.unit:~P} [{_dims(n.unit)}], "
                   f"expected {to_unit:~P} [{_dims(to_unit)}]")
    if f == 1.0:
        return n
    if isinstance(n, AddSub) and isinstance(n.b, Scale) and n.b.inner.unit == to_unit and not is_offset(n.a.unit):
        # (a - b/1000)*1000 reads a*1000 - b: b is already in the wanted unit, so convert a alone
        return AddSub(n.op, convert(n.a, to_unit, what), n.b.inner)
    return scaled(n, f, to_unit)


_CONVERSIONS: list[Callable[[pint.Unit, pint.Unit], Any]] = []  # the named constants' lookup, once given


def use_conversions(lookup: Callable[[pint.Unit, pint.Unit], Any]) -> None:
    """Give the formula core the table of named conversion constants (workbook.book.constants.lookup). The
    constants are lines, which are made of nodes: the layer above passes its table in, so this module depends on
    nothing above it. Until it is given, every factor is written into the formula."""
    _CONVERSIONS[:] = [lookup]


_TOLERANCE: list[Callable[[], LineRef]] = []  # the line that holds the tolerance of a computed equality, once given


def use_tolerance(provider: Callable[[], LineRef]) -> None:
    """Give the formula core the line that holds the relative tolerance every check of a computed equality or limit
    names (workbook.book.constants: templates/method_constants.yaml), as a function read when a check is built."""
    _TOLERANCE[:] = [provider]


def tolerance() -> LineRef:
    """The tolerance's line (see use_tolerance)."""
    if not _TOLERANCE:
        raise FormulaError("no tolerance for computed comparisons is given (workbook.book.constants gives it)")
    return _TOLERANCE[0]()


def scaled(n: Node, f: float, to_unit: pint.Unit) -> Node:
    """`n` times `f`, in `to_unit`: a power of ten in the formula (it reads plainly), any other factor by the
    named constant that does the conversion (workbook.book.constants), or in the formula where none does."""
    if not power_of_ten(f) and _CONVERSIONS:
        match = _CONVERSIONS[0](n.unit, to_unit)
        if match is not None:
            inner = n if match.residual == 1.0 else Scale(n, match.residual, match.middle)
            return Named(inner, match.line, match.divide, to_unit)
    return Scale(n, f, to_unit)


class Bad(Node):
    """A unit mismatch found while a formula is built; the line holding it fails the build."""

    NODES = ("inner",)

    def __init__(self, inner: Node, to_unit: pint.Unit, error: str):
        self.inner, self.unit, self.error = inner, to_unit, error



def unit_errors(node: Node) -> list[str]:
    return [n.error for n in node.walk() if getattr(n, "error", None)]


def _delta(u: pint.Unit) -> pint.Unit:
    return (ureg.Quantity(1.0, u) - ureg.Quantity(0.0, u)).units


def add(a: Any, b: Any) -> Node:
    return AddSub("+", as_node(a), as_node(b))


def sub(a: Any, b: Any) -> Node:
    return AddSub("-", as_node(a), as_node(b))


class AddSub(Node):
    prec = ADD

    NODES = ("a", "b")

    def __init__(self, op: str, a: Node, b: Node):
        self.op = op
        if is_offset(a.unit) and is_offset(b.unit):
            if op == "+":
                self.error = f"cannot add two absolute temperatures ({a.unit:~P} + {b.unit:~P})"
            b = convert(b, a.unit, "temperature difference")
            self.unit = _delta(a.unit)
        elif is_offset(a.unit):
            b = convert(b, _delta(a.unit), f"{a.unit:~P} {op} ...")
            self.unit = a.unit
        else:
            b = convert(b, a.unit, f"'{op}' needs like units on both sides")
            self.unit = a.unit
        self.a, self.b = a, b


    def evaluate(self, env: Env) -> np.ndarray:
        fn = approx_add if self.op == "+" else approx_sub
        return fn(self.a.evaluate(env), self.b.evaluate(env))

    def render(self, ctx: Context) -> str:
        right = self.b.wrapped(ctx, ADD + (self.op == "-"))
        return f"{self.a.wrapped(ctx, ADD)}{self.op}{right}"


class BinOp(Node):
    """Multiplication and division: units multiply, nothing is converted."""

    prec = MUL

    NODES = ("a", "b")

    def __init__(self, op: str, a: Any, b: Any):
        self.op, self.a, self.b = op, as_node(a), as_node(b)
        for side in (self.a, self.b):
            if is_offset(side.unit):
                self.error = (f"cannot multiply or divide an absolute temperature ({side.unit:~P}); "
                              "use a temperature difference")
        self.unit = self.a.unit * self.b.unit if op == "*" else self.a.unit / self.b.unit


    def evaluate(self, env: Env) -> np.ndarray:
        # TRUE*TRUE is 1 in a spreadsheet; numpy's bool*bool stays bool.
        a, b = np.asarray(self.a.evaluate(env), float), np.asarray(self.b.evaluate(env), float)
        if self.op == "*":
            return np.multiply(a, b)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.divide(a, b)

    @property
    def unit_only(self) -> bool:
        """x * (1 month) or x / (1 month): only the unit changes, so the formula shows x alone (no *1, no /1)."""
        return _unit_one(self.b)

    def wrapped(self, ctx: Context, prec: int) -> str:
        return self.a.wrapped(ctx, prec) if self.unit_only else super().wrapped(ctx, prec)

    def render(self, ctx: Context) -> str:
        if self.unit_only:
            return self.a.render(ctx)
        right = self.b.wrapped(ctx, MUL + (self.op == "/"))
        return f"{self.a.wrapped(ctx, MUL)}{self.op}{right}"


class Pow(Node):
    prec = POW

    NODES = ("a", "n")

    def __init__(self, a: Any, n: Any):
        self.a = as_node(a)
        self.n = as_node(n)
        if self.a.unit.dimensionality:
            if not isinstance(self.n, Const):
                raise FormulaError("the exponent of a quantity with units must be a constant")
            self.unit = cast(pint.Unit, self.a.unit**self.n.value)
        else:
            # (1 + rate)^(1/12): a pure number to any pure power
            self.a = convert(self.a, DIMENSIONLESS, "the base of a power")
            self.n = convert(self.n, DIMENSIONLESS, "an exponent")
            self.unit = DIMENSIONLESS


    def evaluate(self, env: Env) -> np.ndarray:
        return power(self.a.evaluate(env), self.n.evaluate(env))

    def render(self, ctx: Context) -> str:
        return f"{self.a.wrapped(ctx, ATOM)}^{self.n.wrapped(ctx, ATOM)}"


class Neg(Node):
    NODES = ("a",)

    def __init__(self, a: Any):
        self.a = as_node(a)
        self.unit = self.a.unit


    def evaluate(self, env: Env) -> np.ndarray:
        return -self.a.evaluate(env)

    def render(self, ctx: Context) -> str:
        return f"-{self.a.wrapped(ctx, ATOM)}"


class Compare(Node):
    prec = CMP
    is_bool = True

    NODES = ("a", "b")

    def __init__(self, op: str, a: Any, b: Any):
        self.op, self.a = op, as_node(a)
        self.b = convert(as_node(b), self.a.unit, f"'{op}' compares like units")


    def evaluate(self, env: Env) -> np.ndarray:
        return compare(self.op, self.a.evaluate(env), self.b.evaluate(env))

    def render(self, ctx: Context) -> str:
        return f"{self.a.wrapped(ctx, ADD)}{self.op}{self.b.wrapped(ctx, ADD)}"


class Func(Node):
    """An Excel function call with a numpy implementation that means the same."""

    NODES = ("args",)
    scalar: Callable[..., Any] | None = None  # its twin on Python floats, bit for bit (functions._twin)

    def __init__(
        self,
        name: str,
        args: list[Node],
        fn: Callable[..., Any],
        out_unit: pint.Unit,
        *,
        is_bool: bool = False,
        extra: str = "",
    ):
        self.name, self.args, self.fn, self.unit = name, args, fn, out_unit
        self.is_bool, self.extra = is_bool, extra

    def evaluate(self, env: Env) -> np.ndarray:
        return cast(np.ndarray, self.fn(*(a.evaluate(env) for a in self.args)))

    def render(self, ctx: Context) -> str:
        parts = [a.render(ctx) for a in self.args]
        return f"{self.name}({','.join(parts)}{self.extra})"


class Guard(Node):
    """a / b, or a message instead of #DIV/0! where b is zero."""

    NODES = ("a", "b", "div")

    def __init__(self, a: Any, b: Any, message: str, div: Node | None = None):
        self.a, self.b = as_node(a), as_node(b)
        self.message = message
        self.div = div if div is not None else BinOp("/", self.a, self.b)
        self.unit = self.div.unit

    def converted(self, to_unit: pint.Unit, what: str) -> Guard:
        """The conversion goes inside the IF, so the message branch stays text."""
        return Guard(self.a, self.b, self.message, convert(self.div, to_unit, what))


    def evaluate(self, env: Env) -> np.ndarray:
        b = self.b.evaluate(env)
        return np.where(b == 0, np.nan, self.div.evaluate(env))

    def render(self, ctx: Context) -> str:
        text = self.message.replace('"', '""')
        return f'IF({self.b.render(ctx)}=0,"{text}",{self.div.render(ctx)})'


class Shown(Node):
    """`value` where `condition` holds, else a message instead of a number: IF(condition, value, "message"). For an
    answer that is only a figure when it is proven (an IRR that is a root) or valid (the checks it needs pass)."""

    NODES = ("condition", "value")

    def __init__(self, condition: Any, value: Any, message: str):
        self.condition, self.value, self.message = as_node(condition), as_node(value), message
        if not self.condition.is_bool:
            raise FormulaError("a shown value's condition must be a comparison or a check")
        self.unit = self.value.unit

    def converted(self, to_unit: pint.Unit, what: str) -> Shown:
        """The conversion goes inside the IF, so the message branch stays text."""
        return Shown(self.condition, convert(self.value, to_unit, what), self.message)

    def evaluate(self, env: Env) -> np.ndarray:
        return np.where(np.asarray(self.condition.evaluate(env), bool), self.value.evaluate(env), np.nan)

    def render(self, ctx: Context) -> str:
        text = self.message.replace('"', '""')
        return f'IF({self.condition.render(ctx)},{self.value.render(ctx)},"{text}")'


# ---------------------------------------------------------------- the timeline


class Prev(Node):
    """A row's value in the previous column. A line that uses it needs an opening (its column 0)."""

    LINES = ("line",)

    def __init__(self, line: LineRef):
        if line.axis != MONTHS:
            raise FormulaError(f"prev({line.id}) needs a monthly row")
        if line.opening is None:
            raise FormulaError(f"prev({line.id}) needs the line to have an opening value")
        self.line, self.unit, self.is_bool, self.axis = line, line.unit, line.is_bool, MONTHS

    def evaluate(self, env: Env) -> np.ndarray:
        return env.previous(self.line)

    def render(self, ctx: Context) -> str:
        return ctx.prev_ref(self.line)


class RowAgg(Node):
    """A function of whole rows (SUM, IRR, AND...), which is one value: fn(*before, row, *after)."""

    axis = None

    NODES = ("before", "after")
    LINES = ("line",)

    def __init__(self, name: str, line: LineRef, fn: Callable[..., np.ndarray], out_unit: pint.Unit,
                 before: list[Node] | None = None, wrap: tuple[str, str] = ("", ""),
                 after: list[Node] | None = None, *, is_bool: bool = False):
        if not line.series:
            raise FormulaError(f"{name}() needs a row; {line.id} is a single value")
        self.name, self.line, self.fn, self.unit, self.is_bool = name, line, fn, out_unit, is_bool
        self.before, self.after = before or [], after or []
        for arg in (*self.before, *self.after):
            if arg.series:
                raise FormulaError(f"{name}(): only the row itself may run over periods")
        self.wrap = wrap

    def evaluate(self, env: Env) -> np.ndarray:
        state = env.whole_rows()
        try:
            row = env.values[self.line.id]
            return self.fn(*(b.evaluate(env) for b in self.before), row, *(a.evaluate(env) for a in self.after))
        finally:
            env.restore(state)

    def render(self, ctx: Context) -> str:
        args = [b.render(ctx) for b in self.before] + [ctx.row_range(self.line)] + [a.render(ctx) for a in self.after]
        return f"{self.wrap[0]}{self.name}({','.join(args)}){self.wrap[1]}"


class Npv(Node):
    """NPV(rate, row): a row's values discounted at a rate per period, the first (time 0) by one period, as Excel's
    NPV. The rate may be a row itself (a rate in each column: an IRR search's candidates), then so is the value."""

    NODES = ("rate",)
    LINES = ("line",)

    def __init__(self, rate: Node, line: LineRef, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]):
        if not line.series:
            raise FormulaError(f"npv() needs a row; {line.id} is a single value")
        self.rate, self.line, self.fn, self.unit = rate, line, fn, line.unit

    def evaluate(self, env: Env) -> np.ndarray:
        rate = np.asarray(self.rate.evaluate(env), float)
        state = env.whole_rows()
        try:
            return self.fn(rate, env.values[self.line.id])
        finally:
            env.restore(state)

    def render(self, ctx: Context) -> str:
        return f"NPV({self.rate.render(ctx)},{ctx.row_range(self.line)})"


class Period(Node):
    """The column's number on a timeline axis: 0 at the start, then 1, 2... It renders as the cell that shows
    the number over the column's header, so a header can be a formula of it."""

    def __init__(self, axis: str):
        if axis not in (MONTHS, YEARS):
            raise FormulaError(f"period(): the axis is {MONTHS} or {YEARS}, not {axis!r}")
        self.axis, self.unit = axis, DIMENSIONLESS

    def evaluate(self, env: Env) -> np.ndarray:
        v = np.arange(env.sizes[str(self.axis)]).astype(float)[None, :]
        if env.column is not None:
            return v[:, env.column : env.column + 1]
        return v if env.window is None else v[:, env.window]

    def render(self, ctx: Context) -> str:
        return ctx.period()


class Rollup(Node):
    """A monthly row summed by year: SUMIF(key row, this column's header, row). Column 0 (the start) holds
    what happens at time 0, then one column per year. The header of each yearly column is `keys` (the key row's
    `year_keys`: a fiscal year, from the calendar), or the column's number where the key row has none."""

    axis = YEARS

    LINES = ("line", "by")
    NODES = ("keys",)

    def __init__(self, line: LineRef, by: LineRef, fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]):
        if line.axis != MONTHS or by.axis != MONTHS:
            raise FormulaError(f"rollup({line.id}) sums a monthly row by a monthly row of years")
        self.line, self.by, self.fn, self.unit = line, by, fn, line.unit
        self.keys = by.year_keys if by.year_keys is not None else Period(YEARS)
        if self.keys.axis != YEARS:
            raise FormulaError(f"rollup({line.id}): the keys of {by.id} must run over the years")

    def evaluate(self, env: Env) -> np.ndarray:
        state = env.whole_rows()
        try:
            by, row = env.values[self.by.id], env.values[self.line.id]
            keys = np.atleast_2d(np.asarray(self.keys.evaluate(env), dtype=float))
            if keys.shape[0] == 1:  # the same headers for every case
                return self.fn(by, keys[0], row)
            rows = np.broadcast_shapes(by.shape[:1], row.shape[:1], keys.shape[:1])[0]
            by, row = np.broadcast_to(by, (rows, by.shape[1])), np.broadcast_to(row, (rows, row.shape[1]))
            keys = np.broadcast_to(keys, (rows, keys.shape[1]))
            return np.concatenate([self.fn(by[b : b + 1], keys[b], row[b : b + 1]) for b in range(rows)], axis=0)
        finally:
            env.restore(state)

    def render(self, ctx: Context) -> str:
        return f"SUMIF({ctx.row_range(self.by)},{ctx.header()},{ctx.row_range(self.line)})"


class Lagged(Node):
    """A monthly row read `months` periods back: in each column, SUMIF(the month row, this column's month - months,
    the row): the row's value in the month that many periods earlier (0 before the start). `months` is a single
    value, so the lag is live (a payment made that many months after it is due)."""

    axis = MONTHS

    NODES = ("months",)
    LINES = ("line", "by")

    def __init__(self, line: LineRef, by: LineRef, months: Node,
                 fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]):
        if line.axis != MONTHS or by.axis != MONTHS:
            raise FormulaError(f"lagged({line.id}) reads a monthly row by the monthly row of month numbers")
        if months.series:
            raise FormulaError(f"lagged({line.id}): the lag is a single value")
        self.line, self.by, self.months, self.fn, self.unit = line, by, months, fn, line.unit

    def evaluate(self, env: Env) -> np.ndarray:
        state = env.whole_rows()
        try:
            lag = np.asarray(self.months.evaluate(env), float)
            keys, row = env.values[self.by.id], env.values[self.line.id]
            whole = self.fn(keys, np.asarray(keys, float) - lag, row)
        finally:
            env.restore(state)
        if env.column is not None:
            return whole[:, env.column : env.column + 1]
        return whole[:, env.window] if env.window is not None else whole

    def render(self, ctx: Context) -> str:
        back = f"{ctx.ref(self.by)}-{self.months.wrapped(ctx, MUL)}"
        return f"SUMIF({ctx.row_range(self.by)},{back},{ctx.row_range(self.line)})"
