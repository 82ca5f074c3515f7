"""Overlapping text in a printed PDF: words whose boxes cross words of another line, as a wrapped note does when
its row is shorter than its lines (the spreadsheet prints the lines over the next row, or clips them), and the
size text prints at. Words come from the PDF's own glyph boxes (pdfplumber).

Reading a PDF's glyphs is the slow part (about 6 s for the example's 83 pages), so `read` does it once and every
check works on what it read.

`python -m tests.overlaps pack.pdf...` lists each file's overlaps by page and its smallest text.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pdfplumber

MIN_SHARE = 0.2  # of the smaller word's box: a crossing less than this is two lines touching, not overlapping


@dataclass(frozen=True)
class Overlap:
    page: int  # one-based
    first: str
    second: str

    def __str__(self) -> str:
        return f"page {self.page}: {self.first!r} x {self.second!r}"


@dataclass(frozen=True)
class PageText:
    """What the checks read of one printed page."""

    number: int  # one-based
    width: float  # points
    smallest: float | None  # the smallest upright glyph's size, points (None: no upright text)
    lines_words: list[dict]  # words grouped as the text flows (for overlaps between lines)
    words: list[dict]  # words as laid out on the page (for the right edge)


def read(pdf: Path) -> list[PageText]:
    """Every page's text, read once."""
    out = []
    with pdfplumber.open(pdf) as doc:
        for k, page in enumerate(doc.pages, start=1):
            sizes = [round(c["size"], 2) for c in page.chars if c["text"].strip() and c["upright"]]
            out.append(PageText(k, float(page.width), min(sizes, default=None),
                                page.extract_words(x_tolerance=1.5, y_tolerance=1, use_text_flow=True),
                                page.extract_words(x_tolerance=1.5, y_tolerance=1)))
    return out


def _crossing(a: dict, b: dict) -> float:
    """The share of the smaller box that the two boxes have in common."""
    w = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a["x1"] - a["x0"]) * (a["bottom"] - a["top"]), (b["x1"] - b["x0"]) * (b["bottom"] - b["top"]))
    return w * h / smaller if smaller > 0 else 0.0


def page_overlaps(page: PageText) -> list[Overlap]:
    """The pairs of words of different lines on a page whose boxes cross by MIN_SHARE or more."""
    words = sorted((w for w in page.lines_words if w["upright"]),
                   key=lambda w: w["top"])  # a chart's rotated axis title has no line box
    found = []
    for i, a in enumerate(words):
        for b in words[i + 1:]:
            if b["top"] >= a["bottom"]:
                break
            if abs(a["top"] - b["top"]) > 0.5 and _crossing(a, b) >= MIN_SHARE:
                found.append(Overlap(page.number, a["text"], b["text"]))
    return found


def overlaps(pages: list[PageText]) -> list[Overlap]:
    """Every page's overlapping words."""
    return [o for page in pages for o in page_overlaps(page)]


def smallest_text(pages: list[PageText]) -> tuple[float, int]:
    """The smallest upright glyph printed (in points, on paper) and the page it is on (a rotated glyph, a chart's
    axis title, has no size of its own in the PDF's text matrix)."""
    return min(((p.smallest, p.number) for p in pages if p.smallest is not None), default=(0.0, 0))


def past_the_edge(pages: list[PageText], margin: float) -> list[tuple[int, str]]:
    """The words (page, text) whose box ends past the printable right edge, `margin` points inside the paper's
    (text the spreadsheet did not wrap, cut at the page's edge on paper)."""
    return [(p.number, w["text"]) for p in pages for w in p.words if w["x1"] > p.width - margin + 0.5]


if __name__ == "__main__":
    for name in sys.argv[1:]:
        pages = read(Path(name))
        found = overlaps(pages)
        size, where = smallest_text(pages)
        print(f"{name}: {len(pages)} pages, {len(found)} overlaps on pages {sorted({o.page for o in found})}; "
              f"smallest text {size} pt (page {where})")
        for o in found[:int(os.environ.get("SHOW", "0"))]:
            print("  ", o)
