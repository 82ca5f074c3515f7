"""Each key's example, as a site file writes it: its default, else the example sites' value, else the Spec's own;
what an error says a value should look like, and what `init` writes."""

from __future__ import annotations

import functools
from typing import Any

from workbook.site.errors import InputError, one_line
from workbook.site.spec import TOP_LEVEL, Spec
from workbook.site.templates import DEFAULTS_PATH, TEMPLATES, catalog_table, load_catalog, load_defaults
from workbook.site.yaml_reader import YamlError, read_yaml

# The project's example sites, whose values are each key's example where the tool has no default: the example
# site first, then the build site for what it does not use (an own build, a loan, an itemised overhead).
EXAMPLE_SITES = (TEMPLATES.parent / "inputs" / "example.yaml", TEMPLATES.parent / "inputs" / "b200-liquid-build.yaml")


def example_for(spec: Spec) -> tuple[str, str]:
    """A value for this key, as a site file writes it, and where it comes from: the key's default
    (templates/defaults.yaml), else the value an example site has for it (given, or from the catalog entry it
    chose), else the Spec's own example. Never a generic value of the unit: `cable_price` is shown 150 USD (the
    example site's cable), not the price of a server."""
    if spec.key in _default_examples():
        return _default_examples()[spec.key]
    return _site_examples().get(spec.key, (spec.example, ""))


@functools.cache
def _default_examples() -> dict[str, tuple[str, str]]:
    try:
        defaults = load_defaults()
        return {key: (written(raw), f"{DEFAULTS_PATH.name}: {source}") for key, (raw, source) in defaults.items()}
    except InputError:
        return {}


@functools.cache
def _site_examples() -> dict[str, tuple[str, str]]:
    """key -> (value as written, where it comes from) over the example sites, the first site's value kept."""
    out: dict[str, tuple[str, str]] = {}
    for path in EXAMPLE_SITES:
        try:
            data, _ = read_yaml(path)
            catalog = load_catalog()
        except (OSError, YamlError, InputError):
            continue
        if not isinstance(data, dict):
            continue
        found: dict[str, tuple[str, str]] = {}
        chosen = data["catalog"] if isinstance(data.get("catalog"), dict) else {}
        for kind, name in chosen.items():
            entry = (catalog.get(catalog_table(str(kind))) or {}).get(name) if isinstance(name, str) else None
            for key, raw in ((entry.get("values") if isinstance(entry, dict) else None) or {}).items():
                value, source = value_source(raw)
                found[key] = (written(value), f"{path.name}, catalog {kind} {name}: {source}")
        for section, body in data.items():
            if section in TOP_LEVEL or not isinstance(body, dict):
                continue
            for key, raw in body.items():
                value, source = value_source(raw)
                found[f"{section}.{key}"] = (written(value), f"{path.name}: {source}" if source else path.name)
        out = {**found, **out}
    return out


def value_source(raw: Any) -> tuple[Any, str]:
    return (raw.get("value"), one_line(raw.get("source") or "")) if isinstance(raw, dict) else (raw, "")


def written(raw: Any) -> str:
    """A value as a site file writes it: 1024, 0.075, 70000000000, 41 kW."""
    if isinstance(raw, float):
        return f"{raw:.12g}"
    return one_line(str(raw))
