"""The Summary answers the decision on its first rows (issue 27 items 4 and 10): the answer in one sentence and its
figures, the master check, the estimates to confirm (from the tornado), then the engineering headline; the Inputs
sheet behind the results. Every figure is a live reference to its line."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
import yaml

from tests.conftest import EXAMPLE
from tests.helpers import example_model, example_workbook
from workbook.api import Model, load, save
from workbook.book import sheets
from workbook.book.document import engineering_copy
from workbook.excel.layout import VALUE
from workbook.formula.expr import Ref, Shown

BASE = yaml.safe_load(EXAMPLE.read_text())
ANSWER_FIGURES = ["tco.reserved_share", "tco.npv_advantage", "tco.npv_advantage_on_demand",
                  "tco.npv_advantage_committed", "tco.owned_cost_per_gpu_hour", "tco.rented_cost_per_gpu_hour",
                  "tco.rented_cost_per_gpu_hour_on_demand", "tco.rented_cost_per_gpu_hour_committed",
                  "tco.break_even_utilisation", "tco.break_even_utilisation_on_demand",
                  "tco.break_even_utilisation_committed", "tco.irr_buy", "tco.irr_buy_roots", "tco.mirr_buy",
                  "tco.payback_month", "tco.operating_payback_month", "tco.payback_rests_on_exit",
                  "tco.discounted_payback_month", "tco.utilisation", "tco.on_demand_price", "tco.reserved_price",
                  "tco.tax_rate"]


@pytest.fixture(scope="module")
def example() -> Model:
    return example_model()


def summary_rows(model: Model) -> list[Any]:
    return [line for line in model.book.lines.values() if line.sheet == sheets.SUMMARY]


def shows(line: Any) -> str:
    """The id of the line a Summary row shows (=its name, or IF(valid, its name, "n/a...")), or its own id."""
    if isinstance(line.formula, Shown) and isinstance(line.formula.value, Ref):
        return line.formula.value.line.id
    return line.formula.line.id if isinstance(line.formula, Ref) else line.id


@pytest.mark.slow
def test_the_answer_comes_first_then_the_master_check_then_what_to_confirm(example: Model) -> None:
    """Row by row: the sentence, the rent in force, the NPV advantage against it, on demand and a committed
    contract, the costs per GPU-hour and the break-evens of each, the IRR (its roots and the MIRR), the paybacks,
    the inputs that drive them and the tax rate, then the checks the figures rest on; the master check; the
    estimates; then the cluster (its GPUs)."""
    rows = summary_rows(example)
    assert rows[0].id == "summary.answer" and shows(rows[0]) == "tco.npv_advantage"
    n = len(ANSWER_FIGURES)
    assert [shows(x) for x in rows[1:1 + n]] == ANSWER_FIGURES
    valid = [shows(x) for x in rows[1 + n:] if x.id.startswith("summary.valid_")]
    assert valid and all(example.book.lines[k].validity for k in valid)
    rows = rows[1 + n + len(valid):]
    assert shows(rows[0]) == "checks.all_pass"
    confirm = [x for x in rows if x.id.startswith("summary.confirm_")]
    assert rows[1:1 + len(confirm)] == confirm
    assert shows(rows[1 + len(confirm)]) == "power.gpus"


def test_the_sentence_words_the_npv_advantage_live(example: Model) -> None:
    """The example: owning costs 16,799,398 USD more than renting in NPV, so the sentence reads "Rent: owning costs
    16.8 MUSD more than renting (NPV)": its number format words the figure's sign (buy, rent or either), so an
    edited input rewords it. At 6 USD a GPU-hour on demand renting costs more and the same cell says Buy."""
    answer = example.values["summary.answer"].item()
    assert answer == example.values["tco.npv_advantage"].item() and round(answer / 1e6, 1) == -16.8
    fmt = example.book.lines["summary.answer"].fmt
    buy, rent, either = fmt.split(";")
    assert buy.startswith('"Buy') and rent.startswith('"Rent') and either.startswith('"Either')
    dear = example.book.evaluate({"tco.on_demand_price": np.array([6.0])})
    assert dear["summary.answer"].item() > 0


def test_the_estimates_to_confirm_are_the_tornados_widest_marked_estimates(example: Model) -> None:
    """The example's tornado, widest first: on-demand price (site file, 2025 price lists, [L]: -12.0 / +12.0 MUSD
    at -/+20%), utilisation (the site's plan), server price (catalog, [M]), support rate (site file, [E]: +2.9 /
    -2.9), colocation price (CBRE, [H]), rent price change (default [E]: -2.2 / +2.3), PSU efficiency (catalog,
    [M]), cost of capital (site file [E]: +1.2 / -1.1), ... The first four marked [E] or [L] are listed, then the
    lead time (a default of 0 months, [E]; its whole-month step is further down the tornado), and the tax rate (0:
    no tax modelled). The service level's step is further down than the cost of capital's."""
    confirm = [x for x in summary_rows(example) if x.id.startswith("summary.confirm_")]
    assert [shows(x) for x in confirm] == ["tco.on_demand_price", "tco.support_rate", "tco.rent_price_change",
                                           "tco.cost_of_capital", "tco.lead_time", "tco.tax_rate"]
    notes = {shows(x): x.note for x in confirm}
    assert notes["tco.on_demand_price"].startswith("site file [L]; NPV advantage -12.0 / +12.0 MUSD at -/+20%")
    assert notes["tco.support_rate"].startswith("site file [E]; NPV advantage +2.9 / -2.9 MUSD at -/+20%")
    assert notes["tco.rent_price_change"].startswith("default [E]; NPV advantage -2.2 / +2.3 MUSD")
    assert notes["tco.cost_of_capital"].startswith("site file [E]; NPV advantage +1.2 / -1.1 MUSD")
    assert notes["tco.lead_time"].startswith("default [E]; a month more is")
    assert notes["tco.tax_rate"].startswith("no tax modelled")
    for line in confirm:  # live: each shows its input's cell
        assert example.values[line.id].item() == example.values[shows(line)].item()


@pytest.mark.slow
def test_a_value_with_a_published_source_is_not_listed(tmp_path: Path) -> None:
    """Give the on-demand price a provider's quote ([H]) and the lead time a signed schedule's: neither is listed,
    and the next estimates in the tornado's order take their places (the cost of capital, site file [E], comes in
    fourth)."""
    data = copy.deepcopy(BASE)
    data.pop("scenarios", None)
    data["tco"]["on_demand_price"] = {"value": "2.99 USD/GPU/hour", "source": "provider quote Q-123 [H]"}
    data["tco"]["lead_time"] = {"value": "3 months", "source": "signed delivery schedule [H]"}
    path = tmp_path / "quoted.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    model = load(path)
    listed = [shows(x) for x in summary_rows(model) if x.id.startswith("summary.confirm_")]
    assert listed == ["tco.support_rate", "tco.rent_price_change", "reliability.service_level",
                      "tco.cost_of_capital", "tco.tax_rate"]


@pytest.mark.slow
def test_the_workbook_opens_on_the_answer_and_puts_the_inputs_behind_the_results(tmp_path: Path) -> None:
    """Sheet order: the Cover, the Summary, the models, ..., the Inputs, the Checks. The Summary's first value
    cell is the sentence, in the worded format with MUSD chosen by the figure's size."""
    _, layout, out = example_workbook()
    wb = openpyxl.load_workbook(out)
    names = wb.sheetnames
    assert names[:2] == [sheets.COVER, sheets.SUMMARY]
    assert names[-2:] == [sheets.INPUTS, sheets.CHECKS]
    sheet, row, _ = layout.cells["summary.answer"]
    cell = wb[sheet].cell(row + 1, VALUE + 1)
    assert cell.value == ('=IF(checks_figures_valid,tco_npv_advantage,"n/a: a check these figures rest on fails (see '
                          'the validity checks below)")')
    assert '"Rent: owning costs "#,##0.0,," MUSD more than renting (NPV)"' in cell.number_format


