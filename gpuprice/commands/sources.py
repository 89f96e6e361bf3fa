"""`gpuprice sources`: every configured source with its adapter, the evidence its format rests
on, its credentials (set or missing, never the value), its schedule, its newest data and its
last success (each by the day the data is about, live or backfilled, with its load time).

`gpuprice sources check SOURCE…`: fetch and parse each source once, load nothing, and print the
format generation its adapter detected, the row count, three sample prices as listed and any
failure, one line saying what to do. The demo profile checks against the demo market (started
for the command when nothing serves it), the live profile against the live URL with the
source's secret, exactly as a run would fetch it.
"""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from gpuprice.cli_common import ConfigOption, OutputFormat, console, err, settings_or_exit

if TYPE_CHECKING:
    from configuration.schema import SourceConfig
    from configuration.settings import Settings
    from scrapers.collect import Snapshot
    from scrapers.http import Request
    from scrapers.rows import Row
    from scrapers.sources import SourceAdapter
    from warehouse.read.stats import LastRun

SAMPLES = 3
LAST_RUNS_WAIT_S = 3.0  # seconds to wait for a writer (a run) to let the warehouse be read
UNKNOWN_SHOWN = 10  # unknown card names listed after the table

sources_app = typer.Typer(
    help="The configured sources: adapter, evidence, credentials, schedule, last run; "
    "`sources check` fetches and parses sources once without loading.",
    no_args_is_help=False,
)


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One source as `gpuprice sources` shows it (also one CSV row or JSON object)."""

    source: str
    adapter: str
    evidence: str
    real_captures: int
    credentials: str  # set, missing, optional, unreadable, not needed
    credentials_env: str  # the variables it reads (the missing ones when some are)
    credentials_detail: str
    schedule: str
    # The newest data by the day it is about (a past day loaded later does not overrule a
    # newer one): that moment, live or backfill, when it was loaded, how it ended.
    last_run_utc: str | None
    last_run_from: str | None
    last_loaded_utc: str | None
    last_status: str | None
    last_rows: int | None
    last_reason: str | None
    # The newest success the same way: the day its data is about, and when it was loaded.
    last_success_utc: str | None
    last_success_from: str | None
    last_success_loaded_utc: str | None


@sources_app.callback(invoke_without_command=True)
def sources(
    ctx: typer.Context,
    fmt: Annotated[
        OutputFormat,
        typer.Option("--format", help="table for people; csv or json for scripts."),
    ] = OutputFormat.table,
    config: ConfigOption = None,
) -> None:
    """List every configured source: adapter, evidence (real captures or modelled),
    credentials (set / missing / not needed, never the value), schedule and last run."""
    ctx.obj = config
    if ctx.invoked_subcommand is not None:
        return
    settings = settings_or_exit(config)
    runs, note = _last_runs(settings)
    lines = [_line(settings, name, src, runs.get(name)) for name, src in _configured(settings)]
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps([asdict(line) for line in lines], ensure_ascii=False) + "\n")
    elif fmt is OutputFormat.csv:
        writer = csv.DictWriter(sys.stdout, fieldnames=list(SourceLine.__slots__))
        writer.writeheader()
        writer.writerows(asdict(line) for line in lines)
    else:
        _print_table(settings, lines, note)
        _print_unknown_cards(settings)


def _print_unknown_cards(settings: Settings) -> None:
    """The card names still met that map to no card: what to add to scrapers/gpu_names.py."""
    import duckdb

    from warehouse.read.unknown_cards import unknown_cards
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    try:
        names = unknown_cards(settings.warehouse, wait_s=LAST_RUNS_WAIT_S)
    except (WarehouseMissing, WarehouseBusy, duckdb.Error):
        return  # the note above the table already says why nothing was read
    if not names:
        return
    shown = [f"{n.source}: {n.gpu_name_raw!r} ×{n.rows}" for n in names[:UNKNOWN_SHOWN]]
    more = f" and {len(names) - UNKNOWN_SHOWN} more" if len(names) > UNKNOWN_SHOWN else ""
    console.print(
        f"Card names that map to no card ({len(names)}; newest first; add them to "
        f"scrapers/gpu_names.py): {'; '.join(shown)}{more}.",
        markup=False,
        highlight=False,
    )


def _configured(settings: Settings) -> list[tuple[str, SourceConfig]]:
    return sorted(settings.file.sources.items())


def _line(settings: Settings, name: str, src: SourceConfig, run: LastRun | None) -> SourceLine:
    from scrapers.sources import GENERIC, build_adapter
    from scrapers.sources.evidence import evidence_for

    adapter = build_adapter(name, src.adapter, src.adapter_options())
    kind = GENERIC if src.adapter == GENERIC else name
    evidence = evidence_for(kind)
    state, envs, detail = _credentials(settings, name, adapter)
    return SourceLine(
        source=name,
        adapter=kind,
        evidence=evidence.text if evidence else "not in the evidence table",
        real_captures=evidence.captures if evidence else 0,
        credentials=state,
        credentials_env=" ".join(envs),
        credentials_detail=detail,
        schedule=_schedule(settings, src),
        last_run_utc=_utc(run and run.about),
        last_run_from=run and run.how,
        last_loaded_utc=_utc(run and run.loaded),
        last_status=run and run.status,
        last_rows=run and run.rows,
        last_reason=run and run.reason,
        last_success_utc=_utc(run and run.ok_about),
        last_success_from=run and run.ok_how,
        last_success_loaded_utc=_utc(run and run.ok_loaded),
    )


def _utc(moment: datetime | None) -> str | None:
    return None if moment is None else f"{moment:%Y-%m-%d %H:%M}"


def _credentials(
    settings: Settings, source: str, adapter: SourceAdapter
) -> tuple[str, tuple[str, ...], str]:
    """Whether the secret the live site needs is there, as the live profile reads it (the
    one lookup, ``Settings.source_secret``): state, the variables concerned, what to do.
    Never the value."""
    from configuration.settings import ConfigError

    spec = adapter.key_pair or adapter.secret
    if spec is None:
        return "not needed", (), ""
    envs = spec.envs
    missing = []
    for env in envs:
        try:
            if not settings.source_secret(source, env, secret_file=len(envs) == 1):
                missing.append(env)
        except ConfigError as exc:  # a secret file that is named but cannot be read
            return "unreadable", (env,), str(exc)
    if not missing:
        return "set", envs, f"{spec.what} set"
    where = " or ".join(f"{env}_FILE" for env in missing)
    if len(envs) == 1:
        where += f", or [sources.{source}].secret_file"
    ask = f"set {' and '.join(missing)} (or {where}, outside the repository)"
    if len(missing) == len(envs) and hasattr(adapter, "public_fetch_plan"):
        return (
            "optional",
            tuple(missing),
            f"without its {spec.what} it reads its public pages; {ask}",
        )
    return "missing", tuple(missing), f"{source} needs its {spec.what}; {ask}"


def _schedule(settings: Settings, src: SourceConfig) -> str:
    """Whether scrape_schedule fetches the source (it fetches every source of the profile)."""
    if not src.enabled:
        return "off: enabled = false"
    if src.url_for(settings.profile) is None:
        return f"off: no {settings.profile}_url"
    return "on" if settings.file.schedule.running else "on (schedule stopped)"


def _last_runs(settings: Settings) -> tuple[dict[str, LastRun], str | None]:
    """The newest data and success of each source in the active profile, by the day the data
    is about, read-only; a note instead when there is no warehouse (or it cannot be read
    now)."""
    import duckdb

    from warehouse.read.stats import last_runs
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    try:
        # a short wait: a listing is not worth waiting for a long load to finish
        return last_runs(settings.warehouse, settings.profile, wait_s=LAST_RUNS_WAIT_S), None
    except WarehouseMissing:
        return {}, "no warehouse yet: no source has run (gpuprice run)"
    except (WarehouseBusy, duckdb.Error) as exc:
        return {}, f"last runs not read: {exc}"


def _print_table(settings: Settings, lines: list[SourceLine], note: str | None) -> None:
    table = Table(
        "source (adapter)",
        "evidence",
        "credentials",
        "schedule",
        "newest data (UTC)",
        "last success (UTC)",
    )
    table.columns[2].overflow = "fold"  # a variable's name is worth more than the width
    for line in lines:
        credentials = line.credentials
        if line.credentials_env and line.credentials != "set":
            credentials += f": {line.credentials_env}"
        evidence = _short_evidence(line)
        source = line.source if line.adapter == line.source else f"{line.source} ({line.adapter})"
        cells = (source, evidence, credentials, line.schedule, _newest(settings, line),
                 _when(line.last_success_utc, line.last_success_from, line.last_success_loaded_utc))  # fmt: skip
        table.add_row(*(escape(cell) for cell in cells))
    console.print(table)
    schedule = settings.file.schedule
    state = "RUNNING" if schedule.running else "STOPPED"
    say = [
        f"Schedule on: fetched by scrape_schedule, cron {schedule.cron} ({schedule.timezone}), "
        f"{state} under the daemon.",
        "Evidence in full, and what to set for a missing credential: --format json; the "
        "formats themselves: docs/SOURCES.md.",
        "Newest data and last success go by the day the data is about: a live run's time, or "
        "the day a backfill asked for (loaded later, it does not overrule newer data).",
    ]
    if settings.profile == "demo":
        say.append(
            "Profile demo: every source reads its SIMULATED platform of the demo market; "
            "credentials are what the live profile would read."
        )
    for text in [*say, *([note] if note else [])]:
        console.print(text, markup=False, highlight=False)


def _when(about: str | None, how: str | None, loaded: str | None) -> str:
    """When data is about, and how it came: "2026-12-03 17:06 live", or for a backfilled
    day "2026-12-02 backfill, loaded 2026-12-03 17:40" (the day, not the load, is what the
    data says)."""
    if about is None:
        return "—"
    if how == "backfill":
        return f"{about[:10]} backfill, loaded {loaded}"
    return f"{about} {how or ''}".strip()


def _newest(settings: Settings, line: SourceLine) -> str:
    """The newest data and how its run ended; a day the demo market changes its layout on
    purpose says so (it is not the source failing)."""
    from demo.history_seed import deliberate_layout_change

    if line.last_status is None:
        return "—"
    when = _when(line.last_run_utc, line.last_run_from, line.last_loaded_utc)
    text = f"{when}: {line.last_status}, {line.last_rows} rows"
    day = date.fromisoformat(line.last_run_utc[:10]) if line.last_run_utc else None
    if (
        line.last_status == "failed"
        and line.last_reason == "drift"
        and line.last_run_from == "backfill"
        and deliberate_layout_change(settings, line.source, day)
    ):
        return f"{text} (demo layout change, deliberate)"
    return text + (f" ({line.last_reason})" if line.last_reason else "")


def _short_evidence(line: SourceLine) -> str:
    """The evidence in a few words: how many real captures, or modelled."""
    partly = "modelled" in line.evidence
    if line.real_captures:
        plural = "s" if line.real_captures > 1 else ""
        return f"{line.real_captures} real capture{plural}" + (", part modelled" if partly else "")
    return "modelled" + (" (real field names)" if "real" in line.evidence else "")


# -- sources check ---------------------------------------------------------------------------


@dataclass(slots=True)
class CheckResult:
    """One source's check: where it fetched, what it found, or why it failed."""

    source: str
    url: str | None = None
    fetched_utc: str | None = None
    simulated: bool = False
    generations: list[str] = field(default_factory=list)
    rows: int = 0
    offers: int = 0
    quotes: int = 0
    samples: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # "where: why" of each rejected listing
    failure: str | None = None


