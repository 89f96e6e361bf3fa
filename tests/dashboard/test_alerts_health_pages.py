"""Alerts and data-health pages on the seeded warehouse."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from dashboard.i18n import LANG_KEY
from tests.dashboard.conftest import (
    assert_clean,
    charts,
    copy_of,
    has_table,
    open_page,
    table,
    texts,
    titles,
)
from tests.dashboard.seeding import (
    BROKEN_PROBLEM,
    DOWN_ERROR,
    FAILED_ERROR,
    RULES_TOML,
    UNKNOWN_NAME,
    UNKNOWN_ROWS,
    Seeded,
    record_health,
)
from warehouse.derive import alert_text
from warehouse.store.db import read_frame, utcnow, write_connection


def test_alert_feed_filters_the_alerts_shown(use_seeded: Seeded) -> None:
    total = read_frame(
        use_seeded.warehouse, "SELECT count(*) FROM alert WHERE superseded IS NULL"
    ).item()
    app = open_page("alerts")
    feed = table(app, "al_feed")
    assert len(feed) == total >= 7
    assert list(feed["created_utc"]) == sorted(feed["created_utc"], reverse=True)
    assert set(feed["data"]) == {"SIMULATED"}
    app.multiselect(key="al_kind").set_value(["mode_flip"]).run()
    flips = table(app, "al_feed")
    assert list(flips["kind"]) == ["租用方式翻转"]  # mode_flip, named
    # what it is about and what happened, in Chinese, one line each
    assert flips.iloc[0]["what"] == "RTX 4090 24GB（jygpu），每月 540 小时"
    assert flips.iloc[0]["summary"] == "裸金属现在比按时容器便宜"
    app.multiselect(key="al_kind").set_value(["breakeven_shift", "mode_flip"]).run()
    assert len(table(app, "al_feed")) == 7
    app.multiselect(key="al_cards").set_value(["910b-64g"]).run()
    shown = table(app, "al_feed")
    assert set(shown["what"]) == {"Ascend 910B 64GB（跨平台最低价），每月 450 小时"}
    assert len(shown) == 4
    app.date_input(key="al_since").set_value(date(2026, 8, 20)).run()
    assert len(table(app, "al_feed")) == 1
    app.radio(key="al_delivery").set_value("delivered").run()
    assert_clean(app)
    assert not has_table(app, "al_feed") and "所选条件没有数据" in texts(app)
    # the seeded days are history when evaluated: their alerts are dated by their day and
    # never sent (the details say why), so none is waiting to go out
    app.radio(key="al_delivery").set_value("all").run()
    assert set(table(app, "al_feed")["delivery"]) == {"不发送（历史）"}
    assert "不发送的原因：关于 2026-" in texts(app)
    app.radio(key="al_delivery").set_value("pending").run()
    assert not has_table(app, "al_feed")


def test_an_alert_reads_in_full_in_the_pages_language(use_seeded: Seeded) -> None:
    """The newest alert is shown whole below the feed (no cut-off column), in Chinese, and in
    English once the page is."""
    newest = read_frame(
        use_seeded.warehouse,
        "SELECT kind, params, rule, message FROM alert WHERE superseded IS NULL "
        "ORDER BY created_at DESC, new_observed_at DESC, alert_id LIMIT 1",
    ).row(0, named=True)
    app = open_page("alerts")
    shown = texts(app).replace("\\", "")  # Markdown's escapes of [ ] * _
    assert "预警详情" in shown
    assert alert_text.render(newest, "zh")[2] in shown
    assert newest["message"] not in shown  # the English message is not on the Chinese page
    app.toggle(key=LANG_KEY).set_value(True).run()
    assert newest["message"] in texts(app).replace("\\", "")
    assert "Alert details" in texts(app)
    whats = set(table(app, "al_feed")["what"])
    assert "RTX 4090 24GB on jygpu at 540 h/month" in whats
    assert "Ascend 910B 64GB on the lowest line across platforms at 450 h/month" in whats


def test_alerts_about_a_source_have_no_card_and_still_show(use_seeded: Seeded) -> None:
    broken = read_frame(
        use_seeded.warehouse, "SELECT count(*) FROM alert WHERE kind = 'scraper_broken'"
    ).item()
    if not broken:
        pytest.skip(
            "this checkout has no drift check (warehouse.ingest.drift) storing scraper alerts"
        )
    app = open_page("alerts")
    app.multiselect(key="al_cards").set_value(["—"]).run()
    feed = table(app, "al_feed")
    assert list(feed["kind"]) == ["抓取失效"] and list(feed["what"]) == ["jygpu 的抓取程序"]
    assert BROKEN_PROBLEM in texts(app)  # the only alert shown, in full below the feed


def test_watch_rules_in_force_come_from_the_settings(use_seeded: Seeded) -> None:
    app = open_page("alerts")
    rules = table(app, "al_rules").set_index("name_in_gpuprice_toml")
    assert list(rules.index) == ["4090 box", "910B cheapest"]
    assert rules.loc["4090 box", "rule"] == "RTX 4090 24GB（jygpu），每月 540 小时"
    assert rules.loc["4090 box", "threshold"] == "2 %"
    # the cheapest line, named
    assert rules.loc["910B cheapest", "rule"] == "Ascend 910B 64GB（跨平台最低价），每月 450 小时"
    assert rules.loc["910B cheapest", "threshold"] == "10 h"
    # bare_metal, named; the breakeven and the snapshot it is of beside it
    assert rules.loc["4090 box", "where_it_stands_utc"].startswith("裸金属 · ")
    assert rules.loc["4090 box", "where_it_stands_utc"].endswith(" h · 2026-09-10 02:00")


def test_no_rules_and_no_alerts_are_explained(
    use: Callable[..., None], offers_only: Seeded, tmp_path: Path
) -> None:
    use(offers_only.home, tmp_path / "none.toml")
    (tmp_path / "none.toml").write_text("", encoding="utf-8")
    app = open_page("alerts")
    shown = texts(app)
    assert "还没有预警" in shown and "[[alerts.rules]]" in shown
    assert not has_table(app, "al_feed") and not has_table(app, "al_rules")
    assert RULES_TOML  # the seeded home's rules are what the other tests read


def test_health_highlights_stale_sources_failures_rows_and_unknown_names(
    use_seeded: Seeded,
) -> None:
    app = open_page("health")
    sources = table(app, "he_sources").set_index("source")
    assert sources.loc["jygpu", "status"] == "STALE"  # last success on 2026-09-10
    assert sources.loc["smm", "status"] == "fresh"  # succeeded five minutes ago
    assert sources.loc["smm", "failed"] == 1
    # its last success is a day the seeding asked for: that day, from a backfill, and when
    # it was loaded
    assert sources.loc["jygpu", "last_success_utc"] == "2026-09-10 · 回填"
    assert sources.loc["jygpu", "loaded_utc"] == "2026-09-10 02:00"
    assert sources.loc["smm", "last_success_utc"].endswith(" · 实时抓取")
    if record_health is not None:  # the drift check's verdict on the parser, when it exists
        assert sources.loc["jygpu", "parser"] == "broken"
        # its problem is said below the table, not in a column behind a scroll
        assert any(
            w.value.startswith("jygpu 的页面无法解析（自 ") and w.value.endswith(BROKEN_PROBLEM)
            for w in app.warning
        )
    assert any(w.value == "过期来源：jygpu" for w in app.warning)
    assert "3 h" in texts(app)  # the threshold from settings is stated
    failures = table(app, "he_failures")
    # newest first; what went wrong first, the URL last (a narrow column cut the reason off)
    assert list(failures["error"]) == [
        "fetch failed: ReadTimeout — http://127.0.0.1:8701/market/container",
        "fetch failed: ConnectError: refused — http://127.0.0.1:8702/compute/quotes",
    ]
    assert DOWN_ERROR.endswith("ReadTimeout") and FAILED_ERROR.endswith("refused")
    assert list(failures["source"]) == ["jygpu", "smm"]
    # tried an hour ago, no success since
    assert sources.loc["jygpu", "newest_data_utc"].endswith(" · 实时抓取 · failed")
    rows = table(app, "he_rows")
    newest = rows[(rows["observed_utc"] == "2026-09-10 02:00") & (rows["source"] == "jygpu")]
    assert newest.iloc[0]["rows"] == 11 and newest.iloc[0]["unknown_cards"] == 1
    (rows_chart,) = charts(app)
    assert any("UTC" in x for x in titles(rows_chart))
    unknown = table(app, "he_unknown")
    assert (
        list(unknown["name_as_listed"]) == [UNKNOWN_NAME]
        and unknown.iloc[0]["rows"] == UNKNOWN_ROWS
    )
    assert f"未识别的 GPU 名称：{UNKNOWN_ROWS} 行" in texts(app)


def test_health_goes_by_the_day_the_data_is_about(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    """Issue 38: a seeded demo day loaded after a live success is older data, not the
    source's latest run; a backfilled success is its day, with its load time beside it."""
    copy = copy_of(seeded, tmp_path)
    now = utcnow()
    yesterday = now.date() - timedelta(days=1)
    with write_connection(copy.warehouse) as con:
        for run_id, source, status, error in (
            ("late-smm", "smm", "failed", "page 1: no quote table (layout changed?)"),
            ("late-jygpu", "jygpu", "ok", None),
        ):
            con.execute(
                "INSERT INTO scrape_run (run_id, source, profile, as_of, started_at, "
                "finished_at, status, pages, rows, error, reason) "
                "VALUES (?, ?, 'demo', ?, ?, ?, ?, 1, 0, ?, ?)",
                [run_id, source, yesterday, now, now, status, error, "drift" if error else None],
            )
    use(copy.home, copy.config)
    sources = table(open_page("health"), "he_sources").set_index("source")
    # smm: its live success five minutes ago is newer than the day the backfill failed on
    assert sources.loc["smm", "newest_data_utc"].endswith(" · 实时抓取 · ok")
    assert sources.loc["smm", "status"] == "fresh"
    # jygpu: its newest data is still the live run an hour ago that failed; its last success
    # is yesterday's backfilled day, loaded just now, and that does not make it fresh
    assert sources.loc["jygpu", "newest_data_utc"].endswith(" · 实时抓取 · failed")
    assert sources.loc["jygpu", "last_success_utc"] == f"{yesterday} · 回填"
    assert sources.loc["jygpu", "loaded_utc"] == f"{now:%Y-%m-%d %H:%M}"
    assert sources.loc["jygpu", "status"] == "STALE"


