"""The `generation:` section of a site file: the next fleet, the hall's zones, the facility projects and the plans.

A generation upgrade has lists (zones, projects, plans of deliveries and decommissionings), so its keys are made
from the file: `zones: [{name: a, positions: 24, ...}]` gives the inputs `generation.zone_a_positions`, ...; each
is validated as any input (unit, range) and becomes a live input line. Which zone a rack goes to, and how many
entries a plan has, shape the workbook: they are structure, read from the file. The next fleet is a site file of
its own (power, fabric and cooling sections, no tco), beside this one, validated as a site is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from workbook.formula.echo import clip
from workbook.site.errors import InputError
from workbook.site.load import load_site
from workbook.site.spec import Site, Spec, Value, split_value
from workbook.site.templates import load_defaults, with_limits
from workbook.site.values import parse_value

NAME = re.compile(r"^[a-z][a-z0-9_]{0,11}$")  # a zone, project or plan name: part of ids and sheet titles
# A plan is a namespace of ids beside the fleets' (`next`) and the models': these names are taken.
RESERVED = frozenset({"move", "next", "current", "generation", "envelope", "power", "generator", "fabric", "cooling",
                      "tco", "summary", "checks", "scenario", "sensitivity", "units", "print", "plan"})
MAX_ZONES, MAX_PROJECTS, MAX_PLANS, MAX_ENTRIES = 8, 8, 3, 36
SECTION = "generation"
_COUNT = dict(integer=True, fmt="#,##0")
_KW = dict(unit="kW", expect="a power", example="1200 kW", lo=0.0, hi=1e6)

# field: (label, spec keyword arguments). A project adds to a zone's capacities the same fields (but old_racks).
ZONE_FIELDS: dict[str, tuple[str, dict[str, Any]]] = {
    "positions": ("rack positions", dict(unit="racks", expect="a count", example="24", lo=0, hi=10_000, **_COUNT)),
    "feed": ("power the zone can draw (IT)", _KW),
    "kw_per_position": ("power one rack position can take", dict(_KW, example="45 kW", hi=1000.0)),
    "air_cooling": ("air cooling capacity (heat to air)", _KW),
    "liquid_cooling": ("liquid cooling capacity (heat to liquid)", _KW),
    "floor_rating": ("floor loading rating", dict(unit="kg/m²", expect="a floor loading", example="1200 kg/m^2",
                                                  lo=0.0, hi=100_000.0)),
    "support_racks": ("network, storage and management racks of the current fleet",
                      dict(unit="racks", expect="a count", example="7", lo=0, hi=10_000, **_COUNT)),
    "old_racks": ("compute racks of the current fleet at the start",
                  dict(unit="racks", expect="a count", example="16", lo=0, hi=10_000, **_COUNT)),
}
_MONTH_NO = dict(unit="month no.", expect="a month of the timeline", lo=0, hi=600, **_COUNT)
PROJECT_FIELDS: dict[str, tuple[str, dict[str, Any]]] = {
    "cost": ("cost", dict(unit="USD", expect="an amount of money", example="2500000 USD", lo=0.0, fmt="#,##0")),
    "done_month": ("month it is done (capacity added from then)", dict(_MONTH_NO, example="6")),
    "stop_months": ("months the zone stops before it is done (0: no stop)",
                    dict(unit="no. of months", expect="a number of months", example="2", lo=0, hi=600, **_COUNT)),
}
# What a project does beside adding to its zone's capacities (each optional: 0, nothing, when not given).
_BLOCKS = dict(unit="blocks", expect="a count of blocks", example="1", lo=0, hi=100, **_COUNT)
PROJECT_EXTRA_FIELDS: dict[str, tuple[str, dict[str, Any]]] = {
    "converted_positions": ("of the zone's own rack positions, how many it brings to its power per position",
                            dict(unit="racks", expect="a count", example="4", lo=0, hi=10_000, **_COUNT)),
    "contracted_feed": ("contracted feed it adds for the whole hall (facility power)", dict(_KW, example="800 kW")),
    "transformer_blocks": ("transformer blocks it adds (of the power chain's rating)", _BLOCKS),
    "ups_blocks": ("UPS blocks it adds (of the power chain's rating)", _BLOCKS),
    "heat_rejection": ("heat rejection it adds for the whole hall (chillers, dry coolers)",
                       dict(_KW, example="900 kW")),
}
# A project's positions (those it adds and those it converts) take its own power per position, not the zone's
# plus it: a zone of 41 kW positions and a project of 70 kW positions hold 57.2 kW racks only in the latter.
PROJECT_KW_PER_POSITION = "power each of its positions can take (those it adds and those it converts)"
ENTRY_FIELDS: dict[str, tuple[str, dict[str, Any]]] = {
    "month": ("month", dict(_MONTH_NO, example="7", lo=1)),
    "racks": ("compute racks", dict(unit="racks", expect="a count", example="4", lo=1, hi=10_000, **_COUNT)),
}
SCALARS = with_limits([
    Spec("generation.new_rack_price", "Price of a compute rack of the next fleet, installed", "USD",
         "an amount of money", "1500000 USD", lo=0.0, fmt="#,##0"),
    Spec("generation.old_rack_value", "Value of a decommissioned rack of the current fleet (resale, or its value "
         "kept for inference; 0 to retire it)", "USD", "an amount of money", "150000 USD", fmt="#,##0"),
    Spec("generation.move_capex_per_mw", "Moving instead: the second site's capex per MW of critical IT",
         "USD/MW", "money per MW", "12000000 USD/MW", lo=0.0, fmt="#,##0"),
    Spec("generation.move_lead_time", "Moving instead: months until the second site takes the next fleet",
         "no. of months", "a number of months", "12", lo=1, hi=600, integer=True, fmt="#,##0"),
    Spec("generation.move_running_cost", "Moving instead: the second site's rent (colocation) or running costs "
         "(an owned hall's maintenance) per kW-month of its critical IT", "USD/kW-month", "a price per kW-month",
         "18.33 USD/kW/month", lo=0.0, fmt="#,##0.00"),
    Spec("generation.move_staff_fte", "Moving instead: operations staff at the second site (each at the TCO's "
         "cost per FTE)", "FTE", "a head count", "3", lo=0.0, fmt="#,##0.0"),
    Spec("generation.burn_in_months", "Months a delivered rack burns in before it computes for the plan",
         "no. of months", "a number of months", "1", lo=0, hi=24, integer=True, fmt="#,##0"),
    Spec("generation.facility_life", "Depreciation life of the second site and of the facility projects (their "
         "value kept at the end of the timeline)", "months", "a duration", "20 years", lo=12, hi=720, integer=True,
         fmt="#,##0"),
])


@dataclass(frozen=True)
class Entry:
    """A delivery or decommissioning of a plan: its inputs' keys (month, racks) and its zone (structure)."""

    key: str  # "staged_swap_delivery_1": inputs generation.<key>_month and _racks
    zone: str


