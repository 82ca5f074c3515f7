"""A returned quote's problems, all at once and in the cell's units, and the vendor's own quote date (issue 44,
item 7): three mistakes take one run, not three; a limit reads "from 0 to 10,000,000,000 USD", never 1e+10; the
quote's date is the one the vendor types on the request sheet (its staleness runs from it), the day of the import
recorded beside it."""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path

import openpyxl
import pytest
import yaml

from tests.helpers import ISSUED, QUOTE_FIRST, example_text_without_risk, filled, issue_copy
from workbook.cli import main
from workbook.returned.quote_import import import_quote
from workbook.returned.vendor_copy import INSTRUCTIONS_SHEET, KEY, PRICE, QUOTE_DATE, QUOTE_SHEET
from workbook.site.errors import InputError, InputErrors
from workbook.site.quotes import quotes_path

TODAY = datetime.date(2026, 12, 20)


@pytest.fixture(scope="module")
def blank(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The example (its own terms) and a network copy issued on ISSUED to Beta Networks."""
    folder = tmp_path_factory.mktemp("problems")
    site = folder / "example.yaml"
    site.write_text(example_text_without_risk())  # the example as written; its risk samples are no part of a quote
    return site, issue_copy(site, folder / "beta.xlsx", "Beta Networks", "--groups", "network")


def fresh(tmp_path: Path, blank: tuple[Path, Path]) -> Path:
    site = tmp_path / "example.yaml"
    shutil.copy(blank[0], site)
    return site


def dated(path: Path, day: object) -> Path:
    """The copy with `day` typed beside QUOTE_DATE on the request sheet."""
    wb = openpyxl.load_workbook(path)
    ws = wb[INSTRUCTIONS_SHEET]
    row = next(r for r in range(QUOTE_FIRST, ws.max_row + 1) if ws.cell(r, 1).value == QUOTE_DATE)
    ws.cell(row, 2).value = day
    wb.save(path)
    return path


def test_three_mistakes_are_said_in_one_run(tmp_path: Path, blank: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A price of 2e10 USD, a lead time of 600 weeks and a price without a lead time, on three lines: one run
    names all three (a line each, then how many), each limit in the cell's units with its figures in full, and
    writes nothing."""
    site = fresh(tmp_path, blank)
    path = filled(blank, tmp_path / "q.xlsx", {"leaf_switches": (2e10, 20, None), "spine_switches": (30000, 600, None)})
    wb = openpyxl.load_workbook(path)
    ws = wb[QUOTE_SHEET]
    row = next(r for r in range(QUOTE_FIRST, ws.max_row + 1) if ws.cell(r, KEY + 1).value == "oob_switches")
    ws.cell(row, PRICE + 1).value = 8000
    wb.save(path)
    assert main(["import-quote", str(path), "--site", str(site)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 4 and lines[-1] == f"error: 3 problems in {path}, each on a line above", lines
    assert "is not a unit price from 0 to 10,000,000,000 USD" in lines[0], lines[0]
    assert "is not a lead time from 0 to 520 weeks" in lines[1], lines[1]
    assert "gives a unit price for oob_switches but no lead time" in lines[2], lines[2]
    assert not any("e+" in line for line in lines)
    assert not quotes_path(site).exists()


def test_the_problems_are_an_input_errors_with_their_kinds(tmp_path: Path, blank: tuple[Path, Path]) -> None:
    """Through the API: an InputErrors whose errors each name their cell and kind."""
    site = fresh(tmp_path, blank)
    path = filled(blank, tmp_path / "q.xlsx", {"leaf_switches": (-1, 20, None), "spine_switches": (30000, -2, None)})
    with pytest.raises(InputErrors) as caught:
        import_quote(path, site, today=TODAY)
    assert [(e.kind, e.key.split("!")[0]) for e in caught.value.errors] == [("bad-price", QUOTE_SHEET),
                                                                          ("bad-lead", QUOTE_SHEET)]
    assert caught.value.errors[0].key != caught.value.errors[1].key


def test_the_vendors_quote_date_is_the_quotes_date(tmp_path: Path, blank: tuple[Path, Path]) -> None:
    """Typed 2026-12-10 on a copy issued 2026-12-04 and imported 2026-12-20: the quote is dated 2026-12-10 (its 90
    days run from then), imported 2026-12-20."""
    site = fresh(tmp_path, blank)
    path = dated(filled(blank, tmp_path / "q.xlsx", {"leaf_switches": (28000, 20, None)}), datetime.date(2026, 12, 10))
    _, entry = import_quote(path, site, today=TODAY)
    assert (entry["date"], entry["imported"]) == ("2026-12-10", "2026-12-20")
    saved = yaml.safe_load(quotes_path(site).read_text())["quotes"][0]
    assert (saved["date"], saved["imported"], saved["dated"]) == ("2026-12-10", "2026-12-20",
                                                                 "the vendor's quote date")


def test_no_quote_date_is_the_copys_issue_date(tmp_path: Path, blank: tuple[Path, Path]) -> None:
    """Left empty: the copy's issue date (a quote is no older than its request), said so in the quotes file."""
    site = fresh(tmp_path, blank)
    _, entry = import_quote(filled(blank, tmp_path / "q.xlsx", {"leaf_switches": (28000, 20, None)}), site, today=TODAY)
    assert entry["date"] == ISSUED and entry["dated"].startswith("the copy's issue date")


@pytest.mark.parametrize("day", [datetime.date(2026, 12, 1), datetime.date(2026, 12, 21), "soon"])
def test_a_quote_date_before_the_request_or_after_today_is_refused(day: object, tmp_path: Path,
                                                                   blank: tuple[Path, Path]) -> None:
    site = fresh(tmp_path, blank)
    path = dated(filled(blank, tmp_path / "q.xlsx", {"leaf_switches": (28000, 20, None)}), day)
    with pytest.raises(InputError) as caught:
        import_quote(path, site, today=TODAY)
    assert getattr(caught.value, "kind", None) == "bad-date" and QUOTE_DATE not in str(caught.value.key)
    assert caught.value.key.startswith(f"{INSTRUCTIONS_SHEET}!B"), caught.value.key
    assert not quotes_path(site).exists()


def test_a_wrong_date_and_a_wrong_price_together(tmp_path: Path, blank: tuple[Path, Path]) -> None:
    """The request sheet's problem and the Quote sheet's are said in the same run."""
    site = fresh(tmp_path, blank)
    path = dated(filled(blank, tmp_path / "q.xlsx", {"leaf_switches": (28000, 1000, None)}), "soon")
    with pytest.raises(InputErrors) as caught:
        import_quote(path, site, today=TODAY)
    assert [e.kind for e in caught.value.errors] == ["bad-date", "bad-lead"]


def test_the_copys_quote_date_cell_is_for_the_vendor(blank: tuple[Path, Path]) -> None:
    """The cell beside QUOTE_DATE is empty, unlocked (the vendor's to fill) and shows a date."""
    ws = openpyxl.load_workbook(blank[1])[INSTRUCTIONS_SHEET]
    row = next(r for r in range(QUOTE_FIRST, ws.max_row + 1) if ws.cell(r, 1).value == QUOTE_DATE)
    cell = ws.cell(row, 2)
    assert cell.value is None and cell.protection.locked is False and cell.number_format == "yyyy-mm-dd"
    assert ws.protection.sheet
