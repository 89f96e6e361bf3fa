"""History imports as a Dagster job: `gpuprice history wayback | skypilot | csv` runs
``history_import_job`` in-process in the instance the UI reads (so every import shows on the
Runs page, with its summary in the logs and as metadata), and the UI's launchpad can run one
with the same config.

One run is one import: list, keep one capture a period, fetch, parse and load in batches
through the bulk path (warehouse.ingest.bulk), deriving as it goes (pipelines.history_import).
The job never evaluates watch rules: imported history raises no procurement alert.
"""

# No `from __future__ import annotations` here: Dagster reads the config and resource
# annotations at definition time and cannot resolve them from strings.

import time

import dagster as dg

from pipelines.history_import import HistoryError, HistoryRequest, Progress, QuietProgress
from pipelines.history_kinds import run_import
from pipelines.resources import GpupriceResource, resource_from_environment

HISTORY_JOB = "history_import_job"
PROGRESS_RESOURCE = "history_progress"
LOG_EVERY_S = 1.0


class _Logged:
    """The command's progress (or none) plus the run's log, which keeps a progress line
    every :data:`LOG_EVERY_S` seconds and every other line. Not every progress line: each
    is an event the run storage writes (~4 ms), and a tracker CSV has a moment every few
    dozen rows, so a line each was half of a CSV import's time."""

    def __init__(self, progress: Progress, log: dg.DagsterLogManager) -> None:
        self.progress, self.log = progress, log
        self._logged = -LOG_EVERY_S

    def start(self, total: int, what: str) -> None:
        self.log.info(f"{what}: {total} period(s) to import")
        self.progress.start(total, what)

    def advance(self, line: str, by: int = 1) -> None:
        if (now := time.monotonic()) - self._logged >= LOG_EVERY_S:
            self._logged = now
            self.log.debug(line)
        self.progress.advance(line, by)

    def say(self, line: str) -> None:
        self.log.info(line)
        self.progress.say(line)

    def done(self, status: str, lines: list[str]) -> None:
        for line in lines:
            (self.log.warning if status in ("failed", "refused", "interrupted") else self.log.info)(
                line
            )
        self.progress.done(status, lines)


@dg.op(
    name="import_history",
    description="Import real price history (the Internet Archive's captures, SkyPilot's "
    "catalog versions, a tracker's CSV) into the warehouse, every row real and citing its "
    "origin, then derive the new snapshots once. Raises no alert.",
)
def import_history(
    context: dg.OpExecutionContext,
    config: HistoryRequest,
    gpuprice: GpupriceResource,
    history_progress: dg.ResourceParam[Progress],
) -> dg.Output[dict]:
    progress = _Logged(history_progress, context.log)
    try:
        summary = run_import(gpuprice.settings(), config, progress, context.run_id)
    except HistoryError as exc:
        progress.done("refused", [f"history {config.kind}: {exc}"])
        raise dg.Failure(description=str(exc), metadata={"error": str(exc)}) from None
    progress.done(summary.status, summary.lines())
    c = summary.counts
    metadata = {
        "import_id": summary.import_id,
        "status": summary.status,
        "listed": c.listed,
        "kept": c.kept,
        "fetched": c.fetched,
        "already_archived": c.reused,
        "parsed": c.parsed,
        "failed": c.failed,
        "rows_added": c.rows_added,
        "first_day": f"{c.first_observed:%Y-%m-%d}" if c.first_observed else "",
        "last_day": f"{c.last_observed:%Y-%m-%d}" if c.last_observed else "",
        "summary": "\n".join(summary.lines()),
    }
    if summary.status in ("failed", "interrupted"):
        raise dg.Failure(description=summary.lines()[0], metadata=metadata)
    return dg.Output({"import_id": summary.import_id, "status": summary.status}, metadata=metadata)


@dg.job(
    name=HISTORY_JOB,
    description="One history import (gpuprice history wayback | skypilot | csv): real rows "
    "with their origin, loaded in bulk and derived as they load; no alert is evaluated.",
    # Its own resources, so that the command can hand in its progress bar for one run;
    # gpuprice as in pipelines.definitions (GPUPRICE_* of the process that runs it).
    resource_defs={
        "gpuprice": resource_from_environment(),
        PROGRESS_RESOURCE: dg.ResourceDefinition.hardcoded_resource(QuietProgress()),
    },
)
def history_import_job() -> None:
    import_history()
