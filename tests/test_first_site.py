"""A first site file in minutes (issue 27, items 12-16): `init`, every missing or bad key named at once with an
example of that key's own, the failing checks printed, a warning for a node maximum below the component sum, the
new catalog nodes and a node the site file names itself.

Messages are written out in full, by hand, from the rules they follow; figures are hand calculations."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import BASE, SPECS, accepting_throttling, example_model, fill_required, invoke, site_with
from workbook import findings
from workbook.api import load
from workbook.models import all_rules, all_specs
from workbook.returned import vendor_copy
from workbook.site.errors import InputError, InputErrors
from workbook.site.examples import example_for
from workbook.site.load import load_site
from workbook.site.templates import load_catalog

MISSING = "is missing (not in the site file nor in its catalog entries)"


def site(path: Path, change: dict[str, Any] | None = None, remove: tuple[str, ...] = (), **top: Any) -> Path:
    """The example site with `section.key` values changed or removed, and top-level entries replaced, written."""
    path.write_text(yaml.safe_dump(site_with(change, remove, **top), sort_keys=False, allow_unicode=True))
    return path


def problems(path: Path) -> list[InputError]:
    with pytest.raises(InputError) as exc:
        load_site(path, all_specs(), rules=all_rules())
    return list(exc.value.errors) if isinstance(exc.value, InputErrors) else [exc.value]


# ---------------------------------------------------------------- 13. every problem at once, each e.g. the key's own


def test_every_missing_and_bad_key_is_named_at_once_one_line_each(tmp_path: Path) -> None:
    path = site(tmp_path / "s.yaml", {"power.rack_power_limit": "41 kWh", "power.gpu_tpd": "700 W"},
                remove=("power.gpus", "tco.cable_price"))
    want = [
        f"{path}: power.gpu_tpd = '700 W': unknown key (did you mean power.gpu_tdp?)",
        f"{path}: power.gpus: {MISSING}; expected a count of GPUs, e.g. gpus: 1024",
        f"{path}: power.rack_power_limit = '41 kWh': is in kWh, which is not a power; expected a power in kW, "
        "e.g. rack_power_limit: 41 kW",
        f"{path}: tco.cable_price: {MISSING}; expected an amount of money in USD, e.g. cable_price: 150 USD",
    ]
    with pytest.raises(InputErrors) as exc:
        load(path)
    assert [str(e) for e in exc.value.errors] == want
    assert str(exc.value) == "\n".join(want)
    assert (exc.value.key, exc.value.problem) == ("power.gpu_tpd", "unknown key (did you mean power.gpu_tdp?)")
    assert [e.key for e in exc.value.errors] == ["power.gpu_tpd", "power.gpus", "power.rack_power_limit",
                                                 "tco.cable_price"]

    out = tmp_path / "out.xlsx"
    proc = invoke("build", path, "-o", out)
    assert proc.returncode == 2 and not out.exists() and proc.stdout == ""
    assert proc.stderr.splitlines() == [f"error: {line}" for line in want] + [
        f"error: 4 problems in {path}, each on a line above"]


def test_one_problem_is_still_one_input_error(tmp_path: Path) -> None:
    path = site(tmp_path / "s.yaml", {"power.gpus": None})
    [e] = problems(path)
    assert not isinstance(e, InputErrors)
    assert str(e) == f"{path}: power.gpus: has no value; expected a count of GPUs, e.g. gpus: 1024"


@pytest.mark.parametrize(("key", "want", "origin"), [
    ("tco.cable_price", "150 USD", "example.yaml: estimate: multimode fibre patch cable [E]"),  # was 270000 USD
    ("power.cpu_tdp", "350 W", "example.yaml, catalog node DGX-H100: Intel ARK"),  # was 700 W
    ("power.rack_width", "0.6 m", "defaults.yaml: EIA-310 cabinets are 600 mm wide"),
    ("tco.loan_share", "0.6", "b200-liquid-build.yaml: term sheet: 60% of capex debt-financed [E]"),
    ("tco.facility_exit_value", "0.1", ""),  # in no default and no example site: the model's own example
])
def test_each_example_is_a_value_for_that_key(key: str, want: str, origin: str) -> None:
    value, source = example_for(SPECS[key])
    assert value == want and source.startswith(origin), (value, source)


def test_a_choice_and_a_redundancy_have_an_example_of_their_own(tmp_path: Path) -> None:
    """Not only the words for the kind: the example site's N+1 feed blocks, the default cash financing."""
    path = site(tmp_path / "s.yaml", {"power.feed_redundancy": "3N+x", "tco.financing": "lease"})
    assert [str(e) for e in problems(path)] == [
        f"{path}: power.feed_redundancy = '3N+x': is not a redundancy scheme the tool knows; expected a redundancy "
        "scheme such as N, N+1, N+2, 2N or 2N+1, e.g. feed_redundancy: N+1",
        f"{path}: tco.financing = 'lease': is not a known choice; expected one of cash, loan, e.g. financing: cash"]


