"""A fetched snapshot with every configured secret masked, before anything of it is loaded.

A server may echo what it was sent (a 200 or 503 body quoting the token, a parse error that
repeats it, a field of its answer holding it). Whatever the load writes from a snapshot
(``raw_page`` bodies and URLs, rows, ``scrape_run`` / ``source_health`` errors, the
scraper-broken alert, the step's Dagster metadata and log lines) comes from the snapshot, so
masking it here masks all of those.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TypeVar

from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from scrapers.redaction import Redactor
from scrapers.rows import Row

_T = TypeVar("_T")


def _text_fields(value: _T, redactor: Redactor) -> _T:
    """``value`` (a frozen dataclass) with each text field masked; itself when none changed."""
    changed = {}
    for spec in fields(value):  # type: ignore[arg-type]
        current = getattr(value, spec.name)
        if isinstance(current, str):
            clean = redactor.text(current)
            if clean != current:
                changed[spec.name] = clean
    return replace(value, **changed) if changed else value  # type: ignore[type-var]


def _page(parsed: ParsedPage, redactor: Redactor) -> ParsedPage:
    page: FetchedPage = _text_fields(parsed.page, redactor)
    page = replace(page, body=redactor.body(page.body))
    rows: list[Row] = [_text_fields(row, redactor) for row in parsed.rows]
    return ParsedPage(page, rows, redactor.optional(parsed.error))


def redact_snapshot(snapshot: Snapshot, redactor: Redactor) -> Snapshot:
    """``snapshot`` with every secret value masked in its pages, rows and errors."""
    if not redactor:
        return snapshot
    return Snapshot(
        snapshot.source,
        snapshot.kind,
        snapshot.started_at,
        snapshot.as_of,
        [_page(parsed, redactor) for parsed in snapshot.pages],
        redactor.optional(snapshot.fetch_error),
        snapshot.fetch_failure,
    )
