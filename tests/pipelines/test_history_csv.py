"""`history csv` end to end: the real gpu_price_track excerpt through the bundled mapping, as
a run of the history job: sources named from the providers, each row citing the file, card
names through scrapers.gpu_names, a re-import adding nothing, a broken snapshot recorded."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from demo.market.archive import REAL
from gpuprice.history_jobs import run_history
from pipelines import history_csv, history_import
from pipelines.history import _Logged
from pipelines.history_import import HistoryRequest, QuietProgress
from tests.support.archive_server import history_settings
from warehouse.derive.metrics import derive
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

TRACKER = REAL / "trackers" / "gpu_price_track_2026-07-08_09.csv"


def _csv(file: Path = TRACKER, **kw: str) -> HistoryRequest:
    return HistoryRequest(
        kind="csv", file=str(file), mapping=kw.pop("mapping", "gpu_price_track"), **kw
    )


def test_a_trackers_csv_loads_per_provider_citing_the_file(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    outcome = run_history(settings, _csv())
    assert outcome.status == "ok", outcome.lines
    assert "4 listed, 4 kept" in outcome.lines[0] and "74 row(s) added" in outcome.lines[0]
    rows = read_frame(
        settings.warehouse,
        "SELECT source, observed_at::DATE AS day, count(*) AS n, "
        "count(*) FILTER (WHERE gpu = 'unknown') AS unknown, bool_or(simulated) AS simulated, "
        "any_value(citation) AS citation FROM offer WHERE source IN ('lambda', 'runpod') "
        "GROUP BY 1, 2 ORDER BY 1, 2",
    )
    assert [(s, n, u) for s, _, n, u, _, _ in rows.rows()] == [
        ("lambda", 22, 0),
        ("lambda", 22, 0),
        ("runpod", 15, 0),
        ("runpod", 15, 0),
    ]  # fmt: skip  (every card known since issue 36: GH200 96 GB, Quadro RTX 6000, B300)
    glued = read_frame(
        settings.warehouse,
        "SELECT DISTINCT gpu_name_raw, gpu FROM offer WHERE gpu_name_raw LIKE '% SSD' "
        "AND gpu IN ('gh200-96g', 'quadrortx6000-24g') ORDER BY 1",
    )
    assert glued.rows() == [  # Lambda's glued columns are not read as sizes
        ("NVIDIA GH200 96 GB 64 432 GiB 4 TiB SSD", "gh200-96g"),
        ("RTX 6000 24 GB 14 46 GiB 512 GiB SSD", "quadrortx6000-24g"),
    ]
    assert not any(rows["simulated"])
    assert all(c.startswith("krisjiang-matrix/gpu_price_track, data/gpu_prices.csv") and
               "gpu_price_track_2026-07-08_09.csv lines" in c for c in rows["citation"])  # fmt: skip
    h100 = read_frame(
        settings.warehouse,
        "SELECT observed_at::DATE AS day, price FROM offer WHERE source = 'runpod' "
        "AND gpu_name_raw = 'H100 SXM' ORDER BY 1",
    )
    assert [p for _, p in h100.rows()] == [Decimal("3.29"), Decimal("2.99")]
    again = run_history(settings, _csv())
    assert again.lines[0].endswith("0 failed; 0 row(s) added") and "0 kept" in again.lines[0]
    total = read_frame(settings.warehouse, "SELECT count(*) AS n FROM offer WHERE citation "
                                           "LIKE 'krisjiang%'")  # fmt: skip
    assert total["n"].item() == 74


def test_one_source_for_every_row_and_a_broken_line_rejected_alone(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    lines = TRACKER.read_bytes().split(b"\n")
    lines[37] = lines[37].replace(b",0.69,", b",free,")  # RunPod RTX 4090, 2026-07-08
    broken = tmp_path / "track.csv"
    broken.write_bytes(b"\n".join(lines))
    outcome = run_history(settings, _csv(broken, source="tracker"))
    assert outcome.status == "ok", outcome.lines
    assert "2 listed" in outcome.lines[0] and "2 parsed, 0 failed" in outcome.lines[0]
    assert "73 row(s) added" in outcome.lines[0]  # 74 lines, the broken one alone left out
    assert "1 listing(s) rejected" in outcome.lines[0]
    assert any(line.startswith("  rejected: ") and "line 38" in line
               and "not a positive number" in line for line in outcome.lines)  # fmt: skip
    stored = read_frame(settings.warehouse, "SELECT source, position, excerpt, reason "
                                            "FROM rejected_row")  # fmt: skip
    assert stored.rows() == [
        ("csv:gpu_price_track", "line 38", stored["excerpt"][0], stored["reason"][0])
    ]
    assert "free" in stored["excerpt"][0] and "not a positive number" in stored["reason"][0]
    sources = read_frame(settings.warehouse, "SELECT DISTINCT source FROM offer WHERE "
                                             "citation LIKE 'krisjiang%'")  # fmt: skip
    assert sources["source"].to_list() == ["tracker"]


def test_an_unknown_mapping_or_file_is_refused(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    refused = run_history(settings, _csv(mapping="nosuch"))
    assert refused.status == "refused" and "known: gpu_price_track" in refused.lines[0]
    missing = run_history(settings, _csv(tmp_path / "absent.csv"))
    assert missing.status == "refused" and "absent.csv" in missing.lines[0]


def test_a_long_import_derives_as_it_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A derive every DERIVE_ROWS rows loaded, not one over the whole import: one derive of
    a 40 MB tracker CSV's 306,000 rows needed DuckDB's 512MB limit and 773 MB resident."""
    monkeypatch.setattr(history_csv, "CHUNK_ROWS", 10)  # a page a snapshot
    monkeypatch.setattr(history_import, "BATCH_ROWS", 20)  # a batch every other snapshot
    monkeypatch.setattr(history_import, "DERIVE_ROWS", 30)
    settings = history_settings(tmp_path)
    outcome = run_history(settings, _csv())
    assert outcome.status == "ok", outcome.lines
    said = "\n".join(outcome.lines)
    assert "74 row(s) added" in said and "(the last of 2 derives, one every 30 rows)" in said, said
    assert derive(settings.warehouse).offer_snapshots == 0  # every snapshot derived already
    derived = read_frame(
        settings.warehouse,
        "SELECT count(DISTINCT observed_at::DATE) AS n FROM breakeven "
        "WHERE source IN ('lambda', 'runpod')",
    )
    assert derived["n"].item() == 2  # both days of the file


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def debug(self, line: str) -> None:
        self.lines.append(line)


def test_the_runs_log_keeps_a_progress_line_a_second_not_one_a_period() -> None:
    """Each line is an event the run storage writes (~4 ms): a line for each of a tracker
    CSV's moments was half of its import's time."""
    log = _Log()
    logged = _Logged(QuietProgress(), log)  # type: ignore[arg-type]
    for n in range(10_000):
        logged.advance(f"period {n}")
    assert log.lines == ["period 0"]
