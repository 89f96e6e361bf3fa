"""The Internet Archive's capture index (CDX) and the raw captures it lists.

The format is the Wayback CDX server's (``internetarchive/wayback``,
``wayback-cdx-server/README.md``): ``GET /cdx/search/cdx?url=…&output=json`` answers a JSON
array whose first row names the fields (``urlkey, timestamp, original, mimetype,
statuscode, digest, length``) and every further row is one capture, all values strings. A
capture's bytes as captured are at ``/web/<timestamp>id_/<original>`` (``id_``: no
rewriting, no toolbar). ``digest`` is the base-32 SHA-1 of the captured body, so two captures
with one digest hold the same bytes.

A listing is read in pages (the server's resumption key: ``limit=N&showResumeKey=true``
answers N rows, then an empty row and a one-value row holding the key; ``resumeKey=`` asks
for the rows after it), so a URL captured 100,000 times is listed page by page, each within
the fetch's byte limit.

A row is a claim of the archive's, checked before anything is fetched for it
(:func:`screen`): a timestamp that is no moment (year 0, month 13), a URL with control
characters or another scheme than http(s), an ``original`` that is not the page asked for
(a CDX row naming ``file://…``, 169.254.169.254 or a loopback URL), a moment outside the
window asked for or after now (scrapers.clock): each is refused alone, with its reason,
and the other rows stand.

What a capture *is* does not depend on where it is fetched from: an archive mirror, or a
local copy serving the same captures, answers with the same timestamps and original URLs.
What is stored therefore always names the Internet Archive's own URL (:func:`archive_url`),
whatever ``--archive-url`` the bytes were fetched from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from urllib.parse import urlencode, urlsplit

from scrapers.clock import WAYBACK_START, Window, refusal
from scrapers.rows import ParseError
from scrapers.sources._json import load_json

__all__ = [
    "CDX_FIELDS",
    "PAGE_ROWS",
    "WAYBACK",
    "Capture",
    "CdxPage",
    "Refused",
    "archive_url",
    "cdx_url",
    "parse_cdx",
    "raw_capture_url",
    "read_cdx",
    "screen",
    "served_timestamp",
    "url_key",
    "usable",
]

WAYBACK = "https://web.archive.org"
CDX_FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
_NEEDED = ("timestamp", "original", "mimetype", "statuscode", "digest")
_TIMESTAMP = re.compile(r"^\d{14}$")
# Rows asked for per page of a listing: about 1 MB of JSON, far within the byte limit.
PAGE_ROWS = 5000
# Anything a URL must not hold: control characters (CR/LF would split a request line), space.
_UNSAFE = re.compile(r"[\x00-\x20\x7f]")
_SERVED = re.compile(r"/web/(\d{14})id_/")
# "Same bytes as an earlier capture": asking for one makes the archive serve another
# capture, so its timestamp is not the moment of the bytes it returns.
REVISIT = "warc/revisit"


@dataclass(frozen=True, slots=True)
class Capture:
    """One row of a CDX answer."""

    timestamp: str  # YYYYMMDDhhmmss, UTC
    original: str  # the page's URL as captured
    mimetype: str
    statuscode: str
    digest: str
    length: int | None = None

    @property
    def captured_at(self) -> datetime:
        """The capture's moment, naive UTC."""
        return datetime.strptime(self.timestamp, "%Y%m%d%H%M%S")


def cdx_url(
    base: str, url: str, first: date, last: date, *, resume: str | None = None, limit: int = 0
) -> str:
    """The CDX query listing ``url``'s captures with status 200 from ``first`` to ``last``
    (both days included); with ``limit``, one page of at most that many rows, and the key to
    the next (``resume``: the key a previous page gave)."""
    params = {
        "url": url,
        "output": "json",
        "from": first.strftime("%Y%m%d"),
        "to": last.strftime("%Y%m%d"),
        "filter": "statuscode:200",
    }
    if limit:
        params |= {"limit": str(limit), "showResumeKey": "true"}
    if resume:
        params["resumeKey"] = resume
    return f"{base.rstrip('/')}/cdx/search/cdx?{urlencode(params)}"


def raw_capture_url(base: str, capture: Capture) -> str:
    """Where ``base`` serves the capture's bytes as captured."""
    return f"{base.rstrip('/')}/web/{capture.timestamp}id_/{capture.original}"


def archive_url(capture: Capture) -> str:
    """The Internet Archive's URL of the capture: what is stored as its origin."""
    return raw_capture_url(WAYBACK, capture)


def served_timestamp(url: str) -> str | None:
    """The timestamp of the capture a (possibly redirected) archive URL serves."""
    found = _SERVED.search(url)
    return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class Refused:
    """A CDX row not taken as a capture: what it claimed (made printable) and why."""

    timestamp: str
    original: str
    reason: str  # bad_row | bad_timestamp | bad_url | not_asked | out_of_window | future
    error: str
    captured_at: datetime | None = None  # the moment it claims, when it is one


@dataclass(frozen=True, slots=True)
class CdxPage:
    """One page of a CDX answer: its captures, the rows refused, the key to the next page."""

    captures: list[Capture] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    resume_key: str | None = None


