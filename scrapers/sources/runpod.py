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
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from selectolax.lexbor import LexborNode

from scrapers.fx import FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources import _jsonld
from scrapers.sources._json import number
from scrapers.sources._page import load_html, naive_utc, text_of
from scrapers.units import parse_money, parse_period, per_card_hour, size_gb

PRICING_PATH = "/pricing"
PRODUCT_NAME = re.compile(r"^\s*(?P<card>.+?)\s+GPU\s+on\s+Runpod\s*$", re.IGNORECASE)
_INT = re.compile(r"(\d+)")
_VRAM_TEXT = re.compile(r"[\d.]+\s*GB\s*VRAM", re.IGNORECASE)
USD_QUANTUM = Decimal("0.0001")


def _billing(cloud: str) -> Billing:
    low = cloud.lower()
    return "spot" if "spot" in low or "interruptible" in low else "hourly"


def _gb(text: str | None) -> int | None:
    """ "80 GB" → 80; a fraction rounds to the nearest GB; ``None`` when no size is stated."""
    size = size_gb(text or "")
    return None if size is None else int(size.to_integral_value())


def _int(text: str | None) -> int | None:
    m = _INT.search(text or "")
    return None if m is None else int(m[1])


def _vram_in(product: dict[str, Any]) -> str | None:
    """The "80GB VRAM" of a Product's description, read only when no property gives it."""
    in_text = _VRAM_TEXT.search(str(product.get("description") or ""))
    return in_text[0] if in_text else None


def _spec(block: LexborNode, selector: str) -> str | None:
    found = block.css_first(selector)
    return None if found is None else text_of(found)


@dataclass(frozen=True, slots=True)
class _Card:
    """One card as the page describes it, the same for each cloud's price."""

    name: str
    gpu: str
    vram: int | None
    ram: int | None
    vcpu: int | None


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
        gpu_products = []
        for product in _jsonld.products(_jsonld.blocks(tree, url)):
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
        listed = Counter(row.offer_id for row in rows)
        twice = sorted(key for key, times in listed.items() if times > 1)
        if twice:
            raise ParseError(f"{url}: the same card and cloud listed twice: {twice}")
        return rows

    # -- layout 1: JSON-LD ---------------------------------------------------------------

    def _from_jsonld(
        self, found: list[tuple[dict[str, Any], str, str]], url: str, observed: datetime
    ) -> list[OfferRow]:
        """Rows of the ``(product, its name, the card it names)`` found on the page."""
        rows = []
        for product, name, card_name in found:
            what = f"{url}: {name}"
            props = _jsonld.properties(product)
            vram = _gb(props.get("vram") or _vram_in(product))
            card = _Card(
                card_name,
                canonical_gpu(card_name, vram),
                vram,
                ram=_gb(props.get("ram")),
                vcpu=_int(props.get("vcpu") or props.get("vcpus")),
            )
            offers = _jsonld.offers_of(product)
            if not offers:
                raise ParseError(f"{what}: no offers")
            for ld in offers:
                cloud = str(ld.offer.get("name") or "").strip()
                if not cloud:
                    raise ParseError(
                        f"{what}: an offer without a name (expected e.g. 'Secure Cloud')"
                    )
                if ld.offer.get("price") is None:
                    raise ParseError(f"{what} / {cloud}: no price")
                price = number(ld.offer["price"], f"{what} / {cloud}: price")
                currency = str(ld.currency or "").upper()
                if not currency:
                    raise ParseError(f"{what} / {cloud}: no priceCurrency")
                unit = _jsonld.unit_of(ld.offer) or "/hr"
                hours, per = parse_period(unit)
                if hours != 1 or per == "machine":
                    raise ParseError(f"{what} / {cloud}: price per {unit!r}, expected per GPU-hour")
                rows.append(self._row(observed, card, cloud, price, currency, "/hr"))
        return rows

    # -- layout 2: pricing rows ----------------------------------------------------------

    def _from_rows(
        self, pricing_rows: list[LexborNode], url: str, observed: datetime
    ) -> list[OfferRow]:
        rows = []
        for n, block in enumerate(pricing_rows, 1):
            card_name = _spec(block, ".gpu-name") or ""
            if not card_name:
                raise ParseError(f"{url}: pricing row {n} has no .gpu-name")
            what = f"{url}: {card_name}"
            prices = block.css(".gpu-price")
            if not prices:
                raise ParseError(f"{what}: no .gpu-price")
            vram = _gb(_spec(block, ".gpu-vram"))
            card = _Card(
                card_name,
                canonical_gpu(card_name, vram),
                vram,
                ram=_gb(_spec(block, ".gpu-ram")),
                vcpu=_int(_spec(block, ".gpu-vcpu")),
            )
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
                rows.append(self._row(observed, card, cloud, value, currency, unit))
        return rows

    def _row(
        self,
        observed: datetime,
        card: _Card,
        cloud: str,
        price: Decimal,
        currency: str,
        unit_raw: str,
    ) -> OfferRow:
        """One row of a price per GPU-hour (the callers checked the period)."""
        try:
            listed = price.quantize(USD_QUANTUM, ROUND_HALF_UP)
            unit, native = per_card_hour(listed, currency, 1, 1, "card")
            cny = self.fx.to_cny(native, currency, observed.date())
        except ArithmeticError:  # decimal.InvalidOperation: a garbled, absurdly long number
            raise ParseError(f"price {price} of {card.name} ({cloud}) is out of range") from None
        mark = "$" if currency == "USD" else currency
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=f"{card.name}/{cloud}",
            gpu=card.gpu,
            gpu_name_raw=card.name,
            gpu_count=1,
            vram_gb=card.vram,
            billing=_billing(cloud),
            price=listed,
            currency=currency,
            unit=unit,
            unit_raw=f"{mark}{unit_raw} per GPU ({cloud})",
            cny_per_card_hour=cny,
            list_price=listed,
            cpu_cores=card.vcpu,
            ram_gb=card.ram,
        )
