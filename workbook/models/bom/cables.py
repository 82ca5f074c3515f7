"""Cables by length class: how many of each tier's links are short, medium and long, from the hall's layout.

The rule (stated on the BOM sheet's length-class table):
- A link's run is the distance from its rack to the network racks, plus the slack (rise, drop, routing), as the
  Fabric sheet measures the longest one. Racks stand evenly over the hall, so the distance is spread evenly over
  each direction it runs in: along a row (0 to a row's length, or to half of it to the row's middle) and across
  the rows (0 to the hall's depth, or half of it to a middle network row).
- A tier whose runs go one way (end-of-row leaves along the row; spines at the hall's end across the rows; the
  middle network row's leaf-spine and spine-core links along it) has its runs spread evenly from the slack to the
  longest run; a middle network row's host-leaf runs go both ways (across half the rows and along half a row), so
  their spread is that of the sum of two even spreads: the share of runs up to a length t is
  (g(u) - g(u - a) - g(u - b) + g(u - a - b)) / (2ab), u = t - slack, g(x) = MAX(x, 0)^2, a and b the two spans.
- Three classes per tier: class k is the run at k/3 of the way from the slack to the longest run, rounded up to
  the cable length step; class 3 is the longest run rounded up (the one class of before). Cables up to class k =
  ROUNDUP(links x share of runs up to it); class 3 holds every link, so each tier's classes add up to its links
  and the BOM's cables still tie out with the Fabric sheet's count. Two classes that round to the same length
  leave the second empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Grid, GridColumn
from workbook.formula.expr import Const
from workbook.formula.functions import ceil, max_, min_, where
from workbook.formula.line import COUNT, Line
from workbook.models.network.fabric import FabricOut

CLASSES = 3  # length classes per tier: short, medium, long (k/3 of the way to the longest run)
SHARE = "0.0%"

# in the BOM grid's column widths (the sheet's grids share them): line, label, how, links, share, length
TABLE_COLUMNS = [GridColumn("Line", 26), GridColumn("Tier and class", 30, wrap=True),
                 GridColumn("How the count is made", 36, wrap=True), GridColumn("Links up to this class", 10),
                 GridColumn("Share of runs up to it", 9), GridColumn("Length class (m)", 9)]
TABLE_NOTE = ("Cable runs by length class: racks stand evenly over the hall, so each tier's runs spread from the "
              "slack (a rack beside the network racks) to the Fabric sheet's longest run; class k is the run k/3 of "
              "the way, rounded up to the length step; the cables up to a class are ROUNDUP(links x the share of "
              "runs up to it), and the last class holds every link (the tie-out with the Fabric's cable count).")


@dataclass(frozen=True)
class Tier:
    """One tier's cable runs: its key and label, its links, its single-mode flag, its longest run and how its runs
    spread (one span, or two for runs that go both along and across the rows)."""

    key: str
    label: str
    links: Any
    single_mode: Line
    longest: Line
    spans: tuple[Any, ...]


def tiers(f: FabricOut, centre: bool) -> list[Tier]:
    """The fabric's cable tiers with the spans their runs spread over (the layout's: see the module's rule)."""
    row, depth = f.row_length, f.hall_depth
    host = (depth / 2, row / 2) if centre else (row,)
    up = (row,) if centre else (depth,)
    flags = (f.node_leaf_single_mode, f.leaf_spine_single_mode, f.spine_core_single_mode)  # storage: by the runs
    cf = (f.compute_node_leaf_single_mode, f.compute_leaf_spine_single_mode, f.compute_spine_core_single_mode)
    ib = (f.inband_node_leaf_single_mode, f.inband_leaf_spine_single_mode, f.inband_spine_core_single_mode)
    runs = (f.node_leaf_run, f.leaf_spine_run, f.spine_core_run)
    return [
        Tier("node_leaf", "Host-leaf cables", f.node_leaf_links, cf[0], runs[0], host),
        Tier("leaf_spine", "Leaf-spine cables", f.leaf_spine_links, cf[1], runs[1], up),
        Tier("spine_core", "Spine-core cables", f.spine_core_links, cf[2], runs[2], up),
        Tier("storage_endpoint", "Storage endpoint cables", f.storage_endpoints, flags[0], runs[0], host),
        Tier("storage_leaf_spine", "Storage leaf-spine cables", f.storage_leaf_spine_links, flags[1], runs[1], up),
        Tier("storage_spine_core", "Storage spine-core cables", f.storage_spine_core_links, flags[2], runs[2], up),
        Tier("inband_endpoint", "In-band endpoint cables (site uplinks included)", f.inband_endpoints, ib[0],
             runs[0], host),
        Tier("inband_leaf_spine", "In-band leaf-spine cables", f.inband_leaf_spine_links, ib[1], runs[1], up),
        Tier("inband_spine_core", "In-band spine-core cables", f.inband_spine_core_links, ib[2], runs[2], up),
    ]


def share_up_to(t: Any, slack: Any, longest: Any, spans: tuple[Any, ...]) -> Any:
    """The share of a tier's runs no longer than t (see the module's rule)."""
    u = t - slack
    if len(spans) == 1:
        even = min_(1, max_(0, u / (longest - slack)))
        return where(longest > slack, even, 1)
    a, b = spans

    def g(x: Any) -> Any:
        return max_(x, 0) ** 2

    both = min_(1, (g(u) - g(u - a) - g(u - b) + g(u - a - b)) / (2 * a * b))
    return where(a > Const(0, "m"), both, min_(1, max_(0, u / b)))


@dataclass(frozen=True)
class Classes:
    """One tier's classes: the length of each and the links in it (a node: the difference of two lines)."""

    lengths: list[Line]
    counts: list[Any]


def length_classes(s: SheetBuilder, tier: Tier, slack: Line, step: Line, grid: Grid) -> Classes:
    """A tier's three length classes and the links up to each, as rows of the length-class table."""
    lengths, up_to = [], []
    spread = "along and across the rows" if len(tier.spans) == 2 else "one way"
    for k in range(1, CLASSES + 1):
        edge = slack + (tier.longest - slack) * k / CLASSES
        name = f"{tier.label}, class {k} of {CLASSES}"
        length = s.calc(f"{tier.key}_class_{k}_length", f"{name}: length", "m", ceil(edge / step) * step,
                        f"ROUNDUP((slack + (longest run - slack) x {k}/{CLASSES}) / step) x step", fmt="#,##0")
        if k < CLASSES:
            share = s.calc(f"{tier.key}_class_{k}_share", f"{name}: share of runs up to it", "%",
                           share_up_to(length, slack, tier.longest, tier.spans),
                           f"runs spread {spread} from the slack to the longest run", fmt=SHARE)
            links = s.calc(f"{tier.key}_class_{k}_links", f"{name}: links up to it", "links",
                           ceil(tier.links * share), "ROUNDUP(links x share up to it)", fmt=COUNT)
            how = f"ROUNDUP(links x share); runs spread {spread}"
        else:
            share = None
            links = s.calc(f"{tier.key}_class_{k}_links", f"{name}: links up to it", "links", tier.links,
                           "every link (Fabric)", fmt=COUNT)
            how = "every link of the tier (Fabric): the longest class"
        lengths.append(length)
        up_to.append(links)
        grid.rows.append([f"{tier.key}_{k}", name, how, links, share, length])
    counts = [up_to[0]] + [up_to[k] - up_to[k - 1] for k in range(1, CLASSES)]
    return Classes(lengths, counts)
