"""One history import (pipelines.history runs it as a Dagster job): what to import
(:class:`HistoryRequest`), how far it is (:class:`Progress`), and :class:`Importer`, the
part every kind shares: the ledger rows, batches through the bulk path
(warehouse.ingest.bulk), cursors, a derive every :data:`DERIVE_ROWS` rows and at the end,
the closing summary.

The kinds themselves (the Internet Archive, SkyPilot's catalog history, a tracker's CSV) are
in pipelines.history_kinds.
"""

# No `from __future__ import annotations` here: Dagster reads the config annotations at
# definition time and cannot resolve them from strings.

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from datetime import time as day_time
from typing import Literal, Protocol

import dagster as dg
import duckdb

from configuration.outbound import archive_client
from configuration.settings import Settings
from pipelines.derived import watch_rules
from pipelines.redacted import redact_snapshot
from scrapers.clock import Window
from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import PoliteClient
from scrapers.redaction import Redactor
from warehouse.derive.alerts import hold_for_history
from warehouse.derive.metrics import ReferenceMissing
from warehouse.ingest.bulk import (
    BulkLoader,
    BulkOptions,
    BulkSnapshot,
    FxUse,
    bulk_loader,
    derive_loaded,
)
from warehouse.ingest.history import (
    DATE_REFUSALS,
    CaptureRecord,
    ImportCounts,
    ImportRecord,
    archived_body,
    finish_import,
    move_cursor,
    record_captures,
    start_import,
)
from warehouse.ingest.load import LoadSummary, page_id
from warehouse.store.db import WarehouseBusy, utcnow, write_connection

# A batch is loaded when it holds this many captures or is this old, whichever comes first:
# the writer lock is held for one short batch at a time, and an interrupted import keeps
# what it had loaded (its cursors move with each batch).
BATCH_CAPTURES = 50
BATCH_SECONDS = 10.0
# ... or this many rows (a tracker's chunks hold thousands each): what waits stays small.
BATCH_ROWS = 20_000
# Rows loaded between two derives. One derive over a whole big import keeps every new
# derived row's key in memory until it commits: over a 40 MB tracker CSV (306,000 rows) it
# needed DuckDB's 512MB limit, and the command 773 MB resident; a derive every 50,000 rows
# stays within the warehouse's own limit, for a file of any size.
DERIVE_ROWS = 50_000
# The failures the closing summary lists (all of them are in history_capture).
SHOWN_FAILURES = 20
# What an import stopped by Ctrl-C says, and records as its error.
INTERRUPTED = "interrupted; run the same command to resume"


class HistoryError(ValueError):
    """A request that cannot be imported; the message says what to give instead."""


class HistoryRequest(dg.Config):
    """What to import (the Dagster job's config; `gpuprice history …` fills it in)."""

    kind: Literal["wayback", "skypilot", "csv"]
    source: str = ""  # wayback: the source; csv: every row's source (default: its provider's)
    urls: list[str] = []  # wayback: archived URLs (default: the source's archived_urls)
    cloud: str = ""  # skypilot
    version: str = "v8"  # skypilot: the catalog schema version
    file: str = ""  # csv: the file
    mapping: str = ""  # csv: [history.csv.<mapping>]
    first_day: str | None = None  # YYYY-MM-DD
    last_day: str | None = None
    every: str = ""  # day | week | month (default [history].every)
    archive_url: str = ""  # default [history].archive_url
    api_url: str = ""  # default [history].github_api_url
    raw_url: str = ""  # default [history].github_raw_url
    # Seconds between two requests to one host (default [history].min_interval_s); the demo
    # market's local archive is ours and needs no pause.
    min_interval_s: float | None = None

    def days(self) -> tuple[date, date]:
        first = date.fromisoformat(self.first_day) if self.first_day else date(2000, 1, 1)
        last = date.fromisoformat(self.last_day) if self.last_day else utcnow().date()
        if first > last:
            raise HistoryError(f"--from {first} is after --to {last}")
        return first, last

    def window(self) -> Window:
        """The span asked for (default 2000-01-01 to today): a row dated outside it is
        refused (scrapers.clock), as is one dated after now whatever was asked."""
        return Window.of_days(*self.days())


