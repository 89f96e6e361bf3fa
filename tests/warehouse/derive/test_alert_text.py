"""An alert's words from its stored parameters (alert.params), in English and Chinese: the
English is the stored message, the Chinese holds no English word of it but the ids."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from tests.support.demo_days import insert
from tests.warehouse.derive.rows import listing
from warehouse.derive import alert_text
from warehouse.derive.alerts import REWALKED, WatchRule, evaluate, not_sent_reason
from warehouse.derive.metrics import derive
from warehouse.derive.scraper_alerts import store_scraper_broken
from warehouse.read.metrics import alerts as read_alerts
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

T0 = datetime(2026, 10, 1, 2)
RULE = WatchRule("box", gpu="rtx4090-24g", usage_hours=550.0, source="mk", threshold_pct=12.0)
# English words of the messages that must not reach a Chinese reader
ENGLISH = re.compile(r"\b(on|at|the|is|now|cheaper|breakeven|moved|threshold|before|snapshot|"
                     r"Rule|bare metal|hourly|container|scraper|profile|broken|since)\b")  # fmt: skip


def _two_alerts(warehouse: Warehouse) -> list[dict]:
    for k, hourly in enumerate(["2.00", "1.60"]):  # 500 h, then 625 h: a shift and a flip
        insert(
            warehouse.path,
            listing(T0 + timedelta(hours=k), "mk", "rtx4090-24g", hourly=hourly,
                    monthly="1.00", bare_metal="8000"),
        )  # fmt: skip
        derive(warehouse)
        evaluate(warehouse, [RULE], now=T0 + timedelta(hours=k, minutes=5))
    return read_alerts(warehouse).sort("kind").to_dicts()


def test_the_stored_message_is_the_english_rendering(warehouse: Warehouse) -> None:
    shift, flip = _two_alerts(warehouse)
    for row in (shift, flip):
        title, _, message = alert_text.render(row, "en")
        assert message == row["message"]
        assert title == "RTX 4090 24GB on mk at 550 h/month"
    assert "breakeven vs hourly container moved +125.0 h (500.0 h → 625.0 h per month; " \
           "threshold 12 %)" in shift["message"]  # fmt: skip
    assert "the hourly container is now cheaper than the bare metal" in flip["message"]
    assert alert_text.render(flip, "en")[1] == ("hourly container now cheaper than the bare metal")


def test_the_chinese_rendering_says_the_same_in_chinese(warehouse: Warehouse) -> None:
    shift, flip = _two_alerts(warehouse)
    title, summary, message = alert_text.render(shift, "zh")
    assert title == "RTX 4090 24GB（mk），每月 550 小时"
    assert summary == "盈亏平衡 500.0 → 625.0 小时/月（+125.0 小时；阈值 12 %）"
    assert message.startswith(
        "[SIMULATED 模拟] RTX 4090 24GB（mk）：相对按时容器的盈亏平衡点变动 +125.0 小时"
    )
    assert "¥1,000.00/卡/月" in message and "¥1.60/卡时" in message
    assert "规则“box”" in message
    _, flip_summary, flip_message = alert_text.render(flip, "zh")
    assert flip_summary == "按时容器现在比裸金属便宜"
    assert "按时容器现在比裸金属便宜" in flip_message
    for text in (title, summary, message, flip_summary, flip_message):
        assert not ENGLISH.search(text.replace("[SIMULATED 模拟]", "")), text


def test_a_broken_scraper_in_both_languages(warehouse: Warehouse) -> None:
    at = datetime(2026, 11, 3, 2)
    with write_connection(warehouse) as con:
        store_scraper_broken(con, "a1", source="matpool", profile="demo", at=at,
                             problem="page 1 parsed to zero rows", raised_at=at)  # fmt: skip
    (row,) = read_alerts(warehouse).to_dicts()
    assert alert_text.render(row, "en")[2] == row["message"]
    assert row["message"].startswith(
        "[SIMULATED] scraper for matpool (demo profile) is broken since"
    )
    title, summary, message = alert_text.render(row, "zh")
    assert title == "matpool 的抓取程序"
    assert summary == "页面无法解析（自 2026-11-03 02:00 UTC 起失效）"
    assert "page 1 parsed to zero rows" in message  # the parser's own words, quoted
    assert "gpuprice reparse --source matpool" in message
    assert not ENGLISH.search(
        message.replace("page 1 parsed to zero rows", "").replace("[SIMULATED 模拟]", "")
    )


def test_an_alert_from_before_its_parameters_keeps_its_english() -> None:
    row = {"kind": "mode_flip", "rule": "old box", "params": None,
           "message": "rtx4090-24g on mk: at 550 h/month the bare metal is now cheaper; more"}  # fmt: skip
    assert alert_text.render(row, "zh") == (
        "old box",
        "rtx4090-24g on mk: at 550 h/month the bare metal is now cheaper",
        row["message"],
    )
    assert alert_text.loads("not json") is None and alert_text.loads("[1]") is None


def test_notes_and_delivery_in_both_languages() -> None:
    history = not_sent_reason(datetime(2026, 9, 19, 2), datetime(2026, 12, 3, 17))
    assert history is not None and history.startswith("about 2026-09-19, a day of history")
    assert alert_text.note_text(history, "zh") == (
        "关于 2026-09-19 的历史数据，于 2026-12-03 载入（初始填充、回填或导入）：保留，不发送"
    )
    assert alert_text.note_text(REWALKED, "zh").startswith("规则重新检查其数据线时发现")
    superseded = alert_text.superseded_note(datetime(2026, 12, 3, 18))
    assert alert_text.note_text(superseded, "zh").startswith("2026-12-03 载入的更早日期")
    assert alert_text.note_text("something else", "zh") == "something else"
    assert alert_text.note_text(None, "zh") is None
    when = datetime(2026, 12, 3, 18, 4)
    cases = [
        ({"superseded": superseded, "delivered_at": when}, "superseded", "已被取代"),
        ({"not_sent": history}, "not sent (history)", "不发送（历史）"),
        ({"delivered_at": when}, "delivered 2026-12-03 18:04", "已投递 2026-12-03 18:04"),
        ({"attempts": 3}, "pending, 3 attempt(s)", "待投递，已尝试 3 次"),
        ({}, "pending", "待投递"),
    ]
    for row, en, zh in cases:
        assert (alert_text.delivery_text(row, "en"), alert_text.delivery_text(row, "zh")) == (
            en,
            zh,
        )


def test_the_cheapest_line_is_named_not_its_id() -> None:
    assert alert_text.rule_title("h20-96g", "cheapest", 300, "en") == (
        "H20 96GB on the lowest line across platforms at 300 h/month"
    )
    assert (
        alert_text.rule_title("h20-96g", None, 300, "zh")
        == "H20 96GB（跨平台最低价），每月 300 小时"
    )
