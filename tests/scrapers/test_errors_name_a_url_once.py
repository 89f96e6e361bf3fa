"""A recorded error names each URL once (issue 38, item 8). `scrape_run.error` said
"URL: parse error: URL: why", because the adapters start their ParseError with the URL they
were given and the snapshot's error names each page by its URL again: the page's error
(scrapers.collect.parse_page) no longer repeats it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from scrapers.collect import Snapshot, collect, parse_page
from scrapers.http import FetchedPage, PoliteClient
from scrapers.sources import build_adapter
from tests.scrapers.hostile_http import serve
from tests.support.loopback import reply
from warehouse.ingest.load import load_snapshot
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

AT = datetime(2026, 9, 4, 2, 30)
# the demo compshare's URL shape: a query and a fragment, as the adapter is handed it
URL = "http://127.0.0.1:9/compshare/?Action=GetCompShareInstancePrice#Region=cn-wlcb&Gpu=1"


class Http:
    connect_timeout_s = read_timeout_s = 2.0
    total_deadline_s = 10.0
    min_bytes_per_s = 0
    rate_window_s = 10.0
    retries = connect_retries = 0
    backoff_s = max_retry_after_s = min_interval_s = 0.0
    max_page_bytes = 1_000_000
    user_agent = "gpuprice-test"


def test_a_parse_error_names_its_page_once(tmp_path: Path) -> None:
    for name in ("jygpu", "compshare", "lambda"):
        page = FetchedPage(URL, 200, b"<html><body>moved</body></html>", "text/html", AT)
        parsed = parse_page(build_adapter(name), page)
        assert parsed.error is not None and URL not in parsed.error, parsed.error
        snapshot = Snapshot(name, "offers", AT, None, [parsed])
        assert [e.count(URL) for e in snapshot.parse_errors] == [1]
    warehouse = Warehouse(tmp_path / "gpuprice.duckdb")
    load_snapshot(warehouse, snapshot, profile="demo")
    error = read_frame(warehouse, "SELECT error FROM scrape_run")["error"].item()
    assert error.count(URL) == 1 and error.startswith(f"{URL}: parse error: "), error


def test_a_fetch_error_names_its_url_once() -> None:
    with serve() as site:
        site.routes["/p"] = reply(503, b"busy")
        with PoliteClient(Http(), respect_robots=False) as client:
            snapshot = collect(build_adapter("jygpu"), client, site.url, AT, plan=[f"{site.url}/p"])
    assert snapshot.fetch_error is not None
    assert snapshot.fetch_error.count(f"{site.url}/p") == 1, snapshot.fetch_error
