"""A warehouse for the dashboard tests: demo history, derived tables, alerts, health cases.

The demo market's own pages for each day, parsed by the real adapters and inserted with
the real loader's ``insert_rows`` through one write connection (a year takes seconds),
then ``warehouse.derive.metrics.derive_with`` and ``warehouse.derive.alerts.evaluate_with`` in chunks of
days, the way the hourly pipeline advances, so watch rules raise alerts over the last
weeks. Hand-made additions, each for one page's test: a second (made-up, simulated)
platform ``testcloud`` so the band has a spread, an unknown GPU name, and scrape runs that
make jygpu stale, smm fresh and one smm run failed.

``build(..., platforms=True)`` adds four more SIMULATED platforms copied from jygpu's rows at
their own price level (``EXTRA_PLATFORMS``): two in CNY, two listing in USD converted at a
daily ``fx_rate`` (``usd_rate``), one of which starts on ``MATPOOL_FROM`` so its first
month has no month before it. They are made up for the comparison and report tests; the
demo market's own platforms are another matter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb

from configuration.settings import load_settings
from demo.market import render_page
from scrapers.collect import parse_page
from scrapers.fx import FxRate, FxRates
from scrapers.http import FetchedPage
from scrapers.rows import OfferRow, Row
from scrapers.sources import build_adapter
from tests.support.handles import warehouse_at
from warehouse.derive.alerts import WatchRule, evaluate_with
from warehouse.derive.metrics import derive_with
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.money import convert
from warehouse.ingest.reference import load_reference
from warehouse.store.db import utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.serving import sync

try:  # the drift check (source_health, scraper_broken alerts) arrived after the dashboard
    from warehouse.ingest.drift import record_health
except ImportError:  # pragma: no cover - older checkouts
    record_health = None

PAGES = {"jygpu": ("/market/container", "/market/baremetal"), "smm": ("/compute/quotes",)}
LAST_DAY = date(2026, 9, 10)
FAILED_ERROR = "fetch failed: http://127.0.0.1:8702/compute/quotes: ConnectError: refused"
DOWN_ERROR = "fetch failed: http://127.0.0.1:8701/market/container: ReadTimeout"
UNKNOWN_NAME = "NVIDIA B200 192GB"
UNKNOWN_ROWS = 3
BROKEN_PROBLEM = "/market/container: no offer grid found (layout changed?)"
# platform: (currency, price factor against jygpu, region, billing modes copied, first day)
EXTRA_PLATFORMS: dict[str, tuple[str, Decimal, str | None, tuple[str, ...], date | None]] = {
    "autodl": (
        "CNY",
        Decimal("0.90"),
        "华东-杭州",
        ("hourly", "monthly", "bare_metal_monthly"),
        None,
    ),
    "matpool": ("CNY", Decimal("1.05"), None, ("hourly", "monthly"), date(2026, 9, 1)),
    "vastai": ("USD", Decimal("1.25"), "US-CA", ("hourly",), None),
    "runpod": ("USD", Decimal("1.40"), "US-TX", ("hourly",), None),
}
MATPOOL_FROM = date(2026, 9, 1)
FX_SOURCE = "SIMULATED test rate (tests/dashboard/seeding.py)"
RULES_TOML = """
[[alerts.rules]]
name = "4090 box"
gpu = "rtx4090-24g"
source = "jygpu"
usage_hours = 540
against = "hourly"
threshold_pct = 2
hysteresis_hours = 5

