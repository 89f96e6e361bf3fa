"""Re-parse: run today's parser over a source's archived pages and reload their rows.

Every fetched page is kept in ``raw_page`` (body included), so a fixed parser repairs
history: for each archived page of the source (optionally only those first fetched on or
after ``since``), in fetch order,

1. parse the body again, once per time it was loaded: its first fetch time, and the
   ``observed_at`` of every row it gave before (a JSON API states no time, so each run's rows
   are stamped with that run's fetch time; a page that states its own time parses the same
   every time). Validation is the load's: an invalid or implausible row rejects the page;
2. in one transaction: replace the page's rows in ``offer`` / ``spot_quote`` (delete the rows
   with its ``page_id``, insert the new ones; ``ON CONFLICT DO NOTHING`` as in a load), set
   ``raw_page.parse_status`` / ``parse_error`` / ``rows``, and forget the derived-metrics
   ledger entries of every snapshot it touches, so the next derive recomputes them.

Idempotent: a second re-parse with the same parser changes nothing. Afterwards the affected
snapshots are derived again (a snapshot that lost every row makes that a full re-derive).
Rows keep the ``run_id`` of the run that first loaded them; rows a page gives for the first
time get ``reparse-<timestamp>``. A page that never parsed before is re-parsed at its first
fetch time only (later identical fetches left no trace).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import duckdb

from scrapers.collect import parse_page
from scrapers.fx import FxRate, FxRates
from scrapers.http import FetchedPage
from scrapers.parse import Rejected, summary
from scrapers.rows import OfferRow, Row
from scrapers.sources.base import SourceAdapter
from warehouse.derive.metrics import DERIVED_TABLES, ReferenceMissing, derive
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.load import quarantine_page, validate_page
from warehouse.ingest.money import day_rates
from warehouse.ingest.quarantine import QuarantinePolicy
from warehouse.ingest.rejected import store_listings
from warehouse.store.db import read_connection, utcnow, write_connection
from warehouse.store.handle import Warehouse

Progress = Callable[[int, int, str, str], None]  # (done, total, url, outcome)


@dataclass
class ReparseSummary:
    source: str
    pages: int = 0
    ok: int = 0
    errors: int = 0
    rows_before: int = 0
    rows_after: int = 0
    changed: int = 0  # pages whose status or rows changed
    snapshots: set[tuple[str, datetime]] = field(default_factory=set)
    derive_note: str = ""
    page_errors: list[str] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)  # listings the pages rejected

    def add(self, page: _Outcome) -> None:
        self.rows_before += page.rows_before
        self.rows_after += page.added
        self.rejected += page.rejected
        self.snapshots |= page.snapshots
        if page.error:
            self.errors += 1
            self.page_errors.append(f"{page.url}: {page.error}")
        else:
            self.ok += 1
        self.changed += page.changed

    def line(self) -> str:
        return (
            f"reparse {self.source}: {self.pages} page(s), {self.ok} ok, {self.errors} with "
            f"errors, {self.changed} changed; rows {self.rows_before} → {self.rows_after}; "
            f"{len(self.snapshots)} snapshot(s) to re-derive{self.derive_note}"
            + (f"; {summary(self.rejected, examples=2)}" if self.rejected else "")
        )


def archived_pages(warehouse: Warehouse, source: str, since: datetime | None = None) -> list[tuple]:
    """``(page_id, url, fetched_at)`` of the source's archived pages, oldest first."""
    with read_connection(warehouse) as con:
        return con.execute(
            "SELECT page_id, url, fetched_at FROM raw_page WHERE source = $source "
            "AND ($since::TIMESTAMP IS NULL OR fetched_at >= $since) "
            "AND octet_length(body) > 0 "  # retention emptied it: nothing to re-parse
            "ORDER BY fetched_at, page_id",
            {"source": source, "since": since},
        ).fetchall()


def _key(row: Row) -> tuple:
    if isinstance(row, OfferRow):
        return ("offer", row.offer_id, row.billing, row.observed_at)
    return ("quote", row.gpu_name_raw, row.region, row.basis, row.observed_at)


