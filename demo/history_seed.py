"""The first start's demo history: `gpuprice up` on a demo warehouse with little history
backfills 90 days of it in a background process (``python -m gpuprice.history_process``), while
Dagster and the dashboard are already up. Progress goes to the terminal and to the status
file the dashboard reads (configuration.first_start).

Days are filled oldest first, as a backfill run does: the derived metrics then extend
incrementally instead of recomputing for each day that lands before the newest one.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Protocol

from configuration.first_start import BackfillStatus, State, now_iso, read_status, write_status
from configuration.settings import Settings
from warehouse.ingest.reference import PUBLISHED_SUFFIX
from warehouse.store.db import WarehouseBusy, WarehouseMissing, read_frame

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
            settings.warehouse,
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


def deliberate_layout_change(settings: Settings, source: str, day: date | None) -> bool:
    """On ``day`` the demo market serves ``source`` in a changed layout on purpose (a few
    days of every platform's SIMULATED history, for the drift detector to catch: see
    demo.market.platforms.model); only when a day is asked for, never today's pages."""
    if settings.profile != "demo" or day is None:
        return False
    # Imported here: the price model is only needed to explain a failure.
    from demo.market import PLATFORM_SOURCES
    from demo.market.platforms import layout_change_days

    if source not in PLATFORM_SOURCES:
        return False
    return day in layout_change_days(settings.file.demo_market.seed, source)


def history_days(today: date, days: int = HISTORY_DAYS) -> list[date]:
    """The ``days`` days ending yesterday (today's prices come from the regular run)."""
    return [today - timedelta(days=offset) for offset in range(days, 0, -1)]


class SourceOutcome(Protocol):
    source: str
    reason: str | None
    rows_added: int


class DayOutcome(Protocol):
    """What one backfilled day reports (gpuprice.jobs.RunResult is one)."""

    as_of: date | None

    @property
    def sources(self) -> Sequence[SourceOutcome]: ...

    @property
    def failed(self) -> Sequence[SourceOutcome]: ...


# Runs the days' job, calling back after each day; the entry point hands it in (it launches
# Dagster jobs), so the demo needs no knowledge of how a job is run.
Backfill = Callable[[list[date], Callable[[DayOutcome], None]], None]
# The console's one line for a failed source of a day (the entry point's, shared with
# `gpuprice run` and `backfill`: gpuprice.run_summary.failure_line).
FailureLine = Callable[[DayOutcome, SourceOutcome], str]


def _plain_line(day: DayOutcome, source: SourceOutcome) -> str:
    why = f" ({source.reason})" if source.reason else ""
    return f"{day.as_of} {source.source} failed{why}"


# A day's failure the demo made on purpose (deliberate_layout_change, settings bound).
Deliberate = Callable[[str, date | None], bool]
# How many days a closing line names before it says how many more there were.
NAMED_DAYS = 8


def _days_text(days: list[str]) -> str:
    """Every day, or the first NAMED_DAYS and how many more: a count and its list agree."""
    if len(days) <= NAMED_DAYS:
        return ", ".join(days)
    return f"{', '.join(days[:NAMED_DAYS])} and {len(days) - NAMED_DAYS} more"


class _Progress:
    """The seeding's status file and terminal lines, one day at a time."""

    def __init__(
        self,
        home: Path,
        span: list[date],
        failure_line: FailureLine,
        deliberate: Deliberate = lambda source, day: False,
    ) -> None:
        self.home, self.span = home, span
        self.failure_line, self.deliberate = failure_line, deliberate
        self.started = now_iso()
        self.done = 0
        self.failed_days: list[str] = []  # a source failed, and not on purpose
        self.layout_days: list[str] = []  # only the demo's deliberate layout changes
        self.stop = threading.Event()

    def status(self, state: State, error: str | None = None) -> None:
        write_status(
            self.home,
            BackfillStatus(
                state=state,
                days_done=self.done,
                days_total=len(self.span),
                started_at=self.started,
                updated_at=now_iso(),
                first_day=self.span[0].isoformat() if self.done else None,
                error=error,
            ),
        )

    def on_day(self, result: DayOutcome) -> None:
        self.done += 1
        on_purpose = [
            s
            for s in result.failed
            if s.reason == "drift" and self.deliberate(s.source, result.as_of)
        ]
        if len(on_purpose) < len(result.failed):
            self.failed_days.append(str(result.as_of))
        elif on_purpose:
            self.layout_days.append(str(result.as_of))
        rows = sum(s.rows_added for s in result.sources)
        print(
            f"history: {self.done}/{len(self.span)} days ({result.as_of}, +{rows} rows)", flush=True
        )
        for source in result.failed:  # e.g. a platform's simulated layout-change day
            print(f"history: {self.failure_line(result, source)}", flush=True)
        self.status("running")
        if self.stop.is_set():
            raise _Stopped


def _run_on_worker(progress: _Progress, backfill: Backfill) -> BaseException | None:
    """Run the backfill on a worker thread and return what it raised, if anything.

    A worker thread, because Dagster then leaves the signal handlers alone (it installs its
    own only on the main thread): SIGTERM and Ctrl-C from `gpuprice up` reach this thread's
    handler, and the worker stops after the day it is loading."""
    errors: list[BaseException] = []

    def fill() -> None:
        try:
            backfill(progress.span, progress.on_day)
        except BaseException as exc:  # handed to the main thread, which reports it
            errors.append(exc)

    worker = threading.Thread(target=fill, name="history-seed")
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda signum, frame: progress.stop.set())
    worker.start()
    while worker.is_alive():
        worker.join(timeout=0.5)
    return errors[0] if errors else None


def seed_history(
    settings: Settings,
    backfill: Backfill,
    days: int = HISTORY_DAYS,
    failure_line: FailureLine = _plain_line,
) -> int:
    """Backfill the days, writing the status after each; 0 when every day ran, 1 otherwise
    (130 when stopped)."""
    span = history_days(datetime.now(UTC).date(), days)
    progress = _Progress(
        settings.home,
        span,
        failure_line,
        lambda source, day: deliberate_layout_change(settings, source, day),
    )
    progress.status("running")
    print(
        f"history: seeding {len(span)} days of SIMULATED demo history "
        f"({span[0]} .. {span[-1]}) in the background",
        flush=True,
    )
    error = _run_on_worker(progress, backfill)
    done = progress.done
    if isinstance(error, _Stopped):
        progress.status("failed", "stopped before the end; the next `make up` seeds again")
        print(f"history: stopped after {done} days", flush=True)
        return 130
    if error is not None:  # recorded for the dashboard; the UI keeps running without it
        progress.status("failed", f"{type(error).__name__}: {error}")
        print(f"history: seeding stopped after {done} days: {error}", file=sys.stderr, flush=True)
        return 1
    return _finish(progress)


def _finish(progress: _Progress) -> int:
    """The closing line: the days seeded; the demo's deliberate layout days called what they
    are (not failures: the drift detector caught each, as it should); real failures, each
    day named. 0 unless a source failed for real."""
    said = f"history: done, {progress.done} days seeded"
    layout = progress.layout_days
    if layout:
        said += (
            f"; {len(layout)} of them had a platform in a deliberately changed layout (the "
            "SIMULATED market does that on purpose so that the drift detector has something "
            "to catch; it caught each, nothing to do)"
        )
    failed = progress.failed_days
    if not failed:
        progress.status("done")
        print(said, flush=True)
        return 0
    note = f"{len(failed)} day(s) had failed sources: {_days_text(failed)}"
    progress.status("done", note)
    print(f"{said}; {note} (see the Data health page)", flush=True)
    return 1
