"""`gpuprice breakeven` and `gpuprice alerts`: the derived breakeven table and the
procurement alerts, read-only."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from gpuprice.cli_common import ConfigOption, console, err, settings_or_exit
from scrapers.rows import HOURS_PER_MONTH

_RELATIVE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """``7d`` / ``24h`` / ``90m`` / ``2w`` ago, or a date / datetime (UTC), as naive UTC.
    Anything else, or a moment before year 1 or after 9999, exits 2 saying what to give."""
    now = now or datetime.now(UTC).replace(tzinfo=None)
    match = _RELATIVE.match(text.strip().lower())
    try:
        if match:
            return now - timedelta(**{_UNITS[match[2]]: int(match[1])})
        moment = datetime.fromisoformat(text.strip())
        return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
    except (ValueError, OverflowError):  # not a moment; or too far back ("99999999999d")
        err.print(
            f"[red]--since {escape(repr(text[:40]))}: use a duration (90m, 24h, 7d, 2w; at "
            "most back to year 1) or a date / datetime (2026-09-04, 2026-09-04T10:00) in "
            "UTC[/red]"
        )
        raise typer.Exit(2) from None


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _print_json(rows: list[dict[str, Any]]) -> None:
    sys.stdout.write(
        json.dumps([{k: _plain(v) for k, v in row.items()} for row in rows], ensure_ascii=False)
        + "\n"
    )


def _hours(value: float | None) -> str:
    """Hours per month; a breakeven above the 720 h a month has is no usage anyone has: bare
    metal never pays off there."""
    if value is None:
        return "—"
    if value > HOURS_PER_MONTH:
        return f"never (> {HOURS_PER_MONTH} h)"
    return f"{value:,.1f}"


_OFFERS = (
    ("bare metal", "bare_metal_offer"),
    ("hourly", "hourly_offer"),
    ("monthly", "monthly_offer"),
)


def line_platforms(row: dict[str, Any]) -> dict[str, str]:
    """For the cross-platform cheapest line: the platform each mode's price came from (its
    offers are stored as ``source/offer_id``)."""
    return {mode: row[c].split("/", 1)[0] for mode, c in _OFFERS if row.get(c)}


def line_label(row: dict[str, Any]) -> str:
    """A breakeven line as people read it: a platform, or the lowest price across platforms
    with the platforms it came from (``cheapest`` is no source)."""
    if row["scope"] != "cheapest":
        return escape(row["source"])
    came = "; ".join(f"{mode}: {p}" for mode, p in line_platforms(row).items())
    return f"lowest across platforms ({escape(came) or 'none'})"


def _money(value: Decimal | None, digits: int = 2) -> str:
    return "—" if value is None else f"{float(value):,.{digits}f}"


def _read(call, *args):
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    try:
        return call(*args)
    except (WarehouseMissing, WarehouseBusy) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None


def breakeven(
    gpu: Annotated[
        str | None, typer.Option("--gpu", help="Only this card, e.g. rtx4090-24g.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    config: ConfigOption = None,
) -> None:
    """The current breakeven of every card: per platform and the cheapest line across them.

    Bare metal (CNY per card-month, 720 h) beats the hourly container above
    `vs hourly` hours of use per month, and the monthly-plan container above `vs monthly`.
    """
    from scrapers.gpu_names import CANONICAL_GPUS
    from warehouse.read.metrics import latest_breakeven

    if gpu is not None and gpu not in CANONICAL_GPUS:
        err.print(
            f"[red]--gpu {escape(repr(gpu))} is not a card id; known: {', '.join(sorted(CANONICAL_GPUS))}[/red]"
        )
        raise typer.Exit(2)
    settings = settings_or_exit(config)
    frame = _read(latest_breakeven, settings.warehouse, gpu)
    rows = frame.to_dicts()
    if as_json:
        _print_json(
            [r | {"platforms": line_platforms(r)} if r["scope"] == "cheapest" else r for r in rows]
        )
        return
    if not rows:
        console.print("no breakeven rows yet: run `gpuprice run` (or `gpuprice backfill`) first")
        return
    table = Table(title="Breakeven: monthly usage hours above which bare metal is cheaper")
    for column in (
        "card",
        "line",
        "snapshot (UTC)",
        "bare metal CNY/card-month",
        "hourly CNY/card-h",
        "monthly plan CNY/card-h",
        "vs hourly (h/month)",
        "vs monthly (h/month)",
        "note",
    ):
        table.add_column(column, overflow="fold")
    for r in rows:
        notes = [n for n in (r["reason_vs_hourly"], r["reason_vs_monthly"]) if n]
        line = line_label(r) + (" [yellow]SIMULATED[/yellow]" if r["simulated"] else "")
        table.add_row(
            r["gpu"],
            line,
            f"{r['observed_at']:%Y-%m-%d %H:%M}",
            _money(r["bare_metal_cny_per_card_month"]),
            _money(r["list_cny_per_card_hour"], 4),
            _money(r["monthly_cny_per_card_hour"], 4),
            _hours(r["breakeven_hours_vs_hourly"]),
            _hours(r["breakeven_hours_vs_monthly"]),
            "; ".join(dict.fromkeys(notes)),
        )
    console.print(table)
    console.print(
        f"A month is {HOURS_PER_MONTH} h: above it bare metal never pays off. 'lowest across "
        "platforms' = each mode at its cheapest listing on any scraped platform (which one in "
        f"brackets; --json: source 'cheapest', platforms). warehouse: {settings.warehouse.path}"
    )


def alerts(
    since: Annotated[
        str | None,
        typer.Option(help="Only alerts created since: 90m, 24h, 7d, 2w, or a UTC date/datetime."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    config: ConfigOption = None,
) -> None:
    """Alerts, newest first, with delivery: procurement (breakeven shifts, cheaper-mode flips)
    and scraper-broken (a source's pages stopped parsing into plausible prices)."""
    from warehouse.derive.alerts import alert_states
    from warehouse.read.metrics import alerts as read_alerts

    moment = parse_since(since) if since is not None else None
    settings = settings_or_exit(config)
    rows = _read(read_alerts, settings.warehouse, moment).to_dicts()
    states = _read(alert_states, settings.warehouse, [r["alert_id"] for r in rows])
    rows = [
        r | states.get(r["alert_id"], dict.fromkeys(("resolved_at", "resolution", "not_sent")))
        for r in rows
    ]
    if as_json:
        _print_json(rows)
        return
    if not rows:
        console.print("no alerts" + (f" since {moment:%Y-%m-%d %H:%M} UTC" if moment else ""))
        return
    table = Table(title="Procurement alerts (breakeven in usage hours per month)")
    for column in (
        "created (UTC)",
        "kind",
        "rule",
        "card",
        "line",
        "old → new",
        "delivery",
        "message",
    ):
        table.add_column(column, overflow="fold")
    for r in rows:
        if r["not_sent"]:
            delivery = f"[dim]not sent: {escape(r['not_sent'])}[/dim]"
        elif r["delivered_at"] is not None:
            delivery = f"[green]delivered {r['delivered_at']:%Y-%m-%d %H:%M}[/green]"
        elif r["attempts"]:
            delivery = f"[red]pending, {r['attempts']} attempt(s): {r['last_error'] or ''}[/red]"
        else:
            delivery = "[yellow]pending[/yellow]"
        change = f"{_hours(r['old_value'])} → {_hours(r['new_value'])}"
        if r["kind"] == "scraper_broken":
            change = (
                f"[green]resolved {r['resolved_at']:%Y-%m-%d %H:%M}[/green]"
                if r["resolved_at"] is not None
                else "[red]open[/red]"
            )
        elif r["kind"] == "mode_flip":
            change += f" ({r['old_mode']} → {r['new_mode']})"
        table.add_row(
            f"{r['created_at']:%Y-%m-%d %H:%M}",
            r["kind"],
            r["rule"],
            r["gpu"] or "",
            r["source"],
            change,
            delivery,
            r["message"],
        )
    console.print(table)
    console.print(f"{len(rows)} alert(s)")


def register(app: typer.Typer) -> None:
    app.command()(breakeven)
    app.command()(alerts)
