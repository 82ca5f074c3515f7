"""The Changes workbook (python -m workbook explain ... -o): what differs between two versions of a site and how
much each difference moved the headline outputs, as values computed at build time and labelled so. Sheet
Bridge: the two files with their SHA-256, the method, the bridge table (old value, a row per step, new value,
and the check that the steps sum to the change), and a waterfall per output. Sheet Differences: every
difference, its old and new value and source, and the step it is in.

A waterfall is a stacked column chart with an invisible base (xlsxwriter has no waterfall chart): a step's bar
floats from the running total before it to the one after. Columns stack their positive values up from zero and
their negative values down from it, so a bar below zero floats on a negative base, and a bar that crosses zero is
drawn as its part above and its part below."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any

import xlsxwriter

from workbook.book import formats
from workbook.excel.pages import CHART_FONT, PAPERS, ROW_HEIGHT, TITLE_HEIGHT, Block, apply, lines_height, plan_pages
from workbook.excel.styles import FONT, Styles
from workbook.explain.bridge import Bridge, Output
from workbook.explain.report import figure

BRIDGE, DIFFERENCES = "Bridge", "Differences"
STEP_WIDTH = 34  # the bridge table's first column: a step's name
OUTPUT_WIDTH = 15  # each output's column
CHART_ROWS = 15  # rows (225 points) a chart takes, with a gap: two or three charts on a landscape page
CHART_WIDTH, CHART_HEIGHT = 900, 280  # pixels (210 points)
UP, DOWN, TOTAL = "#548235", "#C00000", "#1F3864"  # an increase, a decrease, the old and new values
DIFF_WIDTHS = [7, 24, 24, 16, 16, 13, 25, 25]  # kind, key, label, old, new, step, old source, new source


def changes_workbook(bridge: Bridge, paper: str = "a4") -> bytes:
    """The workbook's bytes (nothing is written here; the caller writes them all or nothing)."""
    buffer = io.BytesIO()
    wb = xlsxwriter.Workbook(buffer, {"in_memory": True})
    wb.set_properties({"title": f"Changes: {bridge.old.name} to {bridge.new.name}",
                       "comments": f"old SHA-256 {bridge.old.sha256}; new SHA-256 {bridge.new.sha256}"})
    styles = Styles(wb)
    _bridge_sheet(wb, wb.add_worksheet(BRIDGE), styles, bridge, paper)
    _differences_sheet(wb.add_worksheet(DIFFERENCES), styles, bridge, paper)
    wb.close()
    return buffer.getvalue()


@dataclass(frozen=True)
class Shown:
    """How an output's figures are shown: its unit, the format of a version's value and of a step (a step of a
    share in percentage points: its value x 100), and what a chart label divides money by."""

    unit: str
    fmt: str
    step_fmt: str
    step_factor: float = 1.0
    divisor: float = 1.0


def shown(bridge: Bridge, oi: int) -> Shown:
    """Money in MUSD where every step is 10 MUSD or more, else in kUSD (else USD): three figures of each step; a
    share in % and its steps in percentage points; else the line's own format, its steps to two more decimals."""
    o = bridge.outputs[oi]
    if o.unit == "USD":
        steps = [abs(x) for x in bridge.steps[:, oi] if math.isfinite(x) and x]
        smallest = min(steps, default=math.inf)
        scale = ",," if smallest >= 1e7 else "," if smallest >= 1e3 else ""  # three figures of each step
        fmt = formats.money(scale)
        return Shown(formats.scaled_unit("USD", scale), fmt, fmt, divisor={",,": 1e6, ",": 1e3, "": 1.0}[scale])
    if o.unit == "%":
        return Shown("%", "0.0%", formats.signed(2, "pp"), 100.0)  # the Sensitivity sheet's pp
    return Shown(o.unit, formats.negatives_in_parentheses(o.fmt), formats.plain(formats.decimals(o.fmt) + 2))