def test_a_loan_without_its_keys_names_the_three_at_once_with_the_build_sites_values(tmp_path: Path) -> None:
    path = site(tmp_path / "loan.yaml", {"tco.financing": "loan"})
    assert [str(e) for e in problems(path)] == [
        f"{path}: tco.loan_share: {MISSING}; expected a fraction (such as 0.7, or 70%), e.g. loan_share: 0.6",
        f"{path}: tco.loan_rate: {MISSING}; expected a fraction (such as 0.7, or 70%), e.g. loan_rate: 0.075",
        f"{path}: tco.loan_term: {MISSING}; expected a duration in months, e.g. loan_term: 4 years",
    ]


@pytest.mark.parametrize(("change", "top", "key"), [
    ({}, {"catalog": {**BASE["catalog"], "node": "DGX-H10"}}, "catalog.node"),  # its 27 keys are not also missing
    ({"tco.financing": "lone"}, {}, "tco.financing"),  # what it switches on is not judged
    ({"power.pue": {"value": 1.4, "sauce": "x"}}, {}, "power.pue"),  # a bad form is not also a missing key
])
def test_a_key_at_fault_is_reported_once_not_also_as_missing(tmp_path: Path, change: dict[str, Any],
                                                             top: dict[str, Any], key: str) -> None:
    [e] = problems(site(tmp_path / "s.yaml", change, **top))
    assert e.key == key


def test_a_misspelt_section_is_one_problem(tmp_path: Path) -> None:
    data = copy.deepcopy(BASE)
    data["powr"] = data.pop("power")
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    [e] = problems(path)
    assert (e.key, e.problem) == ("powr", "unknown section (did you mean power?)")


# ---------------------------------------------------------------- 14. the failing checks, printed


@pytest.mark.slow
def test_a_build_prints_each_failing_check_with_its_rule(tmp_path: Path) -> None:
    """The example's contracted feed is 2.166 MW (evaluate): with 2 MW available, that one check fails."""
    path = site(tmp_path / "s.yaml", {"power.site_available_power": "2 MW"})
    out = tmp_path / "s.xlsx"
    proc = invoke("build", path, "-o", out)
    assert proc.returncode == 0 and out.exists(), proc.stderr
    assert proc.stdout.splitlines()[1:] == [
        "  check FAILS: Contracted feed fits the site's available power: [Contracted utility feed] <= "
        "[Utility power available at the site] (Contracted utility feed 2.28 MW; Utility power available at the "
        "site 2 MW)"]
    assert re.fullmatch(rf"wrote {re.escape(str(out))} \(\d+ lines; checks FAIL\)", proc.stdout.splitlines()[0])


def test_the_failing_checks_printed_are_capped_with_how_many_more() -> None:
    failing = [(f"check {i}", f"[a{i}] <= [b{i}]") for i in range(12)] + [("no rule", "")]
    lines = findings.failing_lines(failing)
    assert lines[0] == "  check FAILS: check 0: [a0] <= [b0]" and len(lines) == 11
    assert lines[-1] == "  ... and 3 more failing checks (the Checks sheet lists every check)"
    assert findings.failing_lines([("no rule", "")]) == ["  check FAILS: no rule"]


@pytest.mark.slow
def test_the_failing_checks_are_those_the_master_check_reads(tmp_path: Path) -> None:
    model = load(site(tmp_path / "s.yaml", {"power.site_available_power": "2 MW"}))
    assert findings.failing_checks(model) == [(
        "Contracted feed fits the site's available power",
        "[Contracted utility feed] <= [Utility power available at the site] (Contracted utility feed 2.28 MW; "
        "Utility power available at the site 2 MW)")]
    assert findings.failing_checks(example_model()) == []


