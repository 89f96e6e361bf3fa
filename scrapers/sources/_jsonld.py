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

LD_JSON_TYPE = "application/ld+json"


def blocks(tree: LexborHTMLParser, url: str) -> list[Any]:
    found = []
    # tags() instead of css('script[type="application/ld+json"]'): no CSS engine to build
    # (_page.py says why). HTML compares a type attribute's value case-insensitively.
    scripts = [
        s for s in tree.tags("script") if (s.attrs.get("type") or "").lower() == LD_JSON_TYPE
    ]
    for n, script in enumerate(scripts, 1):
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
    if type(kind) is str:
        return {kind.rsplit("/", 1)[-1]} if kind else set()
    names = kind if isinstance(kind, list) else [kind]
    return {str(k).rsplit("/", 1)[-1] for k in names if k}


_NESTED = (dict, list)


def _of_type(objects: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The objects with ``name in types_of(object)``, in order, without building a set for
    each: this runs over every object of every block, and nearly all of them have one plain
    string ``@type``."""
    suffix = "/" + name
    found = []
    for item in objects:
        kind = item.get("@type")
        if type(kind) is str:
            if kind == name or kind.endswith(suffix):
                found.append(item)
        elif name in types_of(item):
            found.append(item)
    return found


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON object in ``value``, depth first (the order :func:`walk` yields them).

    A plain recursive function filling one list: a chain of nested generators costs a frame
    switch per level for every object, several times the work of visiting it. Values are
    nearly all ``str``, ``dict`` or ``list`` straight from ``json.loads``, so exact type
    tests come first and ``isinstance`` (for subclasses) only after them."""
    found: list[dict[str, Any]] = []
    append = found.append

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            append(node)
            node = node.values()
        for child in node:
            kind = type(child)
            if kind is dict or kind is list or (kind is not str and isinstance(child, _NESTED)):
                visit(child)

    if isinstance(value, _NESTED):
        visit(value)
    return found


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, depth first."""
    return iter(_objects(value))


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
    return _of_type(_objects(items), "Product")


def all_offers(items: list[Any]) -> list[LdOffer]:
    """Offers under Products, plus free-standing Offers (with ``itemOffered`` naming the
    thing), each once."""
    found: list[LdOffer] = []
    claimed: set[int] = set()
    every = _objects(items)
    for product in _of_type(every, "Product"):
        for ld in offers_of(product):
            claimed.add(id(ld.offer))
            found.append(ld)
        for aggregate in _as_list(product.get("offers")):
            if isinstance(aggregate, dict):
                claimed.update(id(o) for o in _as_list(aggregate.get("offers")))
                claimed.add(id(aggregate))
    for item in _of_type(every, "Offer"):
        if id(item) in claimed:
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
