"""A file's history in a GitHub repository: SkyPilot's price catalogs, version by version.

GitHub's REST API (docs.github.com, "List commits"): ``GET /repos/{owner}/{repo}/commits``
with ``path``, ``since``, ``until``, ``per_page`` (at most 100) and ``page`` answers a JSON
array of commit objects, newest first; each has ``sha`` and ``commit.committer.date`` (ISO
8601, UTC). A page shorter than ``per_page`` is the last. The file as it was at a commit is
at ``https://raw.githubusercontent.com/{owner}/{repo}/{sha}/{path}``.

Rate limits (docs.github.com, "Rate limits for the REST API"): 60 requests an hour without a
token, 5,000 with one; ``GET /rate_limit`` tells the figures the ``X-RateLimit-*`` headers
carry (``resources.core``: ``limit``, ``remaining``, ``reset`` in epoch seconds) and does
not count against them. Raw files are not API requests.

What is stored names GitHub's own URLs (:func:`commit_url`, :func:`raw_file_url` with
:data:`GITHUB_RAW`), whatever mirror or local copy the bytes were fetched from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

from scrapers.rows import ParseError
from scrapers.sources._json import load_json

__all__ = [
    "CATALOG_REPO",
    "GITHUB_API",
    "GITHUB_RAW",
    "PER_PAGE",
    "UNAUTHENTICATED_PER_HOUR",
    "Commit",
    "RateLimit",
    "catalog_path",
    "commit_url",
    "commits_url",
    "parse_commits",
    "parse_rate_limit",
    "rate_limit_url",
    "raw_file_url",
]

CATALOG_REPO = "skypilot-org/skypilot-catalog"
GITHUB_API = "https://api.github.com"
GITHUB_RAW = "https://raw.githubusercontent.com"
GITHUB_WEB = "https://github.com"
PER_PAGE = 100
UNAUTHENTICATED_PER_HOUR = 60
_SHA = re.compile(r"^[0-9a-f]{40}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_VERSION = re.compile(r"^v\d+$")


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    committed_at: datetime  # commit.committer.date, naive UTC


@dataclass(frozen=True, slots=True)
class RateLimit:
    limit: int
    remaining: int
    reset: datetime  # naive UTC


def catalog_path(version: str, cloud: str) -> str:
    """``catalogs/<version>/<cloud>/vms.csv``; ValueError for a name that is not one."""
    if not _VERSION.match(version):
        raise ValueError(f"catalog version must look like v8, got {version!r}")
    if not _NAME.match(cloud):
        raise ValueError(f"not a SkyPilot cloud name: {cloud!r} (e.g. runpod, lambda, aws)")
    return f"catalogs/{version}/{cloud}/vms.csv"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def commits_url(api: str, repo: str, path: str, since: datetime, until: datetime, page: int) -> str:
    """One page of the commits that touched ``path`` from ``since`` to ``until`` (UTC)."""
    query = urlencode(
        {"path": path, "since": _iso(since), "until": _iso(until), "per_page": PER_PAGE,
         "page": page}
    )  # fmt: skip
    return f"{api.rstrip('/')}/repos/{repo}/commits?{query}"


def raw_file_url(raw: str, repo: str, sha: str, path: str) -> str:
    return f"{raw.rstrip('/')}/{repo}/{sha}/{path}"


def commit_url(repo: str, sha: str) -> str:
    """GitHub's page of the commit: the origin of the rows of that version."""
    return f"{GITHUB_WEB}/{repo}/commit/{sha}"


def rate_limit_url(api: str) -> str:
    return f"{api.rstrip('/')}/rate_limit"


def _utc(text: object, what: str) -> datetime:
    if not isinstance(text, str):
        raise ParseError(f"{what}: not a date: {text!r:.60}")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ParseError(f"{what}: not an ISO 8601 date: {text!r:.60}") from None
    if moment.tzinfo is None:
        raise ParseError(f"{what}: {text!r} states no time zone")
    return moment.astimezone(UTC).replace(tzinfo=None)


def parse_commits(body: bytes, where: str) -> list[Commit]:
    """The commits of one page of a "list commits" answer, as GitHub orders them."""
    doc = load_json(body, where)
    if isinstance(doc, dict) and "message" in doc:
        raise ParseError(f"{where}: GitHub answered {str(doc['message'])[:200]!r}")
    if not isinstance(doc, list):
        raise ParseError(f"{where}: not a list of commits (a JSON {type(doc).__name__})")
    commits = []
    for i, item in enumerate(doc):
        what = f"{where}: commit {i}"
        sha = item.get("sha") if isinstance(item, dict) else None
        if not isinstance(sha, str) or not _SHA.match(sha):
            raise ParseError(f"{what}: no 40-digit sha")
        commit = item.get("commit")
        committer = commit.get("committer") if isinstance(commit, dict) else None
        if not isinstance(committer, dict):
            raise ParseError(f"{what}: no commit.committer")
        commits.append(Commit(sha, _utc(committer.get("date"), f"{what}: commit.committer.date")))
    return commits


def parse_rate_limit(body: bytes, where: str) -> RateLimit:
    """The core REST limit of a ``GET /rate_limit`` answer."""
    doc = load_json(body, where)
    core = doc.get("resources", {}).get("core") if isinstance(doc, dict) else None
    if not isinstance(core, dict):
        raise ParseError(f"{where}: no resources.core in the rate-limit answer")
    try:
        limit, remaining, reset = (int(core[key]) for key in ("limit", "remaining", "reset"))
    except (KeyError, TypeError, ValueError):
        raise ParseError(f"{where}: resources.core lacks limit, remaining or reset") from None
    return RateLimit(limit, remaining, datetime.fromtimestamp(reset, UTC).replace(tzinfo=None))
