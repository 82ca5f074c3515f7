"""The book: every line of a site (book), the sheets they go on (sheets), what the sheets show besides lines
(presentation), number formats (formats), the conversion constants every formula may name (constants) and which
lines a file holds (document). The models fill a book; the writers read it. `from workbook.book import Book`
finds the book's types here when first asked for, so importing a sheet title does not load the formula core."""

from typing import Any

__all__ = ["Book", "FrozenBook", "SheetBuilder", "book", "constants", "document", "formats", "presentation",
           "sheets"]


def __getattr__(name: str) -> Any:
    if name in ("Book", "FrozenBook", "SheetBuilder"):
        from workbook.book import book

        return getattr(book, name)
    raise AttributeError(f"module 'workbook.book' has no attribute {name!r}")
