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

from scrapers.limits import check_json_depth
from scrapers.rows import ParseError

LD_JSON_TYPE = "application/ld+json"


def blocks(tree: LexborHTMLParser, url: str) -> list[Any]:
    """The decoded JSON-LD blocks of a page, in page order (empty blocks skipped)."""
    found = []
    # HTML compares a script's type case-insensitively ("application/LD+JSON" is JSON-LD too).
    scripts = [
        s for s in tree.tags("script") if (s.attributes.get("type") or "").lower() == LD_JSON_TYPE
    ]
    for n, script in enumerate(scripts, 1):
        raw = script.text(deep=True, strip=True)
        if raw:
            found.append(_decode(raw, url, n))
    return found


def _decode(raw: str, url: str, n: int) -> Any:
    check_json_depth(raw, f"{url}: JSON-LD block {n}")
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{url}: JSON-LD block {n} is not valid JSON ({exc.msg})") from None
    except ValueError as exc:  # valid JSON json will not convert: an integer of 4,301+ digits
        raise ParseError(f"{url}: JSON-LD block {n} cannot be read ({exc})") from None


def types_of(item: dict[str, Any]) -> set[str]:
    """An item's ``@type`` names, each without a schema.org URL before it."""
    kind = item.get("@type")
    names = kind if isinstance(kind, list) else [kind]
    return {str(k).rsplit("/", 1)[-1] for k in names if k}


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, depth first: an object before what it holds. A loop,
    not recursion: time linear in the document however deep it nests."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            yield item
            pending.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            pending.extend(reversed(item))


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
    found: list[LdOffer] = []
    for item in _as_list(product.get("offers")):
        if not isinstance(item, dict):
            continue
        kinds = types_of(item)
        if "AggregateOffer" in kinds:
            currency = item.get("priceCurrency")
            inner = [o for o in _as_list(item.get("offers")) if isinstance(o, dict)]
            for offer in inner:
                found.append(LdOffer(product, offer, offer.get("priceCurrency") or currency))
            if not inner and item.get("lowPrice") is not None:
                found.append(LdOffer(product, item | {"price": item["lowPrice"]}, currency))
        elif "Offer" in kinds or not kinds:
            found.append(LdOffer(product, item, item.get("priceCurrency")))
    return found


def products(items: list[Any]) -> list[dict[str, Any]]:
    """Every object of type Product in ``items``, anywhere, depth first in document order."""
    return [item for item in _objects(items) if "Product" in types_of(item)]


def all_offers(items: list[Any]) -> list[LdOffer]:
    """Offers under Products, plus free-standing Offers (with ``itemOffered`` naming the
    thing), each once: for each Product (depth first in document order) its
    :func:`offers_of`, then every object of type Offer anywhere that is not one of those, nor
    an item or inner offer of a Product's ``offers``, in document order."""
    found: list[LdOffer] = []
    claimed: set[int] = set()  # by id: equal JSON in two places is two offers
    for product in products(items):
        for ld in offers_of(product):
            claimed.add(id(ld.offer))
            found.append(ld)
        for aggregate in _as_list(product.get("offers")):
            if isinstance(aggregate, dict):
                claimed.update(id(o) for o in _as_list(aggregate.get("offers")))
                claimed.add(id(aggregate))
    for item in _objects(items):
        if "Offer" in types_of(item) and id(item) not in claimed:
            offered = item.get("itemOffered")
            found.append(
                LdOffer(
                    offered if isinstance(offered, dict) else None, item, item.get("priceCurrency")
                )
            )
    return found


def properties(product: dict[str, Any]) -> dict[str, str]:
    """``additionalProperty`` PropertyValues by lower-case name: {"vram": "80 GB", ...}."""
    found = {}
    for prop in _as_list(product.get("additionalProperty")):
        if isinstance(prop, dict):
            name = prop.get("name")
            value = prop.get("value")
            if name is not None and value is not None:
                found[str(name).strip().lower()] = str(value).strip()
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
