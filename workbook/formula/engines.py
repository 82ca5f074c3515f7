"""The spreadsheet functions a workbook may use: each computed the same by Excel 2010 and later, LibreOffice and
Gnumeric, with what each engine does that could differ and why the workbook's answer does not.

Every function the formula core renders is here (tests/test_engines.py proves it, and that every workbook of
inputs/ uses no other). Where an engine's algorithm differs (IRR's search, summation, comparisons), the workbook's
own formulas make the result the same: a bracketed guess proven a root, a tolerance, a rounding to a count.
"""

from __future__ import annotations

FUNCTIONS: dict[str, str] = {
    "ABS": "exact in every engine",
    "SIGN": "exact in every engine",
    "AND": "exact; the master check wraps it in IFERROR so an error reads FALSE in every engine",
    "OR": "exact",
    "NOT": "exact",
    "IF": "evaluates only the branch it takes in Excel, LibreOffice and Gnumeric (a message branch is never an error)",
    "IFERROR": "Excel 2007+, LibreOffice 4+, Gnumeric 1.10+: the same",
    "MAX": "exact (a choice among its arguments)",
    "MIN": "exact (a choice among its arguments)",
    "CHOOSE": "exact (a choice among its arguments by a whole index)",
    "SUM": "LibreOffice adds with a compensated (Neumaier) sum, Excel and Gnumeric in order: the same to about 1e-15 "
           "of the terms; no check compares two sums exactly (the method's tolerance)",
    "SUMIF": "numeric keys compared to about 15 digits in LibreOffice and Excel, exactly in Gnumeric: the keys are "
             "whole numbers (months, fiscal years), equal in every engine; sums as SUM",
    "ROUNDUP": "counts: LibreOffice and Excel first round to 15 significant digits, Gnumeric does not "
               "(15.000000000000002 rounds up to 15 in one, 16 in the other); the workbook takes float noise off "
               "first, within the method's tolerance (functions.ceil), so every engine counts the same",
    "ROUNDDOWN": "as ROUNDUP (functions.floor)",
    "PMT": "the closed form in every engine (LibreOffice with log1p and expm1): the same to about 1e-15",
    "NPV": "the textbook sum (LibreOffice compensated, Gnumeric in order); the workbook reads it only as a share of "
           "the NPV of the flows' sizes or as a sign",
    "IRR": "Newton from the guess in every engine, with different stopping rules (LibreOffice 20 steps to 1e-7, "
           "Gnumeric a goal seek that may bracket): the workbook seeds it inside a bracket its own NPV rows found, "
           "polishes it with a second IRR and shows it only where a live check proves it a root",
    "EOMONTH": "Excel 2007+ (Analysis ToolPak before), LibreOffice and Gnumeric: the same dates (serials from "
               "1899-12-30)",
    "YEAR": "exact on date serials",
    "CRITBINOM": "Excel 2010 keeps it (BINOM.INV is its new name); LibreOffice and Gnumeric compute the smallest k "
                 "with P(X <= k) >= level by summing the distribution, the same count",
}
