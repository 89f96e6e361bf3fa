"""The first start's demo history: `gpuprice up` on a demo warehouse with little history
backfills 90 days of it in a background process (``python -m gpuprice.history_seed``), while
Dagster and the dashboard are already up. Progress goes to the terminal and to the status
file the dashboard reads (gpuprice.first_start).

Days are filled oldest first, as a backfill run does: the derived metrics then extend
incrementally instead of recomputing for each day that lands before the newest one.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprice.first_start import BackfillStatus, State, now_iso, read_status, write_status
from gpuprice.settings import ConfigError, Settings, load_settings
from warehouse.ingest.reference import PUBLISHED_SUFFIX
from warehouse.store.db import WarehouseBusy, WarehouseMissing, read_frame

if TYPE_CHECKING:
    from gpuprice.jobs import RunResult

HISTORY_DAYS = 90
# A warehouse with this many days of prices already has a history worth charting: seeding
# it again would only re-fetch pages the warehouse holds.
ENOUGH_DAYS = 30


class _Stopped(Exception):
    """Asked to stop (SIGTERM or Ctrl-C) between two days."""


def days_of_history(settings: Settings) -> int:
    """Distinct days with at least one scraped offer price (the seeds' published prices,
    loaded with the reference data, do not count); 0 for a missing or busy warehouse."""
    try:
        frame = read_frame(
            settings.warehouse_path,
            "SELECT count(DISTINCT CAST(observed_at AS DATE)) AS days FROM offer "
            "WHERE NOT ends_with(source, ?)",
            [PUBLISHED_SUFFIX],
            wait_s=2.0,
        )
    except (WarehouseMissing, WarehouseBusy):
        return 0
    return int(frame["days"][0])


def needs_history(settings: Settings) -> bool:
    """Demo profile only (live history is real and cannot be invented), not already seeded,
    and not already holding ENOUGH_DAYS of prices."""
    if settings.profile != "demo":
        return False
    status = read_status(settings.home)
    if status is not None and status.state == "done":
        return False
    return days_of_history(settings) < ENOUGH_DAYS


def history_days(today: date, days: int = HISTORY_DAYS) -> list[date]:
    """The ``days`` days ending yesterday (today's prices come from the regular run)."""
    return [today - timedelta(days=offset) for offset in range(days, 0, -1)]


def seed_history(settings: Settings, days: int = HISTORY_DAYS) -> int:
    """Backfill the days, writing the status after each; 0 when every day ran, 1 otherwise."""
    from gpuprice.jobs import JobRunner  # Dagster: only the seeding process pays for it

    span = history_days(datetime.now(UTC).date(), days)
    started = now_iso()
    home = settings.home

    def status(state: State, done: int, error: str | None = None) -> None:
        write_status(
            home,
            BackfillStatus(
                state=state,
                days_done=done,
                days_total=len(span),
                started_at=started,
                updated_at=now_iso(),
                first_day=span[0].isoformat() if done else None,
                error=error,
            ),
        )

    status("running", 0)
    print(
        f"history: seeding {len(span)} days of SIMULATED demo history "
        f"({span[0]} .. {span[-1]}) in the background",
        flush=True,
    )
    failed_days: list[str] = []
    done = 0
    stop = threading.Event()

    def on_day(result: RunResult) -> None:
        nonlocal done
        done += 1
        if result.failed:
            failed_days.append(str(result.as_of))
        rows = sum(s.rows_added for s in result.sources)
        print(f"history: {done}/{len(span)} days ({result.as_of}, +{rows} rows)", flush=True)
        for source in result.failed:  # e.g. a platform's simulated layout-change day
            why = f" ({source.reason})" if source.reason else ""
            print(f"history: {result.as_of} {source.source} failed{why}", flush=True)
        status("running", done)
        if stop.is_set():
            raise _Stopped

    errors: list[BaseException] = []

    def fill() -> None:
        try:
            runner = JobRunner(
                settings,
                say=lambda line: print(f"history: {line}", flush=True),
                console_level="CRITICAL",  # the lines above say what failed; Dagster's own
            )  # records (and the health page) keep the details
            runner.backfill(span, on_day)
        except BaseException as exc:  # handed to the main thread, which reports it
            errors.append(exc)

    # The days run on a worker thread: Dagster then leaves the signal handlers alone (it
    # installs its own only on the main thread), so SIGTERM and Ctrl-C from `gpuprice up`
    # reach this thread's handler, and the worker stops after the day it is loading.
    worker = threading.Thread(target=fill, name="history-seed")
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda signum, frame: stop.set())
    worker.start()
    while worker.is_alive():
        worker.join(timeout=0.5)
    error = errors[0] if errors else None
    if isinstance(error, _Stopped):
        status("failed", done, "stopped before the end; the next `make up` seeds again")
        print(f"history: stopped after {done} days", flush=True)
        return 130
    if error is not None:  # recorded for the dashboard; the UI keeps running without it
        status("failed", done, f"{type(error).__name__}: {error}")
        print(f"history: seeding stopped after {done} days: {error}", file=sys.stderr, flush=True)
        return 1
    if failed_days:
        note = f"{len(failed_days)} day(s) had failed sources: {', '.join(failed_days[:5])}"
        status("done", done, note)
        print(f"history: done, {note} (see the health page)", flush=True)
        return 1
    status("done", done)
    print(f"history: done, {done} days seeded", flush=True)
    return 0


def start_in_background(settings: Settings) -> subprocess.Popen:
    """Start ``seed_history`` as its own process, its progress lines on this terminal, so
    `gpuprice up` and the UI never wait for it."""
    argv = [sys.executable, "-m", "gpuprice.history_seed", str(settings.home.resolve())]
    if settings.config_path:
        argv.append(str(Path(settings.config_path).resolve()))
    return subprocess.Popen(argv, start_new_session=True)


def main(argv: list[str]) -> int:
    home = Path(argv[0]) if argv else None
    config = Path(argv[1]) if len(argv) > 1 else None
    try:
        settings = load_settings(config, home=home, profile="demo")
    except ConfigError as exc:
        print(f"history: {exc}", file=sys.stderr)
        return 2
    return seed_history(settings)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
