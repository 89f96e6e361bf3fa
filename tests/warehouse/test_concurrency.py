"""Concurrency with real processes: readers (`gpuprice sql`'s engine and the dashboard's
read_frame) during writes see no lock errors and do not starve the writer; two pipeline runs
started at once neither corrupt nor double-load."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.support.handles import warehouse_at
from tests.warehouse.test_crash_safety import config, gpuprice, market, state  # noqa: F401
from warehouse.read import sql as safe_sql
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e
DAY = "2026-09-04"


def test_two_runs_started_at_once_neither_corrupt_nor_double_load(market, tmp_path: Path) -> None:  # noqa: F811
    cfg = config(tmp_path, market)
    home = tmp_path / "home"
    procs = [gpuprice(home, cfg, "run", "--as-of", DAY) for _ in range(2)]
    for proc in procs:
        assert proc.wait(180) == 0, proc.stderr.read() if proc.stderr else ""
    done = state(home / "gpuprice.duckdb")
    assert done["runs_ok"] == 4 and done["orphans"] == 0
    # the two runs fetched the same pages: the rows went in once, and the run records agree
    assert done["loaded"] == done["recorded"] > 0
    per_source = read_frame(
        warehouse_at(home / "gpuprice.duckdb"),
        "SELECT source, list(rows ORDER BY finished_at) AS rows FROM scrape_run GROUP BY source",
    )
    for rows in per_source["rows"]:
        assert rows[0] > 0 and rows[1] == 0
    dupes = read_frame(
        warehouse_at(home / "gpuprice.duckdb"),
        "SELECT count(*) - count(DISTINCT (source, offer_id, billing, observed_at)) FROM offer",
    ).item()
    assert dupes == 0


def test_readers_during_writes_see_no_lock_errors_and_the_writer_finishes(
    market,  # noqa: F811
    tmp_path: Path,
) -> None:
    cfg = config(tmp_path, market)
    home = tmp_path / "home"
    path = home / "gpuprice.duckdb"
    errors: list[BaseException] = []
    reads = {0: 0, 1: 0, 2: 0}  # per reader
    stop = threading.Event()

    def reader(n: int, kind: str) -> None:
        while not stop.is_set():
            try:
                if kind == "sql":
                    safe_sql.run(
                        warehouse_at(path), "SELECT count(*) FROM offer", timeout_s=10, wait_s=30
                    )
                else:
                    read_frame(
                        warehouse_at(path),
                        "SELECT source, count(*) FROM offer GROUP BY ALL",
                        wait_s=30,
                    )
                reads[n] += 1
            except BaseException as exc:  # any error is a failure of the guarantee
                errors.append(exc)
            time.sleep(0.02)  # a busy dashboard and a user at `gpuprice sql`

    # 12 days: the backfill writes in spells of ~6 s with the file left to readers for 1 s
    # between them (pipelines.backfill_days), so that every reader gets in while it writes
    writer = gpuprice(home, cfg, "backfill", "--days", "12", "--end", "2026-09-13")
    while not path.exists() and writer.poll() is None:
        time.sleep(0.05)  # readers start once there is a warehouse to read
    threads = [
        threading.Thread(target=reader, args=(n, kind))
        for n, kind in enumerate(("sql", "frame", "sql"))
    ]
    for t in threads:
        t.start()
    code = writer.wait(180)
    while_writing = dict(reads)
    # The writer was not starved: it finished while all three readers were still reading.
    reading = [t.is_alive() for t in threads]
    stop.set()
    for t in threads:
        t.join(30)
    assert code == 0, writer.stderr.read() if writer.stderr else ""
    assert errors == []
    # each reader got in while the backfill was writing, not only after it
    assert all(n >= 1 for n in while_writing.values()), while_writing
    assert reading == [True, True, True]
    assert (
        read_frame(warehouse_at(path), "SELECT count(DISTINCT observed_at::DATE) FROM offer").item()
        >= 12
    )
