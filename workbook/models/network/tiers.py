"""Leaf-spine(-core) sizing: one set of rules for the compute fabric, the storage network and the in-band network.

The rules (each line's note repeats the one it uses):
- A leaf puts ROUNDDOWN(radix x ratio / (1 + ratio)) ports down (half at 1:1) and the rest up; an in-band leaf
  gives its peer-link ports out of its ports down. A leaf with d ports down populated needs
  MIN(ports up, ROUNDUP(d / ratio)) uplinks: the site's down:up ratio (all its ports up when full at 1:1).
- Endpoints fill leaves in order: on each rail (or each side of a leaf pair) full leaves, then one part-filled
  leaf. One tier while a single switch (or leaf pair) holds every endpoint.
- Two tiers: every leaf has the same number of links p to every spine (the DGX SuperPOD rule), so a leaf wires
  s x p uplinks (s spines): at least the uplinks it needs, at most its ports up, and a spine takes p links from
  each of the L leaves, L x p <= radix. The spine count is the fewest s for which the fullest leaf's uplinks U,
  rounded up to a multiple of s, fit its ports up with p = ROUNDUP(U / s) <= ROUNDDOWN(radix / L). It is found by
  trying each candidate d = 1..D twice: as the spine count (valid when d >= ROUNDUP(U / ROUNDDOWN(radix / L)) and
  d x ROUNDUP(U / d) <= ports up) and as links per pair (then ROUNDUP(U / d) spines, valid when
  d <= ROUNDDOWN(radix / L) and the same product fits). Of an optimal s and its p one is at most D whenever
  U < (D + 1)^2, and the candidate it gives is then the optimum; a check says so. At 1:1 this is the textbook
  k/2 spines for k leaves, and the SuperPOD B200 counts (8 leaves -> 4 spines, 16 -> 8, 24 -> 16, 32 -> 16,
  64 -> 32; 31 uplinks of a 31-node unit spread over 4 spines as 8 each).
- Three tiers (spine groups): a group of spines serves up to `spine ports down` leaves, each leaf one link to
  each of the first `its uplinks` spines of its group, full leaves first. Groups of full leaves have as many
  spines as a full leaf has uplinks; the group where full leaves end may hold part-filled leaves too; groups of
  part-filled leaves only have as many spines as such a leaf has uplinks. A spine needs uplinks for the ports
  down it has populated, as a leaf does (MIN(spine ports up, ROUNDUP(populated / spine ratio))). The spines at
  one position in every group form a plane and reach only that plane's cores, so cores are rounded per plane:
  ROUNDUP(a plane's spine-core links / radix) for each (not the links of all planes pooled, whose cores could
  not take links from another plane's spines). At 1:1 this is the fat tree of Al-Fares et al. (k^3/4
  endpoints) and the SuperPOD B200's 16/32/64-SU counts (spines = leaves, cores = leaves / 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.formula.functions import all_, any_, ceil, flag, floor, max_, min_, not_, where
from workbook.formula.line import COUNT, Line


@dataclass(frozen=True)
class Ports:
    """One network's switch: its radix, how a leaf splits it, the ratio a leaf's uplinks keep, and (three tiers)
    how a spine splits it. `spine_ratio` None: non-blocking spines (one port up per populated port down)."""

    radix: Line
    down: Line
    up: Line
    ratio: Any
    spine_down: Line
    spine_up: Line
    spine_ratio: Any | None = None


@dataclass(frozen=True)
class Layout:
    """How a network's endpoints fill its leaves: `rails` side by side (a rail-optimised fabric's rails, a leaf
    pair's two sides; None: leaves filled in any order), `per_rail` endpoints on each; one tier when `fits`, with
    `alone` leaves."""

    endpoints: Line
    rails: Line | None
    per_rail: Line
    fits: Any
    alone: Any


@dataclass(frozen=True)
class Tiers:
    """The lines a leaf-spine(-core) network is sized into, for its links, transceivers and power."""

    leaves: Line
    tiers: Line
    spines: Line
    cores: Line
    leaf_spine: Line
    spine_core: Line


@dataclass(frozen=True)
class Counts:
    """A network's totals that the fabric's totals, the power chain and the bill of materials add up. Its
    transceivers' power in three parts by the box each sits in: the nodes (inside a node's power), the storage
    systems and servers (inside the storage and management power), the switches (the network racks)."""

    switches: Line
    cables: Line
    transceivers: Line
    single_mode: Line
    switch_power: Line
    node_optics: Line
    server_optics: Line | None  # None: the network has no storage system or server endpoints
    switch_optics: Line


class Net:
    """Adds one network's lines: the compute fabric (ids as they are) or another (ids `storage_...`, labels
    `Storage network: ...`), so that one set of rules sizes every network."""

    def __init__(self, s: SheetBuilder, key: str, name: str):
        self.s, self.key, self.name = s, key, name

    def calc(self, key: str, label: str, unit: str, formula: Any, note: str = "", fmt: str = COUNT) -> Line:
        label = f"{self.name}: {label}" if self.name else label[0].upper() + label[1:]
        return self.s.calc(self.key + key, label, unit, formula, note, fmt=fmt)

    def check(self, key: str, label: str, condition: Any, note: str = "") -> Line:
        label = f"{self.name}: {label}" if self.name else label[0].upper() + label[1:]
        return self.s.check(self.key + key, label, condition, note)


def down_ports(radix: Any, ratio: Any) -> Any:
    """Ports a leaf (or spine) puts down for a down:up ratio; the rest go up. Half of them at 1:1."""
    return floor(radix * ratio / (1 + ratio))


def search_size(radixes: list[float]) -> int:
    """The candidates the spine count search needs (a build-time choice, from the site's radixes): D with
    (D + 1)^2 > the most ports up a leaf can have (half the radix, at a ratio of at least 1)."""
    return max(1, math.isqrt(int(max(radixes) // 2)))


def candidates(s: SheetBuilder, count: int) -> list[Line]:
    """The candidates d = 1..count of the two-tier spine count search, shared by every network."""
    out = [s.calc("spine_candidate_1", "Spine search candidate 1", "count", 1,
                  f"1 to {count} = ROUNDDOWN((largest radix / 2)^0.5), set at build time: enough below (candidates "
                  "+ 1)^2 ports up", fmt=COUNT)]
    for d in range(2, count + 1):
        out.append(s.calc(f"spine_candidate_{d}", f"Spine search candidate {d}", "count", out[-1] + 1,
                          "the previous + 1", fmt=COUNT))
    return out


def _needed(up: Any, used: Any, ratio: Any) -> Any:
    """Uplinks a leaf with `used` ports down populated needs to keep the site's ratio: MIN(up, ROUNDUP(used /
    ratio)); the MIN keeps a ratio's rounding in floating point from asking one port more than the leaf has."""
    return min_(up, ceil(used / ratio))


