"""Tables outside the one-row-per-line layout: build-time value tables (the sensitivity tornado), labelled as
values, and side-by-side views whose every cell is a reference (=name) to a line."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xlsxwriter

from workbook.excel.fast_formulas import write_formula
from workbook.excel.styles import PAGE_HEADER, Styles

TABLE_ROW = 4  # header row of the table; the note sits above it


def write_table(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, table: Any) -> None:
    ws.write(0, 0, table.title, styles.title)
    ws.merge_range(1, 0, 2, 8, table.note, styles.text)
    ws.set_row(1, 30)
    for col, head in enumerate(table.header):
        ws.write(TABLE_ROW, col, head, styles.header)
    for k, row in enumerate(table.rows):
        r = TABLE_ROW + 1 + k
        for col, value in enumerate(row):
            fmt = table.row_formats[k] if 2 <= col <= 4 and table.row_formats else table.formats[col]
            if isinstance(value, float) and math.isnan(value):
                ws.write_string(r, col, "n/a", styles.label)
            elif isinstance(value, str):
                ws.write_string(r, col, value, styles.label)
            else:
                ws.write_number(r, col, value, styles.value(fmt, "calc") if fmt else styles.label)
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
    ws.set_header(PAGE_HEADER)


def write_view(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, view: Any, values: dict[str, np.ndarray],
               site: str) -> None:
    """Rows of figures, one column per case; every cell is =name of a line, with its cached value."""
    from workbook.excel.writer import cached

    ws.write(0, 0, f"{view.title}: {site}", styles.title)
    ws.write(1, 0, view.note, styles.subtitle)
    head, first_col = TABLE_ROW - 1, 2
    ws.write(head, 0, "Label", styles.header)
    ws.write(head, 1, "Unit", styles.header)
    ws.write(head + 1, 0, "Changed inputs", styles.header_wrap)
    ws.write(head + 1, 1, "", styles.header_wrap)
    for k, (header, changes, _) in enumerate(view.columns):
        ws.write(head, first_col + k, header, styles.header)
        ws.write(head + 1, first_col + k, changes, styles.header_wrap)
    ws.set_row(head + 1, 45)
    first_row = head + 2
    for r, (label, unit, fmt) in enumerate(zip(view.rows, view.units, view.fmts, strict=True)):
        ws.write_string(first_row + r, 0, label, styles.label)
        ws.write_string(first_row + r, 1, unit, styles.unit)
        for k, (_, _, lines) in enumerate(view.columns):
            line = lines[r]
            write_formula(ws, first_row + r, first_col + k, f"={line.name}", styles.value(fmt, "calc"),
                          cached(line, values[line.id]))
    last_col = first_col + len(view.columns) - 1
    last_row = first_row + len(view.rows) - 1
    ws.set_column(0, 0, 52)
    ws.set_column(1, 1, 12)
    ws.set_column(first_col, last_col, 20)
    if view.chart_rows:
        chart = wb.add_chart({"type": "column"})
        for r in view.chart_rows:
            chart.add_series({
                "name": [ws.name, first_row + r, 0],
                "categories": [ws.name, head, first_col, head, last_col],
                "values": [ws.name, first_row + r, first_col, first_row + r, last_col],
            })
        chart.set_title({"name": view.chart_title, "name_font": {"size": 11}})
        chart.set_y_axis({"num_format": view.fmts[view.chart_rows[0]], "num_font": {"size": 9}})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 720, "height": 360})
        ws.insert_chart(last_row + 3, 0, chart)
    ws.freeze_panes(first_row, first_col)
    ws.set_landscape()
    ws.set_paper(9)
    ws.print_area(0, 0, last_row + 22, last_col)
    ws.set_header(PAGE_HEADER)
