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

from collections.abc import Iterator
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from scrapers.gpu_names import canonical_gpu, nominal_vram_gb
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import OfferRow, ParseError, Row, SpotQuoteRow
from scrapers.sources._json import load_json
from scrapers.sources._models import (
    Amount,
    Count,
    Flag,
    OptionalText,
    PositiveAmount,
    Record,
    Text,
    Whole,
)
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter
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
PER_CARD_QUANTUM = Decimal("0.000001")  # the warehouse's CNY per card-hour scale
# dph_total is computed from dph_base in floating point: allow its rounding.
FLOAT_SLACK = Decimal("0.000001")
FLOOR_BASIS = "vast.ai interruptible min_bid floor"
NO_LOCATION = "unknown"


class Offer(Record):
    """One offer of the search answer (the fields vast.ai's CLI and gpuhunt read)."""

    id: Whole
    gpu_name: Text
    num_gpus: Count
    gpu_ram: PositiveAmount  # MiB per card
    dph_total: PositiveAmount  # USD per hour for the whole offer, storage included
    dph_base: PositiveAmount
    rentable: Flag | None = None
    geolocation: OptionalText = None
    cpu_cores_effective: Amount | None = None
    cpu_ram: Amount | None = None  # MiB
    disk_space: Amount | None = None  # GB
    min_bid: Amount | None = None  # USD per hour for the whole offer


def _offers(doc: Any, url: str) -> list[Any]:
    """The list of offers of an answer: ``{"offers": [...]}`` or the CLI's bare list."""
    if isinstance(doc, list):
        return doc
    if not isinstance(doc, dict):
        raise ParseError(f"{url}: not a vast.ai answer (a JSON {type(doc).__name__})")
    if doc.get("success") is False or "offers" not in doc:
        detail = doc.get("msg") or doc.get("error") or f"keys {sorted(doc)}"
        raise ParseError(f"{url}: vast.ai answered without offers: {detail}")
    offers = doc["offers"]
    if not isinstance(offers, list):
        raise ParseError(f"{url}: 'offers' is not a list: {type(offers).__name__}")
    return offers


class VastaiAdapter(Adapter):
    name = "vastai"
    kind = "offers+quotes"
    currency = "USD"

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{SEARCH_PATH}", method="POST", json_body=QUERY)]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        offers = _offers(load_json(body, url), url)
        items = [Item(f"offer {n}", raw, excerpt_of(raw)) for n, raw in enumerate(offers, 1)]
        return Page(url, naive_utc(fetched_at), items)

    def rows(self, item: Item, page: Page) -> Iterator[Row]:
        """The offer's hourly row, and its ``min_bid`` as a candidate for the floor of its
        card and place (:meth:`finish` keeps the lowest)."""
        offer = Offer.model_validate(item.data)
        if offer.dph_total + FLOAT_SLACK < offer.dph_base:
            raise ParseError(
                f"dph_total {offer.dph_total} is below dph_base {offer.dph_base}: "
                "the fields changed meaning"
            )
        vram = nominal_vram_gb(offer.gpu_name, float(offer.gpu_ram))
        gpu = canonical_gpu(offer.gpu_name, vram)
        price = offer.dph_total.quantize(USD_QUANTUM, ROUND_HALF_UP)
        # dph_total is the whole offer's price: all its GPUs, by the hour.
        unit, usd_per_card = per_card_hour(price, "USD", 1, offer.num_gpus, "machine")
        yield OfferRow(
            observed_at=page.observed_at,
            source=self.name,
            offer_id=str(offer.id),
            gpu=gpu,
            gpu_name_raw=offer.gpu_name,
            gpu_count=offer.num_gpus,
            vram_gb=vram,
            billing="hourly",
            price=price,
            currency="USD",
            unit=unit,
            unit_raw="$/hr (dph_total)",
            per_card_hour=usd_per_card,
            list_price=price,
            region=offer.geolocation,
            cpu_cores=_whole(offer.cpu_cores_effective),
            ram_gb=None if offer.cpu_ram is None else round(offer.cpu_ram / 1024),
            disk_gb=_whole(offer.disk_space),
            stock=0 if offer.rentable is False else None,
        )
        bid = _bid(offer)
        if bid is not None:
            floor, per_card = bid
            yield SpotQuoteRow(
                observed_at=page.observed_at,
                source=self.name,
                gpu=gpu,
                # One vast.ai name can cover two sizes (A100 SXM4 40 / 80 GB).
                gpu_name_raw=f"{offer.gpu_name} {vram}GB",
                region=offer.geolocation or NO_LOCATION,
                basis=FLOOR_BASIS,
                price=floor,
                unit_raw=f"$/hr for {offer.num_gpus} GPU(s) (min_bid of offer {offer.id})",
                per_card_hour=per_card,
                currency="USD",
                quote_kind="interruptible_floor",
            )

    def finish(self, rows: list[Row], page: Page) -> list[Row]:
        """The offers, then per card, memory size and location the lowest ``min_bid`` per
        card-hour (fewer cards first when two are equal)."""
        floors: dict[tuple[str, str, str], SpotQuoteRow] = {}
        for quote in (row for row in rows if isinstance(row, SpotQuoteRow)):
            key = (quote.gpu, quote.gpu_name_raw, quote.region)
            if key not in floors or (quote.per_card_hour, quote.price) < (
                floors[key].per_card_hour,
                floors[key].price,
            ):
                floors[key] = quote
        offers = [row for row in rows if isinstance(row, OfferRow)]
        return [*offers, *(floors[key] for key in sorted(floors))]


def _bid(offer: Offer) -> tuple[Decimal, Decimal] | None:
    """The offer's ``min_bid`` as listed and per card-hour, when someone can bid on it now.
    Per card from the bid as listed, not from the rounded price: 0.9333 for two cards
    (0.46665) would beat 0.4667 for one, both 0.466667 as listed."""
    if offer.min_bid is None or offer.rentable is False:
        return None
    listed = offer.min_bid.quantize(USD_QUANTUM, ROUND_HALF_UP)
    if listed <= 0:
        return None
    _, per_card = per_card_hour(offer.min_bid, "USD", 1, offer.num_gpus, "machine")
    return listed, per_card.quantize(PER_CARD_QUANTUM, ROUND_HALF_UP)  # no float noise


def _whole(value: Decimal | None) -> int | None:
    return None if value is None else int(value.to_integral_value())
