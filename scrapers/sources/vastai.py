"""vast.ai marketplace through its public offer search (``/api/v0/bundles/``), in USD.

``POST /api/v0/bundles/`` with :data:`QUERY` as the body and no API key, as vast.ai's CLI and
dstack's gpuhunt send it. Rows: one ``hourly`` offer per vast.ai offer at ``dph_total`` (what
the renter pays per hour for the whole offer), and per card, memory size and location one
``interruptible_floor`` spot quote, the lowest ``min_bid`` per card-hour among rentable offers.
An answer with ``"success": false`` or without ``offers`` is an error; an empty list gives no
rows. Each field, its evidence and the real captures (``tests/fixtures/real/vastai/``):
docs/SOURCES.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from scrapers.gpu_names import canonical_gpu, nominal_vram_gb
from scrapers.request import Request
from scrapers.rows import OfferRow, ParseError, Row, SpotQuoteRow
from scrapers.sources._json import (
    field,
    integer,
    load_json,
    number,
    obj,
    optional_number,
    optional_text,
    text,
)
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Kind
from scrapers.units import per_card_hour

SEARCH_PATH = "/api/v0/bundles/"
# The CLI's default filters (verified, rentable, not rented, not external), on-demand,
# cheapest first, for the cards the warehouse knows, with the CLI's default 5 GB of storage
# priced into dph_total.
QUERY: dict[str, object] = {
    "verified": {"eq": True},
    "external": {"eq": False},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "gpu_name": {
        "in": ["RTX 4090", "RTX 5090", "A100 PCIE", "A100 SXM4", "H100 PCIE", "H100 SXM",
               "H200", "L40S"]
    },
    "type": "on-demand",
    "order": [["dph_total", "asc"]],
    "limit": 1000,
    "allocated_storage": 5.0,
}  # fmt: skip

USD_QUANTUM = Decimal("0.0001")
# dph_total is computed from dph_base in floating point: allow its rounding.
FLOAT_SLACK = Decimal("0.000001")
FLOOR_BASIS = "vast.ai interruptible min_bid floor"
NO_LOCATION = "unknown"


def _offers(doc: Any, url: str) -> list[Any]:
    """The list of offers of an answer: ``{"offers": [...]}`` or the CLI's bare list."""
    if isinstance(doc, list):
        return doc
    doc = obj(doc, f"{url}: answer")
    if doc.get("success") is False or "offers" not in doc:
        detail = doc.get("msg") or doc.get("error") or f"keys {sorted(doc)}"
        raise ParseError(f"{url}: vast.ai answered without offers: {detail}")
    offers = doc["offers"]
    if not isinstance(offers, list):
        raise ParseError(f"{url}: 'offers' is not a list: {type(offers).__name__}")
    return offers


@dataclass(frozen=True, slots=True)
class _Offer:
    """One vast.ai offer as read from the answer, before it becomes rows."""

    offer_id: str
    gpu: str
    gpu_name: str
    gpus: int
    vram: int | None
    price: Decimal  # dph_total, the whole offer's USD per hour, to 4 decimals
    unit: str
    usd_per_card: Decimal
    rentable: bool | None
    region: str | None
    cores: Decimal | None
    ram_mib: Decimal | None
    disk: Decimal | None
    bid: Decimal | None


def _offer_id(offer: dict[str, Any], what: str) -> str:
    return str(integer(field(offer, "id", what), f"{what}: id"))


def _read_offer(offer: dict[str, Any], offer_id: str, what: str) -> _Offer:
    gpu_name = text(offer, "gpu_name", what)
    gpus = integer(field(offer, "num_gpus", what), f"{what}: num_gpus", minimum=1)
    vram_mib = number(field(offer, "gpu_ram", what), f"{what}: gpu_ram")
    vram = nominal_vram_gb(gpu_name, float(vram_mib))
    total = number(field(offer, "dph_total", what), f"{what}: dph_total")
    base = number(field(offer, "dph_base", what), f"{what}: dph_base")
    if total + FLOAT_SLACK < base:
        raise ParseError(
            f"{what}: dph_total {total} is below dph_base {base}: the fields changed meaning"
        )
    rentable = offer.get("rentable")
    if rentable is not None and not isinstance(rentable, bool):
        raise ParseError(f"{what}: rentable is not true or false: {rentable!r}")
    price = total.quantize(USD_QUANTUM, ROUND_HALF_UP)
    # dph_total is the whole offer's price: all its GPUs, by the hour.
    try:
        unit, usd_per_card = per_card_hour(price, "USD", 1, gpus, "machine")
    except ParseError as exc:
        raise ParseError(f"{what}: {exc}") from None
    return _Offer(
        offer_id=offer_id,
        gpu=canonical_gpu(gpu_name, vram),
        gpu_name=gpu_name,
        gpus=gpus,
        vram=vram,
        price=price,
        unit=unit,
        usd_per_card=usd_per_card,
        rentable=rentable,
        region=optional_text(offer, "geolocation", what),
        cores=optional_number(offer, "cpu_cores_effective", what),
        ram_mib=optional_number(offer, "cpu_ram", what),
        disk=optional_number(offer, "disk_space", what),
        bid=optional_number(offer, "min_bid", what),
    )


