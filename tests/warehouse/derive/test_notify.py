"""Delivery through real apprise to a real HTTP receiver on 127.0.0.1, including failures."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from configuration.secrets import PROJECT_ROOT
from configuration.settings import ConfigError, load_settings
from tests.support.demo_days import insert
from tests.support.handles import warehouse_at
from tests.support.webhook_receiver import Receiver, running_receiver
from tests.warehouse.derive.rows import listing
from warehouse.derive.alerts import WatchRule, evaluate
from warehouse.derive.metrics import derive
from warehouse.derive.notify import deliver_pending, mask_url, target_id
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

T0 = datetime(2026, 10, 1, 2)
SECRET = "s3cr3t-t0ken"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture
def with_alerts(warehouse: Warehouse) -> Path:
    """Two stored alerts (a shift and a flip) caused by one new snapshot."""
    r = WatchRule(name="box", gpu="rtx4090-24g", usage_hours=550, source="mk", threshold_hours=30)
    insert(warehouse, listing(T0, "mk", "rtx4090-24g", hourly="2.00", bare_metal="8000"))
    derive(warehouse)
    evaluate(warehouse, [r], now=T0)
    insert(
        warehouse,
        listing(T0 + timedelta(hours=1), "mk", "rtx4090-24g", hourly="1.60", bare_metal="8000"),
    )
    derive(warehouse)
    # raised by the run that loaded the snapshot, minutes after it: news, to be sent
    assert len(evaluate(warehouse, [r], now=T0 + timedelta(hours=1, minutes=5)).new_alerts) == 2
    return warehouse


def alert_rows(path: Path) -> list[dict]:
    return read_frame(
        warehouse_at(path),
        "SELECT kind, delivered_at, attempts, last_error FROM alert ORDER BY kind",
    ).to_dicts()


def test_delivered_through_apprise_to_a_webhook(with_alerts: Path, receiver: Receiver) -> None:
    summary = deliver_pending(warehouse_at(with_alerts), [receiver.url()])
    assert len(summary.delivered) == 2 and not summary.failed
    assert len(receiver.accepted) == 2 and receiver.paths == [f"/hook/{SECRET}"] * 2
    titles = sorted(body["title"] for body in receiver.accepted)
    assert titles == [
        "[SIMULATED] gpuprice: rtx4090-24g breakeven shifted",
        "[SIMULATED] gpuprice: rtx4090-24g cheaper rent mode flipped",
    ]
    messages = " ".join(body["message"] for body in receiver.accepted)
    assert "500.0 h → 625.0 h" in messages and "Rule 'box'" in messages
    assert all(
        r["delivered_at"] is not None and r["attempts"] == 1 for r in alert_rows(with_alerts)
    )
    # Delivered means delivered: the next tick sends nothing.
    again = deliver_pending(warehouse_at(with_alerts), [receiver.url()])
    assert again.pending_before == 0 and len(receiver.accepted) == 2


def test_failing_receiver_is_retried_and_delivered_once_it_recovers(
    with_alerts: Path, receiver: Receiver
) -> None:
    receiver.status = 500
    first = deliver_pending(warehouse_at(with_alerts), [receiver.url()])
    assert first.delivered == [] and len(first.failed) == 2
    # The receiver was tried once this tick; the second alert waits for the next one.
    assert len(receiver.refused) == 1
    rows = alert_rows(with_alerts)
    assert all(r["delivered_at"] is None and r["attempts"] == 1 for r in rows)
    assert all(r["last_error"] for r in rows)
    assert not any(SECRET in r["last_error"] or "127.0.0.1:" in r["last_error"] for r in rows)

    second = deliver_pending(
        warehouse_at(with_alerts), [receiver.url()]
    )  # still failing: still pending
    assert len(second.failed) == 2 and receiver.accepted == []
    assert {r["attempts"] for r in alert_rows(with_alerts)} == {2}

    receiver.status = 200  # recovers
    third = deliver_pending(warehouse_at(with_alerts), [receiver.url()])
    assert len(third.delivered) == 2 and len(receiver.accepted) == 2
    rows = alert_rows(with_alerts)
    assert all(r["delivered_at"] is not None and r["attempts"] == 3 for r in rows)
    assert deliver_pending(warehouse_at(with_alerts), [receiver.url()]).pending_before == 0
    assert len(receiver.accepted) == 2


def test_receiver_down_then_up(with_alerts: Path) -> None:
    receiver = Receiver().start()
    url = receiver.url()
    receiver.stop()  # connection refused
    try:
        assert len(deliver_pending(warehouse_at(with_alerts), [url]).failed) == 2
        receiver.start()  # same port again
        assert len(deliver_pending(warehouse_at(with_alerts), [url]).delivered) == 2
        assert len(receiver.accepted) == 2
    finally:
        receiver.stop()


def test_a_target_that_took_an_alert_does_not_get_it_twice(with_alerts: Path) -> None:
    with running_receiver() as good, running_receiver() as bad:
        bad.status = 503
        urls = [good.url(), bad.url("other/t0k")]
        assert len(deliver_pending(warehouse_at(with_alerts), urls).failed) == 2
        assert len(good.accepted) == 2
        bad.status = 200
        assert len(deliver_pending(warehouse_at(with_alerts), urls).delivered) == 2
        assert len(good.accepted) == 2 and len(bad.accepted) == 2
    targets = read_frame(
        warehouse_at(with_alerts), "SELECT DISTINCT target FROM alert_delivery ORDER BY 1"
    )
    assert sorted(targets["target"]) == sorted([target_id(u) for u in urls])


def test_no_url_configured_keeps_alerts_pending(with_alerts: Path) -> None:
    summary = deliver_pending(warehouse_at(with_alerts), [])
    assert summary.pending_before == 2 and summary.delivered == []
    assert "no notification URL" in (summary.note or "")
    assert all(r["attempts"] == 0 for r in alert_rows(with_alerts))


def test_masked_url_keeps_the_scheme_only() -> None:
    url = f"dingtalk://{SECRET}/"
    assert mask_url(url).startswith("dingtalk://…#") and SECRET not in mask_url(url)


# -- where the URLs come from ----------------------------------------------------------------


def test_urls_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "GPUPRICE_NOTIFY_URLS",
        "json://a/x, form://b/y mailto://u:p@h?to=a@x.cn,b@y.cn,slack://t/o/k",
    )
    assert load_settings(home=tmp_path).notify_urls() == [
        "json://a/x",
        "form://b/y",
        "mailto://u:p@h?to=a@x.cn,b@y.cn",
        "slack://t/o/k",
    ]


def test_urls_from_a_secrets_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUPRICE_NOTIFY_URLS", raising=False)
    monkeypatch.delenv("GPUPRICE_NOTIFY_URLS_FILE", raising=False)
    secrets = tmp_path / "urls"
    secrets.write_text("# procurement\njson://a/x\n\n  slack://t/o/k  \n", encoding="utf-8")
    config = tmp_path / "c.toml"
    config.write_text(f'[notify]\nurls_file = "{secrets}"\n', encoding="utf-8")
    assert load_settings(config, home=tmp_path).notify_urls() == ["json://a/x", "slack://t/o/k"]
    monkeypatch.setenv("GPUPRICE_NOTIFY_URLS_FILE", str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="cannot be read"):
        load_settings(config, home=tmp_path).notify_urls()
    monkeypatch.setenv("GPUPRICE_NOTIFY_URLS_FILE", str(PROJECT_ROOT / "urls.txt"))
    with pytest.raises(ConfigError, match="inside the repository"):
        load_settings(config, home=tmp_path).notify_urls()


def test_urls_are_refused_in_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[notify]\nurls = ["json://a/x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(config, home=tmp_path)
    message = str(info.value)
    assert "notify.urls: unknown key; allowed here: retry_interval_s, urls_file" in message
    assert "GPUPRICE_NOTIFY_URLS" in message
    config.write_text(f'[notify]\nurls_file = "{PROJECT_ROOT / "urls.txt"}"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="inside the repository"):
        load_settings(config, home=tmp_path)
