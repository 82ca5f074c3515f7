from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "inputs" / "example.yaml"


@pytest.fixture(scope="session")
def libreoffice() -> str:
    """The parity tests need LibreOffice; `make test` installs it. Missing, they fail rather than skip."""
    exe = shutil.which("soffice")
    if exe is None:
        pytest.fail("LibreOffice (soffice) is not installed; run `make test` as root or "
                    "apt-get install -y --no-install-recommends libreoffice-calc-nogui")
    return exe


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reaches LibreOffice through the fixture, directly or through another fixture; and run
    the longest first (`long`, then `slow` and `fuzz`, each group in file order), so that the test processes of
    `make test` do not end with one of them alone on a minutes-long test started last."""
    for item in items:
        if "libreoffice" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.libreoffice)

    def first(item: pytest.Item) -> int:
        marks = {m.name for m in item.iter_markers()}
        return 0 if "long" in marks else 1 if marks & {"slow", "fuzz"} else 2

    items.sort(key=first)  # stable: the order within each group is the files' order
