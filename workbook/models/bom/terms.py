"""The terms of the request for quotation: where and when to deliver, who buys, on what terms.

A vendor cannot quote without them (an Incoterms rule moves freight and risk, a required-by date decides whether
stock or a factory slot is quoted). They are words under `bom:` in the site file, validated as untrusted text
(one line, a length, no control or format characters), each "to be agreed" until the site gives it. They
shape no number: the BOM sheet shows them above its lines and the vendor's copy carries them on its first page.
The quote validity asked for is `bom.quote_max_age`, the age after which the Checks sheet calls a quote stale.

A copy goes out only with the terms a vendor needs to answer at all (REQUIRED: who asks, whom to send the quote
to, and by when): `quote` refuses to issue one while any of them is "to be agreed", unless it is a draft (every
page marked DRAFT). An Incoterms term is the rule and its named place: every Incoterms 2020 rule names one
(templates/defaults.yaml, bom.incoterms, gives the rule and its source), so a rule alone is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.models.base import Inputs
from workbook.site.spec import Spec

AGREED = "to be agreed"
# Incoterms 2020 (ICC): the eleven rules; a term is written as the rule, then the named place (each rule names
# one: EXW, FCA the place of delivery; CPT, CIP, DAP, DPU, DDP the place of destination; FAS, FOB the port of
# shipment; CFR, CIF the port of destination)
INCOTERMS = ("EXW", "FCA", "CPT", "CIP", "DAP", "DPU", "DDP", "FAS", "FOB", "CFR", "CIF")
_TEXT = dict(unit="")

TERMS = [
    Spec("bom.buyer_company", "Buyer (company)", expect="a company's name as text of at most 100 characters",
         example='"Example Compute GmbH"', text=100, **_TEXT),
    Spec("bom.project", "Project", expect="a project's name as text of at most 100 characters",
         example='"Frankfurt H100 cluster, phase 1"', text=100, **_TEXT),
    Spec("bom.delivery_site", "Delivery site (address)", expect="an address as text of at most 200 characters",
         example='"Hall 2, 1 Example Road, 60314 Frankfurt am Main"', text=200, **_TEXT),
    Spec("bom.delivery_country", "Delivery country", expect="a country as text of at most 60 characters",
         example="Germany", text=60, **_TEXT),
    Spec("bom.required_by", "Required on site by", expect=f"a date written YYYY-MM-DD, or {AGREED}",
         example="2027-03-01", text=12, date=True, alone=(AGREED,), **_TEXT),
    Spec("bom.response_deadline", "Quotes due by", expect=f"a date written YYYY-MM-DD, or {AGREED}",
         example="2026-12-18", text=12, date=True, alone=(AGREED,), **_TEXT),
    Spec("bom.buyer_contact", "Buyer contact (questions and the returned file)",
         expect="a name and e-mail as text of at most 200 characters",
         example='"J. Smith, procurement, j.smith@example.com, +49 69 1234 5678"', text=200, **_TEXT),
    Spec("bom.incoterms", "Delivery terms (Incoterms 2020 rule and named place)",
         expect=f"an Incoterms 2020 rule ({', '.join(INCOTERMS)}) and the named place, or {AGREED}",
         example='"DAP Frankfurt am Main"', text=100, starts=INCOTERMS, alone=(AGREED,),
         **_TEXT),
    Spec("bom.payment_terms", "Payment terms", expect="payment terms as text of at most 200 characters",
         example='"30% with order, 70% net 30 days after delivery"', text=200, **_TEXT),
]

# the terms without which a copy is not issued (only a draft): who asks, whom to answer, by when
REQUIRED = ("bom.buyer_company", "bom.buyer_contact", "bom.response_deadline")


@dataclass(frozen=True)
class Term:
    """One term as the BOM sheet and the vendor's copy show it."""

    key: str  # the site-file key: "bom.incoterms"
    label: str
    text: str
    source: str


def terms(i: Inputs) -> tuple[Term, ...]:
    """The site's terms, in TERMS order (each the site's words, or the default "to be agreed")."""
    out = []
    for spec in TERMS:
        key = spec.key.split(".", 1)[1]
        out.append(Term(spec.key, spec.label, str(i.choice(key)), i.source(key)))
    return tuple(out)


def missing(given: tuple[Term, ...]) -> list[Term]:
    """The REQUIRED terms the site leaves "to be agreed", in TERMS order: a copy is not issued without them."""
    return [t for t in given if t.key in REQUIRED and t.text == AGREED]
