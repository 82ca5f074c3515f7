"""The templates a site is read against (templates/): the hardware catalog, the defaults of keys a site leaves out
and the limits of a real site's inputs, each read once per content."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import functools
import math
from pathlib import Path
from typing import Any

from workbook.formula.echo import clip
from workbook.site.errors import InputError, Where, did_you_mean
from workbook.site.spec import Spec, split_value
from workbook.site.yaml_reader import YamlError, read_yaml

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
CATALOG_PATH = TEMPLATES / "catalog.yaml"
DEFAULTS_PATH = TEMPLATES / "defaults.yaml"
LIMITS_PATH = TEMPLATES / "limits.yaml"


def read_input_yaml(path: Path) -> Any:
    try:
        return read_yaml(path)
    except OSError as e:
        raise InputError(f"cannot read the file ({e.strerror or e})", file=path) from None
    except YamlError as e:
        raise InputError(e.problem, file=path, key=e.key, line=e.line, column=e.column) from None


def _read_template(path: Path) -> Any:
    """A template's data, parsed once per content: every site's load reads the catalog and the defaults (a batch
    build or a test run loads hundreds of sites), and parsing them took a quarter of a site's load. Keyed on the
    bytes, so an edited template is read again; a deep copy, so no caller changes another's."""
    return copy.deepcopy(_shared_template(path))


def _shared_template(path: Path) -> Any:
    """_read_template's data itself, not a copy: for a reader that changes nothing of it."""
    try:
        raw = Path(path).read_bytes()
    except OSError:
        raw = None
    if raw is None or (Path(path), raw) not in _TEMPLATES:
        data, read = read_input_yaml(path)
        for old in [key for key in _TEMPLATES if key[0] == Path(path)]:
            del _TEMPLATES[old]  # one version of each template is enough
        _TEMPLATES[(Path(path), read)] = data
        return data
    return _TEMPLATES[(Path(path), raw)]


_TEMPLATES: dict[tuple[Path, bytes], Any] = {}


def load_catalog(path: Path = CATALOG_PATH) -> dict[str, Any]:
    data = _read_template(path)
    if not isinstance(data, dict):
        raise InputError("the catalog must be a mapping of kinds (gpus, nodes, ...)", file=path)
    return data


def load_defaults(path: Path = DEFAULTS_PATH) -> dict[str, tuple[Any, str]]:
    """The defaults of keys no site file or catalog entry gives: key -> (value, source). A site's load asks five
    times: the template is not copied for each (a value that is not a plain scalar is)."""
    data = _shared_template(path)
    if not isinstance(data, dict):
        raise InputError("defaults must be a mapping of key: {value, source}", file=path)
    out = {}
    for key, raw in data.items():
        try:
            value, source = split_value(raw)
        except InputError as e:
            raise e.located(file=path, key=str(key)) from None
        if not source:
            raise InputError("every default needs its source", file=path, key=str(key), value=raw,
                             expected="{value: ..., source: where it comes from}")
        out[str(key)] = (value if isinstance(value, _SCALARS) else copy.deepcopy(value), source)
    return out


_SCALARS = (str, int, float, bool, datetime.date, type(None))  # what YAML reads that nothing can change in place


@functools.cache
def load_limits(path: Path = LIMITS_PATH) -> dict[str, tuple[float | None, float | None, str]]:
    """The range a real site's input can have: key -> (lo, hi, why), in the key's unit."""
    data, _ = read_input_yaml(path)
    if not isinstance(data, dict):
        raise InputError("limits must be a mapping of key: {lo, hi, why}", file=path)
    out = {}
    for key, entry in data.items():
        ok = isinstance(entry, dict) and set(entry) <= {"lo", "hi", "why"} and entry.get("why")
        bounds = [entry.get(b) for b in ("lo", "hi")] if ok else []
        if not ok or not all(b is None or (isinstance(b, int | float) and math.isfinite(b)) for b in bounds):
            raise InputError("is not a range with its reason", file=path, key=str(key), value=entry,
                             expected="{lo: number, hi: number, why: the reason}")
        out[str(key)] = (bounds[0], bounds[1], str(entry["why"]))
    return out


