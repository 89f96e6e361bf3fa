"""`gpuprice sql QUERY`: read-only ad-hoc queries of the warehouse (warehouse.read.sql)."""

from __future__ import annotations

import math
import sys
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from configuration.schema import SqlConfig
from gpuprice.cli_common import ConfigOption, OutputFormat, console, err, settings_or_exit


def _bounded_rows(limit: int | None, cap: int) -> int:
    """``--limit``, or the configured cap when not given; exit 2 outside 1 … cap."""
    if limit is None:
        return cap
    if not 1 <= limit <= cap:
        err.print(
            f"[red]--limit {limit} is out of range: give a whole number from 1 to {cap} "
            f"({escape('[sql]')}.max_rows in gpuprice.toml caps it)[/red]"
        )
        raise typer.Exit(2)
    return limit


def _bounded_timeout(timeout: float | None, cap: float) -> float:
    """``--timeout``, or the configured cap when not given; exit 2 unless finite and in
    (0, cap]."""
    if timeout is None:
        return cap
    if not (math.isfinite(timeout) and 0 < timeout <= cap):
        err.print(
            f"[red]--timeout {timeout:g} is out of range: give a number of seconds above 0 and "
            f"at most {cap:g} ({escape('[sql]')}.timeout_s in gpuprice.toml caps it)[/red]"
        )
        raise typer.Exit(2)
    return timeout


def sql(
    query: Annotated[str, typer.Argument(help="A read-only SQL query (DuckDB dialect).")],
    config: ConfigOption = None,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", help="table, csv or json")
    ] = OutputFormat.table,
    limit: Annotated[
        int | None,
        typer.Option(
            help="At most this many rows, 1 to \\[sql].max_rows (the default; "
            f"{SqlConfig().max_rows} as shipped)."
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            help="Interrupt the query after this many seconds, above 0 and at most "
            f"\\[sql].timeout_s (the default; {SqlConfig().timeout_s:g} as shipped)."
        ),
    ] = None,
) -> None:
    """Query the warehouse read-only and print the result.

    One query only (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); statements that
    write, ATTACH, COPY, INSTALL / LOAD, PRAGMA / SET, and file- or URL-reading functions are
    refused with exit code 2. Rows are capped; the query runs in a process of its own, killed
    at the timeout, and is stopped when it needs more memory than GPUPRICE_DUCKDB_MEMORY_LIMIT
    allows (exit code 1).
    Every type prints: lists, structs, maps and arrays as JSON, blobs as base64, the rest
    in DuckDB's text form (see warehouse.read.sql_output)."""
    import duckdb

    from warehouse.read.sql import QueryTimeout, QueryTooBig, UnsafeQuery, run
    from warehouse.read.sql_output import csv_text, json_lines
    from warehouse.store.db import WarehouseBusy, WarehouseMissing
    from warehouse.store.faults import WarehouseFault, fault_of

    settings = settings_or_exit(config)
    limits = settings.file.sql
    max_rows = _bounded_rows(limit, limits.max_rows)
    timeout_s = _bounded_timeout(timeout, limits.timeout_s)
    try:
        result = run(
            settings.warehouse,
            query,
            max_rows=max_rows,
            timeout_s=timeout_s,
            render="json" if fmt is OutputFormat.json else "text",
        )
    except UnsafeQuery as exc:
        err.print(f"[red]query failed: {escape(str(exc))}[/red]")
        raise typer.Exit(2) from None
    except (WarehouseMissing, WarehouseBusy, QueryTimeout, QueryTooBig) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    except (WarehouseFault, duckdb.Error) as exc:
        fault = fault_of(exc, settings.warehouse.path)  # the file, not the query
        if fault is None:
            err.print(
                f"[red]query failed: {escape(str(exc))}[/red]\nThe warehouse is opened "
                "read-only; list its tables with SHOW TABLES."
            )
        else:
            err.print(f"[red]{escape(str(fault))}[/red]")
        raise typer.Exit(2) from None
    if fmt is OutputFormat.csv:
        sys.stdout.write(csv_text(result.columns, result.rows))
    elif fmt is OutputFormat.json:
        sys.stdout.write(json_lines(result.columns, result.rows))
    else:
        table = Table(*(escape(name) for name in result.columns))
        for row in result.rows:
            table.add_row(*("" if v is None else escape(v) for v in row))
        console.print(table)
        console.print(f"{len(result.rows)} row(s)")
    if result.truncated:
        err.print(f"[yellow]only the first {max_rows} rows are shown (--limit)[/yellow]")


def register(app: typer.Typer) -> None:
    app.command()(sql)
