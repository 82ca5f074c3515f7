"""The networks of a fleet: the compute fabric (fabric) and its tiers' arithmetic (tiers), the in-band and storage
networks (inband, storage), the out-of-band network (oob), and what the fleet's servers add to them (servers)."""

__all__ = ["fabric", "inband", "oob", "servers", "storage", "tiers"]