def leaves(n: Net, ports: Ports, lay: Layout) -> tuple[Line, ...]:
    """Leaves filled in order: on each rail full leaves, then one part-filled leaf; the uplinks each needs."""
    down, up = ports.down, ports.up
    flat = lay.rails is None
    per = "endpoints" if flat else "endpoints per rail"
    full = n.calc("full_leaves", "full leaf switches (every port down used)", "switches",
                  floor(lay.per_rail / down) if flat else lay.rails * floor(lay.per_rail / down),
                  f"{'' if flat else 'rails x '}ROUNDDOWN({per} / leaf ports down)")
    rest = n.calc("partial_leaf_down_ports", "ports down used on a part-filled leaf", "count",
                  lay.per_rail - floor(lay.per_rail / down) * down, f"{per} - full leaves' ports down")
    partial = n.calc("partial_leaves", "part-filled leaf switches", "switches",
                     where(rest > 0, 1, 0) if flat else lay.rails * where(rest > 0, 1, 0),
                     f"one{'' if flat else ' per rail'} where ports down are left over")
    full_up = n.calc("full_leaf_up_ports", "uplinks a full leaf needs", "count", _needed(up, down, ports.ratio),
                     "MIN(ports up, ROUNDUP(ports down / leaf ratio)): the site's ratio")
    rest_up = n.calc("partial_leaf_up_ports", "uplinks a part-filled leaf needs", "count",
                     _needed(up, rest, ports.ratio), "MIN(ports up, ROUNDUP(ports down used / leaf ratio))")
    top_up = n.calc("fullest_leaf_up_ports", "uplinks the fullest leaf needs", "count",
                    where(full > 0, full_up, rest_up), "a full leaf's if there is one, else a part-filled leaf's")
    count = n.calc("leaves", "leaf switches", "switches", where(lay.fits, lay.alone, full + partial),
                   "one tier while every endpoint fits, else full + part-filled leaves")
    return full, partial, full_up, rest_up, top_up, count


