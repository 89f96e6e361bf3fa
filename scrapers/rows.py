"""Row types every source adapter produces and the warehouse loads.

Parsers are pure: ``parse(body, url, fetched_at) -> list[OfferRow] | list[SpotQuoteRow]``.
A page that cannot be parsed *completely* raises :class:`ParseError`; a page never
yields some good rows plus some junk.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

import msgspec
import msgspec.structs

Billing = Literal["hourly", "monthly", "bare_metal_monthly", "spot"]
BILLING_MODES: tuple[str, ...] = ("hourly", "monthly", "bare_metal_monthly", "spot")

UNKNOWN_GPU = "unknown"

# A month of full use, as the seeds count it (seed 003 §六: "一个月满负荷是 720 小时").
HOURS_PER_MONTH = 720


class ParseError(ValueError):
    """The page's layout or content is not what the parser knows; zero rows are taken from it."""


# Rows are msgspec Structs, not dataclasses: a parser builds one per price, and a Struct is
# built in C, about a tenth of what a frozen dataclass's ``__init__`` costs (~0.15 µs against
# ~1.4 µs for OfferRow: a fifth of RunPod's whole page, docs/PERFORMANCE.md). Frozen (hashable,
# immutable) as before. ``gc=False``: the collector never tracks them, which is safe because
# every field holds an immutable scalar (str, int, Decimal, datetime, bool, None) and so no row
# can be part of a reference cycle (tests/scrapers/test_rows.py checks the annotations). Copy
# with a change: ``msgspec.structs.replace(row, ...)``.
class OfferRow(msgspec.Struct, frozen=True, gc=False):
    """One listing in one billing mode, as observed on one page.

    ``price`` and ``unit_raw`` are exactly what the page shows; ``unit`` is the
    normalised unit (``CNY/card-hour``, ``CNY/server-month`` ...) and
    ``cny_per_card_hour`` the price converted to CNY per card-hour.
    ``observed_at`` is naive UTC.
    """

    observed_at: datetime
    source: str
    offer_id: str
    gpu: str
    gpu_name_raw: str
    gpu_count: int
    vram_gb: int | None
    billing: Billing
    price: Decimal
    currency: str
    unit: str
    unit_raw: str
    cny_per_card_hour: Decimal
    list_price: Decimal | None = None
    stated_discount: Decimal | None = None
    discount_label: str | None = None
    region: str | None = None
    cpu_cores: int | None = None
    ram_gb: int | None = None
    disk_gb: int | None = None
    interconnect: str | None = None
    stock: int | None = None
    simulated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


# What a quote is: a market average (SMM's 整机包月均价), or the floor of an interruptible
# (spot) market (vast.ai's lowest ``min_bid`` per card and location). Only market averages are
# what listings are compared with in ``market_premium``.
QUOTE_KINDS: tuple[str, ...] = ("market_average", "interruptible_floor")


class SpotQuoteRow(msgspec.Struct, frozen=True, gc=False):
    """A market quote (not a listing), e.g. SMM's monthly-average CNY per card-hour by region.

    ``price`` is in ``currency`` as the source gives it; ``cny_per_card_hour`` is converted.
    """

    observed_at: datetime
    source: str
    gpu: str
    gpu_name_raw: str
    region: str
    basis: str
    price: Decimal
    unit_raw: str
    cny_per_card_hour: Decimal
    simulated: bool = False
    currency: str = "CNY"
    quote_kind: str = "market_average"

    def to_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


Row = OfferRow | SpotQuoteRow
