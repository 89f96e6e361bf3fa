"""scrapers.archive: CDX answers, one capture a period, GitHub's commit listings and rate
limits, a tracker's CSV through its mapping (the real gpu_price_track excerpt), and the
fetches through the polite client against a loopback archive."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote_plus

import pytest

from demo.market.archive import REAL, REAL_VERSIONS, ArchivedPage, LocalArchive
from scrapers.archive import github
from scrapers.archive.cdx import (
    Capture,
    archive_url,
    cdx_url,
    parse_cdx,
    read_cdx,
    screen,
    served_timestamp,
    url_key,
    usable,
)
from scrapers.archive.fetch import fetch_capture, fetch_catalog, list_captures, list_commits
from scrapers.archive.github import (
    catalog_path,
    commit_url,
    parse_commits,
    parse_rate_limit,
)
from scrapers.archive.periods import one_per_period, period_of
from scrapers.archive.tracker_csv import (
    CsvMapping,
    read_tracker_csv,
    source_name,
    stream_tracker_csv,
)
from scrapers.clock import Window
from scrapers.http import FetchError, PoliteClient
from scrapers.rows import UNKNOWN_GPU, ParseError
from tests.support.archive_server import ArchiveServer

HEADER = ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]
TRACKER = REAL / "trackers" / "gpu_price_track_2026-07-08_09.csv"
PRICING = "https://www.runpod.io/pricing"
RUNPOD_2025 = REAL / "runpod" / "runpod_20250909131230.html"
TRACK = CsvMapping(
    time="observed_at_utc", provider="provider", gpu="raw_label", vram="notes",
    price="price_usd_per_gpu_hour", market="market", citation="gpu_price_track",
)  # fmt: skip


def _row(stamp: str, original: str = "https://www.runpod.io/pricing", **kw: str) -> list[str]:
    values = {"mimetype": "text/html", "statuscode": "200", "digest": "D" + stamp} | kw
    return ["io,runpod)/pricing", stamp, original, values["mimetype"], values["statuscode"],
            values["digest"], "100"]  # fmt: skip


def test_a_cdx_answer_is_read_by_its_header_row() -> None:
    body = json.dumps([HEADER, _row("20250909131230"), _row("20260810082317")]).encode()
    captures = parse_cdx(body, "cdx")
    assert [c.timestamp for c in captures] == ["20250909131230", "20260810082317"]
    assert captures[0].captured_at == datetime(2025, 9, 9, 13, 12, 30)
    assert captures[0].length == 100
    # the field order is the header's, not assumed
    swapped = [HEADER[1], HEADER[0], *HEADER[2:]]
    row = _row("20250909131230")
    body = json.dumps([swapped, [row[1], row[0], *row[2:]]]).encode()
    assert parse_cdx(body, "cdx")[0].timestamp == "20250909131230"


def test_no_capture_is_an_empty_answer_not_an_error() -> None:
    assert parse_cdx(b"[]", "cdx") == [] and parse_cdx(b"", "cdx") == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<html>Temporarily Offline</html>", "not JSON"),
        (b'{"error": "x"}', "not a CDX answer"),
        (json.dumps([["urlkey", "original"]]).encode(), "lacks timestamp"),
        (json.dumps([HEADER, _row("20250101000000"), [], ["a", "b"]]).encode(), "resumption"),
    ],
)
def test_a_broken_cdx_answer_is_refused(body: bytes, says: str) -> None:
    with pytest.raises(ParseError, match=says):
        parse_cdx(body, "cdx")


def test_usable_captures_drop_revisits_non_200_and_repeats() -> None:
    rows = [
        _row("20250101000000"),
        _row("20250101000000"),  # the same capture listed twice
        _row("20250102000000", mimetype="warc/revisit"),
        _row("20250103000000", statuscode="302"),
        _row("20241231000000"),
    ]
    kept = usable(parse_cdx(json.dumps([HEADER, *rows]).encode(), "cdx"))
    assert [c.timestamp for c in kept] == ["20241231000000", "20250101000000"]


def test_urls_name_the_internet_archive_whatever_served_the_bytes() -> None:
    capture = Capture("20230929070808", "https://www.runpod.io/gpu-instance/pricing", "text/html",
                      "200", "X")  # fmt: skip
    assert archive_url(capture) == (
        "https://web.archive.org/web/20230929070808id_/https://www.runpod.io/gpu-instance/pricing"
    )
    query = cdx_url("http://127.0.0.1:1/archive", "www.runpod.io/pricing", date(2023, 1, 1),
                    date(2026, 12, 31))  # fmt: skip
    assert query.startswith("http://127.0.0.1:1/archive/cdx/search/cdx?")
    assert "output=json" in query and "from=20230101" in query and "to=20261231" in query
    assert "filter=statuscode%3A200" in query
    assert served_timestamp("https://x/web/20230929070808id_/https://a") == "20230929070808"


def test_one_capture_per_period_with_spares_and_covered_periods_left_out() -> None:
    stamps = ["20250106090000", "20250107090000", "20250107100000", "20250108090000",
              "20250113000000", "20250201000000"]  # fmt: skip
    captures = [Capture(s, "u", "text/html", "200", s) for s in stamps]
    when = lambda c: c.captured_at  # noqa: E731
    days = one_per_period(captures, when, "day")
    assert [[c.timestamp for c in p] for p in days][1] == ["20250107090000", "20250107100000"]
    weeks = one_per_period(captures, when, "week", spares=1)
    assert [[c.timestamp for c in p] for p in weeks] == [
        ["20250106090000", "20250107090000"], ["20250113000000"], ["20250201000000"],
    ]  # fmt: skip
    months = one_per_period(captures, when, "month", skip={date(2025, 1, 1)})
    assert [[c.timestamp for c in p] for p in months] == [["20250201000000"]]
    assert period_of(date(2025, 1, 12), "week") == date(2025, 1, 6)  # a Sunday: its Monday


def test_github_commits_and_rate_limit_in_githubs_format() -> None:
    archive = LocalArchive()
    path = catalog_path("v5", "lambda")
    answer = archive.answer(
        "GET", f"/github/api/repos/{github.CATALOG_REPO}/commits", f"path={path}&per_page=100"
    )
    assert answer is not None
    commits = parse_commits(answer.body, "commits")
    assert [c.sha[:7] for c in commits] == ["329b483", "a56234d", "c1d585f", "154a32d", "96019a2"]
    assert commits[-1].committed_at == datetime(2023, 1, 17, 17, 22, 11)  # 09:22:11-08:00
    assert commit_url(github.CATALOG_REPO, commits[0].sha) == (
        "https://github.com/skypilot-org/skypilot-catalog/commit/"
        "329b483d862444bc81b48aebe0c154b5c185e9f7"
    )
    limit = parse_rate_limit(archive.answer("GET", "/github/api/rate_limit", "").body, "rl")
    assert limit.limit == limit.remaining == 60
    with pytest.raises(ParseError, match="API rate limit exceeded"):
        parse_commits(b'{"message": "API rate limit exceeded for 127.0.0.1."}', "commits")
    with pytest.raises(ParseError, match="no 40-digit sha"):
        parse_commits(b'[{"sha": "abc", "commit": {}}]', "commits")
    with pytest.raises(ValueError, match="cloud name"):
        catalog_path("v8", "../etc")


def test_the_real_tracker_csv_through_the_bundled_mapping() -> None:
    snapshots = read_tracker_csv(TRACKER.read_bytes(), TRACK, TRACKER.name)
    assert [(s.source, f"{s.observed_at:%m-%d %H:%M}", len(s.rows)) for s in snapshots] == [
        ("lambda", "07-08 16:07", 22), ("runpod", "07-08 16:07", 15),
        ("lambda", "07-09 16:35", 22), ("runpod", "07-09 16:35", 15),
    ]  # fmt: skip
    assert all(s.error is None for s in snapshots)
    lambda_cards = sorted(r.gpu for r in snapshots[0].rows)
    assert lambda_cards.count("b200-180g") == 4 and lambda_cards.count("h100-80g") == 5
    assert lambda_cards.count("a100-40g") == 5 and lambda_cards.count(UNKNOWN_GPU) == 0
    # "NVIDIA GH200 96 GB 64 432 GiB 4 TiB SSD": Lambda's next columns glued on, cut
    assert lambda_cards.count("gh200-96g") == 1 and lambda_cards.count("quadrortx6000-24g") == 1
    runpod = {r.gpu_name_raw: r for r in snapshots[3].rows}
    assert runpod["A100 PCIe"].gpu == "a100-80g" and runpod["A100 PCIe"].vram_gb == 80  # notes
    assert runpod["B300"].gpu == "b300-288g" and runpod["B300"].vram_gb == 288
    assert runpod["H100 SXM"].price == Decimal("2.99")  # 3.29 the day before
    assert {r.price for r in snapshots[1].rows if r.gpu_name_raw == "H100 SXM"} == {Decimal("3.29")}
    row = runpod["RTX 4090"]
    assert (row.unit, row.per_card_hour, row.currency, row.billing) == (
        "USD/card-hour",
        Decimal("0.69"),
        "USD",
        "hourly",
    )
    assert row.offer_id == "Runpod/pods-community-secure-cloud/RTX 4090"


def test_a_tracker_row_that_cannot_be_read_is_rejected_alone() -> None:
    lines = TRACKER.read_bytes().split(b"\n")
    # line 3 of the file: a Lambda row of 2026-07-08, no price ("n/a"); line 4 cut short
    lines[2] = lines[2].replace(b",3.99,", b",n/a,")
    lines[3] = b",".join(lines[3].split(b",")[:4])
    snapshots = read_tracker_csv(b"\n".join(lines), TRACK, "t.csv")
    assert not [s for s in snapshots if s.error]
    (lambda_day,) = [s for s in snapshots if s.rejected]
    assert lambda_day.source == "lambda"
    (price, short) = lambda_day.rejected
    assert (price.where, price.reason, price.unpriced) == ("line 3", "no price given: 'n/a'", True)
    assert "n/a" in price.excerpt and not short.unpriced  # a cut line is a broken one
    assert short.where == "line 4" and "cells, the header has" in short.reason
    assert sum(len(s.rows) for s in snapshots) == 74 - 2  # every other line of the file
    with pytest.raises(ParseError, match="no column raw_label"):
        read_tracker_csv(b"observed_at_utc,provider\n", TRACK, "t.csv")
    assert source_name("Lambda", TRACK) == "lambda"
    assert (
        source_name("Lambda", CsvMapping(**{**TRACK.__dict__, "sources": {"Lambda": "lam"}}))
        == "lam"
    )
    with pytest.raises(ParseError, match="no source name"):
        source_name("仅中文", TRACK)


def test_fetches_go_through_the_polite_client(tmp_path: Path) -> None:
    from configuration.schema import HttpConfig

    http = HttpConfig(retries=1, backoff_s=0.01, min_interval_s=0, read_timeout_s=2)
    gone = ArchivedPage("20240315120000", "https://www.runpod.io/pricing", None)
    archive = LocalArchive(pages=(*LocalArchive().pages, gone))
    with ArchiveServer(archive) as server, PoliteClient(http, respect_robots=False) as client:
        captures = list_captures(client, server.wayback, "www.runpod.io/pricing",
                                 datetime(2024, 1, 1), datetime(2026, 12, 31))  # fmt: skip
        assert [c.timestamp for c in captures] == ["20240315120000", "20250909131230",
                                                   "20260810082317"]  # fmt: skip
        page = fetch_capture(client, server.wayback, captures[1])
        assert page.url == archive_url(captures[1]) and page.fetched_at == captures[1].captured_at
        assert page.body == (REAL / "runpod" / "runpod_20250909131230.html").read_bytes()
        with pytest.raises(FetchError, match="HTTP 404"):
            fetch_capture(client, server.wayback, captures[0])
        server.answer_status("/archive/web/20260810082317id_/https://www.runpod.io/pricing",
                             429, times=1, **{"Retry-After": "0"})  # fmt: skip
        assert fetch_capture(client, server.wayback, captures[2]).body
        path = catalog_path("v5", "lambda")
        commits = list_commits(client, server.api, github.CATALOG_REPO, path,
                               (datetime(2023, 1, 1), datetime(2023, 3, 1)))  # fmt: skip
        assert [c.sha[:7] for c in commits] == ["96019a2", "154a32d"]  # oldest first
        file = fetch_catalog(client, server.raw, github.CATALOG_REPO, commits[0], path)
        assert file.url.startswith("https://raw.githubusercontent.com/skypilot-org/")
        assert file.body == REAL_VERSIONS[0].file.read_bytes()
    hits = [h.path for h in server.hits]
    assert hits.count("/archive/web/20260810082317id_/https://www.runpod.io/pricing") == 2


def test_a_long_commit_listing_is_read_page_by_page(monkeypatch: pytest.MonkeyPatch) -> None:
    from configuration.schema import HttpConfig
    from scrapers.archive import fetch

    monkeypatch.setattr(github, "PER_PAGE", 2)
    monkeypatch.setattr(fetch, "PER_PAGE", 2)
    http = HttpConfig(retries=0, min_interval_s=0)
    with ArchiveServer() as server, PoliteClient(http, respect_robots=False) as client:
        commits = list_commits(client, server.api, github.CATALOG_REPO, catalog_path("v5", "lambda"),
                               (datetime(2022, 1, 1), datetime(2024, 1, 1)))  # fmt: skip
    assert len(commits) == 5
    pages = [h.query for h in server.requests("/github/api/repos")]
    assert [q.split("page=")[-1] for q in pages] == ["1", "2", "3"]


def test_each_bad_cdx_row_is_refused_alone_with_its_reason() -> None:
    good = _row("20250909131230")
    body = json.dumps(
        [
            HEADER,
            ["only", "three", "values"],
            _row("00000101000000"),
            _row("20251301000000"),
            [*good[:6], 100],
            good,
        ]  # fmt: skip
    ).encode()
    page = read_cdx(body, "cdx")
    assert [c.timestamp for c in page.captures] == ["20250909131230"]
    assert [r.reason for r in page.refused] == ["bad_row", "bad_timestamp", "bad_timestamp",
                                                "bad_row"]  # fmt: skip
    assert "not a moment" in page.refused[1].error and page.resume_key is None


def test_a_cdx_page_gives_its_resumption_key_and_the_demo_archive_pages_too() -> None:
    body = json.dumps([HEADER, _row("20250101000000"), [], ["io,runpod)/pricing 20250101!"]])
    assert read_cdx(body.encode(), "cdx").resume_key == "io,runpod)/pricing 20250101!"
    stamps = [f"2025010{d}000000" for d in range(1, 8)]
    archive = LocalArchive(pages=tuple(ArchivedPage(s, PRICING, RUNPOD_2025) for s in stamps))
    query = cdx_url("http://x/archive", "www.runpod.io/pricing", date(2025, 1, 1),
                    date(2025, 1, 31), limit=3).split("?", 1)[1]  # fmt: skip
    seen, key = [], None
    for _ in range(5):
        asked = query + (f"&resumeKey={quote_plus(key)}" if key else "")
        answer = archive.answer("GET", "/archive/cdx/search/cdx", asked)
        assert answer is not None
        page = read_cdx(answer.body, "cdx")
        seen += [c.timestamp for c in page.captures]
        if page.resume_key is None:
            break
        key = page.resume_key
    assert seen == stamps  # 3 + 3 + 1, each once


def test_the_screen_keeps_only_the_page_asked_for_within_the_window() -> None:
    rows = [
        _row("20250101000000", "file:///etc/passwd"),
        _row("20250102000000", "http://169.254.169.254/latest/meta-data/"),
        _row("20250103000000", "http://127.0.0.1:8080/secret"),
        _row("20250104000000", "https://www.runpod.io/pricing\r\nX: 1"),
        _row("20250105000000", "gopher://www.runpod.io/pricing"),
        _row("19991231000000"),
        _row("20990101000000"),
        _row("20250106000000", "http://runpod.io:80/pricing/"),  # the same page, spelt so
        _row("20250107000000"),
    ]
    page = read_cdx(json.dumps([HEADER, *rows]).encode(), "cdx")
    window = Window.of_days(date(2000, 1, 1), date(2025, 12, 31))
    kept, refused = screen(page, "www.runpod.io/pricing", window, now=datetime(2026, 1, 1))
    assert [c.timestamp for c in kept] == ["20250106000000", "20250107000000"]
    assert [r.reason for r in refused] == ["bad_url", "not_asked", "not_asked", "bad_url",
                                           "bad_url", "out_of_window", "future"]  # fmt: skip
    assert all("\r" not in r.original and "\n" not in r.original for r in refused)
    assert url_key("https://WWW.RunPod.io:443/pricing/") == url_key("runpod.io/pricing")
    assert url_key("runpod.io/pricing?x=1") != url_key("runpod.io/pricing")


def test_a_tracker_file_is_read_a_line_at_a_time_in_bounded_snapshots() -> None:
    with TRACKER.open("rb") as stream:
        snapshots = list(stream_tracker_csv(stream, TRACK, "t.csv", max_rows=10))
    # 22 Lambda rows of a moment in parts of 10, 10, 2; RunPod's 15 in 10 and 5 (a full
    # part is given out at once, the rest when the next moment starts)
    assert [(s.source, len(s.rows)) for s in snapshots[:5]] == [
        ("lambda", 10), ("lambda", 10), ("runpod", 10), ("lambda", 2), ("runpod", 5),
    ]  # fmt: skip
    lines = TRACKER.read_bytes().splitlines(keepends=True)
    first = snapshots[0]
    assert first.body == b"".join(lines[:11]) and first.lines == (2, 11)  # verbatim
    assert sum(len(s.rows) for s in snapshots) == 74


@pytest.mark.parametrize(
    ("moment", "says"),
    [
        ("9999-12-31T23:59:59-08:00", "not an ISO 8601 time"),  # past year 9999 in UTC
        ("0001-01-01T00:00:00+08:00", "not an ISO 8601 time"),  # before year 1 in UTC
        ("2026-13-01T00:00:00Z", "not an ISO 8601 time"),
    ],
)
def test_a_tracker_time_that_is_no_utc_moment_refuses_its_snapshot(moment: str, says: str) -> None:
    text = TRACKER.read_text(encoding="utf-8").replace("2026-07-08T16:07:24Z", moment)
    snapshots = read_tracker_csv(text.encode(), TRACK, "t.csv")
    refused = [s for s in snapshots if s.error]
    assert {s.source for s in refused} == {"lambda", "runpod"}
    assert all(says in (s.error or "") and s.observed_at is None for s in refused)
    assert sum(len(s.rows) for s in snapshots) == 37  # the other moment
