"""Derived metrics, their checks, the serving copy, procurement alerts and their delivery, as
Dagster objects.

The SQL and the alert logic live in ``warehouse`` (metrics, serving, alerts, notify,
metric_queries); these definitions only call them. ``derived_metrics`` runs after every load
(it is in the scrape job, downstream of the snapshots), ``serving_copy`` after it, ``alert``
last; the sensor ``alert_delivery_sensor`` delivers what is still pending between scrapes
(retries, and a scraper-broken alert of a run whose failed source skipped ``alert``).
"""

# No `from __future__ import annotations` here: Dagster reads the resource annotations at
# definition time and cannot resolve them from strings.

import time
import warnings

import dagster as dg

from configuration.settings import ConfigError, Settings
from pipelines.resources import GpupriceResource
from warehouse.derive.alerts import WatchRule, evaluate
from warehouse.derive.index_alerts import IndexMoveRule, evaluate_index_rules
from warehouse.derive.metrics import (
    DERIVED_TABLES,
    SYNC_ERRORS,
    derive_tables,
    sync_error,
    sync_serving,
)
from warehouse.derive.notify import DeliverySummary, deliver_pending, pending_signature
from warehouse.read.index_checks import check_index_gates
from warehouse.read.metrics import (
    CheckOutcome,
    check_breakeven,
    check_card_value,
    check_discount_range,
    check_discount_stated,
    check_market_premium,
)
from warehouse.store.db import WarehouseBusy, WarehouseMissing

DELIVER_JOB = "deliver_alerts_job"
SERVING_ASSET = "serving_copy"
# The price index (docs/INDEX.md): kept by the same derive step, in the same transaction.
INDEX_ASSET = "price_index"

# Dagster itself passes `owners=None` when it binds resources to a sensor, and warns that the
# parameter is beta. Nothing here sets owners, so that one warning is noise.
warnings.filterwarnings(
    "ignore",
    message=r"Parameter `owners` of initializer `SensorDefinition",
    category=dg.BetaWarning,
)

_DESCRIPTIONS = {
    "card_value": "CNY per card-hour, per dense FP16 TFLOP-hour, per GB-hour and per TB/s-hour, "
    "per snapshot, source, card and billing mode.",
    "monthly_discount": "Listed hourly vs monthly-plan hourly per listing: computed ratio and "
    "the stated discount (disagreements flagged, never fixed).",
    "breakeven": "Per snapshot and card: bare-metal CNY per card-month and the monthly usage "
    "hours above which it beats the hourly and the monthly-plan container; per platform and "
    "the cheapest line across platforms.",
    "market_premium": "Each listing vs the newest market quote (SMM-type) for the same card "
    "and region, else the national average.",
    INDEX_ASSET: "The rental price index, method v1 (docs/INDEX.md): per card, rent mode, UTC "
    "day and kind (real | SIMULATED) the median across platforms of each platform's median "
    "CNY per card-hour, withheld below [index] min_platforms, matched-sample changes, a "
    "chain-linked level; every change of a past day appended as a revision.",
}


def watch_rules(settings: Settings) -> list[WatchRule]:
    return [WatchRule(**rule.model_dump()) for rule in settings.file.alerts.rules]


def index_rules(settings: Settings) -> list[IndexMoveRule]:
    """The ``[[alerts.index_rules]]``: moves of the price index."""
    return [IndexMoveRule(**rule.model_dump()) for rule in settings.file.alerts.index_rules]


def deliver(settings: Settings, log) -> DeliverySummary:
    """Send pending alerts; a missing or unreadable secret leaves them pending, never lost."""
    try:
        urls = settings.notify_urls()
    except ConfigError as exc:
        log.warning(f"alerts stay pending: {exc}")
        return DeliverySummary(note=str(exc))
    summary = deliver_pending(settings.warehouse, urls)
    (log.warning if summary.failed else log.info)(summary.line())
    return summary


def _delivery_metadata(summary: DeliverySummary) -> dict:
    return {
        "pending_before": summary.pending_before,
        "delivered": len(summary.delivered),
        "failed": len(summary.failed),
        "pending_after": summary.pending_after,
        "note": summary.note or "",
        "last_errors": "\n".join(sorted(set(summary.failed.values()))[:5]),
    }


