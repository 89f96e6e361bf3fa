"""PPIO 派欧云: GPU instance products, one card each, priced in 1/100000 yuan; needs an API key.

``GET /gpu-instance/openapi/v1/products?available=true`` with ``Authorization: Bearer <key>``,
as SkyPilot's catalog fetcher sends it. One row per product and region (``offer_id``
"<id>/<region>"): ``hourly`` from ``price``, ``spot`` from ``spotPrice`` where
``billingMethods`` lists spot; products that cannot be bought or are campaign products are
skipped, as SkyPilot does; ``monthlyPrice`` is not read. A price in another scale is left to
the load's plausibility check (``warehouse.ingest.drift``), as every source's is. The answer
is modelled on SkyPilot's fetcher and Novita's OpenAPI: docs/SOURCES.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources._json import load_json
from scrapers.sources._models import Amount, Flag, PositiveAmount, Record, Text, Whole
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter, SecretSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

PRODUCTS_PATH = "/gpu-instance/openapi/v1/products?available=true"
SCALE = Decimal(100000)  # price units per yuan


class Product(Record):
    id: Text
    name: Text
    price: PositiveAmount  # 1/100000 yuan per card-hour
    spotPrice: Amount | None = None  # read only where billingMethods lists spot
    billingMethods: list[str] | None = None
    regions: list[str]
    cpuPerGpu: Whole
    memoryPerGpu: Whole
    canBuy: Flag | None = None
    activityProduct: Flag | None = None
    availableDeploy: Flag | None = None


class PpioAdapter(Adapter):
    name = "ppio"
    secret = SecretSpec(
        env="GPUPRICE_PPIO_API_KEY", header="Authorization", what="API key", template="Bearer {}"
    )

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{PRODUCTS_PATH}")]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        doc = load_json(body, url)
        products = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(products, list):
            if isinstance(doc, dict) and (
                message := doc.get("message") or doc.get("reason") or doc.get("msg")
            ):
                raise ParseError(f"{url}: PPIO answered code {doc.get('code')!r}: {message!r}")
            raise ParseError(f"{url}: answer has no data list")
        items = [Item(f"product {n}", raw, excerpt_of(raw)) for n, raw in enumerate(products, 1)]
        return Page(url, naive_utc(fetched_at), items)

    def rows(self, item: Item, page: Page) -> Iterator[OfferRow]:
        product = Product.model_validate(item.data)
        if product.canBuy is False or product.activityProduct is True:
            return
        prices: list[tuple[Billing, Decimal]] = [("hourly", product.price / SCALE)]
        if "spot" in (product.billingMethods or []):
            if not product.spotPrice:
                raise ParseError("billingMethods lists spot but spotPrice is missing or 0")
            prices.append(("spot", product.spotPrice / SCALE))
        stock = 0 if product.availableDeploy is False else None
        for region in product.regions or [None]:
            for billing, price in prices:
                yield self._row(page.observed_at, product, region, billing, price, stock)

    def _row(
        self,
        observed: datetime,
        product: Product,
        region: str | None,
        billing: Billing,
        price: Decimal,
        stock: int | None,
    ) -> OfferRow:
        unit, per_card = per_card_hour(price, "CNY", 1, 1, "card")
        field_name = "spotPrice" if billing == "spot" else "price"
        parts = [
            product.id,
            *([region] if region else []),
            *(["spot"] if billing == "spot" else []),
        ]
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id="/".join(parts),
            gpu=canonical_gpu(product.name),
            gpu_name_raw=product.name,
            gpu_count=1,
            vram_gb=None,
            billing=billing,
            price=price,
            currency="CNY",
            unit=unit,
            unit_raw=f"元/卡时 ({field_name} ÷ 100000)",
            per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
            list_price=price if billing != "spot" else None,
            region=region,
            cpu_cores=product.cpuPerGpu,
            ram_gb=product.memoryPerGpu,
            stock=stock,
        )
