"""Row types every source adapter produces and the warehouse loads.

A row checks itself when it is built (``__post_init__``, as gpuhunt's ``CatalogItem`` does):
finite, positive and plausible prices and counts, a known billing mode and price tier. One
that is not raises :class:`InvalidRow`, so no invalid row exists to be loaded; the shared
parse path (:mod:`scrapers.parse`) turns that into a rejected listing, and the rest of the
page is kept.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
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


# The tier a price was listed at: the public list price, a promotional or current price (a
# 现价 beside a struck-out 原价, an activity price; its dates where the page states them), or
# a member tier (a VIP or 会员 price, named as listed). The public pays "list" or "promo" (one
# of the two per listing); metrics, alerts and the dashboard read those, the member tiers
# are kept beside them.
Tier = Literal["list", "promo", "member"]
TIERS: tuple[str, ...] = ("list", "promo", "member")
PUBLIC_TIERS: tuple[str, ...] = ("list", "promo")


class ParseError(ValueError):
    """The page's layout or content is not what the parser knows; zero rows are taken from it
    (raised while reading one listing: that listing only)."""


class InvalidRow(ParseError):
    """A row that would be junk (a price of 0, a count of -1): it is never built."""


class NoPrice(ParseError):
    """A listing that publishes no price ("面议", "Contact sales", "sold out", a dash): it is
    rejected and reported like any other, but it says nothing about the parser, so it does
    not count towards the share of rejected listings that fails a page
    (scrapers.parse.page_failure)."""


# Frozen: a row is a fact observed on a page; copy one with a change with
# ``dataclasses.replace(row, ...)``.
@dataclass(frozen=True, slots=True)
class OfferRow:
    """One listing in one billing mode, as observed on one page.

    ``price`` and ``unit_raw`` are exactly what the page shows; ``unit`` is the
    normalised unit (``USD/card-hour``, ``CNY/server-month`` ...) and ``per_card_hour``
    the same price per card-hour, still in the listed ``currency``: no money is converted
    here (the warehouse converts to CNY at load, at the rate of the observation's day).
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
    per_card_hour: Decimal  # in ``currency``, not converted
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
    tier: Tier = "list"
    tier_name: str | None = None  # the tier's label as listed: "现价", "VIP1 会员价"
    tier_from: date | None = None  # a promotion's dates, where the page states them
    tier_to: date | None = None

    def __post_init__(self) -> None:
        _refuse(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# What a quote is: a market average (SMM's 整机包月均价), or the floor of an interruptible
# (spot) market (vast.ai's lowest ``min_bid`` per card and location). Only market averages are
# what listings are compared with in ``market_premium``.
QUOTE_KINDS: tuple[str, ...] = ("market_average", "interruptible_floor")


@dataclass(frozen=True, slots=True)
class SpotQuoteRow:
    """A market quote (not a listing), e.g. SMM's monthly-average CNY per card-hour by region.

    ``price`` is in ``currency`` as the source gives it, and ``per_card_hour`` is that price
    per card-hour, in ``currency`` too (the warehouse converts at load).
    """

    observed_at: datetime
    source: str
    gpu: str
    gpu_name_raw: str
    region: str
    basis: str
    price: Decimal
    unit_raw: str
    per_card_hour: Decimal  # in ``currency``, not converted
    simulated: bool = False
    currency: str = "CNY"
    quote_kind: str = "market_average"

    def __post_init__(self) -> None:
        _refuse(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Row = OfferRow | SpotQuoteRow


# -- what a row must be ----------------------------------------------------------------------

# The warehouse keeps listed prices to 4 decimals (DECIMAL(14, 4)) and prices per card-hour
# to 6 (DECIMAL(18, 6)), each > 0: a value that rounds to 0 there is no price. The same
# limits hold for a per-card-hour figure in any currency.
PRICE_QUANTUM = Decimal("0.0001")
PER_CARD_HOUR_QUANTUM = Decimal("0.000001")
CNY_PER_CARD_HOUR_QUANTUM = PER_CARD_HOUR_QUANTUM
# The same ceiling as the load's validation (warehouse.ingest.load): ten million a listing
# (a year of an 8-card H100 server is about 1.4 million yuan).
MAX_PRICE = Decimal(10_000_000)
# No rented machine or cluster listing has more cards; 10^400 is a garbled page.
MAX_GPU_COUNT = 1024
# Cores, GB of memory or disk, units in stock: ten million is far past any real figure, and
# keeps every count inside the warehouse's INTEGER columns.
MAX_COUNT = 10_000_000


def _price_problem(name: str, value: object, quantum: Decimal) -> str | None:
    if isinstance(value, bool) or not isinstance(value, Decimal | int):
        return f"{name} {value!r} is not a number"
    value = Decimal(value)
    if not value.is_finite() or value <= 0:
        return f"{name} {value} is not a positive number"
    if value > MAX_PRICE:
        return f"{name} {value} is above the plausible {MAX_PRICE:,}"
    if value.quantize(quantum, ROUND_HALF_UP) == 0:
        return f"{name} {value} rounds to 0 at {quantum}"
    return None


def _count_problem(
    name: str, value: object, lowest: int, highest: int, *, optional: bool = True
) -> str | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{name} {value!r} is not a whole number"
    if not lowest <= value <= highest:
        return f"{name} {value} is outside the plausible {lowest}..{highest:,}"
    return None


def row_problem(row: Row) -> str | None:
    """What makes ``row`` implausible, or ``None`` for a row a parser may give."""
    problems = [
        _price_problem("price", row.price, PRICE_QUANTUM),
        _price_problem("per_card_hour", row.per_card_hour, PER_CARD_HOUR_QUANTUM),
    ]
    if isinstance(row, OfferRow):
        problems += [
            None if row.billing in BILLING_MODES else f"billing {row.billing!r} is unknown",
            _count_problem("gpu_count", row.gpu_count, 1, MAX_GPU_COUNT, optional=False),
            None
            if row.list_price is None
            else _price_problem("list_price", row.list_price, PRICE_QUANTUM),
            None
            if row.stated_discount is None
            or (row.stated_discount.is_finite() and 0 < row.stated_discount <= 1)
            else f"stated_discount {row.stated_discount} is not a ratio in (0, 1]",
            _tier_problem(row),
        ]
        for name in ("vram_gb", "cpu_cores", "ram_gb", "disk_gb", "stock"):
            problems.append(_count_problem(name, getattr(row, name), 0, MAX_COUNT))
    elif row.quote_kind not in QUOTE_KINDS:
        problems.append(f"quote_kind {row.quote_kind!r} is unknown")
    return next((p for p in problems if p), None)


def _tier_problem(row: OfferRow) -> str | None:
    if row.tier not in TIERS:
        return f"tier {row.tier!r} is not one of {', '.join(TIERS)}"
    if row.tier == "member" and not row.tier_name:
        return "a member tier without its name"
    if row.tier_from and row.tier_to and row.tier_from > row.tier_to:
        return f"the tier runs from {row.tier_from} to an earlier {row.tier_to}"
    return None


def _refuse(row: Row) -> None:
    """:class:`InvalidRow` when ``row`` is not plausible (:func:`row_problem`)."""
    problem = row_problem(row)
    if problem:
        name = getattr(row, "offer_id", None) or row.gpu_name_raw
        raise InvalidRow(f"{name}: {problem}")
