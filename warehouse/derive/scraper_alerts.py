"""The ``scraper_broken`` alerts: a source whose pages stopped parsing into plausible prices
(``warehouse.ingest.drift`` decides when a break starts and ends).

They share the ``alert`` table and the delivery path with the watch rules' alerts
(``warehouse.derive.alerts``) but concern a source, not a card: their card and breakeven
columns are NULL and ``rule`` is ``scraper:<source>``. One alert per break, resolved by the
first snapshot that loaded after it (``resolved_at``, ``resolution``).
"""

from __future__ import annotations

import re
from datetime import datetime

import duckdb

from warehouse.derive import alert_text
from warehouse.derive.alerts import SCRAPER_BROKEN, not_sent_reason
from warehouse.store.db import utcnow
from warehouse.store.lake import insert_new

_QUERY = re.compile(r"(https?://[^\s?]+)\?[^\s:]*")
PROBLEM_CHARS = 800


def store_scraper_broken(
    con: duckdb.DuckDBPyConnection,
    alert_id: str | None,
    *,
    source: str,
    profile: str,
    at: datetime,
    problem: str,
    raised_at: datetime | None = None,
    resolved_at: datetime | None = None,
) -> str | None:
    """Store the ``scraper_broken`` alert of one break of ``source`` seen in a snapshot about
    ``at``, raised at ``raised_at`` (default now; a snapshot about history is dated ``at``
    and not sent), already resolved when the source loaded at ``resolved_at`` after it;
    ``None`` if it was stored before. Caller's transaction."""
    raised_at = raised_at or utcnow()
    not_sent = not_sent_reason(at, raised_at)
    simulated = profile == "demo"
    reason = _QUERY.sub(r"\1?…", problem)  # a search API's query string says little here
    if len(reason) > PROBLEM_CHARS:
        reason = reason[: PROBLEM_CHARS - 3] + "..."
    params = {
        "source": source,
        "profile": profile,
        "at": at.isoformat(),
        "problem": reason,
        "history": not_sent is not None,
        "simulated": simulated,
    }
    added = insert_new(
        con,
        """
        INSERT INTO alert (alert_id, created_at, kind, rule, gpu, source, message,
                           new_observed_at, simulated, not_sent, params)
        VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)
        """,
        [
            alert_id,
            raised_at if not_sent is None else at,
            SCRAPER_BROKEN,
            f"scraper:{source}",
            source,
            alert_text.message(SCRAPER_BROKEN, params, "en"),
            at,
            simulated,
            not_sent,
            alert_text.dumps(params),
        ],
        table="alert",
        key={"alert_id": alert_id},
    )
    if added and resolved_at is not None:
        resolve_scraper_broken(con, source=source, simulated=simulated, at=resolved_at)
    return alert_id if added else None


def open_scraper_break(
    con: duckdb.DuckDBPyConnection, *, source: str, simulated: bool, at: datetime
) -> str | None:
    """The ``scraper_broken`` alert of the break of ``source`` that is open at ``at`` (seen
    at or before it, not resolved before it), if any."""
    row = con.execute(
        "SELECT alert_id FROM alert WHERE kind = ? AND source = ? AND simulated = ? "
        "AND new_observed_at <= ? AND (resolved_at IS NULL OR resolved_at > ?) "
        "ORDER BY new_observed_at DESC LIMIT 1",
        [SCRAPER_BROKEN, source, simulated, at, at],
    ).fetchone()
    return row[0] if row is not None else None


def resolve_scraper_broken(
    con: duckdb.DuckDBPyConnection,
    *,
    source: str,
    simulated: bool,
    at: datetime,
    run_id: str | None = None,
) -> int:
    """``source`` loaded whole in a snapshot about ``at``: every break seen up to then is
    resolved at ``at`` (or earlier than it was: a day of history loaded late may be the first
    that loaded again). Returns how many alerts it resolved."""
    run = f" (run {run_id})" if run_id else ""
    resolution = f"{source} loaded again: snapshot of {at:%Y-%m-%d %H:%M} UTC{run}"
    resolved = con.execute(
        "UPDATE alert SET resolved_at = ?, resolution = ? WHERE kind = ? AND source = ? "
        "AND simulated = ? AND new_observed_at <= ? AND (resolved_at IS NULL OR resolved_at > ?)",
        [at, resolution, SCRAPER_BROKEN, source, simulated, at, at],
    ).fetchone()
    return int(resolved[0]) if resolved else 0
