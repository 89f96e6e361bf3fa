"""RunPod: GPU pods per GPU-hour in USD (→ CNY), from RunPod's public GraphQL API.

**Live request**: ``POST https://api.runpod.io/graphql`` with ``{"query": GPU_TYPES_QUERY}``
(below), the endpoint and ``gpuTypes`` fields that public clients query: dstack's gpuhunt
(``src/gpuhunt/providers/runpod.py``: ``securePrice``, ``communityPrice``,
``oneMonthPrice`` / ``threeMonthPrice`` / ``sixMonthPrice``, ``secureCloud`` /
``communityCloud``), SkyPilot's ``sky/catalog/data_fetchers/fetch_runpod.py`` and RunPod's own
SDK (``runpod/api/queries/gpus.py``: the spot prices, ``oneWeekPrice``). **No API key**: the
``gpuTypes`` query is public; gpuhunt and other trackers post it without one (SkyPilot and the
SDK send a key because the rest of their API needs it), so the source declares no secret. The
configured ``live_url`` is the API's host (https://api.runpod.io); the request goes to
``<live_url>/graphql``.

The answer is ``{"data": {"gpuTypes": [...]}}``; ``{"errors": [{"message": ...}]}`` (with or
without data) is a parse error carrying RunPod's messages. A saved ``data.gpuTypes`` list alone
parses too.

**Saved pages** parse as well (``gpuprice parse runpod FILE``); the format is decided by the
content, never by the URL (:mod:`scrapers.sources._runpod_formats`): the 2023 Next.js page's
``__NEXT_DATA__`` (the same GPU types), the 2025 Webflow pricing rows (``data-*-cloud-price``
attributes), the 2026 schema.org JSON-LD. Real captures of each: ``tests/fixtures/real/runpod/``.

Rows, one card each, ``gpu_count`` 1, ``offer_id`` "<card>/<offer>":

* ``<card>/Secure Cloud`` and ``<card>/Community Cloud``: ``hourly``, the on-demand price;
* ``<card>/Secure Cloud spot``, ``<card>/Community Cloud spot``: ``spot`` (interruptible,
  ``secureSpotPrice`` / ``communitySpotPrice``);
* ``<card>/Secure Cloud 1-month commitment`` (and 3-, 6-month: ``oneMonthPrice``,
  ``threeMonthPrice``, ``sixMonthPrice``): ``monthly``; ``1-week commitment``
  (``oneWeekPrice``): ``weekly``. RunPod's savings plans are paid up front for the term and
  quoted per GPU-hour, so ``price`` is that per-hour price (as the project's ``monthly``
  rows always are), ``list_price`` the Secure Cloud on-demand price, ``discount_label`` the
  term.

A price of 0 or null, or a cloud whose flag (``secureCloud`` / ``communityCloud``) is false,
means the card is not offered that way: no row, not an error; a card with no price at all
gives no row. A body with no price at all is an error. ``lowestPrice`` (the cheapest of the
clouds, with no cloud named) and ``clusterPrice`` give no rows. ``observed_at`` = fetch time.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from scrapers.fx import FxRates
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources import _runpod_formats as formats
from scrapers.sources._json import load_json, looks_like_json
from scrapers.sources._limits import bounded
from scrapers.sources._page import load_html, naive_utc
from scrapers.sources._runpod_formats import Quote
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


class RunpodAdapter:
    name = "runpod"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers"
    currency = "USD"
    secret = None

    def __init__(self, fx: FxRates | None = None) -> None:
        self.fx = fx or FxRates()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        url = f"{base_url.rstrip('/')}{GRAPHQL_PATH}"
        return [Request(url, method="POST", json_body={"query": GPU_TYPES_QUERY})]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        quotes = self._api(body, url) if looks_like_json(body) else self._page(body, url)
        if not quotes:
            raise ParseError(
                f"{url}: no RunPod price in it (every price is 0, null or not offered)"
            )
        observed = naive_utc(fetched_at)
        rows = [self._row(observed, quote) for quote in quotes]
        listed = Counter(row.offer_id for row in rows)
        twice = sorted(key for key, times in listed.items() if times > 1)
        if twice:
            raise ParseError(f"{url}: the same card and offer listed twice: {twice}")
        return rows

    def _api(self, body: bytes, url: str) -> list[Quote]:
        """A GraphQL answer, or the ``data.gpuTypes`` list a client saved of one."""
        doc = load_json(body, url)
        if isinstance(doc, list):
            if doc and all(formats.is_gpu_type(item) for item in doc):
                return formats.from_gpu_types(doc, f"{url}: gpuTypes")
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
        return formats.from_gpu_types(gpu_types, f"{url}: gpuTypes")

    def _page(self, body: bytes, url: str) -> list[Quote]:
        """A pricing page: its Next.js data, else its Webflow rows, else its JSON-LD."""
        tree = load_html(body, url)
        script = tree.css_first("script#__NEXT_DATA__")
        if script is not None:
            raw = script.text(deep=True, strip=True)
            gpu_types = formats.gpu_types_in(
                load_json(raw.encode("utf-8"), f"{url}: __NEXT_DATA__")
            )
            if gpu_types:
                return formats.from_gpu_types(gpu_types, f"{url}: __NEXT_DATA__")
        if formats.is_webflow(tree):
            return formats.from_webflow(tree, url)
        products = formats.runpod_products(tree, url)
        if products:
            return formats.from_jsonld(products, url)
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
            cny = self.fx.to_cny(native, quote.currency, observed.date())
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
            cny_per_card_hour=cny,
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
