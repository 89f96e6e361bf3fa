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

from collections.abc import Iterator
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import load_json
from scrapers.sources._models import Amount, Count, Record, Text, Whole
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

POOLS_PATH = "/api/machine_pools?machine_category=0&page=1&per_page=100"
MILLICENTS_PER_YUAN = Decimal(100000)
PRICE_QUANTUM = Decimal("0.0001")
MB_PER_GB = 1024  # gpuRamMB / ramMB count MiB, as nvidia-smi does


class _Total(Record):
    total: Count


class _Cpu(Record):
    total: Whole | None = None


class _Gpu(Record):
    gpuRamMB: Amount | None = None


class _Resources(Record):
    ramMB: Amount | None = None
    diskGB: Whole | None = None


class _Hardware(Record):
    gpu: _Gpu
    machine: _Resources | None = None
    priceMillicent: Count
    discountPriceMillicent: Count | None = None


class _Machine(Record):
    hardware: _Hardware
    gpu: _Total
    unit: _Total
    cpu: _Cpu | None = None


class Pool(Record):
    resource_pool_id: int | Text
    gpu_model: Text
    domain: Whole
    machine: _Machine
    max_available_units: Whole | None = None


def _yuan(millicents: int) -> Decimal:
    return (Decimal(millicents) / MILLICENTS_PER_YUAN).quantize(PRICE_QUANTUM, ROUND_HALF_UP)


def _gb(mib: Decimal | None) -> int | None:
    return None if mib is None else int((mib / MB_PER_GB).to_integral_value(ROUND_HALF_UP))


class MatpoolAdapter(Adapter):
    name = "matpool"  # the market inventory is public: no secret

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [f"{base_url.rstrip('/')}{POOLS_PATH}"]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        doc = load_json(body, url)
        code = doc.get("code", 0) if isinstance(doc, dict) else None
        if code != 0 or "pools" not in doc:
            msg = (doc.get("msg") or doc.get("err_msg")) if isinstance(doc, dict) else None
            raise ParseError(f"{url}: no market pools in the answer (code {code!r}: {msg!r})")
        if not isinstance(doc["pools"], list):
            raise ParseError(f"{url}: 'pools' is not a list")
        items = [Item(f"pool {n}", raw, excerpt_of(raw)) for n, raw in enumerate(doc["pools"], 1)]
        return Page(url, naive_utc(fetched_at), items)

    def rows(self, item: Item, page: Page) -> Iterator[OfferRow]:
        pool = Pool.model_validate(item.data)
        machine, hardware = pool.machine, pool.machine.hardware
        cards, units = machine.gpu.total, machine.unit.total
        if cards % units:
            raise ParseError(f"a 份 is {cards}/{units} of the machine's cards, not a whole number")
        per_unit = cards // units
        listed = hardware.priceMillicent
        paid = hardware.discountPriceMillicent or listed
        if paid > listed:
            raise ParseError(f"discountPriceMillicent {paid} is above priceMillicent {listed}")
        unit, per_card = per_card_hour(
            Decimal(paid) / MILLICENTS_PER_YUAN, "CNY", 1, per_unit, "machine"
        )  # the price covers one 份 of per_unit cards for an hour
        cpu_total = machine.cpu.total if machine.cpu else None
        resources = hardware.machine or _Resources()
        vram = _gb(hardware.gpu.gpuRamMB)
        yield OfferRow(
            observed_at=page.observed_at,
            source=self.name,
            offer_id=str(pool.resource_pool_id),
            gpu=canonical_gpu(pool.gpu_model, vram),
            gpu_name_raw=pool.gpu_model,
            gpu_count=per_unit,
            vram_gb=vram,
            billing="hourly",
            price=_yuan(paid),
            currency="CNY",
            unit=unit,
            unit_raw="元/小时/份 (discountPriceMillicent ÷ 100000)",
            per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
            list_price=_yuan(listed),
            region=f"domain {pool.domain}",
            # the machine's cores shared out per 份, when they divide evenly
            cpu_cores=None if cpu_total is None or cpu_total % units else cpu_total // units,
            ram_gb=_gb(resources.ramMB),
            disk_gb=resources.diskGB,
            stock=pool.max_available_units,
        )