def with_limits(specs: list[Spec]) -> list[Spec]:
    """The specs with the ranges of templates/limits.yaml: the tighter of the model's bound and the limit."""
    limits = load_limits()
    out = []
    for spec in specs:
        if spec.key not in limits:
            out.append(spec)
            continue
        lo, hi, why = limits[spec.key]
        lo, hi, lo_open = spec.bounds.tightened(lo, hi)
        out.append(dataclasses.replace(spec, lo=lo, hi=hi, lo_open=lo_open, why=why))
    return out


def catalog_table(kind: str) -> str:
    """The catalog table of a kind: its English plural (gpu -> gpus, switch -> switches)."""
    return f"{kind}es" if kind.endswith(("s", "x", "z", "ch", "sh")) else f"{kind}s"


def catalog_kind(table: str) -> str:
    return table[:-2] if table.endswith("es") and catalog_table(table[:-2]) == table else table.removesuffix("s")


def catalog_parts(choice: Any, catalog: dict[str, Any]) -> dict[str, str]:
    """The chosen catalog entries by kind, as a bill of materials names a part: "NVIDIA DGX H100 (8x H100 ...)".
    (The choice is validated by catalog_defaults.)"""
    if not isinstance(choice, dict):
        return {}
    out = {}
    for kind, entry_name in choice.items():
        entry = (catalog.get(catalog_table(str(kind))) or {}).get(entry_name) if isinstance(entry_name, str) else None
        if isinstance(entry, dict):
            out[str(kind)] = str(entry.get("description") or entry_name)
    return out


def catalog_defaults(choice: Any, where: Path, catalog_path: Path, catalog: dict[str, Any],
                      problems: list[InputError]) -> tuple[dict[str, tuple[Any, str, Where]], set[str]]:
    """The values of the catalog entries a site chose: key -> (value, source, where it is written); and the keys
    a choice at fault would have given (not reported missing: the choice is the problem)."""
    if choice is None:
        return {}, set()
    every = {k for table in catalog.values() if isinstance(table, dict) for entry in table.values()
             if isinstance(entry, dict) for k in (entry.get("values") or {})}
    if not isinstance(choice, dict):
        problems.append(InputError("is not a mapping", file=where, key="catalog", value=choice,
                                   expected="a mapping such as {gpu: H100-SXM, node: DGX-H100}"))
        return {}, every
    out: dict[str, tuple[Any, str, Where]] = {}
    unresolved: set[str] = set()
    kinds = [catalog_kind(k) for k in catalog]
    for kind, entry_name in choice.items():
        table = catalog.get(catalog_table(str(kind)))
        if not isinstance(table, dict):
            problems.append(InputError(f"unknown kind{did_you_mean(str(kind), kinds)}", file=where,
                                       key=f"catalog.{clip(kind)}", expected=f"one of the kinds {', '.join(kinds)}"))
            unresolved |= every
            continue
        entry = table.get(entry_name) if isinstance(entry_name, str) else None
        if not isinstance(entry, dict):
            problems.append(InputError(f"not in {catalog_path.name}{did_you_mean(str(entry_name), list(table))}",
                                       file=where, key=f"catalog.{clip(kind)}", value=entry_name,
                                       expected=f"one of {', '.join(table)}"))
            unresolved |= {k for e in table.values() if isinstance(e, dict) for k in (e.get("values") or {})}
            continue
        origin = (catalog_path, f"{catalog_path.name} {entry_name}")
        for key, raw in (entry.get("values") or {}).items():
            try:
                value, source = split_value(raw)
            except InputError as e:
                raise e.located(file=catalog_path, key=str(key), where=origin[1]) from None
            out[key] = (value, f"catalog {kind} {entry_name}: {source}", origin)
    return out, unresolved
