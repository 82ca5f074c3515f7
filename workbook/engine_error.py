"""The one error a recalculating engine raises when it is not installed, apart so that each engine's module
(workbook.verify for LibreOffice, workbook.gnumeric) can raise it without importing the other."""

from __future__ import annotations


class EngineMissing(RuntimeError):
    """A spreadsheet engine (LibreOffice or Gnumeric) is not installed."""
