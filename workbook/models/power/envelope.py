"""Power envelope: for a fixed contracted feed, the GPUs of each fleet that fit and the compute they buy; and the
same with the GPUs power-capped.

The question a site is asked in ("how much compute does 1 MW buy?") is answered from each fleet's own power
chain, never recomputed: its contracted feed already holds every overhead as the chain applies it (the node at
its synchronised peak, the network and optics, storage and management, the feed headroom and the design-day
PUE). Of that feed, storage and management are a fixed part that does not grow with the nodes; the rest,
divided by the fleet's nodes, is the all-in feed of one more node (its share of the switches and optics at the
fleet's own average). Whole nodes that fit are then ROUNDDOWN((feed - fixed part) / feed per node): a formula,
no goal seek.

Power capping lowers each GPU's board power to cap x TDP. The node saves the GPUs' board power above the cap,
at the wall (through the PSU efficiency, as the chain computes node power), and that saving goes through the
marginal facility factor: what a kW at the GPUs' wall costs in facility power, (1 + the cooling power a kW of GPU
heat needs at the margin) / (1 - distribution loss), the cooling from the Cooling sheet, whether the site gives a
PUE or an itemised overhead (a PUE is an average: with one, the distribution loss is its estimate). On a liquid
fleet whose loop runs on dry coolers the GPU's plated watts take no compressor, so the cap saves less facility
power than the chain's average overhead would say. Lighting and other fixed loads do not move. The saving
carries the feed headroom. The synchronised excursion above TDP is kept whole: a power cap is enforced by a
control loop that is slower than a training step's swings, so the feed still has to carry them (conservative
[E]). Throughput per GPU at the cap follows throughput ~ power^exponent, the cube-root law of dynamic power near
the top of the DVFS curve (an input with its source).

Whole nodes are what can be installed, so the headline counts them; whole-node rounding can make a small gain
look large (1 MW holds 4 GB200 NVL72 racks at TDP and 6 capped). The continuous gain beside it, compute per kW
of feed per node (feed per node at TDP / at the cap x throughput share - 1), is the rate without rounding.

The model is called once, with every fleet of the book (the site's own, and a second generation under its
namespace), so the fleets sit side by side on one sheet and in its charts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbook.book.book import SheetBuilder
from workbook.book.presentation import Chart, Presented
from workbook.book.sheets import ENVELOPE as TITLE
from workbook.formula.functions import floor, max_, safe_div
from workbook.formula.line import COUNT, PERCENT, Line
from workbook.models.base import Inputs, Scope
from workbook.site.spec import Spec

if TYPE_CHECKING:  # the fleet is built by workbook.models, which imports this module
    from workbook.models.fleet import Fleet

PREFIX = "envelope"

INPUTS = [
    Spec("envelope.feed", "Contracted feed to fill (the fixed power envelope)", "MW", "a power", "1 MW",
         lo=0.01, hi=1000.0),
    Spec("envelope.power_cap", "GPU power cap, share of TDP", "%", "a fraction", "0.7", lo=0.1, hi=1.0,
         fmt=PERCENT),
    Spec("envelope.cap_exponent", "Throughput-power exponent near the top of the DVFS curve", "ratio", "a ratio",
         "0.3333", lo=0.0, hi=1.0),
]

# One fleet as the envelope takes it: its label (row labels, chart categories), the fleet, and the throughput
# per GPU in H100 SXM equivalents (`power.gpu_throughput` of that fleet).
FleetSpec = tuple[str, "Fleet", Line]


@dataclass(frozen=True)
class FleetEnvelope:
    """One fleet's figures in the envelope, at TDP and power-capped."""

    label: str
    fixed_feed: Line
    feed_per_node: Line
    nodes: Line
    gpus: Line
    compute: Line
    gpus_per_mw: Line
    compute_per_mw: Line
    capped_feed_per_node: Line
    capped_nodes: Line
    capped_gpus: Line
    extra_gpus: Line
    capped_compute: Line
    capped_gpus_per_mw: Line
    capped_compute_per_mw: Line
    compute_gain: Line
    compute_gain_continuous: Line
    node_fits: Line


@dataclass(frozen=True)
class EnvelopeOut:
    feed: Line
    power_cap: Line
    cap_throughput: Line
    fleets: tuple[FleetEnvelope, ...]
    presented: Presented  # the fleets side by side: GPUs and compute per MW