@sources_app.command("check")
def check(
    ctx: typer.Context,
    names: Annotated[
        list[str], typer.Argument(help="Sources to check, as configured (gpuprice sources).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON list, for scripts.")] = False,
    config: ConfigOption = None,
) -> None:
    """Fetch and parse each source once, loading nothing: the format generation detected, the
    row count, three sample prices as listed, any failure (exit 1 when one failed)."""
    from demo.autostart import private_demo_market

    settings = settings_or_exit(config or ctx.obj)
    unknown = [name for name in names if name not in settings.file.sources]
    if unknown:
        known = ", ".join(sorted(settings.file.sources))
        err.print(f"[red]not configured: {escape(', '.join(unknown))}; configured: {known}[/red]")
        raise typer.Exit(2)
    results = []
    with private_demo_market(settings, lambda text: err.print(text, markup=False)) as moved:
        for name in dict.fromkeys(names):
            with err.status(f"checking {name} …"):
                result = check_source(settings, name, moved.get(name))
            results.append(result)
            if not as_json:
                _print_result(result)
    if as_json:
        sys.stdout.write(json.dumps([asdict(r) for r in results], ensure_ascii=False) + "\n")
    if any(result.failure for result in results):
        raise typer.Exit(1)


def check_source(settings: Settings, name: str, served_at: str | None = None) -> CheckResult:
    """Fetch one source's snapshot as a run would, parse it, load nothing; ``served_at``: the
    URL of this command's own demo market for the source, when it reads one."""
    from configuration.outbound import source_client
    from pipelines.redacted import redact_snapshot
    from scrapers.collect import collect
    from scrapers.dated_market import DatedMarketAdapter
    from scrapers.redaction import Redactor
    from scrapers.sources import build_adapter
    from warehouse.store.db import utcnow

    src = settings.file.sources[name]
    result = CheckResult(name)
    url = served_at or src.url_for(settings.profile)
    if url is None:
        result.failure = (
            f"no {settings.profile}_url: add one to [sources.{name}] to check it in the "
            f"{settings.profile} profile"
        )
        return result
    adapter = build_adapter(name, src.adapter, src.adapter_options())
    headers, plan, failure = _access(settings, name, adapter)
    if failure:
        result.failure = failure
        return result
    market = settings.dated_market()
    reader = DatedMarketAdapter(adapter, market) if market else adapter
    started = utcnow()
    result.url, result.fetched_utc = url, f"{started:%Y-%m-%d %H:%M}"
    redactor = Redactor(settings.secret_values())
    with source_client(settings, name, redactor) as client:  # the one door
        fetched = collect(reader, client, url, started, headers=headers, plan=plan)
    snapshot = redact_snapshot(fetched, redactor)  # a server may echo the secret it was sent
    _read_snapshot(result, adapter, snapshot, settings)
    return result


