"""`history csv`: a public tracker's CSV through a named column mapping, read one line at a
time (scrapers.archive.tracker_csv.stream_tracker_csv), so a file up to the size limit is
imported in bounded memory. A snapshot (one provider at one moment) with a row that cannot
be read, or dated outside the window asked for or after now (scrapers.clock), is recorded
as failed with its reason, and the import goes on.

The snapshots that can be loaded are loaded a source's :data:`CHUNK_ROWS` rows at a time:
one archived page (the header and those lines), one ledger row naming the lines, one pass
of the load's steps. A tracker lists a few dozen rows a moment, and a load's fixed cost (the
page archived, the quarantine's look at the history, the inserts) is paid per page, not per
row: per moment, a 200 MB file was tens of thousands of loads."""

from __future__ import annotations

import hashlib
from pathlib import Path

from configuration.settings import Settings
from pipelines.history_import import (
    HistoryError,
    HistoryRequest,
    Importer,
    ImportSummary,
    Progress,
    new_import_id,
)
from scrapers.archive.periods import Every
from scrapers.archive.tracker_csv import CsvMapping, TrackerSnapshot, stream_tracker_csv
from scrapers.clock import refusal
from scrapers.collect import ParsedPage
from scrapers.http import FetchedPage
from scrapers.rows import ParseError
from warehouse.ingest.history import ImportRecord, Ledger, read_ledger
from warehouse.store.db import utcnow

__all__ = ["MAX_CSV_BYTES", "tracker_csv"]

MAX_CSV_BYTES = 256 * 1024 * 1024
_CHUNK = 1 << 20
# Rows of one source loaded together (one page, one ledger row): see the module's docstring.
CHUNK_ROWS = 5000


def _file(name: str) -> tuple[Path, str, int]:
    """The file, its sha256 and its line count (one pass, in chunks)."""
    path = Path(name)
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            raise HistoryError(f"{name}: larger than {MAX_CSV_BYTES} bytes")
        digest, lines = hashlib.sha256(), 0
        with path.open("rb") as stream:
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
                lines += chunk.count(b"\n")
    except OSError as exc:
        raise HistoryError(f"{name}: {exc.strerror or exc}") from None
    return path, digest.hexdigest(), lines


