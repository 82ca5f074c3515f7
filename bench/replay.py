"""The build's baseline: every xlsxwriter call the tool makes, recorded once and replayed as straight-line Python
through xlsxwriter's normal API (`ws.write_string(5, 0, "GPUs", o7)`, `ws.write_formula(...)`, `wb.define_name(...)`),
so raw xlsxwriter writes the same cells with the same formats, names, cached values, validation, charts and page
setup. `Recording.compile()` gives a function that writes that workbook to a target; the bench checks that its
bytes are the tool's bytes before timing anything.

How the calls are caught: while recording, `xlsxwriter.Workbook` is replaced by a factory that returns a proxy;
the proxy (and the worksheets and charts it returns) forwards every call and records the public ones. Formula
cells are not taken from calls but from each worksheet's cell table at `close`, so formulas written by
workbook.excel.fast_formulas (which fills the table directly) are replayed too, through `write_formula`.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import xlsxwriter
from xlsxwriter.chart import Chart
from xlsxwriter.format import Format
from xlsxwriter.worksheet import CellFormulaTuple, Worksheet

_SKIPPED = {"write_formula"}  # formulas are replayed from the cell tables (see the module's docstring)


@dataclass(frozen=True)
class Handle:
    """An xlsxwriter object made during the build (workbook 0, then worksheets, charts, formats)."""

    n: int


@dataclass
class Recording:
    options: dict[str, Any] = field(default_factory=dict)
    calls: list[tuple[int, str, tuple[Any, ...], dict[str, Any], int | None]] = field(default_factory=list)
    handles: dict[int, int] = field(default_factory=dict)  # id(real object) -> handle number
    objects: list[Any] = field(default_factory=list)  # handle number -> real object (kept alive)

    def handle(self, real: Any) -> int:
        if id(real) not in self.handles:
            self.handles[id(real)] = len(self.objects)
            self.objects.append(real)
        return self.handles[id(real)]

    def encode(self, v: Any) -> Any:
        if isinstance(v, _Proxy):
            return Handle(v._handle)
        if isinstance(v, Format | Worksheet | Chart):
            return Handle(self.handle(v))
        if isinstance(v, dict):
            return {k: self.encode(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return type(v)(self.encode(x) for x in v)
        if hasattr(v, "item") and not isinstance(v, str | bytes):  # a numpy scalar
            return v.item()
        return v

    def formulas_from_tables(self) -> None:
        for n, obj in enumerate(self.objects):
            if isinstance(obj, Worksheet):
                for row, cells in obj.table.items():
                    for col, cell in cells.items():
                        if isinstance(cell, CellFormulaTuple):
                            fmt = cell.format._real if isinstance(cell.format, _Proxy) else cell.format
                            self.calls.append((n, "write_formula", (row, col, "=" + cell.formula,
                                                                    self.encode(fmt), self.encode(cell.value)),
                                               {}, None))

    def source(self) -> str:
        """The replay as a Python function `replay(target)`."""
        out = ["def replay(target):", f"    o0 = xlsxwriter.Workbook(target, {_lit(self.options)})"]
        for n, name, args, kwargs, result in self.calls:
            call = ", ".join([*map(_lit, args), *(f"{k}={_lit(v)}" for k, v in kwargs.items())])
            out.append(f"    {'' if result is None else f'o{result} = '}o{n}.{name}({call})")
        return "\n".join(out) + "\n"

    def compile(self) -> Callable[[Any], None]:
        namespace: dict[str, Any] = {"xlsxwriter": xlsxwriter, "datetime": datetime, "nan": math.nan,
                                     "inf": math.inf}
        exec(compile(self.source(), "<bench replay>", "exec"), namespace)  # our own recording
        return namespace["replay"]


def _lit(v: Any) -> str:
    """A Python literal for a recorded argument."""
    if isinstance(v, Handle):
        return f"o{v.n}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_lit(k)}: {_lit(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(map(_lit, v)) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(f"{_lit(x)}, " for x in v) + ")"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if v is None or isinstance(v, bool | int | float | str | datetime.datetime | datetime.date):
        return repr(v)
    raise TypeError(f"bench replay: cannot write a {type(v).__name__} argument as a literal")


class _Proxy:
    """Forwards everything to the real object; records public method calls."""

    def __init__(self, recording: Recording, real: Any):
        self._recording, self._real = recording, real
        self._handle = recording.handle(real)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name.startswith("_") or not callable(attr):
            return attr
        rec = self._recording

        def call(*args: Any, **kwargs: Any) -> Any:
            if name == "close":
                rec.formulas_from_tables()
            encoded = (rec.encode(args), rec.encode(kwargs))  # before the call: xlsxwriter may change them
            result = attr(*_unwrap(args), **_unwrap(kwargs))
            wrapped, number = result, None
            if isinstance(result, Worksheet | Chart):
                wrapped = _Proxy(rec, result)
                number = wrapped._handle
            elif isinstance(result, Format):
                number = rec.handle(result)
            if name not in _SKIPPED:
                rec.calls.append((self._handle, name, encoded[0], encoded[1], number))
            return wrapped

        return call


def _unwrap(v: Any) -> Any:
    if isinstance(v, _Proxy):
        return v._real
    if isinstance(v, dict):
        return {k: _unwrap(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return type(v)(_unwrap(x) for x in v)
    return v


@contextmanager
def recording() -> Iterator[Recording]:
    """Within: every xlsxwriter.Workbook made is recorded (the last one made is the recording's)."""
    real_workbook = xlsxwriter.Workbook
    rec = Recording()

    def factory(target: Any, options: dict[str, Any] | None = None) -> Any:
        rec.options = dict(options or {})
        rec.calls.clear()
        rec.handles.clear()
        rec.objects.clear()
        return _Proxy(rec, real_workbook(target, options))

    xlsxwriter.Workbook = factory
    try:
        yield rec
    finally:
        xlsxwriter.Workbook = real_workbook
