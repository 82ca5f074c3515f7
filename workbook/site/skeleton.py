"""`init`: a commented site file for a chosen catalog GPU and node, ready to fill in.

Every key of every model is listed in the models' order, with its label and unit. A key the catalog entries
chosen or the tool's defaults give is written as a comment showing that value and its source: the site file
keeps it unless the reader uncomments the line and changes it (the Inputs sheet then cites the catalog or the
default, not the site file). A key with neither is REQUIRED: its line is written without a value, with an
example of that key's own (workbook.site.examples.example_for) and where the example comes from, so that a build names
every one still empty, all at once. Keys another key switches on (a loan's, an own build's) are comments that say
when they are needed.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

from workbook.site.errors import InputError, did_you_mean
from workbook.site.examples import EXAMPLE_SITES, example_for, written
from workbook.site.rules import air_cooled
from workbook.site.spec import Spec
from workbook.site.templates import (
    CATALOG_PATH,
    DEFAULTS_PATH,
    catalog_kind,
    catalog_table,
    load_catalog,
    load_defaults,
)
from workbook.site.values import expected_value
from workbook.site.yaml_reader import YamlError, read_yaml

WIDTH = 118  # characters of a comment line
NONE = "none"  # a kind left out: its keys come from the defaults or are REQUIRED


def default_parts(catalog: dict[str, Any]) -> dict[str, str]:
    """The entry of each catalog kind but the GPU and the node that the example site chose (its switches, optics,
    coolant, CDU...): a kind it does not choose is left out."""
    try:
        data, _ = read_yaml(EXAMPLE_SITES[0])
    except (OSError, YamlError):
        return {}
    chosen = data.get("catalog") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in (chosen or {}).items()
            if k not in ("gpu", "node") and str(v) in (catalog.get(catalog_table(str(k))) or {})}


def choose(catalog: dict[str, Any], gpu: str, node: str, parts: dict[str, str]) -> dict[str, str]:
    """The catalog choice (kind -> entry): the GPU, the node (`none`: the site describes its node itself) and the
    other kinds (the example site's, changed by `parts`; `none` leaves a kind out); an unknown kind or entry is
    refused naming the option."""
    choice = {"gpu": gpu, "node": node, **default_parts(catalog), **parts}
    for kind, name in choice.items():
        table = catalog.get(catalog_table(kind))
        option, given = (f"--{kind}", name) if kind in ("gpu", "node") else ("--part", f"{kind}={name}")
        if not isinstance(table, dict):
            kinds = [catalog_kind(t) for t in catalog]
            raise InputError(f"is not a kind of the catalog{_hint(kind, kinds)}", key=option, value=given,
                             expected=f"one of {', '.join(kinds)}")
        if name != NONE and name not in table:
            raise InputError(f"is not in {CATALOG_PATH.name}{_hint(name, list(table))}", key=option, value=given,
                             expected=f"one of {', '.join(table)}, or none")
    return {k: v for k, v in choice.items() if v != NONE}


def _hint(name: str, options: list[str]) -> str:
    """A "did you mean": the option that holds the name (H200 -> H200-SXM), else the closest spelling."""
    return did_you_mean(name, options)


def skeleton(site_name: str, choice: dict[str, str], models: list[ModuleType],
             command: str = "", optional: ModuleType | None = None) -> tuple[str, list[str]]:
    """The site file's text, and the keys it marks REQUIRED (those that apply with its choices); `optional`: a
    model whose section the file offers commented out (the workload)."""
    catalog = load_catalog()
    given = _catalog_values(catalog, choice)
    defaults = load_defaults()
    chosen = {k: v[0] for k, v in {**defaults, **given}.items()}  # what decides which keys apply
    out = _header(site_name, command) + _catalog_block(catalog, choice)
    required: list[str] = []
    for model in models:
        out.append("")
        out += _wrap(f"--- {model.TITLE} ---", "# ")
        out.append(f"{model.PREFIX}:")
        for spec in model.INPUTS:
            lines, needed = _key(spec, given, defaults, chosen)
            out += lines
            required += [spec.key] if needed else []
    out += _optional_block(optional, given, defaults) if optional is not None else []
    out += _scenarios_block()
    return "\n".join(out) + "\n", required


def _optional_block(model: ModuleType, given: dict[str, tuple[Any, str]],
                    defaults: dict[str, tuple[Any, str]]) -> list[str]:
    """An optional model's section, commented out (the workload: section): each key with the value it would take,
    from the catalog entries chosen or the defaults, and where that comes from."""
    out = ["", *_wrap(f"--- {model.TITLE} (optional: uncomment the section to add its sheet; the model's shape "
                      "comes from its catalog entry, catalog: model:, the GPU's peaks and memory from its own) ---",
                      "# "), f"# {model.PREFIX}:"]
    for spec in model.INPUTS:
        if spec.key in given or spec.key in defaults:
            value, source = given[spec.key] if spec.key in given else (defaults[spec.key][0],
                                                                        f"default: {defaults[spec.key][1]}")
            out += [*_wrap(f"{spec.label} [{spec.unit}]. {source}", "#   # "),
                    f"#   {spec.key.split('.', 1)[1]}: {written(value)}"]
    return out


def _catalog_values(catalog: dict[str, Any], choice: dict[str, str]) -> dict[str, tuple[Any, str]]:
    out = {}
    for kind, name in choice.items():
        for key, raw in (catalog[catalog_table(kind)][name].get("values") or {}).items():
            value, source = (raw.get("value"), raw.get("source", "")) if isinstance(raw, dict) else (raw, "")
            out[key] = (value, f"catalog {kind} {name}: {source}")
    return out


def _key(spec: Spec, given: dict[str, tuple[Any, str]], defaults: dict[str, tuple[Any, str]],
         chosen: dict[str, Any]) -> tuple[list[str], bool]:
    """A key's comment and line, and whether it is REQUIRED."""
    name = spec.key.split(".", 1)[1]
    unit = f" [{spec.unit}]" if spec.unit and not (spec.choices or spec.redundancy) else ""
    words = _kind_words(spec)
    when = ""
    if spec.when is not None:
        other, wanted = spec.when
        when = f"used when {other} is {wanted}"
        if str(chosen.get(other, "")).strip().lower() != wanted:
            example, origin = example_for(spec)
            text = f"{spec.label}{unit}: {when} (it is not here){words}; e.g. {example}{_from(origin)}"
            return [*_wrap(text, "  # "), f"  # {name}: {example}"], False
    if spec.liquid and spec.key not in given and spec.key not in defaults and air_cooled(chosen.get):
        example, origin = example_for(spec)
        text = f"{spec.label}{unit}: used when a part is liquid-cooled (none is here){words}; e.g. {example}"
        return [*_wrap(text + _from(origin), "  # "), f"  # {name}: {example}"], False
    if spec.key in given or spec.key in defaults:
        value, source = given[spec.key] if spec.key in given else (defaults[spec.key][0],
                                                                    f"default: {defaults[spec.key][1]}")
        return [*_wrap(f"{spec.label}{unit}{words}. {source}", "  # "), f"  # {name}: {written(value)}"], False
    example, origin = example_for(spec)
    if spec.optional:
        text = f"{spec.label}{unit}: optional{words}; e.g. {example}{_from(origin)}"
        return [*_wrap(text, "  # "), f"  # {name}: {example}"], False
    text = f"REQUIRED{' (' + when + ')' if when else ''}: {spec.label}{unit}: {expected_value(spec)}{_from(origin)}"
    return [*_wrap(text, "  # "), f"  {name}:"], True


def _kind_words(spec: Spec) -> str:
    if spec.choices:
        return f" (one of {', '.join(spec.choices)})"
    if spec.redundancy:
        return " (N, N+1, N+2, 2N or 2N+1)"
    return ""


def _from(origin: str) -> str:
    return f" (from {origin})" if origin else ""


def _wrap(text: str, prefix: str) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), WIDTH, initial_indent=prefix, subsequent_indent=prefix + "  ",
                         break_on_hyphens=False, break_long_words=False)


