"""Alerts that are events (issue 38): a watch rule's standing alerts are what one walk over
its whole line gives, whatever order a live run and a backfill (the first start's seeding)
arrive in. One rent-mode flip per change of the cheaper mode, each undoing the one before;
each breakeven shift starting from the value the rule last reported.

What the issue saw on a first start on 2026-12-03 (the live run first, then 90 seeded days
evaluated after the first day and every 10): two flips hourly → bare metal (2026-11-30 and
the live run's 2026-12-03) with none back between, and two shifts ending at 531.7 h from
610.7 and 436.2 h: alerts found on a shorter line kept beside the whole line's."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest

from demo.history_seed import history_days
from tests.support.demo_days import insert, insert_demo_day
from tests.warehouse.derive.rows import listing
from warehouse.derive.alerts import WatchRule, evaluate, evaluate_with
from warehouse.derive.metrics import derive, derive_with
from warehouse.derive.notify import deliver_pending, pending_signature
from warehouse.read.metrics import alerts as read_alerts
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

# The bundled gpuprice.toml's rule.
RULE = WatchRule(
    "4090 on jygpu at 550 h/month",
    gpu="rtx4090-24g",
    source="jygpu",
    usage_hours=550,
    against="hourly",
    threshold_pct=12,
    hysteresis_hours=10,
)
TODAY = date(2026, 12, 3)
NOW = datetime(2026, 12, 3, 17, 5)
HISTORY = history_days(TODAY)  # 2026-09-04 .. 2026-12-02
EVERY = 10  # pipelines.backfill_days.DERIVE_EVERY_DAYS
STANDING = """
    SELECT kind, new_observed_at, old_observed_at, round(old_value, 1) AS old,
           round(new_value, 1) AS new, old_mode, new_mode
    FROM alert WHERE kind <> 'scraper_broken' AND superseded IS NULL
    ORDER BY new_observed_at, kind
