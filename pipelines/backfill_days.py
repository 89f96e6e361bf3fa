"""The days of one backfill (pipelines.backfill runs them as one Dagster run).

Each day, every source is fetched and parsed as a snapshot run fetches it
(pipelines.assets.fetch_snapshot: its access, the day from the dated market, secrets
masked), outside any connection; the day's snapshots are then loaded through the bulk path
the history imports use (warehouse.ingest.bulk), in one transaction, with a ``scrape_run``,
the source's health and any scraper-broken alert per source-day and the quarantine, as a
run records them. Derive, the serving copy and the watch rules run after the first day and
then every DERIVE_EVERY_DAYS days (a long backfill shows in the dashboard as it goes), and
once more at the end, where pending alerts are delivered as a run's `alert` step does.

What this saves against a run per day (a Dagster run of 12 snapshot steps + derive + serving
copy + alerts, ~4 s a day): the per-step event records, a connection and the rates per
snapshot, and a derive and an alert walk per day. Alerts stay as a run would raise them: the
rules walk the same breakeven points in the same order (warehouse.derive.alerts), an alert
about a past day is dated by it and not sent.
"""

from __future__ import annotations

import time
import traceback
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Protocol

import dagster as dg

from configuration.settings import Settings
from pipelines.assets import (
    fetch_snapshot,
    needs_fx,
    snapshot_client,
    source_adapter,
    store_fx_rates,
)
from pipelines.derived import deliver, watch_rules
from scrapers.clock import Window
from scrapers.collect import Snapshot
from scrapers.http import PoliteClient
from scrapers.redaction import Redactor
from warehouse.derive.alerts import evaluate
from warehouse.derive.metrics import DeriveSummary
from warehouse.derive.notify import DeliverySummary
from warehouse.ingest.bulk import (
    BulkLoader,
    BulkOptions,
    BulkSnapshot,
    NotLoaded,
    bulk_loader,
    derive_loaded,
)
from warehouse.ingest.load import LoadSummary
from warehouse.ingest.reference import load_reference
from warehouse.store.db import utcnow, write_connection

# Derive (and evaluate the watch rules) after the first day and then every this many days:
# the dashboard fills in as the backfill goes, for ~0.3 s a derive.
DERIVE_EVERY_DAYS = 10
# DuckDB lets one process write or others read, never both, and a reader that finds the
# file taken tries again after a random back-off of up to 1 s (warehouse.store.db,
# lock_retrying). Days loaded back to back, a connection each, left it free for milliseconds
# between two: a dashboard page waited up to 8 s. So the days of one spell of this many
# seconds share one write connection (opening, reading the rates and closing cost ~80 ms a
# day), then the file is left free for READERS_S, longer than the longest back-off: every
# waiting reader gets in (~1 s in 7; the next day is being fetched meanwhile).
WRITE_SPELL_S = 6.0
READERS_S = 1.0


@dataclass(frozen=True, slots=True)
class DayLoaded:
    """One backfilled day: the Dagster run it is part of, the day, each source's outcome."""

    run_id: str
    day: date
    sources: list[LoadSummary]


class BackfillProgress(Protocol):
    """Told about each day as soon as it is loaded (the command's progress bar, the first
    start's status file), or nothing."""

    def day(self, loaded: DayLoaded) -> bool:
        """False: stop after this day (what was loaded is derived all the same)."""
        ...


class QuietProgress:
    def day(self, loaded: DayLoaded) -> bool:
        return True


@dataclass
class Derived:
    """What the derives and rule walks of one backfill did, summed."""

    rows: Counter[str] = field(default_factory=Counter)
    offer_snapshots: int = 0
    quote_snapshots: int = 0
    derives: int = 0
    serving: str = "not synced"
    rules: int = 0
    steps: int = 0
    new_alerts: list[str] = field(default_factory=list)
    delivery: DeliverySummary | None = None

    def add(self, summary: DeriveSummary) -> None:
        self.rows.update(summary.rows)
        self.offer_snapshots += summary.offer_snapshots
        self.quote_snapshots += summary.quote_snapshots
        self.derives += 1
        if summary.serving is not None:
            self.serving = summary.serving.line()
        elif summary.serving_error is not None:
            self.serving = f"NOT updated: {summary.serving_error}"


