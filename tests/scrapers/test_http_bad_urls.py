"""A URL that cannot be asked for at all (control characters, a broken host or port, another
scheme) is a FetchError like any failed fetch, not an httpx or urllib error from deep inside
the client: a hostile CDX row or a redirect's target is one line and the import goes on
(issue 40; before, `httpx.InvalidURL` stopped a whole history import)."""

from __future__ import annotations

import pytest

from configuration.schema import HttpConfig
from scrapers.http import FetchError, PoliteClient


@pytest.mark.parametrize(
    "url",
    [
        "https://www.runpod.io/pricing\r\nX-Injected: 1",
        "http://[::1",
        "http://host:99999/",
        "http://host:abc/",
        "ftp://host/file",
        "file:///etc/passwd",
        "http://",
    ],
)
def test_a_url_that_cannot_be_asked_for_is_a_fetch_error(url: str) -> None:
    with (
        PoliteClient(HttpConfig(), respect_robots=True) as client,
        pytest.raises(FetchError) as failed,
    ):
        client.get(url)
    assert failed.value.kind == "http_error"
    assert "\r" not in str(failed.value) and "\n" not in str(failed.value)
