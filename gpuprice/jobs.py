"""Running the Dagster jobs in this process, for `gpuprice run`, `backfill`, `up`'s first
scrape and the history seeding, in the instance the Dagster UI reads: a run is one run of
``scrape_job``, a backfill of any number of days one run of ``backfill_job``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any

import dagster as dg

from configuration.settings import Settings
from demo.autostart import private_demo_market
from gpuprice.dagster_instance import instance_for
from gpuprice.run_log import RunLog
from pipelines.backfill import BACKFILL_JOB, PROGRESS_RESOURCE
from pipelines.backfill_days import DayLoaded
from pipelines.definitions import SCRAPE_JOB, build_defs
from pipelines.derived import DELIVER_JOB
from pipelines.resources import GpupriceResource
from pipelines.retention import RETENTION_JOB
from warehouse.derive.notify import pending_signature
from warehouse.store.db import WarehouseBusy, WarehouseMissing
from warehouse.store.lease import in_use

ALERT_ASSET = dg.AssetKey("alert")
# The daemon's run retries (dagster.yaml) are for the runs it launched. A run of a command
# has no code location to be re-launched from, and its command has already reported it:
# the daemon must leave it alone.
NO_DAEMON_RETRY = {"dagster/max_retries": "0"}


def quiet(level: str) -> dict:
    """Run config for Dagster's console logger: its lowest level printed (the run's event log,
    in the UI and $GPUPRICE_HOME/logs, keeps everything)."""
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
    dagster_success: bool  # every step of the Dagster run succeeded
    as_of: date | None
    sources: list[SourceResult]

    @property
    def failed(self) -> list[SourceResult]:
        return [s for s in self.sources if s.status == "failed"]

    @property
    def success(self) -> bool:
        """The run succeeded and every source loaded (`gpuprice run` exits 1 otherwise)."""
        return self.dagster_success and not self.failed


class BackfillFailed(RuntimeError):
    """The backfill's run stopped before its end for something other than a source (each
    source-day's failure is in its outcome): the warehouse, the home, a bug."""


class _Days:
    """The backfill job's progress resource: each loaded day as a :class:`RunResult`,
    handed to the command's ``on_done``. What ``on_done`` raises (the seeding's stop, a
    Ctrl-C) stops the backfill after that day and is kept, to be raised after the run."""

    def __init__(self, on_done: Callable[[RunResult], None] | None) -> None:
        self.on_done = on_done
        self.results: list[RunResult] = []
        self.stop: BaseException | None = None

    def day(self, loaded: DayLoaded) -> bool:
        result = RunResult(
            loaded.run_id,
            True,
            loaded.day,
            [
                SourceResult(s.source, s.status, s.pages, s.rows_added, s.error, s.reason)
                for s in loaded.sources
            ],
        )
        self.results.append(result)
        if self.on_done is not None:
            try:
                self.on_done(result)
            except BaseException as exc:  # raised again by JobRunner.backfill after the run
                self.stop = exc
                return False
        return True


