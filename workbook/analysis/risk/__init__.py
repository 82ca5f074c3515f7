"""Risk ranges: the decision under the input distributions of a site's optional `risk:` section.

- section: the `risk:` section read and validated like any input (RiskPlan);
- sampling: Latin hypercube samples of each distribution, rank-correlated by Iman-Conover;
- analysis: the outputs evaluated for every sample as one batch, and the figures a finance committee asks for
  (RiskResult), which the Risk sheet shows (workbook.excel.risk_sheet) and `python -m workbook risk` prints.
"""

__all__ = ["analysis", "drivers", "sampling", "section"]
