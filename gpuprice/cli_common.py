"""What every `gpuprice` command shares: consoles, the --config option, settings loading."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuprice.settings import ConfigError, Settings, load_settings

console = Console()
err = Console(stderr=True)

ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML configuration (default: ./gpuprice.toml).")
]


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def settings_or_exit(config: Path | None) -> Settings:
    """Load the settings, or print what is wrong with them and exit with code 2."""
    try:
        return load_settings(config)
    except ConfigError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        err.print(f"[red]{text!r} is not a date; use YYYY-MM-DD[/red]")
        raise typer.Exit(2) from None
