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
from workbook import sheets
from workbook.api import Model, build, load, save
from workbook.document import engineering_copy
from workbook.excel.layout import VALUE
from workbook.formula.expr import Ref

BASE = yaml.safe_load(EXAMPLE.read_text())
ANSWER_FIGURES = ["tco.npv_advantage", "tco.owned_cost_per_gpu_hour", "tco.rented_cost_per_gpu_hour",
                  "tco.break_even_utilisation", "tco.irr_buy", "tco.utilisation", "tco.on_demand_price"]


@pytest.fixture(scope="module")
def example() -> Model:
    return load(EXAMPLE)


def summary_rows(model: Model) -> list[Any]:
    return [line for line in model.book.lines.values() if line.sheet == sheets.SUMMARY]


def shows(line: Any) -> str:
    """The id of the line a Summary row shows (=its name), or its own id."""
    return line.formula.line.id if isinstance(line.formula, Ref) else line.id


@pytest.mark.slow
def test_the_answer_comes_first_then_the_master_check_then_what_to_confirm(example: Model) -> None:
    """Row by row: the sentence, the NPV advantage, owned and rented cost per GPU-hour, the break-even, the IRR,
    the utilisation and rent price that drive it; the master check; the estimates; then the cluster (its GPUs)."""
    rows = summary_rows(example)
    assert rows[0].id == "summary.answer" and shows(rows[0]) == "tco.npv_advantage"
    assert [shows(x) for x in rows[1:8]] == ANSWER_FIGURES
    assert shows(rows[8]) == "checks.all_pass"
    confirm = [x for x in rows if x.id.startswith("summary.confirm_")]
    assert rows[9:9 + len(confirm)] == confirm
    assert shows(rows[9 + len(confirm)]) == "power.gpus"


def test_the_sentence_words_the_npv_advantage_live(example: Model) -> None:
    """The example: owning costs 17,655,736 USD more than renting in NPV, so the sentence reads "Rent: owning costs
    17.7 MUSD more than renting (NPV)": its number format words the figure's sign (buy, rent or either), so an
    edited input rewords it. At 6 USD a GPU-hour on demand renting costs more and the same cell says Buy."""
    answer = example.values["summary.answer"].item()
    assert answer == example.values["tco.npv_advantage"].item() and round(answer / 1e6, 1) == -17.7
    fmt = example.book.lines["summary.answer"].fmt
    buy, rent, either = fmt.split(";")
    assert buy.startswith('"Buy') and rent.startswith('"Rent') and either.startswith('"Either')
    dear = example.book.evaluate({"tco.on_demand_price": np.array([6.0])})
    assert dear["summary.answer"].item() > 0


def test_the_estimates_to_confirm_are_the_tornados_widest_marked_estimates(example: Model) -> None:
    """The example's tornado, widest first: on-demand price (site file, 2025 price lists, [L]: -12.0 / +12.0 MUSD
    at -/+20%), utilisation (the site's plan), server price (catalog, [M]), support rate (site file, [E]: +2.9 /
    -2.9), colocation price (CBRE, [H]), rent price change (default [E]: -2.3 / +2.4), PSU efficiency (catalog,
    [M]), service level (default [E]: +0.7 / -1.5), ... The first four marked [E] or [L] are listed, then the lead
    time (a default of 0 months, [E]), which the tornado does not swing."""
    confirm = [x for x in summary_rows(example) if x.id.startswith("summary.confirm_")]
    assert [shows(x) for x in confirm] == ["tco.on_demand_price", "tco.support_rate", "tco.rent_price_change",
                                           "reliability.service_level", "tco.lead_time"]
    notes = {shows(x): x.note for x in confirm}
    assert notes["tco.on_demand_price"].startswith("site file [L]; NPV advantage -12.0 / +12.0 MUSD at -/+20%")
    assert notes["tco.support_rate"].startswith("site file [E]; NPV advantage +2.9 / -2.9 MUSD at -/+20%")
    assert notes["tco.rent_price_change"].startswith("default [E]; NPV advantage -2.3 / +2.4 MUSD")
    assert notes["reliability.service_level"].startswith("default [E]; NPV advantage +0.7 / -1.5 MUSD")
    assert notes["tco.lead_time"].startswith("default [E]; whole months")
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
                      "tco.cost_of_capital"]


@pytest.mark.slow
def test_the_workbook_opens_on_the_answer_and_puts_the_inputs_behind_the_results(tmp_path: Path) -> None:
    """Sheet order: the Cover, the Summary, the models, ..., the Inputs, the Checks. The Summary's first value
    cell is the sentence, in the worded format with MUSD chosen by the figure's size."""
    out = tmp_path / "example.xlsx"
    _, layout = build(EXAMPLE, out)
    wb = openpyxl.load_workbook(out)
    names = wb.sheetnames
    assert names[:2] == [sheets.COVER, sheets.SUMMARY]
    assert names[-2:] == [sheets.INPUTS, sheets.CHECKS]
    sheet, row, _ = layout.cells["summary.answer"]
    cell = wb[sheet].cell(row + 1, VALUE + 1)
    assert cell.value == "=tco_npv_advantage"
    assert '"Rent: owning costs "#,##0.0,," MUSD more than renting (NPV)"' in cell.number_format


@pytest.mark.slow
def test_the_cover_repeats_the_answer_live(tmp_path: Path) -> None:
    """The pack's first page is the Cover: under its title, the answer, a reference to the Summary's row
    (=summary_answer) in that row's format, in the row that was blank (the upgrade's Cover fits its page at 45%);
    the engineering copy, which has no Summary, has no answer."""
    out = tmp_path / "example.xlsx"
    model, _ = build(EXAMPLE, out)
    ws = openpyxl.load_workbook(out)[sheets.COVER]
    assert [ws.cell(r, 1).value for r in range(1, 5)] == ["GPU site workbook", "The answer", "Site", "Description"]
    assert ws.cell(2, 2).value == "=summary_answer"
    assert '"Rent: owning costs "#,##0.0,," MUSD more than renting (NPV)"' in ws.cell(2, 2).number_format
    cached = openpyxl.load_workbook(out, data_only=True)[sheets.COVER]
    answer = model.values["tco.npv_advantage"].item()  # the example's figure: test_the_sentence_words_...
    assert cached.cell(2, 2).value == pytest.approx(answer, abs=1) and answer < -1e6
    save(model, tmp_path / "engineering.xlsx", engineering_copy(model.book))
    cover = openpyxl.load_workbook(tmp_path / "engineering.xlsx")[sheets.COVER]
    assert "The answer" not in {cover.cell(r, 1).value for r in range(1, 10)}