def span(days: tuple[date, date], cursor: datetime | None) -> tuple[datetime, datetime]:
    """What to list: the days asked for, from the cursor on when there is one."""
    first = datetime.combine(days[0], day_time.min)
    last = datetime.combine(days[1], day_time.max)
    return (max(first, cursor) if cursor else first), last


class Progress(Protocol):
    """How far an import is, and how it ended: the command's progress bar, or nothing."""

    def start(self, total: int, what: str) -> None: ...

    def advance(self, line: str, by: int = 1) -> None: ...

    def say(self, line: str) -> None: ...

    def done(self, status: str, lines: list[str]) -> None:
        """``status``: ok, partial, failed, interrupted, or ``refused`` (the request was not
        run)."""
        ...


class QuietProgress:
    def start(self, total: int, what: str) -> None:
        pass

    def advance(self, line: str, by: int = 1) -> None:
        pass

    def say(self, line: str) -> None:
        pass

    def done(self, status: str, lines: list[str]) -> None:
        pass


@dataclass
class ImportSummary:
    """What one import did, for the console and the Dagster run."""

    import_id: str
    kind: str
    source: str
    every: str | None
    counts: ImportCounts
    status: str = "running"
    failures: list[str] = field(default_factory=list)
    # listings the loaded captures rejected (kept in rejected_row), and per capture the first
    # few with their reasons
    rejected_count: int = 0
    rejected: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        c = self.counts
        per = f" (one a {self.every})" if self.every else ""
        span = (
            f"; {c.first_observed:%Y-%m-%d} .. {c.last_observed:%Y-%m-%d} (UTC)"
            if c.first_observed and c.last_observed
            else ""
        )
        head = (
            f"history {self.kind} {self.source}: {c.listed} listed, {c.kept} kept{per}, "
            f"{c.fetched} fetched, {c.reused} already archived, {c.parsed} parsed, "
            f"{c.failed} failed; {c.rows_added} row(s) added{span}"
        )
        if self.rejected_count:
            head += f"; {self.rejected_count} listing(s) rejected, the rest of their pages loaded"
        shown = [f"  failed: {line}" for line in self.failures[:SHOWN_FAILURES]]
        if len(self.failures) > SHOWN_FAILURES:
            shown.append(f"  … {len(self.failures) - SHOWN_FAILURES} more in history_capture")
        shown += [f"  rejected: {line}" for line in self.rejected[:SHOWN_FAILURES]]
        if len(self.rejected) > SHOWN_FAILURES:
            shown.append(f"  … {len(self.rejected) - SHOWN_FAILURES} more in rejected_row")
        return [head, *shown, *(f"  {note}" for note in self.notes)]


@dataclass
class _Pending:
    record: CaptureRecord
    item: BulkSnapshot | None  # None: a failure, nothing to load


def failure_reason(error: str) -> tuple[str, bool]:
    """The ledger's reason for a fetch that failed, and whether the next import retries it
    (the archive was busy or unreachable, the body came truncated: yes; a 404: no)."""
    if "RemoteProtocolError" in error or "incomplete" in error.lower():
        return "truncated", True
    if "HTTP 404" in error or "HTTP 410" in error:
        return "not_found", False
    if "HTTP 429" in error or "HTTP 5" in error:
        return "busy", True
    if "timed out" in error or "ConnectError" in error or "unreachable" in error:
        return "unreachable", True
    if "larger than" in error:
        return "too_large", False
    if "refused" in error and "redirect" in error:
        return "blocked", False
    if "deadline" in error or "slower than" in error:
        return "timeout", True
    return "http_error", False


