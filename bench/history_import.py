"""Benchmark: a history import of 500 captures from a local Wayback server (issue 28's target:
at least 20 captures a second, the politeness pause excluded).

The server answers the CDX listing and the raw captures as the Wayback Machine does
(demo.market.archive.LocalArchive) for 500 daily captures of RunPod's pricing page, each one
of the three real captures (2023, 2025, 2026 generations) in turn, each listed with a digest
of its own so that every one is fetched. The import is the real one: `gpuprice history
wayback`'s Dagster job in-process (list, one capture a day, fetch through the polite client
with no pause, parse, load in batches through the bulk path, derive once). Prints figures
only. Run: `make bench` or `.venv/bin/python bench/history_import.py [--captures N]`.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from configuration.settings import load_settings
from demo.market.archive import ARCHIVE_PREFIX, REAL, ArchivedPage, LocalArchive
from gpuprice.history_jobs import run_history
from pipelines.history_import import HistoryRequest
from warehouse.store.db import read_frame

TARGET_PER_S = 20
PAGES = [REAL / "runpod" / f"runpod_{stamp}.html"
         for stamp in ("20230929070808", "20250909131230", "20260810082317")]  # fmt: skip


def archive(captures: int) -> LocalArchive:
    start = datetime(2023, 1, 1, 12)
    pages = tuple(
        ArchivedPage(
            f"{start + timedelta(days=n):%Y%m%d%H%M%S}",
            "https://www.runpod.io/pricing",
            PAGES[n % len(PAGES)],
            digest=f"BENCH{n:027d}",
        )
        for n in range(captures)
    )
    return LocalArchive(pages=pages, versions=())


def serve(local: LocalArchive) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            answer = local.answer("GET", parts.path, parts.query)
            status, kind, body = (
                (answer.status, answer.content_type, answer.body)
                if answer
                else (404, "text/plain", b"")
            )
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--captures", type=int, default=500)
    args = parser.parse_args()
    server = serve(archive(args.captures))
    base = f"http://127.0.0.1:{server.server_address[1]}{ARCHIVE_PREFIX}"
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "gpuprice.toml"
        config.write_text("[history]\nmin_interval_s = 0\n", encoding="utf-8")
        settings = load_settings(config, home=Path(tmp) / "home", profile="live")
        request = HistoryRequest(
            kind="wayback", source="runpod", urls=["www.runpod.io/pricing"], archive_url=base,
            every="day", first_day="2023-01-01",
        )  # fmt: skip
        started, cpu = time.perf_counter(), time.process_time()
        first = run_history(settings, request)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        again = run_history(settings, request)
        resumed = time.perf_counter() - started
        rows = read_frame(
            settings.warehouse, "SELECT count(*) AS n FROM offer WHERE source = 'runpod'"
        )
    server.shutdown()
    rate = args.captures / elapsed
    print(f"history import of {args.captures} captures from a local Wayback server (no pause):")
    for line in first.lines:
        print(f"  {line}")
    print(f"  {elapsed:.1f} s for the whole Dagster run: {rate:.1f} captures/s "
          f"(target ≥ {TARGET_PER_S}); {rows['n'].item():,} rows in the warehouse")  # fmt: skip
    print(f"  CPU time of this process (the server's included): {cpu:.1f} s, "
          f"{args.captures / cpu:.1f} captures per CPU-second")  # fmt: skip
    print(
        f"  a second run (nothing new, resumed from the cursor): {resumed:.1f} s; {again.lines[0]}"
    )


if __name__ == "__main__":
    main()
