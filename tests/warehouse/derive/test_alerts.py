"""Watch rules: thresholds, hysteresis, exactly-once storage, and a 90-day demo history."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from demo.market.prices import price_model
from tests.support.demo_days import insert, insert_demo_day
from tests.warehouse.derive.rows import listing
from warehouse.derive.alerts import BARE_METAL, Point, WatchRule, evaluate, evaluate_with, step
from warehouse.derive.metrics import derive, derive_with
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

T0 = datetime(2026, 10, 1, 2)


def rule(**overrides) -> WatchRule:
    base = dict(name="r", gpu="rtx4090-24g", usage_hours=550.0, threshold_hours=30.0)
    return WatchRule(**(base | overrides))


def run(r: WatchRule, values: list[float]) -> list[tuple[str, float, float]]:
    """Feed a breakeven series through one rule; (kind, old, new) of every alert."""
    state = None
    out = []
    for k, value in enumerate(values):
        point = Point(T0 + timedelta(hours=k), value, Decimal("990"), Decimal("1.96"))
        state, alerts = step(r, state, point)
        out += [(a.kind, a.old.value, a.new.value) for a in alerts]
    return out


def test_first_value_sets_the_baseline_without_alerting() -> None:
    assert run(rule(), [505.1]) == []


def test_jitter_under_the_threshold_never_alerts_but_drift_does_once() -> None:
    r = rule(usage_hours=700.0)  # bare metal stays cheaper throughout: shifts only
    assert run(r, [505, 512, 498, 509, 501, 515]) == []
    # Each step is under 30 h; the drift from the baseline crosses it once, at 535.
    assert run(r, [505, 515, 525, 535, 540, 545]) == [("breakeven_shift", 505, 535)]
    # After an alert the new value is the baseline.
    assert run(r, [505, 540, 560, 575]) == [
        ("breakeven_shift", 505, 540),
        ("breakeven_shift", 540, 575),
    ]


def test_threshold_in_percent() -> None:
    r = rule(threshold_hours=None, threshold_pct=10.0, usage_hours=100.0)
    assert run(r, [500, 540, 549]) == []
    assert run(r, [500, 550]) == [("breakeven_shift", 500, 550)]


def test_mode_flip_needs_the_breakeven_past_usage_by_the_hysteresis() -> None:
    r = rule(threshold_hours=500.0, hysteresis_hours=10.0)  # isolate the flips
    # Starts bare metal (550 > 520). Bouncing around 550 inside ±10 h: no flip at all.
    assert run(r, [520, 548, 553, 557, 546, 559, 541]) == []
    # Clearly past: breakeven 565 > 550 + 10 → hourly is cheaper; back at 535 → bare metal.
    assert run(r, [520, 565, 555, 545, 535]) == [
        ("mode_flip", 520, 565),
        ("mode_flip", 545, 535),
    ]
    # Without hysteresis the same bounce would flip every time.
    assert (
        len(run(rule(threshold_hours=500.0, hysteresis_hours=0.0), [520, 553, 546, 559, 541])) == 4
    )


def test_mode_flip_against_the_monthly_plan() -> None:
    r = rule(against="monthly", threshold_hours=500.0)
    state, _ = step(r, None, Point(T0, 630.6, Decimal("990"), Decimal("1.57")))
    assert state.mode == "monthly"  # 550 h < 630.6 h: the monthly plan is cheaper
    state, alerts = step(
        r, state, Point(T0 + timedelta(hours=1), 520.0, Decimal("900"), Decimal("1.73"))
    )
    assert state.mode == BARE_METAL
    assert [a.kind for a in alerts] == ["mode_flip"]
    message = alerts[0].message
    assert "bare metal is now cheaper than the monthly-plan container" in message
    assert "630.6 h → 520.0 h" in message and "¥900.00/card-month" in message


def test_rule_needs_exactly_one_threshold() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        WatchRule(name="x", gpu="h20-96g", usage_hours=100)
    with pytest.raises(ValueError, match="exactly one"):
        WatchRule(name="x", gpu="h20-96g", usage_hours=100, threshold_hours=1, threshold_pct=1)


# -- stored alerts ---------------------------------------------------------------------------


def add_snapshot(path: Path, at: datetime, hourly: str, bare_metal: str) -> None:
    insert(
        path, listing(at, "mk", "rtx4090-24g", hourly=hourly, monthly="1.00", bare_metal=bare_metal)
    )


def test_alerts_are_stored_once_with_prices_and_snapshots(warehouse: Warehouse) -> None:
    r = rule(source="mk")
    add_snapshot(warehouse, T0, "2.00", "8000")  # 500 h
    derive(warehouse)
    assert evaluate(warehouse, [r], now=T0).new_alerts == []
    t1 = T0 + timedelta(hours=1)
    add_snapshot(warehouse, t1, "1.60", "8000")  # 625 h: moved 125 h, and hourly now cheaper
    derive(warehouse)
    now = t1 + timedelta(minutes=3)  # the run that loaded it
    first = evaluate(warehouse, [r], now=now)
    assert len(first.new_alerts) == 2
    stored = read_frame(warehouse, "SELECT * FROM alert ORDER BY kind")
    flip, shift = stored.row(1, named=True), stored.row(0, named=True)
    assert (flip["kind"], flip["old_mode"], flip["new_mode"]) == (
        "mode_flip",
        "bare_metal",
        "hourly",
    )
    assert (shift["old_value"], shift["new_value"]) == (pytest.approx(500), pytest.approx(625))
    assert shift["old_observed_at"] == T0 and shift["new_observed_at"] == t1
    assert shift["old_container_cny_per_card_hour"] == Decimal("2")
    assert shift["new_container_cny_per_card_hour"] == Decimal("1.6")
    assert shift["new_bare_metal_cny_per_card_month"] == Decimal("1000")
    assert shift["new_offers"] == "bm-rtx4090-24g, ctr-rtx4090-24g"
    assert shift["source"] == "mk" and shift["rule"] == "r" and shift["simulated"]
    assert shift["delivered_at"] is None and shift["attempts"] == 0
    assert shift["created_at"] == now and shift["not_sent"] is None  # news: to be sent
    assert shift["message"].startswith(
        "[SIMULATED] RTX 4090 24GB on mk: breakeven vs hourly container moved +125.0 h"
    )

    # Evaluating again, re-deriving everything, or both: nothing new.
    assert evaluate(warehouse, [r]).new_alerts == []
    derive(warehouse, full=True)
    assert evaluate(warehouse, [r]).new_alerts == []
    # Even with the rule's state wound back, the same change has the same alert id.
    with write_connection(warehouse) as con:
        con.execute(
            "UPDATE alert_rule_state SET last_observed_at = ?, last_value = 500, "
            "baseline_observed_at = ?, baseline_value = 500, mode = 'bare_metal', "
            "points_seen = 1",
            [T0, T0],
        )
    again = evaluate(warehouse, [r])
    assert again.snapshots == 1 and again.new_alerts == []
    assert read_frame(warehouse, "SELECT count(*) FROM alert").item() == 2


def test_a_new_rule_starts_at_the_newest_snapshot(warehouse: Warehouse) -> None:
    for k, hourly in enumerate(["2.00", "1.00", "2.00", "1.00"]):  # 500, 1000, 500, 1000 h
        add_snapshot(warehouse, T0 + timedelta(hours=k), hourly, "8000")
    derive(warehouse)
    assert evaluate(warehouse, [rule(source="mk")]).new_alerts == []  # no flood from history
    state = read_frame(
        warehouse, "SELECT last_observed_at, baseline_value, points_seen FROM alert_rule_state"
    ).row(0)
    assert state == (T0 + timedelta(hours=3), pytest.approx(1000), 4)  # the rest counted
    # A changed rule (another threshold) restarts the same way.
    assert evaluate(warehouse, [rule(source="mk", threshold_hours=5.0)]).new_alerts == []
    # and nothing more arrived: the next evaluation walks on, nothing again
    assert evaluate(warehouse, [rule(source="mk", threshold_hours=5.0)]).snapshots == 0


def test_older_snapshots_arriving_later_are_walked_in_time_order(warehouse: Warehouse) -> None:
    """The first start: today's run first, then the seeded history, oldest day first."""
    day = timedelta(days=1)
    today = T0 + 10 * day
    r = rule(source="mk")
    add_snapshot(warehouse, today, "2.00", "8000")  # 500 h
    derive(warehouse)
    assert evaluate(warehouse, [r], now=today).new_alerts == []  # the rule starts here
    # then the history: 500 h, 625 h (a shift and a flip), 625 h, loaded oldest first
    for k, hourly in ((0, "2.00"), (1, "1.60"), (2, "1.60")):
        add_snapshot(warehouse, T0 + k * day, hourly, "8000")
        derive(warehouse)
        evaluate(warehouse, [r], now=today + timedelta(minutes=k))
    alerts = read_frame(
        warehouse, "SELECT kind, new_observed_at, created_at, not_sent FROM alert ORDER BY 2, 1"
    ).rows()
    # day 1 moved 125 h and flipped; today is back at 500 h: moved and flipped back
    assert [(kind, observed) for kind, observed, _, _ in alerts] == [
        ("breakeven_shift", T0 + day),
        ("mode_flip", T0 + day),
        ("breakeven_shift", today),
        ("mode_flip", today),
    ]
    # all found while the history was loading: dated, kept, none of them sent
    assert all(created == observed and not_sent for _, observed, created, not_sent in alerts)
    state = read_frame(warehouse, "SELECT last_observed_at, points_seen FROM alert_rule_state")
    assert state.row(0) == (today, 4)


