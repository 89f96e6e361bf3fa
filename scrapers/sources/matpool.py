"""矩池云 (matpool) public machine pool: GPU machines rented per card by the hour, in CNY.

Request: ``GET https://matpool.com/api/machines?machine_category=0&page=1&per_page=100``.
Answer (the fields the site's machine market is known to use; the rest of the shape is
*modelled*, docs/SOURCES.md): ``{"machines": [...], "total": N}``; per machine ``agentId``,
``hardware.gpu.gpuName`` ("NVIDIA GeForce RTX 4090"), ``hardware.gpu.memory`` (GB, when
given), ``hardware.cpu.cores``, ``hardware.memory`` (GB), ``hardware.disk`` (GB),
``hardware.priceMillicent`` (the price per card-hour in millicents: ÷ 100000 = ¥; 220000 =
¥2.20/时), ``gpu.available`` / ``gpu.total`` and ``domain.name`` (区域, e.g. "1区"). An
error answer ``{"code": 176, "msg": "..."}`` is a parse error carrying the message.

One ``hourly`` row per machine, ``offer_id`` = ``agentId``, the price in yuan (the
millicent figure ÷ 100000, rounded to 4 decimals, the warehouse's scale), ``observed_at``
= fetch time.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import field, integer, load_json, number, obj, optional_text, text
from scrapers.sources._page import naive_utc
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

MACHINES_PATH = "/api/machines?machine_category=0&page=1&per_page=100"
MILLICENTS_PER_YUAN = Decimal(100000)
PRICE_QUANTUM = Decimal("0.0001")


def _optional_int(value: object, what: str) -> int | None:
    if value is None:
        return None
    return int(number(value, what, positive=False).to_integral_value())


class MatpoolAdapter:
    name = "matpool"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers"
    currency = "CNY"
    secret = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [f"{base_url.rstrip('/')}{MACHINES_PATH}"]

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        doc = obj(load_json(body, url), f"{url}: answer")
        if "machines" not in doc:
            code, msg = doc.get("code"), doc.get("msg") or doc.get("err_msg")
            raise ParseError(f"{url}: no 'machines' in the answer (code {code!r}: {msg!r})")
        machines = doc["machines"]
        if not isinstance(machines, list):
            raise ParseError(f"{url}: 'machines' is not a list")
        observed = naive_utc(fetched_at)
        rows = []
        seen: set[str] = set()
        for n, raw in enumerate(machines, 1):
            what = f"{url}: machine {n}"
            machine = obj(raw, what)
            agent = str(integer(field(machine, "agentId", what), f"{what}: agentId"))
            what = f"{url}: machine {agent}"
            if agent in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(agent)
            hardware = obj(field(machine, "hardware", what), f"{what}: hardware")
            gpu_info = obj(field(hardware, "gpu", what), f"{what}: hardware.gpu")
            gpu_name = text(gpu_info, "gpuName", f"{what}: hardware.gpu")
            vram = _optional_int(gpu_info.get("memory"), f"{what}: hardware.gpu.memory")
            millicents = integer(
                field(hardware, "priceMillicent", what), f"{what}: priceMillicent", minimum=1
            )
            exact = Decimal(millicents) / MILLICENTS_PER_YUAN
            price = exact.quantize(PRICE_QUANTUM, ROUND_HALF_UP)
            unit, per_card = per_card_hour(exact, "CNY", 1, 1, "card")  # priced per card-hour
            cpu = obj(hardware.get("cpu") or {}, f"{what}: hardware.cpu")
            cores = _optional_int(cpu.get("cores"), f"{what}: hardware.cpu.cores")
            pool = obj(machine.get("gpu") or {}, f"{what}: gpu")
            stock = _optional_int(pool.get("available"), f"{what}: gpu.available")
            domain = obj(machine.get("domain") or {}, f"{what}: domain")
            region = optional_text(domain, "name", f"{what}: domain")
            rows.append(
                OfferRow(
                    observed_at=observed,
                    source=self.name,
                    offer_id=agent,
                    gpu=canonical_gpu(gpu_name, vram),
                    gpu_name_raw=gpu_name,
                    gpu_count=1,
                    vram_gb=vram,
                    billing="hourly",
                    price=price,
                    currency="CNY",
                    unit=unit,
                    unit_raw="元/卡时 (priceMillicent ÷ 100000)",
                    cny_per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
                    list_price=price,
                    region=region,
                    cpu_cores=cores,
                    ram_gb=_optional_int(hardware.get("memory"), f"{what}: hardware.memory"),
                    disk_gb=_optional_int(hardware.get("disk"), f"{what}: hardware.disk"),
                    stock=stock,
                )
            )
        return rows
