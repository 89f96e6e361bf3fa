"""Benchmark at scale (issue 8): ingest, derive, queries, parsing and memory, each figure
beside its naive baseline as a ratio. Figures only, no pass/fail.

The warehouse is generated inside DuckDB with SQL (range, hash-based deterministic prices),
labelled simulated (``simulated = true``, sources ``sim-01`` .. ``sim-30``): hourly snapshots
x 30 platforms x 60 offers (20 listings x hourly / monthly / bare metal) = 15.8 M offer rows
a year, 78.9 M over five years, plus 40 market quotes a day. It lives in a temporary
directory and is removed at the end.

Run: `make bench` (one and five years, ~30 min and ~33 GB of temporary disk on 2 cores) or
`make bench BENCH_YEARS=1` / `.venv/bin/python bench/scale.py --years 1` (one year, ~6 min).

The dashboard's queries read the serving copy (warehouse.store.serving) the derive step keeps
beside the warehouse, as the product does; the warehouse path is timed beside it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.index_speed import bench_index  # noqa: E402
from scrapers.fx import FxRates  # noqa: E402
from scrapers.rows import OfferRow  # noqa: E402
from warehouse.derive.metrics import derive_with  # noqa: E402
from warehouse.ingest.insert import insert_rows  # noqa: E402
from warehouse.ingest.money import convert_rows, table_dict  # noqa: E402
from warehouse.ingest.reference import load_reference  # noqa: E402
from warehouse.read import dashboard as dashboard_queries  # noqa: E402
from warehouse.read import metrics as metric_queries  # noqa: E402
from warehouse.read import prices as queries  # noqa: E402
from warehouse.read.filters import OfferFilter  # noqa: E402
from warehouse.store.config import WarehouseConfig  # noqa: E402
from warehouse.store.db import read_frame, write_connection  # noqa: E402
from warehouse.store.handle import Warehouse  # noqa: E402
from warehouse.store.serving import serving_path, sync  # noqa: E402

END = datetime(2026, 11, 1)  # the history ends here (after the seeds' 2026-09-04 prices)
PLATFORMS = 30
LISTINGS = 20  # x 3 billing modes = 60 offers per platform-snapshot
CARDS = {  # CNY per card-hour, roughly the seeds' levels
    "rtx4090-24g": 1.96,
    "rtx4090-48g": 2.6,
    "rtx5090-32g": 2.9,
    "a100-40g": 4.8,
    "a100-80g": 6.5,
    "h100-80g": 14.7,
    "h200-141g": 19.0,
    "h20-96g": 7.75,
    "l40s-48g": 4.2,
    "910b-64g": 4.47,
}
FETCHED = datetime(2026, 9, 10)
REGIONS = ("华东-杭州", "华北-北京", "华南-广州")
QUOTE_REGIONS = ("长三角", "京津冀", "粤港澳", "成渝")


def gen(con, days: int) -> float:
    """Generate ``days`` of hourly history up to END, in time order (as the pipeline
    appends it), one month per statement so memory stays flat, deriving each month as the
    pipeline would; returns the seconds spent deriving (the whole history, once)."""
    cards = ", ".join(f"({i}, '{g}', {p})" for i, (g, p) in enumerate(CARDS.items()))
    regions = ", ".join(f"({i}, '{r}')" for i, r in enumerate(REGIONS))
    qregions = ", ".join(f"('{r}')" for r in QUOTE_REGIONS)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE c(i INTEGER, gpu VARCHAR, base DOUBLE);
        INSERT INTO c VALUES {cards};
        CREATE OR REPLACE TEMP TABLE r(i INTEGER, region VARCHAR); INSERT INTO r VALUES {regions};
        CREATE OR REPLACE TEMP TABLE qr(region VARCHAR); INSERT INTO qr VALUES {qregions};
        CREATE OR REPLACE TEMP TABLE listing AS
        SELECT 'sim-' || lpad(p::VARCHAR, 2, '0') AS source, 0.85 + (p % 7) * 0.05 AS pf,
               k, c.gpu, c.base, r.region
        FROM range(1, {PLATFORMS} + 1) t(p), range({LISTINGS}) l(k)
        JOIN c ON c.i = k % 10 JOIN r ON r.i = k % 3;
        CREATE OR REPLACE TEMP TABLE mode(billing VARCHAR, f DOUBLE, unit VARCHAR,
                                          unit_raw VARCHAR, n INTEGER);
        INSERT INTO mode VALUES ('hourly', 1.0, 'CNY/card-hour', '元/时', 1),
            ('monthly', 0.8, 'CNY/card-hour', '元/时', 1),
            ('bare_metal_monthly', 0.7, 'CNY/server-month', '元/月', 8);
        """
    )
    end = END
    month = END - timedelta(days=days)
    derived = 0.0
    while month < end:
        nxt = min((month + timedelta(days=32)).replace(day=1), end)
        con.execute(
            f"""
            INSERT INTO offer BY NAME
            WITH priced AS (
                SELECT h.t, l.source, l.k, l.gpu, l.region, m.billing, m.unit, m.unit_raw, m.n,
                       round(l.base * l.pf * m.f
                             * (1 + 0.08 * sin(epoch(h.t) / 2.6e6 + hash(l.gpu) % 7)
                                  + 0.02 * ((hash(h.t::DATE, l.source, l.k) % 100) / 100.0)),
                             2) AS per_card_hour
                FROM range(TIMESTAMP '{month}', TIMESTAMP '{nxt}', INTERVAL 1 HOUR) h(t),
                     listing l, mode m
            )
            SELECT t AS observed_at, source, 'L' || k AS offer_id, gpu, gpu AS gpu_name_raw,
                   n AS gpu_count, billing,
                   CASE WHEN n = 8 THEN round(per_card_hour * 8 * 720, 2) ELSE per_card_hour END
                       AS price,
                   'CNY' AS currency, unit, unit_raw,
                   per_card_hour AS cny_per_card_hour,
                   CASE WHEN billing = 'monthly' THEN round(per_card_hour / 0.8, 2) END
                       AS list_price,
                   region, 'bench' AS run_id, true AS simulated
            FROM priced ORDER BY t, source
            """
        )
        con.execute(
            f"""
            INSERT INTO spot_quote BY NAME
            SELECT d.t AS observed_at, 'sim-quotes' AS source, c.gpu, c.gpu AS gpu_name_raw,
                   qr.region, '整机包月均价' AS basis,
                   round(c.base * 0.75 * (1 + 0.05 * sin(epoch(d.t) / 3.1e6)), 2) AS price,
                   '元/卡时' AS unit_raw,
                   round(c.base * 0.75 * (1 + 0.05 * sin(epoch(d.t) / 3.1e6)), 2)
                       AS cny_per_card_hour,
                   'bench' AS run_id, true AS simulated
            FROM range(TIMESTAMP '{month}', TIMESTAMP '{nxt}', INTERVAL 1 DAY) d(t), c, qr
            """
        )
        month = nxt
        derived += derive_with(con).seconds
    con.execute("CHECKPOINT")
    return derived