def reparse(
    warehouse: Warehouse,
    adapter: SourceAdapter,
    source: str,
    since: datetime | None = None,
    *,
    progress: Progress | None = None,
    run_derive: bool = True,
    quarantine: QuarantinePolicy | None = None,
    fx_defaults: Sequence[FxRate] = (),
) -> ReparseSummary:
    """Re-parse every archived page of ``source`` (fetched on or after ``since``) with
    ``adapter`` and reload its rows, priced at the rates of their days (``fx_defaults``:
    the configured ones, for days before every stored rate)."""
    summary = ReparseSummary(source)
    policy = quarantine or QuarantinePolicy()
    pages = archived_pages(warehouse, source, since)
    summary.pages = len(pages)
    job = _Reload(adapter, source, f"reparse-{utcnow():%Y%m%dT%H%M%S}", policy, fx_defaults)
    vanished = False
    for done, page in enumerate(pages, 1):
        outcome = _reparse_page(warehouse, job, page)
        summary.add(outcome)
        vanished = vanished or outcome.gone
        if progress is not None:
            progress(done, len(pages), outcome.url, outcome.line())
    if run_derive and summary.snapshots:
        try:
            result = derive(warehouse, full=vanished)
            summary.derive_note = f"; {result.line()}"
        except ReferenceMissing as exc:
            summary.derive_note = f"; not derived: {exc}"
    return summary


