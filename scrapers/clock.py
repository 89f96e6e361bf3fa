"""The one clock: whether a date a price carries is one the warehouse accepts.

Every loader asks :func:`refusal` (or :func:`keep_dated` for a page's rows): a live page's
rows, a backfill's, an archive capture's, a catalog version's, a tracker's row, an exchange
rate. A date is refused when it lies

- after *now* plus :data:`SKEW` (a clock a little off is no error; a page, capture, commit or
  file dated 2099 is), where *now* is the real clock, never a time the data brought along
  (a history page's ``fetched_at`` is its capture or commit time, so a check against it
  alone passes by construction); for a page fetched live, the fetch's own moment, which
  is earlier;
- outside the window the command asked for (``--from`` / ``--to``), or before the start of
  what the archive could hold (the Internet Archive began capturing in 1996).

Pure (``now`` may be handed in), so the archive code dates captures with it before it
fetches anything, and the warehouse's loaders refuse rows with the same function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TypeVar

__all__ = [
    "GIT_START",
    "SKEW",
    "WAYBACK_START",
    "Window",
    "keep_dated",
    "now_utc",
    "refusal",
]

# How far ahead of the clock a date may be: clocks differ a little, and a page may state its
# time in another zone's rounding. One page dated 2099-12-31 hid every other platform from
# the comparison page and stretched the trend range to 2099 (issue 31).
SKEW = timedelta(hours=1)
# What an archive could hold: the Internet Archive's first captures are from 1996, git's first
# commit from 2005-04-07. A CDX timestamp or a commit dated before is junk.
WAYBACK_START = datetime(1996, 1, 1)
GIT_START = datetime(2005, 4, 7)

T = TypeVar("T")


def now_utc() -> datetime:
    """Naive UTC, the warehouse's time convention."""
    return datetime.now(UTC).replace(tzinfo=None)


def _at(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


@dataclass(frozen=True, slots=True)
class Window:
    """The span a command asked for, both ends included (naive UTC); ``None``: open."""

    first: datetime | None = None
    last: datetime | None = None

    @classmethod
    def of_days(cls, first: date | None, last: date | None) -> Window:
        """From the start of ``first`` to the end of ``last``."""
        return cls(
            datetime.combine(first, time.min) if first else None,
            datetime.combine(last, time.max) if last else None,
        )

    def within(self, earliest: datetime) -> Window:
        """This window, starting no earlier than ``earliest`` (what the archive could hold)."""
        first = earliest if self.first is None else max(self.first, earliest)
        return Window(first, self.last)

    def describe(self) -> str:
        first = f"{self.first:%Y-%m-%d}" if self.first else "…"
        last = f"{self.last:%Y-%m-%d}" if self.last else "…"
        return f"{first} .. {last}"


def refusal(
    moment: datetime,
    *,
    now: datetime | None = None,
    fetched_at: datetime | None = None,
    window: Window | None = None,
) -> str | None:
    """Why a date is refused, or None when it is accepted. ``fetched_at``: the moment a live
    page was fetched (its rows may not be later, beyond :data:`SKEW`); ``window``: what the
    command asked for."""
    clock = now_utc() if now is None else now
    if fetched_at is not None and fetched_at <= clock and moment > fetched_at + SKEW:
        return (
            f"observed at {_at(moment)}, more than {_hours(SKEW)} after the page was fetched "
            f"({_at(fetched_at)}); the page's date is wrong"
        )
    if moment > clock + SKEW:
        return f"dated {_at(moment)}, more than {_hours(SKEW)} after now ({_at(clock)})"
    if window is not None and window.first is not None and moment < window.first:
        return f"dated {_at(moment)}, before the window asked for ({window.describe()})"
    if window is not None and window.last is not None and moment > window.last:
        return f"dated {_at(moment)}, after the window asked for ({window.describe()})"
    return None


def _hours(span: timedelta) -> str:
    return f"{span.total_seconds() / 3600:g} h"


def keep_dated(
    items: Sequence[T],
    when: Callable[[T], datetime],
    *,
    now: datetime | None = None,
    fetched_at: datetime | None = None,
    window: Window | None = None,
) -> tuple[list[T], str | None]:
    """``items`` whose date :func:`refusal` accepts, and what to say about the others: how
    many were refused and the reason of the one furthest off (one line), or None."""
    clock = now_utc() if now is None else now
    kept: list[T] = []
    refused: list[tuple[datetime, str]] = []
    for item in items:
        moment = when(item)
        reason = refusal(moment, now=clock, fetched_at=fetched_at, window=window)
        if reason is None:
            kept.append(item)
        else:
            refused.append((moment, reason))
    if not refused:
        return kept, None
    middle = window.first if window is not None and window.first is not None else clock
    _, worst = max(refused, key=lambda r: abs((r[0] - middle).total_seconds()))
    return kept, f"{len(refused)} of {len(items)} row(s) refused: {worst}"
