"""RunPod: GPU pods per GPU-hour in USD, from RunPod's public GraphQL API (no key).

``POST <live_url>/graphql`` with :data:`GPU_TYPES_QUERY`. Saved pages parse too (``gpuprice
parse runpod FILE``): the format is decided by content, never by the URL
(:mod:`scrapers.sources.runpod._formats`). Rows, one card each, ``offer_id``
"<card>/<offer>": Secure and Community Cloud on demand (``hourly``) and spot (``spot``), and
1-week to 6-month commitments (``weekly`` / ``monthly``, per GPU-hour, with the on-demand
Secure Cloud price as ``list_price``). A price of 0 or null, or a cloud whose flag is false,
is not offered: no row. The fields, formats and real captures: docs/SOURCES.md.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import load_json, looks_like_json
from scrapers.sources._page import load_html, naive_utc
from scrapers.sources.base import Adapter
from scrapers.sources.runpod import _formats as formats
from scrapers.sources.runpod._formats import Listing, Quote
from scrapers.units import per_card_hour

GRAPHQL_PATH = "/graphql"
GPU_TYPES_QUERY = """query GpuTypes {
  gpuTypes {
    id
    displayName
    memoryInGb
    secureCloud
    communityCloud
    securePrice
    communityPrice
    secureSpotPrice
    communitySpotPrice
    oneWeekPrice
    oneMonthPrice
    threeMonthPrice
    sixMonthPrice
  }
}"""
USD_QUANTUM = Decimal("0.0001")


class RunpodAdapter(Adapter):
    name = "runpod"
    currency = "USD"

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        url = f"{base_url.rstrip('/')}{GRAPHQL_PATH}"
        return [Request(url, method="POST", json_body={"query": GPU_TYPES_QUERY})]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        listings = self._api(body, url) if looks_like_json(body) else self._page(body, url)
        items = [Item(where, read, excerpt_of(raw)) for where, raw, read in listings]
        return Page(url, naive_utc(fetched_at), items)

    def rows(self, item: Item, page: Page) -> list[OfferRow]:
        return [self._row(page.observed_at, quote) for quote in item.data()]

    def generation(self, body: bytes, url: str) -> str:
        """Which RunPod format ``body`` is, told as :meth:`parse` tells it (by content)."""
        if looks_like_json(body):
            return "GraphQL gpuTypes answer (JSON)"
        try:
            tree = load_html(body, url)
        except ParseError:
            return "neither JSON nor HTML"
        if tree.css_first("script#__NEXT_DATA__") is not None:
            return "2023 pricing page (Next.js __NEXT_DATA__)"
        if formats.is_webflow(tree):
            return "2025 pricing page (Webflow gpu-pricing-row)"
        return "2026 pricing page (schema.org JSON-LD), or no RunPod page"

    def _api(self, body: bytes, url: str) -> list[Listing]:
        """A GraphQL answer, or the ``data.gpuTypes`` list a client saved of one."""
        doc = load_json(body, url)
        if isinstance(doc, list):
            if doc and all(formats.is_gpu_type(item) for item in doc):
                return formats.gpu_type_listings(doc)
            raise ParseError(f"{url}: a JSON list, but not of RunPod GPU types")
        if not isinstance(doc, dict):
            raise ParseError(f"{url}: not a RunPod API answer (a JSON {type(doc).__name__})")
        if doc.get("errors"):
            raise ParseError(f"{url}: RunPod's API answered with errors: {_messages(doc)}")
        data = doc.get("data")
        if not isinstance(data, dict) or "gpuTypes" not in data:
            raise ParseError(f"{url}: not a RunPod gpuTypes answer (no data.gpuTypes)")
        gpu_types = data["gpuTypes"]
        if not isinstance(gpu_types, list):
            raise ParseError(f"{url}: data.gpuTypes is not a list")
        return formats.gpu_type_listings(gpu_types)

    def _page(self, body: bytes, url: str) -> list[Listing]:
        """A pricing page: its Next.js data, else its Webflow rows, else its JSON-LD."""
        tree = load_html(body, url)
        script = tree.css_first("script#__NEXT_DATA__")
        if script is not None:
            raw = script.text(deep=True, strip=True)
            gpu_types = formats.gpu_types_in(
                load_json(raw.encode("utf-8"), f"{url}: __NEXT_DATA__")
            )
            if gpu_types:
                return formats.gpu_type_listings(gpu_types)
        if formats.is_webflow(tree):
            return formats.webflow_listings(tree, url)
        products = formats.runpod_products(tree, url)
        if products:
            return formats.jsonld_listings(products)
        if tree.css_first(f".{formats.ROW}") is not None:
            raise ParseError(
                f"{url}: .{formats.ROW} without .{formats.PRICE_WRAPPER} / "
                f".{formats.MODEL}: a pricing-row layout this parser does not know"
            )
        raise ParseError(
            f"{url}: not a RunPod pricing page: no GPU types in __NEXT_DATA__, no "
            f".{formats.ROW} rows and no JSON-LD Product named '<card> GPU on Runpod'"
        )

    def _row(self, observed: datetime, quote: Quote) -> OfferRow:
        """One row of a price per GPU-hour."""
        card = quote.card
        try:
            listed = quote.price.quantize(USD_QUANTUM, ROUND_HALF_UP)
            list_price = (
                None
                if quote.list_price is None
                else quote.list_price.quantize(USD_QUANTUM, ROUND_HALF_UP)
            )
            unit, native = per_card_hour(listed, quote.currency, 1, 1, "card")
        except ArithmeticError:  # decimal.InvalidOperation: a garbled, absurdly long number
            raise ParseError(
                f"price {quote.price} of {card.name} ({quote.offer}) is out of range"
            ) from None
        mark = "$" if quote.currency == "USD" else quote.currency
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=f"{card.name}/{quote.offer}",
            gpu=card.gpu,
            gpu_name_raw=card.name,
            gpu_count=1,
            vram_gb=card.vram,
            billing=quote.billing,
            price=listed,
            currency=quote.currency,
            unit=unit,
            unit_raw=f"{mark}/hr per GPU ({quote.field})",
            per_card_hour=native,
            list_price=list_price,
            discount_label=quote.label,
            cpu_cores=card.vcpu,
            ram_gb=card.ram,
        )


def _messages(doc: dict[str, Any]) -> str:
    errors = doc["errors"]
    items = errors if isinstance(errors, list) else [errors]
    texts = [str(e.get("message") or e) if isinstance(e, dict) else str(e) for e in items]
    return "; ".join(texts)
