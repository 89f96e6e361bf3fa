"""Idempotent loading: one transaction per snapshot, the same page twice adds nothing."""

from __future__ import annotations

import hashlib
import math
import os
import sys
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import duckdb

from scrapers.collect import ParsedPage, Snapshot
from scrapers.rows import BILLING_MODES, QUOTE_KINDS, OfferRow, Row
from warehouse.ingest.drift import implausible, record_health
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.quarantine import (
    Entry,
    QuarantinePolicy,
    confirm,
    invalid_price_entries,
    screen,
    store,
)
from warehouse.store.db import utcnow, write_connection
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

    def line(self) -> str:
        status = f"{self.status} ({self.reason.replace('_', ' ')})" if self.reason else self.status
        text = f"{self.source}: {status}, {self.pages} page(s), {self.rows_added} new row(s)"
        if self.quarantined:
            text += f", {self.quarantined} in quarantine"
        if self.released:
            text += f", {self.released} released from quarantine"
        return f"{text} — {self.error}" if self.error else text


# Crash-safety tests (tests/reliability/test_crash_safety.py) set this to make a load pause
# inside its transaction, just before COMMIT, so that a real SIGKILL lands there.
PAUSE_BEFORE_COMMIT_ENV = "GPUPRICE_TEST_PAUSE_BEFORE_COMMIT_S"


def _pause_for_tests() -> None:
    pause = os.environ.get(PAUSE_BEFORE_COMMIT_ENV)
    if pause:
        sys.stderr.write("gpuprice: load paused before COMMIT\n")
        sys.stderr.flush()
        time.sleep(float(pause))


def page_id(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _invalid(row: Row) -> str | None:
    """Validation before load: a row that would be junk makes its whole page an error."""
    for name, value in (("price", row.price), ("cny_per_card_hour", row.cny_per_card_hour)):
        if not isinstance(value, Decimal) or not value.is_finite() or value <= 0:
            return f"{name} {value!r} is not a positive number"
        if not math.isfinite(float(value)) or float(value) > 10_000_000:
            return f"{name} {value} is out of range"
    if isinstance(row, OfferRow):
        if row.billing not in BILLING_MODES:
            return f"billing {row.billing!r} is not one of {BILLING_MODES}"
        if row.gpu_count <= 0:
            return f"gpu_count {row.gpu_count} is not positive"
    elif row.quote_kind not in QUOTE_KINDS:
        return f"quote_kind {row.quote_kind!r} is not one of {QUOTE_KINDS}"
    return None


def validate_page(parsed: ParsedPage) -> ParsedPage:
    """The page as loaded: any invalid or implausible row rejects the whole page."""
    for row in parsed.rows:
        problem = _invalid(row)
        if problem:
            return ParsedPage(parsed.page, [], f"invalid row ({problem}); page rejected")
    for row in parsed.rows:
        problem = implausible(row)
        if problem:
            return ParsedPage(parsed.page, [], f"{problem}; page rejected (drift?)")
    return parsed


def load_snapshot(
    path: Path,
    snapshot: Snapshot,
    *,
    profile: str,
    run_id: str | None = None,
    quarantine: QuarantinePolicy | None = None,
) -> LoadSummary:
    """Archive the pages and load their rows in one transaction, and record the run.

    Rows that look wrong go to the quarantine table instead (warehouse.ingest.quarantine): price
    jumps and impossible units are held back, unknown GPU names are loaded as 'unknown' and
    noted, the rows of a page rejected for invalid prices are kept there with the reason."""
    run_id = run_id or uuid.uuid4().hex
    policy = quarantine or QuarantinePolicy()
    if snapshot.fetch_error:
        return record_run(
            path,
            snapshot,
            profile,
            run_id,
            "failed",
            0,
            snapshot.fetch_error,
            reason=snapshot.fetch_failure or "http_error",
        )
    pages = [validate_page(p) for p in snapshot.pages]
    errors = [f"{p.page.url}: {p.error}" for p in pages if p.error]
    status = "ok" if not errors else ("failed" if len(errors) == len(pages) else "partial")
    problem = "; ".join(errors) or None
    reason = "drift" if errors else None
    with write_connection(path) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            added = 0
            held: list[Entry] = []
            for original, parsed in zip(snapshot.pages, pages, strict=True):
                pid = page_id(parsed.page.body)
                insert_new(
                    con,
                    "INSERT INTO raw_page VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        pid,
                        snapshot.source,
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
                keep, page_held = screen(con, parsed.rows, policy)
                if parsed.error:
                    page_held += invalid_price_entries(original.rows)
                store(con, page_held, page_id=pid, run_id=run_id)
                held += page_held
                added += insert_rows(con, keep, page=pid, run_id=run_id)
            released = confirm(con, held, policy)
            added += released
            _insert_run(con, snapshot, profile, run_id, status, added, problem, reason)
            alert = record_health(
                con,
                source=snapshot.source,
                profile=profile,
                run_id=run_id,
                at=snapshot.started_at,
                problem=problem,
            )
            _pause_for_tests()
            con.execute("COMMIT")
        except duckdb.Error as exc:
            con.execute("ROLLBACK")
            failure = f"load failed and was rolled back: {type(exc).__name__}: {exc}"
            _insert_run(con, snapshot, profile, run_id, "failed", 0, failure, "load_error")
            return LoadSummary(
                run_id, snapshot.source, "failed", len(pages), 0, failure, "load_error"
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
        quarantined=len(held),
        released=released,
    )


def record_run(
    path: Path,
    snapshot: Snapshot,
    profile: str,
    run_id: str,
    status: str,
    rows: int,
    error: str | None,
    *,
    reason: str | None = None,
) -> LoadSummary:
    with write_connection(path) as con:
        _insert_run(con, snapshot, profile, run_id, status, rows, error, reason)
    return LoadSummary(run_id, snapshot.source, status, len(snapshot.pages), rows, error, reason)


def record_skipped(
    path: Path, snapshot: Snapshot, profile: str, run_id: str, why: str
) -> LoadSummary:
    """A source that is not configured (e.g. its login cookie is missing): nothing fetched,
    recorded as ``skipped`` / ``not_configured`` so the data-health page tells it from a
    failure."""
    return record_run(path, snapshot, profile, run_id, "skipped", 0, why, reason="not_configured")


def _insert_run(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    profile: str,
    run_id: str,
    status: str,
    rows: int,
    error: str | None,
    reason: str | None = None,
) -> None:
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
