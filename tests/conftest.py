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
    """Mark every test that reaches LibreOffice through the fixture, directly or through another fixture."""
    for item in items:
        if "libreoffice" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.libreoffice)