@pytest.mark.slow
def test_the_cover_repeats_the_answer_live(tmp_path: Path) -> None:
    """The pack's first page is the Cover: under its title, the answer, a reference to the Summary's row
    (=summary_answer) in that row's format, in the row that was blank (the upgrade's Cover fits its page at 45%);
    the engineering copy, which has no Summary, has no answer."""
    model, _, out = example_workbook()
    ws = openpyxl.load_workbook(out)[sheets.COVER]
    labels = [ws.cell(r, 1).value for r in range(1, 30)]
    assert labels[:2] == ["GPU site workbook", "The answer"]
    site = labels.index("Site")
    assert labels[site + 1] == "Description"  # the answer's figures first (tests/test_pdf.py), then the site
    assert all(str(ws.cell(r, 2).value).startswith("=summary_") for r in range(3, site - 1))
    assert ws.cell(2, 2).value == "=summary_answer"
    assert '"Rent: owning costs "#,##0.0,," MUSD more than renting (NPV)"' in ws.cell(2, 2).number_format
    cached = openpyxl.load_workbook(out, data_only=True)[sheets.COVER]
    assert cached.cell(2, 2).value == pytest.approx(model.values["tco.npv_advantage"].item(), abs=1)
    save(model, tmp_path / "engineering.xlsx", engineering_copy(model.book))
    cover = openpyxl.load_workbook(tmp_path / "engineering.xlsx")[sheets.COVER]
    assert "The answer" not in {cover.cell(r, 1).value for r in range(1, 10)}
