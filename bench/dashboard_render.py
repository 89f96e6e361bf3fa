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
* each query function the page calls, over the default view and the whole history.

Run: `.venv/bin/python bench/dashboard_render.py [--years 1 5] [--rounds 3]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
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


PAGES = ("trends", "compare", "report", "value", "breakeven", "alerts", "health", "recommend")


def first_render(page: str) -> Callable[[], float]:
    """Seconds to draw ``page`` with nothing cached, as a user opening it waits."""
    from streamlit.testing.v1 import AppTest

    from dashboard.data import _cached, _price_inputs

    def render() -> float:
        app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
        if page != "trends":
            app.run()  # the default page first, as the browser loads it; not timed
        _cached.clear()
        _price_inputs.clear()
        started = time.perf_counter()
        if page == "trends":
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
                warehouse, g, OfferFilter(**f)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--rounds", type=int, default=3)
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
            for name, seconds, rows in query_figures(home / "gpuprice.duckdb", args.rounds):
                print(f"  {name}: {seconds * 1000:.1f} ms ({rows:,} rows)")
    print(f"\n(as of {date.today()}; median of {args.rounds} rounds; figures only)")


if __name__ == "__main__":
    main()
