"""The package's version, named once (the workbook's properties and its Cover say which build made it)."""

__version__ = "0.1.0"
