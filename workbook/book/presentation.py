"""What a sheet shows besides its lines: section headings, sentences, charts, side-by-side views and tables of
values computed at build time (a tornado, its facts).

These are presentation: the formula core defines lines and never needs them; the book lists them per sheet and
the Excel writer draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbook.formula.line import Line


@dataclass
class Section:
    """A heading over the rows that follow it. `unused`: why the section does not apply to the site as built (an
    air-cooled hall's coolant loop): its rows are collapsed under the heading, which says why, and not printed."""

    title: str
    unused: str = ""

    @property
    def heading(self) -> str:
        return f"{self.title}: does not apply: {self.unused} (its rows are collapsed)" if self.unused else self.title


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
    periods: tuple[Line, ...] = ()  # a timeline chart's last period shown: these lines' sum (lead time + useful life)
    highlight: tuple[Line, Line] | None = None  # one (x, y) point drawn as its own marked series (an optimum)
    highlight_name: str = ""  # the point's name in the legend (default: its x line's label)
    zoom: float | None = None  # the value axis up to this many times the larger of the highlighted point and the
    # `extra` series' last points (a cost curve's steep end at low utilisation runs off the top; the decision reads)


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


@dataclass(frozen=True)
class Fixed:
    """A grid cell that holds an input line's value as a plain, locked number: a quantity the reader may not
    change (the vendor's copy)."""

    line: Line


@dataclass(frozen=True)
class Blank:
    """A grid cell for an input line that the reader fills in: empty, unlocked, validated (a vendor's price).
    Formulas read it as 0 until it is filled, as the line's value is."""

    line: Line


@dataclass(frozen=True)
class Entry:
    """A grid cell of free text the reader fills in: empty, unlocked, stored as text (a vendor's comment), of at
    most `most` characters (the cell's validation) where that is given."""

    key: str
    most: int | None = None


@dataclass
class GridColumn:
    """A column of a grid: its header, its width in characters, and whether its text wraps. A leading column not
    `printed` (a key, like the Name column of a sheet of lines) is left out of the print area; a row whose cell
    in an `omit_zero` column is 0 does not apply to the site (a part of quantity 0): it follows the grid, below
    the print area."""

    header: str
    width: float
    wrap: bool = False
    printed: bool = True
    omit_zero: bool = False


@dataclass
class Grid:
    """A table whose rows are things (a bill of materials) and whose cells are lines or text: each line sits in
    one cell of it, with its defined name, instead of a row of its own. A row that is a Section is a heading."""

    sheet: str
    title: str
    note: str
    columns: list[GridColumn]
    rows: list[list[Any] | Section] = field(default_factory=list)

    def lines(self) -> list[tuple[int, int, Line]]:
        """(row, column, line) of every line the grid holds, rows counted from its first."""
        from workbook.formula.line import Line as LineType

        out = []
        for r, row in enumerate(self.rows):
            if isinstance(row, Section):
                continue
            for c, cell in enumerate(row):
                line = cell.line if isinstance(cell, Fixed | Blank) else cell
                if isinstance(line, LineType):
                    out.append((r, c, line))
        return out


@dataclass(frozen=True)
class Presented:
    """What a model shows beside its lines: charts, live views, grids and the headline lines the Cover repeats. A
    model returns it with its outputs; the book places them all in one step once every line is defined
    (workbook.models.present), in the order the workbook lays them out."""

    charts: tuple[Chart, ...] = ()
    views: tuple[View, ...] = ()
    grids: tuple[Grid, ...] = ()
    headline: tuple[Line, ...] = ()


@dataclass
class Table:
    """A block of build-time values (not formulas), with the inputs they were computed from."""

    sheet: str
    title: str
    note: str
    header: list[str]
    rows: list[list[Any]]
    formats: list[str]  # per column; an empty string for a text column
    row_formats: list[str] = field(default_factory=list)  # per row, for the input value columns (2-4)
    charts: list[dict[str, Any]] = field(default_factory=list)  # {"title", "columns": [(name, col)], "fmt"}
    current: str = ""  # where the live check that these values are still current is, for the sheet's top
    facts: list[Fact] = field(default_factory=list)  # figures shown above the table (the break-even points)
    inputs: list[str] = field(default_factory=list)  # each row's input line id (a tornado's)
    input_lines: tuple[Line, ...] = ()  # each row's input line (a tornado's)
    outputs: list[str] = field(default_factory=list)  # the result line ids, in the columns' order (a tornado's)
    swing: float = 0.0  # the share each input moves either way (a tornado's)
    read: list[str] = field(default_factory=list)  # the ids of the inputs its values were computed from


@dataclass(frozen=True)
class Fact:
    """A figure above a table: a live line (`line`), or a value computed at build time (`value`: a number, or
    words where there is none)."""

    label: str
    unit: str
    fmt: str
    note: str
    line: Line | None = None
    value: float | str | None = None
