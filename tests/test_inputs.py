"""Site files: every kind of bad input is refused with one line naming the file, the key and the value.

Each bad site is the example site with one thing changed, so these tests keep working as models add keys.
"""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE
from tests.helpers import BASE, SPECS, site_with
from workbook.build import build_book, complete
from workbook.excel.layout import NOTE
from workbook.formula.units import is_information
from workbook.models import all_specs
from workbook.site.errors import InputError, InputErrors
from workbook.site.examples import example_for
from workbook.site.load import load_site
from workbook.site.spec import Site, hidden
from workbook.site.templates import load_catalog


def write(data: dict[str, Any] | str, path: Path) -> Path:
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def load(data: dict[str, Any] | str, path: Path) -> Site:
    return load_site(write(data, path), all_specs())


def refused(data: dict[str, Any] | str, path: Path) -> InputError:
    """The error loading a bad site with one problem: it names the file, and its message (what the CLI prints)
    is one line."""
    with pytest.raises(InputError) as err:
        load(data, path)
    e = err.value
    assert not isinstance(e, InputErrors), str(e)
    assert "\n" not in str(e), str(e)
    assert e.file == path, f"the error does not name the file: {e}"
    assert e.problem, e
    return e


def test_the_example_site_loads(tmp_path: Path) -> None:
    site = load(BASE, tmp_path / "ok.yaml")
    assert site.get("power.gpus").magnitude == 1024
    assert len(site.digest) == 64


@pytest.mark.parametrize(
    ("key", "raw", "found", "unit"),
    [
        ("power.gpu_tdp", "700 m", "is in m, which is not a power", "W"),
        ("power.rack_power_limit", "41 kWh", "is in kWh, which is not a power", "kW"),
        ("power.feed_block_size", "2.5 USD", "is in USD, which is not an apparent power", "MVA"),
        ("power.cpu_tdp", 350, "has no unit", "W"),
        ("power.pue", "1.4 W", "is in W, which is not a ratio", None),
        ("power.rack_units", "42 kg", "is in kg, which is not a height in rack units", "U"),
    ],
)
def test_wrong_dimension(tmp_path: Path, key: str, raw: Any, found: str, unit: str | None) -> None:
    err = refused(site_with({key: raw}), tmp_path / "bad.yaml")
    assert (err.key, err.value, err.problem, err.unit) == (key, raw, found, unit)
    assert err.expected.startswith(SPECS[key].expect) and err.expected.endswith(example_for(SPECS[key])[0])


def test_wrong_dimension_message_reads_like_the_readme(tmp_path: Path) -> None:
    """The one line the CLI prints (README), composed from the error's attributes."""
    path = tmp_path / "x.yaml"
    err = refused(site_with({"power.gpu_tdp": "700 m"}), path)
    assert (err.key, err.value, err.unit) == ("power.gpu_tdp", "700 m", "W")
    assert err.expected == "a power in W, e.g. gpu_tdp: 700 W"
    assert str(err) == (f"{path}: power.gpu_tdp = '700 m': is in m, which is not a power; "
                        "expected a power in W, e.g. gpu_tdp: 700 W")


@pytest.mark.parametrize(("key", "unit"), [("power.gpus", None), ("power.rack_power_limit", "kW"),
                                           ("power.site_available_power", "MW")])
def test_missing_key(tmp_path: Path, key: str, unit: str | None) -> None:
    err = refused(site_with(remove=(key,)), tmp_path / "missing.yaml")
    assert (err.key, err.value, err.unit) == (key, None, unit)
    assert err.problem.startswith("is missing") and err.expected.endswith(example_for(SPECS[key])[0])


def test_missing_catalog_value(tmp_path: Path) -> None:
    """gpu_tdp comes from the catalog; without a catalog and without the key it is missing, and so is every other
    key the catalog gave: all named at once, one line each."""
    data = site_with()
    del data["catalog"]
    with pytest.raises(InputErrors) as err:
        load(data, tmp_path / "nocat.yaml")
    keys = [e.key for e in err.value.errors]
    assert all(e.problem == "is missing" and e.file == tmp_path / "nocat.yaml" for e in err.value.errors)
    assert "power.gpu_tdp" in keys and "fabric.switch_radix" in keys and "cooling.coolant_density" in keys
    assert str(err.value).splitlines() == [str(e) for e in err.value.errors]


