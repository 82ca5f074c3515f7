"""Recalculate workbooks in Gnumeric, the second spreadsheet engine: `ssconvert --recalc IN OUT`.

A reviewer may open the workbook in Excel, LibreOffice or Gnumeric; no answer may depend on which. LibreOffice is
the reference engine (Python transcribes its arithmetic); Gnumeric adds in IEEE arithmetic (no approximate add,
comparisons of the bits), so what the two must agree on is every figure to 1e-9 of the values it is made from, and
every TRUE/FALSE and count exactly (workbook.libreoffice.verify.compare).

One ssconvert per workbook (about a second each), `jobs` at a time, each with a fresh HOME (no settings carried
between runs) and killed with its process group after `timeout` seconds. ssconvert may exit 0 having written
nothing: every output is checked. What it says on stderr while importing (its warnings) is kept with the copy.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from workbook.libreoffice.engine_process import EngineMissing, run_as_group

INSTALL = "apt-get install -y --no-install-recommends gnumeric"


@dataclass(frozen=True)
class Recalculated:
    """Gnumeric's recalculated copy of a workbook, and the warnings ssconvert printed importing it."""

    path: Path
    warnings: tuple[str, ...]


def ssconvert() -> str:
    exe = shutil.which("ssconvert")
    if exe is None:
        raise EngineMissing(f"Gnumeric is not installed: run `make test` as root (it installs it), or `{INSTALL}`")
    return exe


def installed() -> bool:
    return shutil.which("ssconvert") is not None


def recalculate(paths: list[Path], outdir: Path, timeout: float = 600, jobs: int = 2) -> dict[Path, Recalculated]:
    """Each workbook recalculated by Gnumeric into `outdir` (same file name); input path -> its copy."""
    exe = ssconvert()
    paths = [Path(p).resolve() for p in paths]
    if len({p.name for p in paths}) != len(paths):
        raise ValueError("recalculate: workbooks in one batch need distinct file names")
    outdir.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = list(pool.map(lambda p: _one(exe, p, outdir / p.name, timeout), paths))
    return dict(zip(paths, done, strict=True))


def _one(exe: str, source: Path, target: Path, timeout: float) -> Recalculated:
    with tempfile.TemporaryDirectory(prefix="gnumeric-home-") as home:
        env = {**os.environ, "HOME": home}
        status, out, err = run_as_group([exe, "--recalc", str(source), str(target)], env, timeout)
    if not target.exists():
        raise RuntimeError(f"Gnumeric wrote no copy of {source.name} (exit {status}): "
                           f"{(err or out).strip()[:300]}")
    return Recalculated(target, tuple(line.strip() for line in (err or "").splitlines() if line.strip()))