def _two_tier_spines(n: Net, ports: Ports, count: Line, top_up: Line, search: list[Line]) -> tuple[Line, Line]:
    """The fewest spines s with every leaf the same links p to every spine: the search over the candidates."""
    k, up = ports.radix, ports.up
    cap = n.calc("leaf_spine_pair_cap", "most links a spine can give each leaf (two tiers)", "links",
                 max_(1, floor(k / max_(1, count))), "ROUNDDOWN(radix / leaves), at least 1")
    fewest = n.calc("fewest_spines", "fewest spines the spines' ports allow (two tiers)", "switches",
                    max_(1, ceil(top_up / cap)), "ROUNDUP(fullest leaf's uplinks / most links per pair), at least 1")
    best: Any = max_(1, top_up)  # one link per pair: always valid
    for i, d in enumerate(search, start=1):
        fits = d * ceil(top_up / d) <= up
        last = i == len(search)
        best = n.calc("spines_if_two_tiers" if last else f"spine_search_{i}",
                      "spine switches with two tiers: the fewest balanced ones" if last else
                      f"fewest balanced spines with candidates 1 to {i}", "switches",
                      min_(best, where(all_(fits, d >= fewest), d, best),
                           where(all_(fits, d <= cap), ceil(top_up / d), best)),
                      "MIN(U; d if d >= fewest spines, ROUNDUP(U / d) if d <= most links a pair; each if "
                      "d x ROUNDUP(U / d) <= ports up); U = fullest leaf's uplinks" if i == 1 else
                      "the search's result: the fewest spines that take the same links from every leaf" if last else
                      "as above, with the next candidate")
    two = best
    pair = n.calc("leaf_spine_pair_links", "links from the fullest leaf to each spine (two tiers)", "links",
                  ceil(top_up / two), "ROUNDUP(fullest leaf's uplinks / spines)")
    n.check("spine_search_covers", "the spine count search covers a leaf's ports up",
            (search[-1] + 1) ** 2 > up, "(last candidate + 1)^2 > leaf ports up: the fewest spines are found")
    return two, pair


def tiers(n: Net, ports: Ports, lay: Layout, search: list[Line]) -> Tiers:
    """Leaf, spine and core switches and the links between them, wired only where ports are populated."""
    k = ports.radix
    full, partial, full_up, rest_up, top_up, count = leaves(n, ports, lay)
    spine_tier = n.calc("spine_tier", "spine tier needed (1 = yes)", "flag", where(lay.fits, 0, 1),
                        "the endpoints do not fit one tier")
    core_tier = n.calc("core_tier", "core tier needed (1 = yes)", "flag", where(count > k, 1, 0),
                       "more leaves than a spine has ports")
    tier_count = n.calc("tiers", "tiers", "count", 1 + spine_tier + core_tier, "1 + spine tier + core tier")
    two, pair = _two_tier_spines(n, ports, count, top_up, search)
    three = tier_count.eq(3)
    groups = _three_tier_spines(n, ports, full, partial, full_up, rest_up, count, core_tier)
    spines = n.calc("spines", "spine switches", "switches", where(three, groups["spines"], spine_tier * two),
                    "three tiers: each group's (a full leaf's uplinks, else a part-filled leaf's); two tiers: the "
                    "search's")
    full_links = n.calc("full_leaf_links", "leaf-spine links of a full leaf", "links",
                        where(three, full_up, two * ceil(full_up / two)),
                        "three tiers: one per spine it uses; two tiers: spines x ROUNDUP(its uplinks / spines)")
    rest_links = n.calc("partial_leaf_links", "leaf-spine links of a part-filled leaf", "links",
                        where(three, rest_up, two * ceil(rest_up / two)),
                        "three tiers: one per spine it uses; two tiers: spines x ROUNDUP(its uplinks / spines)")
    leaf_spine = n.calc("leaf_spine_links", "leaf-spine links (cables)", "links",
                        spine_tier * (full * full_links + partial * rest_links),
                        "full leaves x their links + part-filled leaves x theirs; no spare uplinks wired")
    n.check("two_tier_balanced", "two tiers: a leaf's ports up take its links to every spine, and a spine's ports "
            "its links from every leaf", any_(not_(tier_count.eq(2)), all_(two * pair <= ports.up,
                                                                            count * pair <= k)),
            "spines x links per pair <= leaf ports up, and leaves x links per pair <= radix")
    low, high = groups["plane_links"]
    cores = n.calc("cores", "core switches", "switches",
                   rest_up * ceil(low / k) + (full_up - rest_up) * ceil(high / k),
                   "per core plane (the spines at one position in every group): the first (a part-filled leaf's "
                   "uplinks) planes x ROUNDUP(their links / radix) + the other planes x ROUNDUP(theirs / radix)")
    return Tiers(count, tier_count, spines, cores, leaf_spine, groups["spine_core"])


