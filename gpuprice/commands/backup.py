"""`gpuprice backup DIR`, `gpuprice restore DIR` and `gpuprice prune-raw` (warehouse.store.backup)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from configuration.schema import RetentionConfig
from gpuprice.cli_common import ConfigOption, console, err, settings_or_exit


def backup(
    directory: Annotated[Path, typer.Argument(help="A new or empty directory for the copy.")],
    config: ConfigOption = None,
) -> None:
    """Copy the warehouse into DIR consistently, also while the pipeline runs (it waits)."""
    from warehouse.store.backup import BackupError
    from warehouse.store.backup import backup as make_backup
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    settings = settings_or_exit(config)
    try:
        summary = make_backup(settings.warehouse, directory)
    except (BackupError, WarehouseMissing, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    console.print(summary.line(), highlight=False, markup=False)


def restore(
    directory: Annotated[Path, typer.Argument(help="A directory made by `gpuprice backup`.")],
    config: ConfigOption = None,
) -> None:
    """Replace the warehouse with the backup in DIR (checked first; the old file is kept).
    Refused while a `gpuprice run` or `backfill` holds the warehouse."""
    from warehouse.store.backup import BackupError
    from warehouse.store.db import WarehouseBusy
    from warehouse.store.restore import restore as do_restore

    settings = settings_or_exit(config)
    try:
        moved = do_restore(settings.warehouse, directory)
    except (BackupError, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    console.print(
        f"restored {settings.warehouse.path} from {directory}", highlight=False, markup=False
    )
    if moved:
        console.print(f"the previous warehouse is kept as {moved}", highlight=False, markup=False)


def prune_raw(
    days: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=36_500,
            help="Older than this many days (default \\[retention].raw_page_days; as shipped "
            f"{RetentionConfig().raw_page_days}, keep all, so give --days).",
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Empty the bodies of old raw pages; parsed rows stay."""
    from warehouse.store.backup import prune_raw_pages
    from warehouse.store.db import WarehouseBusy, warehouse_exists
    from warehouse.store.marker import refuse_if_lost

    settings = settings_or_exit(config)
    keep = days or settings.file.retention.raw_page_days
    if not keep:
        err.print("[red]give --days, or set \\[retention].raw_page_days[/red]")
        raise typer.Exit(2)
    if not warehouse_exists(settings.warehouse):
        refuse_if_lost(settings.warehouse.path)  # gone where one was kept: a fault, exit 2
        err.print(f"[red]no warehouse at {escape(str(settings.warehouse.path))}[/red]")
        raise typer.Exit(1)
    try:
        summary = prune_raw_pages(settings.warehouse, keep)
    except WarehouseBusy as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    console.print(
        f"emptied {summary.pages} raw page(s) fetched before {summary.before:%Y-%m-%d %H:%M} "
        f"({summary.bytes_freed} bytes)"
    )


def register(app: typer.Typer) -> None:
    app.command()(backup)
    app.command()(restore)
    app.command("prune-raw")(prune_raw)
