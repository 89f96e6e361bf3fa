"""Assets: one snapshot per source of the active profile (fetch, archive, parse, load into
``raw_page``, ``offer`` / ``spot_quote``), the reference data and FX rates.

Assets stay thin: fetching and parsing live in ``scrapers``, loading and SQL in
``warehouse``. Retention and alert delivery are not here (pipelines.retention, pipelines.derived).
"""

# No `from __future__ import annotations` here: Dagster reads the config and resource
# annotations at definition time and cannot resolve them from strings.

import traceback
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import date, timedelta

import dagster as dg

from configuration.log_redaction import install as install_log_redaction
from configuration.outbound import download_client, source_client
from configuration.settings import ConfigError, Settings
from pipelines.redacted import redact_snapshot
from pipelines.resources import GpupriceResource
from scrapers.collect import Snapshot, collect
from scrapers.dated_market import DatedMarketAdapter
from scrapers.fx import parse_rates
from scrapers.http import FetchError, PoliteClient, Request
from scrapers.redaction import Redactor
from scrapers.rows import ParseError
from scrapers.sources import (
    SourceAdapter,
    build_adapter,
    produces_offers,
    produces_quotes,
    public_fetch_plan,
)
from scrapers.sources.generic.adapter import GenericAdapter
from warehouse.ingest.fx_rates import has_recent_rate, store_fetched
from warehouse.ingest.load import LoadSummary, load_snapshot, record_run, record_skipped
from warehouse.ingest.reference import load_reference
from warehouse.read.stats import table_stats
from warehouse.store.db import utcnow, write_connection

install_log_redaction()  # apprise logs the URLs (tokens) it posts to

FX_ASSET = "fx_rate"


class SnapshotConfig(dg.Config):
    as_of: str | None = None  # YYYY-MM-DD: fetch that day's page (demo market backfill)


@dg.asset(group_name="reference", description="GPU specs and the seeds' published prices (cited).")
def reference_data(gpuprice: GpupriceResource) -> dg.MaterializeResult:
    with write_connection(gpuprice.warehouse()) as con:
        counts = load_reference(con)
    return dg.MaterializeResult(metadata=counts)


def source_adapter(settings: Settings, source: str) -> SourceAdapter:
    """The adapter of one configured source (it parses prices as listed; the load converts)."""
    src = settings.file.sources[source]
    return build_adapter(source, src.adapter, src.adapter_options())


def needs_fx(adapter: SourceAdapter) -> bool:
    """Lists in a currency other than CNY (or may: the generic extractor reads $ too), so its
    load reads fx_rate: the snapshot runs after the rate asset."""
    return adapter.currency != "CNY" or isinstance(adapter, GenericAdapter)


@dg.asset(
    name=FX_ASSET,
    group_name="reference",
    description="USD→CNY in fx_rate: the configured default ([fx] usd_cny, labelled as such) "
    "and, when [fx].source_url is set, the day's rate from it (at most once a day; a failure "
    "only warns: the load then converts at the latest rate known).",
)
def fx_rate_asset(
    context: dg.AssetExecutionContext, gpuprice: GpupriceResource
) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=store_fx_rates(gpuprice.settings(), context.log.warning))


def store_fx_rates(settings: Settings, warn: Callable[[str], None]) -> dict[str, str]:
    """The ``fx_rate`` asset's work (a run's, or a backfill's before its days): the
    configured default and, when [fx].source_url is set, the day's rate; its metadata."""
    warehouse = settings.warehouse
    defaults = settings.fx_defaults()
    url = settings.file.fx.source_url
    fetched = "no [fx].source_url configured"
    rates = []
    if url:
        if has_recent_rate(warehouse, "USD", utcnow().date() - timedelta(days=1), url):
            fetched = "today's rate is already stored"
        else:
            try:
                with download_client(settings) as client:
                    page = client.get(url)
                rates = parse_rates(page.body, url)
                fetched = ", ".join(f"{r.currency} {r.cny_per_unit} on {r.day}" for r in rates)
            except (FetchError, ParseError) as exc:
                fetched = f"not fetched: {exc}"
                warn(f"fx rate {fetched}; conversions use the latest known rate")
    # One write connection for the step, opened after the fetch: the defaults first, so that
    # a fetched rate of the same day replaces its default; the fetched one screened first
    # (the one clock, the plausible band, a jump held).
    with write_connection(warehouse) as con:
        screened = store_fetched(con, defaults, rates, settings.file.fx.policy())
    for line in screened.lines():
        fetched = f"{fetched}; {line}"
        warn(f"fx rate {line}; conversions use the latest known rate")
    default = defaults[0]
    return {
        "configured_default": f"USD {default.cny_per_unit} from {default.day}",
        "source": fetched,
    }


@dataclass(frozen=True, slots=True)
class SourceAccess:
    """How one snapshot reaches its source: the secret's headers, or a plan of its own
    (signed requests, or the public pages when an optional secret is not set), or why the
    source is not configured (then nothing is fetched)."""

    headers: dict[str, str] | None = None
    plan: list[str | Request] | None = None
    not_configured: str | None = None
    note: str | None = None


