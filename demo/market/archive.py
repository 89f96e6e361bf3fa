"""The demo market's archive: REAL captures served the way their archives serve them.

* a Wayback-like server under ``/archive`` (``/archive/cdx/search/cdx`` answering
  ``output=json`` with the header row, ``/archive/web/<timestamp>id_/<original>`` the
  capture's bytes), over the Internet Archive captures of RunPod's, Lambda's and four other
  clouds' pricing pages in ``tests/fixtures/real/`` (verbatim, each cited in its folder's
  README), under their real timestamps and original URLs;
* a GitHub-like API under ``/github/api`` (``/repos/<owner>/<repo>/commits?path=…`` and
  ``/rate_limit``) and raw files under ``/github/raw/<owner>/<repo>/<sha>/<path>``, over the
  five real versions of SkyPilot's Lambda catalog (``tests/fixtures/real/skypilot/v5/lambda``)
  with their real commit ids and times.

These are not simulated: a real capture served from here is still real data, and an import
stores the Internet Archive's (GitHub's) own URL of it as its origin, never this server's
(scrapers.archive). What is not known is not made up: the captures are the excerpts the
fixtures hold, so each CDX ``digest`` and ``length`` here is that of the bytes served (the
base-32 SHA-1, as the archive computes it), and a commit lists only the fields git records.
Tests build a :class:`LocalArchive` of their own to add what a real archive also answers
(a capture that is gone, a page that is not a pricing page).
"""

from __future__ import annotations

import base64
import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs

from demo.market.platforms.base import Answer, json_answer
from scrapers.archive.cdx import CDX_FIELDS, served_timestamp, url_key
from scrapers.archive.github import CATALOG_REPO, PER_PAGE, UNAUTHENTICATED_PER_HOUR, commit_url

__all__ = [
    "ARCHIVE_PREFIX",
    "GITHUB_API_PREFIX",
    "GITHUB_RAW_PREFIX",
    "REAL_PAGES",
    "REAL_VERSIONS",
    "ArchivedPage",
    "CatalogVersion",
    "LocalArchive",
    "archive_answer",
]

REAL = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real"
ARCHIVE_PREFIX = "/archive"
GITHUB_API_PREFIX = "/github/api"
GITHUB_RAW_PREFIX = "/github/raw"
HTML = "text/html; charset=utf-8"


@dataclass(frozen=True, slots=True)
class ArchivedPage:
    """One capture: its timestamp and original URL, and the file holding its bytes (None:
    listed, but the archive answers 404 for it, as it does for a capture it lost)."""

    timestamp: str
    original: str
    file: Path | None
    mimetype: str = "text/html"
    digest: str | None = None  # the listing's digest when given, else the served bytes'

    def body(self) -> bytes | None:
        return None if self.file is None else self.file.read_bytes()


@dataclass(frozen=True, slots=True)
class CatalogVersion:
    """One commit of a catalog file, as git records it."""

    sha: str
    path: str
    committed: str  # ISO 8601 with its offset, as git prints it
    author: str
    committer: str
    message: str
    file: Path

    @property
    def committed_utc(self) -> datetime:
        return datetime.fromisoformat(self.committed).astimezone(UTC)


def _page(timestamp: str, original: str, fixture: str) -> ArchivedPage:
    return ArchivedPage(timestamp, original, REAL / fixture)


# tests/fixtures/real/{runpod,lambda,generic}/README.md cite each capture.
REAL_PAGES: tuple[ArchivedPage, ...] = (
    _page("20230929070808", "https://www.runpod.io/gpu-instance/pricing",
          "runpod/runpod_20230929070808.html"),
    _page("20250909131230", "https://www.runpod.io/pricing", "runpod/runpod_20250909131230.html"),
    _page("20260810082317", "https://www.runpod.io/pricing", "runpod/runpod_20260810082317.html"),
    _page("20230909194011", "https://lambdalabs.com/service/gpu-cloud",
          "lambda/lambda_20230909194011.html"),
    _page("20241103180910", "https://lambdalabs.com/service/gpu-cloud",
          "lambda/lambda_20241103180910.html"),
    _page("20260109103934", "https://lambda.ai/pricing", "lambda/lambda_20260109103934.html"),
    _page("20250521220413", "https://crusoe.ai/cloud/pricing", "generic/crusoe_20250521220413.html"),
    _page("20250808081801", "https://datacrunch.io/products",
          "generic/datacrunch_20250808081801.html"),
    _page("20250109013724", "https://www.fluidstack.io/pricing",
          "generic/fluidstack_20250109013724.html"),
    _page("20240822101707", "https://www.hyperstack.cloud/gpu-pricing",
          "generic/hyperstack_20240822101707.html"),
)  # fmt: skip

