"""History imports against hostile archives and files (issue 40), every server on loopback:
each finding of the probe of `history wayback | skypilot | csv` is a case here.

- the door: a capture that redirects to another loopback service or to 169.254.169.254 is
  refused before anything is sent there; a CDX row whose ``original`` is ``file://…``, the
  metadata address or a loopback URL is never fetched as a capture of the page asked for;
- the clock: CDX rows, SkyPilot commits and tracker rows dated outside the window asked for,
  or after now, load nothing;
- hostile rows alone: a CDX timestamp in year 0 or month 13, an ``original`` with CR/LF, a CSV
  date of 9999-12-31 or 0001-01-01 are each a failed capture with its reason, and the import
  loads the rest; a listing of 100,000 captures is read in pages;
- secrets: a GITHUB_TOKEN echoed in a 200 answer is on no console, in no table, in no file of
  the Dagster instance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from demo.market.archive import REAL, REAL_VERSIONS, ArchivedPage, CatalogVersion, LocalArchive
from gpuprice.history_jobs import run_history
from pipelines.history_import import HistoryRequest
from scrapers.archive.cdx import CDX_FIELDS
from tests.scrapers.hostile_http import serve
from tests.support.archive_server import ArchiveServer, history_settings
from tests.support.loopback import reply
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PRICING = "https://www.runpod.io/pricing"
PAGE = REAL / "runpod" / "runpod_20250909131230.html"
ROWS = len(json.loads((REAL / "runpod" / f"{PAGE.name}.expected.json").read_text())["rows"])
CDX = "/archive/cdx/search/cdx"
SECRET = b'{"AccessKeyId": "ASIAINTERNALONLY", "SecretAccessKey": "internal"}'
TRACKER = REAL / "trackers" / "gpu_price_track_2026-07-08_09.csv"
FIRST_MOMENT = "2026-07-08T16:07:24Z"


def _row(stamp: str, original: str = PRICING) -> list[str]:
    return ["io,runpod)/pricing", stamp, original, "text/html", "200", f"D{stamp}", "100"]


def _listing(*rows: list[str]) -> bytes:
    return json.dumps([list(CDX_FIELDS), *rows]).encode()


def _captures(*stamps: str) -> LocalArchive:
    """The archive holding the real 2025 RunPod page under each of these timestamps."""
    return LocalArchive(pages=tuple(ArchivedPage(s, PRICING, PAGE) for s in stamps))


def _wayback(server: ArchiveServer, **kw: str) -> HistoryRequest:
    return HistoryRequest(
        kind="wayback", source="runpod", urls=[PRICING], archive_url=server.wayback, every="day",
        **kw,
    )  # fmt: skip


def _captured(settings) -> list[tuple]:  # type: ignore[no-untyped-def]
    return read_frame(
        settings.warehouse,
        "SELECT status, reason, error FROM history_capture ORDER BY run_id",
    ).rows()


def _offer_days(settings) -> list:  # type: ignore[no-untyped-def]
    found = read_frame(
        settings.warehouse, "SELECT DISTINCT observed_at FROM offer WHERE source = 'runpod'"
    )
    return sorted(found["observed_at"].to_list())


# -- the door -------------------------------------------------------------------------------


@pytest.mark.parametrize("internal", ["loopback", "metadata"])
def test_a_capture_redirecting_inside_the_network_is_refused_before_it_is_sent(
    tmp_path: Path, internal: str
) -> None:
    settings = history_settings(tmp_path)
    with serve() as service, ArchiveServer(_captures("20250909131230")) as server:
        service.routes["/latest/meta-data/iam"] = reply(200, SECRET)
        target = {
            "loopback": f"{service.url}/latest/meta-data/iam",  # another service on loopback
            "metadata": "http://169.254.169.254/latest/meta-data/iam",
        }[internal]
        server.answer_status(
            f"/archive/web/20250909131230id_/{PRICING}", 302, times=5, Location=target
        )
        outcome = run_history(settings, _wayback(server))
    assert service.seen == []  # the internal service was never asked
    assert [(s, r) for s, r, _ in _captured(settings)] == [("failed", "blocked")]
    assert "internal address" in _captured(settings)[0][2]
    bodies = read_frame(settings.warehouse, "SELECT body FROM raw_page")["body"].to_list()
    assert not any(b"AccessKeyId" in bytes(body) for body in bodies)
    assert outcome.status == "failed"


def test_a_listed_row_naming_another_url_is_never_fetched(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    with serve() as service:
        loopback = f"{service.url}/secret"
        hostile = [
            _row("20250101000000", "file:///etc/passwd"),
            _row("20250102000000", "http://169.254.169.254/latest/meta-data/"),
            _row("20250103000000", loopback),
            _row("20250104000000", "https://www.example.com/pricing"),
        ]
        with ArchiveServer(_captures("20250909131230")) as server:
            server.answer_body(CDX, _listing(*hostile, _row("20250909131230")))
            outcome = run_history(settings, _wayback(server))
    fetched = [h.path for h in server.requests("/archive/web/")]
    assert fetched == [f"/archive/web/20250909131230id_/{PRICING}"]  # the one asked for only
    assert service.seen == []
    reasons = sorted(r for s, r, _ in _captured(settings) if s == "failed")
    assert reasons == ["bad_url", "not_asked", "not_asked", "not_asked"]
    assert _offer_days(settings) == [datetime(2025, 9, 9, 13, 12, 30)]
    assert outcome.status == "partial"


# -- the clock ------------------------------------------------------------------------------


def test_captures_outside_the_window_or_after_now_load_nothing(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    stamps = ("19990101000000", "20250601000000", "20990101000000")
    with ArchiveServer(_captures(*stamps)) as server:
        server.answer_body(CDX, _listing(*(_row(s) for s in stamps)))  # the window ignored
        outcome = run_history(
            settings, _wayback(server, first_day="2025-01-01", last_day="2025-12-31")
        )
    assert _offer_days(settings) == [datetime(2025, 6, 1)]
    fetched = [h.path for h in server.requests("/archive/web/")]
    assert fetched == [f"/archive/web/20250601000000id_/{PRICING}"]
    failed = sorted(r for s, r, _ in _captured(settings) if s == "failed")
    assert failed == ["future", "out_of_window"]
    assert outcome.status == "partial"
    latest = read_frame(settings.warehouse, "SELECT max(observed_at) AS at FROM offer")
    assert latest["at"].item() <= datetime.now(UTC).replace(tzinfo=None)


def test_a_skypilot_commit_dated_ahead_of_now_loads_nothing(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    real = REAL_VERSIONS[0]
    ahead = CatalogVersion(
        "f" * 40, real.path, "2099-01-01T00:00:00+00:00", "x", "GitHub", "ahead", real.file
    )
    commits = [
        {"sha": v.sha, "commit": {"committer": {"date": f"{v.committed_utc:%Y-%m-%dT%H:%M:%SZ}"}}}
        for v in (ahead, real)
    ]  # what a hostile API lists, whatever since/until asked
    with ArchiveServer(LocalArchive(pages=(), versions=(ahead, real))) as server:
        server.answer_body(
            "/github/api/repos/skypilot-org/skypilot-catalog/commits", json.dumps(commits).encode()
        )
        request = HistoryRequest(
            kind="skypilot", cloud="lambda", version="v5", every="day", api_url=server.api,
            raw_url=server.raw,
        )  # fmt: skip
        outcome = run_history(settings, request)
    days = read_frame(settings.warehouse, "SELECT DISTINCT observed_at::DATE AS d FROM offer "
                                          "WHERE source = 'skypilot'")  # fmt: skip
    assert [d.year for d in days["d"]] == [real.committed_utc.year]
    assert not any("f" * 40 in h.path for h in server.requests("/github/raw/"))
    assert ("failed", "future") in [(s, r) for s, r, _ in _captured(settings)]
    assert outcome.status == "partial"


def _tracker(tmp_path: Path, moment: str) -> Path:
    """The real tracker excerpt with its first moment's rows dated ``moment``."""
    lines = TRACKER.read_text(encoding="utf-8").split("\n")
    changed = [lines[0]] + [line.replace(FIRST_MOMENT, moment, 1) for line in lines[1:]]
    path = tmp_path / "tracker.csv"
    path.write_text("\n".join(changed), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("moment", "reason"),
    [
        ("2099-07-08T16:07:24Z", "future"),
        ("9999-12-31T23:59:59+08:00", "future"),
        ("0001-01-01T00:00:00+08:00", "parse_error"),  # no UTC time: before year 1
        ("0001-01-01T00:00:00", "out_of_window"),
    ],
)
def test_tracker_rows_with_impossible_dates_are_refused_alone(
    tmp_path: Path, moment: str, reason: str
) -> None:
    settings = history_settings(tmp_path)
    request = HistoryRequest(kind="csv", file=str(_tracker(tmp_path, moment)),
                             mapping="gpu_price_track")  # fmt: skip
    outcome = run_history(settings, request)
    assert outcome.status == "partial", outcome.lines
    days = read_frame(settings.warehouse, "SELECT DISTINCT observed_at::DATE AS d FROM offer "
                                          "WHERE citation LIKE 'krisjiang%'")  # fmt: skip
    assert [d.isoformat() for d in days["d"]] == ["2026-07-09"]  # the other moment loads
    failed = {r for s, r, _ in _captured(settings) if s == "failed"}
    assert failed == {reason}


