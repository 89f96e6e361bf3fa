"""`gpuprice fx import FILE|URL` end to end: the real ECB capture (tests/fixtures/real/ecb/)
from a file and, zipped, from a local server; the rates land in fx_rate once, and a USD offer
loaded afterwards is converted at the ECB rate of its own day (the nearest earlier one on a
TARGET holiday)."""

from __future__ import annotations

import io
import threading
import zipfile
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from configuration.settings import load_settings
from gpuprice.cli import app
from scrapers.collect import ParsedPage, Snapshot
from scrapers.ecb import ecb_source
from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from scrapers.http import FetchedPage
from tests.support.listed_usd import ListedAdapter
from warehouse.ingest.fx_rates import read_rates, store_rates
from warehouse.ingest.load import load_snapshot
from warehouse.store.db import read_connection, read_frame, write_connection
from warehouse.store.handle import Warehouse

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "ecb" / "eurofxref-hist.csv"
D = Decimal
DEFAULT = FxRate(date(2026, 9, 1), "USD", D("7.10"), f"{CONFIGURED_DEFAULT}: test")
runner = CliRunner()


@pytest.fixture
def warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Warehouse:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)
    return load_settings(None).warehouse


@pytest.fixture
def ecb_server() -> Iterator[str]:
    body = io.BytesIO()
    with zipfile.ZipFile(body, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("eurofxref-hist.csv", CAPTURE.read_bytes())
    payload = body.getvalue()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/stats/eurofxref/eurofxref-hist.zip":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/zip")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def usd_rates(warehouse: Warehouse) -> list[FxRate]:
    with read_connection(warehouse) as con:
        return [r for r in read_rates(con) if r.currency == "USD"]


def test_import_a_file_then_again_adds_nothing(warehouse: Warehouse) -> None:
    first = runner.invoke(app, ["fx", "import", str(CAPTURE)])
    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines()[0].startswith(
        "fx: 612 USD→CNY rates from the ECB (2005-04-01 .. 2025-05-09), 0 already stored"
    )
    assert len(first.stdout.splitlines()) == 1
    stored = usd_rates(warehouse)
    assert len(stored) == 612 and {r.source for r in stored} == {ecb_source(str(CAPTURE))}
    by_day = {r.day: r.cny_per_unit for r in stored}
    assert by_day[date(2023, 1, 2)] == D("6.898624")  # 7.3698 / 1.0683
    again = runner.invoke(app, ["fx", "import", str(CAPTURE)])
    assert again.exit_code == 0, again.output
    assert "fx: 0 USD→CNY rates" in again.stdout and "612 already stored" in again.stdout
    assert usd_rates(warehouse) == stored


def test_import_the_zip_from_a_url(warehouse: Warehouse, ecb_server: str) -> None:
    url = f"{ecb_server}/stats/eurofxref/eurofxref-hist.zip"
    result = runner.invoke(app, ["fx", "import", url])
    assert result.exit_code == 0, result.output
    assert "fx: 612 USD→CNY rates from the ECB" in result.stdout
    stored = usd_rates(warehouse)
    assert {r.source for r in stored} == {ecb_source(url)}
    assert {r.day: r.cny_per_unit for r in stored}[date(2025, 5, 9)] == D("7.240491")