def _bridge_sheet(wb: Any, ws: Any, styles: Styles, bridge: Bridge, paper: str) -> None:
    outputs = bridge.outputs
    hows = [shown(bridge, k) for k in range(len(outputs))]
    widths = [STEP_WIDTH] + [OUTPUT_WIDTH] * len(outputs)
    last = len(widths) - 1
    heights: dict[int, float] = {0: TITLE_HEIGHT}
    ws.write(0, 0, "Changes: how much each difference between two versions of the site moved its headline "
                   "outputs", styles.title)
    row = 1
    for text in [*_header_texts(bridge), *(f"Note: {n}" for n in bridge.notes)]:
        ws.merge_range(row, 0, row, last, text, styles.text)
        heights[row] = lines_height(text, sum(widths))
        row += 1
    head = row + 1
    ws.write_string(head, 0, "Step", styles.header_wrap)
    titles = [f"{o.label} ({how.unit})" for o, how in zip(outputs, hows, strict=True)]
    for k, title in enumerate(titles):
        ws.write_string(head, 1 + k, title, styles.header_wrap)
    heights[head] = max(lines_height(title, OUTPUT_WIDTH, bold=True) for title in titles)
    table = [("Old version", [o.old for o in outputs], False, styles.bold_wrap)]
    table += [(g.name, [float(bridge.steps[gi, oi]) for oi in range(len(outputs))], True, styles.text)
              for gi, g in enumerate(bridge.groups)]
    table += [("New version", [o.new for o in outputs], False, styles.bold_wrap),
              ("Change (new - old)", [o.new - o.old for o in outputs], True, styles.bold_wrap),
              ("Steps' sum - change (0 up to rounding)", [_residual(bridge, oi) for oi in range(len(outputs))],
               True, styles.text)]
    error = bridge.attribution.error
    if error is not None:  # an estimated bridge: each step's standard error, as its header says
        table += [(f"{g.name}: standard error (sampled orders)", [float(error[gi, oi]) for oi in range(len(outputs))],
                   True, styles.text) for gi, g in enumerate(bridge.groups)]
    for k, (label, values, step, style) in enumerate(table):
        r = head + 1 + k
        ws.write_string(r, 0, label, style)
        heights[r] = lines_height(label, STEP_WIDTH)
        for c, (v, how) in enumerate(zip(values, hows, strict=True)):
            if math.isfinite(v):
                ws.write_number(r, 1 + c, v * how.step_factor if step else v,
                                styles.value(how.step_fmt if step else how.fmt, "calc"))
            else:
                ws.write_string(r, 1 + c, "n/a", styles.unit)
    charts_at = head + len(table) + 2
    data_at = charts_at + CHART_ROWS * len(outputs) + 1
    spans = []
    for k, o in enumerate(outputs):
        at = data_at + k * (len(bridge.groups) + 4)
        top = charts_at + k * CHART_ROWS
        spans.append((top, top + CHART_ROWS - 1))
        if not all(math.isfinite(v) for v in (o.old, o.new, *bridge.steps[:, k])):
            ws.merge_range(top, 0, top, last, f"No waterfall of {o.label.lower()}: it has no value in a version or in "
                           "a mix of the two (n/a in the table above).", styles.text)
            continue
        bars = waterfall(bridge, k)
        _waterfall_data(ws, styles, bars, o, hows[k], at)
        ws.insert_chart(top, 0, _waterfall(wb, ws.name, bars, o, hows[k], at), {"y_offset": 4})
    for col, width in enumerate(widths):
        ws.set_column(col, col, width)
    rows = [heights.get(r, ROW_HEIGHT) for r in range(spans[-1][1] + 1)]
    for r, h in enumerate(rows):
        ws.set_row(r, h)
    blocks = [Block((0, charts_at - 1), (0, last)), *(Block(s, (0, last)) for s in spans)]
    plan = plan_pages(PAPERS[paper], widths, rows, keep=spans, sections={head}, smallest=CHART_FONT, blocks=blocks)
    apply(ws, PAPERS[paper], plan)


def _header_texts(bridge: Bridge) -> list[str]:
    return [
        f"Old version: site {bridge.old.loaded.site.name!r}: {bridge.old.files}.",
        f"New version: site {bridge.new.loaded.site.name!r}: {bridge.new.files}.",
        "Computed at build time by the Python model (the same definitions as every formula of the site's workbook): "
        "values, not formulas; run python -m workbook explain again to refresh them. Each step is the Shapley value "
        "of its group of differences: the average of what the group changes over every order in which the groups "
        "could be made, so no order is chosen and the steps sum to the whole change. Method: "
        f"{bridge.method}. A step of parts, choices and quotes holds the differences that change the book's rows "
        "(evaluated as the new version with the old values put back).",
    ]


def _residual(bridge: Bridge, oi: int) -> float:
    o = bridge.outputs[oi]
    return float(bridge.steps[:, oi].sum()) - (o.new - o.old)


def _waterfall_data(ws: Any, styles: Styles, bars: Bars, o: Output, how: Shown, at: int) -> None:
    """The chart's columns below the charts (not printed): each bar's category (its name and figure: a label
    inside a thin bar could not be read), base, up, up below 0, down, down below 0, version."""
    ws.write_row(at, 0, [f"Waterfall data: {o.label}", "Base", "Increase", "Increase (below 0)", "Decrease",
                         "Decrease (below 0)", "Version"], styles.bold)
    for k, (name, parts, label) in enumerate(bars):
        ws.write_string(at + 1 + k, 0, f"{name}: {label}", styles.label)
        for c, v in enumerate(parts):
            if v:
                ws.write_number(at + 1 + k, 1 + c, v, styles.value(how.fmt, "calc"))


Bars = list[tuple[str, tuple[float, ...], str]]  # a waterfall's bars: name, stacked parts, label


