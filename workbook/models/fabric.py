"""Fabric model (being written: see issue 3)."""

from __future__ import annotations

from workbook.formula.line import Book
from workbook.models.base import AllInputs

TITLE, PREFIX = "Fabric", "fabric"

INPUTS: list = []


def define(book: Book, inputs: AllInputs) -> None:
    pass
