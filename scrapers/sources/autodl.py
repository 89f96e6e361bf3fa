"""AutoDL market: GPU machines rented per card, by the hour (按量) or prepaid by the day,
week, month or year, in CNY; needs a login token.

``POST /api/v1/machine/search`` with the market page's body and ``Authorization: <token>``
(no ``Bearer``). One row per machine and ``machine_sku_info`` entry: ``current_price`` in 厘
(1/1000 yuan) per card for the sku's period, ``origin_price`` the list price; ``offer_id`` =
``machine_id``, ``stock`` = idle cards. A ``code`` other than Success is a parse error carrying
AutoDL's message. The evidence (public clients; the answer is modelled): docs/SOURCES.md.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from scrapers.gpu_names import canonical_gpu
from scrapers.request import Request
from scrapers.rows import HOURS_PER_MONTH, HOURS_PER_WEEK, HOURS_PER_YEAR, OfferRow, ParseError
from scrapers.sources._json import data_list, field, integer, load_json, obj, optional_text, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Kind, SecretSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

SEARCH_PATH = "/api/v1/machine/search"
QUERY: dict[str, object] = {
    "charge_type": "payg",
    "region_sign_list": [],
    "gpu_type_name": [],
    "machine_tag_name": [],
    "gpu_idle_num": 0,  # machines with no idle card too: their prices are still listed
    "mount_net_disk": False,
    "instance_disk_size_order": "",
    "date_range": "",
    "date_from": "",
    "date_to": "",
    "page_index": 1,
    "page_size": 100,
    "pay_price_order": "",
    "gpu_idle_type": "",
    "default_order": True,
}
MILLI_PER_YUAN = Decimal(1000)
BYTES_PER_GIB = 1024**3
OK_CODES = ("Success", "OK")
# sku type -> (billing, hours of the period, unit as AutoDL states it)
SKU_TYPES: dict[str, tuple[Literal["hourly", "daily", "weekly", "monthly", "yearly"], int, str]] = {
    "payg": ("hourly", 1, "元/卡/时"),
    "daily": ("daily", 24, "元/卡/日"),
    "weekly": ("weekly", HOURS_PER_WEEK, "元/卡/周"),
    "monthly": ("monthly", HOURS_PER_MONTH, "元/卡/月"),
    "yearly": ("yearly", HOURS_PER_YEAR, "元/卡/年"),
}


def _gib(machine: dict[str, Any], key: str, what: str) -> int | None:
    value = machine.get(key)
    if value is None:
        return None
    return round(integer(value, f"{what}: {key}") / BYTES_PER_GIB)


def _optional_int(machine: dict[str, Any], key: str, what: str) -> int | None:
    value = machine.get(key)
    return None if value is None else integer(value, f"{what}: {key}")


class AutodlAdapter:
    name = "autodl"
    kind: Kind = "offers"
    currency = "CNY"
    secret = SecretSpec(env="GPUPRICE_AUTODL_TOKEN", header="Authorization", what="login token")
    key_pair = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{SEARCH_PATH}", method="POST", json_body=QUERY)]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        doc = obj(load_json(body, url), f"{url}: answer")
        code = doc.get("code")
        if code not in OK_CODES:
            raise ParseError(f"{url}: AutoDL answered {code!r}: {doc.get('msg')!r}")
        machines = data_list(doc, url)
        observed = naive_utc(fetched_at)
        rows: list[OfferRow] = []
        seen: set[str] = set()
        for n, raw in enumerate(machines, 1):
            machine = obj(raw, f"{url}: machine {n}")
            machine_id = text(machine, "machine_id", f"{url}: machine {n}")
            what = f"{url}: machine {machine_id}"
            if machine_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(machine_id)
            rows.extend(self._rows(machine, machine_id, what, observed))
        if machines and not rows:
            raise ParseError(f"{url}: no machine lists a price")
        return rows

    def _prices(self, machine: dict[str, Any], what: str) -> list[tuple[str, int, int]]:
        """(sku type, current price, list price) in 厘 per card for the sku's period."""
        if "machine_sku_info" not in machine:
            if machine.get("payg") is False:
                return []
            milli = integer(field(machine, "payg_price", what), f"{what}: payg_price", minimum=1)
            return [("payg", milli, milli)]
        skus = field(machine, "machine_sku_info", what)
        if not isinstance(skus, list):
            raise ParseError(f"{what}: machine_sku_info is not a list")
        prices = []
        for k, raw in enumerate(skus, 1):
            sku = obj(raw, f"{what}: machine_sku_info[{k}]")
            kind = text(sku, "type", f"{what}: machine_sku_info[{k}]")
            where = f"{what}: {kind} sku"
            if kind not in SKU_TYPES:
                raise ParseError(f"{where}: unknown sku type (known: {', '.join(SKU_TYPES)})")
            current = integer(field(sku, "current_price", where), f"{where}: current_price")
            if current == 0:
                continue  # not on offer at this term
            origin = integer(sku.get("origin_price") or 0, f"{where}: origin_price")
            if origin and origin < current:
                raise ParseError(f"{where}: origin_price {origin} is below current_price {current}")
            prices.append((kind, current, origin or current))
        return prices

    def _rows(
        self, machine: dict[str, Any], machine_id: str, what: str, observed: datetime
    ) -> list[OfferRow]:
        prices = self._prices(machine, what)
        if not prices:
            return []
        gpu_name = text(machine, "gpu_name", what)
        vram = _gib(machine, "gpu_memory", what)
        rows = []
        for kind, current, origin in prices:
            billing, hours, unit_raw = SKU_TYPES[kind]
            price = Decimal(current) / MILLI_PER_YUAN  # exact: three decimals at most
            unit, per_card = per_card_hour(price, "CNY", hours, 1, "card")
            rows.append(
                OfferRow(
                    observed_at=observed,
                    source=self.name,
                    offer_id=machine_id,
                    gpu=canonical_gpu(gpu_name, vram),
                    gpu_name_raw=gpu_name,
                    gpu_count=1,
                    vram_gb=vram,
                    billing=billing,
                    price=price,
                    currency="CNY",
                    unit=unit,
                    unit_raw=f"{unit_raw} ({kind} price in 厘 ÷ 1000)",
                    per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
                    list_price=Decimal(origin) / MILLI_PER_YUAN,
                    region=optional_text(machine, "region_name", what),
                    cpu_cores=_optional_int(machine, "cpu_per_gpu", what),
                    ram_gb=_gib(machine, "mem_per_gpu", what),
                    stock=_optional_int(machine, "gpu_idle_num", what),
                )
            )
        return rows