@dataclass(frozen=True, slots=True)
class _Stored:
    """An archived page as stored, and the rows it gave before."""

    pid: str
    url: str
    fetched_at: datetime
    body: bytes
    http_status: int
    content_type: str
    status: str
    rows: int
    simulated: bool
    old: list[tuple]  # (observed_at, run_id, 'offer' | 'quote')


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What re-parsing one page did (folded into :class:`ReparseSummary`)."""

    url: str
    rows_before: int
    added: int
    snapshots: set[tuple[str, datetime]]
    error: str | None
    changed: bool
    gone: bool  # a snapshot lost every row
    rejected: tuple[Rejected, ...] = ()

    def line(self) -> str:
        if self.error:
            return f"error: {self.error}"
        return f"ok, {self.added} row(s)" + (
            f", {len(self.rejected)} listing(s) rejected" if self.rejected else ""
        )


def _stored(con: duckdb.DuckDBPyConnection, pid: str, url: str, fetched_at: datetime) -> _Stored:
    body, http_status, content_type, status, rows, simulated = con.execute(
        "SELECT body, http_status, content_type, parse_status, rows, simulated "
        "FROM raw_page WHERE page_id = ?",
        [pid],
    ).fetchone()
    old = con.execute(
        "SELECT observed_at, run_id, 'offer' FROM offer WHERE page_id = $p "
        "UNION ALL SELECT observed_at, run_id, 'quote' FROM spot_quote WHERE page_id = $p",
        {"p": pid},
    ).fetchall()
    return _Stored(
        pid, url, fetched_at, bytes(body), http_status, content_type or "", status, rows,
        bool(simulated), old,
    )  # fmt: skip


def _parse_again(
    adapter: SourceAdapter, stored: _Stored, rates: FxRates, policy: QuarantinePolicy
) -> tuple[dict[tuple, Row], str | None, bool, tuple[Rejected, ...]]:
    """The page parsed, validated and priced as a load would, at every moment its rows were
    stored under: ``(rows by key, error, simulated, rejected listings)``."""
    # Parsed at the moments its rows were stored under (the demo market's answers are stamped
    # with the day they are of, not the fetch time); a page without rows at its fetch time.
    times = sorted({observed for observed, _, _ in stored.old}) or [stored.fetched_at]
    rows: dict[tuple, Row] = {}
    # A page stored as simulated stays so: the demo market's JSON and CSV answers cannot say it
    # themselves (the demo profile marked their rows when it loaded them).
    simulated = stored.simulated
    rejected: dict[Rejected, None] = {}
    for moment in times:
        page = FetchedPage(stored.url, stored.http_status, stored.body, stored.content_type, moment)
        parsed = validate_page(parse_page(adapter, page), rates, policy.max_rejected_share)
        rejected.update(dict.fromkeys(parsed.rejected))
        if parsed.error:
            return {}, parsed.error, simulated, tuple(rejected)
        for row in parsed.rows:
            if stored.simulated and not getattr(row, "simulated", True):
                row = replace(row, simulated=True)
            rows.setdefault(_key(row), row)
            simulated = simulated or bool(getattr(row, "simulated", False))
    return rows, None, simulated, tuple(rejected)


def _replace_rows(
    con: duckdb.DuckDBPyConnection,
    stored: _Stored,
    rows: list[Row],
    stamp: str,
    policy: QuarantinePolicy,
) -> int:
    """Delete the page's rows and insert the new ones through the load's quarantine steps;
    each row keeps the run that first loaded its moment, a new one gets ``stamp``."""
    con.execute("DELETE FROM offer WHERE page_id = ?", [stored.pid])
    con.execute("DELETE FROM spot_quote WHERE page_id = ?", [stored.pid])
    # Re-parsed prices face the quarantine rules as in a normal load (screened against the
    # accepted history before them); one a person accepted, or that N snapshots confirmed,
    # before stays admitted.
    keep, _ = quarantine_page(con, rows, policy, page=stored.pid, run_id=stamp)
    run_of = {observed: run_id for observed, run_id, _ in stored.old}
    by_run: dict[str, list[Row]] = {}
    for row in keep:
        by_run.setdefault(run_of.get(row.observed_at) or stamp, []).append(row)
    return sum(
        insert_rows(con, group, page=stored.pid, run_id=run_id) for run_id, group in by_run.items()
    )


def _forget_derived(
    con: duckdb.DuckDBPyConnection, affected: set[tuple[str, str, datetime]]
) -> bool:
    """Drop the derived-metrics ledger of every snapshot touched (and the derived rows of an
    offer snapshot left without rows); whether a snapshot lost every row."""
    gone = False
    for kind, src, observed in affected:
        con.execute(
            "DELETE FROM derived_snapshot WHERE kind = ? AND source = ? AND observed_at = ?",
            [kind, src, observed],
        )
        table = "offer" if kind == "offer" else "spot_quote"
        left = con.execute(
            f"SELECT count(*) FROM {table} WHERE source = ? AND observed_at = ?",
            [src, observed],
        ).fetchone()[0]
        if left == 0:
            gone = True
            if kind == "offer":
                for derived in DERIVED_TABLES:
                    con.execute(
                        f"DELETE FROM {derived} WHERE source = ? AND observed_at = ?",
                        [src, observed],
                    )
    return gone


@dataclass(frozen=True, slots=True)
class _Reload:
    """What every page of one re-parse is reloaded with."""

    adapter: SourceAdapter
    source: str
    stamp: str  # run_id of rows a page gives for the first time
    policy: QuarantinePolicy
    fx_defaults: Sequence[FxRate]  # the configured rates, for days before every stored one


def _reparse_page(warehouse: Warehouse, job: _Reload, page: tuple[str, str, datetime]) -> _Outcome:
    """Re-parse and reload one archived page ``(page_id, url, fetched_at)``, in one
    transaction, converting its rows at the rates of their own days."""
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            stored = _stored(con, *page)
            rates = day_rates(con, job.fx_defaults)
            rows, error, simulated, rejected = _parse_again(job.adapter, stored, rates, job.policy)
            affected = {(kind, job.source, observed) for observed, _, kind in stored.old}
            affected |= {
                ("offer" if isinstance(r, OfferRow) else "quote", job.source, r.observed_at)
                for r in rows.values()
            }
            added = _replace_rows(con, stored, list(rows.values()), job.stamp, job.policy)
            con.execute("DELETE FROM rejected_row WHERE page_id = ?", [stored.pid])
            store_listings(
                con, job.source, stored.url, stored.fetched_at, rejected, stored.pid, job.stamp
            )
            con.execute(
                "UPDATE raw_page SET parse_status = ?, parse_error = ?, rows = ?, simulated = ? "
                "WHERE page_id = ?",
                ["error" if error else "ok", error, len(rows), simulated, stored.pid],
            )
            gone = _forget_derived(con, affected)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    changed = (
        ("error" if error else "ok") != stored.status
        or added != len(stored.old)
        or len(rows) != stored.rows
    )
    snapshots = {(src, observed) for _, src, observed in affected}
    return _Outcome(stored.url, len(stored.old), added, snapshots, error, changed, gone, rejected)
