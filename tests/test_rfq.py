"""The vendor's copy as a request for quotation (issue 27): the request sheet a vendor reads first, the site's
terms (untrusted text, validated), the reference (one per site, vendor, issue date and lines), one date, a
subset copy per vendor read back by import-quote, and a part number or spec on every line."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from tests.conftest import EXAMPLE
from tests.helpers import ISSUED, example_text_without_risk, issue_copy
from workbook.api import load
from workbook.cli import main
from workbook.models.bom.terms import TERMS as TERM_SPECS
from workbook.returned.vendor_copy import COMMENT, INSTRUCTIONS_SHEET, KEY, LEAD, PRICE, QUOTE_SHEET, quote_rows
from workbook.site.errors import InputError
from workbook.site.quotes import quotes_path

FIRST = 5  # openpyxl's row of a grid's first row (1-based): title, note, blank, header
TERMS = {"buyer_company": "Example Compute GmbH", "project": "Frankfurt H100 cluster, phase 1",
         "delivery_site": "Hall 2, 1 Example Road, 60314 Frankfurt am Main", "delivery_country": "Germany",
         "required_by": "2027-03-01", "response_deadline": "2026-12-18",
         "buyer_contact": "J. Smith, procurement, j.smith@example.com", "incoterms": "DAP Frankfurt am Main",
         "payment_terms": "30% with order, 70% net 30 days after delivery"}
EXAMPLE_TEXT = example_text_without_risk()  # a request for quotes reads no risk figure


def with_bom(text: str, lines: dict[str, Any]) -> str:
    """The site file's text with keys given under bom: (a text as a YAML double-quoted scalar: JSON's escapes), in
    place of the site's own."""
    added = "".join(f"  {k}: {json.dumps(v)}\n" for k, v in lines.items())
    return without_terms(text, list(lines)).replace("\nbom:\n", f"\nbom:\n{added}", 1)


def without_terms(text: str, keys: list[str] | None = None) -> str:
    """The site file's text without these keys under bom: (default: every term of the request)."""
    for key in keys if keys is not None else [t.key.split(".")[1] for t in TERM_SPECS]:
        text = re.sub(rf"(?m)^  {key}: .*\n", "", text)
    return text


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with the request's terms given."""
    folder = tmp_path_factory.mktemp("rfq")
    path = folder / "example.yaml"
    path.write_text(with_bom(EXAMPLE_TEXT, TERMS))
    return path



def cover(path: Path) -> dict[str, Any]:
    """The request sheet's rows: label (column A) -> the text beside it (column B)."""
    ws = openpyxl.load_workbook(path)[INSTRUCTIONS_SHEET]
    return {ws.cell(r, 1).value: ws.cell(r, 2).value for r in range(FIRST, ws.max_row + 1) if ws.cell(r, 1).value}


def keys(path: Path) -> list[str]:
    ws = openpyxl.load_workbook(path)[QUOTE_SHEET]
    found = [str(ws.cell(r, KEY + 1).value or "") for r in range(FIRST, ws.max_row + 1)]
    return [k for k in found if re.fullmatch(r"[a-z0-9_]+", k) and k != "total"]


def fill(path: Path, out: Path, prices: dict[str, tuple[float, float]], cover_edit: tuple[str, str] | None = None
         ) -> Path:
    """The copy filled as a vendor would (key -> unit price, lead weeks); `cover_edit`: a request row rewritten."""
    wb = openpyxl.load_workbook(path)
    ws = wb[QUOTE_SHEET]
    at = {ws.cell(r, KEY + 1).value: r for r in range(FIRST, ws.max_row + 1)}
    for key, (price, lead) in prices.items():
        ws.cell(at[key], PRICE + 1).value = price
        ws.cell(at[key], LEAD + 1).value = lead
    if cover_edit is not None:
        cv = wb[INSTRUCTIONS_SHEET]
        row = next(r for r in range(FIRST, cv.max_row + 1) if cv.cell(r, 1).value == cover_edit[0])
        cv.cell(row, 2).value = cover_edit[1]
    wb.save(out)
    return out


