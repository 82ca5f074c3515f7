"""Generation upgrades: the next fleet's inputs (inputs) and the plans that replace the fleet with it
(generation)."""

__all__ = ["generation", "inputs"]
