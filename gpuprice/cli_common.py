"""What every `gpuprice` command shares: consoles, the --config option, settings loading."""

from __future__ import annotations

import os
import sys
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:  # loaded when a command reads its settings: `import gpuprice.cli` stays light
    from configuration.settings import Settings

# Piped or redirected (`| less`, `> file`, a log), rich falls back to 80 columns and folds
# every table cell over several lines; there a table is as wide as its content instead. A
# terminal keeps its own width, and COLUMNS set by hand is obeyed.
PIPE_WIDTH = 4096


def stdout_width() -> int | None:
    """The width the stdout console draws at: None (the terminal's, or COLUMNS) or
    PIPE_WIDTH when stdout is no terminal."""
    if os.environ.get("COLUMNS") or sys.stdout.isatty():
        return None
    return PIPE_WIDTH


console = Console(width=stdout_width())
# soft_wrap: a message stays one line (not broken at 80 columns when stderr is not a terminal),
# so it can be read in a log and searched for
err = Console(stderr=True, soft_wrap=True)

ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML configuration (default: ./gpuprice.toml).")
]


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def settings_or_exit(config: Path | None) -> Settings:
    """Load the settings, or print what is wrong with them and exit with code 2."""
    from configuration.settings import ConfigError, load_settings

    try:
        return load_settings(config)
    except ConfigError as exc:
        # escaped: the message quotes the bad value, which may look like rich markup ("[/x]")
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(2) from None


# Days a command can work on: the market this tracks is recent, and a day near date.min or
# date.max overflows as soon as a run adds a time zone or a span of days to it.
FIRST_DAY, LAST_DAY = date(2000, 1, 1), date(2100, 12, 31)


def parse_day(text: str, option: str = "date") -> date:
    """A YYYY-MM-DD day from FIRST_DAY to LAST_DAY, or exit 2 saying what to give."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        day = None
    if day is None or not FIRST_DAY <= day <= LAST_DAY:
        err.print(
            f"[red]{option} {escape(repr(text[:40]))}: use a day YYYY-MM-DD from {FIRST_DAY} "
            f"to {LAST_DAY}[/red]"
        )
        raise typer.Exit(2)
    return day


def card_id(text: str) -> tuple[str | None, list[str]]:
    """The canonical card id ``text`` names, or None and the ids nearest to it.

    ``text`` may be an id ("rtx4090-24g"), a name or an alias as sources spell them ("4090",
    "RTX 4090", "H100 SXM", "昇腾910B"): scrapers.gpu_names.canonical_gpu decides, so the CLI
    accepts what the warehouse maps and nothing it would not. A name it cannot pin to one card
    ("a100": 40 or 80 GB?) gets the ids of that model, else the closest ids and names by
    spelling (difflib, the standard library's fuzzy matcher)."""
    import difflib

    from scrapers.gpu_names import CANONICAL_GPUS, canonical_gpu
    from scrapers.rows import UNKNOWN_GPU
    from warehouse.read.names import CARD_NAMES

    wanted = text.strip()
    if wanted.lower() in CANONICAL_GPUS:
        return wanted.lower(), []
    found = canonical_gpu(wanted)
    if found != UNKNOWN_GPU:
        return found, []
    key = "".join(wanted.lower().split()).removeprefix("nvidia").removeprefix("geforce")
    same_model = sorted(gid for gid in CANONICAL_GPUS if gid.split("-")[0] == key)
    if same_model:
        return None, same_model
    by_name = {name.lower(): gid for gid, name in CARD_NAMES.items() if gid in CANONICAL_GPUS}
    close = difflib.get_close_matches(key, [*CANONICAL_GPUS, *by_name], n=3, cutoff=0.5)
    return None, list(dict.fromkeys(by_name.get(match, match) for match in close))


def card_or_exit(text: str, option: str = "--gpu") -> str:
    """The card id ``text`` names, or exit 2 with one line naming the nearest ids."""
    found, nearest = card_id(text)
    if found is not None:
        return found
    hint = f"did you mean {' or '.join(nearest)}?" if nearest else "no card is spelled like it"
    err.print(
        f"[red]{option} {escape(repr(text[:40]))} names no single card: {hint} (an id, a "
        'name or an alias: rtx4090-24g, "RTX 4090", "H100 SXM")[/red]'
    )
    raise typer.Exit(2)