def _header(site_name: str, command: str) -> list[str]:
    return [f"# A site file written by `{command}`.",
            "#",
            "# Fill in every key marked REQUIRED (its line has no value yet, e.g. `gpus:`), then build it:",
            "#   python -m workbook build <this file>",
            "# A build names every key still empty, missing or refused, one line each, all at once; once the file",
            "# is complete it writes the workbook and prints each check that fails, with its rule.",
            "#",
            "# A line starting with # is a comment: its key keeps the value shown, from the catalog entries chosen",
            f"# below ({CATALOG_PATH.parent.name}/{CATALOG_PATH.name}) or the tool's defaults "
            f"({DEFAULTS_PATH.parent.name}/{DEFAULTS_PATH.name}), with its source.",
            "# To change one, remove the # and edit the value. Quantities are text with their unit (700 W,",
            "# 0.08 USD/kWh, 5 years, 30 degC); a value may carry its source:",
            '#   rack_power_limit: {value: 41 kW, source: "colo cabinet offer"}',
            "",
            f"site: {_scalar(site_name)}",
            "# description: one paragraph on what this site is (shown on the Cover)",
            ""]


def _scalar(text: str) -> str:
    """A name as a YAML scalar: quoted where YAML would read it otherwise."""
    plain = text and not any(c in text for c in ":#{}[],&*!|>'\"%@`") and text == text.strip()
    return text if plain and not text[0].isdigit() and text.lower() not in ("yes", "no", "true", "false",
                                                                            "null", "on", "off") else f'"{text}"'