# (gpu, name, vram, region) -> (usd per card, cards, listed min_bid, offer id)
_FloorKey = tuple[str, str, int | None, str]
_Floor = tuple[Decimal, int, Decimal, str]


def _keep_floor(floors: dict[_FloorKey, _Floor], offer: _Offer) -> None:
    """Remember ``offer``'s ``min_bid`` when it is the lowest per card of its card and place."""
    if offer.bid is None or offer.rentable is False:
        return  # no floor, or one nobody can bid on now
    listed = offer.bid.quantize(USD_QUANTUM, ROUND_HALF_UP)
    if listed <= 0:
        return
    _, per_card = per_card_hour(listed, "USD", 1, offer.gpus, "machine")
    key = (offer.gpu, offer.gpu_name, offer.vram, offer.region or NO_LOCATION)
    if key not in floors or (per_card, offer.gpus) < floors[key][:2]:
        floors[key] = (per_card, offer.gpus, listed, offer.offer_id)


class VastaiAdapter:
    name = "vastai"
    kind: Kind = "offers+quotes"
    currency = "USD"
    secret = None
    key_pair = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{SEARCH_PATH}", method="POST", json_body=QUERY)]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        offers = _offers(load_json(body, url), url)
        observed = naive_utc(fetched_at)
        rows: list[Row] = []
        floors: dict[_FloorKey, _Floor] = {}
        seen: set[str] = set()
        for n, raw in enumerate(offers, 1):
            offer = obj(raw, f"{url}: offer {n}")
            offer_id = _offer_id(offer, f"{url}: offer {n}")
            what = f"{url}: offer {offer_id}"
            if offer_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(offer_id)
            read = _read_offer(offer, offer_id, what)
            rows.append(self._offer_row(observed, read))
            _keep_floor(floors, read)
        rows += [self._floor_row(observed, key, floor) for key, floor in sorted(floors.items())]
        return rows

    def _offer_row(self, observed: datetime, offer: _Offer) -> OfferRow:
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=offer.offer_id,
            gpu=offer.gpu,
            gpu_name_raw=offer.gpu_name,
            gpu_count=offer.gpus,
            vram_gb=offer.vram,
            billing="hourly",
            price=offer.price,
            currency="USD",
            unit=offer.unit,
            unit_raw="$/hr (dph_total)",
            per_card_hour=offer.usd_per_card,
            list_price=offer.price,
            region=offer.region,
            cpu_cores=None if offer.cores is None else int(offer.cores.to_integral_value()),
            ram_gb=None if offer.ram_mib is None else round(offer.ram_mib / 1024),
            disk_gb=None if offer.disk is None else int(offer.disk.to_integral_value()),
            stock=0 if offer.rentable is False else None,
        )

    def _floor_row(self, observed: datetime, key: _FloorKey, floor: _Floor) -> SpotQuoteRow:
        gpu, gpu_name, vram, region = key
        per_card, gpus, listed, offer_id = floor
        return SpotQuoteRow(
            observed_at=observed,
            source=self.name,
            gpu=gpu,
            # One vast.ai name can cover two sizes (A100 SXM4 40 / 80 GB).
            gpu_name_raw=f"{gpu_name} {vram}GB",
            region=region,
            basis=FLOOR_BASIS,
            price=listed,
            unit_raw=f"$/hr for {gpus} GPU(s) (min_bid of offer {offer_id})",
            per_card_hour=per_card,
            currency="USD",
            quote_kind="interruptible_floor",
        )