# ---------------------------------------------------------------- 15. a node maximum below the component sum


@pytest.mark.slow
def test_a_node_maximum_below_the_component_sum_is_a_warning_and_the_sum_is_used(tmp_path: Path) -> None:
    """DGX H100: 8 x 700 + 2 x 350 + 10 x 25 + 320 + 400 + 220 + 1400 = 8,890 W DC / 0.94 = 9,457.45 W at the wall,
    above a stated maximum of 8 kW: the design uses 9.457 kW and the build warns."""
    path = site(tmp_path / "s.yaml", {"power.node_max_input": "8 kW"})
    model = load(path)
    assert model.quantity("power.node_component_power").to("W").magnitude == pytest.approx(8890 / 0.94, rel=1e-12)
    assert model.quantity("power.node_power").to("W").magnitude == pytest.approx(8890 / 0.94, rel=1e-12)
    assert bool(model.quantity("power.node_max_below_components")) is True
    assert model.book.lines["power.node_max_below_components"].sheet == "Power chain"
    assert findings.warnings(model) == [
        f"warning: {path}: power.node_max_input = 8 kW is below the node's component sum, 9.46 kW; the design "
        "uses the sum. Check the node's values (cpu_tdp, fan_power, baseboard_power...) or its maximum (Power "
        "chain: Warning: the maximum input given is below the component sum)"]
    proc = invoke("build", path, "-o", tmp_path / "s.xlsx")
    assert proc.returncode == 0 and proc.stderr.splitlines() == findings.warnings(model)
    assert findings.failing_checks(model) == []  # a warning, not a check


@pytest.mark.slow
@pytest.mark.parametrize("given", ["10.2 kW", "0 kW"])  # the DGX H100's published maximum; none published
def test_no_warning_for_a_maximum_above_the_sum_or_none(tmp_path: Path, given: str) -> None:
    model = load(site(tmp_path / "s.yaml", {"power.node_max_input": given}))
    assert bool(model.quantity("power.node_max_below_components")) is False and findings.warnings(model) == []


def test_a_scenario_with_a_maximum_below_the_sum_is_warned_by_name(tmp_path: Path) -> None:
    model = load(site(tmp_path / "s.yaml", scenarios={"low_max": {"power.node_max_input": "9 kW"}}))
    [line] = findings.warnings(model)
    assert "power.node_max_input (scenario.low_max) = 9 kW is below the node's component sum, 9.46 kW" in line


def _node_item(model: Any) -> Any:
    """The bill of materials' row of the GPU nodes."""
    return next(item for item, _, _ in model.book.bom.rows if item.key == "nodes")


def _site_described(path: Path, node_name: str | None = None) -> Path:
    """The example with its catalog node's values written in the site file instead (a node it describes)."""
    data = copy.deepcopy(BASE)
    node = data["catalog"].pop("node")
    for key, raw in load_catalog()["nodes"][node]["values"].items():
        section, name = key.split(".")
        data.setdefault(section, {})[name] = raw["value"]
    if node_name is not None:
        data["power"]["node_name"] = node_name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.slow
def test_a_site_described_node_has_its_own_name_in_the_bom_and_the_quote(tmp_path: Path) -> None:
    plain = load(_site_described(tmp_path / "plain.yaml"))
    named = load(_site_described(tmp_path / "named.yaml", "Acme 8-GPU H100 server"))
    assert _node_item(plain).spec == "GPU node (site-described)"
    assert _node_item(named).spec == "Acme 8-GPU H100 server"
    assert next(r for r in vendor_copy.quote_rows(named.book, named.values) if r.key == "nodes").spec == (
        "Acme 8-GPU H100 server")
    assert [s.value for s in named.book.settings if s.key == "power.node_name"] == ["Acme 8-GPU H100 server"]
    # the numbers do not depend on where the node's values come from
    assert named.quantity("power.it_load") == example_model().quantity("power.it_load")


