"""The `gpuprice` command line."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup

from configuration.log_redaction import install as install_log_redaction
from gpuprice.cli_common import (
    ConfigOption,
    console,
    err,
    parse_day,
    settings_or_exit,
)

if TYPE_CHECKING:  # the job runner imports Dagster; only commands that run jobs pay for it
    # typer ships its own click (typer._click): the click package would be a second import
    import click

    from configuration.settings import Settings
    from gpuprice.jobs import JobRunner, RunResult

install_log_redaction()  # apprise logs the URLs (tokens) it posts to

# The commands of gpuprice/commands/*, in the order --help lists them: name -> (module, the
# first paragraph of its help). A module is imported only when one of its commands runs or
# shows its own help, so `gpuprice --help` and `gpuprice recommend` do not import every
# command's dependencies (configuration.schema with every scraper adapter, DuckDB, Polars:
# most of a second, issue 39). tests/recommender/test_rec_startup.py checks the table against
# what the modules register.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "backup": ("backup", "Copy the warehouse into DIR consistently, also while the pipeline "
               "runs (it waits)."),
    "restore": ("backup", "Replace the warehouse with the backup in DIR (checked first; the "
                "old file is kept).\nRefused while a `gpuprice run` or `backfill` holds the "
                "warehouse."),
    "prune-raw": ("backup", "Empty the bodies of old raw pages; parsed rows stay."),
    "breakeven": ("breakeven_alerts", "The current breakeven of every card: per platform and "
                  "the cheapest line across them."),
    "alerts": ("breakeven_alerts", "Alerts, newest first, one line each (what, what happened, delivery): procurement\n(breakeven shifts, cheaper-mode flips, index moves) and scraper-broken (a source's pages stopped\nparsing into plausible prices). --verbose adds each whole message."),
    "parse": ("parse", "Print the rows a saved page parses into, one JSON object per line."),
    "recommend": ("recommend", "Size a workload (memory two ways), pick cards and count, rent "
                  "mode and monthly cost."),
    "reparse": ("reparse", "Re-parse a source's archived raw pages with today's parser and "
                "reload their rows\n(idempotent: the same parser twice changes nothing)."),
    "sql": ("sql", "Query the warehouse read-only and print the result."),
    "fx": ("fx", "Exchange rates: import the ECB's daily history into fx_rate."),
    "history": ("history", "Real price history: the Internet Archive's captures of pricing "
                "pages, SkyPilot's catalog versions, a public tracker's CSV. Every row is real "
                "and cites its origin."),
    "quarantine": ("quarantine", "Rows held back as anomalies (price jumps, impossible units, "
                   "invalid prices, unknown GPU names): list them, accept (load) or reject "
                   "them."),
    "index": ("index", 'The rental price index: one value per card, rent mode and UTC day, in CNY per card-hour (method: docs/INDEX.md). Without a sub-command: print it.'),
    "sources": ("sources", "The configured sources: adapter, evidence, credentials, schedule, "
                "last run; `sources check` fetches and parses sources once without loading."),
}  # fmt: skip


def load_command(name: str) -> click.Command:
    """The real command `name` of gpuprice/commands/*, its module imported now."""
    module = importlib.import_module(f"gpuprice.commands.{LAZY_COMMANDS[name][0]}")
    scratch = typer.Typer()
    module.register(scratch)
    return typer.main.get_group(scratch).commands[name]


class _LazyGroup(TyperGroup):
    """gpuprice's own commands plus LAZY_COMMANDS, each imported when it is used; while the
    top-level help is drawn, the lazy ones are listed from the table."""

    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *LAZY_COMMANDS]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in LAZY_COMMANDS:
            return found
        if self._listing:
            return TyperCommand(cmd_name, help=LAZY_COMMANDS[cmd_name][1])
        command = load_command(cmd_name)
        self.add_command(command, cmd_name)
        return command

    def format_help(self, ctx: click.Context, formatter: Any) -> None:
        """The top-level help in click's plain layout: Typer's boxed (rich) layout imports
        typer.rich_utils, rich.markdown and rich.traceback, about 6x `python -c pass` on
        its own, twice the 0.3 s issue 39 allows `gpuprice --help`. A command's own --help
        keeps the boxes."""
        self._listing = True
        try:
            click_group = TyperGroup.__mro__[1]  # typer's click.Group, under TyperGroup
            click_group.format_help(self, ctx, formatter)
        finally:
            self._listing = False

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Typer's rich layout printed the help while the "no arguments" error was built;
        # the plain layout returns it, so it is printed here (exit 2, as before).
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help())
            ctx.exit(2)
        return super().parse_args(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: Any) -> None:
        """Each command with the whole first paragraph of its help, wrapped (click's own
        layout cuts it at one line with "...")."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, " ".join((command.help or "").split("\n\n")[0].split())))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    cls=_LazyGroup,
    help="GPU rental price tracker: scrape, warehouse, query. Prices in CNY per card-hour unless stated.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _register_unlisted(target: typer.Typer) -> None:
    """A command module not in LAZY_COMMANDS yet (added without its row) is registered the
    eager way, so its commands are never lost; only start-up pays for it."""
    import pkgutil

    from gpuprice import commands

    listed = {module for module, _ in LAZY_COMMANDS.values()}
    for info in pkgutil.iter_modules(commands.__path__):
        if info.name not in listed:
            importlib.import_module(f"gpuprice.commands.{info.name}").register(target)


_register_unlisted(app)


VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        help="Also print Dagster's log (INFO and up), every error whole and stack traces; "
        "otherwise they go to $GPUPRICE_HOME/logs/gpuprice.log and the Dagster UI.",
    ),
]


@app.command()
def run(
    config: ConfigOption = None,
    as_of: Annotated[
        str | None, typer.Option(help="Fetch that day's pages (YYYY-MM-DD; demo market).")
    ] = None,
    verbose: VerboseOption = False,
) -> None:
    """Run the scrape job once, in-process, and print rows per source and one line per
    failed source (exit 1 when one failed)."""
    from gpuprice.run_summary import command_failed, print_run_summary

    settings = settings_or_exit(config)
    day = parse_day(as_of, "--as-of") if as_of is not None else None
    try:
        runner = _runner(settings, "run", verbose)
        with err.status(f"scraping {len(runner.sources)} source(s)…"):
            result = runner.run(day)
    except Exception as exc:  # the home or the warehouse, not a source: one line, exit 2
        raise typer.Exit(
            command_failed(settings, "gpuprice run", exc, err, verbose=verbose)
        ) from None
    print_run_summary(result, settings, console, verbose=verbose)
    if not result.success:
        raise typer.Exit(1)


def _runner(settings: Settings, command: str, verbose: bool) -> JobRunner:
    from gpuprice.jobs import JobRunner

    return JobRunner(
        settings,
        say=lambda line: err.print(f"[dim]{escape(line)}[/dim]", soft_wrap=True),
        console_level="INFO" if verbose else "CRITICAL",
        command=command,
    )


@app.command()
def backfill(
    days: Annotated[int, typer.Option(min=1, max=3650, help="How many days back, ending today.")],
    config: ConfigOption = None,
    end: Annotated[
        str | None, typer.Option(help="Last day to fill (YYYY-MM-DD, default today).")
    ] = None,
    verbose: VerboseOption = False,
) -> None:
    """Fill N days of history in one Dagster run (backfill_job: every source-day fetched as a
    run fetches it, loaded in bulk, derived and alerted every few days); one line per failed
    source-day (exit 1 when there was one)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from gpuprice.run_summary import command_failed, print_failures

    settings = settings_or_exit(config)
    last = parse_day(end, "--end") if end is not None else datetime.now(UTC).date()
    span = [last - timedelta(days=offset) for offset in range(days - 1, -1, -1)]
    failed = 0
    added = 0
    with Progress(
        TextColumn("[bold]backfill[/bold] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
    ) as progress:
        task = progress.add_task("", total=len(span))

        def done(result: RunResult) -> None:
            nonlocal added, failed
            added += sum(s.rows_added for s in result.sources)
            failed += len(result.failed) + (0 if result.dagster_success else 1)
            # above the bar, as they happen
            print_failures(settings, result, progress.console, verbose=verbose)
            progress.update(task, advance=1, description=f"{result.as_of} (+{added} rows)")

        try:
            _runner(settings, "backfill", verbose).backfill(span, done)
        except Exception as exc:  # the home or the warehouse, not a source: one line, exit 2
            progress.stop()
            code = command_failed(settings, "gpuprice backfill", exc, err, verbose=verbose)
            raise typer.Exit(code) from None
    console.print(
        f"backfilled {len(span)} day(s) {span[0]} .. {span[-1]}: {added} new row(s)"
        + (f", {failed} failed source-day(s) (lines above)" if failed else "")
    )
    if failed:
        raise typer.Exit(1)


@app.command("demo-market")
def demo_market(
    config: ConfigOption = None,
    host: Annotated[str | None, typer.Option(help="Bind address (default from config).")] = None,
    jygpu_port: Annotated[
        int | None, typer.Option(min=0, max=65535, help="Port of the marketplace site.")
    ] = None,
    smm_port: Annotated[
        int | None, typer.Option(min=0, max=65535, help="Port of the quote-board site.")
    ] = None,
    platforms_port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, help="Port of the other platforms, each under /<source>."),
    ] = None,
) -> None:
    """Serve the SIMULATED demo market (every source's format, one platform each) until Ctrl-C."""
    from configuration.schema import valid_host
    from demo.market import serve_forever

    cfg = settings_or_exit(config).file.demo_market
    if host is not None:
        try:
            valid_host(host)
        except ValueError as exc:
            err.print(f"[red]--host: {escape(str(exc))}[/red]")
            raise typer.Exit(2) from None
    address = host or cfg.host
    ports = (
        cfg.jygpu_port if jygpu_port is None else jygpu_port,
        cfg.smm_port if smm_port is None else smm_port,
        cfg.platforms_port if platforms_port is None else platforms_port,
    )
    try:
        serve_forever(address, ports[0], ports[1], cfg.seed, platforms_port=ports[2])
    except OSError as exc:  # port in use, an address not of this machine, a name DNS lacks
        reason = exc.strerror or str(exc)
        err.print(
            f"[red]cannot serve the demo market on {escape(address)} (ports "
            f"{', '.join(map(str, ports))}): {escape(reason)}; choose other ports "
            "(--jygpu-port, --smm-port, --platforms-port or \\[demo_market]) or a host of this "
            "machine (--host), or stop what uses them[/red]"
        )
        raise typer.Exit(2) from None


@app.command()
def up(config: ConfigOption = None) -> None:
    """Start everything: demo market (demo profile), Dagster (webserver + daemon), dashboard."""
    from gpuprice.stack import run_stack

    raise typer.Exit(run_stack(settings_or_exit(config)))


if __name__ == "__main__":
    app()
