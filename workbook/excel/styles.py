"""Cell styles, in the colours finance reviewers read by convention (FAST / banking):
inputs blue on pale yellow, calculations black, checks green or red."""

from __future__ import annotations

from typing import Any

import xlsxwriter

FONT = "Calibri"
INPUT_FILL = "#FFF2CC"
INPUT_FONT = "#0000FF"
HEADER_FILL = "#1F3864"
SECTION_FILL = "#D9E1F2"
NAME_FONT = "#7F7F7F"
OK_FILL, OK_FONT = "#C6EFCE", "#006100"
BAD_FILL, BAD_FONT = "#FFC7CE", "#9C0006"
# Every sheet's printed pages: the sheet name top left, "page / pages" top right (workbook.libreoffice.pdf reads it to
# tell which sheet a page of the PDF comes from).
PAGE_HEADER = "&L&A&R&P / &N"
# A check's cell shows TRUE or FALSE: Excel stores a boolean, LibreOffice a number that this format words. It is
# also what lets LibreOffice 7.4 export the PDF: a TRUE/FALSE cell without a number format whose conditional colour
# matches, in a row with a cell in a font it substitutes (Consolas), aborts the export ("Unspecified Application
# Error", in ScPatternAttr::GetItem while drawing the page), at any print scale.
BOOLEAN_SHOWN = '"TRUE";"TRUE";"FALSE"'