def snapshot_rows(at: datetime, source: str) -> list[OfferRow]:
    """One platform-snapshot (60 offers) as the parsers would hand it to the loader."""
    rows = []
    for k in range(LISTINGS):
        gpu, base = list(CARDS.items())[k % 10]
        for billing, f, unit, raw, n in (
            ("hourly", 1.0, "CNY/card-hour", "元/时", 1),
            ("monthly", 0.8, "CNY/card-hour", "元/时", 1),
            ("bare_metal_monthly", 0.7, "CNY/server-month", "元/月", 8),
        ):
            per = Decimal(str(round(base * f * (1 + (k % 5) / 100), 2)))
            rows.append(
                OfferRow(
                    observed_at=at,
                    source=source,
                    offer_id=f"L{k}",
                    gpu=gpu,
                    gpu_name_raw=gpu,
                    gpu_count=n,
                    vram_gb=None,
                    billing=billing,  # type: ignore[arg-type]
                    price=per * 8 * 720 if n == 8 else per,
                    currency="CNY",
                    unit=unit,
                    unit_raw=raw,
                    per_card_hour=per,
                    list_price=(per / Decimal("0.8")).quantize(Decimal("0.01"))
                    if billing == "monthly"
                    else None,
                    region=REGIONS[k % 3],
                    simulated=True,
                )
            )
    return rows