# -- hostile rows alone, long listings ------------------------------------------------------


def test_malformed_listing_rows_are_failed_captures_and_the_rest_loads(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    hostile = [
        _row("00000101000000"),  # year 0
        _row("20251301000000"),  # month 13
        _row("20250102000000", f"{PRICING}\r\nX-Injected: 1"),
        ["too", "few"],
    ]
    with ArchiveServer(_captures("20250909131230")) as server:
        server.answer_body(CDX, _listing(*hostile, _row("20250909131230")))
        outcome = run_history(settings, _wayback(server))
    assert outcome.status == "partial", outcome.lines
    assert _offer_days(settings) == [datetime(2025, 9, 9, 13, 12, 30)]
    reasons = sorted(r for s, r, _ in _captured(settings) if s == "failed")
    assert reasons == ["bad_row", "bad_timestamp", "bad_timestamp", "bad_url"]
    assert len(server.requests("/archive/web/")) == 1


@contextmanager
def long_listing(rows: int, page: bytes) -> Iterator[tuple[str, list[str]]]:
    """A Wayback server listing ``rows`` captures of PRICING (one a minute from 2025-01-01),
    paging them as the CDX server does (``limit``, ``showResumeKey``, ``resumeKey``); every
    capture's bytes are ``page``. Yields its base URL and the queries it was asked."""
    start = datetime(2025, 1, 1)
    stamps = [f"{start + timedelta(minutes=n):%Y%m%d%H%M%S}" for n in range(rows)]
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == CDX:
                asked.append(parts.query)
                self._send(self._listing(parse_qs(parts.query)), "application/json")
            else:
                self._send(page, "text/html")

        def _listing(self, query: dict[str, list[str]]) -> bytes:
            begin = int(query.get("resumeKey", ["0"])[0])
            limit = int(query.get("limit", [str(rows)])[0])
            chosen = [_row(s) for s in stamps[begin : begin + limit]]
            more = begin + limit < rows and query.get("showResumeKey") == ["true"]
            return _listing(*chosen, *([[], [str(begin + limit)]] if more else []))

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/archive", asked
    finally:
        server.shutdown()
        server.server_close()


def test_a_listing_of_100000_captures_is_read_in_pages(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)  # [http] max_page_bytes 8 MB; the listing is ~13 MB
    with long_listing(100_000, PAGE.read_bytes()) as (base, asked):
        request = HistoryRequest(
            kind="wayback", source="runpod", urls=[PRICING], archive_url=base, every="month",
            first_day="2025-01-01", last_day="2025-12-31",
        )  # fmt: skip
        outcome = run_history(settings, request)
    assert outcome.status == "ok", outcome.lines
    assert "100000 listed, 3 kept (one a month)" in outcome.lines[0]  # 100,000 minutes: 70 days
    assert len(asked) > 1 and all("limit=" in q for q in asked)
    months = {d.month for d in _offer_days(settings)}
    assert months == {1, 2, 3}


# -- secrets --------------------------------------------------------------------------------


def test_a_github_token_echoed_in_a_200_answer_is_masked_everywhere(tmp_path: Path) -> None:
    token = "ghp_canary" + "7" * 30
    settings = history_settings(tmp_path)
    assert settings.config_path is not None
    with ArchiveServer(LocalArchive(pages=())) as server:
        echo = {"message": f"Bad credentials for token {token}", "documentation_url": "x"}
        server.answer_body(
            "/github/api/repos/skypilot-org/skypilot-catalog/commits", json.dumps(echo).encode()
        )
        done = subprocess.run(
            [sys.executable, "-m", "gpuprice.main", "history", "skypilot", "lambda", "--version",
             "v5", "--api-url", server.api, "--raw-url", server.raw],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
            env=os.environ | {"GPUPRICE_HOME": str(settings.home), "GITHUB_TOKEN": token,
                              "GPUPRICE_CONFIG": str(settings.config_path)},
        )  # fmt: skip
    said = done.stdout + done.stderr
    assert "Bad credentials" in said and "[redacted]" in said  # the echo happened, masked
    assert token not in said
    stored = read_frame(settings.warehouse, "SELECT error FROM history_import")
    assert token not in str(stored["error"].to_list())
    leaked = [
        p for p in settings.home.rglob("*") if p.is_file() and token.encode() in p.read_bytes()
    ]
    assert leaked == []  # warehouse, Dagster run storage and event logs, compute logs