def source_access(
    settings: Settings, source: str, adapter: SourceAdapter, as_of: date | None
) -> SourceAccess:
    """The secrets a live source needs, read when its snapshot runs (never logged):

    * one secret sent in a header (``adapter.secret``: SMM's cookie, AutoDL's token);
    * a key pair the requests are signed with (``adapter.key_pair``: UCloud's public and
      private key for 优云智算), each from its variable or ``<VAR>_FILE``;
    * none set, and the adapter has public pages (``public_fetch_plan``: Lambda): those.
    """
    header, pair = adapter.secret, adapter.key_pair
    spec = pair or header
    if settings.profile != "live" or spec is None:
        return SourceAccess()
    envs: tuple[str, ...] = spec.envs
    values = []
    for env in envs:
        try:
            values.append(settings.source_secret(source, env, secret_file=len(envs) == 1))
        except ConfigError as exc:
            return SourceAccess(not_configured=str(exc))
    if all(values):
        if pair is not None:
            public_key, private_key = values
            steps = adapter.fetch_plan(settings.source_url(source), as_of)
            requests = [s if isinstance(s, Request) else Request(s) for s in steps]
            return SourceAccess(plan=[pair.sign(r, public_key, private_key) for r in requests])
        if header is not None:
            return SourceAccess(headers=header.headers(values[0]))
    if not any(values):
        public = public_fetch_plan(adapter, settings.source_url(source), as_of)
        if public is not None:
            note = f"{source}: no {spec.what} ({', '.join(envs)}): fetching its public pages"
            return SourceAccess(plan=public, note=note)
    missing = [env for env, value in zip(envs, values, strict=True) if not value]
    if len(envs) == 1:
        where = (
            f"{missing[0]}_FILE, or [sources.{source}].secret_file: a file outside the repository"
        )
    else:
        where = " / ".join(f"{env}_FILE" for env in missing) + ": files outside the repository"
    return SourceAccess(
        not_configured=f"not configured: {source} needs its {spec.what}; set "
        f"{' and '.join(missing)} (or {where})"
    )


# The check every snapshot carries: did its source load? A failed source materialises its
# snapshot all the same (what was fetched, recorded and alerted is its outcome) and fails
# this check instead of the step, so that derive, the serving copy and the alerts still run
# on what the other sources loaded (docs/ARCHITECTURE.md, Dagster; docs/RELIABILITY.md).
LOADED_CHECK = "loaded"


def snapshot_asset(source: str, settings: Settings) -> dg.AssetsDefinition:
    adapter = source_adapter(settings, source)
    deps = [FX_ASSET] if needs_fx(adapter) else []
    key = f"{source}_snapshot"

    @dg.asset(
        name=key,
        group_name="snapshots",
        deps=deps,
        kinds={"duckdb"},
        description=f"Fetch, archive, parse and load one snapshot of `{source}` ({adapter.kind}"
        f"{', prices in ' + adapter.currency if adapter.currency != 'CNY' else ''}) into "
        f"raw_page and {' and '.join(written_tables(adapter))}; quarantine and drift are "
        "part of the load. A source that fails is recorded (scrape_run, source health, one "
        f"scraper-broken alert) and fails the check `{LOADED_CHECK}`, not the run.",
        check_specs=[
            dg.AssetCheckSpec(
                LOADED_CHECK,
                asset=key,
                description=f"`{source}` loaded this run: fails (ERROR) when the snapshot "
                "failed, warns when some of its pages did not parse.",
            )
        ],
    )
    def _snapshot(
        context: dg.AssetExecutionContext, config: SnapshotConfig, gpuprice: GpupriceResource
    ) -> dg.MaterializeResult:
        settings = gpuprice.settings()
        run_id = f"{context.run.run_id}-{source}-{context.retry_number}"
        snapshot = Snapshot(source, adapter.kind, utcnow(), _as_of(config))
        try:
            summary = take_snapshot(context, settings, gpuprice.redactor(), snapshot, run_id)
        except Exception as exc:  # a bug or a storage fault: recorded, never the run's end
            summary = _internal_error(context, settings, gpuprice.redactor(), snapshot, run_id, exc)
        (context.log.info if summary.status in ("ok", "skipped") else context.log.warning)(
            summary.line()
        )
        metadata = _metadata(summary, settings, config)
        if summary.status != "failed":
            try:
                metadata |= _tables_metadata(settings, source_adapter(settings, source))
            except Exception as exc:  # the figures of the UI only: never the run's end
                context.log.warning(f"{source}: table figures not read: {exc}")
        return dg.MaterializeResult(metadata=metadata, check_results=[_loaded(summary)])

    return _snapshot


def _as_of(config: SnapshotConfig) -> date | None:
    return date.fromisoformat(config.as_of) if config.as_of else None


