"""`history wayback`: a source's archived pricing pages, from the Internet Archive's CDX
listing (read page by page), one capture a period, each raw capture parsed by the source's
own adapter. Every listed row is screened before anything is fetched for it
(scrapers.archive.cdx.screen): one that is malformed, names another page or a moment outside
the window or after now is recorded as a failed capture with its reason, and the import goes
on."""

from __future__ import annotations

from datetime import date, datetime

from configuration.settings import Settings
from pipelines.assets import source_adapter
from pipelines.history_import import (
    HistoryError,
    HistoryRequest,
    Importer,
    ImportSummary,
    Progress,
    failure_reason,
    new_import_id,
    span,
)
from scrapers.archive.cdx import WAYBACK, Capture, Refused, archive_url, cdx_url, screen, usable
from scrapers.archive.fetch import CaptureRefused, fetch_capture, list_pages
from scrapers.archive.periods import Every, one_per_period, period_of
from scrapers.collect import parse_page
from scrapers.http import FetchedPage, FetchError, PoliteClient
from scrapers.rows import ParseError
from scrapers.sources import SourceAdapter
from warehouse.ingest.history import ImportRecord, Ledger, read_ledger
from warehouse.store.db import utcnow

__all__ = ["wayback"]

Listed = tuple[str, Capture]  # (the URL asked for, one of its captures)


def wayback(
    settings: Settings, request: HistoryRequest, progress: Progress, run: str | None, every: Every
) -> ImportSummary:
    source = request.source
    src = settings.file.sources.get(source)
    if src is None:
        known = ", ".join(sorted(settings.file.sources))
        raise HistoryError(f"no source {source!r} in the configuration; known: {known}")
    urls = list(request.urls) or list(src.archived_urls)
    if not urls:
        raise HistoryError(
            f"sources.{source} has no archived_urls: give --url (e.g. www.example.com/pricing) "
            "or add archived_urls to its [sources.{source}] table"
        )
    adapter = source_adapter(settings, source)
    base = request.archive_url or settings.file.history.archive_url
    days = request.days()
    ledger = read_ledger(settings.warehouse, "wayback", source)
    record = ImportRecord(
        new_import_id("wayback"), "wayback", source, ", ".join(urls), days[0], days[1], every,
        utcnow(), run,
    )  # fmt: skip
    importer = Importer(
        settings, record, every=every, min_interval_s=request.min_interval_s,
        window=request.window(),
    )  # fmt: skip
    with importer.interruptible(), importer.client() as client:
        done = {period_of(at, every) for times in ledger.loaded.values() for at in times}
        periods, unlisted = _list(importer, client, base, urls, days, ledger, every, done)
        if unlisted == len(urls):
            return importer.finish(f"the archive at {base} could not list any URL")
        importer.counts.kept = len(periods)
        progress.start(len(periods), f"wayback {source}")
        for candidates in periods:
            progress.advance(_one_period(importer, client, base, adapter, candidates, ledger))
    return importer.finish()


def _list(
    importer: Importer,
    client: PoliteClient,
    base: str,
    urls: list[str],
    days: tuple[date, date],
    ledger: Ledger,
    every: Every,
    done: set[date],
) -> tuple[list[list[Listed]], int]:
    """Per period, the captures to try (every URL, every page of each listing, after each
    URL's cursor), and how many URLs could not be listed (each said in the summary). Rows
    refused by the screen are recorded as they come; only a period's first capture and its
    spares are kept while the pages are read, so a listing of any length stays small."""
    kept: list[list[Listed]] = []
    unlisted = 0
    for url in urls:
        cursor = ledger.cursors.get(url)
        first, last = span(days, cursor)
        try:
            for page in list_pages(client, base, url, first, last):
                captures, refused = screen(page, url, importer.window)
                for row in refused:
                    _refused(importer, url, row, first, last)
                fresh = [
                    (url, c) for c in usable(captures) if cursor is None or c.captured_at > cursor
                ]
                importer.counts.listed += len(fresh) + len(refused)
                kept = one_per_period(
                    [*(item for period in kept for item in period), *fresh],
                    lambda item: item[1].captured_at, every, skip=done,
                )  # fmt: skip
        except (FetchError, ParseError) as exc:
            importer.summary.notes.append(f"listing of {url} failed: {exc}")
            unlisted += 1
    return kept, unlisted


def _refused(importer: Importer, url: str, row: Refused, first: datetime, last: datetime) -> None:
    """A listed row not taken as a capture, recorded with its reason; its moment is kept
    only when it is a real one inside the window (a cursor never moves to a refused date)."""
    if row.timestamp and row.original:
        origin = f"{WAYBACK}/web/{row.timestamp}id_/{row.original}"
    else:
        origin = f"{cdx_url(WAYBACK, url, first.date(), last.date())} (a row of the listing)"
    observed = row.captured_at if row.reason in ("not_asked", "bad_url") else None
    importer.failed(url, observed, origin, None, row.reason, f"listing: {row.error}")


def _one_period(
    importer: Importer,
    client: PoliteClient,
    base: str,
    adapter: SourceAdapter,
    candidates: list[Listed],
    ledger: Ledger,
) -> str:
    """Load the period's first capture that parses; the others are spares."""
    for url, capture in candidates:
        if (url, capture.captured_at) in ledger.settled:
            return f"{capture.captured_at:%Y-%m-%d} imported before"
        page = _capture_page(importer, client, base, url, capture, ledger)
        if page is None:
            continue
        parsed = parse_page(adapter, page)
        importer.parsed(url, parsed, origin=page.url, digest=capture.digest, kind=adapter.kind)
        if parsed.error is None:
            return f"{capture.captured_at:%Y-%m-%d} +{len(parsed.rows)} rows"
    day = candidates[0][1].captured_at
    return f"{day:%Y-%m-%d} no capture loaded"


def _capture_page(
    importer: Importer,
    client: PoliteClient,
    base: str,
    url: str,
    capture: Capture,
    ledger: Ledger,
) -> FetchedPage | None:
    """The capture's bytes: already archived (same digest), else fetched; None after
    recording why it could not be had."""
    origin = archive_url(capture)
    body = importer.body(capture.digest, ledger.digests) if capture.digest else None
    if body is not None:
        importer.counts.reused += 1
        return FetchedPage(origin, 200, body, capture.mimetype, capture.captured_at)
    at = capture.captured_at
    try:
        page = fetch_capture(client, base, capture)
    except FetchError as exc:
        reason, retry = failure_reason(exc.reason)
        importer.failed(url, at, origin, capture.digest, reason, exc.reason, retry=retry)
        return None
    except CaptureRefused as exc:
        importer.failed(
            url, at, origin, capture.digest, exc.kind, str(exc), retry=exc.kind == "empty"
        )
        return None
    importer.counts.fetched += 1
    return page
