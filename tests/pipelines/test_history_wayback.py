"""`history wayback` end to end: the history job (real Dagster, in the home's persistent
instance) against a loopback Wayback server serving the real captures of
tests/fixtures/real/, plus what a real archive also answers: a capture it lost (404), a 200
that is not a pricing page, same-day duplicates in the listing, a 429 before the answer, a
body cut short. Then resuming, digests already archived, the FX of the day, a generic
source, and the Dagster run on record."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import dagster as dg
import pytest

from demo.market.archive import REAL, REAL_PAGES, ArchivedPage, LocalArchive
from gpuprice.history_jobs import run_history
from pipelines.derived import watch_rules
from pipelines.history_import import HistoryRequest
from scrapers.ecb import parse_ecb_history
from tests.support.archive_server import ArchiveServer, history_settings
from tests.support.loopback import free_port
from warehouse.ingest.fx_rates import import_rates
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

PRICING = "https://www.runpod.io/pricing"
RUNPOD = tuple(p for p in REAL_PAGES if "runpod" in p.original)
LAMBDA = tuple(p for p in REAL_PAGES if "lambda" in p.original)
GONE = ArchivedPage("20240315120000", PRICING, None)  # listed, but the archive lost it
NOT_PRICING = ArchivedPage("20241001000000", PRICING, REAL / "generic" / "gcp.html")
CUT = ArchivedPage("20250101000000", PRICING, REAL / "runpod" / "runpod_20260810082317.html")
SAME_DAY = ArchivedPage("20250909180000", PRICING, REAL / "runpod" / "runpod_20250909131230.html")


def _raw(page: ArchivedPage) -> str:
    return f"/archive/web/{page.timestamp}id_/{page.original}"


def _expected_rows(name: str) -> int:
    spec = json.loads((REAL / "runpod" / f"{name}.expected.json").read_text(encoding="utf-8"))
    return len(spec["rows"])


def _wayback(server: ArchiveServer, source: str = "runpod", every: str = "day") -> HistoryRequest:
    return HistoryRequest(kind="wayback", source=source, archive_url=server.wayback, every=every)


def test_captures_load_as_real_rows_and_failures_are_recorded(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    archive = LocalArchive(pages=(*RUNPOD, GONE, NOT_PRICING, CUT, SAME_DAY))
    with ArchiveServer(archive) as server:
        server.answer_status(_raw(RUNPOD[2]), 429, times=1, **{"Retry-After": "0"})
        server.truncate(_raw(CUT))
        outcome = run_history(settings, _wayback(server))
    assert outcome.status == "partial", outcome.lines
    head = outcome.lines[0]
    assert "7 listed, 6 kept (one a day), 4 fetched" in head and "3 parsed, 3 failed" in head
    assert "2023-09-29 .. 2026-08-10 (UTC)" in head
    rows = read_frame(
        settings.warehouse,
        "SELECT observed_at, count(*) AS n, bool_or(simulated) AS simulated, "
        "any_value(citation) AS citation FROM offer WHERE source = 'runpod' GROUP BY 1 ORDER BY 1",
    )
    # one snapshot per capture, at the capture's time: the 2023 Next.js generation, the 2025
    # Webflow page and the 2026 JSON-LD page, each read by the same adapter, by content
    assert rows["observed_at"].to_list() == [
        datetime(2023, 9, 29, 7, 8, 8), datetime(2025, 9, 9, 13, 12, 30),
        datetime(2026, 8, 10, 8, 23, 17),
    ]  # fmt: skip
    assert rows["n"].to_list() == [
        _expected_rows("runpod_20230929070808.html"), _expected_rows("runpod_20250909131230.html"),
        _expected_rows("runpod_20260810082317.html"),
    ]  # fmt: skip
    assert not any(rows["simulated"])
    assert rows["citation"].to_list() == [
        f"https://web.archive.org/web/{p.timestamp}id_/{p.original}" for p in RUNPOD
    ]  # the Internet Archive's URL, never the loopback server's
    failed = read_frame(
        settings.warehouse,
        "SELECT observed_at, origin, reason, error, retry FROM history_capture "
        "WHERE status = 'failed' ORDER BY observed_at",
    )
    assert failed["reason"].to_list() == ["not_found", "parse_error", "truncated"]
    assert failed["retry"].to_list() == [False, False, True]
    assert failed["origin"].to_list() == [
        f"https://web.archive.org/web/{p.timestamp}id_/{PRICING}" for p in (GONE, NOT_PRICING, CUT)
    ]
    assert "not a RunPod pricing page" in failed["error"][1]
    assert all(f"failed: https://web.archive.org/web/{p.timestamp}id_" in "\n".join(outcome.lines)
               for p in (GONE, NOT_PRICING, CUT))  # fmt: skip
    hits = [h.path for h in server.hits]
    assert hits.count(_raw(RUNPOD[2])) == 2  # 429, then the capture
    assert _raw(SAME_DAY) not in hits  # a spare of its day: the day's first capture loaded
    stored = read_frame(settings.warehouse, "SELECT url, parse_status FROM raw_page ORDER BY url")
    assert ("https://web.archive.org/web/20241001000000id_/" + PRICING, "error") in stored.rows()


def test_a_second_import_fetches_only_what_is_new(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    with ArchiveServer(LocalArchive(pages=RUNPOD[:2])) as server:
        first = run_history(settings, _wayback(server, every="week"))
        assert first.status == "ok" and "2 parsed" in first.lines[0]
        again = run_history(settings, _wayback(server, every="week"))
        assert again.lines[0].startswith("history wayback runpod: 0 listed, 0 kept")
        server.archive = LocalArchive(pages=RUNPOD)  # the archive captured the page again
        third = run_history(settings, _wayback(server, every="week"))
    assert "1 listed, 1 kept (one a week), 1 fetched" in third.lines[0]
    captures = [h.path for h in server.requests("/archive/web/")]
    assert sorted(captures) == sorted(_raw(p) for p in RUNPOD)  # each fetched once
    cdx = [h.query for h in server.requests("/archive/cdx")]
    assert "from=20250909" in cdx[-1]  # listed from the cursor on
    imports = read_frame(
        settings.warehouse, "SELECT rows_added FROM history_import ORDER BY started_at"
    )
    assert imports["rows_added"].to_list()[1] == 0
    total = read_frame(
        settings.warehouse, "SELECT count(*) AS n FROM offer WHERE source = 'runpod'"
    )
    assert total["n"].item() == sum(_expected_rows(p.file.name) for p in RUNPOD)


def test_a_digest_already_archived_is_not_fetched_again(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    again = ArchivedPage("20250916090000", PRICING, RUNPOD[1].file)  # the same bytes a week on
    with ArchiveServer(LocalArchive(pages=(RUNPOD[1], again))) as server:
        outcome = run_history(settings, _wayback(server))
    assert "2 kept (one a day), 1 fetched, 1 already archived, 2 parsed" in outcome.lines[0]
    assert _raw(again) not in [h.path for h in server.hits]
    days = read_frame(settings.warehouse, "SELECT DISTINCT observed_at FROM offer "
                                          "WHERE source = 'runpod' ORDER BY 1")  # fmt: skip
    assert days["observed_at"].to_list() == [datetime(2025, 9, 9, 13, 12, 30),
                                             datetime(2025, 9, 16, 9, 0)]  # fmt: skip
    assert read_frame(settings.warehouse, "SELECT count(*) AS n FROM raw_page")["n"].item() == 1


def test_rows_are_converted_at_the_rate_of_their_own_day(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    ecb = REAL / "ecb" / "eurofxref-hist.csv"
    import_rates(settings.warehouse, parse_ecb_history(ecb.read_bytes(), "ECB"))
    with ArchiveServer(LocalArchive(pages=LAMBDA + RUNPOD[:1])) as server:
        lam = run_history(settings, _wayback(server, "lambda"))
        run_history(settings, _wayback(server, "runpod"))
    rows = read_frame(
        settings.warehouse,
        "SELECT source, observed_at, price, unit, gpu_count, cny_per_card_hour FROM offer "
        "WHERE observed_at < '2024-01-01' AND billing = 'hourly'",
    )
    # read in tests/fixtures/real/ecb/eurofxref-hist.csv: CNY and USD per euro
    friday = (Decimal("7.7352") / Decimal("1.0594")).quantize(Decimal("0.000001"))  # 2023-09-29
    before_saturday = (Decimal("7.8565") / Decimal("1.0704")).quantize(Decimal("0.000001"))
    for source, at, price, unit, cards, cny in rows.rows():
        per_card = price if "/card-" in unit else price / cards  # an instance's price per card
        rate = friday if source == "runpod" else before_saturday  # 2023-09-09 is a Saturday
        assert at.date().isoformat() in ("2023-09-29", "2023-09-09")
        assert abs(cny - per_card * rate) < Decimal("0.000005"), (source, at, per_card, cny)
    assert any("nearest earlier day's rate" in line for line in lam.lines)
    assert not any("CONFIGURED DEFAULT" in line for line in lam.lines)  # 2026: the 2025-05 rate


def test_a_generic_source_imports_the_same_way(tmp_path: Path) -> None:
    settings = history_settings(
        tmp_path,
        '\n[sources.hyperstack]\nadapter = "generic"\nlive_url = "https://www.hyperstack.cloud"\n'
        'archived_urls = ["www.hyperstack.cloud/gpu-pricing"]\n'
        '[sources.hyperstack.extract]\npaths = ["/gpu-pricing"]\n',
    )
    page = next(p for p in REAL_PAGES if "hyperstack" in p.original)
    with ArchiveServer(LocalArchive(pages=(page,))) as server:
        outcome = run_history(settings, _wayback(server, "hyperstack"))
    spec = json.loads(
        (REAL / "generic" / "hyperstack_20240822101707.html.expected.json").read_text()
    )
    assert outcome.status == "ok", outcome.lines
    found = read_frame(settings.warehouse, "SELECT count(*) AS n, min(observed_at) AS at "
                                           "FROM offer WHERE source = 'hyperstack'")  # fmt: skip
    assert found.row(0) == (len(spec["rows"]), datetime(2024, 8, 22, 10, 17, 7))


def test_each_import_is_a_dagster_run_of_the_history_job(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    with ArchiveServer(LocalArchive(pages=RUNPOD[:1])) as server:
        outcome = run_history(settings, _wayback(server))
        refused = run_history(settings, _wayback(server, "nosuchsource"))
    assert refused.status == "refused" and "no source 'nosuchsource'" in refused.lines[0]
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        runs = instance.get_runs(dg.RunsFilter(job_name="history_import_job"))
        ok = instance.get_run_by_id(outcome.run_id)
    assert len(runs) == 2 and ok is not None and ok.status == dg.DagsterRunStatus.SUCCESS
    recorded = read_frame(settings.warehouse, "SELECT dagster_run_id, status FROM history_import")
    assert recorded.rows() == [(outcome.run_id, "ok")]


def test_an_archive_that_cannot_be_reached_fails_the_import_saying_so(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    closed = f"http://127.0.0.1:{free_port()}/archive"
    request = HistoryRequest(kind="wayback", source="runpod", archive_url=closed)
    outcome = run_history(settings, request)
    assert outcome.status == "failed"
    said = "\n".join(outcome.lines)
    assert "listing of www.runpod.io/gpu-instance/pricing failed" in said
    assert f"stopped: the archive at {closed} could not list any URL" in said
    recorded = read_frame(settings.warehouse, "SELECT status, error FROM history_import")
    assert recorded.row(0)[0] == "failed" and closed in recorded.row(0)[1]


def test_an_import_moves_the_watch_rules_past_the_history_it_loaded(tmp_path: Path) -> None:
    from warehouse.derive.alerts import evaluate
    from warehouse.store.db import write_connection

    rule = (
        '\n[[alerts.rules]]\nname = "r"\ngpu = "h100-80g"\nsource = "runpod"\n'
        "usage_hours = 300\nthreshold_pct = 5\n"
    )
    settings = history_settings(tmp_path, rule)
    rules = watch_rules(settings)
    before = datetime(2020, 1, 1)
    with write_connection(settings.warehouse) as con:  # a rule the scheduled run evaluated
        con.execute(
            "INSERT INTO alert_rule_state VALUES ('r', ?, ?, 100, NULL, NULL, ?, 100, NULL, "
            "NULL, 'hourly', ?, 0)",
            [rules[0].fingerprint(), before, before, before],
        )
    with ArchiveServer(LocalArchive(pages=RUNPOD)) as server:
        outcome = run_history(settings, _wayback(server))
    assert "alerts: 1 watch rule(s) now start after 2026-08-10" in "\n".join(outcome.lines)
    state = read_frame(settings.warehouse, "SELECT last_observed_at, baseline_observed_at "
                                           "FROM alert_rule_state")  # fmt: skip
    assert state.row(0) == (datetime(2026, 8, 10, 8, 23, 17), before)  # baseline kept
    assert evaluate(settings.warehouse, rules).new_alerts == []  # the next run: no news
    assert read_frame(settings.warehouse, "SELECT count(*) AS n FROM alert")["n"].item() == 0
