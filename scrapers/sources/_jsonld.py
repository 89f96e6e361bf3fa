"""schema.org JSON-LD in HTML pages: the ``Product`` / ``AggregateOffer`` / ``Offer`` items
that pricing pages embed for search engines (RunPod; the generic extractor).

Every ``<script type="application/ld+json">`` block is read; a block that is not valid JSON
is an error (a truncated block would otherwise silently drop products). Items are found
anywhere: top level, in lists, under ``@graph``, nested in other items.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from scrapers.rows import ParseError


def blocks(tree: LexborHTMLParser, url: str) -> list[Any]:
    found = []
    for n, script in enumerate(tree.css('script[type="application/ld+json"]'), 1):
        raw = script.text(deep=True, strip=True)
        if not raw:
            continue
        try:
            found.append(json.loads(raw))
        except json.JSONDecodeError as exc:
            raise ParseError(f"{url}: JSON-LD block {n} is not valid JSON ({exc.msg})") from None
    return found


def types_of(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    names = kind if isinstance(kind, list) else [kind]
    return {str(k).rsplit("/", 1)[-1] for k in names if k}


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, depth first."""
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from walk(child)
    elif isinstance(value, list):
        for child in value:
            yield from walk(child)


@dataclass(frozen=True, slots=True)
class LdOffer:
    """One schema.org Offer with what it inherits: its Product and its AggregateOffer."""

    product: dict[str, Any] | None
    offer: dict[str, Any]
    currency: str | None  # the Offer's priceCurrency, else its AggregateOffer's


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def offers_of(product: dict[str, Any]) -> list[LdOffer]:
    """The Offers of one Product, through an AggregateOffer where there is one. An
    AggregateOffer without an ``offers`` list gives one offer at its ``lowPrice``."""
    found = []
    for item in _as_list(product.get("offers")):
        if not isinstance(item, dict):
            continue
        kinds = types_of(item)
        if "AggregateOffer" in kinds:
            currency = item.get("priceCurrency")
            inner = [o for o in _as_list(item.get("offers")) if isinstance(o, dict)]
            if inner:
                found += [LdOffer(product, o, o.get("priceCurrency") or currency) for o in inner]
            elif item.get("lowPrice") is not None:
                found.append(LdOffer(product, item | {"price": item["lowPrice"]}, currency))
        elif "Offer" in kinds or not kinds:
            found.append(LdOffer(product, item, item.get("priceCurrency")))
    return found


def products(items: list[Any]) -> list[dict[str, Any]]:
    return [item for item in walk(items) if "Product" in types_of(item)]


def all_offers(items: list[Any]) -> list[LdOffer]:
    """Offers under Products, plus free-standing Offers (with ``itemOffered`` naming the
    thing), each once."""
    found: list[LdOffer] = []
    claimed: set[int] = set()
    for product in products(items):
        for ld in offers_of(product):
            claimed.add(id(ld.offer))
            found.append(ld)
        for aggregate in _as_list(product.get("offers")):
            if isinstance(aggregate, dict):
                claimed.update(id(o) for o in _as_list(aggregate.get("offers")))
                claimed.add(id(aggregate))
    for item in walk(items):
        if id(item) in claimed or "Offer" not in types_of(item):
            continue
        offered = item.get("itemOffered")
        found.append(
            LdOffer(offered if isinstance(offered, dict) else None, item, item.get("priceCurrency"))
        )
    return found


def properties(product: dict[str, Any]) -> dict[str, str]:
    """``additionalProperty`` PropertyValues by lower-case name: {"vram": "80 GB", ...}."""
    found = {}
    for prop in _as_list(product.get("additionalProperty")):
        if (
            isinstance(prop, dict)
            and prop.get("name") is not None
            and prop.get("value") is not None
        ):
            found[str(prop["name"]).strip().lower()] = str(prop["value"]).strip()
    return found


# UN/CEFACT unit codes schema.org uses in unitCode, and the unitText spellings seen.
PERIOD_CODES = {"HUR": "/hr", "DAY": "/day", "MON": "/month"}


def unit_of(offer: dict[str, Any]) -> str | None:
    """The billing period an Offer states (``priceSpecification``), as a unit text like
    ``/hr``; ``None`` when it states none."""
    for spec in _as_list(offer.get("priceSpecification")):
        if not isinstance(spec, dict):
            continue
        code = str(spec.get("unitCode") or "").upper()
        if code in PERIOD_CODES:
            return PERIOD_CODES[code]
        text = str(spec.get("unitText") or "").strip()
        if text:
            return text if text.startswith("/") or text.lower().startswith("per") else f"/{text}"
        reference = spec.get("referenceQuantity")
        if isinstance(reference, dict):
            code = str(reference.get("unitCode") or "").upper()
            if code in PERIOD_CODES:
                return PERIOD_CODES[code]
    return None