class _Csv:
    """One CSV import: the ledgers of the sources met so far, and each source's snapshots
    waiting to be loaded together."""

    def __init__(
        self, settings: Settings, request: HistoryRequest, mapping: CsvMapping, path: Path,
        digest: str, header: bytes,
    ) -> None:  # fmt: skip
        self.settings, self.request, self.path, self.digest = settings, request, path, digest
        self.cited = mapping.citation or path.name
        self.url = path.resolve().as_uri()
        self.header = header
        self.ledgers: dict[str, Ledger] = {}
        self.waiting: dict[str, list[TrackerSnapshot]] = {}
        self.waiting_rows: dict[str, int] = {}  # the rows of each source's waiting snapshots

    def ledger(self, source: str) -> Ledger:
        if source not in self.ledgers:
            self.ledgers[source] = read_ledger(self.settings.warehouse, "csv", source)
        return self.ledgers[source]

    def origin(self, lines: str) -> str:
        return f"{self.cited}: {self.path.name} lines {lines} (sha256 {self.digest[:12]})"

    def one(self, importer: Importer, snap: TrackerSnapshot) -> str:
        """Queue (or record as failed) one snapshot; the progress line."""
        target = self.request.mapping
        at = snap.observed_at
        if snap.source != "unknown" and (target, at) in self.ledger(snap.source).settled:
            return f"{snap.source} {at:%Y-%m-%d} imported before"
        importer.counts.kept += 1
        why = None if at is None else refusal(at, window=importer.window)
        if snap.error or at is None or why is not None:
            reason = "parse_error" if snap.error or at is None else _date_reason(why)
            importer.failed(
                target, at if why is None else None, self.origin(f"{snap.lines[0]}-{snap.lines[1]}"),
                self.digest, reason, snap.error or why or "no time", source=snap.source,
            )  # fmt: skip
            return f"{snap.source} {at or '?'} failed"
        self.waiting.setdefault(snap.source, []).append(snap)
        self.waiting_rows[snap.source] = self.waiting_rows.get(snap.source, 0) + len(snap.rows)
        if self.waiting_rows[snap.source] >= CHUNK_ROWS:
            self.load(importer, snap.source)
        return f"{snap.source} {at:%Y-%m-%d %H:%M} {len(snap.rows)} rows"

    def load(self, importer: Importer, source: str) -> None:
        """The source's waiting snapshots as one page: the header and their lines."""
        snaps = self.waiting.pop(source, [])
        self.waiting_rows.pop(source, None)
        if not snaps:
            return
        body = self.header + b"".join(s.body[len(self.header) :] for s in snaps)
        moments = [s.observed_at for s in snaps if s.observed_at is not None]
        page = FetchedPage(self.url, 200, body, "text/csv", max(moments))
        rows = [row for s in snaps for row in s.rows]
        rejected = tuple(r for s in snaps for r in s.rejected)
        parsed = ParsedPage(page, rows, None, rejected, len(rows) + len(rejected))
        lines = ", ".join(f"{s.lines[0]}-{s.lines[1]}" for s in snaps[:3])
        more = (
            f" and {len(snaps) - 3} more moment(s) to line {snaps[-1].lines[1]}"
            if len(snaps) > 3
            else ""
        )
        importer.parsed(
            self.request.mapping, parsed, origin=self.origin(lines + more),
            digest=self.digest, source=source, archive_as=f"csv:{self.request.mapping}",
            first=min(moments), snapshots=len(snaps),
        )  # fmt: skip

    def load_all(self, importer: Importer) -> None:
        for source in list(self.waiting):
            self.load(importer, source)


def _date_reason(why: str | None) -> str:
    return "future" if why and "after now" in why else "out_of_window"


def tracker_csv(
    settings: Settings, request: HistoryRequest, progress: Progress, run: str | None, every: Every
) -> ImportSummary:
    mappings = settings.file.history.csv
    if request.mapping not in mappings:
        known = ", ".join(sorted(mappings)) or "none"
        raise HistoryError(
            f"no mapping {request.mapping!r} in [history.csv]; known: {known} "
            "(add a [history.csv.NAME] table to gpuprice.toml)"
        )
    mapping = mappings[request.mapping].mapping()
    path, digest, lines = _file(request.file)
    with path.open("rb") as stream:
        snapshots = stream_tracker_csv(stream, mapping, path.name, source=request.source or None)
        try:
            first = next(snapshots, None)  # the header is read and checked here
        except ParseError as exc:
            raise HistoryError(str(exc)) from None
        days = request.days()
        record = ImportRecord(
            new_import_id("csv"), "csv", request.source or "*",  # its providers' sources
            f"{request.mapping}: {path.name}", days[0], days[1], None, utcnow(), run,
        )  # fmt: skip
        header = first.body[: first.body.index(b"\n") + 1] if first else b""
        work = _Csv(settings, request, mapping, path, digest, header)
        importer = Importer(settings, record, every=None, window=request.window())
        progress.start(max(lines - 1, 0), f"csv {request.mapping}")
        error = None
        with importer.interruptible():
            try:
                for snap in [first] if first else []:
                    _count_and_queue(work, importer, snap, progress)
                for snap in snapshots:
                    _count_and_queue(work, importer, snap, progress)
            except ParseError as exc:  # a line the CSV reader itself cannot read
                error = str(exc)
        work.load_all(importer)  # what was read, also after a Ctrl-C
    return importer.finish(error)


def _count_and_queue(
    work: _Csv, importer: Importer, snap: TrackerSnapshot, progress: Progress
) -> None:
    importer.counts.listed += 1
    progress.advance(work.one(importer, snap), snap.lines[1] - snap.lines[0] + 1)