def test_missing_site_name(tmp_path: Path) -> None:
    data = site_with()
    del data["site"]
    err = refused(data, tmp_path / "noname.yaml")
    assert (err.key, err.problem) == ("site", "is missing")


@pytest.mark.parametrize("gpus", [0, -1, -1024])
def test_zero_or_negative_gpu_count(tmp_path: Path, gpus: int) -> None:
    err = refused(site_with({"power.gpus": gpus}), tmp_path / "neg.yaml")
    assert (err.key, err.value) == ("power.gpus", gpus)
    assert err.problem.startswith("must be greater than 0")


@pytest.mark.parametrize(("key", "raw"), [("power.gpus", 1024.5), ("power.gpus_per_node", 7.5),
                                          ("power.rack_units", "42.5 U")])
def test_non_integer_count(tmp_path: Path, key: str, raw: Any) -> None:
    err = refused(site_with({key: raw}), tmp_path / "frac.yaml")
    assert (err.key, err.value, err.problem) == (key, raw, "is not a whole number")


@pytest.mark.parametrize("raw", ["7OO W", "seven hundred watts", "700 Wats", "", "7.0.0 W"])
def test_unparseable_number(tmp_path: Path, raw: str) -> None:
    err = refused(site_with({"power.gpu_tdp": raw}), tmp_path / "junk.yaml")
    assert (err.key, err.value, err.unit) == ("power.gpu_tdp", raw, "W")


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
    err = refused(site_with({key: raw}), tmp_path / "typo.yaml")
    assert (err.key, err.value) == (key, raw)


@pytest.mark.parametrize(
    ("key", "raw"),
    [("power.pue", 0.5), ("power.pue", 3.5), ("power.psu_efficiency", 1.2), ("power.psu_efficiency", 0.3),
     ("power.sync_peak_factor", 2.5), ("power.feed_headroom", -0.1), ("power.feed_headroom", 1.5),
     ("power.psu_efficiency", "120%")],
)
def test_out_of_range_ratio(tmp_path: Path, key: str, raw: Any) -> None:
    err = refused(site_with({key: raw}), tmp_path / "range.yaml")
    assert (err.key, err.value) == (key, raw)
    assert err.problem.startswith(("must be at least", "must be at most", "must be greater than")), err.problem
    assert err.expected.endswith(example_for(SPECS[key])[0])


def test_percent_text_is_a_fraction(tmp_path: Path) -> None:
    site = load(site_with({"power.psu_efficiency": "94%"}), tmp_path / "pct.yaml")
    assert site.get("power.psu_efficiency").magnitude == pytest.approx(0.94, rel=1e-12)


def test_unknown_key_suggests_the_right_one(tmp_path: Path) -> None:
    data = site_with()
    data["power"]["gpu_tpd"] = "700 W"
    err = refused(data, tmp_path / "typo.yaml")
    assert (err.key, err.value, err.problem) == ("power.gpu_tpd", "700 W", "unknown key (did you mean power.gpu_tdp?)")


def test_unknown_section_suggests_the_right_one(tmp_path: Path) -> None:
    data = site_with()
    data["powr"] = data.pop("power")
    err = refused(data, tmp_path / "section.yaml")
    assert (err.key, err.problem) == ("powr", "unknown section (did you mean power?)")
    assert "power" in err.expected.removeprefix("one of the sections ").split(", ")


def test_unknown_catalog_entry(tmp_path: Path) -> None:
    err = refused(site_with(catalog={**BASE["catalog"], "gpu": "H100-SMX"}), tmp_path / "cat.yaml")
    assert (err.key, err.value) == ("catalog.gpu", "H100-SMX")
    assert err.problem == "not in catalog.yaml (did you mean H100-SXM?)"


def test_unknown_catalog_kind(tmp_path: Path) -> None:
    err = refused(site_with(catalog={"gpu": "H100-SXM", "nodes": "DGX-H100"}), tmp_path / "kind.yaml")
    assert (err.key, err.problem) == ("catalog.nodes", "unknown kind (did you mean node?)")


