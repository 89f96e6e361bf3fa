"""The ledger of history imports (migration 009): each import, each capture it tried, and
the cursors that make the next import fetch only what is new.

``history_import`` is one run of ``gpuprice history …`` (its counts and outcome),
``history_capture`` one capture, catalog version or tracker snapshot (loaded, or failed with
its reason and archive URL), and its ``run_id`` is the ``run_id`` of the rows it loaded, so
every imported row leads to its origin. ``history_cursor`` is, per kind, source and archived
URL (catalog path, file), the newest capture time settled.

Imported history never raises procurement alerts: an import evaluates no watch rule, and
moves each rule's cursor past the newest snapshot it loaded
(``warehouse.derive.alerts.hold_for_history``), so neither the next run nor a rule walking its
line again takes it for news.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, field
from datetime import date, datetime

import duckdb
import polars as pl

from warehouse.store.db import read_connection, utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new_frame

__all__ = [
    "DATE_REFUSALS",
    "CaptureRecord",
    "ImportCounts",
    "ImportRecord",
    "Ledger",
    "archived_body",
    "finish_import",
    "move_cursor",
    "read_ledger",
    "record_captures",
    "start_import",
]


# Why a capture was refused for its date (scrapers.clock): after now, or outside the window
# asked for. Such a capture settles nothing: a later import with another window may load it,
# and no cursor moves to a date refused.
DATE_REFUSALS = ("future", "out_of_window")


@dataclass(frozen=True, slots=True)
class ImportRecord:
    """What one import is: its kind, where its rows go and what it reads."""

    import_id: str
    kind: str  # wayback | skypilot | csv
    source: str
    target: str
    first_day: date | None
    last_day: date | None
    every: str | None
    started_at: datetime
    dagster_run_id: str | None = None


@dataclass(slots=True)
class ImportCounts:
    listed: int = 0
    kept: int = 0
    fetched: int = 0
    reused: int = 0
    parsed: int = 0
    failed: int = 0
    rows_added: int = 0
    first_observed: datetime | None = None
    last_observed: datetime | None = None

    def observed(self, moment: datetime) -> None:
        self.first_observed = min(filter(None, (self.first_observed, moment)))
        self.last_observed = max(filter(None, (self.last_observed, moment)))


@dataclass(frozen=True, slots=True)
class CaptureRecord:
    """One capture (catalog version, tracker snapshot) an import tried."""

    run_id: str
    import_id: str
    kind: str
    source: str
    target: str
    observed_at: datetime | None
    origin: str
    digest: str | None
    status: str  # ok | failed
    reason: str | None = None  # not_found, parse_error, blocked, future, out_of_window, …
    retry: bool = False  # a failure the next import tries again (429, 5xx, unreachable)
    error: str | None = None
    page_id: str | None = None
    rows_added: int = 0


@dataclass(frozen=True, slots=True)
class Ledger:
    """What earlier imports of one kind and source settled."""

    cursors: dict[str, datetime] = field(default_factory=dict)  # target -> last settled
    settled: frozenset[tuple[str, datetime]] = frozenset()  # (target, observed_at) not to retry
    loaded: dict[str, set[datetime]] = field(default_factory=dict)  # target -> times loaded
    digests: dict[str, str] = field(default_factory=dict)  # digest -> page_id of its body


def start_import(warehouse: Warehouse, record: ImportRecord) -> None:
    with write_connection(warehouse) as con:
        con.execute(
            "INSERT INTO history_import (import_id, kind, source, target, first_day, last_day, "
            "every, started_at, status, dagster_run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
            "'running', ?)",
            [
                record.import_id, record.kind, record.source, record.target, record.first_day,
                record.last_day, record.every, record.started_at, record.dagster_run_id,
            ],
        )  # fmt: skip


def finish_import(
    warehouse: Warehouse,
    import_id: str,
    counts: ImportCounts,
    *,
    status: str,
    fx_note: str | None = None,
    error: str | None = None,
) -> None:
    with write_connection(warehouse) as con:
        con.execute(
            "UPDATE history_import SET finished_at = ?, status = ?, listed = ?, kept = ?, "
            "fetched = ?, reused = ?, parsed = ?, failed = ?, rows_added = ?, "
            "first_observed = ?, last_observed = ?, fx_note = ?, error = ? WHERE import_id = ?",
            [utcnow(), status, *astuple(counts), fx_note, error, import_id],
        )


# history_capture's columns, in order (migration 009).
_CAPTURE_SCHEMA = {
    "run_id": pl.String, "import_id": pl.String, "kind": pl.String, "source": pl.String,
    "target": pl.String, "observed_at": pl.Datetime("us"), "origin": pl.String,
    "digest": pl.String, "status": pl.String, "reason": pl.String, "retry": pl.Boolean,
    "error": pl.String, "page_id": pl.String, "rows_added": pl.Int32,
    "loaded_at": pl.Datetime("us"),
}  # fmt: skip


def record_captures(con: duckdb.DuckDBPyConnection, records: Sequence[CaptureRecord]) -> None:
    """The captures' ledger rows in one insert, in the caller's transaction (their rows'
    load); a capture recorded before is kept as it was."""
    if not records:
        return
    now = utcnow()
    frame = pl.DataFrame(
        [[*astuple(r), now] for r in records], schema=_CAPTURE_SCHEMA, orient="row"
    )
    insert_new_frame(con, "history_capture", frame, key=("run_id",))


def move_cursor(
    con: duckdb.DuckDBPyConnection, kind: str, source: str, target: str, until: datetime
) -> None:
    """The target's cursor to ``until``, never back (DELETE + INSERT: a DuckLake has no key)."""
    found = con.execute(
        "SELECT last_observed FROM history_cursor WHERE kind = ? AND source = ? AND target = ?",
        [kind, source, target],
    ).fetchone()
    if found is not None and found[0] >= until:
        return
    con.execute(
        "DELETE FROM history_cursor WHERE kind = ? AND source = ? AND target = ?",
        [kind, source, target],
    )
    con.execute(
        "INSERT INTO history_cursor VALUES (?, ?, ?, ?, ?)", [kind, source, target, until, utcnow()]
    )


