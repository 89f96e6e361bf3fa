"""The Internet Archive's capture index (CDX) and the raw captures it lists.

The format is the Wayback CDX server's (``internetarchive/wayback``,
``wayback-cdx-server/README.md``): ``GET /cdx/search/cdx?url=…&output=json`` answers a JSON
array whose first row names the fields (``urlkey, timestamp, original, mimetype,
statuscode, digest, length``) and every further row is one capture, all values strings. A
capture's bytes as captured are at ``/web/<timestamp>id_/<original>`` (``id_``: no
rewriting, no toolbar). ``digest`` is the base-32 SHA-1 of the captured body, so two captures
with one digest hold the same bytes.

What a capture *is* does not depend on where it is fetched from: an archive mirror, or a
local copy serving the same captures, answers with the same timestamps and original URLs.
What is stored therefore always names the Internet Archive's own URL (:func:`archive_url`),
whatever ``--archive-url`` the bytes were fetched from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import urlencode

from scrapers.rows import ParseError
from scrapers.sources._json import load_json

__all__ = [
    "CDX_FIELDS",
    "WAYBACK",
    "Capture",
    "archive_url",
    "cdx_url",
    "parse_cdx",
    "raw_capture_url",
    "served_timestamp",
    "usable",
]

WAYBACK = "https://web.archive.org"
CDX_FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
_NEEDED = ("timestamp", "original", "mimetype", "statuscode", "digest")
_TIMESTAMP = re.compile(r"^\d{14}$")
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


def cdx_url(base: str, url: str, first: date, last: date) -> str:
    """The CDX query listing ``url``'s captures with status 200 from ``first`` to ``last``
    (both days included)."""
    query = urlencode(
        {
            "url": url,
            "output": "json",
            "from": first.strftime("%Y%m%d"),
            "to": last.strftime("%Y%m%d"),
            "filter": "statuscode:200",
        }
    )
    return f"{base.rstrip('/')}/cdx/search/cdx?{query}"


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


def _row(values: object, columns: dict[str, int], where: str) -> Capture:
    if not isinstance(values, list) or len(values) != len(columns):
        raise ParseError(f"{where}: a row is not a list of {len(columns)} values: {values!r:.80}")
    if not all(isinstance(v, str) for v in values):
        raise ParseError(f"{where}: a row holds a value that is not a string: {values!r:.80}")
    stamp = values[columns["timestamp"]]
    if not _TIMESTAMP.match(stamp):
        raise ParseError(f"{where}: timestamp {stamp!r} is not YYYYMMDDhhmmss")
    length = values[columns["length"]] if "length" in columns else ""
    return Capture(
        timestamp=stamp,
        original=values[columns["original"]],
        mimetype=values[columns["mimetype"]],
        statuscode=values[columns["statuscode"]],
        digest=values[columns["digest"]],
        length=int(length) if length.isdigit() else None,
    )


def parse_cdx(body: bytes, where: str) -> list[Capture]:
    """The captures of a CDX answer (``output=json``); an empty answer is no capture. A
    header that does not name the fields, or a row that does not fit it, is a
    ``ParseError``."""
    if not body.strip():
        return []
    doc = load_json(body, where)
    if not isinstance(doc, list):
        raise ParseError(f"{where}: not a CDX answer (a JSON {type(doc).__name__}, not an array)")
    if not doc:
        return []
    header = doc[0]
    if not isinstance(header, list) or not all(isinstance(name, str) for name in header):
        raise ParseError(
            f"{where}: the first row of a CDX answer names its fields; got {header!r:.80}"
        )
    columns = {name: i for i, name in enumerate(header)}
    missing = [name for name in _NEEDED if name not in columns]
    if missing:
        raise ParseError(f"{where}: the CDX header lacks {', '.join(missing)} (got {header})")
    return [_row(values, columns, where) for values in doc[1:]]


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