@dataclass
class Upgrade:
    """What the file says about the upgrade: the next fleet's site, the names (structure) and every input."""

    next_site: Site
    zones: list[str]
    projects: dict[str, str]  # project -> its zone
    plans: dict[str, tuple[list[Entry], list[Entry]]]  # plan -> (deliveries, decommissionings)
    specs: list[Spec] = field(default_factory=list)
    values: dict[str, Value] = field(default_factory=dict)  # each spec's value, validated: the site's values beside


def load_upgrade(site: Site, fleet_specs: list[Spec], fleet_rules: list[Any]) -> Upgrade | None:
    """The upgrade the site file describes (its next fleet's file read and validated, its inputs in `values`, the
    site left as it was); None without `generation:`. Raises InputError naming the file and the key."""
    raw = site.generation
    if raw is None:
        return None
    place = dict(file=site.path)
    if not isinstance(raw, dict):
        raise InputError("is not a mapping", key=SECTION, value=raw, expected="next_fleet:, zones:, projects:, "
                         "plans: and the prices of the upgrade", **place)
    known = {"next_fleet", "zones", "projects", "plans", *(s.key.split(".")[1] for s in SCALARS)}
    for k in raw:
        if k not in known:
            raise InputError("unknown key", key=clip(f"{SECTION}.{k}"), expected=f"one of {', '.join(sorted(known))}",
                             **place)
    up = Upgrade(_next_site(site, raw.get("next_fleet"), fleet_specs, fleet_rules), [], {}, {})
    for spec in SCALARS:
        _add(site, up, spec, raw.get(spec.key.split(".")[1], _MISSING))
    _zones(site, up, raw.get("zones", _MISSING))
    _projects(site, up, raw.get("projects", []))
    _plans(site, up, raw.get("plans", _MISSING))
    return up


_MISSING: Any = object()


