"""A failure in one line and its exit status: the CLI's and the build's worker processes' one wording."""

from __future__ import annotations

from workbook.formula.expr import FormulaError
from workbook.libreoffice.engine_process import EngineMissing
from workbook.libreoffice.pdf import ExportFailed
from workbook.site.errors import InputError, InputErrors

EXIT_INPUT, EXIT_MODEL, EXIT_VERIFY, EXIT_LIBREOFFICE = 2, 3, 4, 5
MAX_PROBLEMS = 100  # lines of problems printed for one file (a new site file lacks 63 keys at most): a flood of
# 10,000 repeated correlations printed 2 MB


class BatchFailed(Exception):
    """A failure already put in words by a worker: cli.main prints `line` and exits with `status`."""

    def __init__(self, status: int, line: str):
        super().__init__(line)
        self.status, self.line = status, line


def describe(exc: Exception) -> tuple[int, str]:
    """The exit status and the one line printed for a failure (also used by the build's worker processes)."""
    if isinstance(exc, BatchFailed):  # worded already, in a worker
        return exc.status, exc.line
    if isinstance(exc, EngineMissing | ExportFailed):  # LibreOffice is not installed, or wrote no PDF
        return EXIT_LIBREOFFICE, f"error: {exc}"
    if isinstance(exc, InputErrors):  # every problem of a site file, one line each, and how many
        files = sorted({str(e.file) for e in exc.errors if e.file is not None})
        where = f" in {files[0]}" if len(files) == 1 else ""
        lines = [f"error: {e}" for e in exc.errors[:MAX_PROBLEMS]]
        count = len(exc.errors)
        if count <= MAX_PROBLEMS:
            return EXIT_INPUT, "\n".join([*lines, f"error: {count} problems{where}, each on a line above"])
        return EXIT_INPUT, "\n".join([*lines, f"error: {count:,} problems{where}, the first {MAX_PROBLEMS} on a line "
                                             f"above each ({count - MAX_PROBLEMS:,} more not shown)"])
    if isinstance(exc, InputError):
        return EXIT_INPUT, f"error: {exc}"
    if isinstance(exc, FormulaError):  # UnitError is a FormulaError too
        return EXIT_MODEL, f"model error: {exc}"
    if isinstance(exc, MemoryError):  # a file too large for this machine: the input's problem, not a tool bug
        return EXIT_INPUT, "error: ran out of memory (a file too large for this machine?)"
    # a tool bug still gets one line, never a half-written file
    return 1, f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}"
