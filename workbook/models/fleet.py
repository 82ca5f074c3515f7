"""One fleet of hardware in a hall, wired from the engineering models: its fabric, power chain, cooling, UPS,
generators and out-of-band network, each fed the outputs it reads (the site's own fleet, and an upgrade's next
fleet as a second instance under a namespace)."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from workbook.book.book import Book
from workbook.formula.line import Line
from workbook.models import cooling, overhead, reliability
from workbook.models.base import AllInputs, Inputs, Scope
from workbook.models.network import fabric, oob
from workbook.models.network.servers import Servers
from workbook.models.power import generators, power, ups
from workbook.site.spec import Site

NEXT = "next"  # the namespace of a generation upgrade's next fleet: `next.power.it_load`, `Power chain (next)`


def model_inputs(book: Book, site: Site, models: list[ModuleType], namespace: str = "") -> AllInputs:
    """The models' inputs as lines on the Inputs sheet, one section per model (per instance)."""
    return AllInputs({m.PREFIX: Inputs(book, site, m.TITLE, m.PREFIX, m.INPUTS, namespace) for m in models})


@dataclass(frozen=True)
class Fleet:
    """One fleet of hardware in a hall: its fabric, power chain, cooling, UPS, generators and out-of-band
    network."""

    inputs: AllInputs
    fabric: fabric.FabricOut
    power: power.PowerOut
    cooling: cooling.CoolingOut
    ups: ups.UpsOut
    generators: generators.GeneratorOut
    oob: oob.OobOut
    namespace: str = ""  # "" for the site's own fleet; e.g. `next` for an upgrade's next fleet


def define_fleet(book: Book, inputs: AllInputs, namespace: str = "", storage: Line | None = None,
                 servers: Servers | None = None) -> Fleet:
    """The engineering models of one fleet, each fed the outputs it reads. Under a namespace, a second fleet.
    `storage`: the shared storage's power where the Reliability sheet sizes it (else the power chain's input);
    `servers`: what the site's own fleet knows of its storage and servers, for the fabric's networks."""
    i = inputs
    power_scope = Scope(book, power.PREFIX, namespace)
    fabric_scope = Scope(book, fabric.PREFIX, namespace)
    net = fabric.define(fabric_scope, i.fabric, i.power, servers)
    chain = power.define(power_scope, i.power, net, storage)
    cool = cooling.define(Scope(book, cooling.PREFIX, namespace), i.cooling, i.power, chain)
    overhead.define(Scope(book, cooling.PREFIX, namespace), i.cooling, i.power, chain, cool)  # the PUE floor
    backed = ups.define(Scope(book, power.PREFIX, namespace), i.power, chain, cool)  # its own outputs
    standby = generators.define(Scope(book, power.PREFIX, namespace), i.generator, i.power, chain, cool, backed)
    management = oob.define(Scope(book, fabric.PREFIX, namespace), i.fabric, net, chain, cool)
    return Fleet(i, net, chain, cool, backed, standby, management, namespace)


def define_site_fleet(book: Book, inputs: AllInputs) -> tuple[reliability.ReliabilityOut, Fleet]:
    """The site's own fleet: first the reliability model's interruptions, checkpoints and storage (from inputs
    only), whose sized storage power feeds the power chain and whose appliances (with the BOM's head nodes and
    fabric managers, and the nodes' storage bandwidth) size the storage and in-band networks, then the engineering
    models. `inputs` holds the reliability and BOM sections besides the engineering ones."""
    rel = reliability.define(Scope(book, reliability.PREFIX), inputs)
    r, b = inputs.reliability, inputs.bom
    sized = rel.fast_appliances is not None
    servers = Servers(b.management_nodes, b.fabric_managers, r.node_write_bandwidth, r.node_read_bandwidth,
                             rel.fast_appliances, r.fast_storage_ports if sized else None,
                             r.fast_inband_ports if sized else None)
    return rel, define_fleet(book, inputs, storage=rel.storage_power, servers=servers)
