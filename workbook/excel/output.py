"""Put a built workbook on disk: all or nothing, nothing of ours left behind, and failures as one-line errors.

The workbook is rendered in memory (xlsxwriter's own temporary files are not used: a kill or a full disk left
them in $TMPDIR), written to a hidden temporary file beside the target whose name holds our process id, and
renamed into place. A temporary file of ours whose process is gone (a build that was killed) is removed by
the next build to the same folder.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from workbook.inputs import InputError

_OURS = re.compile(r"^\.(?P<stem>.+)-(?P<pid>\d+)-[^.]+\.xlsx\.tmp$")


class OutputError(InputError):
    """The output path cannot be written (a read-only folder, a full disk, a parent that is a file)."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(folder: Path) -> list[Path]:
    """Remove temporary files our killed builds left in a folder; returns what was removed."""
    removed = []
    for p in folder.glob(".*.xlsx.tmp"):
        m = _OURS.match(p.name)
        if m and not _alive(int(m["pid"])):
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


def write_atomically(out: Path, data: bytes) -> None:
    """Write the bytes to `out` by rename, so a reader sees the old file or the new one, never a part."""
    write_all_atomically([(out, data)])


def write_all_atomically(files: list[tuple[Path, bytes]]) -> None:
    """Write several files all or nothing: every one staged beside its target first, then each renamed into
    place. A file that cannot be staged (a read-only folder, a full disk) or a target that is not a file is found
    before any rename, and every staged file is then removed."""
    staged: list[tuple[str, Path]] = []
    try:
        for out, data in files:
            staged.append((_stage(out, data), out))
        for _, out in staged:
            if out.exists() and not out.is_file():
                raise OutputError(f"{out}: cannot write the {_what(out)} (it is a folder, not a file)")
        for tmp, out in staged:
            try:
                os.replace(tmp, out)
            except OSError as e:
                raise OutputError(f"{out}: cannot write the {_what(out)} ({e.strerror or e})") from None
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def _what(out: Path) -> str:
    return "PDF" if out.suffix.lower() == ".pdf" else "workbook"


def _stage(out: Path, data: bytes) -> str:
    """The bytes in a hidden temporary file beside `out` (ours by name: the next build removes it if we die)."""
    tmp: str | None = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(out.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-{os.getpid()}-", suffix=".xlsx.tmp", dir=out.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; the workbook is an ordinary file
        return tmp
    except OSError as e:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        cause = "a parent of it is a file" if isinstance(e, FileExistsError | NotADirectoryError) else e.strerror
        raise OutputError(f"{out}: cannot write the {_what(out)} ({cause or e})") from None
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
