"""Fetching what :mod:`scrapers.archive` reads, through the polite client (its per-host pause,
its retries with backoff on 429 and 5xx, Retry-After): capture listings and captures from a
Wayback server, commit listings and files at a commit from GitHub.

A fetched capture or catalog version comes back as the page it was when captured or
committed: its URL is the Internet Archive's (GitHub's) own, whatever mirror served it, and
its ``fetched_at`` is the capture (commit) time, the moment its prices were observed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime

from scrapers.archive.cdx import (
    PAGE_ROWS,
    Capture,
    CdxPage,
    archive_url,
    cdx_url,
    raw_capture_url,
    read_cdx,
    served_timestamp,
    usable,
)
from scrapers.archive.github import (
    GITHUB_RAW,
    PER_PAGE,
    Commit,
    RateLimit,
    commits_url,
    parse_commits,
    parse_rate_limit,
    rate_limit_url,
    raw_file_url,
)
from scrapers.http import FetchedPage, PoliteClient, Request
from scrapers.rows import ParseError

__all__ = [
    "CaptureRefused",
    "fetch_capture",
    "fetch_catalog",
    "list_captures",
    "list_commits",
    "list_pages",
    "rate_limit",
]

# A file touched by more commits than this in one listing is not a catalog's history.
MAX_COMMIT_PAGES = 100
# The most pages of one CDX listing (PAGE_ROWS rows each): 5 million captures of one page.
MAX_CDX_PAGES = 1000
_GITHUB_JSON = (("Accept", "application/vnd.github+json"),)


class CaptureRefused(RuntimeError):
    """The archive answered, but not with the capture asked for (``kind``: ``redirected``
    to another capture, ``empty`` body)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def list_pages(
    client: PoliteClient, base: str, url: str, first: datetime, last: datetime
) -> Iterator[CdxPage]:
    """The CDX listing of ``url``'s captures from ``first`` to ``last`` (days), page by page
    (the server's resumption key), each page within the client's byte limit."""
    resume: str | None = None
    for _ in range(MAX_CDX_PAGES):
        query = cdx_url(base, url, first.date(), last.date(), resume=resume, limit=PAGE_ROWS)
        fetched = client.get(query)
        page = read_cdx(fetched.body, fetched.url)
        yield page
        if page.resume_key is None:
            return
        if page.resume_key == resume:
            raise ParseError(f"{url}: the archive gave the same resumption key twice")
        resume = page.resume_key
    raise ParseError(f"{url}: more than {MAX_CDX_PAGES} pages of {PAGE_ROWS} captures listed")


def list_captures(
    client: PoliteClient, base: str, url: str, first: datetime, last: datetime
) -> list[Capture]:
    """The usable captures of ``url`` from ``first`` to ``last`` (days), oldest first (every
    page of the listing; refused rows left out)."""
    pages = list_pages(client, base, url, first, last)
    return usable(capture for page in pages for capture in page.captures)


def fetch_capture(client: PoliteClient, base: str, capture: Capture) -> FetchedPage:
    """The capture's bytes as captured. ``CaptureRefused`` when the archive serves another
    capture instead (it redirects a request to a neighbouring timestamp at times) or an
    empty body; ``FetchError`` when it cannot be fetched (404, 5xx after the retries)."""
    page = client.get(raw_capture_url(base, capture))
    served = served_timestamp(page.url)
    if served is not None and served != capture.timestamp:
        raise CaptureRefused(
            "redirected", f"the archive served the capture of {served} instead of this one"
        )
    if not page.body.strip():
        raise CaptureRefused("empty", "the archive answered with an empty body")
    return replace(page, url=archive_url(capture), fetched_at=capture.captured_at)


def rate_limit(client: PoliteClient, api: str, headers: dict[str, str] | None = None) -> RateLimit:
    """GitHub's REST rate limit as it stands (this request does not count against it)."""
    page = client.fetch(Request(rate_limit_url(api), headers=_GITHUB_JSON), headers)
    return parse_rate_limit(page.body, page.url)


def list_commits(
    client: PoliteClient,
    api: str,
    repo: str,
    path: str,
    span: tuple[datetime, datetime],
    headers: dict[str, str] | None = None,
    before_page: Callable[[], None] | None = None,
) -> list[Commit]:
    """Every commit that touched ``path`` in ``span`` (UTC), oldest first; ``before_page``
    runs before each page is asked for (the rate-limit pacing)."""
    commits: list[Commit] = []
    for page in range(1, MAX_COMMIT_PAGES + 1):
        if before_page is not None:
            before_page()
        url = commits_url(api, repo, path, span[0], span[1], page)
        fetched = client.fetch(Request(url, headers=_GITHUB_JSON), headers)
        batch = parse_commits(fetched.body, fetched.url)
        commits += batch
        if len(batch) < PER_PAGE:
            return sorted(set(commits), key=lambda c: (c.committed_at, c.sha))
    raise ParseError(f"{path}: more than {MAX_COMMIT_PAGES * PER_PAGE} commits in the span")


def fetch_catalog(
    client: PoliteClient, raw: str, repo: str, commit: Commit, path: str
) -> FetchedPage:
    """The file at ``commit``, as GitHub serves it raw."""
    page = client.get(raw_file_url(raw, repo, commit.sha, path))
    if not page.body.strip():
        raise CaptureRefused("empty", "the file is empty at this commit")
    return replace(
        page, url=raw_file_url(GITHUB_RAW, repo, commit.sha, path), fetched_at=commit.committed_at
    )
