"""Put a built workbook on disk: all or nothing, nothing of ours left behind, and failures as one-line errors.

The workbook is rendered in memory (xlsxwriter's own temporary files are not used: a kill or a full disk left
them in $TMPDIR), written to a hidden temporary file beside the target whose name holds our process id, and
renamed into place. A temporary file of ours whose process is gone (a build that was killed) is removed by
the next build to the same folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from workbook.site.errors import InputError

_OURS = re.compile(r"^\.(?P<stem>.+)-(?P<pid>\d+)-[^.]+\.[A-Za-z]+\.tmp$")  # .<stem>-<pid>-<random>.<ext>.tmp


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
    """Remove temporary files our killed commands left in a folder (a build's workbook or PDF, an import's quotes
    or site file); returns what was removed."""
    removed = []
    for p in folder.glob(".*.tmp"):
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
            staged.append((stage(out, data), out))
        for _, out in staged:
            if out.exists() and not out.is_file():
                raise OutputError(f"{out}: cannot write the {_what(out)} (it is a folder, not a file)")
        for tmp, out in staged:
            try:
                os.replace(tmp, out)
            except OSError as e:
                raise OutputError(f"{out}: cannot write the {_what(out)} ({e.strerror or e})") from None
        for folder in dict.fromkeys(out.parent for _, out in staged):
            sync_folder(folder)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def _what(out: Path) -> str:
    return {".pdf": "PDF", ".yaml": "file"}.get(out.suffix.lower(), "workbook")


def _staged_name(out: Path) -> str:
    """A hidden temporary file beside `out`, ours by name (its process id): remove_stale removes it if we die."""
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-{os.getpid()}-", suffix=f"{out.suffix or '.out'}.tmp",
                               dir=out.parent)
    os.close(fd)
    return tmp


def sync_folder(folder: Path) -> None:
    """fsync a folder, so a rename into it survives a power cut (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a folder
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on a site's folder while a file of the site (the site file, its quotes) is read,
    changed and written back: two imports at once take turns instead of one losing the other's change (flock on
    the folder itself, so nothing is created or left)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def stage(out: Path, data: bytes, mode: int | None = None) -> str:
    """The bytes in a hidden temporary file beside `out` (ours by name: the next command to the folder removes it
    if we die), fsynced, with `mode` (default: an ordinary file's, as the umask allows), ready to rename over it."""
    tmp: str | None = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(out.parent)
        tmp = _staged_name(out)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask  # mkstemp makes 0600; the workbook is an ordinary file
        os.chmod(tmp, mode)
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
