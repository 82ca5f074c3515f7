from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "inputs" / "example.yaml"

# Every test that reaches LibreOffice through the fixture below (directly or through another fixture) is marked
# `libreoffice`; the tests are grouped and ordered for `make test`'s processes. Both in tests/scheduling.py.
pytest_plugins = ["tests.scheduling"]


def _engine(command: str, name: str, package: str) -> str:
    """An engine's executable; missing, the test fails rather than skips, saying how to install it."""
    exe = shutil.which(command)
    if exe is None:
        pytest.fail(f"{name} ({command}) is not installed; run `make test` as root or "
                    f"apt-get install -y --no-install-recommends {package}")
    return exe


@pytest.fixture(scope="session")
def libreoffice() -> str:
    """The parity tests need LibreOffice; `make test` installs it."""
    return _engine("soffice", "LibreOffice", "libreoffice-calc-nogui")


@pytest.fixture(scope="session")
def gnumeric() -> str:
    """The second engine's tests need Gnumeric (ssconvert); `make test` installs it."""
    return _engine("ssconvert", "Gnumeric", "gnumeric")
