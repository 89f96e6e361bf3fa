"""`gpuprice history wayback | skypilot | csv`: fill the warehouse with real price history,
each as one run of the Dagster job ``history_import_job`` in the instance the UI reads
(pipelines.history), with a progress bar and a closing summary."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from gpuprice.cli_common import ConfigOption, console, err, parse_day, settings_or_exit

if TYPE_CHECKING:  # Dagster is imported when a command runs, not when the CLI starts
    from configuration.settings import Settings
    from pipelines.history_import import HistoryRequest

history_app = typer.Typer(
    help="Real price history: the Internet Archive's captures of pricing pages, SkyPilot's "
    "catalog versions, a public tracker's CSV. Every row is real and cites its origin.",
    no_args_is_help=True,
)


class Every(StrEnum):
    day = "day"
    week = "week"
    month = "month"


FromOption = Annotated[str | None, typer.Option("--from", help="First day (YYYY-MM-DD).")]
ToOption = Annotated[str | None, typer.Option("--to", help="Last day (YYYY-MM-DD, default today).")]
EveryOption = Annotated[
    Every | None,
    typer.Option(help="Keep one capture per day, week or month (default [history].every)."),
]


class _Bar:
    """The import's progress bar with its ETA, its notes above it, and how it ended."""

    def __init__(self) -> None:
        self.bar = Progress(
            TextColumn("[bold]history[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        )
        self.task = self.bar.add_task("listing …", total=None)

    def start(self, total: int, what: str) -> None:
        self.bar.update(self.task, total=total, completed=0, description=escape(what))

    def advance(self, line: str, by: int = 1) -> None:
        self.bar.update(self.task, advance=by, description=escape(line))

    def say(self, line: str) -> None:
        self.bar.console.print(escape(line), highlight=False)

    def done(self, status: str, lines: list[str]) -> None:
        pass  # printed by the command once the bar is gone


def _days(first: str | None, last: str | None) -> tuple[str | None, str | None]:
    return (
        parse_day(first, "--from").isoformat() if first is not None else None,
        parse_day(last, "--to").isoformat() if last is not None else None,
    )


def _run(settings: Settings, request: HistoryRequest) -> None:
    """Run the import as one Dagster run; exit 2 for a request refused (or a warehouse that
    cannot be written: the storage fault's one line, as every command says it), 1 when
    nothing of it could be loaded, 130 after a Ctrl-C (what was loaded stays)."""
    from gpuprice.history_jobs import run_history
    from pipelines.history_import import INTERRUPTED, HistoryError
    from pipelines.history_kinds import precheck
    from warehouse.store.preflight import check_writable

    try:
        precheck(settings, request)
    except HistoryError as exc:
        err.print(f"[red]history {request.kind}: {escape(str(exc))}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    # a damaged, lost or read-only warehouse: one line, exit 2 (gpuprice.main), before the run
    check_writable(settings.warehouse)
    progress = _Bar()
    try:
        with progress.bar:
            outcome = run_history(settings, request, progress)
    except KeyboardInterrupt:  # before the import's own loop could record it
        err.print(f"[red]history {request.kind}: {INTERRUPTED}[/red]")
        raise typer.Exit(130) from None
    if outcome.status == "crashed":
        err.print(
            f"[red]history: the import stopped unexpectedly; its log is Dagster run "
            f"{outcome.run_id} (the UI's Runs page)[/red]"
        )
        raise typer.Exit(1)
    out = err if outcome.status in ("failed", "refused", "interrupted") else console
    for line in outcome.lines:
        out.print(escape(line), highlight=False, soft_wrap=True)
    if outcome.status == "interrupted":
        raise typer.Exit(130)
    if outcome.status == "refused":
        raise typer.Exit(2)
    if outcome.status == "failed":
        raise typer.Exit(1)


@history_app.command("wayback")
def wayback(
    source: Annotated[str, typer.Argument(help="A source of gpuprice.toml, e.g. runpod, lambda.")],
    url: Annotated[
        list[str] | None,
        typer.Option(
            "--url",
            help="An archived page URL (repeatable; default: the source's archived_urls).",
        ),
    ] = None,
    first: FromOption = None,
    last: ToOption = None,
    every: EveryOption = None,
    archive_url: Annotated[
        str | None,
        typer.Option(
            help="The Wayback server (default [history].archive_url, the Internet Archive)."
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Import a source's archived pricing pages from the Internet Archive: one capture per
    period, parsed by the source's adapter, each row stamped with the capture's time and
    citing its archive URL. Resumable: a second run fetches only what is new."""
    from pipelines.history_import import HistoryRequest

    settings = settings_or_exit(config)
    first_day, last_day = _days(first, last)
    request = HistoryRequest(
        kind="wayback", source=source, urls=url or [], first_day=first_day, last_day=last_day,
        every=every.value if every else "", archive_url=archive_url or "",
    )  # fmt: skip
    _run(settings, request)


@history_app.command("skypilot")
def skypilot(
    cloud: Annotated[str, typer.Argument(help="A SkyPilot cloud, e.g. runpod, lambda, aws.")],
    version: Annotated[str, typer.Option(help="Catalog schema version (v5 … v9).")] = "v8",
    first: FromOption = None,
    last: ToOption = None,
    every: EveryOption = None,
    api_url: Annotated[
        str | None, typer.Option(help="GitHub's REST API (default [history].github_api_url).")
    ] = None,
    raw_url: Annotated[
        str | None, typer.Option(help="GitHub's raw files (default [history].github_raw_url).")
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Import the versions of one cloud's SkyPilot catalog (catalogs/VERSION/CLOUD/vms.csv in
    skypilot-org/skypilot-catalog), one per period, each at its commit's time and citing the
    commit. GITHUB_TOKEN (or GITHUB_TOKEN_FILE) raises GitHub's limit from 60 requests an hour."""
    from pipelines.history_import import HistoryRequest

    settings = settings_or_exit(config)
    first_day, last_day = _days(first, last)
    request = HistoryRequest(
        kind="skypilot", cloud=cloud, version=version, first_day=first_day, last_day=last_day,
        every=every.value if every else "", api_url=api_url or "", raw_url=raw_url or "",
    )  # fmt: skip
    _run(settings, request)


@history_app.command("csv")
def csv(
    file: Annotated[Path, typer.Argument(help="The tracker's CSV file.")],
    mapping: Annotated[
        str, typer.Option(help="A [history.csv.NAME] mapping, e.g. gpu_price_track.")
    ],
    source: Annotated[
        str | None, typer.Option(help="Put every row in this source (default: its provider's).")
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Import a public tracker's CSV through a named column mapping; the rows of each provider
    and moment are one snapshot of the source named after the provider, citing the file."""
    from pipelines.history_import import HistoryRequest

    settings = settings_or_exit(config)
    request = HistoryRequest(kind="csv", file=str(file), mapping=mapping, source=source or "")
    _run(settings, request)


def register(app: typer.Typer) -> None:
    app.add_typer(history_app, name="history")
