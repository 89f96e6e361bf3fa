"""`gpuprice index`: the rental price index (docs/INDEX.md), as published now or as of a past
time, and `gpuprice index export DIR`, the open dataset. Read-only."""

from __future__ import annotations

import csv
import json
import os
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from gpuprice.cli_common import OutputFormat, console, err, parse_day

if TYPE_CHECKING:  # DuckDB loads only when the command runs
    from warehouse.read.index import IndexFilter
    from warehouse.store.handle import Warehouse

# As warehouse.derive.index_method has them; repeated here so `--help` needs no DuckDB.
MODES = ("hourly", "daily", "weekly", "monthly", "bare_metal_monthly", "spot")
METHODS = ("v1",)

index_app = typer.Typer(
    help="The rental price index: one value per card, rent mode and UTC day, in CNY per "
    "card-hour (method: docs/INDEX.md). Without a sub-command: print it.",
    invoke_without_command=True,
)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]{escape(message)}[/red]")
    return typer.Exit(code)


def parse_as_of(text: str) -> datetime:
    """A date or datetime, UTC unless it names its zone, as naive UTC; else exit 2."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise _fail(
            f"--as-of {text[:40]!r}: use a date or a time in UTC (2026-09-04, "
            "2026-09-04T10:00, 2026-09-04T18:00+08:00)"
        ) from None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def build_filter(
    card: str | None,
    billing: str | None,
    first: str | None,
    last: str | None,
    as_of: str | None,
    real: bool,
    simulated: bool,
    method: str,
) -> IndexFilter:
    """The options as one filter, or exit 2 with one line saying what to give."""
    from scrapers.gpu_names import CANONICAL_GPUS
    from warehouse.read.index import IndexFilter

    if card is not None and card not in CANONICAL_GPUS:
        raise _fail(f"--card {card!r} is not a card id; known: {', '.join(sorted(CANONICAL_GPUS))}")
    if billing is not None and billing not in MODES:
        raise _fail(f"--billing {billing!r}: use one of {', '.join(MODES)}")
    if method not in METHODS:
        raise _fail(f"--method {method!r}: the methods are {', '.join(METHODS)}")
    if real and simulated:
        raise _fail("--real and --simulated exclude each other: give one, or neither for both")
    days = [parse_day(d, o) if d else None for d, o in ((first, "--from"), (last, "--to"))]
    if days[0] and days[1] and days[0] > days[1]:
        raise _fail(f"--from {days[0]} is after --to {days[1]}")
    kind = "real" if real else "SIMULATED" if simulated else None
    moment = parse_as_of(as_of) if as_of else None
    return IndexFilter(card, billing, days[0], days[1], moment, kind, method)


def reading_warehouse() -> Warehouse:
    """The warehouse to read, from the environment alone (``GPUPRICE_HOME``, default ./var, and
    the warehouse's own variables), as configuration.settings finds it. Reading the index
    needs nothing of gpuprice.toml (its gates apply when the index is computed), and this
    command answers within a second (docs/PERFORMANCE.md, "The price index"): validating
    the whole TOML is time it does not need."""
    from warehouse.store.environment import WarehouseEnvironmentError, warehouse_config
    from warehouse.store.handle import Warehouse

    home = Path(os.environ.get("GPUPRICE_HOME") or "var")
    try:
        config = warehouse_config(os.environ)
    except WarehouseEnvironmentError as exc:
        raise _fail(str(exc)) from None
    return Warehouse(home.absolute() / "gpuprice.duckdb", config)


def _read(call, *args):
    import duckdb

    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    try:
        return call(*args)
    except (WarehouseMissing, WarehouseBusy) as exc:
        raise _fail(str(exc), 1) from None
    except duckdb.CatalogException:
        raise _fail(
            "the warehouse has no price index yet: run `gpuprice run` (or `gpuprice backfill`), "
            "which upgrades it and computes the index",
            1,
        ) from None


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date | datetime) else value


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f} %"


_COLUMNS = (
    "day (UTC)", "card", "mode", "data", "value CNY/card-h", "platforms", "listings",
    "sold out", "1 d", "7 d", "30 d", "level", "status",
)  # fmt: skip
_RIGHT = range(4, 12)  # the figures, aligned on the right


def _cells(r: dict[str, Any]) -> list[str]:
    from warehouse.read.names import billing_name, card_name

    sold = "—" if r["sold_out_share"] is None else f"{r['sold_out_share'] * 100:.0f} %"
    return [
        f"{r['day']}", f"{card_name(r['card'])} ({r['card']})", billing_name(r["billing"]),
        "SIMULATED" if r["kind"] == "SIMULATED" else "real",
        "—" if r["value"] is None else f"{r['value']:.4f}", str(r["platforms"]),
        str(r["observations"]), sold, _percent(r["change_1d"]), _percent(r["change_7d"]),
        _percent(r["change_30d"]), "—" if r["level"] is None else f"{r['level']:.2f}",
        r["status"] if r["gate"] is None else f"withheld: {r['gate_reason']}",
    ]  # fmt: skip


def _table(rows: list[dict[str, Any]], chosen: IndexFilter) -> list[str]:
    """The index as fixed-width lines. Written here rather than with rich's ``Table``, which
    measures and folds every cell: 6.1 s for one card's 5,478 days over five years
    (bench/index_speed.py), where the JSON of the same rows takes 0.7 s."""
    from rich.cells import cell_len  # display width: a Chinese name takes two cells a character

    when = f"as of {chosen.as_of:%Y-%m-%d %H:%M} UTC" if chosen.as_of else "as published now"
    body = [list(_COLUMNS), *(_cells(r) for r in rows)]
    widths = [max(cell_len(row[i]) for row in body) for i in range(len(_COLUMNS))]

    def line(cells: list[str]) -> str:
        padded = [
            " " * (w - cell_len(c)) + c if i in _RIGHT else c + " " * (w - cell_len(c))
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    return [
        f"gpuprice rental price index {chosen.method} ({when}): CNY per card-hour, UTC days",
        line(body[0]),
        line(["-" * w for w in widths]),
        *(line(cells) for cells in body[1:]),
        "value: median across platforms of each one's median; changes over the platforms on "
        "both days; level 100 = the first published day; SIMULATED = demo prices",
    ]


@index_app.callback()
def index(
    ctx: typer.Context,
    card: Annotated[str | None, typer.Option("--card", help="One card, e.g. rtx4090-24g.")] = None,
    billing: Annotated[
        str | None, typer.Option("--billing", help=f"One rent mode: {', '.join(MODES)}.")
    ] = None,
    first: Annotated[str | None, typer.Option("--from", help="First UTC day, YYYY-MM-DD.")] = None,
    last: Annotated[str | None, typer.Option("--to", help="Last UTC day, YYYY-MM-DD.")] = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="What the index said at that time (UTC unless zoned)."),
    ] = None,
    real: Annotated[bool, typer.Option("--real", help="Real prices only.")] = False,
    simulated: Annotated[
        bool, typer.Option("--simulated", help="SIMULATED (demo) prices only.")
    ] = False,
    method: Annotated[str, typer.Option("--method", help="Method version.")] = "v1",
    fmt: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = (
        OutputFormat.table
    ),
) -> None:
    """Print the index: per day, card, rent mode and kind of data, its value (CNY per
    card-hour), platforms, sold-out share, 1-, 7- and 30-day changes, level and status."""
    if ctx.invoked_subcommand is not None:
        return
    chosen = build_filter(card, billing, first, last, as_of, real, simulated, method)
    from warehouse.read.index import index_records

    columns, records = _read(index_records, reading_warehouse(), chosen)
    rows = [dict(zip(columns, record, strict=True)) for record in records]
    if fmt is OutputFormat.json:
        plain = [{k: _plain(v) for k, v in r.items()} for r in rows]
        sys.stdout.write(json.dumps(plain, ensure_ascii=False) + "\n")
    elif fmt is OutputFormat.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(columns)
        out.writerows([_plain(v) for v in record] for record in records)
    elif not rows:
        console.print("no index rows for these options (`gpuprice index` without options: all)")
    else:
        sys.stdout.write("\n".join(_table(rows, chosen)) + "\n")


@index_app.command("export")
def export(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="Where to write the files.")],
) -> None:
    """Write the whole index (every revision) as price_index.parquet and price_index.csv, with
    methodology.json: an open dataset DuckDB, Polars or pandas read as it is."""
    from warehouse.read.index_export import export_index

    if directory.exists() and not directory.is_dir():
        raise _fail(f"{directory} is a file: give a directory (created if need be)")
    try:
        summary = _read(export_index, reading_warehouse(), directory)
    except OSError as exc:
        raise _fail(f"cannot write to {directory}: {exc.strerror or exc}", 1) from None
    console.print(escape(summary.line()))


def register(app: typer.Typer) -> None:
    app.add_typer(index_app, name="index")
