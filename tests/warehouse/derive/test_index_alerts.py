"""Watch rules on the price index: an ``index_move`` alert when the published change over the
rule's days crosses ±move_pct, once per crossing (hysteresis), stored and titled like the
other alerts; a new rule does not alert about the past; walking a day again adds nothing."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from tests.support.demo_days import insert
from tests.warehouse.derive.test_index import CARD, at, platform
from warehouse.derive import alert_text
from warehouse.derive.index_alerts import IndexMoveRule, evaluate_index_rules
from warehouse.derive.metrics import derive
from warehouse.derive.notify import title_of
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

START = date(2026, 10, 1)
RULE = IndexMoveRule("4090 index ±10 % a day", CARD, 10.0, data="SIMULATED", days=1)


def day_of(number: int) -> date:
    return START + timedelta(days=number)


def load(warehouse: Warehouse, number: int, price: str) -> None:
    day = day_of(number)
    insert(warehouse, [r for s in ("pa", "pb", "pc") for r in platform(at(day, 8), s, price)])
    derive(warehouse, now=at(day, 9))


def alerts(warehouse: Warehouse) -> list[dict]:
    return read_frame(
        warehouse,
        "SELECT kind, rule, gpu, source, against, old_mode, new_mode, old_value, new_value, "
        "new_observed_at, message, simulated, not_sent FROM alert ORDER BY new_observed_at",
    ).to_dicts()


def test_a_move_past_the_threshold_alerts_once_each_way(warehouse: Warehouse) -> None:
    load(warehouse, 0, "2.00")
    load(warehouse, 1, "2.00")
    first = evaluate_index_rules(warehouse, [RULE], now=at(day_of(1), 10))
    assert first.new_alerts == []  # a new rule starts at the newest day, quietly
    # +15 % (up), 0 % (back inside), -13 % (down), +2.5 %, +9 % (inside: no alert)
    for number, price in ((2, "2.30"), (3, "2.30"), (4, "2.00"), (5, "2.05"), (6, "2.2345")):
        load(warehouse, number, price)
        evaluate_index_rules(warehouse, [RULE], now=at(day_of(number), 10))
    got = alerts(warehouse)
    assert [(a["new_observed_at"].date(), a["old_mode"], a["new_mode"]) for a in got] == [
        (day_of(2), "flat", "up"),
        (day_of(4), "flat", "down"),
    ]
    up, down = got
    assert (up["kind"], up["source"], up["against"], up["gpu"]) == (
        "index_move",
        "index",
        "hourly",
        CARD,
    )
    assert up["old_value"] == pytest.approx(2.00) and up["new_value"] == pytest.approx(2.30)
    assert "+15.0 % in 1 day(s)" in up["message"] and "¥2.3000 per card-hour" in up["message"]
    assert up["message"].startswith("[SIMULATED] ") and up["simulated"]
    assert up["not_sent"] is None  # news: raised an hour after its snapshot
    assert "-13.0 %" in down["message"]
    assert title_of(up | {"resolved_at": None}) == (
        f"[SIMULATED] gpuprice: {CARD} price index moved"
    )
    # the same days walked again: nothing new
    again = evaluate_index_rules(warehouse, [RULE], now=at(day_of(6), 11))
    assert again.new_alerts == [] and len(alerts(warehouse)) == 2


def test_hysteresis_keeps_a_move_that_hovers_at_the_threshold_one_alert(
    warehouse: Warehouse,
) -> None:
    rule = IndexMoveRule("hover", CARD, 10.0, data="SIMULATED", days=1, hysteresis_pct=5.0)
    load(warehouse, 0, "2.00")
    load(warehouse, 1, "2.00")
    evaluate_index_rules(warehouse, [rule], now=at(day_of(1), 10))
    # +10 % (up), then +9 %, +6 % a day: inside 10 %, but not 5 points inside: still up
    for number, price in ((2, "2.20"), (3, "2.398"), (4, "2.54188")):
        load(warehouse, number, price)
        evaluate_index_rules(warehouse, [rule], now=at(day_of(number), 10))
    assert [a["new_mode"] for a in alerts(warehouse)] == ["up"]
    # a +4 % day is over (5 points inside) and the next +12 % is a move again
    for number, price in ((5, "2.6435552"), (6, "2.96078")):
        load(warehouse, number, price)
        evaluate_index_rules(warehouse, [rule], now=at(day_of(number), 10))
    assert [a["new_mode"] for a in alerts(warehouse)] == ["up", "up"]


def test_a_move_found_in_history_is_kept_not_sent(warehouse: Warehouse) -> None:
    load(warehouse, 0, "2.00")
    load(warehouse, 1, "2.00")
    evaluate_index_rules(warehouse, [RULE], now=at(day_of(1), 10))
    load(warehouse, 2, "2.50")
    evaluate_index_rules(warehouse, [RULE], now=datetime(2026, 11, 20))
    [alert] = alerts(warehouse)
    assert alert["new_mode"] == "up" and "a day of history" in alert["not_sent"]


def test_the_rule_reads_only_its_own_series(warehouse: Warehouse) -> None:
    real_rule = IndexMoveRule("real only", CARD, 10.0, data="real", days=1)
    load(warehouse, 0, "2.00")
    load(warehouse, 1, "2.00")
    evaluate_index_rules(warehouse, [real_rule], now=at(day_of(1), 10))
    load(warehouse, 2, "3.00")  # a SIMULATED +50 %
    evaluate_index_rules(warehouse, [real_rule], now=at(day_of(2), 10))
    assert alerts(warehouse) == []


def test_a_rule_needs_a_published_change_and_a_sane_hysteresis() -> None:
    with pytest.raises(ValueError, match="days must be 1, 7 or 30"):
        IndexMoveRule("x", CARD, 10.0, days=14)
    with pytest.raises(ValueError, match="hysteresis_pct"):
        IndexMoveRule("x", CARD, 10.0, hysteresis_pct=10.0)


def test_an_index_move_reads_in_the_readers_language(warehouse: Warehouse) -> None:
    """Its words are kept as data (``alert.params``) like the other kinds': the alerts page
    and `gpuprice alerts` showed the English message on the Chinese page."""
    for number, price in ((0, "2.00"), (1, "2.00")):
        load(warehouse, number, price)
    evaluate_index_rules(warehouse, [RULE], now=at(day_of(1), 10))
    load(warehouse, 2, "2.30")
    evaluate_index_rules(warehouse, [RULE], now=at(day_of(2), 10))
    (row,) = read_frame(warehouse, "SELECT kind, rule, message, params FROM alert").to_dicts()
    title, summary, message = alert_text.render(row, "zh")
    assert title == "RTX 4090 24GB · 按时计费价格指数（模拟）"
    assert summary == "1 天内上涨 +15.0 %，¥2.3000/卡时"
    assert message == (
        "[SIMULATED 模拟] RTX 4090 24GB · 按时计费价格指数（模拟）1 天内上涨 +15.0 %："
        "2026-10-03（UTC）每卡时 ¥2.3000，1 天前 ¥2.0000；按两天都有报价的 3 个平台计算"
        "（阈值 ±10 %）。规则“4090 index ±10 % a day”。"
    )
    assert alert_text.render(row, "en")[2] == row["message"]  # the stored English words
    assert alert_text.render(row, "en")[0] == "RTX 4090 24GB · hourly price index (SIMULATED)"
