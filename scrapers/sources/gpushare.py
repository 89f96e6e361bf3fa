"""恒源云 gpushare: the 云市场 machine list, priced per card in CNY; needs a login token.

``GET /app/api/market/machine/list`` (first page, 50 machines) with ``Authorization: Bearer
<token>`` and the store page's ``Origin`` / ``Referer``. One row per machine and ``skuList``
entry, ``offer_id`` "<id>/<skuName>", ``stock`` = free cards. The field names and the sku
``payg`` are real (public monitor scripts); the prepaid sku names, the price per card and the
error envelope are modelled, and an unknown ``skuName`` is a parse error naming it. The
evidence: docs/SOURCES.md.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlencode

from scrapers.gpu_names import canonical_gpu
from scrapers.request import Request
from scrapers.rows import (
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    HOURS_PER_YEAR,
    Billing,
    OfferRow,
    ParseError,
)
from scrapers.sources._json import data_list, field, integer, load_json, number, obj, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Kind, SecretSpec
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
# A price per card-hour outside this range is a price in another scale (fen, 1/1000 yuan),
# not a card: the cheapest cards rent for ~¥0.5/时, an H100 for ~¥20/时.
PLAUSIBLE_CNY_PER_CARD_HOUR = (Decimal("0.05"), Decimal("100"))
SUCCESS_CODES = (0, 200, "0", "200", "OK", "ok", "success", "Success")


class GpushareAdapter:
    name = "gpushare"
    kind: Kind = "offers"
    currency = "CNY"
    secret = SecretSpec(
        env="GPUPRICE_GPUSHARE_TOKEN",
        header="Authorization",
        what="login token",
        template="Bearer {}",
    )
    key_pair = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        url = f"{base_url.rstrip('/')}{LIST_PATH}?{urlencode(QUERY)}"
        return [Request(url, headers=HEADERS)]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        doc = obj(load_json(body, url), f"{url}: answer")
        code = doc.get("code")
        if code is not None and code not in SUCCESS_CODES:
            message = doc.get("msg") or doc.get("message")
            raise ParseError(f"{url}: 恒源云 answered code {code!r}: {message!r}")
        machines = data_list(doc, url)
        observed = naive_utc(fetched_at)
        rows: list[OfferRow] = []
        seen: set[str] = set()
        for n, raw in enumerate(machines, 1):
            machine = obj(raw, f"{url}: machine {n}")
            machine_id = str(field(machine, "id", f"{url}: machine {n}"))
            what = f"{url}: machine {machine_id}"
            if machine_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(machine_id)
            gpu_name = text(obj(field(machine, "baseInfo", what), f"{what}: baseInfo"),
                            "gpuName", f"{what}: baseInfo")  # fmt: skip
            cards = integer(field(machine, "gpuNum", what), f"{what}: gpuNum", minimum=1)
            used = integer(machine.get("gpuUsed", 0), f"{what}: gpuUsed")
            free = 0 if machine.get("isOnline") is False else max(cards - used, 0)
            skus = field(machine, "skuList", what)
            if not isinstance(skus, list) or not skus:
                raise ParseError(f"{what}: skuList is not a non-empty list")
            for raw_sku in skus:
                sku = obj(raw_sku, f"{what}: sku")
                sku_name = text(sku, "skuName", f"{what}: sku")
                if sku_name not in SKUS:
                    raise ParseError(
                        f"{what}: unknown skuName {sku_name!r} (known: {', '.join(SKUS)})"
                    )
                billing, hours, unit_raw = SKUS[sku_name]
                price = number(field(sku, "price", f"{what}: sku {sku_name}"),
                               f"{what}: sku {sku_name} price")  # fmt: skip
                unit, per_card = per_card_hour(price, "CNY", hours, 1, "card")
                low, high = PLAUSIBLE_CNY_PER_CARD_HOUR
                if not low <= per_card <= high:
                    raise ParseError(
                        f"{what}: sku {sku_name} price {price} is ¥{per_card:.4f} per card-hour,"
                        f" outside ¥{low}–{high}: not yuan per card (another price scale?)"
                    )
                rows.append(
                    OfferRow(
                        observed_at=observed,
                        source=self.name,
                        offer_id=f"{machine_id}/{sku_name}",
                        gpu=canonical_gpu(gpu_name),
                        gpu_name_raw=gpu_name,
                        gpu_count=1,
                        vram_gb=None,
                        billing=billing,
                        price=price,
                        currency="CNY",
                        unit=unit,
                        unit_raw=f"{unit_raw} (skuName {sku_name})",
                        per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
                        list_price=price,
                        stock=free,
                    )
                )
        return rows
