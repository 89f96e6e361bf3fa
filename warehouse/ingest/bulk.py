"""The bulk path: many snapshots through one write connection, derived once afterwards.

A scheduled run loads one snapshot per source (warehouse.ingest.load.load_snapshot: a
connection, the rates read, a transaction). History imports load hundreds of snapshots of
days long past, and a backfill (pipelines.backfill) a dozen sources a day for up to years of
days: opening the warehouse, reading every stored rate, deriving and alerting after each
one is what makes that slow, not the rows. Both come here:

* :func:`bulk_loader` opens the one write connection and reads the rates once;
* :meth:`BulkLoader.load` loads one :class:`BulkSnapshot` in its own transaction with the
  load's page steps (``validate_page``: each row priced in CNY at the ``fx_rate`` of its own
  day; ``load_pages``: archive in ``raw_page``, quarantine, insert; held jumps confirmed),
  optionally its ``scrape_run`` and its drift check (source health, one scraper-broken alert
  per break: a backfill's), and whatever the caller records in the same transaction (the
  history ledger); a snapshot with nothing to load (its fetch failed, its source is not
  configured: :class:`NotLoaded`) is recorded as such;
* :meth:`BulkLoader.load_all` loads many in one transaction (a backfill's day), again one
  by one should a DuckDB error break it;
* :func:`derive_loaded` derives every new snapshot in one incremental call
  (warehouse.derive.metrics) and brings the serving copy up to date.

Re-loading a snapshot adds nothing (the tables' keys). The caller fetches and parses outside
the connection, so a slow source never holds the writer lock; batches keep each hold short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime

import duckdb

from scrapers.clock import Window
from scrapers.collect import Snapshot
from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from scrapers.parse import summary
from warehouse.derive.metrics import DeriveSummary, derive
from warehouse.ingest.drift import record_health
from warehouse.ingest.load import LoadSummary, insert_run, load_pages, validate_page
from warehouse.ingest.money import PricedOffer, PricedQuote, day_rates, default_note
from warehouse.ingest.quarantine import QuarantinePolicy, confirm
from warehouse.ingest.reference import load_reference
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

__all__ = [
    "BulkLoader",
    "BulkOptions",
    "BulkSnapshot",
    "FxUse",
    "NotLoaded",
    "bulk_loader",
    "derive_loaded",
    "load_many",
]

# Runs inside a snapshot's transaction once its rows are in (the history ledger's row).
AfterLoad = Callable[[duckdb.DuckDBPyConnection, LoadSummary], None]


@dataclass(frozen=True, slots=True)
class NotLoaded:
    """A snapshot with nothing to load, as its ``scrape_run`` records it: ``skipped``
    (``not_configured``: its secret is missing) or ``failed`` (``internal_error``: something
    other than the source failed). A snapshot whose fetch failed says so itself."""

    status: str
    reason: str
    error: str


@dataclass(frozen=True, slots=True)
class BulkSnapshot:
    """One snapshot of the bulk path: its parsed pages (``scrapers.collect.Snapshot``, rows
    stamped with ``observed_at`` by their parser), the run id its rows get, and where its
    prices came from (``origin``, each row's citation; None: the page URL says it)."""

    snapshot: Snapshot
    observed_at: datetime
    run_id: str
    origin: str | None = None
    not_loaded: NotLoaded | None = None


@dataclass(frozen=True, slots=True)
class BulkOptions:
    """How every snapshot of one bulk load is loaded."""

    profile: str
    quarantine: QuarantinePolicy = QuarantinePolicy()
    fx_defaults: Sequence[FxRate] = ()  # the configured rates, for days before every stored one
    record_runs: bool = True  # a scrape_run per snapshot (a backfill; imports keep a ledger)
    record_health: bool = False  # the drift check of a scraped source, per snapshot
    # The span a history import asked for: rows dated outside it are refused (scrapers.clock,
    # the same function that refuses rows dated after now); None: a backfill's, no window.
    window: Window | None = None


@dataclass(slots=True)
class FxUse:
    """At which rates the loaded rows were converted: their own day's, an earlier day's
    (a weekend, a holiday, a day after the last stored rate), or the configured default."""

    own_day: int = 0
    earlier: int = 0
    max_gap_days: int = 0
    default: int = 0
    default_rates: set[str] = field(default_factory=set)

    def add(self, rows: Iterable[object]) -> None:
        for row in rows:
            if not isinstance(row, PricedOffer | PricedQuote) or row.fx.source == "identity":
                continue
            if row.fx.source.startswith(CONFIGURED_DEFAULT):
                self.default += 1
                self.default_rates.add(f"{row.fx.cny_per_unit} CNY/{row.fx.currency}")
                continue
            gap = (row.observed_at.date() - row.fx.day).days
            if gap <= 0:
                self.own_day += 1
            else:
                self.earlier += 1
                self.max_gap_days = max(self.max_gap_days, gap)

    def merge(self, other: FxUse) -> None:
        self.own_day += other.own_day
        self.earlier += other.earlier
        self.max_gap_days = max(self.max_gap_days, other.max_gap_days)
        self.default += other.default
        self.default_rates |= other.default_rates

    def note(self) -> str | None:
        """What to say about the rates, or None when every row used its own day's."""
        parts = []
        if self.earlier:
            parts.append(
                f"{self.earlier} row(s) at the nearest earlier day's rate (up to "
                f"{self.max_gap_days} day(s) before)"
            )
        if self.default:
            parts.append(
                f"{self.default} row(s) at the CONFIGURED DEFAULT {', '.join(sorted(self.default_rates))}"
                " (no stored rate on or before their day: run `gpuprice fx import` first)"
            )
        return "; ".join(parts) or None


class BulkLoader:
    """Loads snapshots through one write connection (see :func:`bulk_loader`): each in a
    transaction of its own, or many in one (:meth:`transaction`, a batch commits once)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, options: BulkOptions) -> None:
        self.con = con
        self.options = options
        self.rates = day_rates(con, options.fx_defaults)  # once: imports add none
        self.fx = FxUse()
        self._batch = False

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Every load and record inside the block in one transaction; a DuckDB error rolls
        the whole batch back and is raised (the caller may then load one by one)."""
        before = replace(self.fx, default_rates=set(self.fx.default_rates))
        self.con.execute("BEGIN TRANSACTION")
        self._batch = True
        try:
            yield
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            self.fx = before
            raise
        finally:
            self._batch = False

    @contextmanager
    def _own_transaction(self) -> Iterator[None]:
        if self._batch:
            yield
            return
        with self.transaction():
            yield

    def load(self, item: BulkSnapshot, after: AfterLoad | None = None) -> LoadSummary:
        """Load one snapshot, with ``after`` in the same transaction (its own, or the
        batch's); a DuckDB error rolls it back and is raised (the caller records it)."""
        with self._own_transaction():
            summary = self._load(item)
            if after is not None:
                after(self.con, summary)
        return summary

    def load_all(self, items: Sequence[BulkSnapshot]) -> list[LoadSummary]:
        """Every snapshot of ``items`` in one transaction (one commit for a backfill's day);
        should a DuckDB error break it, again one by one, each in its own: a snapshot whose
        load fails is rolled back and recorded as failed (``load_error``) when
        ``record_runs``, and the others load."""
        try:
            with self.transaction():
                return [self._load(item) for item in items]
        except duckdb.Error:
            return [self._load_alone(item) for item in items]

    def _load_alone(self, item: BulkSnapshot) -> LoadSummary:
        try:
            return self.load(item)
        except duckdb.Error as exc:
            failure = f"load failed and was rolled back: {type(exc).__name__}: {exc}"
            refused = NotLoaded("failed", "load_error", failure)
            return self._not_loaded(item, refused, pages=len(item.snapshot.pages))

    def _not_loaded(self, item: BulkSnapshot, refused: NotLoaded, pages: int = 0) -> LoadSummary:
        """Record a snapshot that loads nothing (its own transaction, or the batch's)."""
        snapshot, options = item.snapshot, self.options
        if options.record_runs:
            self.record(
                lambda con: insert_run(
                    con, snapshot, options.profile, item.run_id, refused.status, 0,
                    refused.error, refused.reason,
                )
            )  # fmt: skip
        return LoadSummary(
            item.run_id, snapshot.source, refused.status, pages, 0, refused.error, refused.reason
        )

    def _load(self, item: BulkSnapshot) -> LoadSummary:
        con, options, snapshot = self.con, self.options, item.snapshot
        refused = item.not_loaded or _fetch_failed(snapshot)
        if refused is not None:  # as load_snapshot: no page to judge the parser on
            return self._not_loaded(item, refused)
        policy = options.quarantine
        pages = [
            validate_page(p, self.rates, policy.max_rejected_share, options.window)
            for p in snapshot.pages
        ]
        errors = [f"{p.page.url}: {p.error}" for p in pages if p.error]
        status = "ok" if not errors else ("failed" if len(errors) == len(pages) else "partial")
        problem = "; ".join(errors) or None
        loaded = load_pages(con, snapshot, pages, policy, item.run_id, citation=item.origin)
        released = confirm(con, loaded.held, policy)
        added = loaded.added + released
        reason = "drift" if errors else None
        if options.record_runs:
            insert_run(con, snapshot, options.profile, item.run_id, status, added, problem, reason)
        alert = None
        if options.record_health:
            alert = record_health(
                con, source=snapshot.source, profile=options.profile, run_id=item.run_id,
                at=snapshot.started_at, problem=problem,
            )  # fmt: skip
        self.fx.add(loaded.priced)
        return LoadSummary(
            item.run_id, snapshot.source, status, len(pages), added, problem, reason, alert,
            quarantined=len(loaded.held), released=released, fx_note=default_note(loaded.priced),
            rejected=len(loaded.rejected),
            rejected_note=summary(loaded.rejected, examples=2) if loaded.rejected else None,
        )  # fmt: skip

    def record(self, write: Callable[[duckdb.DuckDBPyConnection], None]) -> None:
        """``write`` in the transaction of the batch, or in one of its own (a failure
        recorded without rows)."""
        with self._own_transaction():
            write(self.con)


@contextmanager
def bulk_loader(warehouse: Warehouse, options: BulkOptions) -> Iterator[BulkLoader]:
    """The one write connection of a batch of snapshots, closed when the block ends."""
    with write_connection(warehouse) as con:
        yield BulkLoader(con, options)


def _fetch_failed(snapshot: Snapshot) -> NotLoaded | None:
    if not snapshot.fetch_error:
        return None
    return NotLoaded("failed", snapshot.fetch_failure or "http_error", snapshot.fetch_error)


def load_many(
    warehouse: Warehouse, items: Iterable[BulkSnapshot], options: BulkOptions
) -> list[LoadSummary]:
    """Every snapshot of ``items`` through one connection, in one transaction (no derive:
    :func:`derive_loaded` once afterwards). A snapshot whose load fails is rolled back,
    recorded as a failed run when ``record_runs``, and the others go on."""
    with bulk_loader(warehouse, options) as loader:
        return loader.load_all(list(items))


def derive_loaded(warehouse: Warehouse) -> DeriveSummary:
    """One incremental derive over every snapshot loaded and not derived yet (the reference
    data loaded first on a warehouse that has none), then the serving copy."""
    with write_connection(warehouse) as con:
        if con.execute("SELECT count(*) FROM gpu_spec").fetchone()[0] == 0:
            load_reference(con)
    return derive(warehouse)
