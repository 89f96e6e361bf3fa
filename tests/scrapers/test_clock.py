"""The one clock (scrapers.clock): which dates a price may carry, the same for every loader."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from scrapers.clock import SKEW, WAYBACK_START, Window, keep_dated, refusal

NOW = datetime(2026, 9, 4, 2, 30)


@dataclass(frozen=True)
class Dated:
    at: datetime


def test_a_date_within_the_skew_of_now_is_accepted_and_one_past_it_is_not() -> None:
    assert refusal(NOW + SKEW, now=NOW) is None
    assert refusal(NOW - timedelta(days=3000), now=NOW) is None
    why = refusal(NOW + SKEW + timedelta(seconds=1), now=NOW)
    assert why is not None and "after now (2026-09-04 02:30 UTC)" in why
    assert "after now" in (refusal(datetime(9999, 12, 31, 23, 59), now=NOW) or "")


def test_a_live_page_may_not_carry_a_date_after_its_fetch() -> None:
    fetched = NOW - timedelta(hours=5)
    why = refusal(NOW, now=NOW, fetched_at=fetched)
    assert why is not None and "after the page was fetched (2026-09-03 21:30 UTC)" in why
    assert refusal(fetched + SKEW, now=NOW, fetched_at=fetched) is None


def test_a_history_page_dated_ahead_is_judged_by_the_real_clock() -> None:
    """A capture's page carries its capture time as ``fetched_at``: a check against that
    alone passes by construction, so now is what counts."""
    ahead = datetime(2099, 1, 1)
    why = refusal(ahead, now=NOW, fetched_at=ahead)
    assert why is not None and "after now" in why


def test_the_window_asked_for_bounds_both_ends() -> None:
    window = Window.of_days(date(2025, 1, 1), date(2025, 12, 31))
    assert refusal(datetime(2025, 12, 31, 23, 59, 59), now=NOW, window=window) is None
    before = refusal(datetime(1999, 1, 1), now=NOW, window=window)
    after = refusal(datetime(2026, 1, 1), now=NOW, window=window)
    assert before is not None and "before the window asked for (2025-01-01 .. 2025-12-31)" in before
    assert after is not None and "after the window asked for" in after
    archive = Window.of_days(None, date(2025, 12, 31)).within(WAYBACK_START)
    assert "before the window" in (refusal(datetime(1995, 6, 1), now=NOW, window=archive) or "")


def test_keep_dated_refuses_row_by_row_and_names_the_worst() -> None:
    rows = [Dated(NOW), Dated(datetime(2099, 12, 31, 2)), Dated(NOW - timedelta(days=1)),
            Dated(datetime(2030, 1, 1))]  # fmt: skip
    kept, problem = keep_dated(rows, lambda r: r.at, now=NOW)
    assert kept == [rows[0], rows[2]]
    assert problem is not None and problem.startswith("2 of 4 row(s) refused: dated 2099-12-31")
    assert keep_dated(rows[:1], lambda r: r.at, now=NOW) == ([rows[0]], None)