def define(scope: Scope, i: Inputs, fleets: list[FleetSpec]) -> EnvelopeOut:
    """Every fleet in the same envelope, then the fleets side by side (the chart's rows)."""
    s = scope.sheet(TITLE)
    s.section("Envelope and power cap")
    s.text("Each fleet's feed per node is its own power chain's: node synchronised peak + its share of the "
           "network and optics, with the feed headroom and the design-day PUE. Whole nodes only.")
    share = s.calc("cap_throughput", "Throughput per GPU at the cap, share of uncapped", "%",
                   i.power_cap ** i.cap_exponent,
                   "cap ^ exponent: throughput ~ power^(1/3) near the top of the DVFS curve (0.7 -> 89%)",
                   fmt=PERCENT)
    out = tuple(_fleet(s, i, share, *spec) for spec in fleets)
    charts = _side_by_side(s, out)
    return scope.outputs(EnvelopeOut, feed=i.feed, power_cap=i.power_cap, fleets=out,
                         presented=Presented(charts=charts))


def _key(fleet: Fleet, key: str) -> str:
    """A fleet's line key: plain for the site's own fleet, after its namespace for another (`fleet_new_nodes`)."""
    return f"{fleet.namespace}_{key}" if fleet.namespace else key


def _fleet(s: SheetBuilder, i: Inputs, share: Line, label: str, fleet: Fleet, throughput: Line
           ) -> FleetEnvelope:
    """One fleet at TDP: its fixed feed, feed per node and the whole nodes that fit; then power-capped."""
    p, chain = fleet.inputs.power, fleet.power

    def k(key: str) -> str:
        return _key(fleet, key)

    s.section(f"{label}: at TDP")
    if p.has("other_facility_power"):  # an itemised facility: lighting and offices are a fixed load, not a share
        other = s.calc(k("other_feed"), "Feed for lighting, offices and other facility load (fixed)", "kW",
                       p.other_facility_power * (1 + p.feed_headroom) / (1 - p.distribution_loss),
                       "other facility load / (1 - distribution loss) x (1 + feed headroom), as the chain adds it")
        per_kw = s.calc(k("feed_per_peak_it"), "Feed per kW of peak IT load", "ratio",
                        (1 + p.feed_headroom) * (chain.contracted_feed - other) / chain.critical_it_capacity,
                        "(1 + feed headroom) x (contracted feed - the fixed other load) / critical IT capacity")
        fixed_facility: Any = other
    else:
        per_kw = s.calc(k("feed_per_peak_it"), "Feed per kW of peak IT load", "ratio",
                        (1 + p.feed_headroom) * chain.contracted_feed / chain.critical_it_capacity,
                        "(1 + feed headroom) x design-day PUE, as the power chain applies them (its contracted "
                        "feed / critical IT capacity)")
        fixed_facility = 0
    fixed = s.calc(k("fixed_feed"), "Feed for storage, management and other fixed loads (do not grow with nodes)",
                   "kW", (chain.storage_power + chain.management_power) * per_kw + fixed_facility)
    s.calc(k("network_per_node"), "Network switches and optics per node (this fleet's average)", "kW",
           (chain.network_power + chain.optics_power) / chain.nodes,
           "in the feed per node below; switch counts step, so a fleet far from this size differs a little")
    per_node = s.calc(k("feed_per_node"), "Feed per node, all in", "kW",
                      (chain.contracted_feed - fixed) / chain.nodes,
                      "(contracted feed - fixed part) / nodes = (node synchronised peak + network and optics "
                      "per node) x feed per kW of peak IT")
    room = s.calc(k("feed_for_nodes"), "Envelope feed left for nodes", "kW", i.feed - fixed,
                  "envelope feed - fixed part")
    lines = _whole_nodes(s, fleet, "", i.feed, room, per_node, throughput)
    s.calc(k("feed_left"), "Feed left over (less than a node)", "kW", room - lines["nodes"] * per_node)
    lines["node_fits"] = s.check(k("node_fits"), f"{label}: at least one node fits the power envelope",
                                 lines["nodes"] >= 1)

    s.section(f"{label}: power-capped")
    s.calc(k("capped_gpu_power"), "GPU board power at the cap", "W", p.gpu_tdp * i.power_cap, "TDP x cap")
    saving = s.calc(k("cap_saving"), "Board power the cap saves per node, at the wall", "kW",
                    chain.node_gpu_power * (1 - i.power_cap) / p.psu_efficiency,
                    "GPU board power per node x (1 - cap) / PSU efficiency; the synchronised excursion above "
                    "TDP is kept whole (a cap acts slower than a step's swings) [E]")
    factor = _cap_factor(s, k, p, fleet)
    capped = s.calc(k("capped_feed_per_node"), "Feed per node, all in, at the cap", "kW",
                    per_node - saving * (1 + p.feed_headroom) * factor,
                    "feed per node - saving x (1 + feed headroom) x marginal facility factor")
    lines.update(_whole_nodes(s, fleet, "capped_", i.feed, room, capped, throughput * share))
    lines["extra_gpus"] = s.calc(k("extra_gpus"), "More GPUs the envelope holds at the cap", "GPUs",
                                 lines["capped_gpus"] - lines["gpus"], fmt=COUNT)
    lines["compute_gain"] = s.calc(
        k("compute_gain"), "Net gain in compute per MW from capping, whole nodes", "%",
        safe_div(lines["capped_compute"] - lines["compute"], lines["compute"], "no node fits"),
        "(H100-equivalents at the cap - at TDP) / at TDP: more GPUs, each slower; whole nodes only, so it "
        "steps with the rounding", fmt=PERCENT)
    lines["compute_gain_continuous"] = s.calc(
        k("compute_gain_continuous"), "Net gain in compute per MW from capping, per node (continuous)", "%",
        safe_div(per_node * share - capped, capped, "no feed per node at the cap"),
        "feed per node at TDP / at the cap x throughput share at the cap - 1: the same gain without whole-node "
        "rounding", fmt=PERCENT)
    return FleetEnvelope(label=label, fixed_feed=fixed, feed_per_node=per_node, capped_feed_per_node=capped,
                         **lines)