def v(model: Any, line_id: str) -> float:
    return float(model.values[line_id].reshape(-1)[0])


# ---------------------------------------------------------------- the request sheet


@pytest.mark.slow
def test_the_request_sheet_reads_as_a_vendor_reads_it(site: Path, tmp_path: Path) -> None:
    """Item 1: each row is a label and its words (no Python list text), the header bar is filled, the site's terms
    and the validity asked for (bom.quote_max_age, 90 days) are there, and the lines asked for are counted: 58 on
    the example (see test_quote), in the groups compute, network, power, storage, spares and services."""
    path = issue_copy(site, tmp_path / "acme.xlsx", "Acme Networks")
    ws = openpyxl.load_workbook(path)[INSTRUCTIONS_SHEET]
    assert ws.cell(1, 1).value == "Request for quotation: Acme Networks"
    assert (ws.cell(FIRST - 1, 1).value, ws.cell(FIRST - 1, 2).value) == ("Request", "Details")
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert not [t for t in texts if "['" in t or "']" in t or t.startswith("[")]
    rows = cover(path)
    assert re.fullmatch(r"RFQ-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}", rows["Reference"])
    assert (rows["Vendor"], rows["Issued"]) == ("Acme Networks", ISSUED)
    assert rows["Lines to quote"] == ("58 lines on the Quote sheet: Compute, Network, Power in the racks, Storage, "
                                      "Spares, Services")
    assert rows["Delivery site (address)"] == TERMS["delivery_site"]
    assert rows["Delivery country"] == "Germany"
    assert rows["Required on site by"] == "2027-03-01" and rows["Quotes due by"] == "2026-12-18"
    assert rows["Buyer contact (questions and the returned file)"] == TERMS["buyer_contact"]
    assert rows["Delivery terms (Incoterms 2020 rule and named place)"] == "DAP Frankfurt am Main"
    assert rows["Payment terms"] == TERMS["payment_terms"]
    assert (rows["Buyer (company)"], rows["Project"]) == (TERMS["buyer_company"], TERMS["project"])
    assert "Status" not in rows  # an issued copy, not a draft
    assert rows["Quote validity"] == "At least 90 days from the date of your quote"
    for label in ("Unit price", "Shipping", "Support", "Lead time", "Comment", "Locked cells", "Returning it"):
        assert len(rows[label]) > 40, label


@pytest.mark.slow
def test_the_terms_default_to_to_be_agreed(tmp_path: Path) -> None:
    """A site that gives no terms: each says "to be agreed" on a draft copy (the defaults' words)."""
    site = tmp_path / "example.yaml"
    site.write_text(without_terms(EXAMPLE_TEXT))
    rows = cover(issue_copy(site, tmp_path / "c.xlsx", "Acme Networks", "--draft"))
    for label in ("Delivery site (address)", "Delivery country", "Required on site by", "Quotes due by",
                  "Payment terms", "Delivery terms (Incoterms 2020 rule and named place)", "Buyer (company)",
                  "Project"):
        assert rows[label] == "to be agreed", label


@pytest.mark.slow
def test_one_date_and_the_same_file_for_the_same_inputs(site: Path, tmp_path: Path) -> None:
    """Item 3: the issue date is the copy's one date (its created property is that day, no other date than it
    and the site's required-by and due dates appears); the same site, vendor, lines and date give the same
    bytes; another vendor, date or set of lines gives another reference, and the reference does not depend on
    the file's name."""
    a = issue_copy(site, tmp_path / "a.xlsx", "Acme Networks")
    b = issue_copy(site, tmp_path / "b.xlsx", "Acme Networks")
    assert a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as z:
        text = "\n".join(z.read(n).decode() for n in z.namelist() if n.endswith(".xml"))
        core = z.read("docProps/core.xml").decode()
    assert f"<dcterms:created xsi:type=\"dcterms:W3CDTF\">{ISSUED}T00:00:00Z</dcterms:created>" in core
    assert set(re.findall(r"\d{4}-\d\d-\d\d", text)) == {ISSUED, "2027-03-01", "2026-12-18"}
    renamed = site.parent / "another-name.yaml"
    shutil.copy(site, renamed)
    same = cover(issue_copy(renamed, tmp_path / "r.xlsx", "Acme Networks"))["Reference"]
    ref = cover(a)["Reference"]
    assert same == ref
    others = {cover(issue_copy(site, tmp_path / "v.xlsx", "Beta Systems"))["Reference"],
              cover(issue_copy(site, tmp_path / "d.xlsx", "Acme Networks", date="2026-12-05"))["Reference"],
              cover(issue_copy(site, tmp_path / "g.xlsx", "Acme Networks", "--groups", "network"))["Reference"]}
    assert ref not in others and len(others) == 3