def take_snapshot(
    context: dg.AssetExecutionContext,
    settings: Settings,
    redactor: Redactor,
    snapshot: Snapshot,
    run_id: str,
) -> LoadSummary:
    """Fetch, mask, archive, parse and load one snapshot of ``snapshot.source``; its outcome
    (scrape_run, source health and any scraper-broken alert are recorded by the load)."""
    fetched = fetch_snapshot(settings, redactor, snapshot, context.log.info)
    if isinstance(fetched, str):
        return record_skipped(settings.warehouse, snapshot, settings.profile, run_id, fetched)
    return load_snapshot(
        settings.warehouse,
        fetched,
        profile=settings.profile,
        run_id=run_id,
        quarantine=settings.file.load_policy(),
        fx_defaults=settings.fx_defaults(),
    )


def snapshot_client(settings: Settings, source: str, redactor: Redactor) -> PoliteClient:
    """The client a snapshot of ``source`` fetches with (configuration.outbound, the one
    door). It masks secrets in the errors it builds (redact_snapshot masks the bodies, rows
    and errors of the whole snapshot)."""
    return source_client(settings, source, redactor)


def fetch_snapshot(
    settings: Settings,
    redactor: Redactor,
    snapshot: Snapshot,
    say: Callable[[str], None],
    client: PoliteClient | None = None,
) -> Snapshot | str:
    """Fetch and parse one snapshot of ``snapshot.source`` (its ``as_of`` day from a dated
    market), every secret masked; or why the source is not configured (nothing fetched).
    A snapshot run loads it at once; a backfill loads its days in bulk (pipelines.backfill)
    and hands in the source's ``client`` (one for all its days: building one costs ~30 ms,
    its TLS context)."""
    source, as_of = snapshot.source, snapshot.as_of
    current = source_adapter(settings, source)
    access = source_access(settings, source, current, as_of)
    if access.not_configured is not None:
        return access.not_configured
    if access.note:
        say(access.note)
    market = settings.dated_market()
    reader = DatedMarketAdapter(current, market, as_of) if market else current
    own = snapshot_client(settings, source, redactor) if client is None else nullcontext(client)
    with own as http:
        fetched = collect(
            reader,
            http,
            settings.source_url(source),
            snapshot.started_at,
            as_of,
            headers=access.headers,
            plan=access.plan,
        )
    return redact_snapshot(fetched, redactor)


def _internal_error(
    context: dg.AssetExecutionContext,
    settings: Settings,
    redactor: Redactor,
    snapshot: Snapshot,
    run_id: str,
    exc: Exception,
) -> LoadSummary:
    """What a snapshot step reports when something other than the source failed: the
    traceback to the run's log (the Dagster UI, $GPUPRICE_HOME/logs), one line to the
    summary, and a failed scrape_run when the warehouse still takes one."""
    error = redactor.text(f"internal error: {type(exc).__name__}: {exc}")[:2000]
    context.log.error(redactor.text(f"{snapshot.source}: {error}\n{traceback.format_exc()}"))
    try:
        return record_run(
            settings.warehouse,
            snapshot,
            settings.profile,
            run_id,
            "failed",
            0,
            error,
            reason="internal_error",
        )
    except Exception as again:  # e.g. the disk is full: the step's metadata still says why
        context.log.error(redactor.text(f"{snapshot.source}: not recorded either: {again}"))
        return LoadSummary(run_id, snapshot.source, "failed", 0, 0, error, "internal_error")


def _loaded(summary: LoadSummary) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        check_name=LOADED_CHECK,
        passed=summary.status in ("ok", "skipped"),
        severity=dg.AssetCheckSeverity.ERROR
        if summary.status == "failed"
        else dg.AssetCheckSeverity.WARN,
        metadata={
            "status": summary.status,
            "reason": summary.reason or "",
            "error": summary.error or "",
        },
    )


def _metadata(summary: LoadSummary, settings: Settings, config: SnapshotConfig) -> dict:
    return {
        "status": summary.status,
        "reason": summary.reason or "",
        "pages": summary.pages,
        "rows_added": summary.rows_added,
        "profile": settings.profile,
        "as_of": config.as_of or "latest",
        "error": summary.error or "",
        "scraper_broken_alert": summary.broken_alert or "",
        "quarantined": summary.quarantined,
        "released_from_quarantine": summary.released,
        "fx": summary.fx_note or "",
    }


def written_tables(adapter: SourceAdapter) -> list[str]:
    """The row tables a source's snapshot loads (besides raw_page)."""
    return [
        t
        for t, yes in (("offer", produces_offers), ("spot_quote", produces_quotes))
        if yes(adapter)
    ]


def _tables_metadata(settings: Settings, adapter: SourceAdapter) -> dict:
    """Row counts and freshness of the tables this snapshot loaded (what the old `offer` /
    `spot_quote` assets reported), as ``table.stat`` keys."""
    return {
        f"{table}.{key}": value
        for table in written_tables(adapter)
        for key, value in table_stats(settings.warehouse, table).items()
    }