class Importer:
    """One import's shared state: counts, the ledger rows and loads of its captures in
    batches, the cursors, and the closing derive."""

    def __init__(
        self,
        settings: Settings,
        record: ImportRecord,
        *,
        every: str | None,
        min_interval_s: float | None = None,
        window: Window | None = None,
    ) -> None:
        self.settings, self.record = settings, record
        self.min_interval_s = min_interval_s
        self.window = window or Window()
        self.warehouse = settings.warehouse
        # GITHUB_TOKEN among them: whatever an archive or API echoes is masked before it is
        # stored, printed, logged or kept in the Dagster run
        self.redactor = Redactor(settings.secret_values())
        self.counts = ImportCounts()
        # what the summary names: the source of a Wayback import, the catalog or file else
        label = record.source if record.kind == "wayback" else record.target
        self.summary = ImportSummary(record.import_id, record.kind, label, every, self.counts)
        self.options = BulkOptions(
            profile=settings.profile,
            quarantine=settings.file.load_policy(),
            fx_defaults=tuple(settings.fx_defaults()),
            record_runs=False,  # the ledger (history_capture) records each capture instead
            window=self.window,
        )
        self.fx = FxUse()
        self.digests: dict[str, str] = {}  # digest -> page_id, loaded by this import
        self._pending: list[_Pending] = []
        # (source, target) -> newest capture settled / oldest capture to retry
        self._settled: dict[tuple[str, str], datetime] = {}
        self._retry_from: dict[tuple[str, str], datetime] = {}
        self._next = (self._settled, self._retry_from)  # what a batch settles, once it is in
        self._count = 0
        self._since_flush = time.monotonic()
        self.interrupted = False
        self._underived = 0  # rows loaded since the last derive
        self._derives: list[str] = []  # each derive's line
        self._derive_error = ""  # why the last derive could not run
        # run_id -> (first moment, snapshots) of a capture holding several (a tracker's)
        self._spans: dict[str, tuple[datetime, int]] = {}
        # run_id -> (listings rejected, the first with their reasons) of a capture's load; kept
        # until its batch is in (a batch retried capture by capture loads it again)
        self._rejected: dict[str, tuple[int, str | None]] = {}
        start_import(self.warehouse, record)

    def client(self) -> PoliteClient:
        """The client of an import (configuration.outbound, the one door): [http] with
        [history].min_interval_s per host, no robots.txt (these are the archive's and
        GitHub's APIs, meant for programs), no redirect to an internal address."""
        return archive_client(self.settings, self.min_interval_s, self.redactor)

    def _run_id(self) -> str:
        self._count += 1
        return f"{self.record.import_id}-{self._count:05d}"

    def parsed(
        self, target: str, parsed: ParsedPage, *, origin: str, digest: str | None,
        kind: str = "offers", source: str | None = None, archive_as: str | None = None,
        first: datetime | None = None, snapshots: int = 1,
    ) -> None:  # fmt: skip
        """Queue a parsed capture for the next batch; a page that did not parse is archived
        too (``gpuprice reparse`` can read it again) and recorded as failed. ``source``: the
        rows' source when it is not the import's; ``archive_as``: the raw page's. A page
        holding several snapshots (a tracker's moments, loaded together) says how many, and
        its ``first`` moment (its ``fetched_at`` is the last)."""
        run_id = self._run_id()
        page = parsed.page
        source = source or self.record.source
        snapshot = redact_snapshot(
            Snapshot(archive_as or source, kind, page.fetched_at, None, [parsed]),  # type: ignore[arg-type]
            self.redactor,
        )
        origin = self.redactor.text(origin)
        record = CaptureRecord(
            run_id, self.record.import_id, self.record.kind, source, target, page.fetched_at,
            origin, digest, "ok", page_id=page_id(snapshot.pages[0].page.body),
        )  # fmt: skip
        if first is not None or snapshots != 1:
            self._spans[run_id] = (first or page.fetched_at, snapshots)
        item = BulkSnapshot(snapshot, page.fetched_at, run_id, origin)
        self._pending.append(_Pending(record, item))
        self._maybe_flush()

    def failed(
        self, target: str, observed_at: datetime | None, origin: str, digest: str | None,
        reason: str, error: str, *, retry: bool = False, source: str | None = None,
    ) -> None:  # fmt: skip
        """Record a capture that could not be loaded (its archive URL and why); the import
        goes on. ``retry``: the next import tries it again."""
        record = CaptureRecord(
            self._run_id(), self.record.import_id, self.record.kind,
            source or self.record.source, target, observed_at, self.redactor.text(origin),
            digest, "failed", reason, retry, self.redactor.text(error)[:2000],
        )  # fmt: skip
        self._pending.append(_Pending(record, None))
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        rows = sum(len(e.item.snapshot.pages[0].rows) for e in self._pending if e.item)
        if (
            len(self._pending) >= BATCH_CAPTURES
            or rows >= BATCH_ROWS
            or time.monotonic() - self._since_flush >= BATCH_SECONDS
        ):
            self.flush()

    @staticmethod
    def _outcome(record: CaptureRecord, summary: LoadSummary) -> CaptureRecord:
        """The capture's ledger row once its load says how it went."""
        if summary.status == "ok":
            return replace(record, rows_added=summary.rows_added)
        # one page, whose URL is the ledger row's origin: the error need not name it again
        error = (summary.error or "no rows").removeprefix(f"{record.origin}: ")
        reason = "rejected" if "page rejected" in error else "parse_error"
        if "row(s) refused: dated" in error and not summary.rows_added:
            reason = "future" if "after now" in error else "out_of_window"
        return replace(record, status="failed", reason=reason, error=error[:2000])

    def flush(self) -> None:
        """Load the queued captures through one write connection, in one transaction with
        their ledger rows and the cursors they move; should a DuckDB error break the batch,
        again one by one, each capture in its own."""
        pending, self._pending = self._pending, []
        self._since_flush = time.monotonic()
        if not pending:
            return
        with bulk_loader(self.warehouse, self.options) as loader:
            try:
                with loader.transaction():
                    records = [self._load(loader, entry) for entry in pending]
                    record_captures(loader.con, records)
                    settled = self._settled_by(records)
                    self._move_cursors(loader.con, settled)
            except duckdb.Error:
                records = [self._load_alone(loader, entry) for entry in pending]
                settled = self._settled_by(records)
                loader.record(lambda con: self._move_cursors(con, settled))
        self._settled, self._retry_from = self._next
        for record in records:
            self._count_in(record)
            self._underived += record.rows_added if record.status == "ok" else 0
        self.fx.merge(loader.fx)
        if self._underived >= DERIVE_ROWS:
            self._derive()

    def _load(self, loader: BulkLoader, entry: _Pending) -> CaptureRecord:
        if entry.item is None:
            return entry.record
        return self._outcome(entry.record, self._noted(loader.load(entry.item), entry.record))

    def _noted(self, summary: LoadSummary, record: CaptureRecord) -> LoadSummary:
        """``summary``, its rejected listings noted for the import's count and lines."""
        self._rejected[record.run_id] = (summary.rejected, summary.rejected_note)
        return summary

    def _load_alone(self, loader: BulkLoader, entry: _Pending) -> CaptureRecord:
        """One capture in a transaction of its own (its ledger row in it)."""
        outcome: list[CaptureRecord] = []

        def ledger(con: duckdb.DuckDBPyConnection, summary: LoadSummary) -> None:
            outcome.append(self._outcome(entry.record, self._noted(summary, entry.record)))
            record_captures(con, outcome)

        if entry.item is None:
            loader.record(lambda con: record_captures(con, [entry.record]))
            return entry.record
        try:
            loader.load(entry.item, after=ledger)
            return outcome[0]
        except duckdb.Error as exc:
            failed = replace(
                entry.record, status="failed", reason="load_error",
                error=f"load failed and was rolled back: {type(exc).__name__}: {exc}"[:2000],
            )  # fmt: skip
            loader.record(lambda con: record_captures(con, [failed]))
            return failed

    def _count_in(self, record: CaptureRecord) -> None:
        counts = self.counts
        first, snapshots = self._spans.pop(record.run_id, (None, 1))
        rejected, note = self._rejected.pop(record.run_id, (0, None))
        self.summary.rejected_count += rejected
        if note:
            self.summary.rejected.append(f"{record.origin}: {note}")
        if record.status == "ok":
            counts.parsed += snapshots
            counts.rows_added += record.rows_added
            for moment in (first, record.observed_at):
                if moment is not None:
                    counts.observed(moment)
            if record.digest and record.page_id:
                self.digests[record.digest] = record.page_id
        else:
            counts.failed += snapshots
            self.summary.failures.append(
                f"{record.origin}: {record.error or record.reason} ({record.reason})"
            )

    def _settled_by(self, records: list[CaptureRecord]) -> dict[tuple[str, str], datetime]:
        """Per (source, target), the newest capture time its cursor may move to: settled
        (loaded, or failed for good) and before any capture the next import retries. Kept
        once the batch is in (:meth:`flush`)."""
        settled, retry_from = dict(self._settled), dict(self._retry_from)
        for record in records:
            at, key = record.observed_at, (record.source, record.target)
            if at is None or record.reason in DATE_REFUSALS:
                continue  # a date refused is no point in time the cursor may move to
            if record.status == "failed" and record.retry:
                retry_from[key] = min(retry_from.get(key, at), at)
            else:
                settled[key] = max(settled.get(key, at), at)
        self._next = (settled, retry_from)
        return {
            key: newest
            for key, newest in settled.items()
            if key not in retry_from or newest < retry_from[key]
        }

    def _move_cursors(
        self, con: duckdb.DuckDBPyConnection, settled: dict[tuple[str, str], datetime]
    ) -> None:
        for (source, target), newest in settled.items():
            move_cursor(con, self.record.kind, source, target, newest)

    def body(self, digest: str, archived: dict[str, str]) -> bytes | None:
        """The body of a capture with ``digest`` this import or an earlier one loaded (not
        to be fetched again); None when there is none (or retention emptied it)."""
        for entry in self._pending:
            if entry.record.digest == digest and entry.item is not None:
                return entry.item.snapshot.pages[0].page.body
        found = self.digests.get(digest) or archived.get(digest)
        return archived_body(self.warehouse, found) if found else None

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """The import's loop: a Ctrl-C (Dagster raises it inside a step as
        DagsterExecutionInterruptedError, a plain run as KeyboardInterrupt) ends it where it
        is, and :meth:`finish` then records what was loaded, as ``interrupted``."""
        try:
            yield
        except (KeyboardInterrupt, dg.DagsterExecutionInterruptedError):
            self.interrupted = True

    def finish(self, error: str | None = None) -> ImportSummary:
        """Load what is queued, derive the imported snapshots not derived yet (not after a
        Ctrl-C: the next run derives them), keep the watch rules' cursors past them, and
        record the import's outcome, every secret masked."""
        self.flush()
        counts = self.counts
        if self._underived and not self.interrupted and not self._derive():
            self.summary.notes.append(
                f"derive NOT run ({self._derive_error}); the next scheduled run derives the "
                "imported snapshots"
            )
        if self._derives:
            passes = len(self._derives)
            every = f" (the last of {passes} derives, one every {DERIVE_ROWS:,} rows)"
            self.summary.notes.append(self._derives[-1] + (every if passes > 1 else ""))
        if counts.last_observed is not None:
            with write_connection(self.warehouse) as con:
                held = hold_for_history(con, watch_rules(self.settings), counts.last_observed)
            if held:
                self.summary.notes.append(
                    f"alerts: {held} watch rule(s) now start after {counts.last_observed:%Y-%m-%d}"
                    " (imported history raises no alert)"
                )
        fx = self.fx.note()
        if fx:
            self.summary.notes.append(f"fx: {fx}")
        if self.interrupted:
            status, error = "interrupted", INTERRUPTED
            if self._underived:
                self.summary.notes.append("derive NOT run: the next run or import derives them")
        elif error is None and not counts.failed:
            status = "ok"
        else:
            status = "partial" if counts.parsed else "failed"
        error = self.redactor.optional(error)
        self.summary.status = status
        if error:
            self.summary.notes.append(f"stopped: {error}")
        self.summary.notes = [self.redactor.text(note) for note in self.summary.notes]
        finish_import(
            self.warehouse, self.record.import_id, counts, status=status, fx_note=fx, error=error
        )
        return self.summary

    def _derive(self) -> bool:
        """Derive what was loaded and not derived yet; False (and why, kept) when it could
        not be: the next derive takes the same snapshots."""
        try:
            summary = derive_loaded(self.warehouse)
        except (ReferenceMissing, WarehouseBusy, duckdb.Error) as exc:
            self._derive_error = f"{type(exc).__name__}: {exc}"
            return False
        self._underived = 0
        self._derives.append(summary.line())
        return True


def new_import_id(kind: str) -> str:
    return f"{kind}-{utcnow():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
