"""`history skypilot`: the versions of one cloud's catalog in skypilot-org/skypilot-catalog
(the GitHub commits of ``catalogs/<version>/<cloud>/vms.csv``, the file at each kept commit),
each dated by its commit only when that lies within the window asked for and not after now
(scrapers.clock): a commit dated otherwise is recorded as a failed version, not fetched."""

from __future__ import annotations

import time

from configuration.errors import ConfigError
from configuration.secrets import source_secret
from configuration.settings import Settings
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
from scrapers.archive.fetch import CaptureRefused, fetch_catalog, list_commits, rate_limit
from scrapers.archive.github import (
    CATALOG_REPO,
    UNAUTHENTICATED_PER_HOUR,
    Commit,
    catalog_path,
    commit_url,
)
from scrapers.archive.periods import Every, one_per_period, period_of
from scrapers.clock import GIT_START, refusal
from scrapers.collect import parse_page
from scrapers.http import FetchError, PoliteClient
from scrapers.rows import ParseError
from scrapers.sources import SourceAdapter, build_adapter
from warehouse.ingest.history import ImportRecord, read_ledger
from warehouse.store.db import utcnow

__all__ = ["GITHUB_TOKEN_ENV", "github_token", "skypilot"]

# Longest wait for GitHub's rate limit to reset before the import stops (it resumes).
MAX_RATE_WAIT_S = 600
GITHUB_TOKEN_ENV = "GITHUB_TOKEN"


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


def skypilot(
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
    importer = Importer(
        settings, record, every=every, min_interval_s=request.min_interval_s,
        window=request.window(),
    )  # fmt: skip
    if not token:
        progress.say(
            f"no {GITHUB_TOKEN_ENV}: GitHub allows {UNAUTHENTICATED_PER_HOUR} API requests an "
            "hour without one (one per 100 commits listed; raw files do not count); pacing by "
            "its rate-limit figures"
        )
    with importer.interruptible(), importer.client() as client:
        try:
            cursor = ledger.cursors.get(path)
            commits = list_commits(
                client, api, CATALOG_REPO, path, span(days, cursor), headers,
                before_page=lambda: _pace(client, api, headers, progress),
            )  # fmt: skip
            fresh = [c for c in commits if cursor is None or c.committed_at > cursor]
            dated = [c for c in fresh if _dated(importer, path, c)]
            done = {period_of(at, every) for at in ledger.loaded.get(path, ())}
            periods = one_per_period(dated, lambda c: c.committed_at, every, skip=done)
            importer.counts.listed, importer.counts.kept = len(fresh), len(periods)
            progress.start(len(periods), f"skypilot {request.cloud}")
            for candidates in periods:
                progress.advance(_one_version(importer, client, raw, adapter, path, candidates))
        except (FetchError, ParseError, HistoryError) as exc:
            return importer.finish(f"{exc}")
    return importer.finish()


def _dated(importer: Importer, path: str, commit: Commit) -> bool:
    """Whether the commit's time may date its version (scrapers.clock: within the window
    asked for, after git existed, not after now); if not, it is recorded as a failed
    version and never fetched."""
    why = refusal(commit.committed_at, window=importer.window.within(GIT_START))
    if why is None:
        return True
    reason = "future" if "after now" in why else "out_of_window"
    origin = commit_url(CATALOG_REPO, commit.sha)
    importer.failed(path, None, origin, commit.sha, reason, f"commit {why}")
    return False


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
