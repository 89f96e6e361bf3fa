"""schema.org JSON-LD in HTML pages: the ``Product`` / ``AggregateOffer`` / ``Offer`` items
that pricing pages embed for search engines (RunPod; the generic extractor).

Every ``<script type="application/ld+json">`` block is read; a block that is not valid JSON
is an error (a truncated block would otherwise silently drop products). Items are found
anywhere: top level, in lists, under ``@graph``, nested in other items.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

import msgspec
from selectolax.lexbor import LexborHTMLParser

from scrapers.rows import ParseError

LD_JSON_TYPE = "application/ld+json"


class Blocks(list[Any]):
    """The decoded JSON-LD blocks of a page, in page order (a plain list of them), and how
    often their text holds ``Product"``: the end of every string naming the type Product,
    which lets :func:`products` find them without walking every object (see there).
    ``product_marks`` is ``None`` when the text may spell the type with escapes.

    The blocks' texts are kept too, for :func:`all_offers` to count ``Offer"`` in the same
    way: only when it is called (RunPod's adapter asks for Products alone, and counting is a
    cost on every page), and once."""

    __slots__ = ("_offer_marks", "_texts", "product_marks")

    def __init__(self) -> None:
        super().__init__()
        self.product_marks: int | None = 0
        self._texts: list[str] = []  # of the blocks, while product_marks is not None
        self._offer_marks = -1  # not counted yet

    def offer_marks(self) -> int | None:
        """How often the blocks' text holds ``Offer"`` (the end of every string naming the
        type Offer or AggregateOffer); ``None`` when ``product_marks`` is, for the same
        reason (a ``\\u`` escape of a letter can hide a type or key from the count)."""
        if self.product_marks is None:
            return None
        if self._offer_marks < 0:
            count = 0
            for text in self._texts:
                count += text.count(_OFFER_MARK)
            self._offer_marks = count
        return self._offer_marks


_PRODUCT_MARK = 'Product"'
_OFFER_MARK = 'Offer"'
# A \u escape of an ASCII letter can spell a key or type ("Pr\u006fduct") that counting the
# text cannot see; other escapes (Next.js writes < > & as \u003c \u003e \u0026) cannot.
_ESCAPED_LETTER = re.compile(r"\\u00(?:[46][1-9a-fA-F]|[57][0-9aA])")


def blocks(tree: LexborHTMLParser, url: str) -> Blocks:
    found = Blocks()
    # tags() instead of css('script[type="application/ld+json"]'): no CSS engine to build
    # (_page.py says why). HTML compares a type attribute's value case-insensitively.
    scripts = [
        s for s in tree.tags("script") if (s.attrs.get("type") or "").lower() == LD_JSON_TYPE
    ]
    for n, script in enumerate(scripts, 1):
        raw = script.text(deep=True, strip=True)
        if not raw:
            continue
        found.append(_decode(raw, url, n))
        if found.product_marks is not None:
            # A one-character search is a memchr, a tenth of the cost of a two-character one:
            # most blocks have no backslash at all.
            if "\\" in raw and _ESCAPED_LETTER.search(raw):
                found.product_marks = None
                found._texts = []  # nothing will count them
            else:
                found.product_marks += raw.count(_PRODUCT_MARK)
                found._texts.append(raw)
    return found


_FAST_JSON = msgspec.json.Decoder()


def _decode(raw: str, url: str, n: int) -> Any:
    """The JSON of block ``n``, as ``json.loads`` gives it. msgspec decodes it in half the time
    (on a page that is mostly JSON-LD, decoding is a fifth of the parse) and gives the same
    values for every document it takes; what it refuses and ``json`` takes (NaN, Infinity,
    lone surrogates) goes to ``json``, which also words the error for a block that is not
    JSON."""
    try:
        return _FAST_JSON.decode(raw)
    except msgspec.MsgspecError:
        pass
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{url}: JSON-LD block {n} is not valid JSON ({exc.msg})") from None
    except ValueError as exc:  # valid JSON json will not convert: an integer of 4,301+ digits
        raise ParseError(f"{url}: JSON-LD block {n} cannot be read ({exc})") from None


def types_of(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    if type(kind) is str:
        return {kind.rsplit("/", 1)[-1]} if kind else set()
    names = kind if isinstance(kind, list) else [kind]
    return {str(k).rsplit("/", 1)[-1] for k in names if k}


_NESTED = (dict, list)


def _objects_of_types(value: Any, names: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """For each of ``names``, the JSON objects in ``value`` with ``name in types_of(object)``,
    depth first (an object before what it holds, in document order).

    A plain recursive function filling lists: a chain of nested generators costs a frame
    switch per level for every object, several times the work of visiting it. The type
    filter runs during the walk, without building a set for each object (nearly all have one
    plain string ``@type``, compared as it is; ``types_of`` keeps the part after the last
    "/"). Values are nearly all ``str``, ``dict`` or ``list`` straight from ``json.loads``,
    so exact type tests come first and ``isinstance`` (for subclasses) only after them."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in names}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("@type")
            if type(kind) is str:
                if kind in found:
                    found[kind].append(node)
                elif "/" in kind:
                    tail = kind.rsplit("/", 1)[-1]
                    if tail in found:
                        found[tail].append(node)
            elif kind is not None:  # a list of types, or something odd: types_of decides
                kinds = types_of(node)
                for name in names:
                    if name in kinds:
                        found[name].append(node)
            node = node.values()
        for child in node:
            kind = type(child)
            if kind is str:
                continue
            if kind is dict or kind is list or isinstance(child, _NESTED):
                visit(child)

    if isinstance(value, _NESTED):
        visit(value)
    return found