def _catalog_block(catalog: dict[str, Any], choice: dict[str, str]) -> list[str]:
    out = _wrap("Hardware from the catalog: each entry's values are this site's defaults (listed below, each with "
                "its source). A kind left out (none) leaves its keys to the defaults or REQUIRED.", "# ")
    out.append("catalog:")
    for table, entries in catalog.items():
        kind = catalog_kind(table)
        if not isinstance(entries, dict):
            continue
        name = choice.get(kind)
        if name is None:
            out += _wrap(f"{kind}: none chosen; entries: {', '.join(entries)}", "  # ")
            continue
        others = [e for e in entries if e != name]
        note = str(entries[name].get("description") or name) + (f"; others: {', '.join(others)}" if others else "")
        out += [*_wrap(note, "  # "), f"  {kind}: {name}"]
    return out


def _scenarios_block() -> list[str]:
    return ["",
            "# --- Scenarios: each a name and the inputs it changes, computed live beside the base case ---",
            "# scenarios:",
            "#   low_utilisation: {tco.utilisation: 0.4}",
            "#   high_power_price: {tco.electricity_price: 0.15 USD/kWh}",
            "",
            "# --- Risk: ranges of the inputs that decide rent vs buy, each with its source (the Risk sheet) ---",
            "# risk:",
            "#   inputs:",
            "#     tco.utilisation: {distribution: triangular, low: 0.5, mode: 0.7, high: 0.85, source: \"...\"}",
            "#     tco.electricity_price: {distribution: pert, low: 0.06 USD/kWh, mode: 0.08 USD/kWh, "
            "high: 0.14 USD/kWh, source: \"...\"}"]


def write_new(path: Path, text: str, force: bool = False) -> None:
    """Write the file, refusing to replace one that exists unless `force`; all or nothing (renamed into place)."""
    if path.exists() and not force:
        raise InputError("exists already; give --force to replace it, or another -o", file=path)
    if not path.parent.is_dir():
        raise InputError("cannot be written: its folder does not exist", file=path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        raise InputError(f"cannot be written ({e.strerror or e})", file=path) from None
    finally:
        Path(tmp).unlink(missing_ok=True)
