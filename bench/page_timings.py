"""Each dashboard page as a person waits for it, beside Streamlit's own floor (issue 38, item 9).

Headless Debian chromium (Playwright), a fresh browser context per page and round, timed from
navigation until Streamlit has stopped running the script and the count of drawn elements has
not changed for 1.5 s (the method of ../shared/tools/page_timings.py, whose ``settle`` this
copies: the shared tool is outside the repository). The same run times the floor: a two-page
Streamlit app, one page with a title, one with a title and one small Altair chart. Both
languages cold (English by the ``?lang=en`` link), after one untimed load that starts the
server's own imports.

The warehouse is the dashboard tests' seeded demo (tests/dashboard/seeding.py: 400 days, the
extra platforms, derived, with alerts), built in a temporary home.

    .venv/bin/python bench/page_timings.py [--rounds N] [--pages trends compare ...] [--writing]

Targets (issue 38): a page with charts within 1 s of the one-chart floor, a page without
within 1 s of the one-title floor; within 2 s of them while a backfill writes (``--writing``:
every page timed again while `gpuprice backfill` runs the Dagster job over the demo market
into the same warehouse, days before the seeded ones so that each is new: scrape, load,
derive, serving copy, as bench/dashboard_render.py's ``pipeline_writing``). Figures:
docs/PERFORMANCE.md, "Pages in a browser".
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHARTS = (
    '[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg, '
    ".vega-embed canvas, .vega-embed svg"
)
DRAWN = (
    "() => document.querySelectorAll('canvas, svg.marks, [data-testid=stDataFrame], "
    "[data-testid=stMetric], h1, h2, h3, p').length"
)
VIEWPORT = {"width": 1400, "height": 900}
SEEDED_DAYS = 400  # the dashboard tests' seeded demo (tests/dashboard/seeding.py's default)
FLOOR_APP = """
import streamlit as st
import altair as alt
import pandas as pd

def title():
    st.title("floor")

def chart():
    st.title("floor chart")
    frame = pd.DataFrame({"x": range(10), "y": range(10)})
    st.altair_chart(alt.Chart(frame).mark_line().encode(x="x", y="y"))

st.navigation([st.Page(title, title="title", url_path="title", default=True),
               st.Page(chart, title="chart", url_path="chart")]).run()
"""


def settle(page, t0: float, limit: float = 60.0) -> tuple[float, int]:
    """Seconds from ``t0`` until the page stood still; how many charts it drew."""
    last, stable_since = -1, None
    while time.monotonic() - t0 < limit:
        running = page.locator('[data-testid="stStatusWidget"]').count()
        drawn = page.evaluate(DRAWN)
        now = time.monotonic()
        if running == 0 and page.locator("h1").count() > 0 and drawn == last:
            stable_since = stable_since or now
            if now - stable_since >= 1.5:
                return stable_since - t0, page.locator(CHARTS).count()
        else:
            stable_since = None
        last = drawn
        time.sleep(0.05)
    return limit, last


@contextmanager
def served(script: Path, env: dict[str, str]) -> Iterator[str]:
    """``streamlit run script`` on a free port; its base URL once it answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1"],
        cwd=script.parent.parent if script.parent.name == "dashboard" else script.parent,
        env=os.environ | env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def time_page(browser, url: str, rounds: int, english: bool) -> tuple[float, float, int]:
    """Median and max seconds of ``url`` (in English: ``?lang=en``) over ``rounds`` fresh
    browser contexts, and how many charts it drew."""
    times, charts = [], 0
    for _ in range(rounds):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        t0 = time.monotonic()
        page.goto(url + ("?lang=en" if english else ""))
        seconds, charts = settle(page, t0)
        times.append(seconds)
        context.close()
    return statistics.median(times), max(times), charts


def time_pages(browser, links: list[str], floors: tuple[float, float], args, limit: float) -> None:
    """Each page of ``links`` in both languages against its floor (one title, one chart)."""
    for href in links:
        name = href.rsplit("/", 1)[-1] or "index"
        if args.pages and name not in args.pages:
            continue
        for english in (False, True):
            median, worst, charts = time_page(browser, href, args.rounds, english)
            over = median - floors[1 if charts else 0]
            verdict = "met" if over <= limit else "NOT met"
            print(
                f"{name:10s} {'en' if english else 'zh'}  median {median:5.2f} s  "
                f"max {worst:5.2f} s  charts {charts:2d}  "
                f"{over:+5.2f} s against its floor (target {limit:.0f} s: {verdict})",
                flush=True,
            )


def written(home: Path, since: datetime) -> int:
    """The days the backfill of ``--writing`` ran the Dagster job for, since ``since``."""
    from warehouse.store.db import read_frame
    from warehouse.store.handle import Warehouse

    return read_frame(
        Warehouse(home / "gpuprice.duckdb"),
        "SELECT count(DISTINCT as_of) FROM scrape_run WHERE started_at >= $t",
        {"t": since},
    ).item()


def sidebar_links(browser, base: str) -> list[str]:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(base + "/", wait_until="networkidle")
    settle(page, time.monotonic())
    links = page.eval_on_selector_all('[data-testid="stSidebarNav"] a', "e => e.map(a => a.href)")
    context.close()
    return links


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pages", nargs="*", help="only these pages (url paths; index: the front)")
    parser.add_argument(
        "--writing", action="store_true", help="then again while a backfill writes (target 2 s)"
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from tests.dashboard.seeding import LAST_DAY, build

    with tempfile.TemporaryDirectory(prefix="gpuprice-bench-pages-") as tmp:
        home = Path(tmp) / "home"
        started = time.perf_counter()
        seeded = build(home, days=SEEDED_DAYS, platforms=True)
        print(f"seeded demo warehouse built in {time.perf_counter() - started:.0f} s", flush=True)
        floor = Path(tmp) / "floor" / "app.py"
        floor.parent.mkdir()
        floor.write_text(FLOOR_APP, encoding="utf-8")
        env = {"GPUPRICE_HOME": str(home), "GPUPRICE_CONFIG": str(seeded.config),
               "GPUPRICE_PROFILE": "demo"}  # fmt: skip
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            with served(floor, {}) as base:
                time_page(browser, base + "/title", 1, False)  # the server's first run
                title = time_page(browser, base + "/title", args.rounds, False)
                chart = time_page(browser, base + "/chart", args.rounds, False)
            print(f"floor, one title        median {title[0]:5.2f} s  max {title[1]:5.2f} s")
            print(f"floor, one small chart  median {chart[0]:5.2f} s  max {chart[1]:5.2f} s")
            floors = (title[0], chart[0])
            with served(ROOT / "dashboard" / "app.py", env) as base:
                links = sidebar_links(browser, base)
                time_pages(browser, links, floors, args, limit=1.0)
                if args.writing:
                    from bench.dashboard_render import pipeline_writing

                    first_seeded = LAST_DAY - timedelta(days=SEEDED_DAYS - 1)
                    since = datetime.now(UTC).replace(tzinfo=None)
                    with pipeline_writing(home, first_seeded):
                        print("while `gpuprice backfill` writes into the same warehouse:")
                        time_pages(browser, links, floors, args, limit=2.0)
                    print(f"  (meanwhile the backfill ran {written(home, since)} day(s))")
            browser.close()


if __name__ == "__main__":
    main()