_LAMBDA_V5 = "catalogs/v5/lambda/vms.csv"
_LAMBDA_DIR = REAL / "skypilot" / "v5" / "lambda"
# tests/fixtures/real/skypilot/v5/lambda/README.md cites each version.
REAL_VERSIONS: tuple[CatalogVersion, ...] = tuple(
    CatalogVersion(sha, _LAMBDA_V5, committed, author, "GitHub", message,
                   _LAMBDA_DIR / f"vms_{sha[:7]}.csv")
    for sha, committed, author, message in (
        ("96019a2f8e1c8d2acb887332e35557cded8b5d30", "2023-01-17T09:22:11-08:00", "ewzeng",
         "Add Lambda Labs catalog (#10)"),
        ("154a32d5a3594160e6ac66c52e86566e97d0c78e", "2023-02-25T10:01:19-08:00", "Edward Zeng",
         "Update Lambda catalog with new gpu_8x_a100_80gb_sxm4 vms (#15)"),
        ("c1d585fe2c3e8dad697ceb4f264cf15fe04c048a", "2023-06-02T09:37:49-07:00", "Edward Zeng",
         "Update lambda catalog with h100 and us-west-3 (#29)"),
        ("a56234dfb54bc1cc9310704aa04d90385621446a", "2023-06-02T16:52:15-07:00", "Edward Zeng",
         "Add us-midwest-1 to lambda catalog (#30)"),
        ("329b483d862444bc81b48aebe0c154b5c185e9f7", "2023-06-15T13:16:46-07:00", "Zongheng Yang",
         "Update Lambda H100 price to $1.99 (#34)"),
    )
)  # fmt: skip


def _surt(url: str) -> str:
    host, _, path = url_key(url).partition("/")
    return f"{','.join(reversed(host.split('.')))})/{path}"


def _resume_key(row: list[str]) -> str:
    """The archive's resumption key of a row: its urlkey and timestamp, then ``!``."""
    return f"{row[0]} {row[1]}!"


def _paged(rows: list[list[str]], args: dict[str, list[str]]) -> list[list[str]]:
    """The rows after ``resumeKey``, at most ``limit`` of them, then (``showResumeKey``) an
    empty row and the key to the rest, as the CDX server pages a listing."""
    key = _first(args, "resumeKey")
    if key:
        after = [i for i, row in enumerate(rows) if _resume_key(row) == key]
        rows = rows[after[0] + 1 :] if after else []
    limit = _first(args, "limit")
    if not limit.isdigit() or int(limit) == 0 or len(rows) <= int(limit):
        return rows
    shown = rows[: int(limit)]
    if _first(args, "showResumeKey") != "true":
        return shown
    return [*shown, [], [_resume_key(shown[-1])]]


def wayback_digest(body: bytes) -> str:
    """The archive's digest of a body: base-32 of its SHA-1."""
    return base64.b32encode(hashlib.sha1(body).digest()).decode()


def _first(query: dict[str, list[str]], name: str) -> str:
    return (query.get(name) or [""])[0]


def _error(status: int, message: str) -> Answer:
    return Answer(status, HTML, f"<h1>{status}</h1><p>{message}</p>".encode())