def _three_tier_spines(n: Net, ports: Ports, full: Line, partial: Line, full_up: Line, rest_up: Line,
                       count: Line, core: Line) -> dict[str, Line]:
    """Spine groups, full leaves first: groups of full leaves, the group where they end (maybe with part-filled
    leaves), groups of part-filled leaves only; each spine's uplinks for its populated ports down."""
    s_down, s_up, ratio = ports.spine_down, ports.spine_up, ports.spine_ratio
    needs = "n" if ratio is None else "MIN(spine ports up, ROUNDUP(n / spine ratio))"

    def up_for(used: Any) -> Any:
        return used if ratio is None else min_(s_up, ceil(used / ratio))

    n.calc("spine_groups", "spine groups (three tiers)", "count", core * ceil(count / s_down),
           "ROUNDUP(leaves / spine ports down): a group serves that many leaves")
    gf = n.calc("full_spine_groups", "spine groups of full leaves only (three tiers)", "count",
                core * floor(full / s_down), "ROUNDDOWN(full leaves / spine ports down)")
    fr = n.calc("mixed_group_full_leaves", "full leaves in the group where they end", "switches",
                core * (full - gf * s_down), "full leaves - those in full groups")
    qb = n.calc("mixed_group_partial_leaves", "part-filled leaves in that group", "switches",
                core * min_(partial, s_down - fr), "MIN(part-filled leaves, the group's room left)")
    gp = core * floor((partial - qb) / s_down)  # groups of part-filled leaves only, each full
    r = core * (partial - qb - gp * s_down)  # part-filled leaves in a last, partly used group
    spines = gf * full_up + max_(full_up * flag(fr > 0), rest_up * flag(qb > 0)) + (gp + flag(r > 0)) * rest_up
    full_spine = up_for(s_down)
    spine_core = n.calc(
        "spine_core_links", "spine-core links (cables)", "links",
        core * (gf * full_up * full_spine + rest_up * up_for(fr + qb) + (full_up - rest_up) * up_for(fr)
                + gp * rest_up * full_spine + rest_up * up_for(r)),
        f"each spine's uplinks for the n ports down it uses ({needs}): full groups, the mixed group (spines "
        "its part-filled leaves reach, the rest), part-filled groups, the last one")
    low = n.calc("core_plane_links_first", "spine-core links into each of the first core planes", "links",
                 core * (gf * full_spine + up_for(fr + qb) + gp * full_spine + up_for(r)),
                 "a plane the part-filled leaves' spines reach: its spine in every group, full or not")
    high = n.calc("core_plane_links_other", "spine-core links into each other core plane", "links",
                  core * (gf * full_spine + up_for(fr)), "a plane only full leaves' spines reach")
    return {"spines": spines, "spine_core": spine_core, "plane_links": (low, high)}


def uplink_transceivers(n: Net, name: str, net: Tiers, breakout: Any) -> tuple[Line, Line]:
    """Both ends of every switch-to-switch link sit in switch cages of `breakout` ports."""
    return tuple(  # type: ignore[return-value]
        n.s.calc(f"{n.key}{tier}_transceivers", f"{name} {label} transceivers (both ends)", "count",
                 2 * ceil(links / breakout), "2 x ROUNDUP(links / ports per cage)", fmt=COUNT)
        for tier, label, links in (("leaf_spine", "leaf-spine", net.leaf_spine),
                                   ("spine_core", "spine-core", net.spine_core)))


def at_power(count: Any, tier: Line, each: Any, single: Any) -> Any:
    """Power of `count` transceivers on a tier: the multimode power each, or the single-mode one where the tier's
    runs need single-mode (its flag is 1)."""
    return count * ((1 - tier) * each + tier * single)