class Styles:
    """The workbook's formats, made once (xlsxwriter formats belong to one workbook)."""

    def __init__(self, wb: xlsxwriter.Workbook, unlock_inputs: bool = False):
        self.wb, self.unlock_inputs = wb, unlock_inputs
        self._cache: dict[tuple, Any] = {}
        base = {"font_name": FONT, "font_size": 10, "valign": "top"}  # a row with a wrapped note reads from its top
        self.base = base
        self.title = wb.add_format({**base, "bold": True, "font_size": 14})
        self.title_wrap = wb.add_format({**base, "bold": True, "font_size": 14, "text_wrap": True})
        self.subtitle = wb.add_format({**base, "italic": True, "font_color": "#595959"})
        self.header = wb.add_format({**base, "bold": True, "font_color": "#FFFFFF", "bg_color": HEADER_FILL,
                                     "border": 1})
        self.header_wrap = wb.add_format({**base, "bold": True, "font_color": "#FFFFFF", "bg_color": HEADER_FILL,
                                          "border": 1, "text_wrap": True, "valign": "top"})
        self.section = wb.add_format({**base, "bold": True, "bg_color": SECTION_FILL})
        self.section_wrap = wb.add_format({**base, "bold": True, "bg_color": SECTION_FILL, "text_wrap": True})
        self.label = wb.add_format(base)
        self.line_label = wb.add_format({**base, "text_wrap": True, "valign": "top"})  # a line's label: may wrap
        self.name = wb.add_format({**base, "font_color": NAME_FONT, "font_name": "Consolas", "font_size": 9})
        self.unit = wb.add_format({**base, "align": "center"})
        self.note = wb.add_format({**base, "font_color": "#404040", "text_wrap": True, "indent": 1})
        self.sentence = wb.add_format({**base, "font_color": "#404040"})  # runs on across the empty columns
        self.text = wb.add_format({**base, "text_wrap": True, "valign": "top"})
        self.bold = wb.add_format({**base, "bold": True})
        self.bold_wrap = wb.add_format({**base, "bold": True, "text_wrap": True, "valign": "top"})
        self.bold_top = wb.add_format({**base, "bold": True, "valign": "top"})
        self.ok = wb.add_format({"bg_color": OK_FILL, "font_color": OK_FONT})
        self.bad = wb.add_format({"bg_color": BAD_FILL, "font_color": BAD_FONT})
        self.input_text = wb.add_format({**base, "font_color": INPUT_FONT, "bg_color": INPUT_FILL,
                                         "border": 1, "border_color": "#BFBFBF"})
        self.entry = wb.add_format({**base, "font_color": INPUT_FONT, "bg_color": INPUT_FILL, "border": 1,
                                    "border_color": "#BFBFBF", "num_format": "@", "text_wrap": True,
                                    "locked": not unlock_inputs})  # free text typed in: stored as text

    def period_header(self, monthly: bool) -> Any:
        """A period column's header: its number (0 = the start), shown as M1, M2... or Y1, Y2...; roll-ups
        select by this number."""
        key = ("period", monthly)
        if key not in self._cache:
            shown = '"M"0;;"Start"' if monthly else '"Y"0;;"Start"'
            self._cache[key] = self.wb.add_format({**self.base, "bold": True, "font_color": "#FFFFFF",
                                                   "bg_color": HEADER_FILL, "border": 1, "num_format": shown,
                                                   "align": "right"})
        return self._cache[key]

    def period_counter(self, monthly: bool) -> Any:
        """A period's number over its dated header (Start, M1, M2... or Start, Y1, Y2...): the number the header's
        formula reads, small and grey, as a counter row reads."""
        key = ("counter", monthly)
        if key not in self._cache:
            shown = '"M"0;;"Start"' if monthly else '"Y"0;;"Start"'
            self._cache[key] = self.wb.add_format({**self.base, "font_color": NAME_FONT,  # printed: 10 pt
                                                   "num_format": shown, "align": "right"})
        return self._cache[key]

    @property
    def counter_label(self) -> Any:
        """What the counter row counts, right-aligned in the note column beside the first number."""
        if "counter_label" not in self._cache:
            self._cache["counter_label"] = self.wb.add_format({**self.base, "font_color": NAME_FONT,  # printed
                                                               "italic": True, "align": "right"})
        return self._cache["counter_label"]

    def dated_header(self, fmt: str) -> Any:
        """A period column's header on a dated timeline: a date ("Jan 2027") or a fiscal year ("FY2027")."""
        key = ("dated", fmt)
        if key not in self._cache:
            self._cache[key] = self.wb.add_format({**self.base, "bold": True, "font_color": "#FFFFFF",
                                                   "bg_color": HEADER_FILL, "border": 1, "num_format": fmt,
                                                   "align": "right"})
        return self._cache[key]

    def total(self, fmt: str) -> Any:
        """A flow row's total after its last period: the row's number format, in bold."""
        key = ("total", fmt)
        if key not in self._cache:
            self._cache[key] = self.wb.add_format({**self.base, "align": "right", "bold": True,
                                                   "num_format": fmt})
        return self._cache[key]

    @property
    def total_header(self) -> Any:
        """The total column's header, right-aligned over its figures."""
        if "total_header" not in self._cache:
            self._cache["total_header"] = self.wb.add_format({**self.base, "bold": True, "font_color": "#FFFFFF",
                                                              "bg_color": HEADER_FILL, "border": 1,
                                                              "align": "right"})
        return self._cache["total_header"]

    def fixed_check(self, fmt: str, ok: bool) -> Any:
        """A TRUE/FALSE written as a value: the check colours as a fixed format."""
        key = ("fixed", fmt, ok)
        if key not in self._cache:
            fill, font = (OK_FILL, OK_FONT) if ok else (BAD_FILL, BAD_FONT)
            self._cache[key] = self.wb.add_format({**self.base, "align": "center", "bold": True,
                                                   "bg_color": fill, "font_color": font,
                                                   "num_format": BOOLEAN_SHOWN})
        return self._cache[key]

    def sentence_value(self, fmt: str) -> Any:
        """A figure worded by its number format (the Summary's answer), bold and read from the left."""
        key = ("sentence", fmt)
        if key not in self._cache:
            self._cache[key] = self.wb.add_format({**self.base, "bold": True, "align": "left", "num_format": fmt})
        return self._cache[key]

    def value(self, fmt: str, kind: str) -> Any:
        """Number format for a value cell; inputs get the input colours."""
        key = (fmt, kind)
        if key not in self._cache:
            props = {**self.base, "align": "right"}
            props["num_format"] = BOOLEAN_SHOWN if fmt == "BOOLEAN" else fmt
            if kind == "input":
                props.update(font_color=INPUT_FONT, bg_color=INPUT_FILL, border=1, border_color="#BFBFBF")
                if self.unlock_inputs:
                    props["locked"] = False  # a protected document's inputs stay editable
            elif kind == "check" or fmt == "BOOLEAN":  # a check, or the AND of checks (the master check)
                props.update(bold=True, align="center")
            self._cache[key] = self.wb.add_format(props)
        return self._cache[key]