"""


def _backfill(con, days: list[date], now: datetime) -> None:
    """Days loaded oldest first, the rules walked after the first day, every 10th and the
    last, as pipelines.backfill_days does."""
    for n, day in enumerate(days, start=1):
        insert_demo_day(con, day, ("jygpu",))
        if n == 1 or n % EVERY == 0 or n == len(days):
            derive_with(con)
            evaluate_with(con, [RULE], now=now)


def _live_run(con, now: datetime) -> None:
    insert_demo_day(con, TODAY, ("jygpu",))
    derive_with(con)
    evaluate_with(con, [RULE], now=now)


def live_then_seeding(con) -> None:  # the first start
    _live_run(con, NOW)
    _backfill(con, HISTORY, NOW + timedelta(minutes=1))


def seeding_then_live(con) -> None:
    _backfill(con, HISTORY, NOW - timedelta(minutes=30))
    _live_run(con, NOW)


def live_run_during_the_seeding(con) -> None:  # the hourly schedule fires mid-seeding
    _backfill(con, HISTORY[:45], NOW - timedelta(minutes=30))
    _live_run(con, NOW)
    _backfill(con, HISTORY[45:], NOW + timedelta(minutes=1))


ORDERS: dict[str, Callable] = {
    "live run, then the seeding": live_then_seeding,
    "seeding, then the live run": seeding_then_live,
    "live run during the seeding": live_run_during_the_seeding,
}


def replay(line: list[tuple[datetime, float]]) -> list[tuple]:
    """The rule over the whole line, written out independently of warehouse.derive.alerts:
    12 % of the last reported value for a shift, 10 h past 550 h for a flip."""
    out = []
    (first_at, first), *rest = line
    base_at, base = first_at, first
    prev_at, prev = first_at, first
    mode = "bare_metal" if first < 550 else "hourly"
    for at, value in rest:
        if mode == "hourly" and 550 - value > 10:
            out.append(
                ("mode_flip", at, prev_at, round(prev, 1), round(value, 1), mode, "bare_metal")
            )
            mode = "bare_metal"
        elif mode == "bare_metal" and value - 550 > 10:
            out.append(("mode_flip", at, prev_at, round(prev, 1), round(value, 1), mode, "hourly"))
            mode = "hourly"
        if abs(value - base) / base * 100 >= 12:
            out.append(
                ("breakeven_shift", at, base_at, round(base, 1), round(value, 1), None, None)
            )
            base_at, base = at, value
        prev_at, prev = at, value
    return sorted(out, key=lambda a: (a[1], a[0]))


def the_line(warehouse: Warehouse) -> list[tuple[datetime, float]]:
    return read_frame(
        warehouse,
        "SELECT observed_at, breakeven_hours_vs_hourly FROM breakeven "
        "WHERE source = 'jygpu' AND gpu = 'rtx4090-24g' ORDER BY observed_at",
    ).rows()


def assert_events(alerts: list[tuple]) -> None:
    """Flips alternate; shifts chain (each starts where the one before it ended)."""
    flips = [a for a in alerts if a[0] == "mode_flip"]
    for before, after in zip(flips, flips[1:], strict=False):
        assert after[5] == before[6], f"two flips to {after[6]}: {before[1]} and {after[1]}"
    shifts = [a for a in alerts if a[0] == "breakeven_shift"]
    for before, after in zip(shifts, shifts[1:], strict=False):
        assert (after[2], after[3]) == (before[1], before[4]), (before, after)


@pytest.mark.parametrize("order", list(ORDERS))
def test_the_first_starts_alerts_are_one_story_in_any_order(
    warehouse: Warehouse, order: str
) -> None:
    with write_connection(warehouse) as con:
        ORDERS[order](con)
    standing = read_frame(warehouse, STANDING).rows()
    line = the_line(warehouse)
    assert len(line) == len(HISTORY) + 1
    assert standing == replay(line)
    assert_events(standing)
    flips = [a for a in standing if a[0] == "mode_flip"]
    assert flips and len({a[1] for a in flips}) == len(flips)
    # the two flips to bare metal: 2026-11-30 stands, the live run's does not
    assert [(a[1].date(), a[6]) for a in flips][-1] == (date(2026, 11, 30), "bare_metal")
    assert all(a[1].date() != TODAY for a in standing)
    shifts_to = [a[4] for a in standing if a[0] == "breakeven_shift"]
    assert len(shifts_to) == len(set(shifts_to))  # no two shifts to one value from two olds
    # nothing about these days is news: none waits to go out
    assert pending_signature(warehouse) == (0, 0)
    # walking again adds nothing and changes nothing
    with write_connection(warehouse) as con:
        assert evaluate_with(con, [RULE], now=NOW + timedelta(hours=1)).new_alerts == []
        con.execute("UPDATE alert_rule_state SET points_seen = 1")  # as if older days came
        assert evaluate_with(con, [RULE], now=NOW + timedelta(hours=2)).new_alerts == []
    assert read_frame(warehouse, STANDING).rows() == standing


# -- a line small enough to read ------------------------------------------------------------

T0 = datetime(2026, 10, 1, 2)
DAY = timedelta(days=1)
LIVE = T0 + 10 * DAY
SMALL = WatchRule("box", gpu="rtx4090-24g", usage_hours=550.0, source="mk", threshold_hours=30.0)


def add(warehouse: Warehouse, at: datetime, hourly: str) -> None:
    """Bare metal ¥8,000 per 8-card month (¥1,000 a card): breakeven 1000 / hourly."""
    insert(
        warehouse.path,
        listing(at, "mk", "rtx4090-24g", hourly=hourly, monthly="1.00", bare_metal="8000"),
    )
    derive(warehouse)


# history: 500 h, 625 h, 500 h (a flip to hourly and one back); the live run: 500 h
SMALL_HISTORY = [(T0, "2.00"), (T0 + DAY, "1.60"), (T0 + 2 * DAY, "2.00")]
SMALL_STORY = [
    ("breakeven_shift", T0 + DAY, T0, 500.0, 625.0, None, None),
    ("mode_flip", T0 + DAY, T0, 500.0, 625.0, "bare_metal", "hourly"),
    ("breakeven_shift", T0 + 2 * DAY, T0 + DAY, 625.0, 500.0, None, None),
    ("mode_flip", T0 + 2 * DAY, T0 + DAY, 625.0, 500.0, "hourly", "bare_metal"),
]


def small_standing(warehouse: Warehouse) -> list[tuple]:
    return read_frame(warehouse, STANDING).rows()


@pytest.mark.parametrize("live_after", [0, 1, 2, 3])
def test_a_live_run_anywhere_in_the_history_gives_one_story(
    warehouse: Warehouse, live_after: int
) -> None:
    """The live run after ``live_after`` of the three history days, each day evaluated as it
    lands. Before the fix, a live run after day 1 (of 3) kept its flip back to bare metal at
    the live snapshot beside day 2's: two flips to bare metal in a row."""
    for k, (at, hourly) in enumerate(SMALL_HISTORY):
        if k == live_after:
            add(warehouse, LIVE, "2.00")
            evaluate(warehouse, [SMALL], now=LIVE + timedelta(minutes=5))
        add(warehouse, at, hourly)
        evaluate(warehouse, [SMALL], now=LIVE + timedelta(minutes=10 + k))
    if live_after == 3:
        add(warehouse, LIVE, "2.00")
        evaluate(warehouse, [SMALL], now=LIVE + timedelta(minutes=5))
    assert small_standing(warehouse) == SMALL_STORY
    assert_events(small_standing(warehouse))
    assert pending_signature(warehouse) == (0, 0)


