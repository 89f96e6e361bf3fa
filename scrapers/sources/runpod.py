"""RunPod pricing page (https://www.runpod.io/pricing): GPU pods per GPU-hour, USD → CNY.

Two layouts, both *modelled* (docs/SOURCES.md; the machine that built this cannot reach the
site), tried in this order:

1. schema.org JSON-LD: ``Product`` items named "<card> GPU on Runpod" ("H100 SXM GPU on
   Runpod", "RTX 4090 GPU on Runpod"), each with an ``AggregateOffer`` whose ``offers`` are
   ``Offer`` items named "Community Cloud" and "Secure Cloud" with ``price`` and
   ``priceCurrency``; memory, RAM and vCPUs from ``additionalProperty`` where given.
2. Without JSON-LD (older versions of the page): pricing rows, ``div.gpu-pricing-row``
   with ``.gpu-name``, ``.gpu-vram`` ("80 GB VRAM"), ``.gpu-ram``, ``.gpu-vcpu`` and one
   ``.gpu-price[data-cloud]`` per cloud with the price text ("$2.69" + "/hr").

Prices are per GPU per hour: that is what RunPod prices (and what a ``priceSpecification``
must say if the page gives one; a different period is an error). One row per card and cloud,
``offer_id`` "<card>/<cloud>", billing ``hourly`` (``spot`` for an offer named as spot /
interruptible). ``observed_at`` = fetch time. A page saved from a browser parses the same
way: nothing depends on the URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from selectolax.lexbor import LexborNode

from scrapers.fx import FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources import _jsonld
from scrapers.sources._json import number, positive_number
from scrapers.sources._page import before_gb, load_html, naive_utc, text_of
from scrapers.units import parse_money, parse_period

PRICING_PATH = "/pricing"
PRODUCT_NAME = re.compile(r"^\s*(?P<card>.+?)\s+GPU\s+on\s+Runpod\s*$", re.IGNORECASE)
_GB = re.compile(r"(\d+(?:\.\d+)?)\s*GB", re.IGNORECASE)
_INT = re.compile(r"(\d+)")
_VRAM_TEXT = re.compile(r"[\d.]+\s*GB\s*VRAM", re.IGNORECASE)
USD_QUANTUM = Decimal("0.0001")


def _billing(cloud: str) -> Billing:
    low = cloud.lower()
    return "spot" if "spot" in low or "interruptible" in low else "hourly"


class _Labels(dict[tuple[str, str, str], tuple[Billing, str, str]]):
    """The billing mode, unit and shown unit of each cloud's price on one page, by (cloud,
    currency, unit as shown): every card has the same two or three clouds, so each is worked
    out once, not once per row. A dict that fills itself, so a row's lookup is one
    subscript."""

    def __missing__(self, key: tuple[str, str, str]) -> tuple[Billing, str, str]:
        cloud, currency, unit_raw = key
        mark = "$" if currency == "USD" else currency
        found = self[key] = (
            _billing(cloud),
            f"{currency}/card-hour",
            f"{mark}{unit_raw} per GPU ({cloud})",
        )
        return found


def _gb(text: str | None) -> int | None:
    if not text:
        return None
    # "141 GB", "80GB": the number is what _GB would find, read without the regex.
    digits = before_gb(text) or ""
    if not digits.isdecimal():
        m = _GB.search(text)
        if m is None:
            return None
        digits = m[1]
    # int() of whole digits equals Decimal's integral value, at a fraction of the cost.
    return int(Decimal(digits).to_integral_value()) if "." in digits else int(digits)


def _vram_in(product: dict[str, Any]) -> str | None:
    """The "80GB VRAM" of a Product's description, read only when no property gives it."""
    in_text = _VRAM_TEXT.search(str(product.get("description") or ""))
    return in_text[0] if in_text else None


_PART_CLASSES = ("gpu-name", "gpu-vram", "gpu-ram", "gpu-vcpu")


def _parts(block: LexborNode) -> tuple[dict[str, LexborNode], list[LexborNode]]:
    """The first element inside a pricing row of each of ``_PART_CLASSES`` and every
    ``.gpu-price``, in document order: what ``css_first(".gpu-name")`` ... and
    ``css(".gpu-price")`` find, in one walk of the row instead of five selector calls (each
    parses its selector again: most of a row's cost)."""
    first: dict[str, LexborNode] = {}
    prices: list[LexborNode] = []
    nodes = block.traverse()
    next(nodes)  # the row itself: a selector looks only inside it
    for node in nodes:
        classes = node.attrs.get("class")
        if not classes:
            continue
        names = classes.split()
        if "gpu-price" in names:
            prices.append(node)
        for name in _PART_CLASSES:
            if name in names and name not in first:
                first[name] = node
    return first, prices


def _spec(parts: dict[str, LexborNode], name: str) -> str | None:
    found = parts.get(name)
    return None if found is None else text_of(found)


def _int(text: str | None) -> int | None:
    if text and text.isdecimal():  # "24": what _INT would find, without the regex
        return int(text)
    m = _INT.search(text or "")
    return None if m is None else int(m[1])


