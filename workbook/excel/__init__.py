"""The workbook as a spreadsheet: layout, formats and styles, the writer of each kind of sheet, the cover, charts,
the printed pages (pages, sizing, text_width) and the file put on disk all or nothing (output)."""

__all__ = ["cells", "changes_book", "charts", "cover", "fast_formulas", "figure_text", "formats", "grids", "layout",
           "output", "pages", "risk_sheet", "sizing", "styles", "tables", "text_width", "timeline", "validation",
           "writer"]
