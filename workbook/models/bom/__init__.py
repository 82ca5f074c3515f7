"""The bill of materials: its lines and checks (bom), the items and their quantities (items), the cables
(cables), the terms a vendor is asked to quote on (terms) and the chosen vendor quotes as inputs (quotes)."""

__all__ = ["bom", "cables", "items", "quotes", "terms"]