def _access(
    settings: Settings, name: str, adapter: SourceAdapter
) -> tuple[dict[str, str] | None, list[str | Request] | None, str | None]:
    """Headers, plan, or why not: in the live profile the pipeline's own decision (secret
    headers, signed requests, the public pages, or "not configured"); in the demo none."""
    if settings.profile != "live":
        return None, None, None
    from pipelines.assets import source_access

    access = source_access(settings, name, adapter, None)
    if access.not_configured:
        return None, None, access.not_configured
    if access.note:
        err.print(access.note, markup=False)
    return access.headers, access.plan, None


def _read_snapshot(
    result: CheckResult, adapter: SourceAdapter, snapshot: Snapshot, settings: Settings
) -> None:
    """What the fetched and parsed snapshot holds (its rejected listings too), and what to do
    when it failed; a page with more rejected listings than [parse].max_rejected_share fails
    as the load would fail it."""
    from scrapers.parse import page_failure
    from scrapers.rows import OfferRow
    from scrapers.sources import format_generation

    if snapshot.fetch_error:
        result.failure = f"{snapshot.fetch_error}; {_fetch_advice(snapshot, settings.profile)}"
        return
    pages = snapshot.pages
    for page in pages:
        found = format_generation(adapter, page.page.body, page.page.url)
        if (found or "its one format") not in result.generations:
            result.generations.append(found or "its one format")
    rows = [row for page in pages for row in page.rows]
    result.rows = len(rows)
    result.offers = sum(isinstance(row, OfferRow) for row in rows)
    result.quotes = result.rows - result.offers
    result.simulated = any(row.simulated for row in rows)
    result.samples = [_sample(row) for row in _spread(rows, SAMPLES)]
    result.rejected = [r.line() for page in pages for r in page.rejected]
    share = settings.file.parse.max_rejected_share
    broken = [
        (page, page.error or failure)
        for page in pages
        if page.error
        or (failure := page_failure(len(page.rows), page.rejected, page.listings, share))
    ]
    if broken:
        first, why = broken[0]
        result.failure = (
            f"{len(broken)} of {len(pages)} page(s) would load no rows; first, "
            f"{first.page.url}: {why}. Save that page and run `gpuprice parse {adapter.name} "
            "FILE` to see why; docs/SOURCES.md says what the adapter reads"
        )


