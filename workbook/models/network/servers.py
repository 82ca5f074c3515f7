"""What a fleet's own servers add to its networks (the fabric, in-band and storage networks read it)."""

from __future__ import annotations

from dataclasses import dataclass

from workbook.formula.line import Line

__all__ = ["Servers"]


@dataclass(frozen=True)
class Servers:
    """What the site's own fleet knows beside its fabric inputs: the head nodes and fabric managers (BOM inputs),
    the storage bandwidth a node needs (Reliability inputs) and, where the Reliability sheet sizes the storage,
    its appliances and their ports. An upgrade's next fleet has none of these (None): it keeps the ports given."""

    management_nodes: Line
    fabric_managers: Line
    node_write_bandwidth: Line
    node_read_bandwidth: Line
    appliances: Line | None = None
    appliance_storage_ports: Line | None = None
    appliance_inband_ports: Line | None = None