# ---------------------------------------------------------------- the site's terms: untrusted text


BAD_TERMS = [
    ("buyer_contact", "x" * 201, "is longer than 200 characters"),
    ("buyer_contact", "J. Smith\x07", "control or format character U+0007"),
    ("delivery_site", "Hall 2\u202e niaM ma trufknarF", "control or format character U+202E"),
    ("incoterms", "FOO Frankfurt", "does not begin with one of EXW"),
    ("incoterms", "DAP", "is DAP alone, without the named place that follows it"),
    ("incoterms", "FOB  ", "is FOB alone, without the named place that follows it"),
    ("buyer_company", "y" * 101, "is longer than 100 characters"),
    ("project", "Phase 1\u202e", "control or format character U+202E"),
    ("required_by", "2027-13-01", "2027-13-01"),
    ("delivery_country", 42, "is not text"),
    ("payment_terms", "   ", "is empty"),
]


@pytest.mark.parametrize(("key", "value", "problem"), BAD_TERMS)
def test_a_bad_term_is_refused_in_one_line(key: str, value: Any, problem: str, tmp_path: Path) -> None:
    """A site file is untrusted: a term too long, holding a control or a bidirectional override character, an
    unknown Incoterms rule, an impossible date, a number or nothing is refused naming the file, key and value."""
    site = tmp_path / "bad.yaml"
    site.write_text(with_bom(EXAMPLE_TEXT, {key: value}))
    with pytest.raises(InputError) as caught:
        load(site)
    message = str(caught.value)
    assert "\n" not in message and str(site) in message and f"bom.{key}" in message and problem in message, message


@pytest.mark.slow
def test_a_term_is_folded_to_one_line(tmp_path: Path) -> None:
    """Tabs, newlines and runs of spaces in a term are one space each (the copy shows one line)."""
    site = tmp_path / "fold.yaml"
    site.write_text(with_bom(EXAMPLE_TEXT, {"payment_terms": "30% with order,\t 70%  net 30"}))
    assert load(site).book.bom.terms[-1].text == "30% with order, 70% net 30"


# ---------------------------------------------------------------- a subset per vendor


@pytest.mark.slow
def test_a_subset_copy_asks_for_its_groups_only(site: Path, tmp_path: Path) -> None:
    """`--groups network`: 36 lines (34 network lines, its shipping and its support), no GPU node and no fan;
    `--lines nodes,racks` on a colocation site: only the nodes (the cabinets are the colocation's, not quoted)."""
    net = keys(issue_copy(site, tmp_path / "net.xlsx", "Beta Networks", "--groups", "network"))
    model = load(site)
    group = {r.key: r.group for r in quote_rows(model.book, model.values)}
    assert len(net) == 36 and {group[k] for k in net} == {"network"}
    assert "shipping_network" in net and "support_network" in net and "nodes" not in net
    assert keys(issue_copy(site, tmp_path / "n.xlsx", "Acme", "--lines", "nodes,leaf_switches")) == ["nodes",
                                                                                             "leaf_switches"]


