"""The Cover: what this workbook is, where its numbers came from, and how to read it."""

from __future__ import annotations

from typing import Any

import numpy as np

from workbook.book import formats, sheets
from workbook.book.sheets import COVER
from workbook.excel.cells import cached
from workbook.excel.fast_formulas import write_formula
from workbook.excel.layout import Layout
from workbook.excel.pages import LINE_HEIGHT, ROW_HEIGHT, TITLE_HEIGHT, Paper, apply, plan_pages, wrapped_lines
from workbook.excel.styles import Styles
from workbook.formula.line import Line
from workbook.site.spec import Site
from workbook.version import __version__

SHEET_PURPOSE = {
    sheets.INPUTS: "every typed-in number, with its unit and source; the only place to change anything",
    sheets.SUMMARY: "the answer (rent or buy) and its figures, the master check, the estimates to confirm first, "
                    "key figures and charts",
    sheets.COMPARISON: "the key figures of the base case and of each scenario side by side (live references)",
    sheets.POWER: "GPU -> node -> rack -> IT load -> facility -> utility feed",
    sheets.FABRIC: "compute rails, leaf/spine/core counts, links, transceivers and their power; storage and OOB "
                   "networks",
    sheets.COOLING: "heat to liquid and air, coolant flow, CDUs, air flow, heat rejection, cold-plate ride-through",
    sheets.BOM: "the bill of materials: every quantity with its reason, budget or quoted unit price, extended cost, "
                "variance and lead time; its total is the TCO's IT capex",
    sheets.TCO: "rent vs buy over a monthly timeline: capex, running costs, rent, NPV, IRR, break-even",
    sheets.PL: "the cost of the cluster by year (roll-ups of the monthly cash flows), tied to the cash flows",
    sheets.CASH: "the monthly timeline: capex, running costs, tax, residual value, rent, discounting, payback",
    sheets.WORKLOAD: "a training run's days and cost on this site and its power envelope, the GPUs that hold its "
                     "state at the ZeRO stage; the users a GPU serves, its tokens/s, prefill, the cost per million "
                     "tokens and the tokens a day at the break-even",
    sheets.SCENARIOS: "each named scenario recalculated live: the lines its changed inputs reach",
    sheets.SCENARIOS_YEARLY: "each scenario's yearly roll-ups, recalculated live",
    sheets.DELAY: f"the built-in scenario one month late, live (its yearly roll-ups: {sheets.DELAY_YEARLY}); the "
                  "TCO's cost of a delay reads it; not printed",
    sheets.SENSITIVITY: "tornado of owned cost per GPU-hour and break-even utilisation (values computed at build "
                        "time)",
    sheets.WORKLOAD_SENSITIVITY: "tornado of the training run's owned cost and the owned cost of a million FP8 "
                                 "tokens (values computed at build time)",
    sheets.RISK: "the odds that buying wins and the percentiles of the decision, from the ranges of the inputs "
                 "(values computed at build time)",
    sheets.CHECKS: "every invariant as TRUE/FALSE, and their AND",
    sheets.ENVELOPE: "the GPUs and compute a fixed feed holds, each fleet, at full power and power-capped",
    sheets.RELIABILITY: "interruptions by component (Llama 3 counts), checkpoint size and bandwidth, the Young/Daly "
                        "interval and goodput, storage sized from the checkpoint burst, spares per part type",
    sheets.UPGRADE_COMPARISON: "the upgrade's plans and moving instead, side by side",
    sheets.UPGRADE_RACKS: "what a rack of each fleet needs and gives, the hall at the start, the projects",
    sheets.UPGRADE_PLANS: "moving instead, and each plan's delivered compute by month",
    sheets.UPGRADE: "one plan month by month: racks, capacity and use zone by zone, whether it fits, compute, cost",
}
APPENDIX = " (in the PDF's monthly appendix)"