def _cap_factor(s: SheetBuilder, k: Callable[[str], str], p: Inputs, fleet: Fleet) -> Line:
    """Facility power per kW saved at the GPUs' wall, from the plant at the margin whatever the site gives: the
    Cooling sheet's cooling power for a kW of GPU heat and the distribution loss (the site's, or with a PUE its
    estimate). The design PUE is an average: on a liquid fleet on dry coolers the plated watts a cap saves take no
    compressor with them, and lighting and other fixed loads do not move."""
    given = "the site's distribution loss (itemised)" if p.choice("facility_model") == "itemised" else (
        "the distribution-loss estimate, not the design PUE the site gives (an average: its overhead does not "
        "scale with a GPU's watts)")
    return s.calc(k("cap_facility_factor"), "Facility power per kW the cap saves at the wall (marginal)", "ratio",
                  (1 + fleet.cooling.gpu_marginal_cooling) / (1 - p.distribution_loss),
                  "(1 + cooling power per kW of GPU power at the margin (Cooling sheet: compressors only, none for "
                  f"plated watts on dry coolers)) / (1 - distribution loss): {given}")


def _whole_nodes(s: SheetBuilder, fleet: Fleet, pre: str, feed: Line, room: Line, per_node: Line,
                 throughput: Any) -> dict[str, Line]:
    """Whole nodes in the room left for nodes, their GPUs and compute, and both per MW of the envelope feed.
    `pre` names the capped set (`capped_`); `throughput` is per GPU in H100 SXM equivalents."""
    at = "at the cap" if pre else "at TDP"

    def key(name: str) -> str:
        return _key(fleet, name)

    nodes = s.calc(key(f"{pre}nodes"), f"Whole nodes the envelope holds, {at}", "nodes",
                   max_(0, floor(room / per_node)), "ROUNDDOWN(feed left for nodes / feed per node), at least 0",
                   fmt=COUNT)
    gpus = s.calc(key(f"{pre}gpus"), f"GPUs, {at}", "GPUs", nodes * fleet.inputs.power.gpus_per_node,
                  "nodes x GPUs per node", fmt=COUNT)
    compute = s.calc(key(f"{pre}compute"), f"Compute in H100 SXM equivalents, {at}", "H100-eq", gpus * throughput,
                     "GPUs x throughput per GPU" + (" x throughput share at the cap" if pre else ""))
    return {
        f"{pre}nodes": nodes, f"{pre}gpus": gpus, f"{pre}compute": compute,
        f"{pre}gpus_per_mw": s.calc(key(f"{pre}gpus_per_mw"), f"GPUs per MW of envelope feed, {at}", "GPU/MW",
                                    gpus / feed, fmt=COUNT),
        f"{pre}compute_per_mw": s.calc(key(f"{pre}compute_per_mw"),
                                       f"H100 SXM equivalents per MW of envelope feed, {at}", "H100-eq/MW",
                                       compute / feed, fmt=COUNT),
    }


def _side_by_side(s: SheetBuilder, fleets: tuple[FleetEnvelope, ...]) -> tuple[Chart, ...]:
    """The fleets' per-MW figures on consecutive rows, each chart's rows under one heading (a chart reads
    consecutive rows; its categories are the rows' labels)."""
    charts = (("gpus_per_mw", "GPUs per MW of envelope feed, by fleet", "GPUs per MW"),
              ("compute_per_mw", "H100 SXM equivalents per MW of envelope feed, by fleet", "H100 SXM eq. per MW"))
    out = []
    for field, title, axis in charts:
        s.section(title)
        rows = []
        for f in fleets:
            at_tdp, capped = getattr(f, field), getattr(f, f"capped_{field}")
            for line, how in ((at_tdp, "at TDP"), (capped, "power-capped")):
                key = line.id.removeprefix(f"{s.prefix}.")
                rows.append(s.show(line, f"{key}_by_fleet", f"{f.label}, {how}"))
        out.append(Chart(s.title, f"{title}: at TDP and power-capped", "column", rows, y_title=axis))
    return tuple(out)
