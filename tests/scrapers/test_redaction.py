"""Secret values are masked in every spelling a body or message carries them in."""

from __future__ import annotations

import json
from urllib.parse import quote

from scrapers.redaction import MARKER, NO_SECRETS, Redactor

TOKEN = "tok-canary/42+x=y"


def test_masks_raw_url_encoded_and_json_escaped_forms() -> None:
    redactor = Redactor([TOKEN])
    text = f"bad token {TOKEN}; url ?t={quote(TOKEN, safe='')}; json {json.dumps({'t': TOKEN})}"
    clean = redactor.text(text)
    assert "canary" not in clean
    assert clean.count(MARKER) == 3


def test_masks_bytes_and_the_longer_secret_whole() -> None:
    redactor = Redactor(["abcdef", "abcdef-longer-key"])
    assert redactor.body(b"x abcdef-longer-key y abcdef") == f"x {MARKER} y {MARKER}".encode()


def test_short_and_empty_values_are_not_secrets() -> None:
    redactor = Redactor(["", None, "abc", "  "])
    assert not redactor
    assert redactor.text("abc abc") == "abc abc"
    assert NO_SECRETS.optional(None) is None
