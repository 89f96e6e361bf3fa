"""Secrets masked in every log record this process writes.

Two layers, both installed by :func:`install` (idempotent; where the pipeline and the CLI
start):

* every secret value the process knows (registered by configuration.secrets when it reads
  one, and by the pipeline's resource for the whole run: ``Settings.secret_values``) is
  replaced by ``scrapers.redaction.MARKER`` in **every** record, whatever logger made it: a
  log-record factory masks the message, the formatted traceback and the stack when the
  record is created, so no handler (the console, Dagster's event log and compute logs, a log
  file) ever holds the value. A factory rather than a filter because a logger's filter does
  not see the records of its children, and Dagster's log manager is a logger of its own;
* apprise and the HTTP libraries log URLs that were never registered as such (``JSON POST
  URL: http://host/<token>``; urllib3 errors quote the path, where webhook tokens live): a
  filter on those loggers masks every URL in their records (``scheme://…#<hash>``, the same
  mask as ``warehouse.derive.notify.mask_url``).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

from scrapers.redaction import MIN_SECRET_CHARS, Redactor

# scheme://anything up to whitespace or a quote
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
# apprise, and the HTTP libraries under it whose errors quote the request path
LOGGERS = ("apprise", "urllib3", "requests", "httpx", "httpcore")


def mask(url: str) -> str:
    scheme = url.split("://", 1)[0]
    return f"{scheme}://…#{hashlib.sha256(url.strip().encode()).hexdigest()[:16]}"


def scrub(text: str) -> str:
    return _URL.sub(lambda m: mask(m.group(0)), text)


class _Known:
    """The secrets known to this process (log records are the process's, so this state is
    too), and the redactor built from them: replaced whole when one is added, so a record
    being made on another thread sees the old or the new one, never half."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()
        self.redactor = Redactor()


_KNOWN = _Known()
_LOCK = threading.Lock()


def _token_like(piece: str) -> bool:
    """A part of a URL that may be a credential: long, or with digits among its letters
    ("services" or "webhook" in a path are words, "T0A1B2" or a 40-character hash are not)."""
    return len(piece) >= 16 or (len(piece) >= 8 and any(c.isdigit() for c in piece))


def secret_parts(value: str) -> list[str]:
    """``value``, and for a URL the parts of it that carry tokens (user info, path, path
    segments, query values), each a secret of its own: an error may quote only the path."""
    value = value.strip()
    if len(value) < MIN_SECRET_CHARS:
        return []
    if "://" not in value:
        return [value]
    parts = urlsplit(value)
    pieces = [parts.username or "", parts.password or "", parts.path.strip("/")]
    pieces += [seg for seg in parts.path.split("/") if seg]
    pieces += [v for _, v in parse_qsl(parts.query)]
    return [value, *(p for p in pieces if _token_like(p))]


def register_secrets(values: Iterable[str | None]) -> None:
    """Mask each value (and, for a URL, its token-bearing parts) in every log record made
    from now on."""
    new = {part for value in values if value for part in secret_parts(value)}
    with _LOCK:
        if new <= _KNOWN.secrets:
            return
        _KNOWN.secrets.update(new)
        _KNOWN.redactor = Redactor(_KNOWN.secrets)


def register_secret(value: str) -> None:
    register_secrets([value])


def scrub_secrets(text: str) -> str:
    """``text`` with every registered secret masked."""
    return _KNOWN.redactor.text(text)


def _clean(record: logging.LogRecord) -> None:
    redactor = _KNOWN.redactor
    if not redactor:
        return
    try:
        message = record.getMessage()
    except Exception:  # a malformed record: drop its arguments rather than leak them
        message = str(record.msg)
    clean = redactor.text(message)
    if clean != message:
        record.msg, record.args = clean, ()
    if record.exc_info and not record.exc_text:
        # formatted now, masked: every standard formatter prints exc_text when it is set
        record.exc_text = redactor.text(logging.Formatter().formatException(record.exc_info))
    elif record.exc_text:
        record.exc_text = redactor.text(record.exc_text)
    if record.stack_info:
        record.stack_info = redactor.text(record.stack_info)


class _RedactingFactory:
    """The log-record factory: the previous one, then masked."""

    def __init__(self, previous) -> None:
        self.previous = previous

    def __call__(self, *args, **kwargs) -> logging.LogRecord:
        record = self.previous(*args, **kwargs)
        _clean(record)
        return record


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
    with _LOCK:
        current = logging.getLogRecordFactory()
        if not isinstance(current, _RedactingFactory):
            logging.setLogRecordFactory(_RedactingFactory(current))
