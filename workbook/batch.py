"""Build several sites at once, one worker process per core, and write nothing unless every site is good.

Each worker loads one site (read, validate, define, evaluate: the site is loaded once) and renders its
workbook in memory; the bytes come back to this process. Only when every site has come back rendered are the
files put on disk (excel.output.write_atomically, each one all or nothing), in the order of the command line,
so a bad site among many writes no file at all, and nothing is written to $TMPDIR. On the first failure the
sites not yet started are cancelled; of those that failed, the first in command-line order is reported.

A failure travels back as its one printed line and exit status, not as the exception: an exception with
attributes may not survive pickling, and the line is what the command prints anyway.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from workbook.failures import BatchFailed, describe
from workbook.model import Model


@dataclass(frozen=True)
class Built:
    """A site rendered in a worker: the workbook's bytes and what the `wrote` line says."""

    data: bytes
    lines: int
    checks_pass: bool
    appendix: tuple[str, ...] = ()  # the monthly detail: sheets the reviewer's PDF prints in an appendix
    failing: tuple[tuple[str, str], ...] = ()  # (label, rule in words) of each failing check (workbook.findings)
    warnings: tuple[str, ...] = ()  # lines printed on stderr: values the design overrides (workbook.findings)


@dataclass(frozen=True)
class Failure:
    """A site that failed in a worker: the exit status and the one line the command prints."""

    status: int
    line: str



def render(model: Model) -> bytes:
    """A loaded model's workbook as .xlsx bytes, rendered in memory (the bytes `save` would put on disk)."""
    from workbook.excel.writer import render_book

    return render_book(model.book, model.values, model.site)


def summary(model: Model) -> tuple[int, bool, tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The number of lines and whether every check passes, for the `wrote` line; the appendix's sheets; the
    failing checks and the warnings the build prints."""
    from workbook import findings
    from workbook.book.document import appendix_sheets

    return (len(model.book.lines), bool(model.values["checks.all_pass"].reshape(-1)[0]),
            appendix_sheets(model.book), tuple(findings.failing_checks(model)), tuple(findings.warnings(model)))


def build_one(site: Path) -> Built | Failure:
    """In a worker: load (validate, evaluate) and render one site; never raises."""

    try:
        from workbook.api import load

        model = load(site)
        data = render(model)
        return Built(data, *summary(model))
    except Exception as exc:
        status, line = describe(exc)
        return Failure(status, line)


class Progress:
    """A one-line progress bar on a stream (stderr), redrawn in place; `close` ends the line."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO, what: str = "sites"):
        self.total, self.stream, self.what = total, stream, what
        self.done = 0
        self.start = time.perf_counter()
        self.draw()

    def draw(self) -> None:
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\rbuilding [{bar}] {self.done}/{self.total} {self.what} {elapsed:5.1f} s")
        self.stream.flush()

    def advance(self) -> None:
        self.done += 1
        self.draw()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def _context() -> Any:
    """fork where there is one: the workers start with the package already imported (no second import of
    pint, numpy and the models per worker)."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def render_all(sites: Sequence[Path], jobs: int, progress: Progress | None = None,
               work: Callable[[Path], Built | Failure] = build_one) -> list[Built]:
    """Load and render every site in `jobs` worker processes; returns them in the order given, or raises
    BatchFailed with the first failure (in the order given) once the workers have stopped."""
    results: list[Built | Failure | None] = [None] * len(sites)
    sys.stdout.flush()
    sys.stderr.flush()
    with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(sites))), mp_context=_context()) as pool:
        futures: dict[Future[Built | Failure], int] = {pool.submit(work, s): k for k, s in enumerate(sites)}
        pending = set(futures)
        failed = False
        while pending and not failed:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()  # work never raises; a broken pool does, as an internal error
                results[futures[future]] = result
                failed |= isinstance(result, Failure)
                if progress is not None:
                    progress.advance()
        if failed:
            for future in pending:
                future.cancel()
            for future in pending:  # the ones already running finish: take their outcome too
                if not future.cancelled():
                    results[futures[future]] = future.result()
    for result in results:
        if isinstance(result, Failure):
            raise BatchFailed(result.status, result.line)
    return [r for r in results if isinstance(r, Built)]


def default_jobs() -> int:
    return os.cpu_count() or 1
