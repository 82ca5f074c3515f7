"""Build-time value tables (the sensitivity tornado): labelled as values, with their bar charts."""

from __future__ import annotations

import math
from typing import Any

import xlsxwriter

from workbook.excel.styles import Styles

TABLE_ROW = 4  # header row of the table; the note sits above it


def write_table(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, table: Any) -> None:
    ws.write(0, 0, table.title, styles.title)
    ws.merge_range(1, 0, 2, 8, table.note, styles.text)
    ws.set_row(1, 30)
    for col, head in enumerate(table.header):
        ws.write(TABLE_ROW, col, head, styles.header)
    formats = [styles.value(f, "calc") if f else styles.label for f in table.formats]
    for r, row in enumerate(table.rows, start=TABLE_ROW + 1):
        for col, value in enumerate(row):
            if isinstance(value, float) and math.isnan(value):
                ws.write_string(r, col, "n/a", styles.label)
            elif isinstance(value, str):
                ws.write_string(r, col, value, styles.label)
            else:
                ws.write_number(r, col, value, formats[col])
    ws.set_column(0, 0, 52)
    ws.set_column(1, 1, 12)
    ws.set_column(2, len(table.header) - 1, 17)
    ws.set_row(TABLE_ROW, 45, styles.header)
    first, last = TABLE_ROW + 1, TABLE_ROW + len(table.rows)
    for k, spec in enumerate(table.charts):
        chart = wb.add_chart({"type": "bar"})
        for name, col in spec["columns"]:
            chart.add_series({
                "name": name,
                "categories": [ws.name, first, 0, last, 0],
                "values": [ws.name, first, col, last, col],
                "gap": 40,
                "overlap": 100,
            })
        chart.set_title({"name": spec["title"], "name_font": {"size": 10}})
        chart.set_y_axis({"reverse": True})
        chart.set_x_axis({"num_format": spec["fmt"]})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 640, "height": 360})
        ws.insert_chart(last + 3 + k * 20, 0, chart)
    ws.freeze_panes(TABLE_ROW + 1, 1)
    ws.set_landscape()
    ws.set_paper(9)
    ws.fit_to_pages(1, 0)
    ws.print_area(0, 0, last + 3 + 20 * len(table.charts), len(table.header) - 1)
