"""The workbook as a spreadsheet: layout and styles, the writer of each kind of sheet, the cover, charts and the
printed pages (pages, sizing, text_width)."""

__all__ = ["cells", "charts", "cover", "fast_formulas", "figure_text", "grids", "layout", "pages", "risk_sheet",
           "sizing", "styles", "tables", "text_width", "timeline", "validation", "writer"]
