"""Running the Dagster job in-process, for `gpuprice run` and `gpuprice backfill`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

import dagster as dg

from configuration.settings import Settings
from demo.autostart import demo_market_if_needed
from pipelines.definitions import SCRAPE_JOB, build_defs
from pipelines.derived import DELIVER_JOB
from pipelines.resources import GpupriceResource
from pipelines.retention import RETENTION_JOB
from warehouse.read.metrics import pending_alert_signature
from warehouse.store.db import WarehouseBusy, WarehouseMissing
from warehouse.store.lease import in_use

ALERT_ASSET = dg.AssetKey("alert")


# Dagster's per-step DEBUG lines would bury the summary and the progress bar; warnings and
# errors still reach the console, and everything is in the run record.
def quiet(level: str) -> dict:
    return {"loggers": {"console": {"config": {"log_level": level}}}}


@dataclass(frozen=True, slots=True)
class SourceResult:
    source: str
    status: str  # ok | partial | failed | skipped
    pages: int
    rows_added: int
    error: str | None
    reason: str | None = None  # unreachable, drift, not_configured ... (scrape_run.reason)


@dataclass(frozen=True, slots=True)
class RunResult:
    dagster_run_id: str
    success: bool
    as_of: date | None
    sources: list[SourceResult]

    @property
    def failed(self) -> list[SourceResult]:
        return [s for s in self.sources if s.status == "failed"]


class JobRunner:
    """Executes the scrape job in this process against one Dagster instance, then what the
    daemon would do after it: deliver alerts the run left pending, apply retention. In the
    demo profile it serves the bundled demo market itself while it runs, when nothing else
    does (demo.autostart); ``say`` gets that notice (default: stderr)."""

    def __init__(
        self,
        settings: Settings,
        instance: dg.DagsterInstance | None = None,
        say: Callable[[str], None] | None = None,
        console_level: str = "WARNING",
    ) -> None:
        """``console_level``: the lowest Dagster log level printed (the run records keep
        everything); the background history seeding prints its own lines instead."""
        self.settings = settings
        self.quiet = quiet(console_level)
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        resource = GpupriceResource(
            home=str(settings.home),
            profile=settings.profile,
            config_path=str(settings.config_path) if settings.config_path else None,
        )
        self.defs = build_defs(settings, resource)
        self.job = self.defs.resolve_job_def(SCRAPE_JOB)
        self.instance = instance or dg.DagsterInstance.ephemeral()
        self.sources = list(settings.enabled_sources())

    def run(self, as_of: date | None = None) -> RunResult:
        with in_use(self.settings.warehouse), demo_market_if_needed(self.settings, self.say):
            return self._run_day(as_of)

    def _run_day(self, as_of: date | None) -> RunResult:
        ops = {
            f"{name}_snapshot": {"config": {"as_of": as_of.isoformat() if as_of else None}}
            for name in self.sources
        }
        result = self.job.execute_in_process(
            run_config={"ops": ops} | self.quiet, instance=self.instance, raise_on_error=False
        )
        delivered = ALERT_ASSET in {e.asset_key for e in result.get_asset_materialization_events()}
        if not delivered:
            self._deliver_pending()
        if self.settings.file.retention.raw_page_days:
            self._run(RETENTION_JOB)
        return RunResult(result.run_id, result.success, as_of, self._summaries(result))

    def _deliver_pending(self) -> None:
        """A failed source skips the `alert` asset (it is downstream of every snapshot), so
        a scraper-broken alert the run raised would wait for the daemon's delivery sensor;
        without a daemon it goes out now, by the same job the sensor runs."""
        try:
            pending, _ = pending_alert_signature(self.settings.warehouse)
        except (WarehouseMissing, WarehouseBusy):
            return  # nothing stored, or the next run's `alert` step delivers it
        if pending:
            self._run(DELIVER_JOB)

    def _run(self, job: str) -> None:
        # Its failure is in its own run record; it never changes the scrape run's result.
        self.defs.resolve_job_def(job).execute_in_process(
            run_config=self.quiet, instance=self.instance, raise_on_error=False
        )

    def _summaries(self, result: dg.ExecuteInProcessResult) -> list[SourceResult]:
        return source_results(result, self.sources)

    def backfill(
        self, days: Iterable[date], on_done: Callable[[RunResult], None] | None = None
    ) -> list[RunResult]:
        results = []
        with in_use(self.settings.warehouse), demo_market_if_needed(self.settings, self.say):
            for day in days:
                result = self._run_day(day)
                results.append(result)
                if on_done:
                    on_done(result)
        return results


def source_results(result: dg.ExecuteInProcessResult, sources: list[str]) -> list[SourceResult]:
    """Each source's outcome as its snapshot step reported it: the metadata of its
    materialization, or of the Failure it raised (the same keys, pipelines/assets.py)."""
    reported: dict[str, dict[str, Any]] = {}
    for event in result.all_events:
        if event.is_step_materialization:
            metadata = event.step_materialization_data.materialization.metadata
        elif event.is_step_failure:
            failure = event.step_failure_data.user_failure_data
            metadata = failure.metadata if failure else {}
        else:
            continue
        if "status" in metadata:
            reported[event.step_key or ""] = {k: v.value for k, v in metadata.items()}
    results = []
    for source in sources:
        meta = reported.get(f"{source}_snapshot")
        if meta is None:  # the step died before it could report: its log says why
            results.append(SourceResult(source, "failed", 0, 0, "no run record; see Dagster logs"))
            continue
        results.append(
            SourceResult(
                source,
                str(meta["status"]),
                int(meta["pages"]),
                int(meta["rows_added"]),
                str(meta["error"]) or None,
                str(meta["reason"]) or None,
            )
        )
    return results