def test_a_configured_default_is_replaced_and_a_fetched_rate_is_kept(
    warehouse: Warehouse,
) -> None:
    fetched = FxRate(date(2024, 12, 24), "USD", D("7.30"), "https://open.er-api.example")
    default = FxRate(date(2025, 5, 9), "USD", D("7.10"), f"{CONFIGURED_DEFAULT}: test")
    with write_connection(warehouse) as con:
        store_rates(con, [fetched, default])
    result = runner.invoke(app, ["fx", "import", str(CAPTURE)])
    assert result.exit_code == 0, result.output
    assert "fx: 611 USD→CNY rates" in result.stdout
    assert "1 already stored, 1 configured default(s) replaced" in result.stdout
    by_day = {r.day: r for r in usd_rates(warehouse)}
    assert by_day[date(2024, 12, 24)] == fetched  # rows may have been converted at it
    assert by_day[date(2025, 5, 9)].cny_per_unit == D("7.240491")
    assert by_day[date(2025, 5, 9)].source == ecb_source(str(CAPTURE))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"Date,USD,JPY,\n2025-05-09,1.1252,163.36,", "no CNY column"),
        (b"Date,USD,CNY,\n2025-05-09,1.1252,x,", "CNY 'x' is not a number"),
        (b"Date,USD,CNY,\n2025-02-30,1.1252,8.1,", "not a day YYYY-MM-DD"),
        (b"PK\x03\x04 not really", "not a readable zip"),
    ],
)
def test_a_broken_file_is_one_line_and_exit_2(
    warehouse: Warehouse, tmp_path: Path, content: bytes, message: str
) -> None:
    bad = tmp_path / "eurofxref-hist.csv"
    bad.write_bytes(content)
    result = runner.invoke(app, ["fx", "import", str(bad)])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_missing_file_or_url_is_one_line_and_exit_2(
    warehouse: Warehouse, tmp_path: Path, ecb_server: str
) -> None:
    for where, message in (
        (str(tmp_path / "nope.csv"), "No such file"),
        (f"{ecb_server}/missing.zip", "HTTP 404"),
    ):
        result = runner.invoke(app, ["fx", "import", where])
        assert result.exit_code == 2, result.output
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_after_import_a_usd_offer_is_converted_at_its_days_ecb_rate(
    warehouse: Warehouse,
) -> None:
    assert runner.invoke(app, ["fx", "import", str(CAPTURE)]).exit_code == 0
    url = "https://cloud.example/pricing"
    for at in (
        datetime(2024, 12, 24, 10, 0),  # an ECB day: 7.5843 / 1.0395 = 7.296104
        datetime(2024, 12, 26, 10, 0),  # TARGET holiday: the 24th's rate
        datetime(2025, 4, 21, 10, 0),  # Easter Monday: Thursday 17th's, 8.29 / 1.136
        datetime(2023, 1, 2, 10, 0),  # 7.3698 / 1.0683 = 6.898624
    ):
        page = FetchedPage(url, 200, b"2", "text/html", at)
        parsed = ParsedPage(page, ListedAdapter().parse(b"2", url, at), None)
        snap = Snapshot("examplecloud", "offers", at, None, [parsed])
        summary = load_snapshot(warehouse, snap, profile="live", fx_defaults=(DEFAULT,))
        assert summary.status == "ok" and summary.fx_note is None  # never the default
    rows = read_frame(
        warehouse, "SELECT observed_at::DATE, cny_per_card_hour FROM offer ORDER BY 1"
    ).rows()
    assert rows == [
        (date(2023, 1, 2), D("13.797248")),  # 2 × 6.898624
        (date(2024, 12, 24), D("14.592208")),  # 2 × 7.296104
        (date(2024, 12, 26), D("14.592208")),
        (date(2025, 4, 21), D("14.595070")),  # 2 × 7.297535
    ]


def test_fx_list_shows_the_imported_rates_of_a_currency_since_a_day(warehouse: Warehouse) -> None:
    assert runner.invoke(app, ["fx", "import", str(CAPTURE)]).exit_code == 0
    result = runner.invoke(app, ["fx", "list", "--currency", "usd", "--since", "2025-05-08"])
    assert result.exit_code == 0, result.output
    assert "2025-05-08" in result.stdout and "2025-05-09" in result.stdout
    assert "7.240491" in result.stdout and "2025-05-07" not in result.stdout
    assert result.stdout.rstrip().endswith("2 rate(s)")
    assert (
        runner.invoke(app, ["fx", "list", "--currency", "EUR"])
        .stdout.rstrip()
        .endswith("0 rate(s)")
    )
    bad = runner.invoke(app, ["fx", "list", "--since", "2025-02-30"])
    assert bad.exit_code == 2 and "--since" in bad.stderr