def waterfall(bridge: Bridge, oi: int) -> Bars:
    """Each bar of an output's waterfall: its name, its stacked parts (base, up, up below 0, down, down below 0,
    version) and its label. A step from a to b: below or above zero, a base to the nearer end and a bar to the
    other; across zero, no base and a bar on each side."""
    o = bridge.outputs[oi]
    how = shown(bridge, oi)
    bars = [("Old version", (0.0, 0.0, 0.0, 0.0, 0.0, o.old), short(o.old, o, how))]
    total = o.old
    for gi, g in enumerate(bridge.groups):
        step = float(bridge.steps[gi, oi])
        a, b = total, total + step
        lo, hi = min(a, b), max(a, b)
        if lo >= 0:
            base, above, below = lo, hi - lo, 0.0
        elif hi <= 0:
            base, above, below = hi, 0.0, lo - hi
        else:
            base, above, below = 0.0, hi, lo
        parts = (base, above, below, 0.0, 0.0, 0.0) if step >= 0 else (base, 0.0, 0.0, above, below, 0.0)
        bars.append((g.name, parts, short(step, o, how, signed=True)))
        total = b
    bars.append(("New version", (0.0, 0.0, 0.0, 0.0, 0.0, o.new), short(o.new, o, how)))
    return bars


def short(value: float, o: Output, how: Shown, signed: bool = False) -> str:
    """A bar's label in the chart's unit (its title says which): money scaled as the table shows it, a share in %
    (a step in percentage points)."""
    if o.unit == "USD":
        places = 1 if how.divisor == 1e6 else 0
        return f"{value / how.divisor:{'+' if signed else ''},.{places}f}" if math.isfinite(value) else "n/a"
    text = figure(value, o, signed)
    return text.replace(" %", "%") if o.unit == "%" else text.removesuffix(f" {o.unit}")


def _waterfall(wb: Any, sheet: str, bars: Bars, o: Output, how: Shown, at: int) -> Any:
    n = len(bars)
    first, last = at + 1, at + n
    chart = wb.add_chart({"type": "column", "subtype": "stacked"})
    font = {"name": FONT, "size": CHART_FONT}
    fills = [None, UP, UP, DOWN, DOWN, TOTAL]
    for c, fill in enumerate(fills):
        series = {"name": [sheet, at, 1 + c], "categories": [sheet, first, 0, last, 0],
                  "values": [sheet, first, 1 + c, last, 1 + c], "gap": 40}
        series |= {"fill": {"none": True} if fill is None else {"color": fill}, "border": {"none": True}}
        chart.add_series(series)
    chart.set_title({"name": f"{o.label} ({how.unit}): from the old version to the new",
                     "name_font": {"name": FONT, "size": 10, "bold": True}})
    chart.set_legend({"none": True})
    chart.set_x_axis({"num_font": {**font, "rotation": -30} if n > 6 else font, "label_position": "low"})
    y = {"num_format": how.fmt, "num_font": font, "major_gridlines": {"visible": True, "line": {"color": "#D9D9D9"}}}
    ends = [v for bar in bars for v in _ends(bar[1])]
    if min(ends) >= 0:
        y["min"] = 0  # from zero: a bar's height is its value (a cut axis would magnify every step)
    elif max(ends) <= 0:
        y["max"] = 0
    chart.set_y_axis(y)
    chart.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
    return chart


def _ends(parts: tuple[float, ...]) -> tuple[float, float]:
    """Where a bar starts and ends."""
    top = parts[0] + sum(p for p in parts[1:] if p > 0)
    bottom = parts[0] + sum(p for p in parts[1:] if p < 0)
    return bottom, top


def _differences_sheet(ws: Any, styles: Styles, bridge: Bridge, paper: str) -> None:
    heights: dict[int, float] = {0: TITLE_HEIGHT}
    last = len(DIFF_WIDTHS) - 1
    ws.write(0, 0, "Differences between the two versions, in the Inputs sheet's order", styles.title)
    said = (f"Old: {bridge.old.files}. New: {bridge.new.files}. A difference that moves no headline output (a "
            "source alone, a scenario, the risk ranges) is listed with no step.")
    ws.merge_range(1, 0, 1, last, said, styles.text)
    heights[1] = lines_height(said, sum(DIFF_WIDTHS))
    head = 3
    titles = ["Kind", "Key", "What", "Old", "New", "Step it is in", "Old source", "New source"]
    for c, t in enumerate(titles):
        ws.write_string(head, c, t, styles.header_wrap)
    step_of = {key: g.name for g in bridge.groups for key in g.differences}
    for k, d in enumerate(bridge.differences):
        r = head + 1 + k
        unit = f" [{d.unit}]" if d.unit else ""
        cells = [d.kind, d.key, d.label + unit, d.old or "(none)", d.new or "(none)", step_of.get(d.key, ""),
                 d.old_source, d.new_source]
        for c, text in enumerate(cells):
            ws.write_string(r, c, text, styles.text)
        heights[r] = lines_height(cells, DIFF_WIDTHS)
    for col, width in enumerate(DIFF_WIDTHS):
        ws.set_column(col, col, width)
    rows = [heights.get(r, ROW_HEIGHT) for r in range(head + 1 + len(bridge.differences))]
    for r, h in enumerate(rows):
        ws.set_row(r, h)
    ws.freeze_panes(head + 1, 0)
    plan = plan_pages(PAPERS[paper], DIFF_WIDTHS, rows, header_row=head)
    apply(ws, PAPERS[paper], plan)
