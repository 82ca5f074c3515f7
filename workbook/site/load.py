"""Site YAML -> validated quantities, with one-line errors that name the file, the key, the value and the unit.

A site file has a `site:` name, an optional `catalog:` choice of hardware (whose values become defaults, each
with its source), and one section per model (`power:`, ...) of `key: value` pairs. A value is a number, a
quantity as text (`700 W`, `0.08 USD/kWh`, `30 degC`), a word for a choice, or `{value: ..., source: ...}`.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path
from typing import Any

from workbook.formula.echo import clip, echo
from workbook.site.errors import InputError, Where, did_you_mean, one_line, raise_all
from workbook.site.examples import example_for
from workbook.site.rules import AIR_COOLED, air_cooled, broken_rules
from workbook.site.spec import TOP_LEVEL, Rule, Site, Spec, Value, hidden, split_value
from workbook.site.templates import (
    CATALOG_PATH,
    DEFAULTS_PATH,
    catalog_defaults,
    catalog_parts,
    load_catalog,
    load_defaults,
    read_input_yaml,
)
from workbook.site.values import expected_unit, expected_value, parse_value

MAX_NAME = 100  # characters of a site name: it titles every sheet and the file's properties
MAX_SCENARIOS = 20  # each clones the lines its changes reach: more would not be read, and slow every build


def load_site(path: Path | str, specs: list[Spec], catalog_path: Path = CATALOG_PATH,
              rules: list[Rule] | tuple[Rule, ...] = ()) -> Site:
    """Read and validate a site file against the specs and cross-key rules of every model. Every problem is
    found in one read: raises the InputError of a single problem, or InputErrors naming them all (a file that
    cannot be read as YAML, or is not a mapping, is one problem)."""
    site, problems = read_site(path, specs, catalog_path, rules)
    raise_all(problems)
    assert site is not None
    return site


def read_site(path: Path | str, specs: list[Spec], catalog_path: Path = CATALOG_PATH,
              rules: list[Rule] | tuple[Rule, ...] = ()) -> tuple[Site | None, list[InputError]]:
    """The site as far as it reads, and every problem of it (its scenarios' keys, values and rules among them), so
    a caller can add the problems of what it reads next (the risk: section) and report all at once. The site is
    None where the file is no mapping."""
    path = Path(path)
    data, raw_bytes = read_input_yaml(path)
    if not isinstance(data, dict):
        return None, [InputError("is not a mapping", file=path,
                                 expected="a mapping with site:, catalog: and one section per model")]
    problems: list[InputError] = []
    by_key = {s.key: s for s in specs}
    given, faulty = _given(data, path, by_key, problems)
    name = _site_name(data, path, problems)
    catalog = load_catalog(catalog_path) if data.get("catalog") is not None else {}  # read once a build
    defaults, unresolved = catalog_defaults(data.get("catalog"), path, catalog_path, catalog, problems)
    unresolved |= faulty
    values = _resolve(specs, by_key, given, defaults, unresolved, path, bool(data.get("catalog")), problems,
                      {str(k) for k in data})
    problems.extend(broken_rules(path, values, rules))
    given_scenarios, description = _scenarios(data, path, problems), _description(data, path, problems)
    scenarios, wrong = read_scenarios(path, given_scenarios, values, by_key, rules, {e.key for e in problems})
    problems.extend(wrong)
    parts = catalog_parts(data.get("catalog"), catalog)
    chosen = data["catalog"] if isinstance(data.get("catalog"), dict) else {}  # anything else is reported above
    models = {str(kind): str(entry) for kind, entry in chosen.items() if str(kind) in parts}
    site = Site(path, name, description, values, hashlib.sha256(raw_bytes).hexdigest(), scenarios,
                data.get("generation"), parts, data.get("quotes"), data.get("risk"), models)
    return site, problems


SCENARIO_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


def read_scenarios(path: Path, scenarios: dict[Any, Any], values: dict[str, Value], by_key: dict[str, Spec],
                   rules: list[Rule] | tuple[Rule, ...], refused: set[str | None] = frozenset(),
                   ) -> tuple[dict[str, dict[str, Value]], list[InputError]]:
    """Each scenario's changes read as values (name -> key -> Value), and every problem of them, found with the
    file's others: a name that is no name, a change that is no mapping, a key that is no live input of this site
    (with the one meant), a value its input refuses, a rule between keys it breaks (with the base values of the keys
    it does not change). A key whose base value is `refused` has been said once: a scenario's change of it is not
    said again as no live input. A scenario with a problem is left out of the values."""
    live = [k for k in values if k in by_key and not (by_key[k].choices or by_key[k].structural or by_key[k].text)]
    out: list[InputError] = []
    read: dict[str, dict[str, Value]] = {}
    for name, changes in scenarios.items():
        where = f"{path}: scenarios.{clip(name)}"
        if not isinstance(name, str) or not SCENARIO_NAME.match(name):
            out.append(InputError(f"{echo(name)} is not a scenario name", file=path, key="scenarios",
                                  expected="lowercase letters, digits and _, e.g. low_utilisation"))
            continue
        if not isinstance(changes, dict) or not changes:
            out.append(InputError("is empty" if isinstance(changes, dict) else "is not a mapping", file=path,
                                  key=f"scenarios.{name}", value=changes, scenario=name,
                                  expected="a mapping of input key to value, e.g. tco.utilisation: 0.4"))
            continue
        found, whole = len(out), True
        changed = dict(values)
        for key, raw in changes.items():
            if key in refused:  # said of the base case: the site is refused, and this scenario not read
                whole = False
                continue
            if key not in live:
                out.append(InputError(f"not a live input of this site{did_you_mean(str(key), live)}", file=path,
                                      where=where, key=clip(key), scenario=name))
                continue
            try:
                value, source = split_value(raw)
                changed[key] = Value(parse_value(value, by_key[key], where, key), clip(value), source)
            except InputError as e:
                out.append(e.located(file=path, where=where, key=key, scenario=name))
        out.extend(broken_rules(where, changed, [r for r in rules if r[0] in changes or r[2] in changes]))
        if whole and len(out) == found:
            read[name] = {key: changed[key] for key in changes}
    return read, out


def _given(data: dict[Any, Any], path: Path, by_key: dict[str, Spec],
           problems: list[InputError]) -> tuple[dict[str, tuple[Any, str]], set[str]]:
    """The values the file gives, each with its source; unknown sections and keys are problems. Also the keys
    given in a form at fault (a misspelt section's keys under the section meant): not reported missing too."""
    sections = sorted({k.split(".")[0] for k in by_key})
    given: dict[str, tuple[Any, str]] = {}
    faulty: set[str] = set()
    for top, body in data.items():
        if top in TOP_LEVEL:
            continue
        if top not in sections:
            meant = difflib.get_close_matches(str(top), sections, n=1, cutoff=0.6)
            faulty |= {f"{meant[0]}.{k}" for k in body} if meant and isinstance(body, dict) else set()
            problems.append(InputError(f"unknown section{did_you_mean(str(top), sections + sorted(TOP_LEVEL))}",
                                       file=path, key=clip(top), expected=f"one of the sections {', '.join(sections)}"))
            continue
        if not isinstance(body, dict):
            if body is not None:  # an empty section (every key commented out) gives nothing
                faulty |= {k for k in by_key if k.startswith(f"{top}.")}
                problems.append(InputError("is not a mapping", file=path, key=top, value=body,
                                           expected=f"a mapping of key: value under {top}:"))
            continue
        for k, raw in body.items():
            key = f"{top}.{k}"
            if key not in by_key:
                problems.append(InputError(f"unknown key{did_you_mean(key, list(by_key))}", file=path, key=clip(key),
                                           value=raw))
                faulty |= set(difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.6))  # the key meant
                continue
            try:
                value, source = split_value(raw)
            except InputError as e:
                problems.append(e.located(file=path, key=key))
                faulty.add(key)
                continue
            given[key] = (value, source or f"site file {path.name}")
    return given, faulty


def _site_name(data: dict[Any, Any], path: Path, problems: list[InputError]) -> str:
    name = data.get("site")
    unseen = hidden(one_line(name)) if isinstance(name, str) else None  # whitespace folds as ever
    if isinstance(name, str) and name.strip() and len(name.strip()) <= MAX_NAME and unseen is None:
        return name.strip()
    expected = f"the site's name as text of at most {MAX_NAME} characters, e.g. site: Example colo"
    if "site" not in data:
        problems.append(InputError("is missing", file=path, key="site", expected=expected))
    else:
        problem = ("is not text" if not isinstance(name, str) else "is empty" if not name.strip()
                   else unseen if unseen is not None
                   else f"is longer than {MAX_NAME} characters")
        problems.append(InputError(problem, file=path, key="site", value=name, expected=expected))
    return ""


def _resolve(specs: list[Spec], by_key: dict[str, Spec], given: dict[str, tuple[Any, str]],
             defaults: dict[str, tuple[Any, str, Where]], unresolved: set[str], path: Path, has_catalog: bool,
             problems: list[InputError], sections: set[str]) -> dict[str, Value]:
    """Each key's value: the file's, else its catalog entry's, else the tool's default. A key another (choice)
    key does not switch on is left out, and so is a key of an optional model whose section the file has not
    (`sections`: the file's top-level keys); a key whose value cannot be known (its choice or its catalog entry is
    at fault, itself a problem) is neither missing nor parsed."""
    tool_defaults = load_defaults()
    values: dict[str, Value] = {}
    unknown = set(unresolved)  # keys at fault: what depends on them is not judged
    found: list[InputError] = []  # reported in the models' order of keys, as the init skeleton lists them
    # Choices first (those that apply always, then those that depend on another): they decide which keys apply.
    for spec in sorted(specs, key=lambda s: (not s.choices, s.when is not None)):
        if spec.section_optional and spec.key.split(".")[0] not in sections:
            continue
        if spec.when is not None:
            other, wanted = spec.when
            if other in unknown and other not in values:
                unknown.add(spec.key)
                continue
            # a choice of a model this file has no section for (a fleet file has no reliability:) restricts nothing
            if other in by_key and (other not in values or values[other].magnitude != wanted):
                if spec.key in given:
                    now = values[other].magnitude if other in values else "not used here"
                    found.append(InputError(f"only used when {other} is {wanted} (it is {now}); remove it or "
                                            f"change {other}", file=path, key=spec.key, value=given[spec.key][0]))
                continue
        origin: Where
        if spec.key in given:
            (raw, source), origin = given[spec.key], path
        elif spec.key in defaults:
            raw, source, origin = defaults[spec.key]
        elif spec.key in tool_defaults:
            raw, source = tool_defaults[spec.key]
            origin, source = (DEFAULTS_PATH, f"{DEFAULTS_PATH.name} {spec.key}"), f"default: {source}"
        elif spec.liquid and air_cooled(lambda k: next((d[k][0] for d in (given, defaults, tool_defaults)
                                                        if k in d), None)):
            raw, source = example_for(spec)[0], AIR_COOLED
            origin = (DEFAULTS_PATH, f"{spec.key}: {AIR_COOLED}")
        else:
            if not spec.optional and spec.key not in unknown:
                hint = " (not in the site file nor in its catalog entries)" if has_catalog else ""
                found.append(InputError(f"is missing{hint}", file=path, key=spec.key,
                                        expected=expected_value(spec), unit=expected_unit(spec)))
            unknown.add(spec.key)
            continue
        try:
            if raw is None and origin == path:
                raise InputError("has no value", file=path, key=spec.key, expected=expected_value(spec),
                                 unit=expected_unit(spec))
            values[spec.key] = Value(parse_value(raw, spec, origin, spec.key), one_line(str(raw)), source)
        except InputError as e:
            found.append(e)
            unknown.add(spec.key)
    order = {spec.key: n for n, spec in enumerate(specs)}
    problems.extend(sorted(found, key=lambda e: order.get(e.key or "", len(order))))
    return values


def _scenarios(data: dict[Any, Any], path: Path, problems: list[InputError]) -> dict[str, Any]:
    scenarios = data.get("scenarios") or {}
    if not isinstance(scenarios, dict):
        problems.append(InputError("is not a mapping", file=path, key="scenarios", value=scenarios,
                                   expected="a mapping of scenario name to changed inputs"))
        return {}
    if len(scenarios) > MAX_SCENARIOS:
        problems.append(InputError(f"has {len(scenarios)} scenarios", file=path, key="scenarios",
                                   expected=f"at most {MAX_SCENARIOS}"))
    return scenarios


def _description(data: dict[Any, Any], path: Path, problems: list[InputError]) -> str:
    description = data.get("description", "")
    if not isinstance(description, str | None):
        problems.append(InputError("is not text", file=path, key="description", value=description, expected="text"))
        return ""
    text = one_line(description or "")
    problem = hidden(text)
    if problem is not None:
        problems.append(InputError(problem, file=path, key="description", value=description, expected="plain text"))
        return ""
    return text
