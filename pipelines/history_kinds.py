"""The three kinds of history import, each a loop over what its archive lists:

* ``wayback``: a source's archived pricing pages (the Internet Archive's CDX listing, one
  capture a period, the raw capture parsed by the source's own adapter);
* ``skypilot``: the versions of one cloud's catalog in skypilot-org/skypilot-catalog (the
  GitHub commits of ``catalogs/<version>/<cloud>/vms.csv``, the file at each kept commit);
* ``csv``: a public tracker's CSV through a named column mapping.

Each records every capture it tries through :class:`pipelines.history_import.Importer`.
"""

from __future__ import annotations

import hashlib
import re
import time
from datetime import date, datetime
from datetime import time as day_time
from pathlib import Path

from configuration.errors import ConfigError
from configuration.schema import is_source_name, valid_archived_url
from configuration.secrets import source_secret
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
)
from scrapers.archive.cdx import Capture, archive_url
from scrapers.archive.fetch import (
    CaptureRefused,
    fetch_capture,
    fetch_catalog,
    list_captures,
    list_commits,
    rate_limit,
)
from scrapers.archive.github import (
    CATALOG_REPO,
    UNAUTHENTICATED_PER_HOUR,
    Commit,
    catalog_path,
    commit_url,
)
from scrapers.archive.periods import EVERY, Every, one_per_period, period_of
from scrapers.archive.tracker_csv import read_tracker_csv
from scrapers.collect import ParsedPage, parse_page
from scrapers.http import FetchedPage, FetchError, PoliteClient
from scrapers.rows import ParseError
from scrapers.sources import SourceAdapter, build_adapter
from warehouse.ingest.history import ImportRecord, Ledger, read_ledger
from warehouse.store.db import utcnow

__all__ = ["run_import"]

# Longest wait for GitHub's rate limit to reset before the import stops (it resumes).
MAX_RATE_WAIT_S = 600
MAX_CSV_BYTES = 256 * 1024 * 1024
GITHUB_TOKEN_ENV = "GITHUB_TOKEN"


def run_import(
    settings: Settings,
    request: HistoryRequest,
    progress: Progress,
    dagster_run_id: str | None = None,
) -> ImportSummary:
    """Run one import; ``HistoryError`` for a request that cannot start (nothing recorded)."""
    every = request.every or settings.file.history.every
    if every not in EVERY:
        raise HistoryError(f"--every {every!r}: use one of {', '.join(EVERY)}")
    runs = {"wayback": _wayback, "skypilot": _skypilot, "csv": _csv}
    return runs[request.kind](settings, request, progress, dagster_run_id, every)  # type: ignore[arg-type]


_WEB_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?(/\S*)?")


def precheck(settings: Settings, request: HistoryRequest) -> None:
    """What can be refused without a fetch or the warehouse, so that the command says it in
    one line before a Dagster run starts (``run_import`` checks again what it needs)."""
    every = request.every or settings.file.history.every
    if every not in EVERY:
        raise HistoryError(f"--every {every!r}: use one of {', '.join(EVERY)}")
    for option, url in (
        ("--archive-url", request.archive_url),
        ("--api-url", request.api_url),
        ("--raw-url", request.raw_url),
    ):
        if url and not _WEB_URL.fullmatch(url):
            raise HistoryError(f"{option} {url[:80]!r}: give an http(s) URL, e.g. https://host")
    request.days()
    {"wayback": _precheck_wayback, "skypilot": _precheck_skypilot, "csv": _precheck_csv}[
        request.kind
    ](settings, request)


def _precheck_wayback(settings: Settings, request: HistoryRequest) -> None:
    if request.source not in settings.file.sources:
        known = ", ".join(sorted(settings.file.sources))
        raise HistoryError(
            f"no source {request.source[:80]!r} in the configuration; known: {known}"
        )
    for url in request.urls:
        try:
            valid_archived_url(url)
        except ValueError as exc:
            raise HistoryError(f"--url: {exc}") from None


def _precheck_skypilot(settings: Settings, request: HistoryRequest) -> None:
    try:
        catalog_path(request.version, request.cloud)
    except ValueError as exc:
        raise HistoryError(str(exc)) from None


def _precheck_csv(settings: Settings, request: HistoryRequest) -> None:
    if request.mapping not in settings.file.history.csv:
        known = ", ".join(sorted(settings.file.history.csv)) or "none"
        raise HistoryError(f"no mapping {request.mapping[:80]!r} in [history.csv]; known: {known}")
    if request.source and not is_source_name(request.source):
        raise HistoryError(
            f"--source {request.source[:80]!r}: lower-case letters, digits and _, starting with "
            "a letter (at most 40)"
        )
    if not Path(request.file).is_file():
        raise HistoryError(f"{request.file[:200]}: no such file")


def _span(days: tuple[date, date], cursor: datetime | None) -> tuple[datetime, datetime]:
    first = datetime.combine(days[0], day_time.min)
    last = datetime.combine(days[1], day_time.max)
    return (max(first, cursor) if cursor else first), last


