"""The formula language: expressions with units (expr), the spreadsheet functions and their numpy twins
(functions, spreadsheet, kernels, dates), lines (line), evaluation of a book (evaluation, overrides) and the
engines' own arithmetic (engines). No file is read and nothing is written here."""

__all__ = ["dates", "engines", "evaluation", "expr", "functions", "kernels", "line", "overrides", "spreadsheet"]
