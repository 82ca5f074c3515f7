"""Native charts, whose series point at the live cells of the lines they show."""

from __future__ import annotations

from typing import Any

import numpy as np
import xlsxwriter

from workbook.book import formats
from workbook.book.presentation import Chart
from workbook.excel.layout import FIRST_PERIOD, HEADER_ROW, LABEL, Layout
from workbook.formula.expr import MONTHS
from workbook.formula.line import Line
from workbook.models.calendar import MONTH_SHOWN

WIDTH, HEIGHT, ROWS_PER_CHART = 720, 330, 17  # two charts and a header row on a page at 89%
CHART_PIXELS = WIDTH + 8  # the columns under a chart: its width and the offset it is set at


def chart_row(last_row: int, slot: int) -> int:
    """The first row of a sheet's chart number `slot`: the charts stack below the table (a row apart), so the
    sheet prints one page wide, its charts on the pages after its figures."""
    return last_row + 2 + slot * ROWS_PER_CHART


def add_charts(wb: xlsxwriter.Workbook, sheets: dict[str, Any], layout: Layout,
               values: dict[str, np.ndarray]) -> None:
    placed: dict[str, int] = {}
    for chart in layout.charts:
        c = _timeline_chart(wb, chart, layout, values) if chart.lines[0].series else _value_chart(wb, chart, layout)
        c.set_title({"name": chart.title, "name_font": {"size": 11}})
        if chart.kind != "pie":
            _axes(c, chart, layout, values)
        c.set_size({"width": WIDTH, "height": HEIGHT})
        slot = placed.get(chart.sheet, 0)
        placed[chart.sheet] = slot + 1
        # a little below the row's top edge, where a page may break
        row = chart_row(layout.sheets[chart.sheet].last_row, slot)
        sheets[chart.sheet].insert_chart(row, LABEL, c, {"y_offset": 3, "x_offset": 4})


def _axes(c: Any, chart: Chart, layout: Layout, values: dict[str, np.ndarray]) -> None:
    """Axes in the number formats of the rows they show (money in kUSD or MUSD as its size asks, %, counts), the
    value axis of a bar or column chart from zero (so the bars' lengths compare)."""
    shown = value_format(chart, values)
    y_axis = {"name": shown.unit if chart.y_title in formats.MONEY else chart.y_title, "num_format": shown.fmt,
              "num_font": {"size": 9}}
    x_fmt = formats.shown(chart.categories[0], values[chart.categories[0].id]).fmt if chart.categories else "General"
    x_axis = {"name": chart.x_title, "num_format": x_fmt, "num_font": {"size": 9}}
    if chart.categories and "%" in x_fmt:
        x_axis.update(min=0, max=1)  # a share runs from 0% to 100%, not to the next tick past it
    if chart.lines[0].series and layout.calendar is not None and chart.lines[0].axis == MONTHS:
        # the months' headers are their end dates: a date axis, a label a year
        x_axis.update(date_axis=True, major_unit=1, major_unit_type="years", num_format=MONTH_SHOWN)
    elif chart.lines[0].series:
        x_axis.update(interval_unit=12, interval_tick=12)  # a label a year: month 0, 12, 24...
    if chart.zoom is not None:
        y_axis.update(min=0, max=nice_ceiling(chart.zoom * _zoomed(chart, values)))
    if chart.kind in ("bar", "column") and _smallest(chart, values) >= 0:
        y_axis.update(min=0)
    if chart.kind == "bar":  # its values run across: xlsxwriter's x axis is then the value axis
        x_axis, y_axis = y_axis, {**x_axis, "num_format": "General"}
    c.set_x_axis(x_axis)
    c.set_y_axis(y_axis)


def value_format(chart: Chart, values: dict[str, np.ndarray]) -> formats.Shown:
    """The number format and unit of a chart's value axis: its first row's, money scaled by the size of every
    value the chart shows (a chart reads one scale, a timeline's MUSD as a figure's)."""
    first = chart.lines[0]
    shown = formats.shown(first, values[first.id])
    if first.unit_text in formats.MONEY and first.kind != "input":
        scale = formats.money_scale(np.concatenate([np.ravel(values[x.id]) for x in _series_lines(chart)]), False)
        return formats.Shown(formats.money(scale), formats.scaled_unit(first.unit_text, scale))
    return shown


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 2.5 and 5 times a power of ten at or above x (an axis's end): 6.6 -> 10, 0.42 -> 0.5."""
    if not np.isfinite(x) or x <= 0:
        return 1.0
    power = 10.0 ** np.floor(np.log10(x))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= x * (1 - 1e-12)))