class LdOffer(msgspec.Struct, frozen=True):
    """One schema.org Offer with what it inherits: its Product and its AggregateOffer. (A
    Struct, as the rows are: one is built per offer, at a fraction of a dataclass's cost.)"""

    product: dict[str, Any] | None
    offer: dict[str, Any]
    currency: str | None  # the Offer's priceCurrency, else its AggregateOffer's


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def offer_pairs(product: dict[str, Any]) -> list[tuple[dict[str, Any], Any]]:
    """What :func:`offers_of` gives, as ``(offer, currency)`` pairs: for a caller that needs
    no :class:`LdOffer` (building one per offer costs more than reading it)."""
    found: list[tuple[dict[str, Any], Any]] = []
    for item in _as_list(product.get("offers")):
        if not isinstance(item, dict):
            continue
        kind = item.get("@type")
        if type(kind) is str:  # what types_of gives, without building a set
            kinds: Collection[str] = (kind.rsplit("/", 1)[-1],) if kind else ()
        else:
            kinds = types_of(item)
        if "AggregateOffer" in kinds:
            currency = item.get("priceCurrency")
            before = len(found)
            for o in _as_list(item.get("offers")):
                if isinstance(o, dict):
                    found.append((o, o.get("priceCurrency") or currency))
            if len(found) == before and item.get("lowPrice") is not None:  # no inner offers
                found.append((item | {"price": item["lowPrice"]}, currency))
        elif "Offer" in kinds or not kinds:
            found.append((item, item.get("priceCurrency")))
    return found


def offers_of(product: dict[str, Any]) -> list[LdOffer]:
    """The Offers of one Product, through an AggregateOffer where there is one. An
    AggregateOffer without an ``offers`` list gives one offer at its ``lowPrice``."""
    return [LdOffer(product, offer, currency) for offer, currency in offer_pairs(product)]


def products(items: list[Any]) -> list[dict[str, Any]]:
    """Every object of type Product in ``items``, anywhere, depth first in document order.

    Pricing pages list their Products at the top of a block or in its ``@graph``. Given the
    :class:`Blocks` of a page, those places are looked at first, and the walk of every object
    is skipped when they hold as many Products as the text has ``Product"``: each Product's
    type is a string ending so, so none can be elsewhere (the walk was an eighth of the parse
    of RunPod's page). Any other page, or a plain list, is walked."""
    marks = getattr(items, "product_marks", None)
    if marks is not None:
        shallow = _top_level_products(items)
        if len(shallow) == marks:
            return shallow
    return _objects_of_types(items, ("Product",))["Product"]


def _top_items(items: list[Any]) -> list[dict[str, Any]]:
    """The objects at the tops of the blocks: a block that is an object, the items of a block
    that is a list, and the items of a block's ``@graph``, in the order a walk meets them.
    (A list, not a generator: a generator's frame switch per item costs more than the list.)"""
    found = []
    for block in items:
        for node in (block, block.get("@graph")) if type(block) is dict else (block,):
            # A block (or @graph) that is a list holds items; a block that is an object is one.
            for item in node if type(node) is list else (node,):
                if type(item) is dict:
                    found.append(item)
    return found


def _top_level_products(items: list[Any]) -> list[dict[str, Any]]:
    """The Products among :func:`_top_items`, in the order a walk meets them."""
    found = []
    for item in _top_items(items):
        kind = item.get("@type")
        if type(kind) is str:
            if kind == "Product" or kind.rsplit("/", 1)[-1] == "Product":
                found.append(item)
        elif kind is not None and "Product" in types_of(item):
            found.append(item)
    return found


def all_offers(items: list[Any]) -> list[LdOffer]:
    """Offers under Products, plus free-standing Offers (with ``itemOffered`` naming the
    thing), each once: for each Product (depth first in document order) its
    :func:`offers_of`, then every object of type Offer anywhere that is not one of those, nor
    an item or inner offer of a Product's ``offers``, in document order.

    Given the :class:`Blocks` of a page, this is found without walking every object when the
    text allows, as :func:`products` does (a page's Offers sit under its Products or at the top
    of a block); see :func:`_shallow_offers`. Any other page, or a plain list, is walked."""
    if isinstance(items, Blocks) and items.product_marks is not None:
        shallow = _shallow_offers(items)
        if shallow is not None:
            return shallow
    return _walked_offers(items)


