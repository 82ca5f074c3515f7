"""How wide text prints, how many lines it wraps to, and the readable scale and pages across: worked by hand from
Carlito's advance widths (a digit 1038/2048 em, a space 463/2048 em)."""

from __future__ import annotations

import pytest

from workbook.excel.pages import Across, column_breaks, min_scale
from workbook.excel.text_width import room, text_points, wrapped_lines


def test_a_digit_is_1038_of_2048_em() -> None:
    assert text_points("10") == pytest.approx(2 * 1038 / 2048 * 10)  # 10.137 pt at 10 points
    assert text_points("10", size=20) == pytest.approx(20.273, abs=1e-3)


def test_a_column_holds_excel_s_seven_pixels_a_character_less_its_padding() -> None:
    assert room(10) == pytest.approx(10 * 7 * 0.75 - 3)  # 49.5 points


def test_words_wrap_where_the_next_one_does_not_fit() -> None:
    # "00000" is 5 x 5.068 = 25.34 pt, a space 2.26 pt: two words and a space take 52.94 pt
    assert wrapped_lines("00000 00000 00000", 10) == 3  # 49.5 pt a line: one word each
    assert wrapped_lines("00000 00000 00000", 20) == 1  # 102 pt: 3 x 25.34 + 2 x 2.26 = 80.5 pt
    assert wrapped_lines("00000\n00000", 20) == 2  # a newline starts a line
    assert wrapped_lines("00000-00000-00000", 10) == 3  # a line breaks after a hyphen


def test_the_readable_scale_prints_8_points() -> None:
    assert min_scale(10) == 80  # 10 pt x 80% = 8 pt
    assert min_scale(9) == 89  # 9 x 0.89 = 8.01 pt (88% gives 7.92)


def test_the_fewest_pages_across_with_the_widest_page_narrowest() -> None:
    # four columns of 100 points on pages of 250: two pages, two columns each
    assert column_breaks([100.0] * 4, 0, 250.0, Across()) == [2]
    # the first two repeated on later pages (200 points): the rest fits one column a page beside them
    assert column_breaks([100.0] * 5, 0, 300.0, Across(repeat=(0, 1))) == [3, 4]