[[alerts.rules]]
name = "910B cheapest"
gpu = "910b-64g"
usage_hours = 450
against = "monthly"
threshold_hours = 10
"""


@dataclass(frozen=True)
class Seeded:
    home: Path
    config: Path
    first_day: date
    last_day: date

    @property
    def warehouse(self) -> Warehouse:
        return warehouse_at(self.home / "gpuprice.duckdb")


def demo_rows(day: date) -> list[Row]:
    rows: list[Row] = []
    for source, paths in PAGES.items():
        adapter = build_adapter(source)
        for page_path in paths:
            body = render_page(source, page_path, day)
            fetched = datetime.combine(day, datetime.min.time())
            page = FetchedPage(
                f"http://demo{page_path}?as_of={day}", 200, body, "text/html", fetched
            )
            parsed = parse_page(adapter, page)
            assert parsed.error is None, parsed.error
            rows.extend(parsed.rows)
    return rows


def _testcloud(row: OfferRow) -> OfferRow:
    """A second platform 10 % dearer than jygpu for the 4090 container (made up, simulated)."""
    price = (row.price * Decimal("1.1")).quantize(Decimal("0.01"))
    return OfferRow(
        **(
            row.to_dict()
            | {
                "source": "testcloud",
                "offer_id": "tc-4090",
                "price": price,
                "per_card_hour": price,
                "region": "华南-广州",
                "list_price": None,
                "stated_discount": None,
                "discount_label": None,
                "simulated": True,
            }
        )
    )


def usd_rate(day: date) -> Decimal:
    """The made-up CNY per USD of ``day``: 7.10 plus a few thousandths that move daily."""
    return Decimal("7.10") + Decimal("0.001") * (day.toordinal() % 20)


def _platform(row: OfferRow, source: str) -> OfferRow | None:
    """``row`` as listed by one of EXTRA_PLATFORMS, or None if that platform lacks it."""
    currency, factor, region, modes, first = EXTRA_PLATFORMS[source]
    day = row.observed_at.date()
    if row.billing not in modes or (first is not None and day < first):
        return None
    per_card = (row.per_card_hour * factor).quantize(Decimal("0.000001"))
    price = (row.price * factor).quantize(Decimal("0.01"))
    unit, unit_raw = row.unit, row.unit_raw
    if currency == "USD":
        price = per_card = (per_card / usd_rate(day)).quantize(Decimal("0.0001"))
        unit, unit_raw = "USD/card-hour", "$/hr"
    listed = replace(
        row,
        source=source,
        offer_id=f"{source}-{row.offer_id}",
        price=price,
        currency=currency,
        unit=unit,
        unit_raw=unit_raw,
        per_card_hour=per_card,
        list_price=None,
        stated_discount=None,
        discount_label=None,
        region=region,
        stock=None,  # not listed: shown as "—"
        simulated=True,
    )
    # priced as the load prices it: at the seeded rate of its own day
    return convert(listed, FxRates((FxRate(day, "USD", usd_rate(day), FX_SOURCE),)))


def _unknown(day: date) -> OfferRow:
    return OfferRow(
        observed_at=datetime.combine(day, datetime.min.time()) + timedelta(hours=2),
        source="jygpu",
        offer_id=f"unknown-{day}",
        gpu="unknown",
        gpu_name_raw=UNKNOWN_NAME,
        gpu_count=1,
        vram_gb=None,
        billing="hourly",
        price=Decimal("30"),
        currency="CNY",
        unit="CNY/card-hour",
        unit_raw="元/时",
        per_card_hour=Decimal("30"),
        simulated=True,
    )


def _insert(
    con: duckdb.DuckDBPyConnection, days: list[date], testcloud_from: date, platforms: bool
) -> None:
    rows: list[Row] = []
    for day in days:
        for row in demo_rows(day):
            rows.append(row)
            if platforms and isinstance(row, OfferRow):
                rows.extend(r for s in EXTRA_PLATFORMS if (r := _platform(row, s)) is not None)
            if (
                day >= testcloud_from
                and isinstance(row, OfferRow)
                and row.gpu == "rtx4090-24g"
                and row.billing == "hourly"
            ):
                rows.append(_testcloud(row))
    insert_rows(con, rows, page=None, run_id="dashboard-seed")
    for day in days:
        at = datetime.combine(day, datetime.min.time()) + timedelta(hours=2)
        for source in PAGES:
            _run(con, f"seed-{source}-{day}", source, at, "ok", None, as_of=day)
        if platforms:
            con.execute(
                "INSERT INTO fx_rate VALUES (?, 'USD', ?, ?)", [day, usd_rate(day), FX_SOURCE]
            )


def _run(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    source: str,
    at: datetime,
    status: str,
    error: str | None,
    as_of: date | None = None,
) -> None:
    con.execute(
        "INSERT INTO scrape_run (run_id, source, profile, as_of, started_at, finished_at, "
        "status, pages, rows, error) VALUES (?, ?, 'demo', ?, ?, ?, ?, ?, ?, ?)",
        [run_id, source, as_of, at, at + timedelta(seconds=2), status, 1, 0 if error else 9, error],
    )


def build(
    home: Path,
    *,
    days: int = 400,
    last_day: date = LAST_DAY,
    live_days: int = 40,
    chunk: int = 4,
    derived: bool = True,
    platforms: bool = False,
) -> Seeded:
    """``days`` of demo history to ``last_day``; the last ``live_days`` are derived and
    alert-checked ``chunk`` days at a time (the rest at once, before the rules start).
    ``platforms``: with the EXTRA_PLATFORMS and their FX rates."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "gpuprice.toml"
    config.write_text(RULES_TOML, encoding="utf-8")
    rules = [WatchRule(**r.model_dump()) for r in load_settings(config).file.alerts.rules]
    span = [last_day - timedelta(days=n) for n in range(days - 1, -1, -1)]
    testcloud_from = last_day - timedelta(days=29)
    path = home / "gpuprice.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
        head, tail = span[: len(span) - live_days], span[len(span) - live_days :]
        batches = [head] + [tail[i : i + chunk] for i in range(0, len(tail), chunk)]
        for batch in batches:
            if not batch:
                continue
            _insert(con, batch, testcloud_from, platforms)
            if derived:
                derive_with(con, now=utcnow())
                evaluate_with(con, rules, now=datetime.combine(batch[-1], datetime.min.time()))
        insert_rows(
            con, [_unknown(d) for d in span[-UNKNOWN_ROWS:]], page=None, run_id="seed-unknown"
        )
        failed_at = datetime.combine(last_day, datetime.min.time()) + timedelta(hours=5)
        _run(con, "seed-smm-failed", "smm", failed_at, "failed", FAILED_ERROR)
        # smm scraped successfully just now: fresh. jygpu was tried an hour ago and failed;
        # its last success is on last_day: stale.
        _run(con, "seed-smm-now", "smm", utcnow() - timedelta(minutes=5), "ok", None)
        _run(con, "seed-jygpu-down", "jygpu", utcnow() - timedelta(hours=1), "failed", DOWN_ERROR)
        if derived:
            sync(
                con, warehouse_at(path)
            )  # as warehouse.derive.metrics.derive does: the pages read the copy
        if derived and record_health is not None:
            # jygpu's pages stopped parsing: its health turns broken, with a scraper alert
            record_health(
                con,
                source="jygpu",
                profile="demo",
                run_id="seed-jygpu-broken",
                at=failed_at,
                problem=BROKEN_PROBLEM,
            )
    return Seeded(home, config, span[0], last_day)