def row_by_row(con, rows: list[OfferRow]) -> int:
    """The naive baseline: one INSERT statement per row (priced in CNY as the load does)."""
    for row in convert_rows(rows, FxRates()):
        d = table_dict(row) | {"page_id": None, "run_id": "bench-naive"}
        cols = ", ".join(d)
        con.execute(
            f"INSERT INTO offer ({cols}) VALUES ({', '.join('?' * len(d))}) ON CONFLICT DO NOTHING",
            list(d.values()),
        )
    return len(rows)


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] * 1000


RESULTS: list[dict] = []


def report(section: str, what: str, value: str, baseline: str, ratio: float | None) -> None:
    RESULTS.append(
        {"section": section, "what": what, "value": value, "baseline": baseline, "ratio": ratio}
    )
    r = f"{ratio:,.1f}x" if ratio is not None else "-"
    print(f"  {section:<8} {what:<52} {value:>20}  vs {baseline:>20}  {r:>9}", flush=True)


def bench_ingest(path: Path, end: datetime) -> None:
    with write_connection(Warehouse(path)) as con:
        one = snapshot_rows(end, "sim-new")
        t = timed(lambda: insert_rows(con, one, page=None, run_id="b1"), 1)[0]
        naive = snapshot_rows(end, "sim-naive")
        tn = timed(lambda: row_by_row(con, naive), 1)[0]
        report(
            "ingest", "one snapshot (60 rows), rows/s", f"{60 / t:,.0f}", f"{60 / tn:,.0f}", tn / t
        )
        day = [
            r
            for h in range(24)
            for p in range(PLATFORMS)
            for r in snapshot_rows(end + timedelta(hours=1 + h), f"sim-day-{p:02d}")
        ]
        t = timed(lambda: insert_rows(con, day, page=None, run_id="bday"), 1)[0]
        sample = [
            r
            for h in range(2)
            for r in snapshot_rows(end + timedelta(hours=1 + h), "sim-naive-day")
            for _ in range(1)
        ] * 1
        tn = timed(lambda: row_by_row(con, sample), 1)[0]
        rate, naive_rate = len(day) / t, len(sample) / tn
        report(
            "ingest",
            f"a day of snapshots ({len(day):,} rows), rows/s",
            f"{rate:,.0f}",
            f"{naive_rate:,.0f}",
            rate / naive_rate,
        )
        # leave the warehouse as it was: these snapshots are not part of the history
        con.execute("DELETE FROM offer WHERE source LIKE 'sim-new%' OR source LIKE 'sim-naive%'")
        con.execute("DELETE FROM offer WHERE source LIKE 'sim-day-%'")


def bench_derive(path: Path, end: datetime, label: str, rounds: int, history: float) -> None:
    warehouse = Warehouse(path)
    with write_connection(warehouse) as con:
        report(
            "derive", f"{label}: derive all history, month by month (s)", f"{history:.1f}", "", None
        )
        idle = derive_with(con)
        report("derive", f"{label}: nothing new (s)", f"{idle.seconds:.3f}", "", None)
        one, copies, index = [], [], []
        for h in range(rounds):
            insert_rows(
                con, snapshot_rows(end + timedelta(hours=h), "sim-01"), page=None, run_id="x"
            )
            s = derive_with(con)
            assert s.offer_snapshots == 1, s.line()
            one.append(s.seconds)
            index.append(s.index.seconds if s.index else 0.0)
            copy = sync(con, warehouse)
            assert not copy.full and copy.days == 1, copy.line()
            copies.append(copy.seconds)
        med = statistics.median(one)
        report(
            "derive",
            f"{label}: one new snapshot, median of {rounds} (s)",
            f"{med:.3f}",
            f"all {history:.1f}",
            history / med,
        )
        report(
            "derive",
            f"{label}: of which the price index (docs/INDEX.md), median (s)",
            f"{statistics.median(index):.3f}",
            "",
            None,
        )
        report(
            "derive",
            f"{label}: its serving copy (one platform-day), median (s)",
            f"{statistics.median(copies):.3f}",
            "",
            None,
        )