def test_the_cheapest_line_is_watched_when_no_platform_is_given(warehouse: Warehouse) -> None:
    add_snapshot(warehouse, T0, "2.00", "8000")
    derive(warehouse)
    r = rule()  # source None → 'cheapest'
    evaluate(warehouse, [r])
    add_snapshot(warehouse, T0 + timedelta(hours=1), "2.50", "8000")  # 400 h
    derive(warehouse)
    assert len(evaluate(warehouse, [r]).new_alerts) == 1
    assert read_frame(warehouse, "SELECT source FROM alert").item() == "cheapest"


def test_ninety_demo_days_give_shifts_and_each_alert_once(warehouse: Warehouse) -> None:
    """A 90-day demo history, derived and evaluated day by day as the scheduled job does."""
    days = [date(2026, 9, 1) + timedelta(days=k) for k in range(90)]
    r = rule(name="4090 box", source="jygpu", threshold_hours=30.0, hysteresis_hours=10.0)
    with write_connection(warehouse) as con:
        for day in days:
            insert_demo_day(con, day)
            derive_with(con)
            evaluate_with(con, [r])
    history = read_frame(
        warehouse,
        "SELECT observed_at, breakeven_hours_vs_hourly AS h FROM breakeven "
        "WHERE source = 'jygpu' AND gpu = 'rtx4090-24g' ORDER BY observed_at",
    )
    assert history.height == 90
    # The same series straight from the simulated price model: bare metal / 8 ÷ list.
    model = price_model()
    expected = [
        float(model.day(d).bare_metal[0].monthly_price / 8 / model.day(d).containers[0].list_price)
        for d in days
    ]
    assert history["h"].to_list() == pytest.approx(expected)
    shifts = sum(1 for a, b in zip(expected, expected[1:], strict=False) if a != b)
    assert shifts >= 5

    # Independent replay of the rule over that series (threshold 30 h from the last alert;
    # flip when the breakeven is more than 10 h past 550 h).
    want_shifts, want_flips = [], []
    baseline, mode = expected[0], "bare_metal" if expected[0] < 550 else "hourly"
    for when, value in zip(days[1:], expected[1:], strict=True):
        if mode == "bare_metal" and value - 550 > 10:
            mode = "hourly"
            want_flips.append(when)
        elif mode == "hourly" and 550 - value > 10:
            mode = "bare_metal"
            want_flips.append(when)
        if abs(value - baseline) >= 30:
            want_shifts.append(when)
            baseline = value
    alerts = read_frame(
        warehouse,
        "SELECT kind, new_observed_at::DATE AS day FROM alert ORDER BY new_observed_at, kind",
    )
    got_shifts = alerts.filter(alerts["kind"] == "breakeven_shift")["day"].to_list()
    got_flips = alerts.filter(alerts["kind"] == "mode_flip")["day"].to_list()
    assert got_shifts == want_shifts and len(got_shifts) >= 5
    assert got_flips == want_flips and len(got_flips) >= 1
    assert alerts.height == len(set(zip(alerts["kind"], alerts["day"], strict=True)))

    # Replaying any run (same pages again, derive, evaluate) adds no alert.
    before = alerts.height
    with write_connection(warehouse) as con:
        for day in (days[18], days[-1]):
            assert insert_demo_day(con, day) == 0
            derive_with(con)
            assert evaluate_with(con, [r]).new_alerts == []
    assert read_frame(warehouse, "SELECT count(*) FROM alert").item() == before
