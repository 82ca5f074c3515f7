"""The spreadsheet engines run as processes: LibreOffice recalculates a written workbook and prints it (verify,
pdf), Gnumeric recalculates it as the second engine (gnumeric), both under one process rule (engine_process), and
a recalculated file is read back (sheet_reader)."""

__all__ = ["csv_values", "engine_process", "gnumeric", "pdf", "sheet_reader", "verify"]
