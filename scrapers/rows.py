"""Row types every source adapter produces and the warehouse loads.

Parsers are pure: ``parse(body, url, fetched_at) -> list[OfferRow] | list[SpotQuoteRow]``.
A page that cannot be parsed *completely* raises :class:`ParseError`; a page never
yields some good rows plus some junk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, asdict, dataclass, fields
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

Billing = Literal["hourly", "monthly", "bare_metal_monthly", "spot"]
BILLING_MODES: tuple[str, ...] = ("hourly", "monthly", "bare_metal_monthly", "spot")

UNKNOWN_GPU = "unknown"

# A month of full use, as the seeds count it (seed 003 §六: "一个月满负荷是 720 小时").
HOURS_PER_MONTH = 720


class ParseError(ValueError):
    """The page's layout or content is not what the parser knows; zero rows are taken from it."""


# init=False: the ``__init__`` is :func:`_slot_setting_init`'s, set below (the same signature).
@dataclass(frozen=True, slots=True, init=False)
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


def _slot_setting_init(cls: type) -> Callable[..., None]:
    """The ``__init__`` ``dataclass`` writes for the frozen, slotted ``cls`` (same parameters,
    defaults and annotations), but storing each field through its slot's own setter, bound
    once here: the generated one looks ``object.__setattr__`` up for every field, and a
    parser builds a row per price, so this halves what a row costs. Written with ``exec``
    from the fields, as ``dataclass`` itself writes it, so that it follows any change to them
    (tests/scrapers/test_parser_speedups_equivalence.py checks that the two agree)."""
    found = fields(cls)
    assert all(f.default_factory is MISSING for f in found)  # none: not handled here
    scope = {f"_set_{f.name}": cls.__dict__[f.name].__set__ for f in found}
    scope |= {f"_default_{f.name}": f.default for f in found if f.default is not MISSING}
    params = ", ".join(
        f.name if f.default is MISSING else f"{f.name}=_default_{f.name}" for f in found
    )
    body = "".join(f"\n    _set_{f.name}(self, {f.name})" for f in found)
    made: dict[str, Any] = {}
    exec(f"def __init__(self, {params}):{body}", scope, made)  # the fields are ours, not input
    init = made["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {f.name: f.type for f in found} | {"return": None}
    return init


OfferRow.__init__ = _slot_setting_init(OfferRow)  # type: ignore[method-assign]


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