def test_news_that_a_later_walk_takes_back_is_kept_superseded_and_never_sent(
    warehouse: Warehouse,
) -> None:
    """The live run lands after day 1: its shift and flip back (625 → 500 h at the live
    snapshot) are news; one target takes them. Day 2 (500 h) then arrives: walked again, the
    line moves back on day 2, not at the live snapshot. What was sent stays on record, marked
    superseded; what was not sent yet never goes."""
    add(warehouse, T0, "2.00")
    evaluate(warehouse, [SMALL], now=LIVE)
    add(warehouse, T0 + DAY, "1.60")
    evaluate(warehouse, [SMALL], now=LIVE)
    add(warehouse, LIVE, "2.00")
    news = evaluate(warehouse, [SMALL], now=LIVE + timedelta(minutes=5)).new_alerts
    assert len(news) == 2 and pending_signature(warehouse) == (2, 0)
    sent: list[str] = []
    delivered = deliver_pending(
        warehouse, ["json://receiver"], send=lambda url, title, body: sent.append(body)
    )
    assert sorted(delivered.delivered) == sorted(news) and len(sent) == 2

    add(warehouse, T0 + 2 * DAY, "2.00")
    evaluate(warehouse, [SMALL], now=LIVE + timedelta(hours=1))
    assert small_standing(warehouse) == SMALL_STORY
    kept = read_frame(
        warehouse,
        "SELECT alert_id, delivered_at, superseded FROM alert WHERE superseded IS NOT NULL",
    )
    assert sorted(kept["alert_id"]) == sorted(news)  # on record, not deleted
    assert kept["delivered_at"].null_count() == 0
    assert all("changed the rule's line" in note for note in kept["superseded"])
    # the feed shows the story; the superseded news is there when asked for
    assert read_alerts(warehouse).height == len(SMALL_STORY)
    assert read_alerts(warehouse, include_superseded=True).height == len(SMALL_STORY) + 2


def test_superseded_news_not_sent_yet_is_never_sent(warehouse: Warehouse) -> None:
    add(warehouse, T0, "2.00")
    evaluate(warehouse, [SMALL], now=LIVE)
    add(warehouse, T0 + DAY, "1.60")
    evaluate(warehouse, [SMALL], now=LIVE)
    add(warehouse, LIVE, "2.00")
    assert len(evaluate(warehouse, [SMALL], now=LIVE + timedelta(minutes=5)).new_alerts) == 2
    assert pending_signature(warehouse) == (2, 0)
    add(warehouse, T0 + 2 * DAY, "2.00")
    evaluate(warehouse, [SMALL], now=LIVE + timedelta(hours=1))
    assert pending_signature(warehouse) == (0, 0)
    sent: list[str] = []
    deliver_pending(warehouse, ["json://r"], send=lambda url, title, body: sent.append(body))
    assert sent == []


def test_a_shift_starts_from_the_value_the_rule_last_reported(warehouse: Warehouse) -> None:
    """500 → 540 h (a shift) → 560 h (20 h from 540: none) → 575 h (35 h from 540: a shift
    from 540, the value last reported, not from 560, the snapshot before)."""
    rule = WatchRule(
        "drift", gpu="rtx4090-24g", usage_hours=700.0, source="mk", threshold_hours=30.0
    )
    for k, breakeven in enumerate([500, 540, 560, 575]):
        at = T0 + k * DAY
        add(warehouse, at, f"{Decimal(1000) / breakeven:.4f}")  # ¥1,000 a card-month / rate
        evaluate(warehouse, [rule], now=at + timedelta(minutes=5))
    shifts = read_frame(warehouse, STANDING).rows()
    assert [(a[1], a[3], a[4]) for a in shifts] == [
        (T0 + DAY, 500.0, 540.0),
        (T0 + 3 * DAY, 540.0, 575.0),
    ]
    assert_events(shifts)