def test_staleness_follows_the_configured_threshold(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    config = tmp_path / "lenient.toml"
    config.write_text("[thresholds]\nstale_after_hours = 8760\n", encoding="utf-8")
    use(seeded.home, config)
    app = open_page("health")
    assert set(table(app, "he_sources")["status"]) == {"fresh"}
    assert "过期来源" not in texts(app) and "所有来源都在" in app.success[0].value


def test_the_page_says_when_no_notification_target_is_configured(
    use_seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("GPUPRICE_NOTIFY_URLS", raising=False)
    monkeypatch.delenv("GPUPRICE_NOTIFY_URLS_FILE", raising=False)
    app = open_page("alerts")
    warning = " ".join(w.value for w in app.warning)
    assert "没有配置通知目标" in warning
    assert "GPUPRICE_NOTIFY_URLS" in warning and "urls_file" in warning
    monkeypatch.setenv("GPUPRICE_NOTIFY_URLS", "json://127.0.0.1:9/a json://127.0.0.1:9/b")
    app = open_page("alerts")
    assert not [w for w in app.warning if "通知目标" in w.value]
    assert "通知目标：已配置 2 个" in texts(app) and "json://" not in texts(app)


def test_a_resolved_alert_shows_its_resolution(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    """Migration 010 resolves a scraper alert when its source next loads; the feed shows
    when, and the details how."""
    copy = copy_of(seeded, tmp_path)
    with write_connection(copy.warehouse) as con:
        con.execute(
            "UPDATE alert SET resolved_at = TIMESTAMP '2026-09-11 03:00', "
            "resolution = 'jygpu parses again (run seed-ok)' WHERE kind = 'scraper_broken'"
        )
        broken = con.execute("SELECT count(*) FROM alert WHERE kind = 'scraper_broken'").fetchone()
    if not broken[0]:
        pytest.skip("this checkout has no drift check storing scraper alerts")
    use(copy.home, copy.config)
    app = open_page("alerts")
    feed = table(app, "al_feed")
    resolved = feed[feed["summary"].str.contains("已恢复")]
    assert list(resolved["kind"]) == ["抓取失效"]
    assert list(resolved["summary"])[0].endswith("2026-09-11 03:00 UTC 已恢复")
    app.multiselect(key="al_cards").set_value(["—"]).run()
    assert "已于 2026-09-11 03:00 UTC 解除：jygpu 重新成功载入。" in texts(app)


def test_superseded_alerts_are_hidden_until_asked_for(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    copy = copy_of(seeded, tmp_path)
    with write_connection(copy.warehouse) as con:
        standing = con.execute("SELECT count(*) FROM alert").fetchone()[0]
        con.execute(
            "UPDATE alert SET superseded = ? WHERE kind = 'mode_flip'",
            [alert_text.superseded_note(utcnow())],
        )
        flips = con.execute("SELECT count(*) FROM alert WHERE kind = 'mode_flip'").fetchone()[0]
    use(copy.home, copy.config)
    app = open_page("alerts")
    assert flips and len(table(app, "al_feed")) == standing - flips
    app.checkbox(key="al_superseded").check().run()
    feed = table(app, "al_feed")
    assert len(feed) == standing
    assert set(feed[feed["kind"] == "租用方式翻转"]["delivery"]) == {"已被取代"}