class LocalArchive:
    """The archive and GitHub-like API over ``pages`` and ``versions`` (the real ones by
    default); :meth:`answer` is one request's answer, None for a path not its own."""

    def __init__(
        self,
        pages: tuple[ArchivedPage, ...] = REAL_PAGES,
        versions: tuple[CatalogVersion, ...] = REAL_VERSIONS,
        repo: str = CATALOG_REPO,
    ) -> None:
        self.pages, self.versions, self.repo = pages, versions, repo

    def answer(self, method: str, path: str, query: str) -> Answer | None:
        if method not in ("GET", "HEAD"):
            return None
        args = parse_qs(query, keep_blank_values=True)
        if path == f"{ARCHIVE_PREFIX}/cdx/search/cdx":
            return self._cdx(args)
        if path.startswith(f"{ARCHIVE_PREFIX}/web/"):
            return self._capture(path.removeprefix(f"{ARCHIVE_PREFIX}/web/"))
        if path == f"{GITHUB_API_PREFIX}/rate_limit":
            return self._rate_limit()
        if path == f"{GITHUB_API_PREFIX}/repos/{self.repo}/commits":
            return self._commits(args)
        if path.startswith(f"{GITHUB_RAW_PREFIX}/{self.repo}/"):
            return self._raw(path.removeprefix(f"{GITHUB_RAW_PREFIX}/{self.repo}/"))
        return None

    def _cdx(self, args: dict[str, list[str]]) -> Answer:
        if _first(args, "output") != "json":
            return _error(400, "this archive answers output=json only")
        wanted = url_key(_first(args, "url"))
        first = _first(args, "from").ljust(14, "0")
        last = _first(args, "to").ljust(14, "9") if _first(args, "to") else "9" * 14
        rows: list[list[str]] = []
        for page in sorted(self.pages, key=lambda p: p.timestamp):
            if url_key(page.original) != wanted or not first <= page.timestamp <= last:
                continue
            body = page.body() or b""
            digest = page.digest or (wayback_digest(body) if body else "-")
            rows.append([_surt(page.original), page.timestamp, page.original, page.mimetype,
                         "200", digest, str(len(body))])  # fmt: skip
        if not rows:
            return json_answer([])  # the archive's answer for nothing captured
        return json_answer([list(CDX_FIELDS), *_paged(rows, args)])

    def _capture(self, rest: str) -> Answer:
        stamp = served_timestamp(f"/web/{rest}")
        original = rest.partition("id_/")[2]
        for page in self.pages:
            if page.timestamp == stamp and url_key(page.original) == url_key(original):
                body = page.body()
                if body is None:
                    return _error(404, "Hrm. The Wayback Machine has not archived that URL.")
                return Answer(200, f"{page.mimetype}; charset=utf-8", body)
        return _error(404, "Hrm. The Wayback Machine has not archived that URL.")

    def _rate_limit(self) -> Answer:
        core = {"limit": UNAUTHENTICATED_PER_HOUR, "remaining": UNAUTHENTICATED_PER_HOUR,
                "reset": int(time.time()) + 3600, "used": 0, "resource": "core"}  # fmt: skip
        return json_answer({"resources": {"core": core}, "rate": core})

    def _commits(self, args: dict[str, list[str]]) -> Answer:
        path = _first(args, "path")
        since = _first(args, "since") or "0000"
        until = _first(args, "until") or "9999"
        try:
            per_page = min(int(_first(args, "per_page") or 30), PER_PAGE)
            page = max(int(_first(args, "page") or 1), 1)
        except ValueError:
            return json_answer({"message": "Invalid request: per_page and page are numbers"}, 422)
        found = [
            v for v in sorted(self.versions, key=lambda v: v.committed_utc, reverse=True)
            if v.path == path and since <= _github_time(v.committed_utc) <= until
        ]  # fmt: skip
        chosen = found[(page - 1) * per_page : page * per_page]
        return json_answer([self._commit(v) for v in chosen])

    def _commit(self, version: CatalogVersion) -> dict:
        when = _github_time(version.committed_utc)
        return {
            "sha": version.sha,
            "commit": {
                "author": {"name": version.author, "date": when},
                "committer": {"name": version.committer, "date": when},
                "message": version.message,
            },
            "html_url": commit_url(self.repo, version.sha),
        }

    def _raw(self, rest: str) -> Answer:
        sha, _, path = rest.partition("/")
        for version in self.versions:
            if version.sha == sha and version.path == path:
                return Answer(200, "text/plain; charset=utf-8", version.file.read_bytes())
        return Answer(404, "text/plain; charset=utf-8", b"404: Not Found")


def _github_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_DEMO = LocalArchive()


def archive_answer(method: str, path: str, query: str) -> Answer | None:
    """The demo market's archive answer for a request on the platforms port, or None when
    the path is not the archive's (then it is a platform's)."""
    return _DEMO.answer(method, path, query)
