"""One item per period: a capture a week, a catalog version a day, a tracker row a month.

The archive's own ``collapse`` is not relied on (it collapses adjacent rows of one URL by a
prefix of a field, and its answers vary); the client keeps, per period, the oldest items
first, with a few spares to try when the first one fails (a 404, a page that is not a
pricing page)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from typing import Literal, TypeVar, get_args

__all__ = ["EVERY", "Every", "one_per_period", "period_of"]

Every = Literal["day", "week", "month"]
EVERY: tuple[str, ...] = get_args(Every)
# Tried in a period after its first item failed, before the period is left empty.
SPARES = 2

T = TypeVar("T")


def period_of(moment: datetime | date, every: Every) -> date:
    """The first day of the period ``moment`` falls in: the day, the Monday of its ISO
    week, the first of its month."""
    day = moment.date() if isinstance(moment, datetime) else moment
    if every == "day":
        return day
    if every == "week":
        return day - timedelta(days=day.weekday())
    if every == "month":
        return day.replace(day=1)
    raise ValueError(f"every must be one of {', '.join(EVERY)}, got {every!r}")


def one_per_period(
    items: Iterable[T],
    when: Callable[[T], datetime],
    every: Every,
    *,
    spares: int = SPARES,
    skip: Iterable[date] = (),
) -> list[list[T]]:
    """Per period, oldest period first: the period's items oldest first, at most
    ``1 + spares`` of them (the first to try, then its spares). Periods in ``skip`` (already
    covered by an earlier import) are left out."""
    done = set(skip)
    periods: dict[date, list[T]] = {}
    for item in sorted(items, key=when):
        period = period_of(when(item), every)
        if period in done:
            continue
        chosen = periods.setdefault(period, [])
        if len(chosen) <= spares:
            chosen.append(item)
    return [periods[p] for p in sorted(periods)]
