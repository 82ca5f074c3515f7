"""Files that outsiders send back (vendors' quotes, reviewers' edited workbooks): untrusted input, read safely."""

from workbook.returned.safe_xlsx import KINDS, LIMITS, Cell, Limits, Returned, UntrustedFile, read_returned

__all__ = ["KINDS", "LIMITS", "Cell", "Limits", "Returned", "UntrustedFile", "read_returned"]
