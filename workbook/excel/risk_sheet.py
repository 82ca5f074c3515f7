"""The Risk sheet: the decision under the `risk:` section's input distributions (analysis.risk), as values computed
at build time and labelled so: the odds first (the probability that buying wins, the expected shortfall, where
the base case falls), the percentiles of each output, the inputs that drive the spread, the correlations asked
for and those the samples carry; then the S-curve of the NPV advantage with the base case marked, and the inputs'
contributions as bars. The S-curve's points are written below the charts and not printed."""

from __future__ import annotations

import math
from typing import Any

import xlsxwriter

from workbook.analysis.risk.analysis import CURVE_POINTS, PERCENTILES, SHORTFALL, RiskResult, Statistic, describe
from workbook.analysis.risk.drivers import METHOD
from workbook.book import formats
from workbook.excel.pages import (
    CHART_FONT,
    ROW_HEIGHT,
    TITLE_HEIGHT,
    Block,
    PagePlan,
    Paper,
    apply,
    lines_height,
    plan_pages,
)
from workbook.excel.styles import Styles
from workbook.formula.line import BREAK_EVEN_SHORT, COUNT

WIDTHS = [29, 10] + [10] * 9  # the label, the unit (USD/Mtoken), nine figures: one page across, at 100%
CHART_ROWS = 15  # rows (225 points) a 280-pixel chart takes, with a gap: two charts print on one page
CHARTS = 4  # the S-curve, the histogram, the drivers, the convergence
CHART_WIDTH, CHART_HEIGHT = 880, 280  # pixels
MUSD = formats.money(",,")
SHARE = "0.0%"
RANK = "+0.00;-0.00;0.00"
MEAN = "#,##0.0"  # a whole-number input's mean (13 months would hide 12.9)


NEVER = BREAK_EVEN_SHORT  # a break-even utilisation above 100% (the TCO sheet's words, short enough for a column)


def _shown(stat: Statistic) -> tuple[str, str]:
    """An output's unit as shown and its number format: money in MUSD; a break-even above 100% as never."""
    if stat.unit == "USD":
        return "MUSD", MUSD
    if '"never' in stat.fmt:
        return stat.unit, NEVER
    return stat.unit, formats.negatives_in_parentheses(stat.fmt)


def write_risk(wb: xlsxwriter.Workbook, ws: Any, styles: Styles, risk: RiskResult, paper: Paper,
               plans: dict[str, PagePlan], current: str) -> None:
    """The sheet, its charts, and how it prints: the tables and the charts, not the S-curve's points."""
    last = len(WIDTHS) - 1
    heights: dict[int, float] = {0: TITLE_HEIGHT}
    ws.write(0, 0, "Risk: how likely buying wins, from the ranges of the inputs", styles.title)
    _said(ws, styles, 1, heights, _note(risk))
    row = 3
    if current:
        ws.merge_range(row, 0, row, last, current, styles.bold_wrap)
        heights[row] = lines_height(current, sum(WIDTHS), bold=True)
        row += 2
    for label, unit, value, fmt, said in _facts(risk):
        ws.write_string(row, 0, label, styles.bold_wrap)
        ws.write_string(row, 1, unit, styles.unit)
        ws.write_number(row, 2, value, styles.value(fmt, "calc"))
        ws.merge_range(row, 3, row, last, said, styles.text)
        heights[row] = max(lines_height(said, sum(WIDTHS[3:])), lines_height(label, WIDTHS[0], bold=True))
        row += 1
    heads = {row + 1}  # each table's header: never alone at a page's foot
    row = _statistics(ws, styles, risk, row + 1, heights)
    head, row = _contributions(ws, styles, risk, row + 1, heights)
    heads |= {head, row + 1}
    row = _correlations(ws, styles, risk, row + 1, heights)
    charts_at = row + 1
    data_at = charts_at + CHARTS * CHART_ROWS + 1
    bins_at = data_at + CURVE_POINTS + 6
    bars_at = bins_at + len(risk.histogram) + 3
    steps_at = bars_at + len(risk.contributions) + 3
    _curve_data(ws, styles, risk, data_at)
    _histogram_data(ws, styles, risk, bins_at)
    _bars_data(ws, styles, risk, bars_at)
    _convergence_data(ws, styles, risk, steps_at)
    charts = (_s_curve(wb, ws.name, risk, data_at), _histogram(wb, ws.name, risk, bins_at + 1),
              _bars(wb, ws.name, risk, bars_at + 1), _convergence(wb, ws.name, risk, steps_at + 1))
    for k, chart in enumerate(charts):
        ws.insert_chart(charts_at + k * CHART_ROWS, 0, chart, {"y_offset": 3})
    for col, width in enumerate(WIDTHS):
        ws.set_column(col, col, width)
    ws.freeze_panes(0, 1)  # the labels stay in view
    rows = [heights.get(r, ROW_HEIGHT) for r in range(steps_at + len(risk.convergence) + 1)]
    for r, h in enumerate(rows):
        ws.set_row(r, h)
    spans = [(charts_at + k * CHART_ROWS, charts_at + (k + 1) * CHART_ROWS - 1) for k in range(CHARTS)]
    blocks = [Block((0, charts_at - 1), (0, last)), *(Block(span, (0, last)) for span in spans)]
    plans[ws.name] = plan = plan_pages(paper, WIDTHS, rows[:spans[-1][1] + 1], keep=spans, sections=heads,
                                       smallest=CHART_FONT, blocks=blocks)
    apply(ws, paper, plan)