class RunpodAdapter:
    name = "runpod"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers"
    currency = "USD"
    secret = None

    def __init__(self, fx: FxRates | None = None) -> None:
        self.fx = fx or FxRates()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [f"{base_url.rstrip('/')}{PRICING_PATH}"]

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        tree = load_html(body, url)
        observed = naive_utc(fetched_at)
        items = _jsonld.blocks(tree, url)
        gpu_products = []
        for product in _jsonld.products(items):
            name = str(product.get("name") or "").strip()
            named = PRODUCT_NAME.match(name)
            if named:
                gpu_products.append((product, name, named["card"]))
        if gpu_products:
            rows = self._from_jsonld(gpu_products, url, observed)
        elif pricing_rows := tree.css(".gpu-pricing-row"):
            rows = self._from_rows(pricing_rows, url, observed)
        else:
            raise ParseError(
                f"{url}: not a RunPod pricing page: no JSON-LD Product named '<card> GPU on "
                "Runpod' and no .gpu-pricing-row"
            )
        seen: set[str] = set()
        twice_seen: set[str] = set()
        for row in rows:
            key = row.offer_id
            if key in seen:
                twice_seen.add(key)
            seen.add(key)
        twice = sorted(twice_seen)
        if twice:
            raise ParseError(f"{url}: the same card and cloud listed twice: {twice}")
        return rows

    # -- layout 1: JSON-LD ---------------------------------------------------------------

    def _from_jsonld(
        self, found: list[tuple[dict[str, Any], str, str]], url: str, observed: datetime
    ) -> list[OfferRow]:
        """Rows of the ``(product, its name, the card it names)`` found on the page."""
        rows = []
        to_cny = self.fx.converter(observed.date())  # this page's rates
        labels = _Labels()
        for product, name, card in found:
            what = f"{url}: {name}"
            props = _jsonld.properties(product)
            vram = _gb(props.get("vram") or _vram_in(product))
            ram = _gb(props.get("ram"))
            vcpu = _int(props.get("vcpu") or props.get("vcpus"))
            offers = _jsonld.offer_pairs(product)
            if not offers:
                raise ParseError(f"{what}: no offers")
            gpu = canonical_gpu(card, vram)  # one card, whichever cloud
            for offer, offer_currency in offers:
                cloud = str(offer.get("name") or "").strip()
                if not cloud:
                    raise ParseError(
                        f"{what}: an offer without a name (expected e.g. 'Secure Cloud')"
                    )
                raw_price = offer.get("price")
                if raw_price is None:
                    raise ParseError(f"{what} / {cloud}: no price")
                price = positive_number(raw_price)
                if price is None:  # not a positive number: number() raises with the reason
                    price = number(raw_price, f"{what} / {cloud}: price")
                currency = str(offer_currency or "").upper()
                if not currency:
                    raise ParseError(f"{what} / {cloud}: no priceCurrency")
                unit = _jsonld.unit_of(offer) or "/hr"
                hours, per = parse_period(unit)
                if hours != 1 or per == "machine":
                    raise ParseError(f"{what} / {cloud}: price per {unit!r}, expected per GPU-hour")
                row = self._row(
                    observed, card, gpu, cloud, vram, price, currency, "/hr", ram, vcpu, to_cny,
                    labels,
                )  # fmt: skip
                rows.append(row)
        return rows

    # -- layout 2: pricing rows ----------------------------------------------------------

    def _from_rows(
        self, pricing_rows: list[LexborNode], url: str, observed: datetime
    ) -> list[OfferRow]:
        rows = []
        to_cny = self.fx.converter(observed.date())  # this page's rates
        labels = _Labels()
        for n, block in enumerate(pricing_rows, 1):
            parts, prices = _parts(block)
            card = _spec(parts, "gpu-name") or ""
            if not card:
                raise ParseError(f"{url}: pricing row {n} has no .gpu-name")
            what = f"{url}: {card}"

            if not prices:
                raise ParseError(f"{what}: no .gpu-price")
            # The card's specs are the same for every cloud's price: read them once.
            vram = _gb(_spec(parts, "gpu-vram"))
            ram = _gb(_spec(parts, "gpu-ram"))
            vcpu = _int(_spec(parts, "gpu-vcpu"))
            gpu = canonical_gpu(card, vram)
            for price_node in prices:
                cloud = (price_node.attributes.get("data-cloud") or "").strip()
                if not cloud:
                    raise ParseError(f"{what}: a .gpu-price without data-cloud")
                try:
                    value, currency, unit = parse_money(text_of(price_node))
                    hours, per = parse_period(unit)
                except ParseError as exc:
                    raise ParseError(f"{what} / {cloud}: {exc}") from None
                if currency is None:
                    raise ParseError(f"{what} / {cloud}: price names no currency")
                if hours != 1 or per == "machine":
                    raise ParseError(f"{what} / {cloud}: price per {unit!r}, expected per GPU-hour")
                row = self._row(
                    observed, card, gpu, cloud, vram, value, currency, unit, ram, vcpu, to_cny,
                    labels,
                )  # fmt: skip
                rows.append(row)
        return rows

    def _row(
        self,
        observed: datetime,
        card: str,
        gpu: str,
        cloud: str,
        vram: int | None,
        price: Decimal,
        currency: str,
        unit_raw: str,
        ram: int | None,
        vcpu: int | None,
        to_cny: Callable[[Decimal, str], Decimal],
        labels: _Labels,
    ) -> OfferRow:
        """One row; ``to_cny``: the page's converter (``FxRates.converter``); ``labels``: the
        page's ``_Labels``."""
        billing, unit, unit_shown = labels[cloud, currency, unit_raw]
        try:
            listed = price.quantize(USD_QUANTUM, ROUND_HALF_UP)
            cny = to_cny(listed, currency)
        except ArithmeticError:  # decimal.InvalidOperation: a garbled, absurdly long number
            raise ParseError(f"price {price} of {card} ({cloud}) is out of range") from None
        # The required fields by position (a row per price; keywords cost a fifth of building
        # one), in OfferRow's order (tests/scrapers/test_generic_speedups_equivalence.py).
        return OfferRow(
            observed, self.name, f"{card}/{cloud}", gpu, card, 1, vram, billing, listed,
            currency, unit, unit_shown, cny, list_price=listed, cpu_cores=vcpu, ram_gb=ram,
        )  # fmt: skip
