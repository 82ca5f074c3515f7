"""What the recalculating engines share (LibreOffice in verify, Gnumeric in gnumeric), apart so
that neither imports the other: the error when one is not installed, and running one as its own process group,
killed whole (with every process it started) when it runs out of time or the caller is interrupted."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess


class EngineMissing(RuntimeError):
    """A spreadsheet engine (LibreOffice or Gnumeric) is not installed."""


def run_as_group(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[int, str, str]:
    """The command's exit status, stdout and stderr; on a timeout (or any interruption) its whole process group
    is killed before the exception goes on, so no engine is left running."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return proc.returncode, out, err
