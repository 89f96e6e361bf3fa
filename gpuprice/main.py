"""The `gpuprice` executable (``[project.scripts]``): the CLI of gpuprice.cli, with every fault
it meets turned into one line on stderr and exit code 2; the stack trace goes to
``$GPUPRICE_HOME/logs/cli.log`` (when it can be written), never to the console.

Issue 31 found `run` printing 11 stack traces on a read-only home, `restore`, `prune-raw`,
`reparse` and `quarantine` crashing on a read-only home or a damaged file, and a bad file
named by ``GPUPRICE_CONFIG`` failing with a traceback (the job definitions read the settings
when imported). So, at the entry:

- a configuration error, raised wherever, is its message;
- a storage fault (warehouse.store.faults: damaged, truncated or table-less file, read-only
  home, full disk, lost warehouse, out of memory) is its message, which says what to do;
  DuckDB's and the OS's own errors are recognised by :func:`~warehouse.store.faults.fault_of`;
- anything else is "gpuprice failed: <error>", with the log's path.

`run` and `backfill` execute Dagster jobs, whose steps log a failure with its stack trace
before the command could see it; so they first check that the warehouse can be written
(warehouse.store.preflight.check_writable: a lost or damaged file, a read-only home, a full
disk, migrations that do not fit), which also migrates it.
"""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from configuration.errors import ConfigError
from gpuprice.cli import app
from gpuprice.cli_common import err, settings_or_exit

EXIT_FAULT = 2
EXIT_BUSY = 1
# the commands whose work runs in Dagster jobs: checked before they start
CHECKED_FIRST = ("run", "backfill")
LOG_NAME = "cli.log"


def _checked_first(callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def checked(**params: Any) -> Any:
        # Imported here: DuckDB is slow to import, and most commands never need it.
        from warehouse.store.preflight import check_writable

        check_writable(settings_or_exit(params.get("config")).warehouse)
        return callback(**params)

    return checked


def _log_path() -> Path | None:
    from configuration.environment import EnvSettings

    try:
        return EnvSettings().home / "logs" / LOG_NAME
    except Exception:  # a bad GPUPRICE_* value: the message says so; no log then
        return None


def _log(exc: BaseException) -> Path | None:
    """Append ``exc``'s stack trace to the CLI's log; its path, or None when it cannot be
    written (a read-only home, a full disk: the fault itself). Written directly, not through
    ``logging``, whose handlers print "--- Logging error ---" to the console when the write
    fails."""
    path = _log_path()
    if path is None:
        return None
    entry = "".join(traceback.format_exception(exc))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(
                f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC gpuprice {' '.join(sys.argv[1:])}\n"
            )
            log.write(entry + "\n")
    except OSError:
        return None
    return path


def message(exc: BaseException) -> str:
    """What the console shows for ``exc``: one line (a configuration error names each bad
    key on a line of its own, as at start)."""
    from warehouse.store.db import WarehouseBusy
    from warehouse.store.faults import fault_of

    if isinstance(exc, ConfigError | WarehouseBusy):  # their messages say what to do
        return str(exc)
    fault = fault_of(exc)
    if fault is not None:
        return str(fault)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"gpuprice failed: {type(exc).__name__}: {first}".rstrip(": ")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI; exit with its code, or 2 after one line for a fault."""
    command = typer.main.get_command(app)
    for name in CHECKED_FIRST:
        checked = command.commands[name]  # type: ignore[attr-defined]
        checked.callback = _checked_first(checked.callback)
    try:
        command.main(args=list(argv) if argv is not None else None, prog_name="gpuprice")
    except Exception as exc:
        from warehouse.store.db import WarehouseBusy

        text, log = message(exc), _log(exc)
        if log is not None and text.startswith("gpuprice failed"):  # not one we know
            text += f" (the details are in {log})"
        err.print(f"[red]{escape(text)}[/red]")
        # busy: another process holds the warehouse; try again later, as every command says
        sys.exit(EXIT_BUSY if isinstance(exc, WarehouseBusy) else EXIT_FAULT)


if __name__ == "__main__":
    main()
