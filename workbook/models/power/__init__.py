"""The power chain of a fleet (power: from the node to the contracted feed), its UPS (ups) and generators
(generators), and the power envelope: the GPUs a fixed feed holds (envelope)."""

__all__ = ["envelope", "generators", "power", "ups"]
