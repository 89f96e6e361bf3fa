"""A warehouse like the demo's after `make up`: real history imported from the demo market's
archive of the real captures in tests/fixtures/real (RunPod's and Lambda's pricing pages
2023–2026, SkyPilot's Lambda catalog 2023, a tracker's CSV, the ECB's rates: exactly what
the first start imports, demo.real_history), beside SIMULATED days of the demo market's
platforms under the same source names, fetched from the demo market (a real loopback
server) and loaded as a run loads them, then derived with the serving copy."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from configuration.settings import Settings
from demo.market import DemoMarket
from demo.real_history import import_real_history
from gpuprice.history_jobs import run_history
from pipelines.history_import import HistoryRequest
from scrapers.collect import collect
from scrapers.dated_market import DatedMarketAdapter
from scrapers.http import PoliteClient
from scrapers.sources import build_adapter
from tests.support.demo_settings import demo_settings
from warehouse.derive.metrics import derive
from warehouse.ingest.load import LoadSummary, load_snapshot
from warehouse.store.db import utcnow

# The SIMULATED days: RunPod's last real capture is of 2026-08-10, so that day holds both
# kinds of one source; the newest days are September's.
SIMULATED_DAYS = (date(2026, 8, 10), date(2026, 9, 9), date(2026, 9, 10))
SIMULATED_SOURCES = ("jygpu", "smm", "runpod", "lambda", "skypilot")


def load_simulated_day(settings: Settings, source: str, day: date) -> LoadSummary:
    """One source's demo-market answer for ``day``, fetched, parsed and loaded as a backfill
    run does (pipelines.assets: the dated market's adapter, then the load)."""
    config = settings.file.sources[source]
    adapter = build_adapter(source, config.adapter, config.adapter_options())
    market = settings.dated_market()
    assert market is not None and market.simulated
    reader = DatedMarketAdapter(adapter, market, day)
    with PoliteClient(settings.fetch_http(), respect_robots=False) as client:
        snapshot = collect(reader, client, settings.source_url(source), utcnow(), day)
    return load_snapshot(settings.warehouse, snapshot, profile="demo")


def build(
    tmp: Path,
    days: tuple[date, ...] = SIMULATED_DAYS,
    sources: tuple[str, ...] | None = SIMULATED_SOURCES,
    *,
    strict: bool = True,
) -> Settings:
    """The home under ``tmp/home`` (settings' gpuprice.toml at ``tmp``): the real history,
    and the SIMULATED ``days`` of ``sources`` (None: every demo platform, as the demo seeds
    them; bench/dashboard_render.py builds its 90 days so). ``strict``: every day loads (not
    so over 90 days: the demo market changes a platform's layout on some days on purpose,
    and those days fail as they do in the demo)."""
    with DemoMarket() as market:
        settings = demo_settings(market, tmp, "[history]\nmin_interval_s = 0\n", platforms=True)

        def run(request: HistoryRequest) -> tuple[str, list[str]]:
            outcome = run_history(settings, request)
            return outcome.status, outcome.lines

        said: list[str] = []
        assert import_real_history(settings, run, said.append, market.platforms_url) == 0, said
        for day in days:
            for source in sources or tuple(settings.enabled_sources()):
                summary = load_simulated_day(settings, source, day)
                assert summary.status == "ok" or not strict, summary.error
        derive(settings.warehouse)
    return settings