def _note(risk: RiskResult) -> str:
    excluded = sum(risk.excluded.values())
    left = (f" {excluded:,} samples were left out (each breaks a rule or a check the model relies on, or leaves the "
            f"decision with no value: {'; '.join(f'{k}: {v:,}' for k, v in risk.excluded.items())})."
            if excluded else " No sample broke a rule or a check the model relies on.")
    return (f"Computed at build time by the Python model (the same definitions as every formula): {risk.samples:,} "
            f"samples of the inputs below, drawn from the distributions of the site file's risk: section (seed "
            f"{risk.seed}; Latin hypercube sampling, scipy.stats.qmc; rank correlations induced by Iman-Conover), "
            f"every other input as built, evaluated as one batch.{left} Percentiles: linear between the samples, as "
            f"Excel's PERCENTILE.INC. These are values, not formulas: rebuild the workbook (or run python -m workbook "
            f"risk) to refresh them.")


def _facts(risk: RiskResult) -> list[tuple[str, str, float, str, str]]:
    d = risk.decision
    return [
        ("Probability that buying wins", "%", risk.probability_buy_wins, SHARE,
         f"The share of the {risk.kept:,} samples kept in which the NPV advantage of buying is above 0 (standard "
         f"error {risk.convergence[-1].probability_error * 100:.2f} percentage points; the median NPV advantage's "
         f"{risk.convergence[-1].median_error / 1e6:,.2f} MUSD: the last chart shows them fall as samples grow)."),
        (f"Expected shortfall: mean NPV advantage in the worst {SHORTFALL:.0%}", "MUSD", risk.expected_shortfall,
         MUSD,
         f"The mean NPV advantage of buying in the worst {SHORTFALL:.0%} of samples: what buying gains (if positive) "
         f"or costs (negative) on average when the inputs go against it."),
        ("Base case percentile (NPV advantage)", "%", d.base_percentile, SHARE,
         f"The share of samples with an NPV advantage at or below the base case's ({d.base / 1e6:,.1f} MUSD): below "
         f"50%, the ranges lean towards buying; above, towards renting."),
    ]


def _header(ws: Any, styles: Styles, row: int, titles: list[str], heights: dict[int, float]) -> None:
    for col, title in enumerate(titles):
        ws.write_string(row, col, title, styles.header_wrap)
    heights[row] = max(lines_height(t, WIDTHS[min(c, len(WIDTHS) - 1)], bold=True) for c, t in enumerate(titles))


def _statistics(ws: Any, styles: Styles, risk: RiskResult, row: int, heights: dict[int, float]) -> int:
    """The percentiles of each output; returns the next free row."""
    _header(ws, styles, row, ["Output", "Unit", "Base case", "Mean", *(f"P{p}" for p in PERCENTILES),
                              "Base case at", "Samples with a value"], heights)
    for k, stat in enumerate(risk.statistics):
        r = row + 1 + k
        unit, fmt = _shown(stat)
        ws.write_string(r, 0, stat.label, styles.text)
        ws.write_string(r, 1, unit, styles.unit)
        for col, v in enumerate((stat.base, stat.mean, *stat.percentiles)):
            _number(ws, styles, r, 2 + col, v, fmt)
        _number(ws, styles, r, 9, stat.base_percentile, SHARE)
        ws.write_number(r, 10, stat.count, styles.value("#,##0", "calc"))
        heights[r] = lines_height(stat.label, WIDTHS[0])
    return _said(ws, styles, row + 1 + len(risk.statistics), heights, _statistics_note(risk))


