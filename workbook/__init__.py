"""gpu-site-workbook: one site description in, a live, verified planning workbook out."""

__version__ = "0.1.0"
