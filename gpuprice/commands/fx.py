"""`gpuprice fx import FILE|URL`: fill ``fx_rate`` with the ECB's daily history of USD→CNY
rates (scrapers.ecb), so that history is converted at the rate of its own day."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from gpuprice.cli_common import ConfigOption, console, err, parse_day, settings_or_exit

if TYPE_CHECKING:
    from configuration.settings import Settings

fx_app = typer.Typer(
    help="Exchange rates: import the ECB's daily history into fx_rate.",
    no_args_is_help=True,
)

_MAX_FILE_BYTES = 64 * 1024 * 1024


def _read(where: str, settings: Settings) -> bytes:
    """The bytes of a local file, or of a URL fetched once through the one door
    (configuration.outbound: a total deadline, at most ``[http].max_page_bytes`` read while
    it streams, no redirect to an internal address, secrets masked in any error)."""
    if where.startswith(("http://", "https://")):
        from configuration.outbound import download_client
        from scrapers.http import FetchError

        try:
            with download_client(settings) as client:
                return client.get(where).body
        except FetchError as exc:
            raise ValueError(f"{exc.url}: {exc.reason} ({exc.kind.replace('_', ' ')})") from None
    path = Path(where)
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            raise ValueError(f"{where}: more than {_MAX_FILE_BYTES} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{where}: {exc.strerror or exc}") from None


@fx_app.command("import")
def import_(
    where: Annotated[
        str,
        typer.Argument(
            metavar="FILE|URL",
            help="eurofxref-hist.csv or .zip, a file or a URL such as "
            "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip",
        ),
    ],
    config: ConfigOption = None,
) -> None:
    """Store the ECB's daily USD→CNY rates (CNY/USD per euro) in fx_rate; re-importing adds
    nothing, and a day already holding a fetched rate keeps it."""
    from scrapers.ecb import parse_ecb_history
    from scrapers.redaction import Redactor
    from scrapers.rows import ParseError
    from warehouse.ingest.fx_rates import import_rates
    from warehouse.store.db import WarehouseBusy, WarehouseUnreachable

    settings = settings_or_exit(config)
    try:
        rates = parse_ecb_history(_read(where, settings), where)
    except (ValueError, ParseError) as exc:
        # a body may quote what the server was sent: every configured secret masked
        masked = Redactor(settings.secret_values()).text(str(exc))
        err.print(f"[red]fx import: {escape(masked)}[/red]")
        raise typer.Exit(2) from None
    try:
        done = import_rates(settings.warehouse, rates, settings.file.fx.policy())
    except (WarehouseBusy, WarehouseUnreachable) as exc:
        err.print(f"[red]fx import: {escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    replaced = f", {done.replaced_default:,} configured default(s) replaced"
    stored = done.added + done.replaced_default + len(done.screened.confirmed)
    console.print(
        f"fx: {stored:,} USD→CNY rates from the ECB "
        f"({rates[0].day} .. {rates[-1].day}), {done.already_stored:,} already stored"
        f"{replaced if done.replaced_default else ''}; a day without a rate (weekend, "
        "TARGET holiday) is converted at the nearest earlier one",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    for line in done.screened.lines():
        err.print(f"fx import: {line}", highlight=False, markup=False, soft_wrap=True)
    if done.screened.refused or done.screened.held:
        if done.screened.held:
            err.print(
                "fx import: held rates are not used; `gpuprice fx list --held` shows them, "
                "`gpuprice fx accept DAY` stores one",
                highlight=False,
                markup=False,
            )
        raise typer.Exit(1)


@fx_app.command("accept")
def accept(
    days: Annotated[list[str], typer.Argument(metavar="DAY...", help="Held days (YYYY-MM-DD).")],
    currency: Annotated[str, typer.Option(help="The held rates' currency.")] = "USD",
    config: ConfigOption = None,
) -> None:
    """Store held rates (a move larger than [fx] max_daily_change that is real): rows of
    those days are converted at them from then on."""
    from warehouse.ingest.fx_rates import accept_held
    from warehouse.store.db import WarehouseBusy, WarehouseUnreachable

    wanted = [parse_day(day, "DAY") for day in days]
    settings = settings_or_exit(config)
    try:
        accepted = accept_held(settings.warehouse, wanted, currency.strip().upper())
    except (WarehouseBusy, WarehouseUnreachable) as exc:
        err.print(f"[red]fx accept: {escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    missing = sorted(set(wanted) - {rate.day for rate in accepted})
    for rate in accepted:
        console.print(f"accepted {rate.day} {rate.currency} {rate.cny_per_unit}", highlight=False)
    if missing:
        listed = ", ".join(str(day) for day in missing)
        err.print(f"[red]fx accept: no held {escape(currency)} rate on {listed}[/red]")
        raise typer.Exit(1)


@fx_app.command("list")
def list_(
    currency: Annotated[str | None, typer.Option(help="Only this currency, e.g. USD.")] = None,
    since: Annotated[str | None, typer.Option(help="From this day on (YYYY-MM-DD).")] = None,
    held: Annotated[
        bool, typer.Option("--held", help="The held rates (fx_rate_held) instead, with why.")
    ] = False,
    config: ConfigOption = None,
) -> None:
    """List the stored rates (day, currency, CNY per unit, source), oldest first; with
    --held, the rates held for a move larger than [fx] max_daily_change."""
    from rich.table import Table

    from warehouse.ingest.fx_rates import read_held, read_rates
    from warehouse.store.db import (
        WarehouseBusy,
        WarehouseMissing,
        WarehouseUnreachable,
        read_connection,
    )

    first = parse_day(since, "--since") if since is not None else None
    settings = settings_or_exit(config)
    try:
        with read_connection(settings.warehouse) as con:
            rows = read_held(con) if held else [(r, r.source, "") for r in read_rates(con)]
    except (WarehouseMissing, WarehouseBusy, WarehouseUnreachable) as exc:
        err.print(f"[red]fx list: {escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    code = currency.strip().upper() if currency is not None else None
    shown = [
        (r, text, status)
        for r, text, status in sorted(rows, key=lambda row: (row[0].day, row[0].currency))
        if (code is None or r.currency.upper() == code) and (first is None or r.day >= first)
    ]
    columns = ("day", "currency", "CNY per unit", *(("status", "why") if held else ("source",)))
    table = Table(*columns, title="fx_rate_held" if held else "fx_rate")
    for rate, text, status in shown:
        cells = (status, text) if held else (text,)
        table.add_row(str(rate.day), escape(rate.currency), str(rate.cny_per_unit),
                      *(escape(c) for c in cells))  # fmt: skip
    console.print(table)
    console.print(f"{len(shown):,} rate(s)", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(fx_app, name="fx")