def _statistics_note(risk: RiskResult) -> str:
    """How each output is counted: every kept sample, an IRR's left-out samples said by why."""
    said = []
    for stat in risk.statistics:
        if stat.left_out:
            why = "; ".join(f"{count:,} ({count / risk.kept:.1%}) {reason}" for reason, count in stat.left_out)
            said.append(f"{stat.label}: of the {risk.kept:,} samples kept, {why}; its percentiles are over the "
                        f"{stat.count:,} with one proven root.")
    return " ".join([
        "Every kept sample is counted. An output is summarised over the samples in which it has a value. A "
        "break-even utilisation above 100% is never reached (shown as never; no mean: a mean of never is no figure). "
        "An IRR is a proven root of the NPV from -99% to +1,000% a year (TCO sheet: the IRR search); IRRs do not "
        "average (no mean): decide on the NPV.", *said])


def _contributions(ws: Any, styles: Styles, risk: RiskResult, row: int,
                   heights: dict[int, float]) -> tuple[int, int]:
    """The inputs varied, widest influence first, each with its source on the row below; returns the header's
    row and the next free row."""
    _header(ws, styles, row, ["Input (what drives the spread of the NPV advantage)", "Unit",
                              "Share of the variance (Shapley effect)", "Rank correlation with the NPV advantage",
                              "Partial rank correlation (its own)", "Base case", "Mean of its range", "", "", "", ""],
            heights)
    ws.merge_range(row, 7, row, 10, "Distribution (in the input's unit)", styles.header_wrap)
    for k, c in enumerate(risk.contributions):
        r = row + 1 + 2 * k
        fmt = formats.negatives_in_parentheses(c.fmt)
        ws.write_string(r, 0, c.label, styles.text)
        ws.write_string(r, 1, c.unit, styles.unit)
        for col, (value, shown) in enumerate(((c.share, SHARE), (c.rank, RANK), (c.partial, RANK), (c.base, fmt),
                                              (c.mean, MEAN if c.fmt == COUNT else fmt)), start=2):
            _number(ws, styles, r, col, value, shown)
        text = describe(c.distribution)
        ws.merge_range(r, 7, r, 10, text, styles.text)
        heights[r] = max(lines_height(c.label, WIDTHS[0]), lines_height(text, sum(WIDTHS[7:])))
        source = f"Source of the range: {c.distribution.source}"
        ws.merge_range(r + 1, 1, r + 1, 10, source, styles.note)
        heights[r + 1] = lines_height(source, sum(WIDTHS[1:]))
    return row, _said(ws, styles, row + 1 + 2 * len(risk.contributions), heights, (
        f"Share of the variance: {METHOD}; largest first. Together the inputs explain {risk.explained:.1%} of the "
        "variance of the NPV advantage; the rest is what no such regression on them explains. Rank correlation: "
        "Spearman's, of the input's samples with the NPV advantage's (+1: the higher the input, the more buying "
        "gains); where inputs move together it carries their effect too, or cancels it. Partial rank correlation: "
        "the input's own effect, every other input's ranks held."))


def _said(ws: Any, styles: Styles, row: int, heights: dict[int, float], text: str) -> int:
    """A sentence across the sheet's width, wrapped; returns the next free row."""
    ws.merge_range(row, 0, row, len(WIDTHS) - 1, text, styles.text)
    heights[row] = lines_height(text, sum(WIDTHS))
    return row + 1


def _correlations(ws: Any, styles: Styles, risk: RiskResult, row: int, heights: dict[int, float]) -> int:
    if not risk.achieved:
        return row
    _header(ws, styles, row, ["Inputs that move together (rank correlation)", "", "Asked for", "In the samples",
                              "Source", "", "", "", "", "", ""], heights)
    ws.merge_range(row, 4, row, 10, "Source", styles.header_wrap)
    sources = {(c.first, c.second): c.source for c in risk.plan.correlations}
    for k, (a, b, target, got) in enumerate(risk.achieved):
        r = row + 1 + k
        ws.merge_range(r, 0, r, 1, f"{a} and {b}", styles.text)
        _number(ws, styles, r, 2, target, RANK)
        _number(ws, styles, r, 3, got, RANK)
        ws.merge_range(r, 4, r, 10, sources[(a, b)], styles.text)
        heights[r] = lines_height([f"{a} and {b}", sources[(a, b)]], [WIDTHS[0] + WIDTHS[1], sum(WIDTHS[4:])])
    return row + 1 + len(risk.achieved)