@dataclass
class _Fetched:
    """One day's snapshots, fetched, and what the fetch had to say (level, line)."""

    items: list[BulkSnapshot] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)


class Backfill:
    """The days of one backfill, loaded one after the other (:meth:`run`)."""

    def __init__(
        self, settings: Settings, redactor: Redactor, log: dg.DagsterLogManager, run_id: str
    ) -> None:
        self.settings, self.redactor, self.log, self.run_id = settings, redactor, log, run_id
        self.sources = list(settings.enabled_sources())
        self.options = BulkOptions(
            profile=settings.profile,
            quarantine=settings.file.load_policy(),
            fx_defaults=tuple(settings.fx_defaults()),
            record_runs=True,
            record_health=True,
        )
        self.days: list[DayLoaded] = []
        self.derived = Derived()
        self.prepared: dict[str, dict] = {}
        self.clients: dict[str, PoliteClient] = {}  # one per source, for all its days
        self._said = 0  # days the run's log has told of
        self._spell = 0.0  # seconds written since the file was last left to readers
        self._held = ExitStack()  # the spell's write connection, while it is open
        self._spell_loader: BulkLoader | None = None

    def run(self, days: Sequence[date], progress: BackfillProgress) -> bool:
        """Load ``days`` in this order; True when all of them were, False when ``progress``
        stopped it. Derived, alerted and delivered either way. The next day is fetched
        while one loads (DuckDB works without Python's lock; the demo market is local)."""
        self.prepare()
        if days:  # the one clock: a row dated outside the days asked for is refused
            self.options = replace(self.options, window=Window.of_days(min(days), max(days)))
        stopped = False
        try:
            with ThreadPoolExecutor(1, thread_name_prefix="backfill-fetch") as pool:
                upcoming = pool.submit(self.fetch_day, days[0]) if days else None
                for n, day in enumerate(days, 1):
                    fetched = upcoming.result() if upcoming else self.fetch_day(day)
                    upcoming = pool.submit(self.fetch_day, days[n]) if n < len(days) else None
                    started = time.monotonic()
                    self.days.append(self.load_day(day, fetched))
                    if n == 1 or n % DERIVE_EVERY_DAYS == 0:
                        self.derive(final=False)
                    self._spell += time.monotonic() - started
                    if not progress.day(self.days[-1]):
                        stopped = n < len(days)
                        if upcoming is not None:
                            upcoming.cancel()
                        break
                    self._let_readers_in()
        finally:
            self._release()
            for client in self.clients.values():
                client.close()
        self.derive(final=True)
        self.derived.delivery = deliver(self.settings, self.log)
        return not stopped

    def _loader(self) -> BulkLoader:
        """The write connection of this spell of days (opened by its first day)."""
        if self._spell_loader is None:
            self._spell_loader = self._held.enter_context(
                bulk_loader(self.settings.warehouse, self.options)
            )
        return self._spell_loader

    def _release(self) -> None:
        self._held.close()
        self._spell_loader = None

    def _let_readers_in(self) -> None:
        """Past WRITE_SPELL_S of writing: close the spell's connection and leave the file
        to readers for READERS_S."""
        if self._spell >= WRITE_SPELL_S:
            self._release()
            time.sleep(READERS_S)
            self._spell = 0.0

    def prepare(self) -> None:
        """What a run's `reference_data` and `fx_rate` assets do before its snapshots."""
        with write_connection(self.settings.warehouse) as con:
            self.prepared["reference_data"] = load_reference(con)
        adapters = [source_adapter(self.settings, name) for name in self.sources]
        if any(needs_fx(adapter) for adapter in adapters):
            self.prepared["fx_rate"] = store_fx_rates(self.settings, self.log.warning)

    def load_day(self, day: date, fetched: _Fetched) -> DayLoaded:
        """Load the day's snapshots in one transaction of the bulk path, on the spell's
        connection."""
        for level, line in fetched.notes:  # said here: the run's log is written by this thread
            getattr(self.log, level)(line)
        summaries = self._loader().load_all(fetched.items)
        for summary in summaries:
            if summary.status in ("failed", "partial"):
                self.log.warning(f"{day} {summary.line()}")
        return DayLoaded(self.run_id, day, summaries)

    def fetch_day(self, day: date) -> _Fetched:
        """Every source's snapshot of ``day``, fetched and parsed (no connection held)."""
        fetched = _Fetched()
        fetched.items = [self._fetch(source, day, fetched.notes) for source in self.sources]
        return fetched

    def _fetch(self, source: str, day: date, notes: list[tuple[str, str]]) -> BulkSnapshot:
        run_id = f"{self.run_id}-{source}-{day.isoformat()}"
        snapshot = Snapshot(source, source_adapter(self.settings, source).kind, utcnow(), day)
        try:
            client = self.clients.get(source)
            if client is None:
                client = self.clients[source] = snapshot_client(
                    self.settings, source, self.redactor
                )
            fetched = fetch_snapshot(
                self.settings, self.redactor, snapshot, lambda line: notes.append(("info", line)),
                client,
            )  # fmt: skip
        except Exception as exc:  # a bug, not the source: recorded, the other sources go on
            error = self.redactor.text(f"internal error: {type(exc).__name__}: {exc}")[:2000]
            notes.append(
                ("error", self.redactor.text(f"{day} {source}: {error}\n{traceback.format_exc()}"))
            )
            refused = NotLoaded("failed", "internal_error", error)
            return BulkSnapshot(snapshot, snapshot.started_at, run_id, None, refused)
        if isinstance(fetched, str):  # not configured: nothing fetched
            refused = NotLoaded("skipped", "not_configured", fetched)
            return BulkSnapshot(snapshot, snapshot.started_at, run_id, None, refused)
        return BulkSnapshot(fetched, fetched.started_at, run_id)

    def derive(self, *, final: bool) -> None:
        """Derive what was loaded, bring the serving copy up to date and walk the watch
        rules over the new breakeven points. Between days a failure only warns (the next
        derive takes the same snapshots); at the end it is the run's failure."""
        self._say_loaded()
        # The derive opens its own connection: a second one beside the spell's is refused
        # by a DuckLake with a DuckDB-file catalog ("unique file handle conflict").
        self._release()
        try:
            self.derived.add(derive_loaded(self.settings.warehouse))
            evaluation = evaluate(self.settings.warehouse, watch_rules(self.settings))
        except Exception as exc:
            if final:
                raise
            self.log.warning(f"derive after {self.days[-1].day} NOT run ({exc}); the next one will")
            return
        self.derived.rules = evaluation.rules
        self.derived.steps += evaluation.snapshots
        self.derived.new_alerts += evaluation.new_alerts

    def _say_loaded(self) -> None:
        """The days loaded since the last derive, in one line of the run's log (a line per
        day would cost an event record each)."""
        days = self.days[self._said :]
        if not days:
            return
        self._said = len(self.days)
        outcomes = [s for day in days for s in day.sources]
        ok = sum(s.status == "ok" for s in outcomes)
        self.log.info(
            f"{days[0].day} .. {days[-1].day}: {len(days)} day(s) loaded, {ok} of "
            f"{len(outcomes)} source-day(s) whole, {sum(s.rows_added for s in outcomes)} new "
            f"row(s); {len(self.days)} day(s) so far"
        )

    def per_source(self) -> dict[str, dict[str, int | str]]:
        """Each source's outcome over the days: how many ok / partial / failed / skipped,
        the rows added, the first and last day."""
        totals: dict[str, dict[str, int | str]] = {}
        for day in self.days:
            for summary in day.sources:
                entry = totals.setdefault(
                    summary.source,
                    {"days": 0, "ok": 0, "partial": 0, "failed": 0, "skipped": 0, "rows_added": 0},
                )
                entry["days"] = int(entry["days"]) + 1
                entry[summary.status] = int(entry.get(summary.status, 0)) + 1
                entry["rows_added"] = int(entry["rows_added"]) + summary.rows_added
        for entry in totals.values():
            entry["first_day"] = str(min(d.day for d in self.days))
            entry["last_day"] = str(max(d.day for d in self.days))
        return totals
