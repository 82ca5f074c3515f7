"""`make test`'s processes: a module's tests run in one process, the long tests first and shared (tests/scheduling.py).

Run as pytest runs the suite (this project's pyproject.toml, two processes) on a made-up suite, each test writing
down which process ran it and when it started. The grouping was lost once without a failure: pytest 9.2 stopped
pytest-xdist's `--dist loadgroup` from grouping (pytest-dev/pytest-xdist#1386), and a module's fixtures were set up
in both processes again.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SUITE = {
    "conftest.py": 'pytest_plugins = ["tests.scheduling"]\n',
    "record.py": """
import json, os, time

def record(name):
    with open(os.environ["RECORD"], "a") as f:
        f.write(json.dumps([name, os.environ.get("PYTEST_XDIST_WORKER"), time.time()]) + "\\n")
""",
    "test_a.py": """
import pytest
from record import record

@pytest.fixture(scope="module")
def built():
    record("a-fixture")

@pytest.mark.parametrize("i", range(4))
def test_a(built, i):
    record(f"a{i}")
""",
    "test_b.py": """
import pytest
from record import record

@pytest.fixture(scope="module", params=[pytest.param(s, marks=pytest.mark.xdist_group(f"b-{s}")) for s in "xy"])
def site(request):
    record(f"b-fixture-{request.param}")
    return request.param

def test_b(site):
    record(f"b-{site}")

def test_b_too(site):
    record(f"b-too-{site}")
""",
    "test_long.py": """
import time
import pytest
from record import record

@pytest.mark.long
@pytest.mark.parametrize("i", range(2))
def test_long(i):
    record(f"long{i}")
    time.sleep(1)
""",
}


def test_a_modules_tests_share_one_process_and_the_long_tests_go_first_one_each(tmp_path: Path) -> None:
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text)
    record = tmp_path / "record.jsonl"
    env = {**os.environ, "RECORD": str(record), "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "-n", "2", "-q",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    runs = [json.loads(line) for line in record.read_text().splitlines()]
    where = {name: worker for name, worker, _ in runs}
    counts = {name: sum(1 for n, _, _ in runs if n == name) for name in where}
    assert all(count == 1 for count in counts.values()), counts  # each fixture set up once
    assert len({where[n] for n in ("a-fixture", "a0", "a1", "a2", "a3")}) == 1
    for site in "xy":
        assert len({where[n] for n in (f"b-fixture-{site}", f"b-{site}", f"b-too-{site}")}) == 1
    assert {where["long0"], where["long1"]} == {"gw0", "gw1"}  # shared, not both in one process
    for worker in ("gw0", "gw1"):
        first = min((t, n) for n, w, t in runs if w == worker)[1]
        assert first.startswith("long"), runs  # each process starts with a long test


def _fast_lane() -> str:
    """The -m expression of the Makefile's test-fast recipe (the one place it is written)."""
    recipe = (ROOT / "Makefile").read_text().split("\ntest-fast:", 1)[1]
    found = re.search(r'pytest .*-m "([^"]+)"', recipe)
    assert found is not None, "the Makefile's test-fast runs pytest with -m"
    return found.group(1)


def test_the_fast_lane_leaves_out_every_test_that_reaches_an_engine(tmp_path: Path) -> None:
    """`make test-fast` installs neither engine: a test that takes the `gnumeric` fixture (or `libreoffice`, or a
    fixture that takes one) is marked and left out; a test that takes neither stays in."""
    (tmp_path / "conftest.py").write_text(
        'import pytest\npytest_plugins = ["tests.scheduling"]\n\n'
        "@pytest.fixture\ndef gnumeric():\n    return 'ssconvert'\n\n"
        "@pytest.fixture\ndef libreoffice():\n    return 'soffice'\n\n"
        "@pytest.fixture\ndef recalculated(gnumeric):\n    return gnumeric\n")
    (tmp_path / "test_engines.py").write_text(
        "def test_gnumeric(gnumeric):\n    pass\n\ndef test_libreoffice(libreoffice):\n    pass\n\n"
        "def test_through_a_fixture(recalculated):\n    pass\n\ndef test_no_engine():\n    pass\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--collect-only", "-q",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-m", _fast_lane(), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    collected = {line.split("::")[-1] for line in done.stdout.splitlines() if "::" in line}
    assert collected == {"test_no_engine"}, done.stdout
