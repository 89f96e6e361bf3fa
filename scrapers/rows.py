"""Row types every source adapter produces and the warehouse loads.

Parsers are pure: ``parse(body, url, fetched_at) -> list[OfferRow] | list[SpotQuoteRow]``.
A page that cannot be parsed *completely* raises :class:`ParseError`; a page never
yields some good rows plus some junk.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

# daily / weekly / yearly: prepaid terms some sites list beside hourly and monthly (包日, 包周,
# 包年, "1-week commitment"); each is a price for that whole period.
Billing = Literal["hourly", "daily", "weekly", "monthly", "yearly", "bare_metal_monthly", "spot"]
BILLING_MODES: tuple[str, ...] = (
    "hourly", "daily", "weekly", "monthly", "yearly", "bare_metal_monthly", "spot",
)  # fmt: skip

UNKNOWN_GPU = "unknown"

# A month of full use, as the seeds count it (seed 003 §六: "一个月满负荷是 720 小时").
HOURS_PER_MONTH = 720
HOURS_PER_WEEK = 168
HOURS_PER_YEAR = 8760  # 365 days of full use


class ParseError(ValueError):
    """The page's layout or content is not what the parser knows; zero rows are taken from it."""


# Frozen: a row is a fact observed on a page; copy one with a change with
# ``dataclasses.replace(row, ...)``.
@dataclass(frozen=True, slots=True)
class OfferRow:
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
        return asdict(self)


# What a quote is: a market average (SMM's 整机包月均价), or the floor of an interruptible
# (spot) market (vast.ai's lowest ``min_bid`` per card and location). Only market averages are
# what listings are compared with in ``market_premium``.
QUOTE_KINDS: tuple[str, ...] = ("market_average", "interruptible_floor")


@dataclass(frozen=True, slots=True)
class SpotQuoteRow:
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
        return asdict(self)


Row = OfferRow | SpotQuoteRow