def _fetch_advice(snapshot: Snapshot, profile: str) -> str:
    if profile == "demo" and snapshot.fetch_failure == "unreachable":
        return "is the demo market running? Start it with `gpuprice demo-market`"
    if profile == "demo":
        return "the demo market answered an error: is demo_url the source's platform (listed at /)?"
    return {
        "unreachable": "check the network and the source's live_url",
        "blocked": "its robots.txt forbids the path: this source cannot be scraped politely",
        "too_large": "raise [http].max_page_bytes if the page is really that large",
    }.get(snapshot.fetch_failure or "", "the site answered an error: check live_url and the secret")


def _spread(rows: list[Row], count: int) -> list[Row]:
    """``count`` rows from the start, middle and end, so the samples differ."""
    if len(rows) <= count:
        return rows
    step = (len(rows) - 1) / (count - 1)
    return [rows[round(i * step)] for i in range(count)]


def _sample(row: Row) -> str:
    from scrapers.rows import OfferRow

    price = f"{row.price.normalize():f} {row.currency}"
    if isinstance(row, OfferRow):
        return (
            f"{row.gpu_name_raw} ×{row.gpu_count} {row.billing}: {price} "
            f"({row.unit}; listed as {row.unit_raw!r})"
        )
    return f"{row.gpu_name_raw} {row.region} {row.basis}: {price} ({row.unit_raw})"


