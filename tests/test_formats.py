"""The formats a finance reader expects (issue 27 item 7): money in kUSD or MUSD where the row is large, negatives in
parentheses, no scientific notation, no false precision, one unit style, a count of one in the singular, signed
changes in percentage points on the Sensitivity sheet. Hand-worked on the example's rows and the built file."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from tests.helpers import example_model, example_workbook
from workbook.api import Model
from workbook.book import formats
from workbook.excel.layout import UNIT, VALUE

MUSD = '#,##0.0,,_);(#,##0.0,,);"-"_)'  # 18,774,057 shows as 18.8; negatives in parentheses; zero as -
KUSD = '#,##0,_);(#,##0,);"-"_)'  # 240,000 shows as 240


@pytest.fixture(scope="module")
def example() -> Model:
    return example_model()


def shown(m: Model, key: str) -> formats.Shown:
    return formats.shown(m.book.lines[key], m.values[key])


@pytest.mark.slow
def test_money_is_in_millions_or_thousands_by_its_size(example: Model) -> None:
    """The NPV advantage, -18,774,057 USD, reads (18.8) MUSD; the capex, 44,718,086 USD, 44.7 MUSD; a monthly
    timeline row (the cash flows) in kUSD whatever its size (one scale for a statement); a figure under 10,000 USD
    stays in USD; an input is shown as typed (20,000 USD a month of rent extras: a number typed into a kUSD cell
    would be read as USD)."""
    assert shown(example, "tco.npv_advantage") == formats.Shown(MUSD, "MUSD")
    assert shown(example, "tco.capex") == formats.Shown(MUSD, "MUSD")
    assert formats.money_scale(np.array([9_999.0]), series=False) == ""
    assert formats.money_scale(np.array([10_000.0]), series=False) == ","
    assert formats.money_scale(np.array([999_999.0]), series=False) == ","
    assert formats.money_scale(np.array([1_000_000.0]), series=False) == ",,"
    assert formats.money_scale(np.array([12.0, 5e7]), series=True) == ","
    flow = example.book.lines["tco.it_capex_flow"]  # the IT capex paid month by month: up to ~44 million USD
    assert formats.shown(flow, example.values[flow.id]) == formats.Shown(KUSD, "kUSD")
    assert shown(example, "tco.rent_extras") == formats.Shown("#,##0_);(#,##0)", "USD/month")


def test_no_false_precision_and_no_scientific_notation(example: Model) -> None:
    """Air flow 174,725.28 CFM shows no decimals (a calculated row of 1,000 or more), 123.45 one at most; the
    interruption rate, 419 / 21,233,664 GPU-hours = 1.973e-5 a GPU-hour, reads 19.73 per million GPU-hours; an input
    shows the decimals it has (1,200 kg/m², not 1,200.00; 2.99 USD, not 2.990), a price at least its cents."""
    assert shown(example, "cooling.air_flow") == formats.Shown("#,##0_);(#,##0)", "CFM")
    assert formats.capped(2, np.array([123.45]), percent=False) == 1
    assert formats.capped(2, np.array([99.5]), percent=False) == 2
    rate = shown(example, "reliability.rate_total")
    assert rate.unit == "/million GPU-h" and "E" not in rate.fmt
    assert round(float(example.values["reliability.rate_total"].reshape(-1)[0]), 2) == 19.73
    assert shown(example, "cooling.floor_rating") == formats.Shown("#,##0_);(#,##0)", "kg/m²")
    assert shown(example, "tco.on_demand_price").fmt == "0.00_);(0.00)"
    price = example.book.lines["tco.on_demand_price"]  # the B200 build's 5.5 USD/GPU-h reads 5.50; 2.995 all three
    assert formats.shown(price, np.array([5.5])).fmt == "0.00_);(0.00)"
    assert formats.shown(price, np.array([2.995])).fmt == "0.000_);(0.000)"
    assert formats.decimals_needed(np.array([0.125]), 3, percent=False) == 3
    assert formats.decimals_needed(np.array([0.125]), 1, percent=True) == 1  # 12.5%


def test_negatives_in_parentheses_and_a_count_of_one_in_the_singular(example: Model) -> None:
    """The IRR, -11.6%, reads (11.6%); one spare feed block reads 1 unit, not 1 units; two reads units."""
    assert shown(example, "tco.irr_buy").fmt == "0.0%_);(0.0%)"
    assert formats.singular("units", np.array([1.0])) == "unit"
    assert formats.singular("NICs", np.array([1.0])) == "NIC"
    assert formats.singular("NICs", np.array([2.0])) == "NICs"
    assert formats.singular("switches", np.array([1.0])) == "switch"
    assert formats.plain(1, percent=True, grouped=False) == "0.0%_);(0.0%)"
    assert formats.plain(0) == "#,##0_);(#,##0)"


def test_signed_changes() -> None:
    """A change keeps its sign: +10.9 pp and -10.9 pp, never both 10.9%; +2.4 MUSD from 2,400,000 USD."""
    assert formats.signed(1, "pp") == '+#,##0.0" pp";-#,##0.0" pp";#,##0.0" pp"'
    assert formats.signed(1, scale=",,") == "+#,##0.0,,;-#,##0.0,,;#,##0.0,,"


@pytest.mark.slow
def test_the_built_example_reads_as_a_finance_reader_expects(tmp_path: Path) -> None:
    """In the file: no number format in scientific notation, one unit style (m², never m^2), the Summary's NPV
    advantage in MUSD, and the Sensitivity's changes in signed percentage points."""
    _, layout, out = example_workbook()
    wb = openpyxl.load_workbook(out)
    sci, caret = [], []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if re.search(r"0E[+-]", c.number_format or ""):
                    sci.append(f"{ws.title}!{c.coordinate}")
                if isinstance(c.value, str) and re.search(r"\bm\^[23]\b", c.value):
                    caret.append(f"{ws.title}!{c.coordinate}")
    assert sci == [] and caret == []
    sheet, row, _ = layout.cells["summary.tco_npv_advantage"]
    assert wb[sheet].cell(row + 1, UNIT + 1).value == "MUSD"
    assert wb[sheet].cell(row + 1, VALUE + 1).number_format == MUSD
    signed = {c.number_format for r in wb["Sensitivity"].iter_rows() for c in r if "pp" in (c.number_format or "")}
    assert signed == {'+#,##0.0" pp";-#,##0.0" pp";#,##0.0" pp"'}