def derived_metrics_asset(offers: list[str], quotes: list[str]) -> dg.AssetsDefinition:
    """The derived tables, each downstream of the snapshots it reads (``offers``: the offer
    snapshots' asset keys, ``quotes``: the quote snapshots')."""
    upstream = {
        table: [*offers, *(q for q in quotes if q not in offers), "reference_data"]
        if table == "market_premium"
        else [*offers, "reference_data"]
        for table in DERIVED_TABLES
    }

    upstream[INDEX_ASSET] = list(offers)

    @dg.multi_asset(
        name="derived_metrics",
        group_name="metrics",
        specs=[
            dg.AssetSpec(
                table,
                deps=upstream[table],
                description=_DESCRIPTIONS[table],
                group_name="metrics",
                kinds={"duckdb"},
            )
            for table in (*DERIVED_TABLES, INDEX_ASSET)
        ],
    )
    def derived_metrics(context: dg.AssetExecutionContext, gpuprice: GpupriceResource):
        """Derive the snapshots loaded since the last derive (incremental)."""
        summary = derive_tables(gpuprice.warehouse())
        context.log.info(summary.line())
        for table in DERIVED_TABLES:
            yield dg.MaterializeResult(
                asset_key=table,
                metadata={
                    "rows_written": summary.rows[table],
                    "offer_snapshots_derived": summary.offer_snapshots,
                    "quote_snapshots_new": summary.quote_snapshots,
                    "seconds": round(summary.seconds, 4),
                },
            )
        index = summary.index
        yield dg.MaterializeResult(
            asset_key=INDEX_ASSET,
            metadata={
                "revisions_appended": summary.rows.get(INDEX_ASSET, 0),
                "days_computed": index.series_days if index else 0,
                "platform_days_read": index.platform_days if index else 0,
                "full": index.full if index else False,
                "seconds": round(index.seconds, 4) if index else 0.0,
            },
        )

    return derived_metrics


@dg.asset(
    name=SERVING_ASSET,
    group_name="metrics",
    deps=list(DERIVED_TABLES),
    kinds={"duckdb"},
    description="The dashboard's serving copy (gpuprice-serving.duckdb): the (source, day)s the "
    "derive step queued in serving_outbox, copied in one transaction. A copy that cannot be "
    "written only warns: its days stay queued and the next run copies them.",
)
def serving_copy_asset(
    context: dg.AssetExecutionContext, gpuprice: GpupriceResource
) -> dg.MaterializeResult:
    try:
        summary = sync_serving(gpuprice.warehouse())
    except SYNC_ERRORS as exc:
        # Not a failure: the derived tables stand, the dashboard shows the copy as of its
        # last sync, and failing here would skip the alerts (and re-run the scrape).
        error = sync_error(exc)
        context.log.warning(f"serving copy NOT updated: {error}")
        return dg.MaterializeResult(metadata={"serving_copy": f"failed: {error}"})
    context.log.info(summary.line())
    return dg.MaterializeResult(
        metadata={
            "serving_copy": summary.line(),
            "full": summary.full,
            "source_days": summary.days,
            "seconds": round(summary.seconds, 4),
        }
    )


@dg.asset(
    name="alert",
    group_name="metrics",
    deps=["breakeven", INDEX_ASSET, SERVING_ASSET],
    description="Procurement alerts from the watch rules ([[alerts.rules]] on the breakeven, "
    "[[alerts.index_rules]] on the price index), stored, then "
    "delivered through apprise with every other pending alert (scraper-broken ones too); "
    "undelivered ones are retried by alert_delivery_sensor.",
)
def alert_asset(
    context: dg.AssetExecutionContext, gpuprice: GpupriceResource
) -> dg.MaterializeResult:
    settings = gpuprice.settings()
    evaluation = evaluate(settings.warehouse, watch_rules(settings))
    context.log.info(evaluation.line())
    moves = evaluate_index_rules(settings.warehouse, index_rules(settings))
    context.log.info(moves.line())
    delivery = deliver(settings, context.log)
    return dg.MaterializeResult(
        metadata={
            "rules": evaluation.rules,
            "new_alerts": len(evaluation.new_alerts),
            "index_rules": moves.rules,
            "new_index_alerts": len(moves.new_alerts),
        }
        | _delivery_metadata(delivery)
    )


