"""Running the Dagster job in-process, for `gpuprice run` and `gpuprice backfill`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

import dagster as dg

from gpuprice.settings import Settings
from pipelines.definitions import SCRAPE_JOB, build_defs
from pipelines.resources import GpupriceResource
from warehouse.store.db import WarehouseBusy, WarehouseMissing, read_frame


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
    """Executes the scrape job in this process against one Dagster instance."""

    def __init__(self, settings: Settings, instance: dg.DagsterInstance | None = None) -> None:
        self.settings = settings
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
        ops = {
            f"{name}_snapshot": {"config": {"as_of": as_of.isoformat() if as_of else None}}
            for name in self.sources
        }
        # Dagster's per-step DEBUG lines would bury the summary and the progress bar;
        # warnings and errors still reach the console, and everything is in the run record.
        run_config = {"ops": ops, "loggers": {"console": {"config": {"log_level": "WARNING"}}}}
        result = self.job.execute_in_process(
            run_config=run_config, instance=self.instance, raise_on_error=False
        )
        return RunResult(result.run_id, result.success, as_of, self._summaries(result.run_id))

    def _summaries(self, dagster_run_id: str) -> list[SourceResult]:
        try:
            frame = read_frame(
                self.settings.warehouse_path,
                "SELECT source, status, pages, rows, error, reason FROM scrape_run "
                "WHERE starts_with(run_id, ?) QUALIFY row_number() OVER "
                "(PARTITION BY source ORDER BY finished_at DESC) = 1 ORDER BY source",
                [f"{dagster_run_id}-"],
            )
            found = {row["source"]: row for row in frame.iter_rows(named=True)}
        except (WarehouseMissing, WarehouseBusy):  # the steps could not write: their logs say why
            found = {}
        results = []
        for source in self.sources:
            row = found.get(source)
            if row is None:  # the asset died before it could record anything
                results.append(
                    SourceResult(source, "failed", 0, 0, "no run record; see Dagster logs")
                )
            else:
                results.append(
                    SourceResult(
                        source, row["status"], row["pages"], row["rows"], row["error"],
                        row["reason"],
                    )
                )  # fmt: skip
        return results

    def backfill(
        self, days: Iterable[date], on_done: Callable[[RunResult], None] | None = None
    ) -> list[RunResult]:
        results = []
        for day in days:
            result = self.run(day)
            results.append(result)
            if on_done:
                on_done(result)
        return results
