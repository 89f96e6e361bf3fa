"""`gpuprice quarantine list | accept ID... | reject ID...`: the rows held back from the tables
(warehouse.ingest.quarantine), and deciding on them by hand."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from gpuprice.cli_common import ConfigOption, OutputFormat, console, err, settings_or_exit

quarantine_app = typer.Typer(
    help="Rows held back as anomalies (price jumps, impossible units, invalid prices, unknown "
    "GPU names): list them, accept (load) or reject them.",
    no_args_is_help=True,
)


@quarantine_app.command("list")
def list_(
    status: Annotated[
        str,
        typer.Option(help="held | confirmed | accepted | rejected | noted | all"),
    ] = "held",
    source: Annotated[str | None, typer.Option(help="Only this source.")] = None,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="table, csv or json")
    ] = OutputFormat.table,
    config: ConfigOption = None,
) -> None:
    """List quarantine entries (default: the held ones)."""
    import polars as pl

    from warehouse.ingest.quarantine import STATUSES, list_entries
    from warehouse.read.sql_output import spreadsheet_safe
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    if status != "all" and status not in STATUSES:
        err.print(
            f"[red]--status {escape(repr(status))}: use one of {', '.join(STATUSES)}, all[/red]"
        )
        raise typer.Exit(2)
    settings = settings_or_exit(config)
    try:
        frame = list_entries(settings.warehouse, None if status == "all" else status, source)
    except (WarehouseMissing, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    if fmt is OutputFormat.csv:  # page text such as a card's name may look like a formula
        texts = pl.col(pl.String).map_elements(spreadsheet_safe, return_dtype=pl.String)
        sys.stdout.write(frame.with_columns(texts).write_csv())
        return
    if fmt is OutputFormat.json:
        sys.stdout.write(frame.write_ndjson())
        return
    table = Table(*frame.columns, title=f"quarantine ({status})")
    for row in frame.iter_rows():
        table.add_row(*("" if v is None else escape(str(v)) for v in row))
    console.print(table)
    console.print(f"{frame.height} entr{'y' if frame.height == 1 else 'ies'}")


def _decide(ids: list[str], accept: bool, note: str | None, config) -> None:
    from warehouse.ingest.quarantine import QuarantineError, decide
    from warehouse.store.db import WarehouseBusy, WarehouseMissing, warehouse_exists

    settings = settings_or_exit(config)
    if not warehouse_exists(settings.warehouse):
        err.print(f"[red]no warehouse at {escape(str(settings.warehouse.path))}[/red]")
        raise typer.Exit(1)
    try:
        added = decide(settings.warehouse, ids, accept=accept, note=note)
    except QuarantineError as exc:
        err.print(f"[red]{escape(str(exc))}; nothing changed[/red]")
        raise typer.Exit(2) from None
    except (WarehouseMissing, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    verb = "accepted" if accept else "rejected"
    console.print(f"{verb} {len(ids)} entr{'y' if len(ids) == 1 else 'ies'}; {added} row(s) loaded")


@quarantine_app.command()
def accept(
    ids: Annotated[list[str], typer.Argument(help="Entry ids (or unique prefixes).")],
    note: Annotated[str | None, typer.Option(help="Why, kept with the decision.")] = None,
    config: ConfigOption = None,
) -> None:
    """Accept held entries: their rows are loaded (metrics pick them up on the next derive)."""
    _decide(ids, True, note, config)


@quarantine_app.command()
def reject(
    ids: Annotated[list[str], typer.Argument(help="Entry ids (or unique prefixes).")],
    note: Annotated[str | None, typer.Option(help="Why, kept with the decision.")] = None,
    config: ConfigOption = None,
) -> None:
    """Reject held entries: they stay out of the tables for good."""
    _decide(ids, False, note, config)


def register(app: typer.Typer) -> None:
    app.add_typer(quarantine_app, name="quarantine")