@pytest.mark.parametrize("choice", [5, "H100-SXM", ["gpu", "H100-SXM"], True])
def test_a_catalog_that_is_not_a_mapping_is_refused(tmp_path: Path, choice: Any) -> None:
    """The fuzz found `catalog: 5` raising AttributeError after the loader had reported it: one line, not a
    traceback."""
    err = refused(site_with(catalog=choice), tmp_path / "catalog.yaml")
    assert (err.key, err.value, err.problem) == ("catalog", choice, "is not a mapping")


@pytest.mark.parametrize(("text", "line"), [("site: x\npower: {gpus: 1024\n", 3), ("site: x\n  power:\n gpus: [1\n", 2),
                                           ("site: x\npower:\n\tgpus: 8\n", 3)])
def test_invalid_yaml(tmp_path: Path, text: str, line: int) -> None:
    err = refused(text, tmp_path / "broken.yaml")
    assert err.problem.startswith("not valid YAML") and err.key is None
    assert err.line == line


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
    assert yaml.safe_load(text) is not None  # PyYAML itself accepts the file
    err = refused(text, tmp_path / "twice.yaml")
    assert err.key == ("power.pue" if twice == "pue" else "power")
    assert err.problem.startswith("not valid YAML") and f"the key {twice!r} is given twice" in err.problem
    assert err.line is not None and text.splitlines()[err.line - 1].lstrip().startswith(f"{twice}:")


def test_a_site_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    err = refused("- just\n- a list\n", tmp_path / "list.yaml")
    assert (err.key, err.problem) == (None, "is not a mapping")