def _shallow_offers(items: Blocks) -> list[LdOffer] | None:
    """What :func:`_walked_offers` gives, when the text shows it is all in a few places;
    ``None`` when it may not be.

    The places: the top of each block, the items of a block that is a list and of a block's
    ``@graph`` (where :func:`products` looks), and under each Product found there, the items
    of its ``offers`` and their own ``offers`` items (what :func:`offers_of` and the walk's
    claiming read). Why nothing else can matter, when the counts agree:

    * Products: as many there as the text has ``Product"`` means every Product is there
      (:func:`products` says why), in walk order.
    * Offers: every object typed Offer or AggregateOffer has a type string ending so
      (:func:`types_of` reads a type that is not a string through ``str()``, which never ends
      so), which ends in ``Offer"`` in the text (with no ``\\u`` escape of a letter:
      ``product_marks`` is ``None`` otherwise), and no two objects share one (decoded JSON is
      a tree: each object is its own stretch of text; a list of types may give one object
      more marks, which only makes the counts differ). The places are different paths in
      that tree, so no object is seen twice. So when the objects so typed seen there are as
      many as the marks (other strings ending ``Offer"`` only add marks), none is elsewhere,
      and the walk's Offers are exactly those seen.
    * Which are claimed: those under a Product's ``offers`` are (the walk claims every
      ``offers`` item and its ``offers`` items, whatever their type). One at a block's top
      or in its ``@graph`` is not: its path holds no ``offers`` key, so it is none of those.
      So the free-standing ones are the Offers seen at the tops, in the order a walk meets
      them (a block, then its ``@graph`` items).

    Counting the marks waits until here (see :class:`Blocks`). When the counts differ, the
    answer is the walk's, at the cost of this look (a few objects)."""
    product_marks = items.product_marks
    products: list[dict[str, Any]] = []
    free: list[dict[str, Any]] = []
    seen = 0  # objects typed Offer or AggregateOffer
    for item in _top_items(items):
        kind = item.get("@type")
        if type(kind) is str:
            if "/" in kind:
                kind = kind.rsplit("/", 1)[-1]
            if kind == "Product":
                products.append(item)
            elif kind == "Offer":
                free.append(item)
                seen += 1
            elif kind == "AggregateOffer":
                seen += 1  # it has a mark; the walk lists type Offer alone
        elif kind is not None:  # a list of types, or something odd
            kinds = types_of(item)
            if "Product" in kinds:
                products.append(item)
            if "Offer" in kinds:
                free.append(item)
                seen += 1
            elif "AggregateOffer" in kinds:
                seen += 1
    if len(products) != product_marks:
        return None
    for product in products:
        offers = product.get("offers")
        for item in (offers,) if type(offers) is dict else _as_list(offers):
            if not isinstance(item, dict):
                continue
            if _offer_typed(item):
                seen += 1
            inner = item.get("offers")
            if inner is not None:
                for o in (inner,) if type(inner) is dict else _as_list(inner):
                    if isinstance(o, dict) and _offer_typed(o):
                        seen += 1
    if seen != items.offer_marks():
        return None
    found: list[LdOffer] = []
    for product in products:
        found += offers_of(product)
    for item in free:
        offered = item.get("itemOffered")
        found.append(
            LdOffer(offered if isinstance(offered, dict) else None, item, item.get("priceCurrency"))
        )
    return found


def _offer_typed(item: dict[str, Any]) -> bool:
    """Whether ``item`` is typed Offer or AggregateOffer (by :func:`types_of`)."""
    kind = item.get("@type")
    if type(kind) is str:
        if "/" in kind:
            kind = kind.rsplit("/", 1)[-1]
        return kind == "Offer" or kind == "AggregateOffer"
    if kind is None:
        return False
    kinds = types_of(item)
    return "Offer" in kinds or "AggregateOffer" in kinds


def _walked_offers(items: list[Any]) -> list[LdOffer]:
    """What :func:`all_offers` gives, found by walking every object."""
    found: list[LdOffer] = []
    claimed: set[int] = set()
    typed = _objects_of_types(items, ("Product", "Offer"))
    for product in typed["Product"]:
        for ld in offers_of(product):
            claimed.add(id(ld.offer))
            found.append(ld)
        for aggregate in _as_list(product.get("offers")):
            if isinstance(aggregate, dict):
                claimed.update(id(o) for o in _as_list(aggregate.get("offers")))
                claimed.add(id(aggregate))
    for item in typed["Offer"]:
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
                # str() only for what is not one already: nearly every name and value is.
                key = (name if type(name) is str else str(name)).strip().lower()
                found[key] = (value if type(value) is str else str(value)).strip()
    return found


# UN/CEFACT unit codes schema.org uses in unitCode, and the unitText spellings seen.
PERIOD_CODES = {"HUR": "/hr", "DAY": "/day", "MON": "/month"}


def unit_of(offer: dict[str, Any]) -> str | None:
    """The billing period an Offer states (``priceSpecification``), as a unit text like
    ``/hr``; ``None`` when it states none."""
    specs = offer.get("priceSpecification")
    for spec in (specs,) if type(specs) is dict else _as_list(specs):  # most give one object
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
