"""`gpuprice breakeven` and `gpuprice alerts`: the derived breakeven table and the
procurement alerts, read-only."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from gpuprice.cli_common import ConfigOption, card_or_exit, console, err, settings_or_exit
from scrapers.rows import HOURS_PER_MONTH
from warehouse.derive import alert_text

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
        str | None,
        typer.Option(
            "--gpu",
            help='Only this card: an id (rtx4090-24g), a name or an alias ("4090", "RTX 4090", '
            '"H100 SXM").',
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    config: ConfigOption = None,
) -> None:
    """The current breakeven of every card: per platform and the cheapest line across them.

    Bare metal (CNY per card-month, 720 h) beats the hourly container above
    `vs hourly` hours of use per month, and the monthly-plan container above `vs monthly`.
    """
    from warehouse.read.metrics import latest_breakeven

    gpu = card_or_exit(gpu) if gpu is not None else None
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


class Lang(StrEnum):
    en = "en"
    zh = "zh"


def alerts(
    since: Annotated[
        str | None,
        typer.Option(help="Only alerts created since: 90m, 24h, 7d, 2w, or a UTC date/datetime."),
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Each alert's whole message under its line.")
    ] = False,
    lang: Annotated[
        Lang, typer.Option("--lang", help="The language of the lines and messages: en or zh.")
    ] = Lang.en,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also the alerts a rule took back when older days arrived (superseded).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    config: ConfigOption = None,
) -> None:
    """Alerts, newest first, one line each (what, what happened, delivery): procurement
    (breakeven shifts, cheaper-mode flips, index moves) and scraper-broken (a source's pages stopped
    parsing into plausible prices). --verbose adds each whole message."""
    from warehouse.read.metrics import alerts as read_alerts

    moment = parse_since(since) if since is not None else None
    settings = settings_or_exit(config)
    rows = _read(lambda: read_alerts(settings.warehouse, moment, include_superseded=True))
    rows = rows.to_dicts()
    hidden = 0 if everything else sum(1 for r in rows if r["superseded"])
    rows = [r for r in rows if everything or not r["superseded"]]
    if as_json:
        _print_json([r | {"params": alert_text.loads(r["params"])} for r in rows])
        return
    if not rows:
        console.print("no alerts" + (f" since {moment:%Y-%m-%d %H:%M} UTC" if moment else ""))
        return
    for r in rows:
        _alert_line(r, lang.value, verbose)
    _alerts_footer(lang.value, len(rows), hidden, verbose)


KIND_WORDS = {
    "en": {"breakeven_shift": "shift", "mode_flip": "flip", "scraper_broken": "scraper"},
    "zh": {
        "breakeven_shift": "盈亏平衡移动",
        "mode_flip": "租用方式翻转",
        "scraper_broken": "抓取失效",
    },
}
_RESOLVED = {"en": ("open", "resolved {at}"), "zh": ("未解除", "{at} 已恢复")}


def _alert_line(row: dict[str, Any], lang: alert_text.Lang, verbose: bool) -> None:
    """One line: when, kind, what it is about, what happened, the delivery (cut at the
    terminal's edge; --verbose prints the whole message under it)."""
    what, summary, message = alert_text.render(row, lang)
    if row["kind"] == "scraper_broken":
        still, resolved = _RESOLVED[lang]
        at = row["resolved_at"]
        summary += "; " + (still if at is None else resolved.format(at=f"{at:%Y-%m-%d %H:%M}"))
    kind = KIND_WORDS[lang].get(row["kind"], row["kind"])
    delivery = alert_text.delivery_text(row, lang)
    line = f"{row['created_at']:%Y-%m-%d %H:%M}  {kind:<7} {alert_text.line(what, summary, lang)}"
    line += f"  [{delivery}]"
    console.print(line, markup=False, highlight=False, no_wrap=True, overflow="ellipsis")
    if verbose:
        notes = [
            message,
            alert_text.note_text(row["not_sent"], lang),
            alert_text.note_text(row["superseded"], lang),
        ]
        for note in filter(None, notes):
            console.print(f"    {note}", markup=False, highlight=False, soft_wrap=True)


_FOOTER = {
    "en": (
        "{n} alert(s), newest first, times UTC, breakeven in hours per month",
        "; {hidden} superseded not shown (--all)",
        "; --verbose: each whole message",
    ),
    "zh": (
        "{n} 条预警，最新在前，时间为 UTC，盈亏平衡以每月小时计",
        "；另有 {hidden} 条已被取代，未显示（--all）",
        "；--verbose 显示完整内容",
    ),
}


def _alerts_footer(lang: alert_text.Lang, shown: int, hidden: int, verbose: bool) -> None:
    head, taken_back, more = _FOOTER[lang]
    text = head.format(n=shown) + (taken_back.format(hidden=hidden) if hidden else "")
    console.print(text + ("" if verbose else more), markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(breakeven)
    app.command()(alerts)
