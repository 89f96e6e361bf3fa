"""An observation dated after its page was fetched (beyond an hour) is refused, row by row,
and recorded (issue 31: one jygpu page dated 2099-12-31 hid 10 of 11 platforms from the
comparison page). Real page formats through the real adapters and the loader: the fixture
pages with jygpu's 更新时间 or one of SMM's 日期 moved into the future."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from scrapers.sources import build_adapter
from tests.support.fixture_pages import BAREMETAL, CONTAINER, PAGES_DIR, QUOTES
from warehouse.ingest.load import load_snapshot
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

FETCHED = datetime(2026, 9, 4, 2, 30)  # 10:30 Beijing time, half an hour after the pages' time
STATED = "2026-09-04 10:00(北京时间)"


def page(name: str, url: str, *replacements: tuple[str, str, int]) -> ParsedPage:
    """The fixture page ``name`` with ``replacements`` (old, new, how many of them)."""
    body = (PAGES_DIR / name).read_text(encoding="utf-8")
    for old, new, times in replacements:
        assert old in body, old
        body = body.replace(old, new, times)
    data = body.encode("utf-8")
    source = "smm" if name == QUOTES else "jygpu"
    rows = build_adapter(source).parse(data, url, FETCHED)
    fetched = FetchedPage(
        url=url, status=200, body=data, content_type="text/html", fetched_at=FETCHED
    )
    return ParsedPage(fetched, rows, None)


def load(tmp_path: Path, source: str, *pages: ParsedPage) -> Warehouse:
    warehouse = Warehouse(tmp_path / "gpuprice.duckdb")
    load_snapshot(warehouse, Snapshot(source, "offers", FETCHED, None, list(pages)), profile="demo")
    return warehouse


def test_a_jygpu_page_dated_2099_is_refused_and_the_other_page_loads(tmp_path: Path) -> None:
    dated = page(
        CONTAINER,
        "http://127.0.0.1:8701/market/container?as_of=2026-09-04",
        (STATED, "2099-12-31 10:00(北京时间)", 1),
    )
    assert dated.rows and {r.observed_at.year for r in dated.rows} == {2099}  # as parsed
    other = page(BAREMETAL, "http://127.0.0.1:8701/market/baremetal?as_of=2026-09-04")
    warehouse = load(tmp_path, "jygpu", dated, other)

    offers = read_frame(warehouse, "SELECT max(observed_at) AS newest, count(*) AS n FROM offer")
    assert offers["newest"][0] <= FETCHED and offers["n"][0] == len(other.rows)
    run = read_frame(warehouse, "SELECT status, reason, error FROM scrape_run").row(0)
    assert run[:2] == ("partial", "drift")
    assert f"no row; {len(dated.rows)} rejected" in run[2]
    assert "2099-12-31 02:00 UTC" in run[2] and "2026-09-04 02:30 UTC" in run[2]
    archived = read_frame(
        warehouse, "SELECT parse_status, parse_error FROM raw_page WHERE url LIKE '%container%'"
    ).row(0)
    assert archived[0] == "error" and "the page's date is wrong" in archived[1]  # kept, with why


def test_one_smm_quote_dated_ahead_is_refused_alone(tmp_path: Path) -> None:
    quotes = page(
        QUOTES,
        "http://127.0.0.1:8702/compute/quotes?as_of=2026-09-04",
        ("<td>2026-09-04</td>", "<td>2099-12-31</td>", 1),
    )
    warehouse = load(tmp_path, "smm", quotes)
    stored = read_frame(
        warehouse, "SELECT count(*) AS n, max(observed_at) AS newest FROM spot_quote"
    )
    assert stored["n"][0] == len(quotes.rows) - 1 and stored["newest"][0] <= FETCHED
    assert read_frame(warehouse, "SELECT status FROM scrape_run")["status"][0] == "ok"
    (reason,) = read_frame(warehouse, "SELECT reason FROM rejected_row")["reason"].to_list()
    assert "observed at 2099-12-31" in reason and "the page's date is wrong" in reason


def test_within_the_tolerance_a_page_ahead_of_the_clock_loads(tmp_path: Path) -> None:
    # stated 11:20 Beijing, fetched 10:30: 50 minutes ahead, a clock that is a little off
    ahead = page(
        CONTAINER,
        "http://127.0.0.1:8701/market/container?as_of=2026-09-04",
        (STATED, "2026-09-04 11:20(北京时间)", 1),
    )
    warehouse = load(tmp_path, "jygpu", ahead)
    assert read_frame(warehouse, "SELECT count(*) AS n FROM offer")["n"][0] == len(ahead.rows)
    assert read_frame(warehouse, "SELECT status FROM scrape_run")["status"][0] == "ok"
