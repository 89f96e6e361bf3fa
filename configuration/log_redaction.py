"""Redaction of secrets in log records that third-party libraries write.

apprise logs the URLs it posts to (``JSON POST URL: http://host/<token>``) at DEBUG and INFO;
those URLs carry the notification tokens. :func:`install` puts a filter on apprise's logger
that masks every URL in its records (``scheme://…#<hash>``, the same mask as
``warehouse.derive.notify.mask_url``), so no log handler (Dagster's, a file, the console) ever sees
one. Idempotent; called where the pipeline and the CLI start.
"""

from __future__ import annotations

import hashlib
import logging
import re

# scheme://anything up to whitespace or a quote
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
# apprise, and the HTTP libraries under it whose errors quote the request path
LOGGERS = ("apprise", "urllib3", "requests", "httpx", "httpcore")


def mask(url: str) -> str:
    scheme = url.split("://", 1)[0]
    return f"{scheme}://…#{hashlib.sha256(url.strip().encode()).hexdigest()[:16]}"


def scrub(text: str) -> str:
    return _URL.sub(lambda m: mask(m.group(0)), text)


class UrlRedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: drop its arguments rather than leak them
            message = str(record.msg)
        clean = scrub(scrub_secrets(message))
        if clean != message or record.args:
            record.msg, record.args = clean, ()
        return True


_FILTER = UrlRedactingFilter()


def install() -> None:
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


# Secrets known to this process (notification URLs and the parts of them that carry a token,
# cookies): masked in every record that passes the filter, whatever form they take there.
_SECRETS: set[str] = set()


def register_secret(value: str) -> None:
    """Mask ``value`` (and, for a URL, its user info, path segments and query values, which
    is where tokens live) in the filtered loggers' records."""
    from urllib.parse import parse_qsl, urlsplit

    value = value.strip()
    if len(value) < 4:
        return
    _SECRETS.add(value)
    if "://" not in value:
        return
    parts = urlsplit(value)
    pieces = [parts.username or "", parts.password or "", parts.path.strip("/")]
    pieces += [seg for seg in parts.path.split("/") if seg]
    pieces += [v for _, v in parse_qsl(parts.query)]
    _SECRETS.update(p for p in pieces if len(p) >= 6)


def scrub_secrets(text: str) -> str:
    for secret in sorted(_SECRETS, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, "***")
    return text
