"""How the workbook prints: a structural choice of the site file (it shapes the page setup, not a number)."""

from __future__ import annotations

from workbook.site.spec import Spec

PREFIX = "print"
TITLE = "Printing"

INPUTS = [
    Spec("print.paper", "Paper the workbook and its PDF print on (landscape)", "", "a choice", "a4",
         choices=("a4", "letter")),
]
