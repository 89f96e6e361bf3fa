"""Secrets are redacted by value everywhere: canary credentials that a hostile server echoes
back (in a 200 body, a 503 body, an answer whose parse error quotes them) are found nowhere:
not in any file under $GPUPRICE_HOME (the warehouse and its serving copy, the run log, the
Dagster instance's storage: event log, compute logs), not in any table, not on the console,
not in what the notification webhook received."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from scrapers.redaction import MARKER
from tests.support.handles import warehouse_at
from tests.support.live_settings import FAST_HTTP, sources
from tests.support.webhook_receiver import Receiver, running_receiver
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

# Canary credentials, one per configured secret (both halves of the UCloud key pair too).
SECRETS = {
    "GPUPRICE_GPUSHARE_TOKEN": "gpushare-canary-7a1e90",
    "GPUPRICE_PPIO_API_KEY": "ppio-canary-3f6b21",
    "GPUPRICE_LAMBDA_API_KEY": "lambda-canary-c0ffee42",
    "GPUPRICE_UCLOUD_PUBLIC_KEY": "ucloud-public-canary-5d1",
    "GPUPRICE_UCLOUD_PRIVATE_KEY": "ucloud-private-canary-9e8",
    "GPUPRICE_SMM_COOKIE": "SESSION=smm-canary-44b2",
    "GPUPRICE_AUTODL_TOKEN": "autodl-canary-18d7",
    "GITHUB_TOKEN": "ghp_githubcanary0123456789",
}
NOTIFY_SECRET = "notify-canary-6c2d"
SOURCES = ("gpushare", "ppio", "lambda", "compshare", "smm", "autodl")


class Hostile(BaseHTTPRequestHandler):
    """Echoes every request's headers and body back, as the error pages of some APIs do, in
    the way each source's path asks for; and, like a server that prints its own copy of the
    key pair, the private half and the CI token too (they are never sent)."""

    def _heard(self) -> str:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        headers = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
        leaked = f"{SECRETS['GPUPRICE_UCLOUD_PRIVATE_KEY']} {SECRETS['GITHUB_TOKEN']}"
        return f"you sent {headers} {body} {leaked}"

    def _send(self, status: int, body: str, kind: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self._send(404, "", "text/plain")
            return
        heard = self._heard()
        source = self.path.split("/")[1]
        if source == "ppio":  # a 503 that prints the request (every attempt)
            self._send(503, f"Service Unavailable: {heard}", "text/plain")
        elif source in ("lambda", "smm"):  # a 200 page quoting it
            self._send(200, f"<html><body><p>login: {heard}</p></body></html>", "text/html")
        elif source == "compshare":
            self._send(200, json.dumps({"RetCode": 171, "Message": heard}), "application/json")
        else:  # an API error whose message the parser quotes in its error
            self._send(200, json.dumps({"code": 401, "msg": heard}), "application/json")

    do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hostile() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def run_live(tmp_path: Path, url: str, receiver: Receiver) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        FAST_HTTP + sources(**{name: {"live_url": f"{url}/{name}"} for name in SOURCES}),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPRICE_")}
    env |= SECRETS | {
        "GPUPRICE_HOME": str(tmp_path / "home"),
        "GPUPRICE_PROFILE": "live",
        "GPUPRICE_CONFIG": str(config),
        "GPUPRICE_NOTIFY_URLS": receiver.url(f"hook/{NOTIFY_SECRET}"),
    }
    gpuprice = Path(sys.executable).parent / "gpuprice"
    return subprocess.run(
        [str(gpuprice), "run", "--verbose"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def every_table(home: Path) -> str:
    """Every row of every table of the warehouse, as text (the file's strings may be
    compressed, so reading the bytes alone could miss one)."""
    warehouse = warehouse_at(home / "gpuprice.duckdb")
    names = read_frame(warehouse, "SELECT table_name FROM information_schema.tables")
    dumps = []
    for (name,) in names.rows():
        frame = read_frame(warehouse, f'SELECT * FROM "{name}"')
        for row in frame.to_dicts():
            dumps.append(
                " ".join(
                    v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
                    for v in row.values()
                )
            )
    return "\n".join(dumps)


def test_echoed_canaries_are_found_nowhere(tmp_path: Path, hostile: str) -> None:
    with running_receiver() as receiver:
        done = run_live(tmp_path, hostile, receiver)
        received = json.dumps(receiver.accepted)
    home = tmp_path / "home"
    console = done.stdout + done.stderr
    assert done.returncode == 1, console  # the sources failed, and said so
    assert "Traceback" not in console

    tables = every_table(home)
    files = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert any(p.suffix == ".duckdb" for p in files) and any("dagster" in p.parts for p in files)
    assert (home / "logs" / "gpuprice.log").exists()
    canaries = [*SECRETS.values(), NOTIFY_SECRET]
    for canary in canaries:
        assert canary not in console, canary
        assert canary not in tables, canary
        assert canary not in received, canary
        for path, data in files.items():
            assert canary.encode() not in data, (canary, path)

    # not vacuous: the server did echo them, and what it echoed was kept, masked
    assert MARKER in tables and MARKER in console
    errors = dict(
        read_frame(
            warehouse_at(home / "gpuprice.duckdb"), "SELECT source, error FROM scrape_run"
        ).rows()
    )
    assert set(errors) == set(SOURCES)
    assert MARKER in errors["gpushare"] and MARKER in errors["autodl"]
    assert receiver.accepted, "the scraper-broken alerts went out (masked)"
