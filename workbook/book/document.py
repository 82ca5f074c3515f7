"""Documents: what goes into one file made from a book.

A book holds every line of a site; a document says which of them a file shows: its sheets, which lines of
those sheets, whether each is a live formula or a value, which names exist, whether the sheets are protected.
The full workbook is one document; an engineering copy (no prices, no cash flows) is another, and the vendor's
quoting copy will be a third. Every reference in a written document resolves inside it: a line whose formula
reads a line the document does not hold is written as its value (and says so in its note), so no formula and no
defined name can point at a sheet the file does not have.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from workbook.book import sheets
from workbook.book.book import Book
from workbook.book.constants import with_constants
from workbook.formula.expr import MONTHS
from workbook.formula.line import Line, reads


def _everything(_: str) -> bool:
    return True


@dataclass(frozen=True)
class Document:
    """One kind of file. `keep` chooses by id (a line's, or a site setting's key) within the chosen sheets."""

    name: str
    sheets: tuple[str, ...]
    cover: bool = True
    keep: Callable[[str], bool] = field(default=_everything)
    protect: bool = False  # every sheet protected; only the input cells can be edited

    def holds(self, line: Line) -> bool:
        return line.sheet in self.sheets and self.keep(line.id)

    def as_values(self, book: Book) -> set[str]:
        """The ids of held calculated lines that read a line the document does not hold: written as values."""
        held = {key for key, line in book.lines.items() if self.holds(line)}
        return {key for key in held if book.lines[key].kind != "input" and not held.issuperset(reads(book.lines[key]))}


def full_workbook(book: Book) -> Document:
    """Every sheet the book has, in the workbook's order; formulas everywhere."""
    return Document("workbook", tuple(t for t in book.sheets))


def appendix_sheets(book: Book) -> tuple[str, ...]:
    """The monthly detail: sheets whose rows run by month. They print a year a page across, too long for the
    reviewer's pack, so its PDF leaves them to an appendix of their own (the yearly roll-ups stay in the pack)."""
    monthly = {line.sheet for line in book.lines.values() if line.axis == MONTHS}
    return tuple(t for t in book.sheets if t in monthly)


ENGINEERING_MODELS = frozenset({"power", "generator", "fabric", "cooling"})


def engineering_copy(book: Book, models: frozenset[str] = ENGINEERING_MODELS) -> Document:
    """The power chain, fabric and cooling with their inputs and checks, for a design review or a contractor:
    no prices, no cash flows, no scenarios. Lines of other models are not in it (by the model part of the id,
    after a fleet's namespace: `fleet_new.power.it_load` is the power chain's); the unit conversion factors its
    lines read are."""
    engineering = (sheets.POWER, sheets.FABRIC, sheets.COOLING)
    titles = [sheets.INPUTS]
    for t in book.sheets:  # the site's sheets and those of its other fleets (`Power chain (fleet_new)`)
        if any(t == e or t.startswith(f"{e} (") for e in engineering):
            titles.append(t)
    titles.append(sheets.CHECKS)

    def in_models(key: str) -> bool:
        parts = key.split(".")
        if parts[0] in models:
            return True
        return len(parts) > 2 and parts[0] != "scenario" and parts[1] in models

    held = tuple(t for t in titles if t in book.sheets)
    keep = with_constants(book.lines.values(), lambda line: line.sheet in held and in_models(line.id), in_models)
    return Document("engineering", held, keep=keep)
