"""Benchmark: render time of the dashboard's Trends page over one and five years of hourly
history. Figures only, no pass/fail.

The history is synthetic, generated in DuckDB in a temporary directory and labelled
simulated (``simulated = true``, sources ``bench-*``): three platforms x six cards x three
billing modes every hour (18 listings per platform-hour, about 473k offer rows a year) and
nine market quotes an hour. Timed, median of ``--rounds``:

* the page through Streamlit's AppTest, cold (query cache cleared) and warm (cached), at
  its default view (last 90 days, daily) and over the whole history (weekly);
* the first render of every page (cold: what a user who opens it waits for), as the
  product serves it (the serving copy) and, as the baseline, with the copy moved away (the
  warehouse path readers fall back to);
* the first render of every page in Chinese and in English **while the pipeline writes**:
  `gpuprice backfill` runs the Dagster job over the demo market into the same warehouse
  (one run per day: scrape, load, derive, serving copy, alerts), as the first start's
  history seeding does, and every page is opened cold meanwhile (target: < 2 s each);
* each query function the page calls, over the default view and the whole history;
* the Trends page over the demo's first start (issue 28): the real history `make up` imports
  (RunPod's and Lambda's pricing pages 2023–2026, SkyPilot's Lambda catalog 2023, a
  tracker's CSV: tests/dashboard/real_history.py, the test suite's builder) beside 90
  SIMULATED days of every demo platform, whose default view reaches back to 2023; cold, in
  both languages, and its "Last 90 days" view.

Run: `.venv/bin/python bench/dashboard_render.py [--years 1 5] [--rounds 3] [--no-writing]
[--no-real-history]`.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from warehouse.derive.metrics import derive  # noqa: E402
from warehouse.ingest.reference import load_reference  # noqa: E402
from warehouse.read import dashboard as dashboard_queries  # noqa: E402
from warehouse.read import prices as queries  # noqa: E402
from warehouse.read.filters import OfferFilter  # noqa: E402
from warehouse.store.config import WarehouseConfig  # noqa: E402
from warehouse.store.db import read_frame, write_connection  # noqa: E402
from warehouse.store.handle import Warehouse  # noqa: E402
from warehouse.store.serving import serving_path  # noqa: E402

END = datetime(2026, 9, 10, 23, 0)
PLATFORMS = {"bench-a": 1.0, "bench-b": 1.08, "bench-c": 0.95}
CARDS = {  # CNY per card-hour, roughly the seeds' levels
    "rtx4090-24g": 1.96,
    "rtx5090-32g": 2.9,
    "h100-80g": 14.7,
    "h20-96g": 7.75,
    "a100-80g": 6.5,
    "910b-64g": 4.47,
}
# billing mode, its price factor against hourly, unit, unit as listed, cards per listing
BILLING = [
    ("hourly", 1.0, "CNY/card-hour", "元/时", 1),
    ("monthly", 0.8, "CNY/card-hour", "元/时", 1),
    ("bare_metal_monthly", 0.7, "CNY/server-month", "元/月", 8),
]
REGIONS = ("长三角", "京津冀", "粤港澳")


def build(path: Path, years: int) -> tuple[int, int]:
    """Hourly synthetic offers and quotes for ``years`` years up to END; row counts."""
    start = END - timedelta(days=365 * years) + timedelta(hours=1)
    platforms = ", ".join(f"('{s}', {f})" for s, f in PLATFORMS.items())
    cards = ", ".join(f"('{g}', {p})" for g, p in CARDS.items())
    billing = ", ".join(f"('{b}', {f}, '{u}', '{r}', {n})" for b, f, u, r, n in BILLING)
    regions = ", ".join(f"('{r}')" for r in REGIONS)
    # Years generated in a few statements is not what the product does: give it room (the
    # pages measured afterwards open the warehouse with the product's own limit).
    roomy = Warehouse(path, WarehouseConfig(memory_limit="8GB"))
    _generate(roomy, start, platforms, cards, billing, regions)
    # As the pipeline leaves it: derived (rollups, newest rows) and the serving copy the
    # pages read (warehouse.store.serving); without it they read the raw history.
    print(derive(roomy).line())
    offers = read_frame(Warehouse(path), "SELECT count(*) FROM offer").item()
    quotes = read_frame(Warehouse(path), "SELECT count(*) FROM spot_quote").item()
    return offers, quotes


def _generate(
    warehouse: Warehouse, start: datetime, platforms: str, cards: str, billing: str, regions: str
) -> None:
    with write_connection(warehouse) as con:
        load_reference(con)
        con.execute(
            f"""
            CREATE TEMP TABLE hours AS
            SELECT unnest(range(TIMESTAMP '{start}', TIMESTAMP '{END}' + INTERVAL 1 HOUR,
                                INTERVAL 1 HOUR)) AS t;
            CREATE TEMP TABLE p(source VARCHAR, f DOUBLE); INSERT INTO p VALUES {platforms};
            CREATE TEMP TABLE c(gpu VARCHAR, base DOUBLE); INSERT INTO c VALUES {cards};
            CREATE TEMP TABLE b(billing VARCHAR, f DOUBLE, unit VARCHAR, unit_raw VARCHAR,
                                n INTEGER);
            INSERT INTO b VALUES {billing};
            CREATE TEMP TABLE r(region VARCHAR); INSERT INTO r VALUES {regions};
            """
        )
        # A slow seasonal swing plus a deterministic per-row wobble (no RNG state needed).
        con.execute(
            """
            INSERT INTO offer BY NAME
            WITH priced AS (
                SELECT h.t, p.source, c.gpu, b.billing, b.unit, b.unit_raw, b.n,
                       round(c.base * p.f * b.f
                             * (1 + 0.08 * sin(epoch(h.t) / 2.6e6 + hash(c.gpu) % 7)
                                  + 0.01 * ((hash(h.t, p.source, c.gpu) % 100) / 100.0)), 2)
                           AS per_card_hour
                FROM hours h, p, c, b
            )
            SELECT t AS observed_at, source, source || '-' || gpu || '-' || billing AS offer_id,
                   gpu, gpu AS gpu_name_raw, n AS gpu_count, billing,
                   CASE WHEN n = 8 THEN round(per_card_hour * 8 * 720, 2) ELSE per_card_hour END
                       AS price,
                   'CNY' AS currency, unit, unit_raw, per_card_hour AS cny_per_card_hour,
                   '华东-杭州' AS region, 'bench' AS run_id, true AS simulated
            FROM priced
            """
        )
        con.execute(
            """
            INSERT INTO spot_quote BY NAME
            SELECT h.t AS observed_at, 'bench-quotes' AS source, c.gpu, c.gpu AS gpu_name_raw,
                   r.region, '整机包月均价' AS basis,
                   round(c.base * 0.75 * (1 + 0.05 * sin(epoch(h.t) / 3.1e6)), 2) AS price,
                   '元/卡时' AS unit_raw,
                   round(c.base * 0.75 * (1 + 0.05 * sin(epoch(h.t) / 3.1e6)), 2)
                       AS cny_per_card_hour,
                   'bench' AS run_id, true AS simulated
            FROM hours h, c, r
            """
        )


def timed(fn: Callable[[], object], rounds: int, before: Callable[[], None] | None = None) -> float:
    samples = []
    for _ in range(rounds):
        if before:
            before()
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def page_render(full: bool) -> Callable[[], None]:
    from streamlit.testing.v1 import AppTest

    def render() -> None:
        app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
        app.run()
        if full:
            dates = app.date_input(key="tr_dates")
            app.date_input(key="tr_dates").set_value((dates.min, dates.max))
            app.radio(key="tr_grain").set_value("week").run()
        assert not app.exception, [e.value for e in app.exception]
        assert app.get("vega_lite_chart"), "the trend chart was drawn"

    return render


# market_index is the front page (the root URL): a browser loads it first
PAGES = (
    "market_index", "trends", "compare", "report", "value", "breakeven", "alerts", "health",
    "recommend",
)  # fmt: skip


def first_render(page: str, english: bool = False) -> Callable[[], float]:
    """Seconds to draw ``page`` with nothing cached, as a user opening it waits."""
    from streamlit.testing.v1 import AppTest

    from dashboard.data import _cached, _price_inputs

    def render() -> float:
        app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
        app.session_state["lang_en"] = english
        if page != PAGES[0]:
            app.run()  # the default page first, as the browser loads it; not timed
        _cached.clear()
        _price_inputs.clear()
        started = time.perf_counter()
        if page == PAGES[0]:
            app.run()
        else:
            app.switch_page(f"app_pages/{page}.py").run()
        elapsed = time.perf_counter() - started
        assert not app.exception, [e.value for e in app.exception]
        return elapsed

    return render


def page_figures(path: Path, rounds: int) -> None:
    """Every page's first render, on the serving copy and (baseline) on the warehouse."""
    served = {p: statistics.median(first_render(p)() for _ in range(rounds)) for p in PAGES}
    copy = serving_path(path)
    aside = copy.with_name(copy.name + ".aside")
    copy.rename(aside)
    try:
        bare = {p: statistics.median(first_render(p)() for _ in range(rounds)) for p in PAGES}
    finally:
        aside.rename(copy)
    for page in PAGES:
        print(
            f"first render, {page} page: {served[page]:.3f} s; baseline without the serving "
            f"copy {bare[page]:.3f} s ({bare[page] / served[page]:.1f}x)"
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def pipeline_writing(home: Path, end: date) -> Iterator[subprocess.Popen]:
    """`gpuprice backfill` writing into ``home``'s warehouse (the demo market on free ports,
    no per-host wait, days before ``end`` so every day is new), for as long as the block
    runs; it is stopped (its process group: the demo market with it) at the end."""
    ports = {8701: _free_port(), 8702: _free_port(), 8703: _free_port()}
    config = (ROOT / "gpuprice.toml").read_text(encoding="utf-8")
    for default, port in ports.items():
        config = config.replace(str(default), str(port))
    config = re.sub(r"(?m)^min_interval_s = .*$", "min_interval_s = 0", config)
    (home / "writer.toml").write_text(config, encoding="utf-8")
    env = os.environ | {
        "GPUPRICE_HOME": str(home),
        "GPUPRICE_CONFIG": str(home / "writer.toml"),
        "GPUPRICE_PROFILE": "demo",
    }
    gpuprice = Path(sys.executable).with_name("gpuprice")
    log = (home / "writer.log").open("w")
    writer = subprocess.Popen(
        [str(gpuprice), "backfill", "--days", "3000", "--end", f"{end - timedelta(days=1)}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    copy = serving_path(home / "gpuprice.duckdb")
    synced = copy.stat().st_mtime
    try:
        # Dagster's start and the first day's run (its serving copy synced): from then on
        # the writes come every few seconds.
        deadline = time.monotonic() + 180
        while writer.poll() is None and time.monotonic() < deadline:
            if copy.stat().st_mtime != synced:
                break
            time.sleep(1)
        if writer.poll() is not None:
            raise RuntimeError(f"the writer stopped: see {home / 'writer.log'}")
        yield writer
    finally:
        os.killpg(writer.pid, signal.SIGTERM)
        try:
            writer.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(writer.pid, signal.SIGKILL)
            writer.wait()
        log.close()


def lock_waits(path: Path, seconds: float) -> list[float]:
    """How long one small read of the warehouse takes, every 0.2 s for ``seconds``, sorted:
    the wait for the writer's lock, which the pages' reads of the warehouse itself pay."""
    waits = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.perf_counter()
        read_frame(Warehouse(path), "SELECT count(*) FROM alert")
        waits.append(time.perf_counter() - started)
        time.sleep(0.2)
    return sorted(waits)


def writing_figures(home: Path, rounds: int) -> None:
    """Every page's first render in both languages while the pipeline writes."""
    from dashboard.data import _settings_of

    _settings_of.clear()
    started = datetime.now(UTC).replace(tzinfo=None)
    with pipeline_writing(home, END.date()):
        for english in (False, True):
            for page in PAGES:
                times = [first_render(page, english)() for _ in range(rounds)]
                print(
                    f"first render while the pipeline writes, {page} page "
                    f"({'English' if english else 'Chinese'}): median {statistics.median(times):.3f} s, "
                    f"max {max(times):.3f} s"
                )
        waits = lock_waits(home / "gpuprice.duckdb", seconds=30)
        print(
            "  one read of the warehouse while the pipeline writes (waiting for its lock), "
            f"{len(waits)} reads: p50 {waits[len(waits) // 2]:.3f} s, "
            f"p90 {waits[int(len(waits) * 0.9)]:.3f} s, p95 {waits[int(len(waits) * 0.95)]:.3f} s, "
            f"max {waits[-1]:.3f} s"
        )
    days = read_frame(
        Warehouse(home / "gpuprice.duckdb"),
        "SELECT count(DISTINCT as_of) FROM scrape_run WHERE started_at >= $t",
        {"t": started},
    ).item()
    print(f"  (meanwhile the writer ran the Dagster job for {days} day(s) of demo history)")


def query_figures(path: Path, rounds: int) -> list[tuple[str, float, int]]:
    warehouse = Warehouse(path)  # the product's default memory limit, as the pages open it
    opts = dashboard_queries.trend_options(warehouse)
    first, last = opts["first_day"].min(), opts["last_day"].max()
    cards = tuple(sorted(CARDS))
    sources = tuple(sorted(PLATFORMS))
    billing = ("hourly", "bare_metal_monthly")
    regions = tuple(opts["region"].unique().sort())
    out = []
    for label, start, grain in (
        ("90 days, daily", last - timedelta(days=89), "day"),
        ("whole history, weekly", first, "week"),
        ("whole history, monthly", first, "month"),
    ):
        filters = {
            "gpus": cards,
            "sources": sources,
            "billing": billing,
            "regions": regions,
            "start": start,
            "end": last,
        }
        calls: dict[str, Callable[[], object]] = {
            "price_trend": lambda f=filters, g=grain: dashboard_queries.price_trend(
                warehouse,
                g,
                OfferFilter(**f),
                apart=True,  # as the page asks: kinds apart
            ),
            "price_band": lambda f=filters, g=grain: dashboard_queries.price_band(
                warehouse, g, OfferFilter(**f)
            ),
            "quote_trend": lambda s=start, g=grain: dashboard_queries.quote_trend(
                warehouse, g, OfferFilter(gpus=cards, start=s, end=last)
            ),
        }
        for name, call in calls.items():
            rows = len(call())  # type: ignore[arg-type]
            out.append((f"{name} ({label})", timed(call, rounds), rows))
        if grain == "day":
            calls = {
                "trend_options": lambda: dashboard_queries.trend_options(warehouse),
                "card_changes": lambda f=filters: dashboard_queries.card_changes(
                    warehouse, OfferFilter(**f)
                ),
                "monthly_changes": lambda f=filters: dashboard_queries.monthly_changes(
                    warehouse, OfferFilter(**f)
                ),
                "latest_offers": lambda: queries.latest_offers(warehouse),
            }
            for name, call in calls.items():
                rows = len(call())  # type: ignore[arg-type]
                what = "to the range's end" if "changes" in name else "whole table"
                out.append((f"{name} ({what})", timed(call, rounds), rows))
    return out


REAL_HISTORY_END = date(2026, 12, 1)


def real_history_figures(rounds: int) -> None:
    """The Trends page's first render over real history beside 90 SIMULATED days."""
    from streamlit.testing.v1 import AppTest

    from dashboard.data import _cached, _settings_of

    with tempfile.TemporaryDirectory(prefix="gpuprice-bench-real-") as tmp:
        # The history job's definitions load the settings as they are imported.
        os.environ.update(GPUPRICE_HOME=tmp, GPUPRICE_CONFIG=str(ROOT / "gpuprice.toml"))
        from tests.dashboard.real_history import build as build_real_history

        started = time.perf_counter()
        days = tuple(REAL_HISTORY_END - timedelta(days=n) for n in range(89, -1, -1))
        settings = build_real_history(Path(tmp), days, None, strict=False)
        rows = read_frame(
            settings.warehouse,
            "SELECT count(*) FILTER (WHERE NOT simulated) AS real, "
            "count(*) FILTER (WHERE simulated) AS simulated, min(observed_at)::DATE AS first "
            "FROM offer",
        ).row(0, named=True)
        print(
            f"\n== the demo's first start: real history from {rows['first']} "
            f"({rows['real']:,} real offer rows) beside 90 SIMULATED days of every demo "
            f"platform to {REAL_HISTORY_END} ({rows['simulated']:,} rows), built in "
            f"{time.perf_counter() - started:.0f} s"
        )
        os.environ.update(
            GPUPRICE_HOME=str(settings.home),
            GPUPRICE_CONFIG=str(settings.config_path),
            GPUPRICE_PROFILE="demo",
        )
        _settings_of.clear()

        def render(english: bool, recent: bool) -> float:
            app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
            app.session_state["lang_en"] = english
            app.switch_page("app_pages/trends.py")  # the Market index is the home page now
            _cached.clear()
            began = time.perf_counter()
            app.run()
            if recent:  # the "All history" pill, its run timed alone, nothing cached
                _cached.clear()
                began = time.perf_counter()
                app.button_group(key="tr_range").set_value("all").run()
            elapsed = time.perf_counter() - began
            assert not app.exception, [e.value for e in app.exception]
            return elapsed

        render(False, False)  # imports and Streamlit's first-run setup, not timed
        for label, english, recent in (
            ("default view (the last 90 days, daily), Chinese", False, False),
            ("default view, English", True, False),
            ("'All history' (the pill), Chinese", False, True),
        ):
            times = [render(english, recent) for _ in range(rounds)]
            print(
                f"first render, Trends page, {label}: median {statistics.median(times):.3f} s, "
                f"max {max(times):.3f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--no-writing",
        dest="writing",
        action="store_false",
        help="Leave out the renders while the pipeline writes (they need the demo market).",
    )
    parser.add_argument(
        "--no-real-history",
        dest="real_history",
        action="store_false",
        help="Leave out the Trends page over real history beside 90 SIMULATED days (~5 min).",
    )
    args = parser.parse_args()
    from dashboard.data import _cached

    for years in args.years:
        with tempfile.TemporaryDirectory(prefix="gpuprice-bench-") as tmp:
            home = Path(tmp)
            os.environ.update(GPUPRICE_HOME=str(home), GPUPRICE_PROFILE="demo")
            (home / "bench.toml").write_text("", encoding="utf-8")
            os.environ["GPUPRICE_CONFIG"] = str(home / "bench.toml")
            started = time.perf_counter()
            offers, quotes = build(home / "gpuprice.duckdb", years)
            size_mb = (home / "gpuprice.duckdb").stat().st_size / 1e6
            print(
                f"\n== {years} year(s) of hourly history to {END:%Y-%m-%d} (SIMULATED, synthetic): "
                f"{offers:,} offer rows, {quotes:,} quote rows, {size_mb:,.0f} MB, "
                f"built in {time.perf_counter() - started:.1f} s"
            )
            page_render(False)()  # imports and Streamlit's first-run setup, not timed
            for label, full in (
                ("default view: last 90 days, daily", False),
                ("whole history, weekly", True),
            ):
                cold = timed(page_render(full), args.rounds, before=_cached.clear)
                warm = timed(page_render(full), args.rounds)
                print(f"Trends page, {label}: cold {cold:.3f} s, warm (cached) {warm:.3f} s")
            page_figures(home / "gpuprice.duckdb", args.rounds)
            if args.writing:
                writing_figures(home, args.rounds)
            for name, seconds, rows in query_figures(home / "gpuprice.duckdb", args.rounds):
                print(f"  {name}: {seconds * 1000:.1f} ms ({rows:,} rows)")
    if args.real_history:
        real_history_figures(args.rounds)
    print(f"\n(as of {date.today()}; median of {args.rounds} rounds; figures only)")


if __name__ == "__main__":
    main()
