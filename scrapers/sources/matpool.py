"""矩池云 (matpool / matgo.cn) public machine market: GPU resource pools rented per 份 by the
hour, in CNY. No token.

``GET /api/machine_pools?machine_category=0&page=1&per_page=100`` (page 1 only). One
``hourly`` row per pool, ``offer_id`` = ``resource_pool_id``: the price paid
(``discountPriceMillicent``) beside the list price (``priceMillicent``), per 份 per hour in
1/100000 yuan. A 份 is ``gpu.total / unit.total`` cards; one that is not whole cards is a parse
error, as is a non-zero ``code``. Prepaid modes are not read. The field names come from public
clients (no saved answer exists): docs/SOURCES.md.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from scrapers.gpu_names import canonical_gpu
from scrapers.request import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import field, integer, load_json, number, obj, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Kind
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

POOLS_PATH = "/api/machine_pools?machine_category=0&page=1&per_page=100"
MILLICENTS_PER_YUAN = Decimal(100000)
PRICE_QUANTUM = Decimal("0.0001")
MB_PER_GB = 1024  # gpuRamMB / ramMB count MiB, as nvidia-smi does


def _yuan(millicents: int) -> Decimal:
    return (Decimal(millicents) / MILLICENTS_PER_YUAN).quantize(PRICE_QUANTUM, ROUND_HALF_UP)


def _optional_int(record: dict[str, Any], key: str, what: str) -> int | None:
    value = record.get(key)
    return None if value is None else integer(value, f"{what}: {key}")


def _gb_of_mb(record: dict[str, Any], key: str, what: str) -> int | None:
    value = record.get(key)
    if value is None:
        return None
    return int((number(value, f"{what}: {key}") / MB_PER_GB).to_integral_value(ROUND_HALF_UP))


class MatpoolAdapter:
    name = "matpool"
    kind: Kind = "offers"
    currency = "CNY"
    secret = None  # the market inventory is public
    key_pair = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [f"{base_url.rstrip('/')}{POOLS_PATH}"]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        doc = obj(load_json(body, url), f"{url}: answer")
        code = doc.get("code", 0)
        if code != 0 or "pools" not in doc:
            msg = doc.get("msg") or doc.get("err_msg")
            raise ParseError(f"{url}: no market pools in the answer (code {code!r}: {msg!r})")
        pools = doc["pools"]
        if not isinstance(pools, list):
            raise ParseError(f"{url}: 'pools' is not a list")
        observed = naive_utc(fetched_at)
        rows = []
        seen: set[str] = set()
        for n, raw in enumerate(pools, 1):
            pool = obj(raw, f"{url}: pool {n}")
            pool_id = str(field(pool, "resource_pool_id", f"{url}: pool {n}"))
            what = f"{url}: pool {pool_id}"
            if pool_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(pool_id)
            rows.append(self._row(pool, pool_id, what, observed))
        return rows

    def _row(self, pool: dict[str, Any], pool_id: str, what: str, observed: datetime) -> OfferRow:
        gpu_name = text(pool, "gpu_model", what)
        domain = integer(field(pool, "domain", what), f"{what}: domain")
        machine = obj(field(pool, "machine", what), f"{what}: machine")
        hardware = obj(field(machine, "hardware", what), f"{what}: machine.hardware")
        gpu_info = obj(field(hardware, "gpu", what), f"{what}: hardware.gpu")
        resources = obj(hardware.get("machine") or {}, f"{what}: hardware.machine")

        cards = integer(
            field(obj(field(machine, "gpu", what), f"{what}: machine.gpu"), "total", what),
            f"{what}: machine.gpu.total",
            minimum=1,
        )
        units = integer(
            field(obj(field(machine, "unit", what), f"{what}: machine.unit"), "total", what),
            f"{what}: machine.unit.total",
            minimum=1,
        )
        if cards % units:
            raise ParseError(
                f"{what}: a 份 is {cards}/{units} of the machine's cards, not a whole number"
            )
        per_unit = cards // units

        listed = integer(
            field(hardware, "priceMillicent", what), f"{what}: priceMillicent", minimum=1
        )
        paid = listed
        if hardware.get("discountPriceMillicent") is not None:
            paid = integer(
                hardware["discountPriceMillicent"], f"{what}: discountPriceMillicent", minimum=1
            )
            if paid > listed:
                raise ParseError(
                    f"{what}: discountPriceMillicent {paid} is above priceMillicent {listed}"
                )
        price = _yuan(paid)
        unit, per_card = per_card_hour(
            Decimal(paid) / MILLICENTS_PER_YUAN, "CNY", 1, per_unit, "machine"
        )  # the price covers one 份 of per_unit cards for an hour

        cpu = obj(machine.get("cpu") or {}, f"{what}: machine.cpu")
        cpu_total = _optional_int(cpu, "total", f"{what}: machine.cpu")
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=pool_id,
            gpu=canonical_gpu(gpu_name, _gb_of_mb(gpu_info, "gpuRamMB", what)),
            gpu_name_raw=gpu_name,
            gpu_count=per_unit,
            vram_gb=_gb_of_mb(gpu_info, "gpuRamMB", what),
            billing="hourly",
            price=price,
            currency="CNY",
            unit=unit,
            unit_raw="元/小时/份 (discountPriceMillicent ÷ 100000)",
            per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
            list_price=_yuan(listed),
            region=f"domain {domain}",
            # the machine's cores shared out per 份, when they divide evenly
            cpu_cores=None if cpu_total is None or cpu_total % units else cpu_total // units,
            ram_gb=_gb_of_mb(resources, "ramMB", what),
            disk_gb=_optional_int(resources, "diskGB", f"{what}: hardware.machine"),
            stock=_optional_int(pool, "max_available_units", what),
        )
