"""Specs a vendor asks about (issue 44, item 6): the host-side transceiver of a catalog node names its part and
form factor, the spare NIC names a ConnectX part and no rating of the node, and the fabric manager's term licences
state the years of cover. Read from the vendor's copy's rows (workbook.returned.vendor_copy.quote_rows), as the copy
prints them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.helpers import BASE, example_model, site_with
from workbook.api import load
from workbook.returned.vendor_copy import QuoteRow, quote_rows


def rows_of(tmp_path: Path, node: str | None = None, gpu: str | None = None) -> dict[str, QuoteRow]:
    """The vendor's copy's rows of the example, or of the example on another catalog node, by key."""
    if node is None:
        model = example_model()
    else:
        path = tmp_path / "s.yaml"
        path.write_text(yaml.safe_dump(site_with(None, (), catalog={**BASE["catalog"], "gpu": gpu, "node": node}),
                                       sort_keys=False, allow_unicode=True))
        model = load(path)
    return {r.key: r for r in quote_rows(model.book, model.values)}


@pytest.mark.slow
@pytest.mark.parametrize(("gpu", "node", "part", "form"), [
    ("H200-SXM", "HGX-H200-Supermicro", "MMA4Z00-NS400", "single-port OSFP"),
    ("B200", "HGX-B200-Supermicro", "MMA4Z00-NS400", "single-port OSFP"),
    ("MI300X", "MI300X-Supermicro", "MMA1Z00-NS400", "QSFP112"),
])
def test_the_host_side_transceiver_names_its_part(tmp_path: Path, gpu: str, node: str, part: str,
                                                  form: str) -> None:
    """The H200 server's 1,024 host-side modules (one per ConnectX-7 OSFP cage) are the catalog's part, in its form
    factor, not "the NIC's form factor"."""
    spec = rows_of(tmp_path, node, gpu)["node_optics_mm"].spec
    assert part in spec and form in spec and "host side" in spec, spec
    assert "the NIC's form factor" not in spec


@pytest.mark.slow
@pytest.mark.parametrize(("gpu", "node", "part"), [
    ("H200-SXM", "HGX-H200-Supermicro", "ConnectX-7 MCX75310AAS-NEAT"),
    (None, None, "ConnectX-7"),  # the example's DGX H100
])
def test_the_spare_nic_names_a_connectx_part_and_no_rating_of_the_node(tmp_path: Path, gpu: str | None,
                                                                       node: str | None, part: str) -> None:
    """The spare NIC line says which card (a ConnectX part number; the DGX's is its field-replaceable part), and
    no spare part's spec prints the node's maximum input ("max input 10.2 kW" is the node's rating, not the
    part's; a spare node is the node, its rating with it)."""
    rows = rows_of(tmp_path, node, gpu)
    assert part in rows["spare_nic"].spec, rows["spare_nic"].spec
    for key, row in rows.items():
        if key.startswith("spare_") and key != "spare_node":
            assert "max input" not in row.spec and "kW)" not in row.spec.split(":")[-1], (key, row.spec)


@pytest.mark.slow
def test_the_licences_state_their_years_of_cover(tmp_path: Path) -> None:
    """The fabric manager's licences are term licences for the useful life in whole years: the example's 5 years
    (tco.useful_life 60 months), on the BOM sheet's row below them and in the copy's spec."""
    model = example_model()
    assert float(model.values["bom.fabric_manager_licences_cover"].reshape(-1)[0]) == 5
    spec = {r.key: r for r in quote_rows(model.book, model.values)}["fabric_manager_licences"].spec
    assert spec.endswith("for 5 years of cover"), spec