def _printable(value: object, most: int = 200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return "".join(c if c.isprintable() else "?" for c in text)[:most]


def _moment(stamp: str) -> datetime | None:
    if not _TIMESTAMP.match(stamp):
        return None
    try:
        return datetime.strptime(stamp, "%Y%m%d%H%M%S")
    except ValueError:  # year 0, month 13, 25 o'clock
        return None


def _row(values: object, columns: dict[str, int]) -> Capture | Refused:
    if not isinstance(values, list) or len(values) != len(columns):
        return Refused(
            "", "", "bad_row", f"not a list of {len(columns)} values: {_printable(values, 80)}"
        )
    if not all(isinstance(v, str) for v in values):
        return Refused("", "", "bad_row", f"a value that is not a string: {_printable(values, 80)}")
    stamp, original = values[columns["timestamp"]], values[columns["original"]]
    if _moment(stamp) is None:
        return Refused(
            _printable(stamp, 40), _printable(original), "bad_timestamp",
            f"timestamp {_printable(stamp, 40)!r} is not a moment YYYYMMDDhhmmss",
        )  # fmt: skip
    length = values[columns["length"]] if "length" in columns else ""
    return Capture(
        timestamp=stamp,
        original=original,
        mimetype=values[columns["mimetype"]],
        statuscode=values[columns["statuscode"]],
        digest=values[columns["digest"]],
        length=int(length) if length.isdigit() and len(length) < 19 else None,
    )


def _resume_key(rest: list[object], where: str) -> str | None:
    """The key after the rows: an empty row, then a row holding only the key."""
    if len(rest) == 2 and isinstance(rest[1], list) and len(rest[1]) == 1:
        key = rest[1][0]
        if isinstance(key, str) and key and len(key) <= 2000:
            return key
    raise ParseError(
        f"{where}: an empty row not followed by a resumption key: {_printable(rest, 80)}"
    )


def read_cdx(body: bytes, where: str) -> CdxPage:
    """One page of a CDX answer (``output=json``); an empty answer is no capture. A header
    that does not name the fields is a ``ParseError``; a row that does not fit it (or whose
    timestamp is no moment) is refused alone."""
    if not body.strip():
        return CdxPage()
    doc = load_json(body, where)
    if not isinstance(doc, list):
        raise ParseError(f"{where}: not a CDX answer (a JSON {type(doc).__name__}, not an array)")
    if not doc:
        return CdxPage()
    header = doc[0]
    if not isinstance(header, list) or not all(isinstance(name, str) for name in header):
        raise ParseError(
            f"{where}: the first row of a CDX answer names its fields; got {header!r:.80}"
        )
    columns = {name: i for i, name in enumerate(header)}
    missing = [name for name in _NEEDED if name not in columns]
    if missing:
        raise ParseError(f"{where}: the CDX header lacks {', '.join(missing)} (got {header})")
    rows, key = doc[1:], None
    if [] in rows:
        at = rows.index([])
        rows, key = rows[:at], _resume_key(rows[at:], where)
    page = CdxPage(resume_key=key)
    for values in rows:
        read = _row(values, columns)
        (page.captures if isinstance(read, Capture) else page.refused).append(read)  # type: ignore[arg-type]
    return page


def parse_cdx(body: bytes, where: str) -> list[Capture]:
    """The captures of a CDX answer (:func:`read_cdx`, the refused rows left out)."""
    return read_cdx(body, where).captures


def url_key(url: str) -> str:
    """What makes two spellings of a page's URL the same page for the archive (its SURT
    key, simplified): no scheme, no ``www.``, no default port, no trailing slash, host lower
    case; the query kept."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    try:
        port = parts.port
    except ValueError:
        port = -1  # not a port: matches nothing asked
    host = (parts.hostname or "").lower().removeprefix("www.")
    shown = f":{port}" if port not in (None, 80, 443) else ""
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{shown}{parts.path.rstrip('/')}{query}"


def _url_problem(capture: Capture, asked: str) -> tuple[str, str] | None:
    original = capture.original
    if _UNSAFE.search(original) or len(original) > 2000:
        return (
            "bad_url",
            f"original {_printable(original, 80)!r} holds control characters or spaces",
        )
    parts = urlsplit(original)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "bad_url", f"original {_printable(original, 80)!r} is not an http(s) URL"
    if url_key(original) != url_key(asked):
        return (
            "not_asked",
            f"original {_printable(original, 80)!r} is not the page asked for ({asked})",
        )
    return None


def screen(
    page: CdxPage, asked: str, window: Window, now: datetime | None = None
) -> tuple[list[Capture], list[Refused]]:
    """The captures of ``page`` that may be fetched as captures of ``asked``, and every row
    refused (the page's own and these), each with its reason: a URL that is not an
    http(s) URL or holds control characters, another page than the one asked for, a moment
    outside ``window`` (and before the archive began: scrapers.clock.WAYBACK_START) or after
    now."""
    kept, refused = [], list(page.refused)
    within = window.within(WAYBACK_START)
    for capture in page.captures:
        problem = _url_problem(capture, asked)
        moment = capture.captured_at
        if problem is None:
            why = refusal(moment, now=now, window=within)
            if why is not None:
                problem = ("future" if "after now" in why else "out_of_window", why)
        if problem is None:
            kept.append(capture)
        else:
            refused.append(
                Refused(capture.timestamp, _printable(capture.original), *problem, moment)
            )
    return kept, refused


def usable(captures: Iterable[Capture]) -> list[Capture]:
    """The captures whose own record is an archived 200 answer (no revisit records), each
    (timestamp, original) once, oldest first: the server's ``filter`` is not trusted alone."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for capture in sorted(captures, key=lambda c: (c.timestamp, c.original)):
        key = (capture.timestamp, capture.original)
        if capture.statuscode != "200" or capture.mimetype == REVISIT or key in seen:
            continue
        seen.add(key)
        kept.append(capture)
    return kept
