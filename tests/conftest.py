from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "inputs" / "example.yaml"

# Every test that reaches LibreOffice through the fixture below (directly or through another fixture) is marked
# `libreoffice`; the tests are grouped and ordered for `make test`'s processes. Both in tests/scheduling.py.
pytest_plugins = ["tests.scheduling"]


@pytest.fixture(scope="session")
def libreoffice() -> str:
    """The parity tests need LibreOffice; `make test` installs it. Missing, they fail rather than skip."""
    exe = shutil.which("soffice")
    if exe is None:
        pytest.fail("LibreOffice (soffice) is not installed; run `make test` as root or "
                    "apt-get install -y --no-install-recommends libreoffice-calc-nogui")
    return exe


@pytest.fixture(scope="session")
def gnumeric() -> str:
    """The second engine's tests need Gnumeric (ssconvert); `make test` installs it. Missing, they fail."""
    exe = shutil.which("ssconvert")
    if exe is None:
        pytest.fail("Gnumeric (ssconvert) is not installed; run `make test` as root or "
                    "apt-get install -y --no-install-recommends gnumeric")
    return exe
