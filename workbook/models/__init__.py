"""The models, in evaluation order. A model module has TITLE, PREFIX, INPUTS and define(book, inputs)."""

from __future__ import annotations

from workbook.formula.line import Book
from workbook.inputs import Site, Spec
from workbook.models import power, summary
from workbook.models.base import Inputs

MODELS = [power]


def all_specs() -> list[Spec]:
    return [spec for model in MODELS for spec in model.INPUTS]


def build_book(site: Site) -> Book:
    """Every line of the site's workbook, defined once; evaluation and rendering both read this."""
    book = Book(site.name)
    book.sheet("Inputs", "inputs")
    for model in MODELS:
        model.define(book, Inputs(book, site, model.TITLE, model.PREFIX, model.INPUTS))
    summary.define_checks(book)
    summary.define(book)
    return book
