"""The formula language: expressions with units (expr), the spreadsheet functions and their numpy twins
(functions, spreadsheet, kernels, dates), lines (line), evaluation of a book (evaluation, overrides) and the
engines' own arithmetic (engines), with the unit registry (units), the range an input may take (ranges) and how a
value is shown back (echo). No file is read and nothing is written here."""

__all__ = ["dates", "echo", "engines", "evaluation", "expr", "functions", "kernels", "line", "overrides",
           "ranges", "spreadsheet", "units"]
