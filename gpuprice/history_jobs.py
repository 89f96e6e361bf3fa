"""Running one history import (pipelines.history's job) in-process in the Dagster instance
the UI reads, for `gpuprice history …` and the first start's demo history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from configuration.settings import Settings
from gpuprice.dagster_instance import instance_for
from gpuprice.jobs import NO_DAEMON_RETRY, quiet
from pipelines.definitions import build_defs
from pipelines.history import HISTORY_JOB, PROGRESS_RESOURCE
from pipelines.history_import import HistoryRequest, Progress, QuietProgress
from pipelines.resources import GpupriceResource
from warehouse.store.lease import in_use


@dataclass
class Outcome:
    """How an import ended (``status``: ok, partial, failed, refused, or ``crashed`` when it
    stopped without saying) and its summary lines; ``run_id``: its Dagster run."""

    run_id: str
    status: str = "crashed"
    lines: list[str] = field(default_factory=list)


class _Recorded:
    """Hands progress on to ``progress`` and keeps how the import ended."""

    def __init__(self, progress: Progress, outcome: Outcome) -> None:
        self.progress, self.outcome = progress, outcome

    def start(self, total: int, what: str) -> None:
        self.progress.start(total, what)

    def advance(self, line: str, by: int = 1) -> None:
        self.progress.advance(line, by)

    def say(self, line: str) -> None:
        self.progress.say(line)

    def done(self, status: str, lines: list[str]) -> None:
        self.outcome.status, self.outcome.lines = status, lines
        self.progress.done(status, lines)


def run_history(
    settings: Settings, request: HistoryRequest, progress: Progress | None = None
) -> Outcome:
    """Run ``request`` as one run of ``history_import_job``."""
    resource = GpupriceResource(
        home=str(settings.home),
        profile=settings.profile,
        config_path=str(settings.config_path) if settings.config_path else None,
    )
    job = build_defs(settings, resource).resolve_job_def(HISTORY_JOB)
    outcome = Outcome(run_id="")
    recorded = _Recorded(progress or QuietProgress(), outcome)
    # Console: nothing of Dagster's own (its step failure comes with a stack trace); the
    # summary says what happened, the run record keeps every line.
    run_config = {"ops": {"import_history": {"config": request.model_dump()}}} | quiet("CRITICAL")
    # The warehouse's lease is held, so a restore waits for the import.
    with in_use(settings.warehouse), instance_for(settings) as instance:
        result = job.execute_in_process(
            run_config=run_config,
            instance=instance,
            resources={"gpuprice": resource, PROGRESS_RESOURCE: recorded},
            raise_on_error=False,
            tags=NO_DAEMON_RETRY | {"gpuprice/command": f"history {request.kind}"},
        )
    outcome.run_id = result.run_id
    return outcome


def import_demo_history(settings: Settings, say: Callable[[str], None]) -> int:
    """The first start's REAL history from the demo market's archive (demo.real_history),
    each import a run of the history job, from a demo market this process serves for itself
    (demo.autostart). Never raises: the simulated seeding goes on whatever happens here."""
    from demo.autostart import private_market
    from demo.real_history import import_real_history

    def run(request: HistoryRequest) -> tuple[str, list[str]]:
        outcome = run_history(settings, request)
        return outcome.status, outcome.lines

    try:
        with private_market(settings, say) as market:
            if market is None:
                return 1
            return import_real_history(settings, run, say, market.platforms_url)
    except Exception as exc:  # the demo goes on without it; the line says why
        say(f"real history: not imported ({type(exc).__name__}: {exc})")
        return 1