@pytest.mark.slow
def test_a_catalog_node_keeps_its_description_unless_the_site_names_it(tmp_path: Path) -> None:
    model = load(site(tmp_path / "s.yaml", {"power.node_name": "Our DGX"}))
    assert _node_item(model).spec == "Our DGX"
    assert _node_item(example_model()).spec.startswith("NVIDIA DGX H100 (8x H100 SXM")


@pytest.mark.parametrize("bad", ["", "x" * 101, 7])
def test_a_bad_node_name_is_refused(tmp_path: Path, bad: Any) -> None:
    [e] = problems(site(tmp_path / "s.yaml", {"power.node_name": bad}))
    assert e.key == "power.node_name"
    assert e.problem in ("is empty", "is longer than 100 characters", "is not text (write it in quotes)")
    assert e.expected == "a name of at most 100 characters, e.g. node_name: Supermicro SYS-821GE-TNHR (8x H200 SXM)"


# ---------------------------------------------------------------- 15. the new catalog nodes, by hand


@pytest.mark.slow
@pytest.mark.parametrize(("gpu", "node", "dc_watts", "efficiency"), [
    # 8 x 700 + 2 x 350 + 10 x 25 + 320 + 400 + 220 + 1400
    ("H200-SXM", "HGX-H200-Supermicro", 8890, 0.96),
    # 8 x 1000 + 2 x 350 + 10 x 25 + 320 + 600 + 220 + 2000
    ("B200", "HGX-B200-Supermicro", 12090, 0.96),
    # 8 x 750 + 2 x 360 + 10 x 25 + 240 + 300 + 220 + 1000
    ("MI300X", "MI300X-Supermicro", 8730, 0.96),
    # 72 x 1400 + 36 x 250 + 90 x 30 + 0 + 7200 + 1440 + 4000
    ("B300-GB300", "GB300-NVL72", 125140, 0.97),
])
def test_the_new_catalog_nodes_add_up(tmp_path: Path, gpu: str, node: str, dc_watts: float,
                                      efficiency: float) -> None:
    gpus = 1152 if node == "GB300-NVL72" else 1024  # whole racks of 72
    model = load(site(tmp_path / "s.yaml", {"power.gpus": gpus},
                      catalog={**BASE["catalog"], "gpu": gpu, "node": node}))
    assert model.quantity("power.node_dc_power").to("W").magnitude == pytest.approx(dc_watts, rel=1e-12)
    assert model.quantity("power.node_power").to("W").magnitude == pytest.approx(dc_watts / efficiency, rel=1e-12)
    assert bool(model.quantity("power.node_max_below_components")) is False
    assert bool(model.quantity("power.psus_carry_node")) is True  # N supplies x rating >= the DC power
    assert _node_item(model).spec == load_catalog()["nodes"][node]["description"]
    # storage and in-band ports: 1024 / 8 = 128 nodes x 2 each; GB300: 1152 / 72 = 16 racks x 18 trays x 1 each
    ports = 16 * 18 if node == "GB300-NVL72" else 128 * 2
    assert model.quantity("fabric.storage_node_ports").magnitude == ports
    assert model.quantity("fabric.inband_node_ports").magnitude == ports


def test_every_new_catalog_value_has_a_source_with_its_confidence() -> None:
    catalog = load_catalog()
    entries = [catalog["gpus"]["B300-GB300"]] + [catalog["nodes"][n] for n in (
        "HGX-H200-Supermicro", "HGX-B200-Supermicro", "MI300X-Supermicro", "GB300-NVL72")]
    for entry in entries:
        for key, raw in entry["values"].items():
            assert key in SPECS, key
            assert re.search(r"\[(H|M|E|L)\b", raw["source"]), (key, raw["source"])


# ---------------------------------------------------------------- 12. init: write, fill, build, verify


def assert_only_the_feed_loss_check_fails(stdout: str) -> None:
    fails = [line for line in stdout.splitlines() if "check FAILS" in line]
    assert len(fails) == 1 and "On the loss of a feed" in fails[0] and "75.0%" in fails[0], stdout


