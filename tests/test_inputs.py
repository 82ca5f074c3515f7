"""Site files: every kind of bad input is refused with one line naming the file, the key and the value.

Each bad site is the example site with one thing changed, so these tests keep working as models add keys.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE
from workbook.excel.layout import NOTE
from workbook.inputs import InputError, Site, load_site
from workbook.models import all_specs, build_book

BASE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())


def site_with(changes: dict[str, Any] | None = None, remove: tuple[str, ...] = (), **top: Any) -> dict[str, Any]:
    """The example site with `section.key` values changed or removed, and top-level keys replaced."""
    data = copy.deepcopy(BASE)
    for dotted, v in (changes or {}).items():
        section, key = dotted.split(".", 1)
        data.setdefault(section, {})[key] = v
    for dotted in remove:
        section, key = dotted.split(".", 1)
        del data[section][key]
    data.update(top)
    return data


def write(data: dict[str, Any] | str, path: Path) -> Path:
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def load(data: dict[str, Any] | str, path: Path) -> Site:
    return load_site(write(data, path), all_specs())


def refused(data: dict[str, Any] | str, path: Path) -> str:
    with pytest.raises(InputError) as err:
        load(data, path)
    msg = str(err.value)
    assert "\n" not in msg, msg
    assert str(path) in msg, f"the message does not name the file: {msg}"
    return msg


def test_the_example_site_loads(tmp_path: Path) -> None:
    site = load(BASE, tmp_path / "ok.yaml")
    assert site.get("power.gpus").magnitude == 1024
    assert len(site.digest) == 64


@pytest.mark.parametrize(
    ("key", "raw", "words"),
    [
        ("power.gpu_tdp", "700 m", ["m", "power"]),
        ("power.rack_power_limit", "41 kWh", ["kWh", "power"]),
        ("power.feed_block_size", "2.5 USD", ["USD", "power"]),
        ("power.cpu_tdp", 350, ["unit"]),
        ("power.pue", "1.4 W", ["W"]),
        ("power.rack_units", "42 kg", ["kg"]),
    ],
)
def test_wrong_dimension(tmp_path: Path, key: str, raw: Any, words: list[str]) -> None:
    msg = refused(site_with({key: raw}), tmp_path / "bad.yaml")
    assert key in msg
    assert repr(raw) in msg or str(raw) in msg
    for w in words:
        assert w in msg, msg


def test_wrong_dimension_message_reads_like_the_readme(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    msg = refused(site_with({"power.gpu_tdp": "700 m"}), path)
    assert msg == (f"{path}: power.gpu_tdp = '700 m': is in m, which is not a power; "
                   "expected a power in W, e.g. gpu_tdp: 700 W")


@pytest.mark.parametrize("key", ["power.gpus", "power.rack_power_limit", "power.site_available_power"])
def test_missing_key(tmp_path: Path, key: str) -> None:
    msg = refused(site_with(remove=(key,)), tmp_path / "missing.yaml")
    assert key in msg and "missing" in msg


def test_missing_catalog_value(tmp_path: Path) -> None:
    """gpu_tdp comes from the catalog; without a catalog and without the key it is missing."""
    data = site_with()
    del data["catalog"]
    msg = refused(data, tmp_path / "nocat.yaml")
    assert "missing" in msg


def test_missing_site_name(tmp_path: Path) -> None:
    data = site_with()
    del data["site"]
    msg = refused(data, tmp_path / "noname.yaml")
    assert "site" in msg


@pytest.mark.parametrize("gpus", [0, -1, -1024])
def test_zero_or_negative_gpu_count(tmp_path: Path, gpus: int) -> None:
    msg = refused(site_with({"power.gpus": gpus}), tmp_path / "neg.yaml")
    assert "power.gpus" in msg and str(gpus) in msg


@pytest.mark.parametrize(("key", "raw"), [("power.gpus", 1024.5), ("power.gpus_per_node", 7.5),
                                          ("power.rack_units", "42.5 U")])
def test_non_integer_count(tmp_path: Path, key: str, raw: Any) -> None:
    msg = refused(site_with({key: raw}), tmp_path / "frac.yaml")
    assert key in msg and str(raw) in msg


@pytest.mark.parametrize("raw", ["7OO W", "seven hundred watts", "700 Wats", "", "7.0.0 W"])
def test_unparseable_number(tmp_path: Path, raw: str) -> None:
    msg = refused(site_with({"power.gpu_tdp": raw}), tmp_path / "junk.yaml")
    assert "power.gpu_tdp" in msg and repr(raw) in msg


@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("power.rack_power_limit", "1,5 kW"),  # a decimal comma: pint drops the comma and reads 15 kW
        ("power.gpu_tdp", "700W 2"),  # pint multiplies juxtaposed numbers: 1400 W
        ("power.gpu_tdp", "7e2.5 W"),  # 7e2 x .5: 350 W
        ("power.storage_power", "1 024 kW"),  # a space as thousands separator: pint reads 0 kW
        ("power.gpus", "1e3.5"),  # 500 GPUs
        ("power.gpu_tdp", "700 W W"),  # W^2, caught as a wrong dimension
    ],
)
def test_text_that_is_not_one_number_and_a_unit_is_refused(tmp_path: Path, key: str, raw: str) -> None:
    """A site file value is one number and a unit. pint's parser reads more (implicit multiplication,
    commas dropped), which turns typos into plausible wrong numbers; the site loader must refuse them."""
    msg = refused(site_with({key: raw}), tmp_path / "typo.yaml")
    assert key in msg and repr(raw) in msg


@pytest.mark.parametrize(
    ("key", "raw"),
    [("power.pue", 0.5), ("power.pue", 3.5), ("power.psu_efficiency", 1.2), ("power.psu_efficiency", 0.3),
     ("power.sync_peak_factor", 2.5), ("power.feed_headroom", -0.1), ("power.feed_headroom", 1.5),
     ("power.psu_efficiency", "120%")],
)
def test_out_of_range_ratio(tmp_path: Path, key: str, raw: Any) -> None:
    msg = refused(site_with({key: raw}), tmp_path / "range.yaml")
    assert key in msg and str(raw) in msg
    assert "must be" in msg


def test_percent_text_is_a_fraction(tmp_path: Path) -> None:
    site = load(site_with({"power.psu_efficiency": "94%"}), tmp_path / "pct.yaml")
    assert site.get("power.psu_efficiency").magnitude == pytest.approx(0.94, rel=1e-12)


def test_unknown_key_suggests_the_right_one(tmp_path: Path) -> None:
    data = site_with()
    data["power"]["gpu_tpd"] = "700 W"
    msg = refused(data, tmp_path / "typo.yaml")
    assert "power.gpu_tpd" in msg
    assert "did you mean power.gpu_tdp" in msg


def test_unknown_section_suggests_the_right_one(tmp_path: Path) -> None:
    data = site_with()
    data["powr"] = data.pop("power")
    msg = refused(data, tmp_path / "section.yaml")
    assert "powr" in msg and "unknown section" in msg
    assert "did you mean power" in msg


def test_unknown_catalog_entry(tmp_path: Path) -> None:
    msg = refused(site_with(catalog={"gpu": "H100-SMX", "node": "DGX-H100"}), tmp_path / "cat.yaml")
    assert "catalog.gpu" in msg and "H100-SMX" in msg
    assert "did you mean H100-SXM" in msg


def test_unknown_catalog_kind(tmp_path: Path) -> None:
    msg = refused(site_with(catalog={"gpu": "H100-SXM", "nodes": "DGX-H100"}), tmp_path / "kind.yaml")
    assert "catalog.nodes" in msg


@pytest.mark.parametrize("text", ["site: x\npower: {gpus: 1024\n", "site: x\n  power:\n gpus: [1\n",
                                  "site: x\npower:\n\tgpus: 8\n"])
def test_invalid_yaml(tmp_path: Path, text: str) -> None:
    msg = refused(text, tmp_path / "broken.yaml")
    assert "YAML" in msg


@pytest.mark.parametrize("twice", ["pue", "power"])
def test_a_key_given_twice_is_refused(tmp_path: Path, twice: str) -> None:
    """YAML requires unique keys; PyYAML silently keeps the last, so a pasted line or block would override
    earlier values without a word. The loader must refuse the file, naming the key."""
    rest = yaml.safe_dump({k: v for k, v in BASE.items() if k != "power"}, sort_keys=False)
    power = yaml.safe_dump({"power": BASE["power"]}, sort_keys=False)
    if twice == "pue":
        extra = "  pue: 1.6\n"
    else:  # the whole section pasted again with one change: a valid site either way
        extra = yaml.safe_dump({"power": {**BASE["power"], "gpus": 2048}}, sort_keys=False)
    text = rest + power + extra
    load(yaml.safe_load(text), tmp_path / "last-wins.yaml")  # what PyYAML keeps is a valid site
    key = twice
    assert yaml.safe_load(text) is not None  # PyYAML itself accepts the file
    msg = refused(text, tmp_path / "twice.yaml")
    assert key in msg


def test_a_site_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    refused("- just\n- a list\n", tmp_path / "list.yaml")


def test_a_file_that_does_not_exist(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(InputError) as err:
        load_site(path, all_specs())
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_a_value_in_another_unit_is_converted(tmp_path: Path) -> None:
    site = load(site_with({"power.gpu_tdp": "0.7 kW", "power.rack_power_limit": "41000 W",
                           "power.site_available_power": "3000 kW"}), tmp_path / "units.yaml")
    assert site.get("power.gpu_tdp").magnitude == pytest.approx(700, rel=1e-12)
    assert site.get("power.rack_power_limit").magnitude == pytest.approx(41, rel=1e-12)
    assert site.get("power.site_available_power").magnitude == pytest.approx(3, rel=1e-12)
    book = build_book(site)
    line = book.lines["power.gpu_tdp"]
    assert float(line.value) == pytest.approx(700, rel=1e-12)
    assert line.unit_text == "W"
    assert "0.7 kW" in line.note  # what was written is kept beside the converted value


def test_value_with_source_reaches_the_inputs_note(tmp_path: Path) -> None:
    from workbook.api import build

    source = "vendor quote 2025-07 #4411"
    path = write(site_with({"power.pue": {"value": 1.35, "source": source}}), tmp_path / "src.yaml")
    site = load_site(path, all_specs())
    assert site.get("power.pue").magnitude == pytest.approx(1.35)
    assert source in site.get("power.pue").source
    model, layout = build(path, tmp_path / "src.xlsx")
    assert source in model.book.lines["power.pue"].note
    sheet, row, _ = layout.cells["power.pue"]
    ws = openpyxl.load_workbook(tmp_path / "src.xlsx")[sheet]
    assert source in str(ws.cell(row=row + 1, column=NOTE + 1).value)


def test_a_plain_value_is_sourced_to_the_site_file(tmp_path: Path) -> None:
    site = load(site_with({"power.pue": 1.3}), tmp_path / "plain.yaml")
    assert "plain.yaml" in site.get("power.pue").source


def test_a_catalog_value_carries_the_catalog_source(tmp_path: Path) -> None:
    site = load(site_with(), tmp_path / "cat.yaml")
    assert "H100-SXM" in site.get("power.gpu_tdp").source


def test_unknown_field_beside_value_and_source(tmp_path: Path) -> None:
    msg = refused(site_with({"power.pue": {"value": 1.3, "sauce": "x"}}), tmp_path / "field.yaml")
    assert "power.pue" in msg and "sauce" in msg


def test_an_itemised_key_under_the_pue_model_is_refused(tmp_path: Path) -> None:
    msg = refused(site_with({"power.cooling_overhead": 0.2}), tmp_path / "when.yaml")
    assert "power.cooling_overhead" in msg and "facility_model" in msg


@pytest.mark.parametrize("raw", ["N+", "3", "N-1", "0N", "twice"])
def test_bad_redundancy(tmp_path: Path, raw: str) -> None:
    msg = refused(site_with({"power.feed_redundancy": raw}), tmp_path / "red.yaml")
    assert "power.feed_redundancy" in msg and raw in msg


@pytest.mark.parametrize(("raw", "want"), [("N", (1, 0)), ("N+1", (1, 1)), ("2N", (2, 0)), ("2N+1", (2, 1))])
def test_redundancy_schemes(tmp_path: Path, raw: str, want: tuple[int, int]) -> None:
    site = load(site_with({"power.feed_redundancy": raw}), tmp_path / "red.yaml")
    assert site.get("power.feed_redundancy").magnitude == want


# ---------------------------------------------------------------- properties

HYPO = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _load_tmp(data: dict[str, Any]) -> Site:
    with tempfile.TemporaryDirectory() as d:
        return load(data, Path(d) / "site.yaml")


def _refused_tmp(data: dict[str, Any]) -> str:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "site.yaml"
        with pytest.raises(InputError) as err:
            load(data, path)
        msg = str(err.value)
        assert "\n" not in msg and str(path) in msg
        return msg


TDP = next(s for s in all_specs() if s.key == "power.gpu_tdp")


@HYPO
@given(watts=st.floats(min_value=TDP.lo, max_value=TDP.hi, allow_nan=False),
       unit=st.sampled_from(["W", "kW", "mW", "MW"]))
def test_any_gpu_power_in_its_range_in_any_unit_gives_the_same_watts(watts: float, unit: str) -> None:
    scale = {"W": 1, "kW": 1e-3, "mW": 1e3, "MW": 1e-6}[unit]
    site = _load_tmp(site_with({"power.gpu_tdp": f"{watts * scale!r} {unit}"}))
    assert site.get("power.gpu_tdp").magnitude == pytest.approx(watts, rel=1e-12)


@HYPO
@given(gpus=st.integers(max_value=0))
def test_any_non_positive_gpu_count_is_refused(gpus: int) -> None:
    msg = _refused_tmp(site_with({"power.gpus": gpus}))
    assert "power.gpus" in msg and str(gpus) in msg


@HYPO
@given(key=st.sampled_from(["power.cpus_per_node", "power.nics_per_node"]), n=st.integers(max_value=-1))
def test_any_negative_count_is_refused(key: str, n: int) -> None:
    msg = _refused_tmp(site_with({key: n}))
    assert key in msg and str(n) in msg


@HYPO
@given(gpus=st.floats(min_value=0.01, max_value=1e6).filter(lambda x: not x.is_integer()))
def test_any_fractional_gpu_count_is_refused(gpus: float) -> None:
    msg = _refused_tmp(site_with({"power.gpus": gpus}))
    assert "power.gpus" in msg and "whole" in msg


@HYPO
@given(pue=st.floats(min_value=-10, max_value=1, exclude_max=True) | st.floats(min_value=3, exclude_min=True,
                                                                             max_value=1e9))
def test_any_pue_outside_1_to_3_is_refused(pue: float) -> None:
    msg = _refused_tmp(site_with({"power.pue": pue}))
    assert "power.pue" in msg


@HYPO
@given(pue=st.floats(min_value=1, max_value=3))
def test_any_pue_from_1_to_3_is_accepted(pue: float) -> None:
    assert _load_tmp(site_with({"power.pue": pue})).get("power.pue").magnitude == pue


@HYPO
@given(watts=st.floats(min_value=-1e6, max_value=0))
def test_any_non_positive_gpu_tdp_is_refused(watts: float) -> None:
    msg = _refused_tmp(site_with({"power.gpu_tdp": f"{watts!r} W"}))
    assert "power.gpu_tdp" in msg
