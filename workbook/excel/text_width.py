"""How wide a text prints and how many lines it wraps to in a column: from the font's own advance widths.

The workbook's text is 10-point Calibri; LibreOffice prints it in Carlito, a font with Calibri's metrics. The
widths below are Carlito's advance widths (regular and bold) for the printable ASCII characters, in 1/2048 of an
em, read from Carlito-Regular.ttf and Carlito-Bold.ttf (fonts-crosextra-carlito 20130920); a character outside
that range counts as wide as an M less a little (the widest common symbols, ° ³ × ≥ –, are narrower).

A column's text room is Excel's (7 pixels a character of the column's width, less its padding), which is about 6%
narrower than LibreOffice's (5.575 points a character, Carlito's 11-point digit): a row sized for Excel's
wrapping has room for LibreOffice's. Lines break at spaces and after hyphens, as both spreadsheets break them.
Measured against LibreOffice 7.4's PDF of 400 labels and notes wrapped at widths 20, 40, 58 and 70: none took
more lines than this counts; 188 of the 1,600 took fewer (the margin: 3,064 lines counted for 2,870 printed).
"""

from __future__ import annotations

import functools
import re

EM = 2048
_REGULAR = (463, 667, 821, 1020, 1038, 1464, 1397, 452, 621, 621, 1020, 1020, 511, 627, 517, 791, 1038, 1038, 1038,
            1038, 1038, 1038, 1038, 1038, 1038, 1038, 548, 548, 1020, 1020, 1020, 949, 1831, 1185, 1114, 1092, 1260,
            1000, 941, 1292, 1276, 516, 653, 1064, 861, 1751, 1322, 1356, 1058, 1378, 1112, 941, 998, 1314, 1162,
            1822, 1063, 998, 959, 628, 791, 628, 1020, 1020, 596, 981, 1076, 866, 1076, 1019, 625, 964, 1076, 470,
            490, 931, 470, 1636, 1076, 1080, 1076, 1076, 714, 801, 686, 1076, 925, 1464, 887, 927, 809, 644, 943,
            644, 1020)  # " " (32) to "~" (126)
_BOLD = (463, 667, 898, 1020, 1038, 1493, 1443, 478, 638, 638, 1020, 1020, 528, 627, 547, 880, 1038, 1038, 1038, 1038,
         1038, 1038, 1038, 1038, 1038, 1038, 565, 565, 1020, 1020, 1020, 949, 1840, 1241, 1148, 1084, 1291, 999, 940,
         1305, 1292, 546, 678, 1120, 866, 1790, 1349, 1385, 1090, 1405, 1153, 968, 1014, 1337, 1211, 1856, 1128,
         1064, 979, 665, 880, 665, 1020, 1020, 615, 1011, 1099, 857, 1099, 1031, 648, 971, 1099, 503, 523, 983, 503,
         1666, 1099, 1101, 1099, 1099, 728, 817, 710, 1099, 969, 1526, 941, 970, 814, 704, 973, 704, 1020)
OTHER = 1700  # any other character (a symbol, a Greek letter): wider than all but a few ASCII ones
CHAR_PX = 7  # Excel: a column of width w is 7w + 5 pixels, the 5 being its padding
PADDING_PT = 3.0  # the room a wrapped cell leaves at its edges (Excel 2-3 pixels a side)
_PIECE = re.compile(r"[^-]*-|[^-]+$")  # a word's pieces: a line may break after each hyphen


@functools.lru_cache(maxsize=1 << 16)
def text_points(text: str, size: float = 10.0, bold: bool = False) -> float:
    """The printed width of `text` in points at `size`. (Cached, as wrapped_lines: a build measures the same
    words and labels hundreds of thousands of times.)"""
    table = _BOLD if bold else _REGULAR
    units = sum(table[ord(c) - 32] if 32 <= ord(c) < 127 else OTHER for c in text)
    return units * size / EM


def room(width: float) -> float:
    """The points of text a line of a column `width` characters wide holds (Excel's, the narrower)."""
    return max(1.0, width * CHAR_PX * 0.75 - PADDING_PT)


@functools.lru_cache(maxsize=1 << 16)
def wrapped_lines(text: str, width: float, size: float = 10.0, bold: bool = False) -> int:
    """How many lines `text` takes wrapped in a column `width` characters wide: words kept whole unless one is
    wider than the column (then it runs over, as the spreadsheets break it), lines broken at spaces and after
    hyphens; each newline starts a line."""
    per_line = room(width)
    space = text_points(" ", size, bold)
    total = 0
    for paragraph in text.split("\n"):
        lines, used = 1, 0.0
        for word in paragraph.split():
            for k, piece in enumerate(_PIECE.findall(word) or [word]):
                w = text_points(piece, size, bold)
                gap = space if k == 0 else 0.0
                if used and used + gap + w <= per_line:
                    used += gap + w
                    continue
                if used:
                    lines += 1
                over = int(w // per_line) if w > per_line else 0  # a piece wider than the column is broken
                lines += over
                used = w - over * per_line
        total += lines
    return total