def test_init_writes_a_file_that_builds_once_its_required_keys_are_filled(tmp_path: Path,
                                                                          libreoffice: str) -> None:
    path = tmp_path / "first.yaml"
    proc = invoke("init", "--gpu", "H200-SXM", "--node", "HGX-H200-Supermicro", "-o", path)
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    required = re.findall(r"^  ([a-z_0-9]+):$", text, flags=re.M)
    assert len(required) == 32 and proc.stdout.splitlines()[0].startswith(f"wrote {path} (32 keys REQUIRED: "
                                                                         "power.gpus, power.rack_units, ")
    assert "  # gpu_tdp: 700 W" in text and "  # rack_width: 0.6 m" in text and "  # loan_share: 0.6" in text
    assert "  gpu: H200-SXM" in text and "  node: HGX-H200-Supermicro" in text and "  switch: QM9700" in text

    # unfilled, the build names each REQUIRED key, all at once
    errors = problems(path)
    assert [(e.key, e.problem) for e in errors] == [(e.key, "has no value") for e in errors]
    assert [e.key.split(".")[1] for e in errors] == required
    assert str(errors[0]) == f"{path}: power.gpus: has no value; expected a count of GPUs, e.g. gpus: 1024"

    path.write_text(fill_required(text))
    out = tmp_path / "first.xlsx"
    proc = invoke("build", path, "-o", out)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert_only_the_feed_loss_check_fails(proc.stdout)
    path.write_text(accepting_throttling(fill_required(text)))
    proc = invoke("build", path, "-o", out)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.strip().endswith("; checks pass)")
    proc = invoke("verify", out)
    assert proc.returncode == 0, proc.stdout


@pytest.mark.slow
def test_init_marks_required_exactly_what_a_build_finds_missing(tmp_path: Path) -> None:
    """The skeleton's REQUIRED keys, removed, are the keys the loader reports missing: two computations, one
    answer. With --node none every node key is among them."""
    for node, count in (("DGX-H100", 32), ("none", 54)):
        path = tmp_path / f"{node}.yaml"
        assert invoke("init", "--gpu", "H200-SXM", "--node", node, "-o", path).returncode == 0
        text = path.read_text()
        required = re.findall(r"^  ([a-z_0-9]+):$", text, flags=re.M)
        path.write_text(re.sub(r"^  [a-z_0-9]+:\n", "", text, flags=re.M))
        missing = problems(path)
        assert [e.key.split(".")[1] for e in missing] == required and len(required) == count
        assert all(e.problem.startswith("is missing") for e in missing)
    assert "  # node: none chosen; entries: DGX-H100, DGX-B200" in (tmp_path / "none.yaml").read_text()


def test_a_loan_from_init_names_its_three_keys(tmp_path: Path) -> None:
    path = tmp_path / "loan.yaml"
    assert invoke("init", "--gpu", "H200-SXM", "--node", "HGX-H200-Supermicro", "-o", path).returncode == 0
    path.write_text(fill_required(path.read_text()).replace("  # financing: cash", "  financing: loan"))
    assert [e.key for e in problems(path)] == ["tco.loan_share", "tco.loan_rate", "tco.loan_term"]


@pytest.mark.slow
def test_init_refuses_to_replace_a_file_and_names_a_wrong_entry(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("site: mine\n")
    proc = invoke("init", "--gpu", "H200-SXM", "--node", "DGX-H100", "-o", path)
    assert (proc.returncode, proc.stderr) == (2, f"error: {path}: exists already; give --force to replace it, or "
                                                 "another -o\n")
    assert path.read_text() == "site: mine\n"
    assert invoke("init", "--gpu", "H200-SXM", "--node", "DGX-H100", "-o", path, "--force").returncode == 0
    assert path.read_text().startswith("# A site file written by `python -m workbook init --gpu H200-SXM")
    proc = invoke("init", "--gpu", "H200", "--node", "DGX-H100", "-o", tmp_path / "new.yaml")
    assert (proc.returncode, proc.stderr) == (2, "error: --gpu = 'H200': is not in catalog.yaml (did you mean "
                                                 "H200-SXM?); expected one of H100-SXM, H200-SXM, B200, B200-GB200, "
                                                 "MI300X, B300-GB300, or none\n")
    proc = invoke("init", "--gpu", "B200", "--node", "DGX-B200", "--part", "cdu=row", "-o", tmp_path / "new.yaml")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --part = 'cdu=row': is not in catalog.yaml "
                                                           "(did you mean row-1MW?)")
    assert not (tmp_path / "new.yaml").exists()
