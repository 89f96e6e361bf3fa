"""The three kinds of history import, each a loop over what its archive lists, and what can
be refused before one starts:

* ``wayback``: a source's archived pricing pages (pipelines.history_wayback);
* ``skypilot``: the versions of one cloud's SkyPilot catalog (pipelines.history_catalog);
* ``csv``: a public tracker's CSV through a named column mapping (pipelines.history_csv).

Each records every capture it tries through :class:`pipelines.history_import.Importer`.
"""

from __future__ import annotations

import re
from pathlib import Path

from configuration.schema import is_source_name, valid_archived_url
from configuration.settings import Settings
from pipelines.history_catalog import skypilot
from pipelines.history_csv import tracker_csv
from pipelines.history_import import HistoryError, HistoryRequest, ImportSummary, Progress
from pipelines.history_wayback import wayback
from scrapers.archive.github import catalog_path
from scrapers.archive.periods import EVERY

__all__ = ["precheck", "run_import"]


def run_import(
    settings: Settings,
    request: HistoryRequest,
    progress: Progress,
    dagster_run_id: str | None = None,
) -> ImportSummary:
    """Run one import; ``HistoryError`` for a request that cannot start (nothing recorded)."""
    every = request.every or settings.file.history.every
    if every not in EVERY:
        raise HistoryError(f"--every {every!r}: use one of {', '.join(EVERY)}")
    runs = {"wayback": wayback, "skypilot": skypilot, "csv": tracker_csv}
    return runs[request.kind](settings, request, progress, dagster_run_id, every)  # type: ignore[arg-type]


_WEB_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?(/\S*)?")


def precheck(settings: Settings, request: HistoryRequest) -> None:
    """What can be refused without a fetch or the warehouse, so that the command says it in
    one line before a Dagster run starts (``run_import`` checks again what it needs)."""
    every = request.every or settings.file.history.every
    if every not in EVERY:
        raise HistoryError(f"--every {every!r}: use one of {', '.join(EVERY)}")
    for option, url in (
        ("--archive-url", request.archive_url),
        ("--api-url", request.api_url),
        ("--raw-url", request.raw_url),
    ):
        if url and not _WEB_URL.fullmatch(url):
            raise HistoryError(f"{option} {url[:80]!r}: give an http(s) URL, e.g. https://host")
    request.days()
    {"wayback": _precheck_wayback, "skypilot": _precheck_skypilot, "csv": _precheck_csv}[
        request.kind
    ](settings, request)


def _precheck_wayback(settings: Settings, request: HistoryRequest) -> None:
    if request.source not in settings.file.sources:
        known = ", ".join(sorted(settings.file.sources))
        raise HistoryError(
            f"no source {request.source[:80]!r} in the configuration; known: {known}"
        )
    for url in request.urls:
        try:
            valid_archived_url(url)
        except ValueError as exc:
            raise HistoryError(f"--url: {exc}") from None


def _precheck_skypilot(settings: Settings, request: HistoryRequest) -> None:
    try:
        catalog_path(request.version, request.cloud)
    except ValueError as exc:
        raise HistoryError(str(exc)) from None


def _precheck_csv(settings: Settings, request: HistoryRequest) -> None:
    if request.mapping not in settings.file.history.csv:
        known = ", ".join(sorted(settings.file.history.csv)) or "none"
        raise HistoryError(f"no mapping {request.mapping[:80]!r} in [history.csv]; known: {known}")
    if request.source and not is_source_name(request.source):
        raise HistoryError(
            f"--source {request.source[:80]!r}: lower-case letters, digits and _, starting with "
            "a letter (at most 40)"
        )
    if not Path(request.file).is_file():
        raise HistoryError(f"{request.file[:200]}: no such file")
