"""`gpuprice fx import FILE|URL`: fill ``fx_rate`` with the ECB's daily history of USD→CNY
rates (scrapers.ecb), so that history is converted at the rate of its own day."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from gpuprice.cli_common import ConfigOption, console, err, parse_day, settings_or_exit

fx_app = typer.Typer(
    help="Exchange rates: import the ECB's daily history into fx_rate.",
    no_args_is_help=True,
)

_TIMEOUT_S = 30.0
_MAX_BYTES = 64 * 1024 * 1024


def _read(where: str) -> bytes:
    """The bytes of a local file, or of a URL fetched once (bounded time and size)."""
    if where.startswith(("http://", "https://")):
        import httpx

        try:
            with httpx.Client(timeout=_TIMEOUT_S, follow_redirects=True) as client:
                response = client.get(where, headers={"User-Agent": "gpuprice fx import"})
        except httpx.HTTPError as exc:
            raise ValueError(f"{where}: {type(exc).__name__}: {exc}") from None
        if response.status_code != 200:
            raise ValueError(f"{where}: HTTP {response.status_code}")
        if len(response.content) > _MAX_BYTES:
            raise ValueError(f"{where}: more than {_MAX_BYTES} bytes")
        return response.content
    path = Path(where)
    try:
        if path.stat().st_size > _MAX_BYTES:
            raise ValueError(f"{where}: more than {_MAX_BYTES} bytes")
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
    from scrapers.rows import ParseError
    from warehouse.ingest.fx_rates import import_rates
    from warehouse.store.db import WarehouseBusy, WarehouseUnreachable

    settings = settings_or_exit(config)
    try:
        rates = parse_ecb_history(_read(where), where)
    except (ValueError, ParseError) as exc:
        err.print(f"[red]fx import: {escape(str(exc))}[/red]")
        raise typer.Exit(2) from None
    try:
        done = import_rates(settings.warehouse, rates)
    except (WarehouseBusy, WarehouseUnreachable) as exc:
        err.print(f"[red]fx import: {escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    replaced = f", {done.replaced_default:,} configured default(s) replaced"
    console.print(
        f"fx: {done.added + done.replaced_default:,} USD→CNY rates from the ECB "
        f"({rates[0].day} .. {rates[-1].day}), {done.already_stored:,} already stored"
        f"{replaced if done.replaced_default else ''}; a day without a rate (weekend, "
        "TARGET holiday) is converted at the nearest earlier one",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


@fx_app.command("list")
def list_(
    currency: Annotated[str | None, typer.Option(help="Only this currency, e.g. USD.")] = None,
    since: Annotated[str | None, typer.Option(help="From this day on (YYYY-MM-DD).")] = None,
    config: ConfigOption = None,
) -> None:
    """List the stored rates (day, currency, CNY per unit, source), oldest first."""
    from rich.table import Table

    from warehouse.ingest.fx_rates import read_rates
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
            rates = read_rates(con)
    except (WarehouseMissing, WarehouseBusy, WarehouseUnreachable) as exc:
        err.print(f"[red]fx list: {escape(str(exc))}[/red]")
        raise typer.Exit(1) from None
    code = currency.strip().upper() if currency is not None else None
    shown = [
        r
        for r in sorted(rates, key=lambda r: (r.day, r.currency))
        if (code is None or r.currency.upper() == code) and (first is None or r.day >= first)
    ]
    table = Table("day", "currency", "CNY per unit", "source", title="fx_rate")
    for rate in shown:
        table.add_row(
            str(rate.day), escape(rate.currency), str(rate.cny_per_unit), escape(rate.source)
        )
    console.print(table)
    console.print(f"{len(shown):,} rate(s)", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(fx_app, name="fx")
