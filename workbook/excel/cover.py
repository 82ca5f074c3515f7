"""The Cover: what this workbook is, where its numbers came from, and how to read it."""

from __future__ import annotations

from typing import Any

import xlsxwriter

from workbook import __version__
from workbook.excel.layout import Layout
from workbook.excel.styles import PAGE_HEADER, Styles
from workbook.inputs import Site
from workbook.sheets import COVER

SHEET_PURPOSE = {
    "Inputs": "every typed-in number, with its unit and source; the only place to change anything",
    "Summary": "key figures, the master check and charts",
    "Power chain": "GPU -> node -> rack -> IT load -> facility -> utility feed",
    "Fabric": "compute rails, leaf/spine/core counts, links, transceivers and their power; storage and OOB networks",
    "Cooling": "heat to liquid and air, coolant flow, CDUs, air flow, heat rejection, cold-plate ride-through",
    "TCO": "rent vs buy over a monthly timeline: capex, running costs, rent, NPV, IRR, break-even",
    "Scenarios": "each named scenario recalculated live: the lines its changed inputs reach",
    "Sensitivity": "tornado of owned cost per GPU-hour and break-even utilisation (values computed at build time)",
    "Checks": "every invariant as TRUE/FALSE, and their AND",
}

HOW_TO_READ = [
    "Blue numbers on yellow are inputs. Everything else that is a number is a live formula.",
    "Formulas name the rows they use (e.g. power_it_load); each name is shown in the Name column beside "
    "its row, and the Name Manager lists them all.",
    "Every row has a unit in the Unit column; values are in that unit. Conversions are written into the "
    "formula (a W value in a kW row is /1000).",
    "Notes and sources are in the last column, never in hidden comments. Nothing is hidden.",
    "Checks are TRUE when all is well; the Summary shows their AND.",
    "The cached results were computed by the same definitions in Python and verified in LibreOffice, "
    "so viewers that do not recalculate still show the right numbers.",
]


def write_cover(wb: xlsxwriter.Workbook, styles: Styles, site: Site, layout: Layout) -> None:
    ws: Any = wb.add_worksheet(COVER)
    ws.set_column(0, 0, 28)
    ws.set_column(1, 1, 110)
    ws.write(0, 0, "GPU site workbook", styles.title)
    rows = [
        ("Site", site.name),
        ("Description", site.description or "-"),
        ("Site file", site.path.name),
        ("Site file SHA-256", site.digest),
        ("Built by", f"gpu-site-workbook {__version__}"),
    ]
    for setting in layout.settings:
        rows.append((setting.label, f"{setting.value} (set in the site file)"))
    r = 2
    for label, text in rows:
        ws.write(r, 0, label, styles.bold)
        ws.write_string(r, 1, text, styles.label)
        r += 1
    r += 1
    ws.write(r, 0, "How to read", styles.bold)
    for line in HOW_TO_READ:
        ws.write_string(r, 1, line, styles.label)
        r += 1
    r += 1
    ws.write(r, 0, "Colours", styles.bold)
    ws.write_string(r, 1, "Input (typed in, change on the Inputs sheet)", styles.input_text)
    ws.write_string(r + 1, 1, "Check TRUE", styles.wb.add_format({**styles.base, "bg_color": "#C6EFCE"}))
    ws.write_string(r + 2, 1, "Check FALSE", styles.wb.add_format({**styles.base, "bg_color": "#FFC7CE"}))
    r += 4
    ws.write(r, 0, "Sheets", styles.bold)
    for title in layout.sheets:
        ws.write_url(r, 1, f"internal:'{title}'!A1", string=f"{title}: {SHEET_PURPOSE.get(title, 'workings')}")
        r += 1
    ws.set_landscape()
    ws.set_paper(9)
    ws.fit_to_pages(1, 0)
    ws.print_area(0, 0, r, 1)
    ws.set_header(PAGE_HEADER)
