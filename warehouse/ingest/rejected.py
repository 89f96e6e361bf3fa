"""The listings a page rejected, kept beside it in ``rejected_row`` (migration 013): where each
was, an excerpt of its raw text and why, refused by the parser or by the load. Loading the same
page again adds nothing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import duckdb
import polars as pl

from scrapers.collect import ParsedPage
from scrapers.parse import Rejected
from warehouse.store.db import utcnow
from warehouse.store.lake import insert_new_frame

_KEY = ("page_id", "stage", "position", "reason")


def store_rejected(
    con: duckdb.DuckDBPyConnection, source: str, parsed: ParsedPage, *, page: str, run_id: str
) -> list[Rejected]:
    """Record ``parsed``'s rejected listings in the caller's transaction; returns them."""
    store_listings(
        con, source, parsed.page.url, parsed.page.fetched_at, parsed.rejected, page, run_id
    )
    return list(parsed.rejected)


def store_listings(
    con: duckdb.DuckDBPyConnection,
    source: str,
    url: str,
    fetched_at: datetime,
    rejected: Sequence[Rejected],
    page: str,
    run_id: str,
) -> None:
    """Record the rejected listings of the page ``page`` (in the caller's transaction)."""
    if not rejected:
        return
    now = utcnow()
    frame = pl.DataFrame(
        [
            {
                "page_id": page,
                "source": source,
                "url": url,
                "fetched_at": fetched_at,
                "stage": r.stage,
                "position": r.where,
                "excerpt": r.excerpt,
                "reason": r.reason,
                "run_id": run_id,
                "recorded_at": now,
            }
            for r in dict.fromkeys(rejected)  # one a listing, in page order
        ]
    )
    insert_new_frame(con, "rejected_row", frame, key=_KEY)