class JobRunner:
    """Executes the scrape job in this process against the home's Dagster instance (the one
    `gpuprice up`'s webserver and daemon read), then what the daemon would do after it:
    deliver alerts the run left pending, apply retention. In the demo profile each call
    serves the bundled demo market for itself, on free ports, while it runs
    (demo.autostart); ``say`` gets that notice (default: stderr)."""

    def __init__(
        self,
        settings: Settings,
        instance: dg.DagsterInstance | None = None,
        say: Callable[[str], None] | None = None,
        console_level: str = "CRITICAL",
        command: str = "run",
    ) -> None:
        """``console_level``: the lowest Dagster log level printed on the console (the
        commands print their own one line per failure; ``--verbose`` asks for INFO);
        ``command`` tags the runs (``gpuprice/command``) so the UI tells them apart."""
        self.settings = settings
        self.quiet = quiet(console_level)
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.resource = GpupriceResource(
            home=str(settings.home),
            profile=settings.profile,
            config_path=str(settings.config_path) if settings.config_path else None,
        )
        self.defs = build_defs(settings, self.resource)
        self.job = self.defs.resolve_job_def(SCRAPE_JOB)
        self.instance = instance or instance_for(settings)
        self.sources = list(settings.enabled_sources())
        self.tags = NO_DAEMON_RETRY | {"gpuprice/command": command}
        self.log = RunLog(settings.home / "logs")

    def run(self, as_of: date | None = None) -> RunResult:
        with self._serving() as resource:
            return self._run_day(as_of, resource)

    def backfill(
        self, days: Iterable[date], on_done: Callable[[RunResult], None] | None = None
    ) -> list[RunResult]:
        """Fill ``days`` (in this order, each once) in one run of ``backfill_job``;
        ``on_done`` gets each day's outcome as soon as the day is loaded. Raises what
        ``on_done`` raised (the backfill stopped after that day, what it loaded derived), or
        BackfillFailed when the run stopped for another reason."""
        span = list(dict.fromkeys(days))
        if not span:
            return []
        reports = _Days(on_done)
        config = {"days": [day.isoformat() for day in span]}
        tags = self.tags | {
            "gpuprice/first_day": min(span).isoformat(),
            "gpuprice/last_day": max(span).isoformat(),
            "gpuprice/days": str(len(span)),
        }
        with self._serving() as resource:
            result = self.defs.resolve_job_def(BACKFILL_JOB).execute_in_process(
                run_config={"ops": {"backfill_days": {"config": config}}} | self.quiet,
                instance=self.instance,
                raise_on_error=False,
                resources={"gpuprice": resource, PROGRESS_RESOURCE: reports},
                tags=tags,
            )
            self._after(result, resource)
        if reports.stop is not None:
            raise reports.stop
        if not result.success:
            raise BackfillFailed(
                f"the backfill stopped after {len(reports.results)} of {len(span)} day(s): "
                f"{_failure(result)}"
            )
        return reports.results

    @contextmanager
    def _serving(self) -> Iterator[GpupriceResource]:
        """The resource of this command's runs: with its own demo market's URLs, if any.
        The warehouse's lease is held meanwhile, so a restore waits for the command."""
        with in_use(self.settings.warehouse), private_demo_market(self.settings, self.say) as urls:
            if not urls:
                yield self.resource
                return
            r = self.resource
            yield GpupriceResource(
                home=r.home, profile=r.profile, config_path=r.config_path, source_urls=urls
            )

    def _run_day(self, as_of: date | None, resource: GpupriceResource) -> RunResult:
        ops = {
            f"{name}_snapshot": {"config": {"as_of": as_of.isoformat() if as_of else None}}
            for name in self.sources
        }
        tags = self.tags | ({"gpuprice/as_of": as_of.isoformat()} if as_of else {})
        result = self.job.execute_in_process(
            run_config={"ops": ops} | self.quiet,
            instance=self.instance,
            raise_on_error=False,
            resources={"gpuprice": resource},
            tags=tags,
        )
        self._after(result, resource)
        return RunResult(result.run_id, result.success, as_of, source_results(result, self.sources))

    def _after(self, result: dg.ExecuteInProcessResult, resource: GpupriceResource) -> None:
        """What the daemon would do after a run: its warnings and errors into the run log,
        pending alerts delivered when its `alert` step did not run, retention."""
        self.log.record(self.instance, result.run_id)
        delivered = ALERT_ASSET in {e.asset_key for e in result.get_asset_materialization_events()}
        if not delivered:
            self._deliver_pending(resource)
        if self.settings.file.retention.raw_page_days:
            self._run(RETENTION_JOB, resource)

    def _deliver_pending(self, resource: GpupriceResource) -> None:
        """When the run's `alert` step did not run (a step before it failed), a
        scraper-broken alert the run raised would wait for the daemon's delivery sensor;
        without a daemon it goes out now, by the same job the sensor runs."""
        try:
            pending, _ = pending_signature(self.settings.warehouse)
        except (WarehouseMissing, WarehouseBusy):
            return  # nothing stored, or the next run's `alert` step delivers it
        except Exception as exc:  # a damaged warehouse: the run's own lines say what failed
            self.log.error("could not look for pending alerts", exc)
            return
        if pending:
            self._run(DELIVER_JOB, resource)

    def _run(self, job: str, resource: GpupriceResource) -> None:
        # Its failure is in its own run record; it never changes the scrape run's result.
        result = self.defs.resolve_job_def(job).execute_in_process(
            run_config=self.quiet,
            instance=self.instance,
            raise_on_error=False,
            resources={"gpuprice": resource},
            tags=self.tags,
        )
        self.log.record(self.instance, result.run_id)


def _failure(result: dg.ExecuteInProcessResult) -> str:
    """Why a run failed, in one line (its step failure's message; the run log has the
    stack trace)."""
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            data = event.step_failure_data
            failure = data.user_failure_data
            cause = data.error.cause
            message = (failure.description if failure else None) or (
                cause.message if cause is not None else data.error.message
            )
            return " ".join(str(message).split())
    return "see Dagster logs (Runs page) and $GPUPRICE_HOME/logs/gpuprice.log"


def source_results(result: dg.ExecuteInProcessResult, sources: list[str]) -> list[SourceResult]:
    """Each source's outcome as its snapshot step reported it: the metadata of its
    materialization (pipelines/assets.py), or of a Failure it raised (the same keys)."""
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
        if meta is None:  # the step died before it could report: the run's log says why
            results.append(
                SourceResult(
                    source,
                    "failed",
                    0,
                    0,
                    "the snapshot step ended without a report; see Dagster logs (Runs page) "
                    "and $GPUPRICE_HOME/logs/gpuprice.log",
                    "internal_error",
                )
            )
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