def test_a_file_that_does_not_exist(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(InputError) as err:
        load_site(path, all_specs())
    assert err.value.file == path and err.value.key is None and "\n" not in str(err.value)
    assert err.value.problem.startswith("cannot read the file")


@pytest.mark.slow
def test_a_value_in_another_unit_is_converted(tmp_path: Path) -> None:
    site = load(site_with({"power.gpu_tdp": "0.7 kW", "power.rack_power_limit": "41000 W",
                           "power.site_available_power": "3000 kW"}), tmp_path / "units.yaml")
    assert site.get("power.gpu_tdp").magnitude == pytest.approx(700, rel=1e-12)
    assert site.get("power.rack_power_limit").magnitude == pytest.approx(41, rel=1e-12)
    assert site.get("power.site_available_power").magnitude == pytest.approx(3, rel=1e-12)
    book = build_book(complete(site))
    line = book.lines["power.gpu_tdp"]
    assert float(line.value) == pytest.approx(700, rel=1e-12)
    assert line.unit_text == "W"
    assert "0.7 kW" in line.note  # what was written is kept beside the converted value


@pytest.mark.slow
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
    err = refused(site_with({"power.pue": {"value": 1.3, "sauce": "x"}}), tmp_path / "field.yaml")
    assert (err.key, err.value) == ("power.pue", {"value": 1.3, "sauce": "x"})
    assert err.problem == "unknown field(s) sauce beside value/source"


def test_an_itemised_key_under_the_pue_model_is_refused(tmp_path: Path) -> None:
    err = refused(site_with({"power.cooling_overhead": 0.2}), tmp_path / "when.yaml")
    assert (err.key, err.value) == ("power.cooling_overhead", 0.2)
    assert err.problem.startswith("only used when power.facility_model is itemised")


@pytest.mark.parametrize("raw", ["N+", "3", "N-1", "0N", "twice"])
def test_bad_redundancy(tmp_path: Path, raw: str) -> None:
    err = refused(site_with({"power.feed_redundancy": raw}), tmp_path / "red.yaml")
    assert (err.key, err.value, err.unit) == ("power.feed_redundancy", raw, None)
    assert err.expected.startswith("a redundancy scheme")


@pytest.mark.parametrize(("raw", "want"), [("N", (1, 0)), ("N+1", (1, 1)), ("2N", (2, 0)), ("2N+1", (2, 1))])
def test_redundancy_schemes(tmp_path: Path, raw: str, want: tuple[int, int]) -> None:
    site = load(site_with({"power.feed_redundancy": raw}), tmp_path / "red.yaml")
    assert site.get("power.feed_redundancy").magnitude == want


# ---------------------------------------------------------------- properties

HYPO = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _load_tmp(data: dict[str, Any]) -> Site:
    with tempfile.TemporaryDirectory() as d:
        return load(data, Path(d) / "site.yaml")


def _refused_tmp(data: dict[str, Any]) -> InputError:
    with tempfile.TemporaryDirectory() as d:
        return refused(data, Path(d) / "site.yaml")


TDP = next(s for s in all_specs() if s.key == "power.gpu_tdp")


@pytest.mark.slow
@HYPO
@given(watts=st.floats(min_value=TDP.lo, max_value=TDP.hi, allow_nan=False),
       unit=st.sampled_from(["W", "kW", "mW", "MW"]))
def test_any_gpu_power_in_its_range_in_any_unit_gives_the_same_watts(watts: float, unit: str) -> None:
    scale = {"W": 1, "kW": 1e-3, "mW": 1e3, "MW": 1e-6}[unit]
    site = _load_tmp(site_with({"power.gpu_tdp": f"{watts * scale!r} {unit}"}))
    assert site.get("power.gpu_tdp").magnitude == pytest.approx(watts, rel=1e-12)


@pytest.mark.slow
@HYPO
@given(gpus=st.integers(max_value=0))
def test_any_non_positive_gpu_count_is_refused(gpus: int) -> None:
    err = _refused_tmp(site_with({"power.gpus": gpus}))
    assert (err.key, err.value) == ("power.gpus", gpus)


@pytest.mark.slow
@HYPO
@given(key=st.sampled_from(["power.cpus_per_node", "power.nics_per_node"]), n=st.integers(max_value=-1))
def test_any_negative_count_is_refused(key: str, n: int) -> None:
    err = _refused_tmp(site_with({key: n}))
    assert (err.key, err.value) == (key, n)


@pytest.mark.slow
@HYPO
@given(gpus=st.floats(min_value=0.01, max_value=1e6).filter(lambda x: not x.is_integer()))
def test_any_fractional_gpu_count_is_refused(gpus: float) -> None:
    err = _refused_tmp(site_with({"power.gpus": gpus}))
    assert (err.key, err.value, err.problem) == ("power.gpus", gpus, "is not a whole number")


@pytest.mark.slow
@HYPO
@given(pue=st.floats(min_value=-10, max_value=1, exclude_max=True) | st.floats(min_value=3, exclude_min=True,
                                                                             max_value=1e9))
def test_any_pue_outside_1_to_3_is_refused(pue: float) -> None:
    err = _refused_tmp(site_with({"power.pue": pue}))
    assert (err.key, err.value) == ("power.pue", pue)


@pytest.mark.slow
@HYPO
@given(pue=st.floats(min_value=1, max_value=3))
def test_any_pue_from_1_to_3_is_accepted(pue: float) -> None:
    assert _load_tmp(site_with({"power.pue": pue})).get("power.pue").magnitude == pue


@pytest.mark.slow
@HYPO
@given(watts=st.floats(min_value=-1e6, max_value=0))
def test_any_non_positive_gpu_tdp_is_refused(watts: float) -> None:
    err = _refused_tmp(site_with({"power.gpu_tdp": f"{watts!r} W"}))
    assert (err.key, err.value, err.unit) == ("power.gpu_tdp", f"{watts!r} W", "W")


def test_an_over_long_text_in_a_list_is_refused_naming_its_item(tmp_path: Path) -> None:
    """A 5,000-character text as an item of a list (a hostile generation section found it: the error had no key)."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["generation"] = {"zones": ["x" * 5000]}
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError) as refused:
        load_site(path, all_specs())
    assert refused.value.key == "generation.zones.0" and refused.value.file == path


def test_a_template_is_parsed_once_yet_an_edit_is_read_and_no_caller_changes_another(tmp_path: Path) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text("gpus:\n  X1: {tdp: 700 W}\n")
    first = load_catalog(path)
    first["gpus"]["X1"]["tdp"] = "1 W"  # a caller that changes what it was given
    assert load_catalog(path) == {"gpus": {"X1": {"tdp": "700 W"}}}
    path.write_text("gpus:\n  X1: {tdp: 1000 W}\n")
    assert load_catalog(path) == {"gpus": {"X1": {"tdp": "1000 W"}}}
    path.write_text("gpus: [\n")
    with pytest.raises(InputError) as e:
        load_catalog(path)
    assert e.value.file == path


# pint counts information as a pure number (bit = 1, byte = 8): a bare number given for a size would be read as
# that many bits. Every key in bytes, TB, GB/s or Gbit/s needs its unit; counts stay plain numbers.
SIZED = ("reliability.storage_sizing", "sized")  # the example's storage: sized from the checkpoint burst
INFORMATION = [s for s in all_specs() if not (s.choices or s.text or s.redundancy or s.date)
               and is_information(s.pint_unit)]


def test_the_keys_in_units_of_information_are_the_sizes_bandwidths_and_link_speeds() -> None:
    assert {"reliability.state_bytes", "reliability.fast_data", "reliability.fast_capacity",
            "reliability.node_write_bandwidth", "fabric.nic_speed"} <= {s.key for s in INFORMATION}
    assert not any(is_information(s.pint_unit) for s in all_specs() if s.unit in ("GPUs", "count", "%", "B params"))


@pytest.mark.parametrize("key", [s.key for s in INFORMATION if s.when in (None, SIZED)])
def test_a_bare_number_for_a_size_is_refused_not_read_as_bits(tmp_path: Path, key: str) -> None:
    err = refused(site_with({key: 16}), tmp_path / "bits.yaml")
    assert (err.key, err.value, err.problem) == (key, 16, "has no unit")
    assert SPECS[key].unit in err.expected  # the example names the unit


@pytest.mark.parametrize(("key", "value"), [("reliability.state_bytes", "16"), ("reliability.state_bytes", "1600 %"),
                                            ("power.gpus", "128 byte"), ("tco.utilisation", "0.7 bit")])
def test_a_text_whose_unit_is_information_where_the_key_is_not_or_the_reverse_is_refused(
        tmp_path: Path, key: str, value: str) -> None:
    """"16" for bytes would be 16 bits (2 bytes), "128 byte" 1,024 GPUs: pint converts between the two kinds."""
    err = refused(site_with({key: value}), tmp_path / "kinds.yaml")
    assert (err.key, err.value) == (key, value)
    assert err.problem.endswith(f"which is not {SPECS[key].expect}")


def test_a_size_with_its_unit_is_that_size(tmp_path: Path) -> None:
    site = load(site_with({"reliability.state_bytes": "14 bytes", "reliability.fast_data": "10000 TB"}),
                tmp_path / "sizes.yaml")
    assert site.get("reliability.state_bytes").magnitude == 14  # bytes, not 14 bits (1.75 bytes)
    assert site.get("reliability.fast_data").magnitude == 10_000  # TB
    err = refused(site_with({"reliability.state_bytes": "100 bytes"}), tmp_path / "range.yaml")
    assert err.problem.endswith("64 bytes")  # the range in the key's unit, not "512 (64 bytes)"


_NOT_ALLOWED = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}  # control, format, separators, surrogate, private, unassigned
_AWKWARD = ["\x1b", "\x7f", "\x85", "\u00a0", "\u00ad", "\u202e", "\u2028", "\u2029", "\u3000", "\ud800", "\ue000",
            "\U000e0001", "\u0378", " ", "é", "€"]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.one_of(st.characters(), st.sampled_from(_AWKWARD)), max_size=40))
def test_a_text_is_refused_for_its_first_hidden_character(text: str) -> None:
    """Whatever its shortcut for ordinary text, the rule names the first character of a category a site file's text
    may not hold (a space other than U+0020, as U+00A0 or U+3000, is allowed: it is no control)."""
    first = next((ch for ch in text if unicodedata.category(ch) in _NOT_ALLOWED), None)
    said = hidden(text)
    assert (said is None) == (first is None)
    if first is not None:
        assert said is not None and f"U+{ord(first):04X}" in said
