"""What a history import records and says when it is stopped, and when the warehouse is
damaged (issue 40), through the real `gpuprice` executable:

- Ctrl-C (SIGINT) during `history wayback`: before, "stopped unexpectedly" (exit 1), and its
  `history_import` row stayed `running` with 0 counts although rows had loaded. Now it says
  "interrupted; run the same command to resume" (exit 130), the row records its state and
  what it loaded, and the same command resumes with nothing loaded twice;
- a truncated warehouse: before, `history csv` said "stopped unexpectedly" (exit 1); now every
  history and fx command says "damaged … restore from a backup" (exit 2), as the others do."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from demo.market.archive import REAL
from scrapers.archive.cdx import CDX_FIELDS
from tests.cli.test_faults import RESTORE_HINT, gpuprice, make_home, one_line
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PRICING = "https://www.runpod.io/pricing"
PAGE = (REAL / "runpod" / "runpod_20250909131230.html").read_bytes()
CAPTURES, HELD_AT = 62, 60  # the 61st capture's request waits until released
# The held request must outlast no timeout: the interrupt is what ends it.
CONFIG = """
[http]
connect_timeout_s = 2
read_timeout_s = 300
total_deadline_s = 600
retries = 0
min_interval_s = 0

[history]
min_interval_s = 0
"""


@contextmanager
def archive() -> Iterator[tuple[str, threading.Event, threading.Event]]:
    """A Wayback server of CAPTURES daily captures of PRICING; the request of the capture at
    HELD_AT sets ``reached`` and waits for ``release`` (once). Yields its base URL too."""
    stamps = [f"{datetime(2025, 1, 1, 12) + timedelta(days=n):%Y%m%d%H%M%S}"
              for n in range(CAPTURES)]  # fmt: skip
    reached, release = threading.Event(), threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path.endswith("/cdx/search/cdx"):
                rows = [["io,runpod)/pricing", s, PRICING, "text/html", "200", f"D{s}", "1"]
                        for s in stamps]  # fmt: skip
                body = json.dumps([list(CDX_FIELDS), *rows]).encode()
            else:
                if f"/{stamps[HELD_AT]}id_/" in path and not release.is_set():
                    reached.set()
                    release.wait(300)
                body = PAGE
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/archive", reached, release
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def _import(home: Path, config: Path, base: str) -> subprocess.Popen[str]:
    env = os.environ | {"GPUPRICE_HOME": str(home), "GPUPRICE_CONFIG": str(config)}
    return subprocess.Popen(
        [sys.executable, "-m", "gpuprice.main", "history", "wayback", "runpod", "--url", PRICING,
         "--archive-url", base, "--every", "day", "--from", "2025-01-01", "--to", "2025-12-31"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_ctrl_c_records_what_was_loaded_and_the_same_command_resumes(tmp_path: Path) -> None:
    home, config = tmp_path / "home", tmp_path / "gpuprice.toml"
    config.write_text(CONFIG, encoding="utf-8")
    warehouse = Warehouse(home / "gpuprice.duckdb")
    with archive() as (base, reached, release):
        first = _import(home, config, base)
        try:
            assert reached.wait(300), "the import never reached the held capture"
            first.send_signal(signal.SIGINT)
            out, err = first.communicate(timeout=300)
        finally:
            if first.poll() is None:
                first.kill()
        release.set()
        assert first.returncode == 130, (first.returncode, out[-1000:], err[-2000:])
        assert "interrupted; run the same command to resume" in err
        assert "stopped unexpectedly" not in out + err
        assert "Traceback" not in out + err
        row = read_frame(warehouse, "SELECT status, parsed, rows_added, error FROM history_import")
        status, parsed, added, error = row.row(0)
        loaded = read_frame(warehouse, "SELECT count(*) AS n FROM offer WHERE source = 'runpod'")[
            "n"
        ].item()
        assert status == "interrupted" and parsed == HELD_AT and error.startswith("interrupted")
        assert added == loaded > 0  # what it loaded, counted
        again = _import(home, config, base)
        out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err[-2000:]
    assert f"{CAPTURES - HELD_AT} listed" in out  # from where it stopped
    days = read_frame(
        warehouse,
        "SELECT count(DISTINCT observed_at) AS d, count(*) AS n FROM offer WHERE source = 'runpod'",
    ).row(0)
    assert days == (CAPTURES, CAPTURES * (loaded // HELD_AT))  # each capture once


def test_a_damaged_warehouse_says_restore_from_every_history_and_fx_command(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    warehouse = make_home(home)
    with warehouse.path.open("r+b") as file:
        file.truncate(100_000)  # a copy cut short
    tracker = REAL / "trackers" / "gpu_price_track_2026-07-08_09.csv"
    ecb = REAL / "ecb" / "eurofxref-hist.csv"
    for args in (
        ["history", "csv", str(tracker), "--mapping", "gpu_price_track"],
        ["history", "wayback", "runpod", "--archive-url", "http://127.0.0.1:9/archive"],
        ["history", "skypilot", "lambda", "--api-url", "http://127.0.0.1:9"],
        ["fx", "import", str(ecb)],
        ["fx", "list"],
        ["fx", "accept", "2025-05-08"],
    ):
        result = gpuprice(home, *args)
        one_line(result, RESTORE_HINT)
        assert "is damaged" in result.stderr, (args, result.stderr)