def read_ledger(warehouse: Warehouse, kind: str, source: str) -> Ledger:
    """The cursors, settled captures and archived digests of ``kind`` and ``source``
    (creating and migrating the warehouse if it is new)."""
    with write_connection(warehouse) as con:
        cursors = dict(
            con.execute(
                "SELECT target, last_observed FROM history_cursor WHERE kind = ? AND source = ?",
                [kind, source],
            ).fetchall()
        )
        captures = con.execute(
            "SELECT target, observed_at, status, retry, digest, page_id, reason "
            "FROM history_capture WHERE kind = ? AND source = ? AND observed_at IS NOT NULL",
            [kind, source],
        ).fetchall()
        # A tracker's moments are loaded a chunk at a time (one ledger row per chunk): each
        # moment with a row loaded is settled.
        moments = (
            con.execute(
                "SELECT DISTINCT c.target, o.observed_at FROM history_capture c "
                "JOIN offer o USING (run_id) WHERE c.kind = 'csv' AND c.source = ? "
                "AND c.status = 'ok' AND o.source = ?",
                [source, source],
            ).fetchall()
            if kind == "csv"
            else []
        )
    settled = {
        (t, at)
        for t, at, status, retry, _, _, reason in captures
        if status == "ok" or not (retry or reason in DATE_REFUSALS)
    } | set(moments)
    loaded: dict[str, set[datetime]] = {}
    for target, at, status, *_ in captures:
        if status == "ok":
            loaded.setdefault(target, set()).add(at)
    digests = {d: p for _, _, status, _, d, p, _ in captures if status == "ok" and d and p}
    return Ledger(cursors, frozenset(settled), loaded, digests)


def archived_body(warehouse: Warehouse, page_id: str) -> bytes | None:
    """The body archived under ``page_id``; None when it is gone (emptied by retention)."""
    with read_connection(warehouse) as con:
        found = con.execute(
            "SELECT body FROM raw_page WHERE page_id = ? "
            "AND page_id NOT IN (SELECT page_id FROM raw_page_pruned)",
            [page_id],
        ).fetchone()
    return bytes(found[0]) if found and found[0] else None
