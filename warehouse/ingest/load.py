"""Idempotent loading: one transaction per snapshot, the same page twice adds nothing."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from scrapers.clock import Window, now_utc, refusal
from scrapers.collect import ParsedPage, Snapshot
from scrapers.fx import FxRate, FxRates
from scrapers.parse import DEFAULT_MAX_REJECTED_SHARE, Rejected, excerpt_of, page_failure, summary
from scrapers.rows import ParseError, Row
from warehouse.ingest.drift import implausible, record_health
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.money import convert, day_rates, default_note
from warehouse.ingest.quarantine import (
    Entry,
    QuarantinePolicy,
    admitted_ids,
    confirm,
    entry_id,
    screen,
    store,
)
from warehouse.ingest.rejected import store_rejected
from warehouse.store.db import utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new


@dataclass(frozen=True, slots=True)
class LoadSummary:
    run_id: str
    source: str
    status: str  # ok | partial | failed | skipped
    pages: int
    rows_added: int
    error: str | None
    # why it failed or was skipped: unreachable | http_error | blocked | too_large | drift |
    # load_error | not_configured (scrape_run.reason)
    reason: str | None = None
    broken_alert: str | None = None  # a scraper_broken alert this run raised
    quarantined: int = 0  # rows this run put in quarantine (held or noted)
    released: int = 0  # held rows this run confirmed and loaded
    # how many rows were converted at the configured default rate (no stored rate before them)
    fx_note: str | None = None
    rejected: int = 0  # listings its pages rejected (kept in rejected_row)
    rejected_note: str | None = None  # the first few, with their reasons

    def line(self) -> str:
        status = f"{self.status} ({self.reason.replace('_', ' ')})" if self.reason else self.status
        text = f"{self.source}: {status}, {self.pages} page(s), {self.rows_added} new row(s)"
        if self.rejected:
            text += f", {self.rejected} listing(s) rejected"
        if self.quarantined:
            text += f", {self.quarantined} in quarantine"
        if self.released:
            text += f", {self.released} released from quarantine"
        return f"{text} — {self.error}" if self.error else text


def page_id(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _refused(row: Row, problem: str) -> Rejected:
    """A row the load refuses, kept as a rejected listing of its page (stage "load")."""
    where = getattr(row, "offer_id", None) or f"{row.gpu_name_raw} {row.region}"
    excerpt = excerpt_of(f"{row.gpu_name_raw} {row.price} {row.unit_raw}")
    return Rejected(where, excerpt, problem, stage="load")


def validate_page(
    parsed: ParsedPage,
    rates: FxRates,
    max_rejected_share: float = DEFAULT_MAX_REJECTED_SHARE,
    window: Window | None = None,
) -> ParsedPage:
    """The page as loaded: each row priced in CNY at the rate of its day. A row that cannot
    be converted, whose CNY figure is implausible for its card, or whose date the one clock
    refuses (after the fetch or now, outside the asked ``window``: scrapers.clock) is refused
    alone and kept as a rejected listing; the page fails (zero rows) when no row is left or
    more than ``max_rejected_share`` of its listings were rejected, at parse and at load
    together (scrapers.parse.page_failure)."""
    if parsed.error:
        return parsed
    kept: list[Row] = []
    refused: list[Rejected] = []
    now = now_utc()  # one clock reading a page: per row it was a tenth of the page's checks
    for row in parsed.rows:
        try:
            priced = convert(row, rates)
        except ParseError as exc:
            refused.append(_refused(row, str(exc)))
            continue
        problem = implausible(priced) or refusal(
            priced.observed_at, now=now, fetched_at=parsed.page.fetched_at, window=window
        )
        if problem:
            refused.append(_refused(priced, problem))
        else:
            kept.append(priced)
    rejected = (*parsed.rejected, *refused)
    listings = max(parsed.listings, len(parsed.rows))
    failure = page_failure(len(kept), rejected, listings, max_rejected_share)
    if failure:
        return ParsedPage(parsed.page, [], f"page rejected: {failure}", rejected, listings)
    return ParsedPage(parsed.page, kept, None, rejected, listings)


def quarantine_page(
    con: duckdb.DuckDBPyConnection,
    rows: list[Row],
    policy: QuarantinePolicy,
    *,
    page: str,
    run_id: str,
) -> tuple[list[Row], list[Entry]]:
    """The quarantine steps of one page, for a load and a re-parse alike: screen ``rows``
    (jumps and impossible units held, unknown cards noted), let through what a person
    accepted or snapshots confirmed before, and store the rest. Returns the rows to insert
    and the entries stored."""
    keep, held = screen(con, rows, policy)
    admitted = admitted_ids(con, [e.row for e in held])
    keep += [e.row for e in held if e.status == "held" and entry_id(e.row) in admitted]
    held = [e for e in held if entry_id(e.row) not in admitted]
    store(con, held, page_id=page, run_id=run_id)
    return keep, held


def _archive_page(con: duckdb.DuckDBPyConnection, source: str, parsed: ParsedPage) -> str:
    """The page in ``raw_page`` (once: the same body again adds nothing); its id."""
    pid = page_id(parsed.page.body)
    insert_new(
        con,
        "INSERT INTO raw_page VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            pid,
            source,
            parsed.page.url,
            parsed.page.fetched_at,
            parsed.page.status,
            parsed.page.content_type,
            parsed.page.body,
            "error" if parsed.error else "ok",
            parsed.error,
            len(parsed.rows),
            any(getattr(r, "simulated", False) for r in parsed.rows),
        ],
        table="raw_page",
        key={"page_id": pid},
    )
    return pid


@dataclass(slots=True)
class Loaded:
    """What the pages of one snapshot added inside the load's transaction."""

    added: int = 0
    held: list[Entry] = field(default_factory=list)
    priced: list[Row] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def load_pages(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    pages: list[ParsedPage],
    policy: QuarantinePolicy,
    run_id: str,
    *,
    citation: str | None = None,
) -> Loaded:
    """The page steps of one snapshot in the caller's transaction (a load, or the bulk path
    of warehouse.ingest.bulk): archive each page, screen its validated rows (``pages``, from
    :func:`validate_page`) through the quarantine, insert them, each citing ``citation``."""
    loaded = Loaded()
    for parsed in pages:
        pid = _archive_page(con, snapshot.source, parsed)
        loaded.rejected += store_rejected(con, snapshot.source, parsed, page=pid, run_id=run_id)
        keep, held = quarantine_page(con, parsed.rows, policy, page=pid, run_id=run_id)
        loaded.held += held
        loaded.priced += parsed.rows
        loaded.added += insert_rows(con, keep, page=pid, run_id=run_id, citation=citation)
    return loaded