def _print_result(result: CheckResult) -> None:
    where = f" {result.url}" if result.url else ""
    data = " SIMULATED" if result.simulated else ""
    if result.failure and not result.rows:
        err.print(
            f"[red]{escape(result.source)} FAILED{escape(where)}: {escape(result.failure)}[/red]"
        )
        return
    head = f"{result.source} {'FAILED' if result.failure else 'ok'}{data}{where}"
    console.print(f"{head} (fetched {result.fetched_utc} UTC)", markup=False, highlight=False)
    for generation in result.generations:  # one line each: a snapshot may mix them
        console.print(f"  format: {generation}", markup=False, highlight=False)
    console.print(
        f"  rows: {result.rows} ({result.offers} offers, {result.quotes} quotes)",
        markup=False,
        highlight=False,
    )
    for sample in result.samples:
        console.print(f"  price: {sample}", markup=False, highlight=False)
    if result.rejected:
        shown = "; ".join(result.rejected[:3]) + ("; …" if len(result.rejected) > 3 else "")
        err.print(
            f"[yellow]  rejected: {len(result.rejected)} listing(s), the rest kept: "
            f"{escape(shown)}[/yellow]",
            soft_wrap=True,
        )
    if result.failure:
        err.print(f"[red]{escape(result.source)} FAILED: {escape(result.failure)}[/red]")


def register(app: typer.Typer) -> None:
    app.add_typer(sources_app, name="sources")
