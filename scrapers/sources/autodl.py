"""AutoDL market: GPU machines rented per card, by the hour (按量) or prepaid by the day,
week, month or year, in CNY; needs a login token.

``POST /api/v1/machine/search`` with the market page's body and ``Authorization: <token>``
(no ``Bearer``). One row per machine and ``machine_sku_info`` entry: ``current_price`` in 厘
(1/1000 yuan) per card for the sku's period, ``origin_price`` the list price; ``offer_id`` =
``machine_id``, ``stock`` = idle cards. A ``code`` other than Success is a parse error carrying
AutoDL's message. The evidence (public clients; the answer is modelled): docs/SOURCES.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from pydantic import Field

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import HOURS_PER_MONTH, HOURS_PER_WEEK, HOURS_PER_YEAR, OfferRow, ParseError
from scrapers.sources._json import load_json
from scrapers.sources._models import Flag, OptionalText, Record, Text, Whole
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter, SecretSpec
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


class Sku(Record):
    """One term a machine is priced at, in 厘 (1/1000 yuan) per card for the term."""

    type: str
    current_price: Whole
    origin_price: Whole | None = None


class Machine(Record):
    machine_id: Text
    gpu_name: Text
    gpu_memory: Whole | None = None  # bytes
    payg: Flag | None = None
    payg_price: Whole | None = None
    machine_sku_info: list[Sku] | None = None
    region_name: OptionalText = None
    cpu_per_gpu: Whole | None = None
    mem_per_gpu: Whole | None = None  # bytes
    gpu_idle_num: Whole | None = None


class _Data(Record):
    machines: list[Any] = Field(alias="list")


class Answer(Record):
    code: Any = None
    msg: Any = None
    data: _Data | None = None


def _gib(value: int | None) -> int | None:
    return None if value is None else round(value / BYTES_PER_GIB)


class AutodlAdapter(Adapter):
    name = "autodl"
    secret = SecretSpec(env="GPUPRICE_AUTODL_TOKEN", header="Authorization", what="login token")

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{SEARCH_PATH}", method="POST", json_body=QUERY)]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        answer = Answer.model_validate(load_json(body, url))
        if answer.code not in OK_CODES:
            raise ParseError(f"{url}: AutoDL answered {answer.code!r}: {answer.msg!r}")
        if answer.data is None:
            raise ParseError(f"{url}: no data.list in the answer")
        items = [
            Item(f"machine {n}", raw, excerpt_of(raw))
            for n, raw in enumerate(answer.data.machines, 1)
        ]
        return Page(url, naive_utc(fetched_at), items)

    def rows(self, item: Item, page: Page) -> Iterator[OfferRow]:
        machine = Machine.model_validate(item.data)
        vram = _gib(machine.gpu_memory)
        for kind, current, origin in _prices(machine):
            billing, hours, unit_raw = SKU_TYPES[kind]
            price = Decimal(current) / MILLI_PER_YUAN  # exact: three decimals at most
            unit, per_card = per_card_hour(price, "CNY", hours, 1, "card")
            yield OfferRow(
                observed_at=page.observed_at,
                source=self.name,
                offer_id=machine.machine_id,
                gpu=canonical_gpu(machine.gpu_name, vram),
                gpu_name_raw=machine.gpu_name,
                gpu_count=1,
                vram_gb=vram,
                billing=billing,
                price=price,
                currency="CNY",
                unit=unit,
                unit_raw=f"{unit_raw} ({kind} price in 厘 ÷ 1000)",
                per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
                list_price=Decimal(origin) / MILLI_PER_YUAN,
                region=machine.region_name,
                cpu_cores=machine.cpu_per_gpu,
                ram_gb=_gib(machine.mem_per_gpu),
                stock=machine.gpu_idle_num,
            )


def _prices(machine: Machine) -> list[tuple[str, int, int]]:
    """(sku type, current price, list price) in 厘 per card for the sku's period."""
    if machine.machine_sku_info is None:
        if machine.payg is False:
            return []
        if not machine.payg_price:
            raise ParseError("no machine_sku_info and no payg_price")
        return [("payg", machine.payg_price, machine.payg_price)]
    prices = []
    for sku in machine.machine_sku_info:
        if sku.type not in SKU_TYPES:
            raise ParseError(f"unknown sku type {sku.type!r} (known: {', '.join(SKU_TYPES)})")
        if sku.current_price == 0:
            continue  # not on offer at this term
        origin = sku.origin_price or sku.current_price
        if origin < sku.current_price:
            raise ParseError(
                f"{sku.type} sku: origin_price {origin} is below current_price {sku.current_price}"
            )
        prices.append((sku.type, sku.current_price, origin))
    return prices