HOW_TO_READ = [
    "Blue numbers on yellow are inputs. Everything else that is a number is a live formula.",
    "Formulas name the rows they use (e.g. power_it_load); each name is shown in the Name column beside "
    "its row, and the Name Manager lists them all.",
    "Every row has a unit in the Unit column; values are in that unit. A power of ten converts in the formula "
    "(a W value in a kW row is /1000); any other factor is a named constant with its definition, at the end of "
    "the Inputs sheet (a flow in m³/s times units_cfm_per_m3_s is in CFM).",
    "Notes and sources are in the last column, never in hidden comments. Nothing is hidden.",
    "Checks are TRUE when all is well; the Summary shows their AND.",
    "The cached results were computed by the same definitions in Python and verified in LibreOffice, "
    "so viewers that do not recalculate still show the right numbers.",
]


def write_cover(ws: Any, styles: Styles, site: Site, layout: Layout, paper: Paper,
                headline: list[tuple[Line, np.ndarray]] | None = None, values: dict[str, np.ndarray] | None = None,
                odds: str | None = None) -> None:
    """The Cover, written once every other sheet is planned (its index gives each sheet's first page in the pack).
    `headline`: the answer and its figures, repeated under the title, each a live reference (=its name) to its row,
    so the pack's first page decides; `odds`: the risk's probability that buying wins (a build-time value)."""
    tall: dict[int, float] = {0: TITLE_HEIGHT}  # rows taller than one line of text
    ws.set_column(0, 0, LABEL_WIDTH)  # the longest setting's label whole
    ws.set_column(1, 1, TEXT_WIDTH)
    ws.write(0, 0, "GPU site workbook", styles.title)
    rows = [
        ("Site", site.name),
        ("Description", site.description or "-"),
        ("Site file", site.path.name),
        ("Site file SHA-256", site.digest),
        ("Built by", f"gpu-site-workbook {__version__}"),
    ]
    for setting in (s for s in layout.settings if s.shapes):
        rows.append((setting.label, f"{setting.value} ({_origin(setting.source)})"))
    r = max(2, _headline(ws, styles, headline or [], 1, tall, values))  # under the title: the answer, its figures
    if odds is not None:
        ws.write(r, 0, "Probability that buying wins (Risk sheet; a build-time value)", styles.bold_top)
        ws.write_string(r, 1, odds, styles.text)
        r += 1
    for label, text in rows:
        tall[r] = max(_labelled(ws, r, label, styles), _wrapped(ws, r, text, styles))
        ws.set_row(r, tall[r])
        r += 1
    r += 1
    ws.write(r, 0, "How to read", styles.bold_top)
    for line in [*HOW_TO_READ, _printed(layout)]:
        tall[r] = _wrapped(ws, r, line, styles)
        r += 1
    r += 1
    ws.write(r, 0, "Colours", styles.bold)
    ws.write_string(r, 1, "Input (typed in, change on the Inputs sheet)", styles.input_text)
    ws.write_string(r + 1, 1, "Check TRUE", styles.wb.add_format({**styles.base, "bg_color": "#C6EFCE"}))
    ws.write_string(r + 2, 1, "Check FALSE", styles.wb.add_format({**styles.base, "bg_color": "#FFC7CE"}))
    r += 4
    ws.write(r, 0, "Sheets (page in this pack)", styles.bold)
    r += 1
    index = [t for t in layout.sheets if t != sheets.DELAY_YEARLY]  # named on the delay scenario's own row
    heights = [tall.get(k, ROW_HEIGHT) for k in range(r + len(index) + 1)]
    rows_at = {}
    for k, title in enumerate(index):
        purpose = SHEET_PURPOSE.get(title) or SHEET_PURPOSE.get(title.split(" (")[0], "workings")
        heights[r + k] = _row_height(wrapped_lines(purpose + APPENDIX, TEXT_WIDTH))
        rows_at[title] = (r + k, purpose)
    layout.pages[COVER] = plan = plan_pages(paper, [LABEL_WIDTH, TEXT_WIDTH], heights)
    first = first_pages(layout, plan.pages)
    link = _link(styles)
    for title, (row, purpose) in rows_at.items():
        at = f"page {first[title]}: " if title in first else ""
        where = APPENDIX if title in layout.appendix and title not in sheets.NOT_PRINTED else ""
        ws.write_url(row, 0, f"internal:'{title}'!A1", link, string=title)
        _wrapped(ws, row, at + purpose + where, styles)
    apply(ws, paper, plan)