def _check_result(outcome: CheckOutcome, severity: dg.AssetCheckSeverity) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        passed=outcome.passed,
        severity=severity,
        metadata={"failing_rows": outcome.failing_rows, "examples": "\n".join(outcome.examples)}
        | outcome.metadata,
    )


def _check(asset: str, name: str, run, severity: dg.AssetCheckSeverity, description: str):
    @dg.asset_check(asset=asset, name=name, description=description)
    def _asset_check(gpuprice: GpupriceResource) -> dg.AssetCheckResult:
        return _check_result(run(gpuprice.warehouse()), severity)

    return _asset_check


ERROR = dg.AssetCheckSeverity.ERROR
WARN = dg.AssetCheckSeverity.WARN

asset_checks = [
    _check("card_value", "prices_positive", check_card_value, ERROR,
           "No zero, negative or non-finite CNY per card-hour, TFLOP-hour, GB-hour, TB/s-hour."),
    _check("breakeven", "breakeven_finite_positive", check_breakeven, ERROR,
           "Breakeven hours finite and positive where given; a reason where missing."),
    _check("monthly_discount", "discount_ratio_in_range", check_discount_range, ERROR,
           "Computed monthly ÷ list ratio in (0, 1.2]."),
    _check("monthly_discount", "stated_discount_matches", check_discount_stated, WARN,
           "Each source's newest snapshot: the stated discount (95折 ...) agrees with the "
           "prices within 0.01. A disagreement is flagged, never corrected."),
    _check("market_premium", "quotes_positive", check_market_premium, ERROR,
           "Market quotes positive, premium ratios finite."),
    _check(INDEX_ASSET, "index_gates", check_index_gates, ERROR,
           "Every published day passed the gates it was computed with ([index] min_platforms) "
           "and has a positive, finite value and a level; every withheld day names its gate "
           "and has no value; one current revision per day."),
]  # fmt: skip


@dg.op(description="Send every pending alert through apprise; failures stay pending.")
def deliver_pending_alerts(context: dg.OpExecutionContext, gpuprice: GpupriceResource) -> None:
    summary = deliver(gpuprice.settings(), context.log)
    for key, value in _delivery_metadata(summary).items():
        context.log.info(f"{key}: {value}")


@dg.job(name=DELIVER_JOB, description="Deliver pending procurement alerts (retries included).")
def deliver_alerts_job() -> None:
    deliver_pending_alerts()


def delivery_sensor(settings: Settings) -> dg.SensorDefinition:
    interval = settings.file.notify.retry_interval_s

    @dg.sensor(
        name="alert_delivery_sensor",
        job=deliver_alerts_job,
        minimum_interval_seconds=interval,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Every tick: if alerts are undelivered (new, or failed before), run "
        f"{DELIVER_JOB}. Read-only check; retried every {interval} s until delivered.",
    )
    def alert_delivery_sensor(context: dg.SensorEvaluationContext, gpuprice: GpupriceResource):
        current = gpuprice.settings()
        try:
            pending, attempts = pending_signature(current.warehouse)
        except WarehouseMissing:
            return dg.SkipReason("no warehouse yet")
        except WarehouseBusy:
            return dg.SkipReason("the warehouse is busy with a load; looking again next tick")
        if pending == 0:
            return dg.SkipReason("no alert waiting for delivery")
        try:
            configured = bool(current.notify_urls())
        except ConfigError as exc:
            return dg.SkipReason(f"{pending} alert(s) pending: {exc}")
        if not configured:
            return dg.SkipReason(
                f"{pending} alert(s) pending, but no notification URL is configured "
                "(GPUPRICE_NOTIFY_URLS or [notify].urls_file)"
            )
        tick = int(time.time() // interval)
        return dg.RunRequest(run_key=f"deliver-{pending}-{attempts}-{tick}")

    return alert_delivery_sensor
