"""Standby generators: blocks that carry the site through a utility outage, on the Power chain sheet.

The UPS carries the UPS-backed load (critical IT capacity and the CDU pumps) through the seconds until the
generators start; the generators then carry that load (through the UPS) plus everything else that must run or
restart on them: the chillers' compressors, fans and pumps, the distribution losses and lighting, i.e. the rest
of the facility overhead on the design day. Generating sets are rated in kVA at 0.8 power factor (ISO 8528-1), so
their kW is kVA x 0.8 whatever the load's own power factor: the load in kW over that factor is the kVA they must
carry. The sets match the electrical topology: a bus per supply path of the power chain (two for 2N transformers,
each carrying the whole load), each with the generator redundancy (N+1 by default: N+1 per path). A bus also carries
the UPS batteries' recharge after the outage (a share of its path's UPS rating). Sets follow the transformer and
UPS rule (N, then the redundancy's multiple of N and spares), with a second spare where a bus needs more than about
ten sets (the chance two fail to start grows with the count); the chance the plant fails to start is shown from a
fail-to-start rate per set, and a check asks that each bus carries its load with one set out (or, with 2N, that
another bus does).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.book.book import SheetBuilder
from workbook.formula.functions import any_, ceil, flag, max_, min_
from workbook.formula.line import COUNT, PERCENT, Line
from workbook.models.base import Inputs, Scope
from workbook.models.cooling import CoolingOut
from workbook.models.power.power import TITLE as POWER
from workbook.models.power.power import PowerOut
from workbook.models.power.ups import UpsOut
from workbook.site.spec import Spec
from workbook.site.templates import with_limits

PREFIX = "generator"
TITLE = "Generators"  # their inputs' section on the Inputs sheet; their lines are on the Power chain sheet

INPUTS = with_limits([
    Spec("generator.block_size", "Generator set rating (standby, per set)", "kVA", "an apparent power",
         "2500 kVA", lo=0.0, lo_open=True),
    Spec("generator.power_factor", "Power factor the generator sets are rated at (kW / kVA)", "ratio", "a ratio",
         "0.8", lo=0.5, hi=1.0),
    Spec("generator.redundancy", "Generator redundancy on each supply path's bus", "", "", "N+1", redundancy=True),
    Spec("generator.ups_recharge_share", "UPS battery recharge after an outage, share of the UPS rating", "%",
         "a fraction", "0.15", lo=0.0, hi=1.0, fmt=PERCENT),
    Spec("generator.n_plus_two_above", "Sets a bus carries the load on (N) above which it gets a second spare (N+2)",
         "blocks", "a count of sets", "10", lo=1, hi=1000, integer=True, fmt=COUNT),
    Spec("generator.fail_to_start", "Chance a set fails to start on demand", "%", "a fraction", "0.005", lo=0.0,
         hi=1.0, fmt="0.00%"),
])


@dataclass(frozen=True)
class GeneratorOut:
    generator_load: Line
    generator_blocks: Line
    installed_generator: Line
    generator_start_failure: Line


def define(scope: Scope, i: Inputs, p: Inputs, power: PowerOut, cooling: CoolingOut, ups: UpsOut) -> GeneratorOut:
    """`scope` is the power chain's (prefix `power`): the generator rows follow the UPS rows on its sheet. `p` is
    the power chain's inputs (its supply paths, the UPS redundancy, the load's power factor)."""
    s = scope.sheet(POWER)
    s.section("Standby generators (the whole site on a utility outage; a bus per supply path)")
    paths = s.calc("generator_buses", "Generator buses: one per supply path", "buses", p.feed_redundancy_multiplier,
                   "the transformers' multiple of N (2 for 2N: each path has its own bus carrying the whole load; 1 "
                   "for N+1): the generators match the electrical topology", fmt=COUNT)
    backed = s.calc("generator_ups_load", "UPS-backed load, carried through the UPS", "kW", ups.ups_load,
                    "critical IT capacity + CDU pump power (the UPS rows above)")
    plant = s.calc("generator_plant_load", "Cooling plant and other facility load that restarts on them", "kW",
                   max_(power.facility_overhead - cooling.cdu_pump_power, 0),
                   "facility overhead, design day (chillers' compressors, fans, pumps, losses, lighting) - the CDU "
                   "pumps already in the UPS-backed load; the compressors alone are "
                   "the Cooling sheet's compressor power")
    recharge = s.calc("generator_recharge_load", "UPS battery recharge on one bus", "kW",
                      i.ups_recharge_share * ups.installed_ups / p.ups_redundancy_multiplier * p.power_factor,
                      "recharge share x the UPS rating on one path (installed UPS / its multiple of N) x the load's "
                      "power factor: the rectifiers recharge the batteries while the sets carry the load")
    load = s.calc("generator_load", "Load on a generator bus", "kW", backed + plant + recharge,
                  "UPS-backed load + cooling plant and other facility load + UPS battery recharge")
    apparent = s.calc("generator_load_apparent", "Load on a bus, at the sets' rated power factor", "kVA",
                      load / i.power_factor,
                      "load / rated power factor (0.8, ISO 8528-1): a set's kW is its kVA x 0.8")
    n, per_bus = _sets(s, i, apparent)
    blocks = s.calc("generator_blocks", "Generator sets installed", "blocks", per_bus * paths,
                    "sets per bus x buses", fmt=COUNT)
    s.calc("installed_generator", "Installed generator capacity", "kVA", blocks * i.block_size, "sets x rating")
    _start_failure(s, i, (n, per_bus), paths)
    out = scope.outputs(GeneratorOut)
    s.check("generators_one_down", "Generators carry the load with one set out",
            any_(paths >= 2, (per_bus - 1) * i.block_size >= apparent),
            "(sets on a bus - 1) x set rating >= a bus's load at the rated power factor: a set can fail to start or "
            "be in maintenance (Uptime Tier III: N+1 engine generators); with two or more buses (2N), the other "
            "bus carries the load")
    return out


def _sets(s: SheetBuilder, i: Inputs, apparent: Line) -> tuple[Line, Line]:
    """Sets on a bus: N to carry its load, then the redundancy's multiple of N and spares, and a second spare above
    the threshold (with many sets a second one failing to start is likely: N+2)."""
    n = s.calc("generator_blocks_n", "Generator sets to carry a bus's load (N)", "blocks",
               ceil(apparent / i.block_size), "ROUNDUP(a bus's load at the rated power factor / set rating)",
               fmt=COUNT)
    extra = s.calc("generator_extra_spare", "A second spare set on a bus (N+2 above the threshold)", "blocks",
                   flag(n > i.n_plus_two_above), "1 where N is above the sets a bus may carry on one spare",
                   fmt=COUNT)
    return n, s.calc("generator_sets_per_bus", "Generator sets on a bus", "blocks",
                     n * i.redundancy_multiplier + i.redundancy_spares + extra,
                     "N x multiple of N + spares (the redundancy) + the second spare above the threshold", fmt=COUNT)


def _start_failure(s: SheetBuilder, i: Inputs, sets: tuple[Line, Line], paths: Line) -> Line:
    """The chance the plant fails to start: a bus fails when more sets fail to start than it has spares; with
    several buses (2N) the plant fails only when every bus does. `sets`: (N, sets on a bus)."""
    n, per_bus = sets
    spares = s.calc("generator_spares_per_bus", "Spare sets on a bus (beyond N)", "blocks", per_bus - n,
                    "sets on a bus - N", fmt=COUNT)
    bus = s.calc("generator_bus_start_failure", "Chance a bus fails to start (at most)", "%",
                 min_(1, per_bus * i.fail_to_start) ** min_(spares + 1, 4),
                 "more of its sets fail to start than it has spares: at most MIN(1, sets x fail-to-start chance)^("
                 "spares + 1), the binomial tail's union bound (its power taken at most 4, which keeps it a bound)",
                 fmt="0.0000%")
    return s.calc("generator_start_failure", "Chance the generator plant fails to start (at most)", "%",
                  bus ** paths, "a bus's chance ^ buses: with 2N the plant fails only when both buses do",
                  fmt="0.0000%")
