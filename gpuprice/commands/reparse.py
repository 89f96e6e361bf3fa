"""`gpuprice reparse --source X [--since DATE]`: run today's parser over the archived pages of
a source and reload their rows (warehouse.ingest.reparse), so a fixed parser repairs history."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from gpuprice.cli_common import ConfigOption, console, err, parse_day, settings_or_exit


def reparse(
    source: Annotated[str, typer.Option("--source", help="The source whose pages to re-parse.")],
    since: Annotated[
        str | None,
        typer.Option(help="Only pages first fetched on or after this day (YYYY-MM-DD, UTC)."),
    ] = None,
    derive: Annotated[
        bool, typer.Option(help="Derive the affected snapshots' metrics afterwards.")
    ] = True,
    config: ConfigOption = None,
) -> None:
    """Re-parse a source's archived raw pages with today's parser and reload their rows
    (idempotent: the same parser twice changes nothing)."""
    from scrapers.sources import build_adapter
    from warehouse.ingest.reparse import archived_pages
    from warehouse.ingest.reparse import reparse as run_reparse
    from warehouse.store.db import WarehouseBusy, WarehouseMissing
    from warehouse.store.preflight import check_writable

    settings = settings_or_exit(config)
    day = parse_day(since, "--since") if since is not None else None
    moment = datetime.combine(day, datetime.min.time()) if day else None
    src = settings.file.sources.get(source)
    try:
        adapter = build_adapter(
            source, src.adapter if src else None, src.adapter_options() if src else None
        )
    except KeyError as exc:
        err.print(f"[red]{escape(str(exc.args[0]))}[/red]")
        raise typer.Exit(2) from None
    try:
        total = len(archived_pages(settings.warehouse, source, moment))
    except (WarehouseMissing, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    if total == 0:
        console.print(
            f"no archived pages of {source}" + (f" fetched since {day}" if day else ""),
            markup=False,
        )
        return
    # a read-only home, a full disk, a damaged file: one line before any progress is drawn
    check_writable(settings.warehouse)
    with Progress(
        TextColumn("[bold]reparse[/bold] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
    ) as progress:
        task = progress.add_task(source, total=total)

        def advance(done: int, of: int, url: str, outcome: str) -> None:
            progress.update(task, completed=done, description=f"{source}: {outcome[:60]}")
            err.print(f"  [{done}/{of}] {url} — {outcome}", highlight=False, markup=False)

        try:
            summary = run_reparse(
                settings.warehouse,
                adapter,
                source,
                moment,
                progress=advance,
                run_derive=derive,
                quarantine=settings.file.load_policy(),
                fx_defaults=settings.fx_defaults(),
            )
        except WarehouseBusy as exc:
            err.print(f"[red]{escape(str(exc))}[/red]")
            raise typer.Exit(1) from None
    console.print(summary.line(), highlight=False, markup=False)
    for line in summary.page_errors[:20]:
        err.print(f"[yellow]still failing: {escape(line)}[/yellow]", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(reparse)
