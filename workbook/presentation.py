"""What a sheet shows besides its lines: section headings, sentences, charts and side-by-side views.

These are presentation: the formula core defines lines and never needs them; the book lists them per sheet and
the Excel writer draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbook.formula.line import Line


@dataclass
class Section:
    title: str


@dataclass
class Text:
    """A sentence on a sheet (a convention, how to read a block), in the label column."""

    text: str


@dataclass
class Chart:
    """A native chart of some lines' values, labelled by the lines' labels."""

    sheet: str
    title: str
    kind: str  # xlsxwriter chart type: "pie", "bar", "column", "line", "scatter"
    lines: list[Line]  # one series over these lines' values; or, for series lines, one series per line
    y_title: str = ""
    x_title: str = ""
    categories: list[Line] | None = None  # x values from these lines (default: the lines' labels)
    extra: list[list[Line]] = field(default_factory=list)  # more series of the same shape as `lines`
    marker: Line | None = None  # a series line drawn as columns over a line chart (e.g. break-even)
    periods: int | None = None  # a timeline chart's last period shown (the end of the useful life), else all


@dataclass
class View:
    """A table that only shows lines side by side (each cell is =name of a line): no calculation of its own."""

    sheet: str
    title: str
    note: str
    rows: list[str]  # row labels
    units: list[str]
    fmts: list[str]
    columns: list[tuple[str, str, list[Line]]]  # (header, what the column changes, one line per row)
    chart_rows: list[int] = field(default_factory=list)  # rows drawn as series of a column chart
    chart_title: str = ""
    cases: str = "scenario"  # what the columns are, the chart's category axis title
    changes_label: str = "Changed inputs"  # the second header row's label: what each column changes
