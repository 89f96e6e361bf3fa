"""Secret values masked by value, before any text that may quote them is stored, logged,
printed or sent on.

A server may echo what it was sent: a 401 body that repeats the token, a 503 page that
prints the request's headers, a JSON error that quotes the signed request. The pipeline
knows every secret it configured (tokens, keys, both halves of a key pair, notification
URLs); a :class:`Redactor` built from them replaces each, in the forms a body or a message
carries it (as is, URL-encoded, JSON-escaped), by :data:`MARKER`.

Written here because no library masks known values across these encodings; it is pure, so
every layer can use it (scrapers for fetched bodies and errors, the pipeline for messages).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

MARKER = "[redacted]"
# Shorter values would mask ordinary words; no real token, key or cookie is this short.
MIN_SECRET_CHARS = 6


def _forms(secret: str) -> set[str]:
    """The spellings of ``secret`` a body or a message may hold."""
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    ascii_escaped = json.dumps(secret)[1:-1]
    return {secret, quote(secret, safe=""), quote_plus(secret), escaped, ascii_escaped}


class Redactor:
    """Masks a fixed set of secret values; longest first, so a secret that contains another
    is masked whole."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        values = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_SECRET_CHARS}
        forms = {form for value in values for form in _forms(value)}
        self._text = sorted(forms, key=len, reverse=True)
        self._bytes = [form.encode() for form in self._text]

    def __bool__(self) -> bool:
        return bool(self._text)

    def text(self, value: str) -> str:
        for form in self._text:
            if form in value:
                value = value.replace(form, MARKER)
        return value

    def optional(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)

    def body(self, value: bytes) -> bytes:
        marker = MARKER.encode()
        for form in self._bytes:
            if form in value:
                value = value.replace(form, marker)
        return value


NO_SECRETS = Redactor()