def bench_open(path: Path, label: str) -> None:
    """What opening a file read-only costs by itself (every dashboard query does it)."""
    import duckdb

    for name, target in (("warehouse", path), ("serving copy", serving_path(path))):
        samples = timed(lambda t=target: duckdb.connect(str(t), read_only=True).close(), 11)
        size = target.stat().st_size / 1e6
        report(
            "query",
            f"{label}: open the {name} read-only ({size:,.0f} MB), ms",
            f"p50 {pct(samples, 0.5):.1f}",
            "",
            None,
        )


def bench_queries(path: Path, label: str, rounds: int) -> None:
    bench_open(path, label)
    warehouse = Warehouse(path)  # the product's default memory limit
    opts = dashboard_queries.trend_options(warehouse)
    first, last = opts["first_day"].min(), opts["last_day"].max()
    filters = {
        "gpus": tuple(CARDS),
        "sources": tuple(sorted(opts["source"].unique())),
        "billing": ("hourly", "monthly", "bare_metal_monthly"),
        "regions": tuple(opts["region"].unique().sort()),
        "end": last,
    }
    naive_sql = """
        SELECT date_trunc($grain, observed_at)::DATE AS period, gpu, source, billing,
               avg(cny_per_card_hour)::DOUBLE AS v, min(cny_per_card_hour)::DOUBLE AS low,
               max(cny_per_card_hour)::DOUBLE AS high, count(*) AS n, bool_or(simulated)
        FROM offer
        WHERE gpu <> 'unknown' AND list_contains($gpus::VARCHAR[], gpu)
          AND list_contains($sources::VARCHAR[], source)
          AND list_contains($billing::VARCHAR[], billing)
          AND list_contains($regions::VARCHAR[], coalesce(region, '(none)'))
          AND observed_at >= $start::TIMESTAMP AND observed_at < $end::TIMESTAMP + INTERVAL 1 DAY
        GROUP BY ALL ORDER BY 1, 2, 3, 4
    """
    cases: list[tuple[str, Callable[[], object], Callable[[], object] | None]] = []
    for view, start, grain in (
        ("whole history, monthly", first, "month"),
        ("last 90 days, daily", last - timedelta(days=89), "day"),
    ):
        f = filters | {"start": start}
        naive_params = {k: list(v) if isinstance(v, tuple) else v for k, v in f.items()}
        cases.append(
            (
                f"trend {view}",
                lambda f=f, g=grain: dashboard_queries.price_trend(warehouse, g, OfferFilter(**f)),
                lambda p=naive_params, g=grain: read_frame(warehouse, naive_sql, p | {"grain": g}),
            )
        )
    cases.append(
        (
            "trend filter lists (trend_options)",
            lambda: dashboard_queries.trend_options(warehouse),
            None,
        )
    )
    cases.append(
        ("value board (newest card_value)", lambda: dashboard_queries.value_board(warehouse), None)
    )
    cases.append(("newest offer per listing", lambda: queries.latest_offers(warehouse), None))
    cases.append(
        (
            "market quotes, last 90 days",
            lambda: dashboard_queries.quote_trend(
                warehouse,
                "day",
                OfferFilter(gpus=tuple(CARDS), start=last - timedelta(days=89), end=last),
            ),
            None,
        )
    )
    cases.append(
        ("breakeven: newest per line", lambda: metric_queries.latest_breakeven(warehouse), None)
    )
    cases.append(
        (
            "breakeven: one card's history",
            lambda: metric_queries.breakeven_history(warehouse, "h100-80g", "cheapest"),
            None,
        )
    )
    cases.append(
        (
            "breakeven: one card's daily history (page chart)",
            lambda: metric_queries.breakeven_daily(warehouse, "h100-80g", "cheapest"),
            None,
        )
    )
    copy = serving_path(path)
    aside = copy.with_name(copy.name + ".aside")
    for name, fn, naive in cases:
        fn()
        samples = timed(fn, rounds)
        value = f"p50 {pct(samples, 0.5):.0f} / p95 {pct(samples, 0.95):.0f} ms"
        # The same function without the serving copy: the warehouse path (its fallback).
        copy.rename(aside)
        try:
            fn()
            direct = timed(fn, max(3, rounds // 4))
        finally:
            aside.rename(copy)
        report(
            "query",
            f"{label}: {name}, warehouse path",
            f"p50 {pct(direct, 0.5):.0f} / p95 {pct(direct, 0.95):.0f} ms",
            "",
            None,
        )
        if naive is not None:
            naive()
            ns = timed(naive, max(3, rounds // 4))
            report(
                "query",
                f"{label}: {name}",
                value,
                f"raw scan p50 {pct(ns, 0.5):.0f} ms",
                pct(ns, 0.5) / pct(samples, 0.5),
            )
        else:
            report("query", f"{label}: {name}", value, "", None)


# What each adapter selects and reads; the BeautifulSoup baseline selects the same nodes
# (soupsieve CSS) and reads their text, but builds no rows: a lower bound of a BS4 port.
SELECTORS = {
    "jygpu": (
        ".update-time", 'meta[name="gpuprice-simulated"]', "#container-list .product-card",
        ".product-card .gpu-name", "li.spec-item .spec-label", "li.spec-item .spec-value",
        ".price-label", ".price-value", ".price-monthly .discount-tag",
        "table#baremetal-list thead th", "table#baremetal-list tbody tr td",
    ),
    "smm": (
        ".update-time", 'meta[name="gpuprice-simulated"]', 'input[type="password"]', "title",
        "table#compute-quotes thead th", "table#compute-quotes tbody tr td",
    ),
}  # fmt: skip


# The live sources' pages, under tests/fixtures: RunPod's real captures of its three page
# generations (real/) and the modelled pages of the others (live/, as docs/SOURCES.md says).
# The JSON APIs have no HTML: their baseline is json.loads alone.
LIVE_PAGES = {
    "runpod": (
        "live/runpod_pricing.html", "real/runpod/runpod_20230929070808.html",
        "real/runpod/runpod_20250909131230.html", "real/runpod/runpod_20260810082317.html",
    ),
    "generic": (
        "live/generic_table_zh.html", "live/generic_table_en.html", "live/generic_jsonld.html",
    ),
    "vastai": ("live/vastai_bundles.json",),
    "matpool": ("live/matpool_machines.json",),
    "autodl": ("live/autodl_machines.json",),
}  # fmt: skip
JSON_LD = 'script[type="application/ld+json"]'
# What each adapter reads, in any of its layouts (as for jygpu above): RunPod's JSON-LD, its
# Next.js data or its Webflow pricing rows (it reads no table); the generic extractor's
# JSON-LD and tables.
LIVE_SELECTORS = {
    "runpod": (
        JSON_LD, "script#__NEXT_DATA__", "a.gpu-pricing-row",
        ".gpu-pricing-row__model-wrapper", ".gpu-pricing-row__tag", "[data-secure-cloud-price]",
    ),
    "generic": (JSON_LD, 'meta[name="gpuprice-simulated"]', "table tr th", "table tr td"),
}  # fmt: skip
# Sources whose pages are different layouts, each also reported on its own (the generic
# extractor's: two tables and a JSON-LD page, three different sites).
PER_PAGE = {"runpod", "generic"}


def live_adapter(source: str):
    from scrapers.sources import build_adapter

    if source == "generic":
        return build_adapter("examplecloud", "generic", {})
    return build_adapter(source)


def bench_parsing(rounds: int) -> None:
    from bs4 import BeautifulSoup
    from selectolax.lexbor import LexborHTMLParser

    from demo.market.server import render_page
    from scrapers.sources import build_adapter

    day = date(2026, 9, 10)
    fixtures = ROOT / "tests" / "fixtures"
    live = {
        source: [("https://example.invalid/pricing", (fixtures / n).read_bytes()) for n in names]
        for source, names in LIVE_PAGES.items()
    }
    pages = {
        "jygpu": [
            (
                "http://demo.invalid/market/container",
                render_page("jygpu", "/market/container", day),
            ),
            (
                "http://demo.invalid/market/baremetal",
                render_page("jygpu", "/market/baremetal", day),
            ),
        ],
        "smm": [("http://demo.invalid/compute/quotes", render_page("smm", "/compute/quotes", day))],
    }
    for source, bodies in (pages | live).items():
        adapter = build_adapter(source) if source in pages else live_adapter(source)
        size = sum(len(b) for _, b in bodies)

        def ours(a=adapter, bodies=bodies) -> None:
            for url, b in bodies:
                a.parse(b, url, FETCHED)

        selectors = SELECTORS.get(source) or LIVE_SELECTORS.get(source)

        def soup(bodies=bodies, selectors=selectors) -> None:
            for _, b in bodies:
                if selectors is None:  # a JSON API: decoding it is the least any parser does
                    json.loads(b)
                    continue
                tree = BeautifulSoup(b, "html.parser")
                for sel in selectors:
                    texts = [
                        " ".join(n.get_text(" ", strip=True).split()) for n in tree.select(sel)
                    ]
                    if sel == JSON_LD:  # a port decodes the JSON-LD as ours does
                        [json.loads(t) for t in texts if t]

        baseline = "BS4" if selectors is not None else "json.loads"

        def lexbor(bodies=bodies, selectors=selectors) -> None:
            """The baseline's own work (tree, the same selectors, their text) on selectolax."""
            for _, b in bodies:
                tree = LexborHTMLParser(b)
                for sel in selectors:
                    texts = [
                        " ".join(n.text(deep=True, separator=" ", strip=True).split())
                        for n in tree.css(sel)
                    ]
                    if sel == JSON_LD:
                        [json.loads(t) for t in texts if t]

        try:
            ours()
        except Exception as exc:  # a fixture this adapter cannot take: say so, go on
            print(f"  parse    {source}: skipped ({exc})")
            continue
        t = statistics.median(timed(ours, rounds))
        tb = statistics.median(timed(soup, max(3, rounds // 3)))
        n = len(bodies)
        report(
            "parse",
            f"{source} ({n} pages, {size / 1e3:.0f} kB), pages/s | MB/s",
            f"{n / t:,.0f} | {size / t / 1e6:.2f}",
            f"{baseline} {n / tb:,.0f} | {size / tb / 1e6:.2f}",
            tb / t,
        )
        if source in PER_PAGE:  # one figure over several layouts hides the slowest
            for page, name in zip(bodies, LIVE_PAGES[source], strict=True):
                tp = statistics.median(timed(lambda p=page: ours(bodies=[p]), rounds))
                tbp = statistics.median(timed(lambda p=page: soup(bodies=[p]), max(3, rounds // 3)))
                report(
                    "parse",
                    f"{source}, {Path(name).name} ({len(page[1]) / 1e3:.0f} kB), pages/s",
                    f"{1 / tp:,.0f}",
                    f"{baseline} {1 / tbp:,.0f}",
                    tbp / tp,
                )
        if selectors is not None:
            tl = statistics.median(timed(lexbor, rounds))
            report(
                "parse",
                f"{source}, the same tree work on selectolax, pages/s | MB/s",
                f"{n / tl:,.0f} | {size / tl / 1e6:.2f}",
                f"{baseline} {n / tb:,.0f} | {size / tb / 1e6:.2f}",
                tb / tl,
            )


PIPELINE_RUN = """
import sys
from pathlib import Path
from gpuprice.jobs import JobRunner
from configuration.settings import load_settings
from demo.market import DemoMarket
home = Path(sys.argv[1])
with DemoMarket().start() as market:
    cfg = home / "bench-gpuprice.toml"
    cfg.write_text('[http]\\nmin_interval_s = 0\\n[sources.jygpu]\\ndemo_url = "%s"\\n'
                   '[sources.smm]\\ndemo_url = "%s"\\n' % (market.jygpu_url, market.smm_url))
    settings = load_settings(cfg, home=home, profile="demo")
    JobRunner(settings).run()  # a failed source still measures the run
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(int(hwm) / 1024)
"""


DASHBOARD_RENDER = """
import sys
from streamlit.testing.v1 import AppTest
app = AppTest.from_file(sys.argv[1], default_timeout=600)
app.run()
assert not app.exception, [e.value for e in app.exception]
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(int(hwm) / 1024)
"""


def _peak_rss_mb(code: str, arg: str, home: Path) -> float | None:
    """Run ``code`` in its own Python process against ``home``; the peak RSS (MB) it prints
    last, or None (with its stderr shown) when it failed."""
    out = subprocess.run(
        [sys.executable, "-c", code, arg],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=os.environ | {"GPUPRICE_HOME": str(home)},
    )
    if out.returncode != 0:
        print(out.stderr[-2000:])
        return None
    return float(out.stdout.strip().splitlines()[-1])


def bench_memory(path: Path, label: str) -> None:
    """Peak RSS of one pipeline run (fetch, parse, load, derive, alerts) in its own process
    against the generated warehouse, and of the dashboard process rendering its default page
    (the market index since issue 37; the trend page before)."""
    home = path.parent
    for what, code, arg, target in (
        ("pipeline run peak RSS (MB)", PIPELINE_RUN, str(home), "500"),
        (
            "dashboard (default page: market index) peak RSS (MB)",
            DASHBOARD_RENDER,
            str(ROOT / "dashboard" / "app.py"),
            "",
        ),
    ):
        rss = _peak_rss_mb(code, arg, home)
        value = "failed" if rss is None else f"{rss:.0f}"
        report("memory", f"{label}: {what}", value, target, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = [int(y) for y in os.environ.get("BENCH_YEARS", "1 5").split()]
    parser.add_argument("--years", type=int, nargs="+", default=default)
    parser.add_argument("--rounds", type=int, default=20, help="query repetitions")
    parser.add_argument("--parse-rounds", type=int, default=30, help="parsing repetitions")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--days", type=int, help="a short history instead (smoke run)")
    parser.add_argument("--keep", type=Path, help="build the warehouse here and keep it")
    parser.add_argument(
        "--queries-only",
        type=Path,
        help="time the queries and memory on this existing warehouse file (a pipeline run "
        "adds today's demo-market snapshot to it)",
    )
    args = parser.parse_args()
    print("SIMULATED warehouse (generated in DuckDB, sources sim-*), 2 cores expected")
    print(f"  {'section':<8} {'what':<52} {'value':>20}     {'baseline':>20}  {'ratio':>9}")
    if args.queries_only:
        given = Warehouse(args.queries_only)
        with write_connection(given) as con:  # migrated, serving copy current
            copied = sync(con, given)
            print(f"{args.queries_only}: {copied.line()}")
        n = read_frame(given, "SELECT count(*) FROM offer").item()
        print(f"{args.queries_only}: {n:,} offer rows")
        bench_queries(args.queries_only, f"{n / 1e6:.0f}M rows", args.rounds)
        bench_index(args.queries_only, f"{n / 1e6:.0f}M rows", 5, report)
        bench_memory(args.queries_only, f"{n / 1e6:.0f}M rows")
        return
    bench_parsing(args.parse_rounds)
    sizes = (
        [(args.days, f"{args.days}d")] if args.days else [(365 * y, f"{y}y") for y in args.years]
    )
    for days, label in sizes:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
            base = args.keep / label if args.keep else Path(tmp)
            base.mkdir(parents=True, exist_ok=True)
            path = base / "gpuprice.duckdb"
            t = time.perf_counter()
            # Bulk-generating years in a few statements is not what the product does: give
            # it room (the pipeline run measured below uses the product's default limit).
            roomy = Warehouse(path, WarehouseConfig(memory_limit="8GB"))
            with write_connection(roomy) as con:
                load_reference(con)
                history = gen(con, days)
                copied = sync(con, roomy)
            report(
                "derive",
                f"{label}: serving copy, full build (s)",
                f"{copied.seconds:.1f}",
                f"{serving_path(path).stat().st_size / 1e6:,.0f} MB",
                None,
            )
            n = read_frame(Warehouse(path), "SELECT count(*) FROM offer").item()
            print(
                f"{label}: {n:,} offer rows generated in {time.perf_counter() - t:.0f} s, "
                f"{path.stat().st_size / 1e9:.1f} GB",
                flush=True,
            )
            end = END
            bench_derive(path, end, label, 5, history)
            bench_index(path, label, 5, report)
            bench_ingest(path, end + timedelta(days=2))
            gc.collect()
            bench_queries(path, label, args.rounds)
            bench_memory(path, label)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(bench process peak RSS {peak:.0f} MB)")
    if args.json:
        args.json.write_text(json.dumps(RESULTS, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