# -- the Internet Archive ------------------------------------------------------------------


def _wayback(
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
    importer = Importer(settings, record, every=every, min_interval_s=request.min_interval_s)
    try:
        with importer.client() as client:
            listed, unlisted = _list_captures(importer, client, base, urls, days, ledger)
            if unlisted == len(urls):
                return importer.finish(f"the archive at {base} could not list any URL")
            done = {period_of(at, every) for times in ledger.loaded.values() for at in times}
            periods = one_per_period(listed, lambda c: c[1].captured_at, every, skip=done)
            importer.counts.listed, importer.counts.kept = len(listed), len(periods)
            progress.start(len(periods), f"wayback {source}")
            for candidates in periods:
                progress.advance(_one_period(importer, client, base, adapter, candidates, ledger))
    except KeyboardInterrupt:
        return importer.finish("interrupted; the same command resumes where it stopped")
    return importer.finish()


def _list_captures(
    importer: Importer,
    client: PoliteClient,
    base: str,
    urls: list[str],
    days: tuple[date, date],
    ledger: Ledger,
) -> tuple[list[tuple[str, Capture]], int]:
    """Every usable capture of every URL after its cursor, and how many URLs could not be
    listed (each said in the summary, and skipped)."""
    listed: list[tuple[str, Capture]] = []
    unlisted = 0
    for url in urls:
        cursor = ledger.cursors.get(url)
        first, last = _span(days, cursor)
        try:
            captures = list_captures(client, base, url, first, last)
        except (FetchError, ParseError) as exc:
            importer.summary.notes.append(f"listing of {url} failed: {exc}")
            unlisted += 1
            continue
        listed += [(url, c) for c in captures if cursor is None or c.captured_at > cursor]
    return listed, unlisted


def _one_period(
    importer: Importer,
    client: PoliteClient,
    base: str,
    adapter: SourceAdapter,
    candidates: list[tuple[str, Capture]],
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


# -- SkyPilot's catalog history ------------------------------------------------------------


def github_token(settings: Settings) -> str | None:
    """``GITHUB_TOKEN`` (or the file ``GITHUB_TOKEN_FILE`` / ``[history].github_token_file``
    names), the one secret lookup of configuration.secrets; None when none is set."""
    try:
        return source_secret("history", GITHUB_TOKEN_ENV, settings.file.history.github_token_file)
    except ConfigError as exc:
        raise HistoryError(str(exc)) from None


def _pace(client: PoliteClient, api: str, headers: dict[str, str], progress: Progress) -> None:
    """Before each API request: when GitHub's limit is spent, wait for its reset (up to
    MAX_RATE_WAIT_S), else stop (the import resumes where it stopped)."""
    try:
        limit = rate_limit(client, api, headers)
    except (FetchError, ParseError):
        return  # no figures: the listing itself says what is wrong, if anything
    if limit.remaining > 0:
        return
    wait = (limit.reset - utcnow()).total_seconds()
    if wait > MAX_RATE_WAIT_S:
        raise HistoryError(
            f"GitHub's API limit ({limit.limit} requests an hour) is spent until "
            f"{limit.reset:%Y-%m-%d %H:%M} UTC: set {GITHUB_TOKEN_ENV} (5,000 an hour), or run "
            "the same command again then (it resumes)"
        )
    progress.say(f"GitHub's API limit is spent; waiting {max(wait, 0):.0f} s for its reset")
    time.sleep(max(wait, 0))


def _skypilot(
    settings: Settings, request: HistoryRequest, progress: Progress, run: str | None, every: Every
) -> ImportSummary:
    try:
        path = catalog_path(request.version, request.cloud)
    except ValueError as exc:
        raise HistoryError(str(exc)) from None
    options = {"clouds": [request.cloud], "catalog_version": request.version}
    adapter = build_adapter("skypilot", None, options)
    history = settings.file.history
    api, raw = request.api_url or history.github_api_url, request.raw_url or history.github_raw_url
    token = github_token(settings)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    days = request.days()
    ledger = read_ledger(settings.warehouse, "skypilot", adapter.name)
    record = ImportRecord(
        new_import_id("skypilot"), "skypilot", adapter.name, path, days[0], days[1], every,
        utcnow(), run,
    )  # fmt: skip
    importer = Importer(settings, record, every=every, min_interval_s=request.min_interval_s)
    if not token:
        progress.say(
            f"no {GITHUB_TOKEN_ENV}: GitHub allows {UNAUTHENTICATED_PER_HOUR} API requests an "
            "hour without one (one per 100 commits listed; raw files do not count); pacing by "
            "its rate-limit figures"
        )
    try:
        with importer.client() as client:
            cursor = ledger.cursors.get(path)
            commits = list_commits(
                client, api, CATALOG_REPO, path, _span(days, cursor), headers,
                before_page=lambda: _pace(client, api, headers, progress),
            )  # fmt: skip
            fresh = [c for c in commits if cursor is None or c.committed_at > cursor]
            done = {period_of(at, every) for at in ledger.loaded.get(path, ())}
            periods = one_per_period(fresh, lambda c: c.committed_at, every, skip=done)
            importer.counts.listed, importer.counts.kept = len(fresh), len(periods)
            progress.start(len(periods), f"skypilot {request.cloud}")
            for candidates in periods:
                progress.advance(_one_version(importer, client, raw, adapter, path, candidates))
    except (FetchError, ParseError, HistoryError) as exc:
        return importer.finish(f"{exc}")
    except KeyboardInterrupt:
        return importer.finish("interrupted; the same command resumes where it stopped")
    return importer.finish()


def _one_version(
    importer: Importer,
    client: PoliteClient,
    raw: str,
    adapter: SourceAdapter,
    path: str,
    candidates: list[Commit],
) -> str:
    for commit in candidates:
        origin = commit_url(CATALOG_REPO, commit.sha)
        at = commit.committed_at
        try:
            page = fetch_catalog(client, raw, CATALOG_REPO, commit, path)
        except FetchError as exc:
            reason, retry = failure_reason(exc.reason)
            importer.failed(path, at, origin, commit.sha, reason, exc.reason, retry=retry)
            continue
        except CaptureRefused as exc:
            importer.failed(path, at, origin, commit.sha, exc.kind, str(exc), retry=True)
            continue
        importer.counts.fetched += 1
        parsed = parse_page(adapter, page)
        importer.parsed(path, parsed, origin=origin, digest=commit.sha, kind=adapter.kind)
        if parsed.error is None:
            return f"{at:%Y-%m-%d} {commit.sha[:7]} +{len(parsed.rows)} rows"
    return f"{candidates[0].committed_at:%Y-%m-%d} no version loaded"


# -- a tracker's CSV -----------------------------------------------------------------------


def _read_file(name: str) -> tuple[Path, bytes]:
    path = Path(name)
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            raise HistoryError(f"{name}: larger than {MAX_CSV_BYTES} bytes")
        return path, path.read_bytes()
    except OSError as exc:
        raise HistoryError(f"{name}: {exc.strerror or exc}") from None


def _csv(
    settings: Settings, request: HistoryRequest, progress: Progress, run: str | None, every: Every
) -> ImportSummary:
    mappings = settings.file.history.csv
    if request.mapping not in mappings:
        known = ", ".join(sorted(mappings)) or "none"
        raise HistoryError(
            f"no mapping {request.mapping!r} in [history.csv]; known: {known} "
            "(add a [history.csv.NAME] table to gpuprice.toml)"
        )
    mapping = mappings[request.mapping].mapping()
    path, body = _read_file(request.file)
    digest = hashlib.sha256(body).hexdigest()
    try:
        snapshots = read_tracker_csv(body, mapping, path.name, source=request.source or None)
    except ParseError as exc:
        raise HistoryError(str(exc)) from None
    sources = sorted({s.source for s in snapshots})
    ledgers = {src: read_ledger(settings.warehouse, "csv", src) for src in sources}
    record = ImportRecord(
        new_import_id("csv"), "csv", request.source or (sources[0] if len(sources) == 1 else "*"),
        f"{request.mapping}: {path.name}", None, None, None, utcnow(), run,
    )  # fmt: skip
    importer = Importer(settings, record, every=None)
    cited = mapping.citation or path.name
    page = FetchedPage(path.resolve().as_uri(), 200, body, "text/csv", utcnow())
    importer.counts.listed = len(snapshots)
    progress.start(len(snapshots), f"csv {request.mapping}")
    try:
        for snap in snapshots:
            first, last = snap.lines
            origin = f"{cited}: {path.name} lines {first}-{last} (sha256 {digest[:12]})"
            ledger = ledgers.get(snap.source)
            if ledger and (request.mapping, snap.observed_at) in ledger.settled:
                progress.advance(f"{snap.source} {snap.observed_at:%Y-%m-%d} imported before")
                continue
            importer.counts.kept += 1
            if snap.error or snap.observed_at is None:
                importer.failed(
                    request.mapping, snap.observed_at, origin, digest, "parse_error",
                    snap.error or "no time", source=snap.source,
                )  # fmt: skip
            else:
                stamped = ParsedPage(
                    FetchedPage(page.url, 200, body, page.content_type, snap.observed_at),
                    snap.rows,
                    None,
                )
                importer.parsed(
                    request.mapping, stamped, origin=origin, digest=digest, source=snap.source,
                    archive_as=f"csv:{request.mapping}",
                )  # fmt: skip
            progress.advance(f"{snap.source} {snap.observed_at or '?'} {len(snap.rows)} rows")
    except KeyboardInterrupt:
        return importer.finish("interrupted; the same command resumes where it stopped")
    return importer.finish()
