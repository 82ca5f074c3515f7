"""Two versions of a site and what moved the headline outputs between them: the versions (versions: files or a
git revision), what differs (diff), the bridge (bridge, by the Shapley values of workbook.analysis.shapley), its
report (report) and the workbook of the changes (changes_book)."""

__all__ = ["bridge", "changes_book", "diff", "report", "versions"]
