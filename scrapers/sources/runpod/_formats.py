"""The formats RunPod publishes its GPU prices in, each split into listings (a GPU type, a
pricing row, a Product) whose :class:`Quote` s :mod:`scrapers.sources.runpod.adapter` turns into
rows: each format's ``*_listings`` gives ``(where, raw, read)`` with ``read()`` the listing's
quotes, so a listing that does not read is refused alone. Which format a body is in is decided
by its content, never by its URL; ``tests/fixtures/real/runpod/`` holds a real capture of each.

* **gpuTypes** (:func:`from_gpu_types`): RunPod's GPU types as its GraphQL API answers them
  (``{"data": {"gpuTypes": [...]}}``) and as the 2023 Next.js pricing page embedded them in
  ``<script id="__NEXT_DATA__">`` (``props.pageProps.data``, the same objects with
  ``__typename: "GpuType"``).
* **Webflow rows** (:func:`from_webflow`), the 2025 page: ``a.gpu-pricing-row``, card name in
  ``.gpu-pricing-row__model-wrapper``, "141" "GB VRAM" / "GB RAM" / "vCPUs" in
  ``.gpu-pricing-row__tag``, prices in the attributes ``data-secure-cloud-price`` and
  ``data-community-cloud-price`` of ``.cc-gpu-price`` (whose text is a "0" placeholder the
  page's script fills in).
* **JSON-LD** (:func:`from_jsonld`), the 2026 page: schema.org ``Product`` "<card> GPU on
  Runpod" with an ``AggregateOffer`` of ``Offer`` "Community Cloud" / "Secure Cloud".

Every price is USD per GPU per hour. A price of 0 or null means the card is not offered that
way: no quote, not an error.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.gpu_names import canonical_gpu
from scrapers.rows import Billing, ParseError
from scrapers.sources import _jsonld
from scrapers.sources._json import number
from scrapers.sources._page import text_of
from scrapers.units import parse_period, size_gb

SECURE = "Secure Cloud"
COMMUNITY = "Community Cloud"


@dataclass(frozen=True, slots=True)
class Card:
    """One card as the source describes it, the same for each of its prices."""

    name: str
    gpu: str
    vram: int | None
    ram: int | None = None
    vcpu: int | None = None


@dataclass(frozen=True, slots=True)
class Quote:
    """One price of one card: ``offer`` names how it is sold ("Secure Cloud", "Community
    Cloud spot", "Secure Cloud 3-month commitment"); ``field`` where the source states it."""

    card: Card
    offer: str
    billing: Billing
    price: Decimal  # USD per GPU-hour, as listed
    field: str
    list_price: Decimal | None = None  # the on-demand price a commitment price discounts
    label: str | None = None  # the commitment, for discount_label
    currency: str = "USD"


# One listing of a page: where it is, its raw data (for the excerpt), and how to read it.
Listing = tuple[str, Any, Callable[[], list[Quote]]]


def _card(name: str, vram: int | None, ram: int | None = None, vcpu: int | None = None) -> Card:
    return Card(name, canonical_gpu(name, vram), vram, ram, vcpu)


def _gb(text: str | None) -> int | None:
    """ "80 GB" → 80; a fraction rounds to the nearest GB; ``None`` when no size is stated."""
    size = size_gb(text or "")
    return None if size is None else int(size.to_integral_value())


# at most 9 digits: a longer run is no count, and int() of thousands of digits raises
_INT = re.compile(r"(?<!\d)(\d{1,9})(?!\d)")


def _int(text: str | None) -> int | None:
    m = _INT.search(text or "")
    return None if m is None else int(m[1])


def _price(value: Any, what: str) -> Decimal | None:
    """A price as listed; ``None`` for 0 or null (not offered). Anything else that is not a
    positive number is an error."""
    if value is None:
        return None
    price = number(value, what, positive=False)
    return None if price == 0 else price


# -- gpuTypes: the GraphQL API, and the 2023 page's __NEXT_DATA__ ---------------------------

# (field, the flag saying the cloud offers the card, offer, billing, commitment).
# A flag that is false means the card is not offered there, whatever its price field says:
# RunPod fills the price of a cloud that does not offer a card with a placeholder (0.5, or
# the other cloud's price; see tests/fixtures/real/runpod/README.md). The commitment prices
# (savings plans, paid up front) are Secure Cloud prices per GPU-hour.
GPU_TYPE_PRICES: tuple[tuple[str, str, str, Billing, str | None], ...] = (
    ("securePrice", "secureCloud", SECURE, "hourly", None),
    ("communityPrice", "communityCloud", COMMUNITY, "hourly", None),
    ("secureSpotPrice", "secureCloud", f"{SECURE} spot", "spot", None),
    ("communitySpotPrice", "communityCloud", f"{COMMUNITY} spot", "spot", None),
    ("oneWeekPrice", "secureCloud", f"{SECURE} 1-week commitment", "weekly", "1-week commitment"),
    ("oneMonthPrice", "secureCloud", f"{SECURE} 1-month commitment", "monthly", "1-month commitment"),
    ("threeMonthPrice", "secureCloud", f"{SECURE} 3-month commitment", "monthly", "3-month commitment"),
    ("sixMonthPrice", "secureCloud", f"{SECURE} 6-month commitment", "monthly", "6-month commitment"),
)  # fmt: skip
PRICE_FIELDS = frozenset(f for f, *_ in GPU_TYPE_PRICES)


def is_gpu_type(item: Any) -> bool:
    """An object in the shape of RunPod's ``GpuType``: named, with at least one price field."""
    return (
        isinstance(item, dict)
        and ("displayName" in item or "id" in item)
        and not PRICE_FIELDS.isdisjoint(item)
    )


def gpu_types_in(document: Any) -> list[dict[str, Any]]:
    """Every ``GpuType``-shaped object anywhere in a JSON document, in document order (the
    2023 page keeps them under ``props.pageProps.data``; found by shape, not by path)."""
    found: list[dict[str, Any]] = []
    pending = [document]  # a loop, not recursion: no RecursionError however deep it nests
    while pending:
        value = pending.pop()
        if is_gpu_type(value):
            found.append(value)
        elif isinstance(value, dict):
            pending.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            pending.extend(reversed(value))
    return found


def _name_of(record: dict[str, Any], what: str) -> str:
    for key in ("displayName", "id"):
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise ParseError(f"{what}: a GPU type with neither displayName nor id")


def gpu_type_listings(records: list[Any]) -> list[Listing]:
    """One listing per ``GpuType`` object. The card is named by ``displayName`` (by
    ``displayName (id)`` where two types share one); ``memoryInGb`` is its VRAM."""
    names = [_name_or_none(r) for r in records]
    shared = {name for name, times in Counter(names).items() if name and times > 1}
    listings: list[Listing] = []
    for n, (record, name) in enumerate(zip(records, names, strict=True), 1):
        if name in shared and isinstance(record.get("id"), str) and record["id"].strip() != name:
            name = f"{name} ({record['id'].strip()})"
        listings.append((name or f"GPU type {n}", record, partial(_gpu_type, record, name)))
    return listings


def _name_or_none(record: Any) -> str | None:
    if not isinstance(record, dict):
        return None
    for key in ("displayName", "id"):
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _gpu_type(record: Any, name: str | None) -> list[Quote]:
    if not isinstance(record, dict):
        raise ParseError("a GPU type that is not an object")
    if name is None:
        raise ParseError("a GPU type with neither displayName nor id")
    memory = record.get("memoryInGb")
    vram = None if memory is None else int(number(memory, "memoryInGb", positive=False)) or None
    card = _card(name, vram)
    secure = _price(record.get("securePrice"), "securePrice")
    quotes: list[Quote] = []
    for field, flag, offer, billing, label in GPU_TYPE_PRICES:
        price = _price(record.get(field), field)
        if price is None or record.get(flag) is False:
            continue
        listed = secure if label is not None else price
        quotes.append(Quote(card, offer, billing, price, field, listed, label))
    return quotes


# -- the 2025 Webflow page --------------------------------------------------------------------

ROW = "gpu-pricing-row"
MODEL = "gpu-pricing-row__model-wrapper"
TAGS = "gpu-pricing-row__tags"
TAG = "gpu-pricing-row__tag"
PRICE_WRAPPER = "gpu-pricing-row__price-wrapper"
# data-secure-cloud-price="3.79" → "Secure Cloud"
_PRICE_ATTRIBUTE = re.compile(r"^data-(?P<cloud>[a-z-]+)-price$")
WEBFLOW_CLOUDS = {"secure-cloud": SECURE, "community-cloud": COMMUNITY}


def _classes(node: LexborNode) -> list[str]:
    return (node.attributes.get("class") or "").split()


def _ancestor(node: LexborNode, cls: str) -> LexborNode | None:
    parent = node.parent
    while parent is not None:
        if cls in _classes(parent):
            return parent
        parent = parent.parent
    return None


def _previous_element(node: LexborNode) -> LexborNode | None:
    sibling = node.prev
    while sibling is not None and not sibling.is_element_node:
        sibling = sibling.prev
    return sibling


def _elements(node: LexborNode) -> Iterator[LexborNode]:
    """``node`` and every element inside it, in document order."""
    yield from node.traverse(include_text=False)


def is_webflow(tree: LexborHTMLParser) -> bool:
    return any(tree.css_first(f".{cls}") is not None for cls in (PRICE_WRAPPER, MODEL, TAGS))


def _row_parts(wrapper: LexborNode, where: str) -> tuple[LexborNode | None, list[LexborNode]]:
    """The name element and the tags of the card a price wrapper belongs to. In a whole row
    (``a.gpu-pricing-row``) they are its model wrapper and its tags. Where an excerpt was cut
    inside a row (its start tag and the model wrapper's cut off), the row's parts are still in
    their order: the name, the tags, the prices; so the tags are what precedes the price
    wrapper, and the name what precedes the tags."""
    row = _ancestor(wrapper, ROW)
    if row is not None:
        return row.css_first(f".{MODEL}"), row.css(f".{TAG}")
    tags = _previous_element(wrapper)
    if tags is None or TAGS not in _classes(tags):
        raise ParseError(f"{where}: a .{PRICE_WRAPPER} neither in a .{ROW} nor after its .{TAGS}")
    return _previous_element(tags), tags.css(f".{TAG}")


def _webflow_card(wrapper: LexborNode) -> Card:
    name_node, tags = _row_parts(wrapper, "price")
    name = "" if name_node is None else text_of(name_node)
    if not name:
        raise ParseError(f"a price with no card name (.{MODEL})")
    vram = ram = vcpu = None
    for tag in tags:
        text = text_of(tag)
        upper = text.upper()
        if "VRAM" in upper:
            vram = _gb(text)
        elif "VCPU" in upper:
            vcpu = _int(text)
        elif "RAM" in upper:
            ram = _gb(text)
    return _card(name, vram, ram, vcpu)


def webflow_listings(tree: LexborHTMLParser, where: str) -> list[Listing]:
    """One listing per ``.gpu-pricing-row__price-wrapper``: a quote per ``data-<cloud>-price``
    attribute in it (the per-GPU-hour price; 0 or empty: not offered). A cloud's price outside
    a price wrapper is an error of the page: the layout is not the one this reads."""
    wrappers = tree.css(f".{PRICE_WRAPPER}")
    inside = {node.mem_id for wrapper in wrappers for node in _elements(wrapper)}
    for attribute in (f"data-{key}-price" for key in WEBFLOW_CLOUDS):
        for node in tree.css(f"[{attribute}]"):
            if node.mem_id not in inside:
                raise ParseError(f"{where}: a price ({attribute}) outside .{PRICE_WRAPPER}")
    return [
        (f"price {n}", text_of(wrapper), partial(_webflow_quotes, wrapper))
        for n, wrapper in enumerate(wrappers, 1)
    ]


def _webflow_quotes(wrapper: LexborNode) -> list[Quote]:
    card: Card | None = None
    quotes: list[Quote] = []
    for node in _elements(wrapper):
        for attribute, value in node.attributes.items():
            m = _PRICE_ATTRIBUTE.match(attribute)
            if m is None:
                continue
            cloud = WEBFLOW_CLOUDS.get(m["cloud"])
            if cloud is None:
                raise ParseError(f"unknown price attribute {attribute!r}")
            card = card or _webflow_card(wrapper)
            price = _price((value or "").strip() or None, f"{card.name} / {attribute}")
            if price is not None:
                quotes.append(Quote(card, cloud, "hourly", price, attribute, price))
    return quotes


# -- the 2026 JSON-LD page --------------------------------------------------------------------

PRODUCT_NAME = re.compile(r"^\s*(?P<card>.+?)\s+GPU\s+on\s+Runpod\s*$", re.IGNORECASE)
_VRAM_TEXT = re.compile(r"[\d.]+\s*GB\s*VRAM", re.IGNORECASE)


def runpod_products(tree: LexborHTMLParser, url: str) -> list[tuple[dict[str, Any], str]]:
    """The JSON-LD Products named "<card> GPU on Runpod", with the card each names."""
    found = []
    for product in _jsonld.products(_jsonld.blocks(tree, url)):
        named = PRODUCT_NAME.match(str(product.get("name") or ""))
        if named:
            found.append((product, named["card"]))
    return found


def _spot_or_hourly(offer: str) -> Billing:
    low = offer.lower()
    return "spot" if "spot" in low or "interruptible" in low else "hourly"


def jsonld_listings(found: list[tuple[dict[str, Any], str]]) -> list[Listing]:
    """One listing per Product :func:`runpod_products` found."""
    return [
        (str(product.get("name")), product, partial(_product_quotes, product, card_name))
        for product, card_name in found
    ]


def _product_quotes(product: dict[str, Any], card_name: str) -> list[Quote]:
    """An Offer is named by its cloud; its ``price`` is per GPU-hour (a
    ``priceSpecification`` with another period is an error); an Offer without ``price`` is an
    error, one whose price is 0 or null is not offered."""
    props = _jsonld.properties(product)
    vram_text = props.get("vram")
    if vram_text is None:
        in_text = _VRAM_TEXT.search(str(product.get("description") or ""))
        vram_text = in_text[0] if in_text else None
    card = _card(
        card_name.strip(),
        _gb(vram_text),
        ram=_gb(props.get("ram")),
        vcpu=_int(props.get("vcpu") or props.get("vcpus")),
    )
    offers = _jsonld.offers_of(product)
    if not offers:
        raise ParseError("no offers")
    quotes: list[Quote] = []
    for ld in offers:
        cloud = str(ld.offer.get("name") or "").strip()
        if not cloud:
            raise ParseError("an offer without a name (expected e.g. 'Secure Cloud')")
        if "price" not in ld.offer:
            raise ParseError(f"{cloud}: no price")
        price = _price(ld.offer["price"], f"{cloud}: price")
        if price is None:
            continue
        currency = str(ld.currency or "").strip().upper()
        if not currency:
            raise ParseError(f"{cloud}: no priceCurrency")
        unit = _jsonld.unit_of(ld.offer) or "/hr"
        hours, per = parse_period(unit)
        if hours != 1 or per == "machine":
            raise ParseError(f"{cloud}: price per {unit!r}, expected per GPU-hour")
        billing = _spot_or_hourly(cloud)
        quotes.append(Quote(card, cloud, billing, price, f"Offer {cloud!r}", price, None, currency))
    return quotes
