"""`gpuprice sql QUERY`: read-only ad-hoc queries of the warehouse (warehouse.read.sql)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from gpuprice.cli_common import ConfigOption, OutputFormat, console, err, settings_or_exit


def sql(
    query: Annotated[str, typer.Argument(help="A read-only SQL query (DuckDB dialect).")],
    config: ConfigOption = None,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="table, csv or json")
    ] = OutputFormat.table,
    limit: Annotated[
        int | None, typer.Option(min=1, help="At most this many rows (default [sql].max_rows).")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=0.01, help="Interrupt the query after this many seconds ([sql].timeout_s)."
        ),
    ] = None,
) -> None:
    """Query the warehouse read-only and print the result.

    One query only (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); statements that
    write, ATTACH, COPY, INSTALL / LOAD, PRAGMA / SET, and file- or URL-reading functions are
    refused with exit code 2. Rows are capped and the query is interrupted at the timeout."""
    import duckdb

    from warehouse.read.sql import QueryTimeout, UnsafeQuery, run
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    settings = settings_or_exit(config)
    limits = settings.file.sql
    max_rows = limit or limits.max_rows
    try:
        result = run(
            settings.warehouse_path,
            query,
            max_rows=max_rows,
            timeout_s=timeout or limits.timeout_s,
        )
    except UnsafeQuery as exc:
        err.print(f"[red]query failed: {escape(str(exc))}[/red]")
        raise typer.Exit(2) from None
    except (WarehouseMissing, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    except QueryTimeout as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    except duckdb.Error as exc:
        err.print(
            f"[red]query failed: {escape(str(exc))}[/red]\nThe warehouse is opened read-only; "
            "list its tables with SHOW TABLES."
        )
        raise typer.Exit(2) from None
    frame = result.frame
    if fmt is OutputFormat.csv:
        sys.stdout.write(frame.write_csv())
    elif fmt is OutputFormat.json:
        sys.stdout.write(frame.write_ndjson())
    else:
        table = Table(*frame.columns)
        for row in frame.iter_rows():
            table.add_row(*("" if v is None else escape(str(v)) for v in row))
        console.print(table)
        console.print(f"{frame.height} row(s)")
    if result.truncated:
        err.print(f"[yellow]only the first {max_rows} rows are shown (--limit)[/yellow]")


def register(app: typer.Typer) -> None:
    app.command()(sql)