def fleet_name(name: Any) -> bool:
    """Whether `name` may name a next fleet's file: a .yaml file name in the site's folder or below it (as written:
    _next_site resolves links before it holds the file to the rule)."""
    return (isinstance(name, str) and ".." not in name and not name.startswith("/")
            and bool(re.fullmatch(r"[A-Za-z0-9_./-]{1,200}\.ya?ml", name)))


def _next_site(site: Site, name: Any, specs: list[Spec], rules: list[Any]) -> Site:
    """The next fleet's site file, beside this one."""
    key = f"{SECTION}.next_fleet"
    expected = "a site file beside this one (power:, fabric:, cooling:), e.g. fleets/b200.yaml"
    if name is _MISSING or name is None:
        raise InputError("is missing", file=site.path, key=key, expected=expected)
    if not fleet_name(name):
        raise InputError("is not a .yaml file name in this folder or below it", file=site.path, key=key, value=name,
                         expected=expected)
    folder = site.path.parent.resolve()
    path = (folder / name).resolve()  # every link resolved before the rule: a linked folder or file counts where it is
    if not path.is_relative_to(folder):
        raise InputError("leads outside this folder (a link to a folder or file elsewhere)", file=site.path, key=key,
                         value=name, expected=expected)
    if not path.is_file() or path == site.path.resolve():
        raise InputError("is not a site file beside this one", file=site.path, key=key, value=name,
                         expected=expected)
    nxt = load_site(site.path.parent / name, specs, rules=rules)
    if nxt.generation is not None:
        raise InputError("has a generation: section of its own (one upgrade at a time)", file=path, key=SECTION)
    if nxt.risk is not None:
        raise InputError("has a risk: section of its own (the risk varies the site's decision: give it in the site "
                         "file)", file=path, key="risk")
    return nxt


def _add(site: Site, up: Upgrade, spec: Spec, raw: Any) -> None:
    """One input: validated as any input, added to the upgrade's values and specs; a key the file leaves out takes
    its default (templates/defaults.yaml) where it has one."""
    if raw is _MISSING and spec.key in load_defaults():
        value, source = load_defaults()[spec.key]
        raw = {"value": value, "source": f"default: {source}"}
    if raw is _MISSING:
        raise InputError("is missing", file=site.path, key=spec.key, expected=f"{spec.expect}, e.g. {spec.example}")
    try:
        value, source = split_value(raw)
    except InputError as e:
        raise e.located(file=site.path, key=spec.key) from None
    up.values[spec.key] = Value(parse_value(value, spec, site.path, spec.key), str(value),
                                  source or f"site file {site.path.name}")
    up.specs.append(spec)


def _spec(key: str, label: str, kwargs: dict[str, Any]) -> Spec:
    args = dict(kwargs)
    return Spec(f"{SECTION}.{key}", label, args.pop("unit"), args.pop("expect"), args.pop("example"), **args)


def _items(site: Site, raw: Any, key: str, most: int, least: int = 0) -> list[dict[str, Any]]:
    """A list of mappings each with a `name` (or a plan's entries), within its size limits."""
    if raw is _MISSING and least:
        raise InputError("is missing", file=site.path, key=f"{SECTION}.{key}", expected=f"a list of {key}")
    if not isinstance(raw, list) or not least <= len(raw) <= most:
        raise InputError(f"is not a list of {least} to {most} mappings", file=site.path, key=f"{SECTION}.{key}",
                         value=raw, expected=f"a list of {key}: - {{name: ..., ...}}")
    for k, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise InputError("is not a mapping", file=site.path, key=f"{SECTION}.{key}[{k}]", value=item)
    return raw


def _name(site: Site, item: dict[str, Any], where: str, taken: list[str]) -> str:
    name = item.get("name")
    if not isinstance(name, str) or not NAME.match(name) or name in taken:
        raise InputError("is not a new name of 1 to 12 lower-case letters, digits or _, starting with a letter",
                         file=site.path, key=f"{SECTION}.{where}.name", value=name)
    return name


def _fields(site: Site, up: Upgrade, item: dict[str, Any], where: str, key: str,
            fields: dict[str, tuple[str, dict[str, Any]]], label: str, optional: bool = False) -> None:
    extra = set(item) - set(fields) - {"name", "zone"}
    if extra:
        raise InputError("unknown field", file=site.path, key=clip(f"{SECTION}.{where}.{sorted(map(str, extra))[0]}"),
                         expected=f"one of {', '.join(fields)}")
    for f, (what, kwargs) in fields.items():
        if f not in item and optional:  # a project that adds nothing of this: 0 in the field's unit
            item = {**item, f: {"value": 0 if kwargs.get("integer") else f"0 {kwargs['unit']}",
                                "source": "not given: adds nothing"}}
        spec = _spec(f"{key}_{f}", f"{label}: {what}", kwargs)
        _add(site, up, spec, item.get(f, _MISSING))


