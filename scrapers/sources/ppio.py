"""PPIO 派欧云: GPU instance products, one card each, priced in 1/100000 yuan; needs an API key.

``GET /gpu-instance/openapi/v1/products?available=true`` with ``Authorization: Bearer <key>``,
as SkyPilot's catalog fetcher sends it. One row per product and region (``offer_id``
"<id>/<region>"): ``hourly`` from ``price``, ``spot`` from ``spotPrice`` where
``billingMethods`` lists spot; products that cannot be bought or are campaign products are
skipped, as SkyPilot does; ``monthlyPrice`` is not read. The answer is modelled on SkyPilot's
fetcher and Novita's OpenAPI: docs/SOURCES.md.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from scrapers.gpu_names import canonical_gpu
from scrapers.request import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources._json import field, integer, load_json, number, obj, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Kind, SecretSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

PRODUCTS_PATH = "/gpu-instance/openapi/v1/products?available=true"
SCALE = Decimal(100000)  # price units per yuan
# ¥ per card-hour; a price outside is in another scale (already in yuan, or in fen).
PLAUSIBLE_CNY_PER_CARD_HOUR = (Decimal("0.05"), Decimal("100"))


class PpioAdapter:
    name = "ppio"
    kind: Kind = "offers"
    currency = "CNY"
    secret = SecretSpec(
        env="GPUPRICE_PPIO_API_KEY", header="Authorization", what="API key", template="Bearer {}"
    )
    key_pair = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{PRODUCTS_PATH}")]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        doc = obj(load_json(body, url), f"{url}: answer")
        products = doc.get("data")
        if not isinstance(products, list):
            message = doc.get("message") or doc.get("reason") or doc.get("msg")
            if message or "code" in doc:
                raise ParseError(f"{url}: PPIO answered code {doc.get('code')!r}: {message!r}")
            raise ParseError(f"{url}: answer has no data list")
        observed = naive_utc(fetched_at)
        rows: list[OfferRow] = []
        seen: set[str] = set()
        for n, raw in enumerate(products, 1):
            product = obj(raw, f"{url}: product {n}")
            product_id = text(product, "id", f"{url}: product {n}")
            what = f"{url}: product {product_id}"
            if product_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(product_id)
            if product.get("canBuy") is False or product.get("activityProduct") is True:
                continue
            gpu_name = text(product, "name", what)
            prices: list[tuple[Billing, Decimal]] = [
                ("hourly", self._price(field(product, "price", what), f"{what}: price"))
            ]
            methods = product.get("billingMethods") or []
            if "spot" in methods:
                prices.append(
                    ("spot", self._price(field(product, "spotPrice", what), f"{what}: spotPrice"))
                )
            regions = field(product, "regions", what)
            if not isinstance(regions, list) or not all(isinstance(r, str) for r in regions):
                raise ParseError(f"{what}: regions is not a list of names")
            cores = integer(field(product, "cpuPerGpu", what), f"{what}: cpuPerGpu")
            ram = integer(field(product, "memoryPerGpu", what), f"{what}: memoryPerGpu")
            stock = 0 if product.get("availableDeploy") is False else None
            for region in regions or [None]:
                for billing, price in prices:
                    rows.append(
                        self._row(
                            observed,
                            product_id,
                            region,
                            gpu_name,
                            billing,
                            price,
                            cores,
                            ram,
                            stock,
                        )  # fmt: skip
                    )
        return rows

    @staticmethod
    def _price(raw: Any, what: str) -> Decimal:
        price = number(raw, what) / SCALE
        low, high = PLAUSIBLE_CNY_PER_CARD_HOUR
        if not low <= price <= high:
            raise ParseError(
                f"{what}: {raw!r} ÷ 100000 = ¥{price} per card-hour, outside ¥{low}–{high}:"
                " not in 1/100000 yuan (another price scale?)"
            )
        return price

    def _row(
        self,
        observed: datetime,
        product_id: str,
        region: str | None,
        gpu_name: str,
        billing: Billing,
        price: Decimal,
        cores: int,
        ram: int,
        stock: int | None,
    ) -> OfferRow:
        unit, per_card = per_card_hour(price, "CNY", 1, 1, "card")
        field_name = "spotPrice" if billing == "spot" else "price"
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id="/".join(
                [
                    product_id,
                    *([region] if region else []),
                    *(["spot"] if billing == "spot" else []),
                ]
            ),
            gpu=canonical_gpu(gpu_name),
            gpu_name_raw=gpu_name,
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
            cpu_cores=cores,
            ram_gb=ram,
            stock=stock,
        )
