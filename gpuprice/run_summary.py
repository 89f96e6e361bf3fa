"""The table a scrape run ends with, in `gpuprice run`, `backfill` and `up`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from configuration.settings import Settings

if TYPE_CHECKING:
    from gpuprice.jobs import RunResult


def print_run_summary(result: RunResult, settings: Settings, console: Console) -> None:
    """Print ``result`` on the caller's console (the CLI's, or `gpuprice up`'s)."""
    label = f"as of {result.as_of}" if result.as_of else "latest pages"
    table = Table(title=f"gpuprice run ({settings.profile} profile, {label})")
    for column in ("source", "status", "pages", "new rows", "error"):
        table.add_column(column)
    for s in result.sources:
        colour = {"ok": "green", "partial": "yellow", "failed": "red"}.get(s.status, "blue")
        status = f"{s.status} ({s.reason.replace('_', ' ')})" if s.reason else s.status
        table.add_row(
            s.source,
            f"[{colour}]{status}[/{colour}]",
            str(s.pages),
            str(s.rows_added),
            escape(s.error or ""),
        )
    console.print(table)
    if settings.profile == "demo":
        console.print(
            "[yellow]SIMULATED: demo-market prices are simulated, not real quotes.[/yellow]"
        )
    console.print(f"warehouse: {escape(settings.warehouse.describe())}")
