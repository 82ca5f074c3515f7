"""What every model module shares: its inputs as lines on the Inputs sheet, read from a validated site."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, TypeVar

from workbook.book.book import Book, SheetBuilder
from workbook.book.sheets import INPUTS, instance_title
from workbook.formula.expr import FormulaError
from workbook.formula.line import COUNT, PERCENT, Line
from workbook.formula.ranges import Range, shown
from workbook.site.spec import Site, Spec

Out = TypeVar("Out")
NAMESPACE = re.compile(r"^[a-z][a-z0-9_]{0,11}$")  # 12 characters: `Power chain (…)` fits Excel's 31


def in_namespace(key: str, namespace: str) -> str:
    """An id (or an id's prefix) of a model instance: `power` -> `fleet_new.power`; the site's own is unchanged."""
    return f"{namespace}.{key}" if namespace else key


class Scope:
    """One instance of a model in a book: its line ids (`power.it_load`, or `fleet_new.power.it_load` for a
    second instance under the namespace `fleet_new`), its sheets' titles, and the lines it defined, from which
    its outputs are made. Two instances of a model are two calls of its function with two scopes."""

    def __init__(self, book: Book, prefix: str, namespace: str = ""):
        if namespace and not NAMESPACE.match(namespace):
            raise FormulaError(f"namespace {namespace!r}: lowercase letters, digits and _, starting with a letter "
                               "(it becomes part of every id, defined name and sheet title)")
        self.book, self.namespace, self.model = book, namespace, prefix
        self.prefix = in_namespace(prefix, namespace)
        self.defined: dict[str, Line] = {}

    def instance(self, namespace: str) -> Scope:
        """Another instance of the same model in the same book, under `namespace` (a plan of an upgrade)."""
        return Scope(self.book, self.model, namespace)

    def sheet(self, title: str) -> SheetBuilder:
        return self.book.sheet(instance_title(title, self.namespace), self.prefix, self.defined)

    def outputs(self, cls: type[Out], **given: Any) -> Out:
        """The model's frozen outputs: each field is the line the model defined under that name, unless given
        (an input, a list of lines). A field with a default may be absent (a line only some sites have)."""
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in given:
                values[f.name] = given[f.name]
            elif f.name in self.defined:
                values[f.name] = self.defined[f.name]
            elif f.default is dataclasses.MISSING:
                raise FormulaError(f"model {self.prefix} defines no line {f.name!r} for its outputs")
        return cls(**values)


@dataclass
class Setting:
    """A word from the site file that shapes which rows exist (e.g. the facility overhead method), or a text it
    gives (a node's name, a delivery address: `shapes` False), shown beside the inputs."""

    key: str
    label: str
    value: str
    source: str
    shapes: bool = True  # the Cover names the choices that shape the model, not the texts


class Inputs:
    """One model's inputs, each a line on the Inputs sheet; `inputs.gpu_tdp` is the line to use in formulas."""

    def __init__(self, book: Book, site: Site, title: str, prefix: str, specs: list[Spec], namespace: str = ""):
        self._lines: dict[str, Line] = {}
        self._choices: dict[str, Any] = {}
        self._sources: dict[str, str] = {}  # a text input's source
        title = instance_title(title, namespace)
        builder = book.sheet(INPUTS, in_namespace(prefix, namespace), group=title)
        builder.section(title)
        for spec in specs:
            value = site.get(spec.key)
            if value is None:
                continue
            key = spec.key.split(".", 1)[1]
            if spec.text:  # words (a node's name, an address): shown beside the inputs, in no formula
                self._sources[key] = value.source
            if spec.choices or spec.structural or spec.text:
                shown = (str(value.magnitude) if spec.choices or spec.text
                         else shown_value(float(value.magnitude), spec.unit))
                self._choices[key] = value.magnitude
                key_shown = in_namespace(spec.key, namespace)
                label = f"{spec.label} ({namespace})" if namespace else spec.label
                book.settings.append(Setting(key_shown, label, shown, value.source, shapes=not spec.text))
            elif spec.redundancy:
                mult, spares = value.magnitude
                note = f"{value.given} -> {mult} x N + {spares} spare(s); {value.source}"
                self._lines[f"{key}_multiplier"] = builder.input(
                    f"{key}_multiplier", f"{spec.label}: multiple of N", "ratio", mult, note,
                    fmt=COUNT, bounds=Range(1), integer=True)
                self._lines[f"{key}_spares"] = builder.input(
                    f"{key}_spares", f"{spec.label}: spare units", "units", spares, note,
                    fmt=COUNT, bounds=Range(0), integer=True)
            else:
                note = value.source
                if value.given and _differs(value.given, value.magnitude, spec.unit):
                    note = f"given as {value.given}; {note}"
                fmt = PERCENT if spec.unit == "%" else spec.fmt
                self._lines[key] = builder.input(
                    key, spec.label, spec.unit, float(value.magnitude), note, fmt=fmt,
                    bounds=spec.bounds, integer=spec.integer)

    def __getattr__(self, key: str) -> Line:
        try:
            return self.__dict__["_lines"][key]
        except KeyError:
            raise AttributeError(f"no input {key} (absent, or not used with these choices)") from None

    def choice(self, key: str) -> Any:
        """A structural choice or number from the site file (it decides which rows or columns exist)."""
        return self._choices[key]

    def words(self, key: str) -> str:
        """A text input's words, or "" where the site gives none (an optional one)."""
        return str(self._choices.get(key, ""))

    def source(self, key: str) -> str:
        """Where a text input's words come from (the site file, a default, a catalog entry)."""
        return self._sources[key]

    def has(self, key: str) -> bool:
        return key in self._lines

    def given(self, key: str, line: Line) -> None:
        """An input line for a key the site leaves out, defined by the caller (the bench's stand-in for a value
        another model sizes); a key the site gives is not replaced."""
        if key in self._lines:
            raise KeyError(f"input {key} is given by the site")
        self._lines[key] = line


class AllInputs:
    """Every model's inputs: `inputs.power.gpus`, so a model can use another model's inputs."""

    def __init__(self, by_prefix: dict[str, Inputs]):
        self._by_prefix = by_prefix

    def __getattr__(self, prefix: str) -> Inputs:
        try:
            return self.__dict__["_by_prefix"][prefix]
        except KeyError:
            raise AttributeError(f"no model {prefix}") from None


def _differs(given: str, magnitude: float | str | tuple, unit_text: str) -> bool:
    try:
        return float(given) != float(magnitude)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return _plain_unit(given) != _plain_unit(f"{magnitude:g}{unit_text}")


def _plain_unit(text: str) -> str:
    """A quantity as text without spaces, its powers written one way (a site file's kg/m^2 is the sheet's kg/m²)."""
    return text.replace(" ", "").replace("^2", "²").replace("^3", "³")


def shown_value(x: float, unit_text: str) -> str:
    """A structural number as the Cover and Inputs show it: a share as a percentage (0.2 -> 20%)."""
    return shown(x, percent=True) if unit_text == "%" else f"{shown(x, percent=False)} {unit_text}".strip()
