"""A site's model: its lines (the book) and their values. What the API returns and what the commands read; kept
apart from workbook.api so that modules which take a model (the build's findings, the vendor's copy) can name its
type without importing the API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from workbook.book.book import Book
from workbook.formula.units import Q_
from workbook.site.spec import Site

__all__ = ["Model", "plain"]


@dataclass
class Model:
    """A site's lines and their values (magnitudes in each line's unit, arrays shaped (batch, periods))."""

    site: Site
    book: Book
    values: dict[str, np.ndarray]

    def quantity(self, line_id: str) -> Any:
        """A line's value as a pint quantity (a scalar for a single site, else an array)."""
        line = self.book.lines[line_id]
        v = self.values[line_id]
        mag = v.reshape(-1)[0] if v.size == 1 else v
        return mag if line.is_bool else Q_(mag, line.unit)

    def dataframe(self) -> Any:
        import pandas as pd

        from workbook.excel.layout import plan

        layout = plan(self.book)
        rows = []
        for line in self.book.lines.values():
            v = self.values[line.id]
            rows.append({
                "id": line.id, "label": line.label, "kind": line.kind, "unit": line.unit_text,
                "value": plain(line, v), "cell": layout.address(line.id),
            })
        return pd.DataFrame(rows).set_index("id")


def plain(line: Any, v: np.ndarray) -> Any:
    """A line's value as JSON takes it: a number (None where not finite) or a boolean, a list for a batch."""
    flat = v.reshape(-1)
    if line.is_bool:
        return bool(flat[0]) if flat.size == 1 else [bool(x) for x in flat]
    out = [float(x) if np.isfinite(x) else None for x in flat]  # JSON has no NaN nor infinity
    return out[0] if len(out) == 1 else out
