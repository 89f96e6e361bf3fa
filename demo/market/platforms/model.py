"""What every simulated platform of the demo market shares: its own price walk per card, its
stock-outs and its layout-change days. Pure and deterministic from ``(seed, platform, day)``.

* **Price level**: every platform lists each card at its own anchor price (stated, with its
  evidence, where the platform is defined) and moves it by its own step changes: a ratio to
  the anchor walks from 1 on the anchor day by 5–15 % cuts and rises (the walk of
  :mod:`demo.market.prices`, biased back towards the anchor) at gaps the platform
  chooses: a marketplace of hosts re-prices every few days, a cloud's list price every month
  or two. So the same card differs across platforms, and each platform's line steps on its
  own days.
* **Stock-outs**: on a few days an offer has nothing free (``sold_out``).
* **Layout changes**: on a few days (when that day is asked for) a platform serves its answer in a changed shape (a field
  renamed, a price in another unit) that its adapter refuses or the drift detector rejects.
  The first one is at least 20 days from the anchor day, then every 45–110 days; each lasts
  one day (a broken deploy, rolled back), so the next day's snapshot is healthy again.

A platform's walks are built on first use (about a millisecond per card), so the market
starts without computing any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache

from demo.market.prices import (
    _N_DAYS,
    ANCHOR_DAY,
    FIRST_DAY,
    LAST_DAY,
    _quantize,
    _rng,
    _step,
    _unit_hash,
)

__all__ = ["Ctx", "layout_change_days", "ratio", "sold_out"]

RATIO_QUANTUM = Decimal("0.001")
ONE = Decimal(1)
FIRST_LAYOUT_CHANGE = (20, 60)  # days from the anchor day, either way
LAYOUT_CHANGE_GAP = (45, 110)


@lru_cache(maxsize=256)
def _ratio_walk(seed: int, series: str, gaps: tuple[int, int]) -> tuple[Decimal, ...]:
    """The ratio to the anchor price for every day FIRST_DAY..LAST_DAY, 1 on ANCHOR_DAY."""
    values = [ONE] * _N_DAYS
    anchor_index = (ANCHOR_DAY - FIRST_DAY).days
    for direction, stride in (("fwd", 1), ("bwd", -1)):
        rng = _rng(seed, series, direction)
        next_event = anchor_index + stride * rng.randint(*gaps)
        i = anchor_index + stride
        while 0 <= i < _N_DAYS:
            value = values[i - stride]
            if i == next_event:
                value = _step(value, ONE, RATIO_QUANTUM, rng)
                next_event += stride * rng.randint(*gaps)
            values[i] = value
            i += stride
    return tuple(values)


def ratio(seed: int, platform: str, series: str, day: date, gaps: tuple[int, int]) -> Decimal:
    """The platform's price of ``series`` on ``day`` as a ratio to its anchor-day price."""
    return _ratio_walk(seed, f"platform:{platform}:{series}", gaps)[(day - FIRST_DAY).days]


def sold_out(seed: int, platform: str, key: str, day: date, share: float = 0.07) -> bool:
    """Whether the offer ``key`` has nothing free on ``day`` (about ``share`` of days)."""
    return _unit_hash(seed, "platform-stock", platform, key, day.isoformat()) < share


@lru_cache(maxsize=64)
def layout_change_days(seed: int, platform: str) -> frozenset[date]:
    """The days on which ``platform`` serves a changed layout (see the module docstring)."""
    days: set[date] = set()
    for direction, stride in (("fwd", 1), ("bwd", -1)):
        rng = _rng(seed, f"layout:{platform}", direction)
        offset = stride * rng.randint(*FIRST_LAYOUT_CHANGE)
        while True:
            day = date.fromordinal(ANCHOR_DAY.toordinal() + offset)
            if not FIRST_DAY <= day <= LAST_DAY:
                break
            days.add(day)
            offset += stride * rng.randint(*LAYOUT_CHANGE_GAP)
    return frozenset(days)


@dataclass(frozen=True, slots=True)
class Ctx:
    """One platform on one day: what every answer of the platform is computed from.

    ``moment`` is the (Beijing) time the answer is of: the as_of day at 10:00, or the current
    hour. ``gaps`` are the platform's days between step changes. ``dated``: the day was asked
    for (``?as_of=``, as a backfill asks). Only then does a layout-change day serve its changed
    layout: today's answers never do, so whether a run succeeds does not depend on the date
    it runs (a CI run, a new user's first `make up`), while the history a backfill fills holds
    every layout change for the drift detector to catch."""

    seed: int
    platform: str
    moment: datetime
    gaps: tuple[int, int]
    dated: bool = False

    @property
    def day(self) -> date:
        return self.moment.date()

    @property
    def layout_changed(self) -> bool:
        return self.dated and self.day in layout_change_days(self.seed, self.platform)

    def price(self, series: str, anchor: Decimal, quantum: Decimal) -> Decimal:
        """``anchor`` (the anchor-day price) moved by the platform's walk for ``series``."""
        moved = _quantize(anchor * ratio(self.seed, self.platform, series, self.day, self.gaps),
                          quantum)  # fmt: skip
        return max(moved, quantum)

    def sold_out(self, key: str, share: float = 0.07) -> bool:
        return sold_out(self.seed, self.platform, key, self.day, share)

    def unit(self, *parts: object) -> float:
        """A uniform number in [0, 1) fixed by the platform, the day and ``parts``."""
        return _unit_hash(self.seed, "platform-day", self.platform, self.day.isoformat(), *parts)