def _zoomed(chart: Chart, values: dict[str, np.ndarray]) -> float:
    """The larger of the highlighted point's value and each `extra` series' last (at full utilisation: a rent
    that falls as the fixed extras spread): the values a zoom keeps in view."""
    lines = [extra[-1] for extra in chart.extra] + ([chart.highlight[1]] if chart.highlight else [])
    v = np.concatenate([np.ravel(values[x.id]) for x in lines]).astype(float) if lines else np.zeros(1)
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else 0.0


def _series_lines(chart: Chart) -> list[Line]:
    return [*chart.lines, *(x for extra in chart.extra for x in extra)]


def _smallest(chart: Chart, values: dict[str, np.ndarray]) -> float:
    v = np.concatenate([np.ravel(values[x.id]) for x in _series_lines(chart)]).astype(float)
    v = v[np.isfinite(v)]
    return float(v.min()) if v.size else 0.0


def _rows(lines: list[Line], layout: Layout, what: str) -> tuple[str, list[int], int]:
    sheet, _, col = layout.cells[lines[0].id]
    rows = [layout.cells[line.id][1] for line in lines]
    if rows != list(range(rows[0], rows[0] + len(rows))) or {layout.cells[x.id][0] for x in lines} != {sheet}:
        raise ValueError(f"chart {what!r}: its lines must sit on consecutive rows of one sheet")
    return sheet, rows, col


def _value_chart(wb: xlsxwriter.Workbook, chart: Chart, layout: Layout) -> Any:
    """One series over the values of consecutive lines (a pie of shares, a curve of points)."""
    c = wb.add_chart({"type": chart.kind, **({"subtype": "straight_with_markers"} if chart.kind == "scatter" else {})})
    if chart.categories:
        csheet, crows, ccol = _rows(chart.categories, layout, chart.title)
        categories = [csheet, crows[0], ccol, crows[-1], ccol]
    for k, lines in enumerate([chart.lines, *chart.extra]):
        sheet, rows, col = _rows(lines, layout, chart.title)
        if not chart.categories:
            categories = [sheet, rows[0], LABEL, rows[-1], LABEL]
        series = {"categories": categories, "values": [sheet, rows[0], col, rows[-1], col],
                  "name": chart.title if k == 0 and chart.kind == "pie" else _series_name(lines[0])}
        if chart.kind == "pie":
            series["data_labels"] = {"percentage": True, "leader_lines": True}
        c.add_series(series)
    if chart.highlight is not None:  # one point, its own series: x and y each one cell
        (xs, xr, xc), (ys, yr, yc) = (layout.cells[line.id] for line in chart.highlight)
        c.add_series({"categories": [xs, xr, xc, xr, xc], "values": [ys, yr, yc, yr, yc],
                      "name": chart.highlight_name or chart.highlight[0].label.split(" (")[0],
                      "marker": {"type": "diamond", "size": 11, "fill": {"color": "#C00000"},
                                 "border": {"color": "#C00000"}},
                      "line": {"none": True}})
    if chart.kind != "pie" and not chart.extra and chart.highlight is None:
        c.set_legend({"none": True})
    elif chart.kind != "pie":
        c.set_legend({"position": "bottom"})
    return c


def _series_name(line: Line) -> str:
    return line.label.split(" at point ")[0]


def _timeline_chart(wb: xlsxwriter.Workbook, chart: Chart, layout: Layout, values: dict[str, np.ndarray]) -> Any:
    """One series per series line, across the timeline's period columns."""
    shown = layout.widths[chart.lines[0].axis]
    if chart.periods:  # up to the end of the useful life: after it both lines only run flat
        end = sum(float(values[line.id].reshape(-1)[0]) for line in chart.periods)  # the base case's
        shown = min(shown, round(end) + 1)
    last = FIRST_PERIOD + shown - 1
    c = wb.add_chart({"type": chart.kind})
    for line in chart.lines:
        sheet, row, _ = layout.cells[line.id]
        c.add_series({
            "name": [sheet, row, LABEL],
            "categories": [sheet, HEADER_ROW, FIRST_PERIOD, HEADER_ROW, last],
            "values": [sheet, row, FIRST_PERIOD, row, last],
        })
    if chart.marker is not None:
        sheet, row, _ = layout.cells[chart.marker.id]
        bars = wb.add_chart({"type": "column"})
        bars.add_series({
            "name": [sheet, row, LABEL],
            "categories": [sheet, HEADER_ROW, FIRST_PERIOD, HEADER_ROW, last],
            "values": [sheet, row, FIRST_PERIOD, row, last],
            "fill": {"color": "#C00000"},
            "gap": 50,
        })
        c.combine(bars)
    c.set_legend({"position": "bottom"})
    return c
