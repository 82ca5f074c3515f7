"""Native charts, whose series point at the live cells of the lines they show."""

from __future__ import annotations

from typing import Any

import xlsxwriter

from workbook.excel.layout import LABEL, NOTE, Layout
from workbook.formula.line import Book


def add_charts(wb: xlsxwriter.Workbook, sheets: dict[str, Any], book: Book, layout: Layout) -> None:
    placed: dict[str, int] = {}
    for chart in book.charts:
        sheet, _, col = layout.cells[chart.lines[0].id]
        rows = [layout.cells[line.id][1] for line in chart.lines]
        if rows != list(range(rows[0], rows[0] + len(rows))):
            raise ValueError(f"chart {chart.title!r}: its lines must sit on consecutive rows of {sheet}")
        c = wb.add_chart({"type": chart.kind})
        c.add_series({
            "name": chart.title,
            "categories": [sheet, rows[0], LABEL, rows[-1], LABEL],
            "values": [sheet, rows[0], col, rows[-1], col],
            "data_labels": {"percentage": True, "leader_lines": True} if chart.kind == "pie" else {},
        })
        c.set_title({"name": chart.title, "name_font": {"size": 11}})
        if chart.kind != "pie":
            c.set_legend({"none": True})
            if chart.y_title:
                c.set_y_axis({"name": chart.y_title})
        c.set_size({"width": 620, "height": 340})
        host = chart.sheet
        slot = placed.get(host, 0)
        placed[host] = slot + 1
        sheets[host].insert_chart(4 + slot * 18, NOTE + 1, c)