def _zones(site: Site, up: Upgrade, raw: Any) -> None:
    for k, item in enumerate(_items(site, raw, "zones", MAX_ZONES, least=1), start=1):
        name = _name(site, item, f"zones[{k}]", up.zones)
        up.zones.append(name)
        _fields(site, up, item, f"zones[{k}]", f"zone_{name}", ZONE_FIELDS, f"Zone {name}")


def _zone_of(site: Site, item: dict[str, Any], where: str, zones: list[str]) -> str:
    zone = item.get("zone")
    if zone not in zones:
        raise InputError("is not one of the zones", file=site.path, key=f"{SECTION}.{where}.zone", value=zone,
                         expected=f"one of {', '.join(zones)}")
    return str(zone)


def _project_fields() -> dict[str, tuple[str, dict[str, Any]]]:
    """What a project may add: to its zone's capacities (its positions at its own power per position), then
    to the hall's plant."""
    adds = {f: (PROJECT_KW_PER_POSITION if f == "kw_per_position" else f"adds {what}", kw)
            for f, (what, kw) in ZONE_FIELDS.items() if f not in ("old_racks", "support_racks")}
    return {**adds, **PROJECT_EXTRA_FIELDS}


def _projects(site: Site, up: Upgrade, raw: Any) -> None:
    adds = _project_fields()
    for k, item in enumerate(_items(site, raw, "projects", MAX_PROJECTS), start=1):
        name = _name(site, item, f"projects[{k}]", list(up.projects) + up.zones)
        up.projects[name] = _zone_of(site, item, f"projects[{k}]", up.zones)
        _fields(site, up, {x: item[x] for x in item if x in PROJECT_FIELDS or x in ("name", "zone")},
                f"projects[{k}]", f"project_{name}", PROJECT_FIELDS, f"Project {name}")
        rest = {x: item[x] for x in item if x not in PROJECT_FIELDS}
        if ("positions" in rest or "converted_positions" in rest) and "kw_per_position" not in rest:
            raise InputError("is missing: a project that adds or converts rack positions gives the power each can "
                             "take", file=site.path, key=f"{SECTION}.project_{name}_kw_per_position",
                             expected="a power, e.g. 70 kW")
        _fields(site, up, rest, f"projects[{k}]", f"project_{name}", adds, f"Project {name}", optional=True)


def _plans(site: Site, up: Upgrade, raw: Any) -> None:
    if not isinstance(raw, dict) or not 1 <= len(raw) <= MAX_PLANS:
        raise InputError(f"is not a mapping of 1 to {MAX_PLANS} plans", file=site.path, key=f"{SECTION}.plans",
                         value=None if raw is _MISSING else raw,
                         expected="plans: {staged_swap: {deliveries: [...], decommissions: [...]}}")
    for plan, body in raw.items():
        if not isinstance(plan, str) or not NAME.match(plan) or plan in up.zones or plan in up.projects:
            raise InputError("is not a new name of 1 to 12 lower-case letters, digits or _", file=site.path,
                             key=clip(f"{SECTION}.plans.{plan}"))
        if plan in RESERVED:
            raise InputError("is a name the workbook uses already", file=site.path, key=f"{SECTION}.plans.{plan}",
                             expected=f"a plan name other than {', '.join(sorted(RESERVED))}")
        if not isinstance(body, dict) or set(body) - {"deliveries", "decommissions"}:
            raise InputError("is not a mapping of deliveries: and decommissions:", file=site.path,
                             key=f"{SECTION}.plans.{plan}", value=body)
        lists = []
        for kind, word in (("deliveries", "delivery"), ("decommissions", "decommissioning")):
            entries = []
            where = f"plans.{plan}.{kind}"
            for k, item in enumerate(_items(site, body.get(kind, []), where, MAX_ENTRIES), start=1):
                zone = _zone_of(site, item, f"{where}[{k}]", up.zones)
                key = f"{plan}_{kind[:3]}_{k}"
                _fields(site, up, item, f"{where}[{k}]", key, ENTRY_FIELDS, f"Plan {plan}: {word} {k} (zone {zone})")
                entries.append(Entry(key, zone))
            lists.append(entries)
        up.plans[plan] = (lists[0], lists[1])

