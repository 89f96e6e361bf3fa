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

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from scrapers.collect import ParsedPage, parse_page
from scrapers.http import FetchedPage
from scrapers.rows import OfferRow, Row
from scrapers.sources.base import SourceAdapter
from warehouse.derive.metrics import DERIVED_TABLES, ReferenceMissing, derive
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.load import validate_page
from warehouse.ingest.quarantine import QuarantinePolicy, admitted_ids, entry_id, screen, store
from warehouse.store.db import read_connection, utcnow, write_connection

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

    def line(self) -> str:
        return (
            f"reparse {self.source}: {self.pages} page(s), {self.ok} ok, {self.errors} with "
            f"errors, {self.changed} changed; rows {self.rows_before} → {self.rows_after}; "
            f"{len(self.snapshots)} snapshot(s) to re-derive{self.derive_note}"
        )


def archived_pages(path: Path, source: str, since: datetime | None = None) -> list[tuple]:
    """``(page_id, url, fetched_at)`` of the source's archived pages, oldest first."""
    with read_connection(path) as con:
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
    path: Path,
    adapter: SourceAdapter,
    source: str,
    since: datetime | None = None,
    *,
    progress: Progress | None = None,
    run_derive: bool = True,
    quarantine: QuarantinePolicy | None = None,
) -> ReparseSummary:
    summary = ReparseSummary(source)
    policy = quarantine or QuarantinePolicy()
    pages = archived_pages(path, source, since)
    summary.pages = len(pages)
    stamp = f"reparse-{utcnow():%Y%m%dT%H%M%S}"
    vanished = False
    for done, (pid, url, fetched_at) in enumerate(pages, 1):
        outcome, gone = _reparse_page(
            path, adapter, source, pid, url, fetched_at, stamp, summary, policy
        )
        vanished = vanished or gone
        if progress is not None:
            progress(done, len(pages), url, outcome)
    if run_derive and summary.snapshots:
        try:
            result = derive(path, full=vanished)
            summary.derive_note = f"; {result.line()}"
        except ReferenceMissing as exc:
            summary.derive_note = f"; not derived: {exc}"
    return summary


def _reparse_page(
    path: Path,
    adapter: SourceAdapter,
    source: str,
    pid: str,
    url: str,
    fetched_at: datetime,
    stamp: str,
    summary: ReparseSummary,
    policy: QuarantinePolicy,
) -> tuple[str, bool]:
    """Re-parse and reload one page; ``(outcome, a snapshot lost every row)``."""
    with write_connection(path) as con:
        body, http_status, content_type, old_status, old_rows, was_simulated = con.execute(
            "SELECT body, http_status, content_type, parse_status, rows, simulated "
            "FROM raw_page WHERE page_id = ?",
            [pid],
        ).fetchone()
        old = con.execute(
            "SELECT observed_at, run_id, 'offer' FROM offer WHERE page_id = $p "
            "UNION ALL SELECT observed_at, run_id, 'quote' FROM spot_quote WHERE page_id = $p",
            {"p": pid},
        ).fetchall()
    run_of = {observed: run_id for observed, run_id, _ in old}
    # Parsed at the moments its rows were stored under (the demo market's answers are stamped
    # with the day they are of, not the fetch time); a page without rows at its fetch time.
    times = sorted(run_of) or [fetched_at]
    rows: dict[tuple, Row] = {}
    error: str | None = None
    # A page stored as simulated stays so: the demo market's JSON and CSV answers cannot say it
    # themselves (the demo profile marked their rows when it loaded them).
    simulated = bool(was_simulated)
    for moment in times:
        page = FetchedPage(url, http_status, bytes(body), content_type or "", moment)
        parsed: ParsedPage = validate_page(parse_page(adapter, page))
        if parsed.error:
            error = parsed.error
            rows = {}
            break
        for row in parsed.rows:
            if was_simulated and not getattr(row, "simulated", True):
                row = replace(row, simulated=True)
            rows.setdefault(_key(row), row)
            simulated = simulated or bool(getattr(row, "simulated", False))
    new_status = "error" if error else "ok"
    affected = {(o[2], source, o[0]) for o in old}
    affected |= {
        ("offer" if isinstance(r, OfferRow) else "quote", source, r.observed_at)
        for r in rows.values()
    }
    with write_connection(path) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute("DELETE FROM offer WHERE page_id = ?", [pid])
            con.execute("DELETE FROM spot_quote WHERE page_id = ?", [pid])
            # Re-parsed prices face the quarantine rules as in a normal load (screened against
            # the accepted history before them); one a person accepted, or that N snapshots
            # confirmed, before stays admitted.
            keep, held = screen(con, list(rows.values()), policy)
            admitted = admitted_ids(con, [e.row for e in held])
            keep += [e.row for e in held if e.status == "held" and entry_id(e.row) in admitted]
            store(
                con, [e for e in held if entry_id(e.row) not in admitted], page_id=pid, run_id=stamp
            )
            by_run: dict[str, list[Row]] = {}
            for row in keep:
                by_run.setdefault(run_of.get(row.observed_at) or stamp, []).append(row)
            added = sum(
                insert_rows(con, group, page=pid, run_id=run_id) for run_id, group in by_run.items()
            )
            con.execute(
                "UPDATE raw_page SET parse_status = ?, parse_error = ?, rows = ?, simulated = ? "
                "WHERE page_id = ?",
                [new_status, error, len(rows), simulated, pid],
            )
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
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    summary.rows_before += len(old)
    summary.rows_after += added
    summary.snapshots |= {(src, observed) for _, src, observed in affected}
    if error:
        summary.errors += 1
        summary.page_errors.append(f"{url}: {error}")
    else:
        summary.ok += 1
    if new_status != old_status or added != len(old) or len(rows) != old_rows:
        summary.changed += 1
    outcome = f"error: {error}" if error else f"ok, {added} row(s)"
    return outcome, gone
