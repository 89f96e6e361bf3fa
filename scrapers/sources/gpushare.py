"""恒源云 gpushare: the 云市场 machine list, priced per card in CNY; needs a login token.

``GET /app/api/market/machine/list`` (first page, 50 machines) with ``Authorization: Bearer
<token>`` and the store page's ``Origin`` / ``Referer``. One row per machine and ``skuList``
entry, ``offer_id`` "<id>/<skuName>", ``stock`` = free cards. The field names and the sku
``payg`` are real (public monitor scripts); the prepaid sku names, the price per card and the
error envelope are modelled, and an unknown ``skuName`` is a parse error naming it. The
evidence: docs/SOURCES.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from decimal import ROUND_HALF_UP
from typing import Any
from urllib.parse import urlencode

from pydantic import Field

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import (
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    HOURS_PER_YEAR,
    Billing,
    OfferRow,
    ParseError,
)
from scrapers.sources._json import load_json
from scrapers.sources._models import Count, Flag, PositiveAmount, Record, Text, Whole
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter, SecretSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

LIST_PATH = "/app/api/market/machine/list"
QUERY = {"models": -1, "gpuName": "", "priceOrder": "asc", "pn": 1, "ps": 50}
# The scripts send the store's origin; the API is the store page's own backend.
HEADERS = (("Origin", "https://www.gpushare.com"), ("Referer", "https://www.gpushare.com/store"))
# skuName -> billing mode and the hours its price covers. "payg" is seen in public clients;
# the prepaid terms' names are modelled (恒源云 sells 包日/包周/包月).
SKUS: dict[str, tuple[Billing, int, str]] = {
    "payg": ("hourly", 1, "元/卡时"),
    "day": ("daily", 24, "元/卡/天"),
    "week": ("weekly", HOURS_PER_WEEK, "元/卡/周"),
    "month": ("monthly", HOURS_PER_MONTH, "元/卡/月"),
    "year": ("yearly", HOURS_PER_YEAR, "元/卡/年"),
}
SUCCESS_CODES = (0, 200, "0", "200", "OK", "ok", "success", "Success")


class Sku(Record):
    skuName: Text
    price: PositiveAmount  # yuan per card for the sku's term


class BaseInfo(Record):
    gpuName: Text


class Machine(Record):
    id: int | Text
    baseInfo: BaseInfo
    gpuNum: Count
    gpuUsed: Whole = 0
    isOnline: Flag | None = None
    skuList: list[Sku] = Field(min_length=1)


class _Data(Record):
    machines: list[Any] = Field(alias="list")


class Answer(Record):
    code: Any = None
    msg: Any = None
    message: Any = None
    data: _Data | None = None


class GpushareAdapter(Adapter):
    name = "gpushare"
    secret = SecretSpec(
        env="GPUPRICE_GPUSHARE_TOKEN",
        header="Authorization",
        what="login token",
        template="Bearer {}",
    )

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        url = f"{base_url.rstrip('/')}{LIST_PATH}?{urlencode(QUERY)}"
        return [Request(url, headers=HEADERS)]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        answer = Answer.model_validate(load_json(body, url))
        if answer.code is not None and answer.code not in SUCCESS_CODES:
            message = answer.msg or answer.message
            raise ParseError(f"{url}: 恒源云 answered code {answer.code!r}: {message!r}")
        if answer.data is None:
            raise ParseError(f"{url}: no data.list in the answer")
        items = [
            Item(f"machine {n}", raw, excerpt_of(raw))
            for n, raw in enumerate(answer.data.machines, 1)
        ]
        return Page(url, naive_utc(fetched_at), items)

    def rows(self, item: Item, page: Page) -> Iterator[OfferRow]:
        machine = Machine.model_validate(item.data)
        free = 0 if machine.isOnline is False else max(machine.gpuNum - machine.gpuUsed, 0)
        gpu_name = machine.baseInfo.gpuName
        for sku in machine.skuList:
            if sku.skuName not in SKUS:
                raise ParseError(f"unknown skuName {sku.skuName!r} (known: {', '.join(SKUS)})")
            billing, hours, unit_raw = SKUS[sku.skuName]
            unit, per_card = per_card_hour(sku.price, "CNY", hours, 1, "card")
            yield OfferRow(
                observed_at=page.observed_at,
                source=self.name,
                offer_id=f"{machine.id}/{sku.skuName}",
                gpu=canonical_gpu(gpu_name),
                gpu_name_raw=gpu_name,
                gpu_count=1,
                vram_gb=None,
                billing=billing,
                price=sku.price,
                currency="CNY",
                unit=unit,
                unit_raw=f"{unit_raw} (skuName {sku.skuName})",
                per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
                list_price=sku.price,
                stock=free,
            )