def load_snapshot(
    warehouse: Warehouse,
    snapshot: Snapshot,
    *,
    profile: str,
    run_id: str | None = None,
    quarantine: QuarantinePolicy | None = None,
    fx_defaults: Sequence[FxRate] = (),
) -> LoadSummary:
    """Archive the pages and load their rows in one transaction, and record the run.

    Each row is priced in CNY at the ``fx_rate`` of its own day, read in this transaction
    (``fx_defaults``, the configured rates, for days before every stored one:
    warehouse.ingest.money). Rows that look wrong go to the quarantine table instead
    (warehouse.ingest.quarantine): price jumps and impossible units are held back, unknown
    GPU names are loaded as 'unknown' and noted, the rows of a page rejected for invalid
    prices are kept there with the reason."""
    run_id = run_id or uuid.uuid4().hex
    policy = quarantine or QuarantinePolicy()
    if snapshot.fetch_error:
        return record_run(
            warehouse,
            snapshot,
            profile,
            run_id,
            "failed",
            0,
            snapshot.fetch_error,
            reason=snapshot.fetch_failure or "http_error",
        )
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            rates = day_rates(con, fx_defaults)
            pages = [validate_page(p, rates, policy.max_rejected_share) for p in snapshot.pages]
            errors = [f"{p.page.url}: {p.error}" for p in pages if p.error]
            status = "ok" if not errors else ("failed" if len(errors) == len(pages) else "partial")
            problem = "; ".join(errors) or None
            reason = "drift" if errors else None
            loaded = load_pages(con, snapshot, pages, policy, run_id)
            released = confirm(con, loaded.held, policy)
            added = loaded.added + released
            insert_run(con, snapshot, profile, run_id, status, added, problem, reason)
            alert = record_health(
                con,
                source=snapshot.source,
                profile=profile,
                run_id=run_id,
                at=snapshot.started_at,
                problem=problem,
            )
            con.execute("COMMIT")
        except duckdb.Error as exc:
            con.execute("ROLLBACK")
            failure = f"load failed and was rolled back: {type(exc).__name__}: {exc}"
            insert_run(con, snapshot, profile, run_id, "failed", 0, failure, "load_error")
            return LoadSummary(
                run_id, snapshot.source, "failed", len(snapshot.pages), 0, failure, "load_error"
            )
    return LoadSummary(
        run_id,
        snapshot.source,
        status,
        len(pages),
        added,
        problem,
        reason,
        alert,
        quarantined=len(loaded.held),
        released=released,
        fx_note=default_note(loaded.priced),
        rejected=len(loaded.rejected),
        rejected_note=summary(loaded.rejected, examples=2) if loaded.rejected else None,
    )


def record_run(
    warehouse: Warehouse,
    snapshot: Snapshot,
    profile: str,
    run_id: str,
    status: str,
    rows: int,
    error: str | None,
    *,
    reason: str | None = None,
) -> LoadSummary:
    with write_connection(warehouse) as con:
        insert_run(con, snapshot, profile, run_id, status, rows, error, reason)
    return LoadSummary(run_id, snapshot.source, status, len(snapshot.pages), rows, error, reason)


def record_skipped(
    warehouse: Warehouse, snapshot: Snapshot, profile: str, run_id: str, why: str
) -> LoadSummary:
    """A source that is not configured (e.g. its login cookie is missing): nothing fetched,
    recorded as ``skipped`` / ``not_configured`` so the data-health page tells it from a
    failure."""
    return record_run(
        warehouse, snapshot, profile, run_id, "skipped", 0, why, reason="not_configured"
    )


def insert_run(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    profile: str,
    run_id: str,
    status: str,
    rows: int,
    error: str | None,
    reason: str | None = None,
) -> None:
    """One ``scrape_run`` row, in the caller's connection (and transaction, if any)."""
    con.execute(
        "INSERT INTO scrape_run VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            snapshot.source,
            profile,
            snapshot.as_of,
            snapshot.started_at,
            utcnow(),
            status,
            len(snapshot.pages),
            rows,
            error,
            reason,
        ],
    )
