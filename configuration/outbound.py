"""The one door to the outside: every HTTP client the product fetches with is made here.

Each is a :class:`scrapers.http.PoliteClient`, so every outbound request has the live path's
protections: a total deadline per fetch, a minimum transfer rate, bodies bounded while they
stream (on the wire and once decoded), retries within the deadline, redirects checked
(another scheme refused; no body or caller header to another host; an internal address,
169.254.169.254 and loopback included, refused before anything is sent there), and every
configured secret masked in whatever error the client builds. What differs between the
doors is decided here, once:

- a **source** (a scheduled run, a backfill, ``gpuprice sources check``): robots.txt and
  internal addresses refused in the live profile, unless ``[sources.<name>]
  allow_private_redirects``; the demo profile reads the demo market on loopback;
- an **archive** (history imports: the Wayback CDX server and its captures, GitHub's API and
  raw files): no robots.txt (these are APIs meant for programs), internal redirects refused
  whatever the profile, ``[history].min_interval_s`` between two requests to one host;
- a **download** (``gpuprice fx import URL``, the daily ``[fx].source_url``): no robots.txt,
  internal redirects refused, at most ``limit`` bytes.

Nothing else opens a connection: ``tests/configuration/test_one_door.py`` lists every place
the code could (httpx, urllib, requests, sockets) and fails on one that is not here. The
notification targets are the operator's own choice and may well be internal: they go through
apprise (warehouse.derive.notify).
"""

from __future__ import annotations

from configuration.schema import HttpConfig
from configuration.settings import Settings
from scrapers.http import PoliteClient
from scrapers.redaction import Redactor

__all__ = ["archive_client", "download_client", "source_client"]


def _redactor(settings: Settings, redactor: Redactor | None) -> Redactor:
    # GITHUB_TOKEN, the sources' keys, the webhook tokens: whatever a server echoes is masked
    return redactor if redactor is not None else Redactor(settings.secret_values())


def source_client(
    settings: Settings, source: str, redactor: Redactor | None = None
) -> PoliteClient:
    """The client a snapshot of ``source`` fetches with (``redactor``: the run's, when it has
    one). Live, it honours robots.txt and refuses a redirect to an internal address unless
    the source allows it."""
    live = settings.profile == "live"
    private = not live or settings.file.sources[source].allow_private_redirects
    return PoliteClient(
        settings.fetch_http(),
        respect_robots=live,
        redactor=_redactor(settings, redactor),
        private_redirects=private,
    )


def archive_client(
    settings: Settings, min_interval_s: float | None = None, redactor: Redactor | None = None
) -> PoliteClient:
    """The client of a history import: ``[http]`` with ``min_interval_s`` (default
    ``[history].min_interval_s``) per host; no robots.txt; internal redirects refused."""
    pause = settings.file.history.min_interval_s if min_interval_s is None else min_interval_s
    http = settings.file.http.model_copy(update={"min_interval_s": pause})
    return PoliteClient(
        http, respect_robots=False, redactor=_redactor(settings, redactor), private_redirects=False
    )


def download_client(
    settings: Settings, limit: int | None = None, redactor: Redactor | None = None
) -> PoliteClient:
    """The client of a one-off download (an exchange-rate file or answer): ``[http]``, at
    most ``limit`` bytes (default ``[http].max_page_bytes``); internal redirects refused."""
    http: HttpConfig = settings.file.http
    if limit is not None:
        http = http.model_copy(update={"max_page_bytes": limit})
    return PoliteClient(
        http, respect_robots=False, redactor=_redactor(settings, redactor), private_redirects=False
    )