def first_pages(layout: Layout, cover_pages: int) -> dict[str, int]:
    """Each sheet's first page in the reviewer's pack (the Cover first, then every sheet the pack prints, in order,
    each as many pages as its plan): what the Cover's index says."""
    out, page = {}, cover_pages + 1
    for title in layout.sheets:
        if title in sheets.NOT_PRINTED or title in layout.appendix or title not in layout.pages:
            continue
        out[title] = page
        page += layout.pages[title].pages
    return out


def _printed(layout: Layout) -> str:
    """What the pack prints and what it leaves to the workbook (the monthly detail)."""
    monthly = [t for t in layout.sheets if t in layout.appendix and t not in sheets.NOT_PRINTED]
    if not monthly:
        return "The PDF prints every sheet but the delay scenario's."
    return (f"The PDF prints the yearly and single-value sheets; the monthly detail ({', '.join(monthly)}) is in "
            "the workbook, and printed only on request (python -m workbook pdf --monthly, a year a page across).")


def _headline(ws: Any, styles: Styles, headline: list[tuple[Line, np.ndarray]], r: int, tall: dict[int, float],
              values: dict[str, np.ndarray] | None = None) -> int:
    """The headline's rows from `r`, each =its line's name in the number format of its row (the answer's sentence,
    a figure with its unit); a label wider than its column wraps, its row as tall as its lines (recorded in `tall`
    for the page plan), never cut by the figure beside it; returns the next row."""
    for line, value in headline:
        shown = formats.shown(line, value)
        unit = "" if formats.worded(line.fmt) or line.is_bool or not shown.unit else f" ({shown.unit})"
        height = _labelled(ws, r, line.label + unit, styles)
        if height > ROW_HEIGHT:
            tall[r] = height
            ws.set_row(r, tall[r])
        if line.is_bool:
            fmt = styles.value(line.fmt, "check")
        elif formats.worded(line.fmt):
            fmt = styles.sentence_value(shown.fmt)
        else:
            fmt = styles.value(shown.fmt, line.kind)
        write_formula(ws, r, 1, f"={line.name}", fmt, cached(line, value, values=values))
        r += 1
    return r


def _link(styles: Styles) -> Any:
    """A link to a sheet: its title alone, in the label column (LibreOffice does not wrap a hyperlink's text, so a
    long one would run past the page's edge); the sheet's purpose is wrapped plain text beside it."""
    return styles.wb.add_format({**styles.base, "font_color": "#0563C1", "underline": 1, "valign": "top"})


def _origin(source: str) -> str:
    """Where a structural choice came from, as its source says: a default, the catalog, or the site file."""
    if source.startswith("default"):
        return "the default"
    if source.startswith("catalog"):
        return "from the catalog"
    return "set in the site file"


TEXT_WIDTH = 110  # characters in the Cover's text column
LABEL_WIDTH = 58  # characters in its label column: the longest setting's label whole


def _labelled(ws: Any, row: int, label: str, styles: Styles) -> float:
    """A bold label in the label column, wrapped where it is wider than the column (never cut by the figure or
    text beside it); returns the height its lines need."""
    lines = wrapped_lines(label, LABEL_WIDTH, bold=True)
    ws.write(row, 0, label, styles.bold_wrap if lines > 1 else styles.bold_top)
    return _row_height(lines)


def _wrapped(ws: Any, row: int, text: str, styles: Styles) -> float:
    """A text wrapped in its column, with the row as tall as its lines (viewers and the PDF export do not all
    size a row to wrapped text, and a short row lets the text run over the next); returns the row's height."""
    ws.write_string(row, 1, text, styles.text)
    height = _row_height(wrapped_lines(text, TEXT_WIDTH))
    ws.set_row(row, height)
    return height


def _row_height(lines: int) -> float:
    """A Cover row's height in points for its lines of wrapped text (one line at least)."""
    return max(ROW_HEIGHT, LINE_HEIGHT * lines + 2.25)
