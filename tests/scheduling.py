"""How `make test`'s processes share the tests (a pytest plugin, loaded by tests/conftest.py).

pytest-xdist runs the tests in one process per core, with `--dist loadgroup` (pyproject.toml's addopts): a group's
tests go to one process. Each test of a module is in its module's group, so the module's fixtures (a built site, a
printed pack) are set up once, not once in each process that runs one of its tests; a module may name finer groups
(the printed pages: one per site). Each `long` test is in no group, so the processes share them.

Order: the `long` tests first, then the groups that hold a `slow` or `fuzz` test, then the rest, each in file order
(`--no-loadscope-reorder` keeps it), so the processes do not end with one of them alone on a minutes-long test
started last. Before this, xdist's `load` sent each process a first chunk of a quarter of its share: one process
got all seven long tests (704 s) and the other sat idle for the last 211 s of a 15:18 run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# The fixtures of the spreadsheet engines `make test` installs: a test that reaches either (directly or through
# another fixture) is marked `libreoffice`, which the fast lane leaves out (it installs neither engine).
ENGINES = frozenset({"libreoffice", "gnumeric"})


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist turns the groups into the tests' ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if ENGINES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.libreoffice)
        if item.get_closest_marker("long") is None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(Path(str(item.path)).stem))

    def first(item: pytest.Item) -> int:
        marks = {m.name for m in item.iter_markers()}
        return 0 if "long" in marks else 1 if marks & {"slow", "fuzz"} else 2

    items.sort(key=first)  # stable: the order within each group is the files' order