@pytest.mark.slow
def test_an_unknown_group_or_line_is_refused(site: Path, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    """A misspelt group, an unknown line, a date not written YYYY-MM-DD, a vendor's name with a bidirectional
    override: one line naming the option and the value, no file."""
    for option, value, shown in (("--groups", "netwrok", "netwrok"), ("--lines", "gpu_nodes", "gpu_nodes"),
                                 ("--date", "4 Dec 2026", "4 Dec 2026"), ("--vendor", "Acme\u202eX", "202e")):
        args = ["--vendor", "Acme", option, value] if option != "--vendor" else [option, value]
        assert main(["quote", str(site), *args, "-o", str(tmp_path / "x.xlsx")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and option in err and shown in err, err
    assert not (tmp_path / "x.xlsx").exists()


@pytest.mark.slow
def test_a_subset_copy_prices_only_its_lines(site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Acme quotes the whole list: nodes at 265,000 (budget 270,000). Beta Networks is asked for the network only
    and quotes leaf switches at 28,000 (budget 30,000). After both imports the nodes keep Acme's price, the leaf
    switches take Beta's, the spine switches keep their budget 30,000: variance 128 x -5,000 + 32 x -2,000 =
    -704,000."""
    mine = site.parent / "subset.yaml"
    shutil.copy(site, mine)
    full = fill(issue_copy(mine, tmp_path / "acme.xlsx", "Acme Networks"), tmp_path / "acme-q.xlsx",
                {"nodes": (265000, 12)})
    net = fill(issue_copy(mine, tmp_path / "beta.xlsx", "Beta Networks", "--groups", "network"),
               tmp_path / "beta-q.xlsx", {"leaf_switches": (28000, 20)})
    for returned in (full, net):
        assert main(["import-quote", str(returned), "--site", str(mine)]) == 0, capsys.readouterr().err
    m = load(mine)
    assert v(m, "bom.nodes_unit_price") == 265000
    assert v(m, "bom.leaf_switches_unit_price") == 28000
    assert v(m, "bom.spine_switches_unit_price") == 30000
    assert v(m, "bom.variance_total") == 128 * -5000 + 32 * -2000 == -704_000
    text = quotes_path(mine).read_text()
    assert "vendor: Beta Networks" in text and re.search(r"reference: RFQ-[0-9A-F-]{14}", text)


@pytest.mark.slow
@pytest.mark.parametrize("edit", [("Vendor", "Gamma Optics"), ("Issued", "2026-12-05"), ("Issued", "soon"),
                                  ("Reference", "RFQ-0000-0000-0000")])
def test_a_changed_request_is_refused(edit: tuple[str, str], site: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The reference is made again from the site, the cover's vendor and date and the copy's lines: a copy
    passed on to another vendor, re-dated or given another reference is refused in one line, nothing written."""
    mine = site.parent / f"changed-{edit[0]}-{edit[1][:4]}.yaml"
    shutil.copy(site, mine)
    net = fill(issue_copy(mine, tmp_path / "beta.xlsx", "Beta Networks", "--groups", "network"),
               tmp_path / "beta-q.xlsx", {"leaf_switches": (28000, 20)}, cover_edit=edit)
    assert main(["import-quote", str(net), "--site", str(mine)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and net.name in err, err
    assert not quotes_path(mine).exists()


@pytest.mark.slow
def test_a_subset_given_another_copys_reference_is_refused(site: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A network copy carrying the reference of a network-and-services copy (same vendor, same day) is refused:
    the reference covers the lines asked for."""
    mine = site.parent / "swapped.yaml"
    shutil.copy(site, mine)
    wide = cover(issue_copy(mine, tmp_path / "w.xlsx", "Beta Networks", "--groups", "network,services"))["Reference"]
    net = fill(issue_copy(mine, tmp_path / "beta.xlsx", "Beta Networks", "--groups", "network"), tmp_path / "q.xlsx",
               {"leaf_switches": (28000, 20)}, cover_edit=("Reference", wide))
    assert main(["import-quote", str(net), "--site", str(mine)]) == 2
    assert "reference" in capsys.readouterr().err.lower()


# ---------------------------------------------------------------- a part number or spec on every line


@pytest.mark.slow
@pytest.mark.parametrize("name", ["example.yaml", "gb200-nvl72-colo.yaml", "b200-liquid-build.yaml"])
def test_every_line_has_a_part_or_spec(name: str) -> None:
    """Every line a vendor is asked to quote says what it is (at least a few words), and the host-side
    transceiver names the catalog node's part (the DGX H100's and B200's twin-port MMA4Z00-NS-FLT class, the GB200
    tray's single-port MMA4Z00-NS400)."""
    model = load(EXAMPLE.parent / name)
    rows = quote_rows(model.book, model.values)
    assert rows
    for row in rows:
        assert len(row.spec.split()) >= 4, (row.key, row.spec)
    host = next(r.spec for r in rows if r.key == "node_optics_mm")
    assert "MMA4Z00-NS" in host and "host side" in host


@pytest.mark.slow
def test_a_quoted_support_line_is_the_tcos_support(site: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Support is counted once: Acme quotes the compute group's support at 2,000,000 a year (budget 8% x
    34,660,000 = 2,772,800) and its shipping at 0 with a comment. The TCO's hardware support falls by
    (2,772,800 - 2,000,000) / 12 = 64,400 a month; the IT capex falls by the compute shipping budget, 1% x
    34,660,000 = 346,600, and not by the support (not capex)."""
    mine = site.parent / "support.yaml"
    shutil.copy(site, mine)
    before = load(mine)
    blank = issue_copy(mine, tmp_path / "acme.xlsx", "Acme Servers", "--groups", "compute")
    wb = openpyxl.load_workbook(fill(blank, tmp_path / "acme-q.xlsx", {"support_compute": (2_000_000, 0),
                                                                      "shipping_compute": (0, 0)}))
    ws = wb[QUOTE_SHEET]
    row = next(r for r in range(FIRST, ws.max_row + 1) if ws.cell(r, KEY + 1).value == "shipping_compute")
    ws.cell(row, COMMENT + 1).value = "delivered: included in the unit prices (DAP)"
    wb.save(tmp_path / "acme-q2.xlsx")
    assert main(["import-quote", str(tmp_path / "acme-q2.xlsx"), "--site", str(mine)]) == 0, capsys.readouterr().err
    after = load(mine)
    assert v(before, "bom.support_compute_unit_price") == pytest.approx(0.08 * 34_660_000, rel=1e-12)
    assert v(before, "tco.support_cost") - v(after, "tco.support_cost") == pytest.approx(64_400, rel=1e-9)
    assert v(before, "tco.it_capex") - v(after, "tco.it_capex") == pytest.approx(346_600, rel=1e-12)


def _write_in_heading(ws: Any) -> None:
    row = next(r for r in range(FIRST, ws.max_row + 1) if str(ws.cell(r, KEY + 1).value).startswith("Network:"))
    ws.cell(row, PRICE + 1).value = 1


def _add_a_line(ws: Any, model: Any) -> None:
    """A GPU node line, as the full copy has it, added to the network vendor's copy."""
    nodes = next(r for r in quote_rows(model.book, model.values) if r.key == "nodes")
    ws.insert_rows(FIRST)
    for c, value in enumerate((nodes.key, nodes.item, nodes.spec, nodes.qty, nodes.unit, 250000, 8), start=1):
        ws.cell(FIRST, c).value = value


@pytest.mark.slow
@pytest.mark.parametrize("attack", ["heading-written", "line-added"])
def test_a_tampered_subset_is_refused(attack: str, site: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A network copy with a price written in a group heading row, or with a GPU node line added (a vendor
    pricing a line it was not asked for), is refused in one line and nothing is written."""
    mine = site.parent / f"tampered-{attack}.yaml"
    shutil.copy(site, mine)
    path = fill(issue_copy(mine, tmp_path / "beta.xlsx", "Beta Networks", "--groups", "network"), tmp_path / "q.xlsx",
                {"leaf_switches": (28000, 20)})
    wb = openpyxl.load_workbook(path)
    if attack == "heading-written":
        _write_in_heading(wb[QUOTE_SHEET])
    else:
        _add_a_line(wb[QUOTE_SHEET], load(mine))
    wb.save(path)
    assert main(["import-quote", str(path), "--site", str(mine)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and path.name in err, err
    assert ("heading row was written in" if attack == "heading-written" else "rows were added") in err, err
    assert not quotes_path(mine).exists()


# ---------------------------------------------------------------- a copy that can be returned (issue 44, item 5)


@pytest.mark.slow
@pytest.mark.parametrize("dropped", [("buyer_contact", "response_deadline"), ("buyer_company",),
                                     ("response_deadline",)])
def test_a_copy_is_not_issued_without_who_asks_and_by_when(dropped: tuple[str, ...], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A site that leaves the buyer's company, contact or response deadline to be agreed: quote exits 2 with one
    line naming the file and exactly the terms missing (and --draft), and writes nothing."""
    site = tmp_path / "site.yaml"
    site.write_text(without_terms(with_bom(EXAMPLE_TEXT, TERMS), list(dropped)))
    out = tmp_path / "c.xlsx"
    assert main(["quote", str(site), "--vendor", "Acme", "--date", ISSUED, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {site}: ") and "--draft" in err, err
    named = set(re.findall(r"bom\.[a-z_]+", err.split(": ")[2]))
    assert named == {f"bom.{k}" for k in dropped}, err
    assert not out.exists()


@pytest.mark.slow
def test_a_draft_says_draft_on_every_page_and_is_not_imported(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """--draft writes the copy without the terms: every sheet's page header says DRAFT (so every printed page),
    its titles say DRAFT, its first rows say which terms are to be agreed; its reference is not the issued
    copy's, and import-quote refuses it filled in, writing nothing."""
    site = tmp_path / "site.yaml"
    site.write_text(without_terms(EXAMPLE_TEXT))
    out = tmp_path / "draft.xlsx"
    assert main(["quote", str(site), "--vendor", "Acme", "--date", ISSUED, "--draft", "-o", str(out)]) == 0
    assert "DRAFT" in capsys.readouterr().out
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == [INSTRUCTIONS_SHEET, QUOTE_SHEET]
    for ws in wb:
        assert ws.oddHeader.center.text.startswith("DRAFT"), ws.title
        assert "DRAFT" in ws.cell(1, 1).value, ws.title
    status = cover(out)["Status"]
    assert status.startswith("DRAFT") and "Buyer (company)" in status and "Quotes due by" in status, status
    filled = fill(out, tmp_path / "draft-q.xlsx", {"nodes": (265000, 12)})
    assert main(["import-quote", str(filled), "--site", str(site)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "draft" in err, err
    assert not quotes_path(site).exists()


@pytest.mark.slow
def test_a_draft_of_a_complete_site_is_still_a_draft(site: Path, tmp_path: Path) -> None:
    """--draft on a site with every term: DRAFT on each page, no term listed as missing, another reference."""
    draft = issue_copy(site, tmp_path / "d.xlsx", "Acme Networks", "--draft")
    issued = issue_copy(site, tmp_path / "i.xlsx", "Acme Networks")
    rows = cover(draft)
    assert rows["Status"].startswith("DRAFT: for review, not issued.")
    assert rows["Reference"] != cover(issued)["Reference"]
    assert all(ws.oddHeader.center.text is None for ws in openpyxl.load_workbook(issued))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["example.yaml", "b200-liquid-build.yaml", "gb200-nvl72-colo.yaml",
                                  "h100-10k-build.yaml", "example-b200-upgrade.yaml"])
def test_the_example_sites_issue_their_copies(name: str, tmp_path: Path) -> None:
    """Every example site sets its terms: `quote inputs/<site>` issues a copy (no DRAFT), with the buyer's company,
    project and contact, a due date, and an Incoterms rule with its place."""
    out = issue_copy(EXAMPLE.parent / name, tmp_path / "c.xlsx", "Acme")
    rows = cover(out)
    assert "Status" not in rows
    assert "to be agreed" not in {rows[t.label] for t in TERM_SPECS}, rows
    assert len(rows["Delivery terms (Incoterms 2020 rule and named place)"].split()) >= 2
