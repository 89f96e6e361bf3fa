"""Drift detection: a page that parses to zero rows, fails to parse or gives implausible
prices marks its source broken and raises one scraper-broken alert per break, delivered by
the procurement alerts' path."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from gpuprice.jobs import JobRunner
from scrapers.collect import Snapshot, parse_page
from scrapers.fx import FxRate, FxRates
from scrapers.http import FetchedPage
from scrapers.sources.matpool import MatpoolAdapter
from scrapers.sources.vastai import VastaiAdapter
from tests.support.handles import warehouse_at
from tests.support.live_fixtures import MATPOOL, read
from tests.support.live_settings import FAST_HTTP, settings_from, sources
from tests.support.loopback import LoopbackServer, reply
from tests.support.webhook_receiver import running_receiver
from warehouse.derive.notify import deliver_pending
from warehouse.ingest.drift import implausible, plausible_range
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.money import convert_rows
from warehouse.store.db import read_frame

T0 = datetime(2026, 9, 4, 3, 0)
URL = "https://matgo.cn/api/machine_pools"


def snapshot(body: bytes, at: datetime, *, fetch_error: str | None = None) -> Snapshot:
    snap = Snapshot("matpool", "offers", at, None)
    if fetch_error:
        snap.fetch_error, snap.fetch_failure = fetch_error, "unreachable"
        return snap
    snap.pages = [parse_page(MatpoolAdapter(), FetchedPage(URL, 200, body, "", at))]
    return snap


def health(path: Path) -> tuple:
    return read_frame(
        warehouse_at(path),
        "SELECT state, since, alert_id IS NOT NULL AS alerted FROM source_health",
    ).row(0)


def broken_alerts(path: Path) -> list[dict]:
    return read_frame(
        warehouse_at(path),
        "SELECT alert_id, kind, rule, gpu, source, new_observed_at, message, simulated "
        "FROM alert WHERE kind = 'scraper_broken' ORDER BY new_observed_at",
    ).to_dicts()


def test_one_alert_per_break_not_per_run(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    good, broken = read(MATPOOL), read("matpool_renamed_price.json")
    hour = timedelta(hours=1)

    first = load_snapshot(warehouse_at(path), snapshot(good, T0), profile="live")
    assert (first.status, first.broken_alert) == ("ok", None)
    assert health(path) == ("ok", T0, False)

    second = load_snapshot(warehouse_at(path), snapshot(broken, T0 + hour), profile="live")
    assert (second.status, second.reason) == ("failed", "drift")
    assert second.broken_alert is not None
    assert health(path) == ("broken", T0 + hour, True)
    (alert,) = broken_alerts(path)
    assert (alert["kind"], alert["rule"], alert["gpu"], alert["source"]) == (
        "scraper_broken", "scraper:matpool", None, "matpool",
    )  # fmt: skip
    assert (
        "priceMillicent" in alert["message"]
        and "gpuprice reparse --source matpool" in alert["message"]
    )
    assert not alert["simulated"] and not alert["message"].startswith("[SIMULATED]")

    # still broken an hour later, and unreachable after that: no new alert
    assert (
        load_snapshot(
            warehouse_at(path), snapshot(broken, T0 + 2 * hour), profile="live"
        ).broken_alert
        is None
    )
    down = load_snapshot(
        warehouse_at(path), snapshot(b"", T0 + 3 * hour, fetch_error="fetch failed"), profile="live"
    )
    assert (down.status, down.reason, down.broken_alert) == ("failed", "unreachable", None)
    assert health(path)[:2] == ("broken", T0 + hour)
    assert len(broken_alerts(path)) == 1

    # repaired: ok again; the next break alerts again
    assert (
        load_snapshot(warehouse_at(path), snapshot(good, T0 + 4 * hour), profile="live").status
        == "ok"
    )
    assert health(path) == ("ok", T0 + 4 * hour, False)
    empty = load_snapshot(
        warehouse_at(path), snapshot(read("matpool_empty.json"), T0 + 5 * hour), profile="live"
    )
    assert empty.broken_alert is not None and "no row" in (empty.error or "")
    assert [a["new_observed_at"] for a in broken_alerts(path)] == [T0 + hour, T0 + 5 * hour]
    runs = read_frame(
        warehouse_at(path), "SELECT status, reason FROM scrape_run ORDER BY started_at"
    ).rows()
    assert runs == [
        ("ok", None), ("failed", "drift"), ("failed", "drift"), ("failed", "unreachable"),
        ("ok", None), ("failed", "drift"),
    ]  # fmt: skip


def test_an_implausible_price_rejects_its_row_and_the_rest_loads(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    summary = load_snapshot(
        warehouse_at(path), snapshot(read("matpool_price_in_yuan.json"), T0), profile="live"
    )
    assert (summary.status, summary.reason, summary.rows_added, summary.rejected) == (
        "ok", None, 4, 1,
    )  # fmt: skip
    (reason,) = read_frame(
        warehouse_at(path), "SELECT reason FROM rejected_row WHERE stage = 'load'"
    )["reason"].to_list()
    assert reason.startswith("implausible price") and "[0.196, 19.60]" in reason
    assert health(path)[0] == "ok"


def test_implausible_prices_throughout_reject_the_page_and_break_the_source(
    tmp_path: Path,
) -> None:
    path = tmp_path / "w.duckdb"
    # every price ×1000 (yuan read as millicents): ¥2,200 a card-hour for a 4090 is junk
    page = read(MATPOOL).decode()
    yuan = re.sub(r'("(?:discountP|p)riceMillicent": \d+)', r"\g<1>000", page).encode()
    summary = load_snapshot(warehouse_at(path), snapshot(yuan, T0), profile="live")
    assert (summary.status, summary.reason, summary.rows_added) == ("failed", "drift", 0)
    assert "implausible price" in summary.error
    assert read_frame(warehouse_at(path), "SELECT count(*) FROM offer").item() == 0
    assert read_frame(warehouse_at(path), "SELECT parse_status FROM raw_page").item() == "error"
    assert health(path)[0] == "broken"


def test_plausible_ranges() -> None:
    assert plausible_range("rtx4090-24g") == (Decimal("0.196"), Decimal("19.60"))
    assert plausible_range("h100-80g") == (Decimal("1.467"), Decimal("146.70"))
    assert plausible_range("h100-80g", spot=True)[0] == Decimal("0.734")
    assert plausible_range("unknown") == (Decimal("0.02"), Decimal("1000"))


def test_the_broken_alert_is_delivered_by_the_alerts_path(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load_snapshot(warehouse_at(path), snapshot(read("matpool_error.json"), T0), profile="demo")
    sent: list[tuple[str, str]] = []
    summary = deliver_pending(
        warehouse_at(path), ["json://x"], send=lambda u, t, b: sent.append((t, b))
    )
    assert len(summary.delivered) == 1
    ((title, body),) = sent
    assert title == "[SIMULATED] gpuprice: scraper for matpool is broken"
    assert body.startswith("[SIMULATED] scraper for matpool (demo profile) is broken")
    assert "check jwt token failed" in body


@pytest.mark.e2e
def test_a_scrape_job_that_meets_a_broken_page_alerts_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loopback: LoopbackServer
) -> None:
    every_price_renamed = read("vastai_bundles.json").replace(b'"dph_total"', b'"dph_total_usd"')
    loopback.script("/api/v0/bundles/", reply(200, every_price_renamed))
    with running_receiver() as receiver:
        monkeypatch.setenv("GPUPRICE_NOTIFY_URLS", receiver.url())
        settings = settings_from(tmp_path, FAST_HTTP + sources(vastai={"live_url": loopback.url}))
        runner = JobRunner(settings)
        first = runner.run()
        second = runner.run()
    assert [s.reason for s in first.sources] == ["drift"]
    assert [s.reason for s in second.sources] == ["drift"]
    (alert,) = broken_alerts(settings.warehouse)
    assert "dph_total" in alert["message"]
    delivered = read_frame(settings.warehouse, "SELECT delivered_at IS NOT NULL FROM alert").item()
    assert delivered
    # delivered once, during the first run (the second found it delivered)
    assert len(receiver.accepted) == 1 and receiver.refused == []
    assert receiver.accepted[0]["title"] == "gpuprice: scraper for vastai is broken"


def test_usd_prices_are_checked_on_their_cny_figure() -> None:
    rates = FxRates((), (FxRate(date(2026, 9, 1), "USD", Decimal("7.10"), "d"),))
    listed = VastaiAdapter().parse(read("vastai_bundles.json"), "u", T0)
    rows = convert_rows(listed, rates)  # as the load prices them
    assert rows and [r for r in rows if implausible(r)] == []
