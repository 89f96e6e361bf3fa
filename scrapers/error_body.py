"""The start of an HTTP error answer, for the recorded reason: a GraphQL 400 or an API's 403
says why in its body, where the status alone says nothing.

One line, at most :data:`EXCERPT_CHARS` characters, decoded leniently, with every configured
secret masked: a server may quote the token it was sent.
"""

from __future__ import annotations

import codecs

from scrapers.redaction import Redactor

EXCERPT_CHARS = 1024
# Read past the excerpt, and mask before cutting it: a secret that crosses the excerpt's end
# is then masked whole, not left with its first half showing.
READ_BYTES = EXCERPT_CHARS + 4096


def _decode(body: bytes, charset: str | None) -> str:
    try:
        codec = codecs.lookup(charset or "utf-8").name
    except LookupError:
        codec = "utf-8"
    return body.decode(codec, errors="replace")


def excerpt(body: bytes, charset: str | None, redactor: Redactor) -> str:
    """The body's first characters as one printable line, secrets masked."""
    text = redactor.text(_decode(body, charset))
    line = " ".join(text.split())
    return "".join(c if c.isprintable() else "?" for c in line)[:EXCERPT_CHARS]
