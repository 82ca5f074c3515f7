from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# CI draws the same examples on every run (a failure there is one a developer can repeat); locally the draws vary,
# and a failing example is kept in .hypothesis and printed with its seed. A test's own settings come first.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "inputs" / "example.yaml"

# Every test that reaches LibreOffice or Gnumeric through the fixtures below (directly or through another fixture) is
# marked `libreoffice`; the tests are grouped and ordered for `make test`'s processes. Both in tests/scheduling.py.
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