def _curve_data(ws: Any, styles: Styles, risk: RiskResult, row: int) -> None:
    """The S-curve's points (not printed): each cumulative probability and the NPV advantage there; the base case;
    and the zero line."""
    d = risk.decision
    ws.write_string(row, 0, "The S-curve's points (the chart's data; not printed)", styles.bold)
    _header(ws, styles, row + 1, ["Cumulative probability", "", "NPV advantage"], {})
    for k, v in enumerate(risk.curve):
        ws.write_number(row + 2 + k, 0, k / (CURVE_POINTS - 1), styles.value(SHARE, "calc"))
        ws.write_number(row + 2 + k, 2, v, styles.value(MUSD, "calc"))
    extra = row + 2 + CURVE_POINTS
    ws.write_string(extra, 0, "Base case: its percentile and NPV advantage", styles.label)
    ws.write_number(extra, 1, d.base_percentile, styles.value(SHARE, "calc"))
    ws.write_number(extra, 2, d.base, styles.value(MUSD, "calc"))
    ws.write_string(extra + 1, 0, "Break-even (NPV advantage 0), from 0% to 100%", styles.label)
    for k in range(2):
        ws.write_number(extra + 1 + k, 1, float(k), styles.value(SHARE, "calc"))
        ws.write_number(extra + 1 + k, 2, 0.0, styles.value(MUSD, "calc"))


def _bars_data(ws: Any, styles: Styles, risk: RiskResult, row: int) -> None:
    """The contribution chart's data (not printed): each input's label and its share of the variance."""
    ws.write_string(row, 0, "The contributions chart's data (not printed): share of the variance", styles.bold)
    for k, c in enumerate(risk.contributions):
        ws.write_string(row + 1 + k, 0, c.label, styles.label)
        _number(ws, styles, row + 1 + k, 2, c.share, SHARE)


def _histogram_data(ws: Any, styles: Styles, risk: RiskResult, row: int) -> None:
    """The histogram's bins (not printed): each bin's middle and its share of the samples kept."""
    ws.write_string(row, 0, "The histogram's data (not printed): bin from, to, its middle, share of samples",
                    styles.bold)
    for k, (lo, hi, count) in enumerate(risk.histogram):
        r = row + 1 + k
        for col, v in ((0, lo), (1, hi), (2, (lo + hi) / 2)):
            ws.write_number(r, col, v, styles.value(MUSD, "calc"))
        ws.write_number(r, 3, count / risk.kept, styles.value(SHARE, "calc"))


def _convergence_data(ws: Any, styles: Styles, risk: RiskResult, row: int) -> None:
    """The convergence (not printed): at each count of samples, the odds and the median with their errors."""
    ws.write_string(row, 0, "The convergence's data (not printed): samples, P(buy wins), its standard error, P50, "
                            "its standard error, that as a share of P10-P90", styles.bold)
    d = risk.decision
    spread = d.percentiles[PERCENTILES.index(90)] - d.percentiles[PERCENTILES.index(10)]
    for k, c in enumerate(risk.convergence):
        r = row + 1 + k
        ws.write_number(r, 0, c.samples, styles.value("#,##0", "calc"))
        relative = c.median_error / spread if spread > 0 else math.nan
        for col, (v, fmt) in enumerate(((c.probability, SHARE), (c.probability_error, "0.00%"), (c.median, MUSD),
                                        (c.median_error, MUSD), (relative, "0.00%")), start=1):
            _number(ws, styles, r, col, v, fmt)


def _histogram(wb: xlsxwriter.Workbook, sheet: str, risk: RiskResult, first: int) -> Any:
    last = first + len(risk.histogram) - 1
    chart = wb.add_chart({"type": "column"})
    chart.add_series({"name": "Share of samples in the bin", "categories": [sheet, first, 2, last, 2],
                      "values": [sheet, first, 3, last, 3], "gap": 10})
    chart.set_title({"name": f"NPV advantage of buying: histogram of the {risk.kept:,} samples kept "
                             f"({len(risk.histogram)} bins of equal width; buying wins right of 0)",
                     "name_font": {"size": 10}})
    chart.set_x_axis({"name": "NPV advantage of buying, middle of the bin (MUSD)", "num_format": "#,##0.0,,",
                      "num_font": {"size": CHART_FONT}})
    chart.set_y_axis({"name": "share of samples", "num_format": "0%", "num_font": {"size": CHART_FONT},
                      "major_gridlines": {"visible": True}})
    chart.set_legend({"none": True})
    chart.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
    return chart


def _convergence(wb: xlsxwriter.Workbook, sheet: str, risk: RiskResult, first: int) -> Any:
    last = first + len(risk.convergence) - 1
    chart = wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    chart.add_series({"name": "Standard error of the probability that buying wins (percentage points)",
                      "categories": [sheet, first, 0, last, 0], "values": [sheet, first, 2, last, 2]})
    chart.add_series({"name": "Standard error of the median NPV advantage, as a share of its spread P10-P90",
                      "categories": [sheet, first, 0, last, 0], "values": [sheet, first, 5, last, 5]})
    chart.set_title({"name": "How far the figures can be trusted: their standard errors as the samples grow",
                     "name_font": {"size": 10}})
    chart.set_x_axis({"name": "samples (log scale)", "log_base": 10, "num_format": "#,##0",
                      "num_font": {"size": CHART_FONT}, "major_gridlines": {"visible": True}})
    chart.set_y_axis({"name": "standard error", "num_format": "0.0%", "num_font": {"size": CHART_FONT},
                      "major_gridlines": {"visible": True}, "min": 0})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
    return chart


def _s_curve(wb: xlsxwriter.Workbook, sheet: str, risk: RiskResult, row: int) -> Any:
    first, last = row + 2, row + 1 + CURVE_POINTS
    extra = last + 1
    chart = wb.add_chart({"type": "scatter", "subtype": "straight"})
    chart.add_series({"name": "NPV advantage of buying: share of samples at or below",
                      "categories": [sheet, first, 2, last, 2], "values": [sheet, first, 0, last, 0],
                      "line": {"width": 2.25}})
    chart.add_series({"name": "Base case", "categories": [sheet, extra, 2, extra, 2],
                      "values": [sheet, extra, 1, extra, 1],
                      "marker": {"type": "diamond", "size": 11, "fill": {"color": "#C00000"},
                                 "border": {"color": "#C00000"}}, "line": {"none": True}})
    chart.add_series({"name": "Break-even: right of it, buying wins", "categories": [sheet, extra + 1, 2, extra + 2, 2],
                      "values": [sheet, extra + 1, 1, extra + 2, 1], "line": {"dash_type": "dash", "color": "#7F7F7F"}})
    chart.set_title({"name": f"NPV advantage of buying: cumulative distribution ({risk.samples:,} samples)",
                     "name_font": {"size": 10}})
    chart.set_x_axis({"name": "NPV advantage of buying (MUSD)", "num_format": "#,##0,,", "crossing": "min",
                      "num_font": {"size": CHART_FONT}, "major_gridlines": {"visible": True}})
    chart.set_y_axis({"name": "share of samples", "num_format": "0%", "min": 0, "max": 1,
                      "num_font": {"size": CHART_FONT}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
    return chart


def _bars(wb: xlsxwriter.Workbook, sheet: str, risk: RiskResult, first: int) -> Any:
    last = first + len(risk.contributions) - 1
    chart = wb.add_chart({"type": "bar"})
    chart.add_series({"name": "Share of the variance of the NPV advantage (Shapley effect)",
                      "categories": [sheet, first, 0, last, 0], "values": [sheet, first, 2, last, 2], "gap": 60})
    title = f"What drives the spread of the NPV advantage (share of its variance; {risk.explained:.1%} explained)"
    chart.set_title({"name": title, "name_font": {"size": 10}})
    chart.set_y_axis({"reverse": True, "label_position": "low", "num_font": {"size": 9}})
    chart.set_x_axis({"num_format": "0%", "min": 0, "num_font": {"size": CHART_FONT},
                      "major_gridlines": {"visible": True}})
    chart.set_legend({"none": True})
    chart.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
    return chart


def _number(ws: Any, styles: Styles, row: int, col: int, value: float, fmt: str) -> None:
    if math.isfinite(value):
        ws.write_number(row, col, value, styles.value(fmt, "calc"))
    else:
        ws.write_string(row, col, "n/a", styles.unit)


