"""Dagster definitions: `dagster dev -m pipelines.definitions` loads ``defs``."""

from __future__ import annotations

import dagster as dg

from configuration.settings import Settings, load_settings
from pipelines.assets import (
    fx_rate_asset,
    needs_fx,
    reference_data,
    snapshot_asset,
    source_adapter,
)
from pipelines.backfill import backfill_job
from pipelines.derived import (
    alert_asset,
    asset_checks,
    deliver_alerts_job,
    delivery_sensor,
    derived_metrics_asset,
    serving_copy_asset,
)
from pipelines.history import history_import_job
from pipelines.resources import GpupriceResource, resource_from_environment
from pipelines.retention import retention_job, retention_schedule
from scrapers.sources import produces_offers, produces_quotes

SCRAPE_JOB = "scrape_job"


def build_defs(
    settings: Settings | None = None, resource: GpupriceResource | None = None
) -> dg.Definitions:
    """Definitions for the sources of the active profile (enabled, with a URL for it): the
    demo profile has jygpu and smm; tests pass their own settings and resource."""
    settings = settings or load_settings()
    adapters = {name: source_adapter(settings, name) for name in settings.enabled_sources()}
    snapshots = [snapshot_asset(name, settings) for name in adapters]
    offers = [f"{n}_snapshot" for n, a in adapters.items() if produces_offers(a)]
    quotes = [f"{n}_snapshot" for n, a in adapters.items() if produces_quotes(a)]
    fx = [fx_rate_asset] if any(needs_fx(a) for a in adapters.values()) else []
    # sources -> snapshots (raw_page, offer, spot_quote) -> derived tables -> serving copy ->
    # alert: the data-flow picture of docs/ARCHITECTURE.md, one asset per step.
    job = dg.define_asset_job(
        SCRAPE_JOB,
        selection=dg.AssetSelection.all(),
        description="Scrape every enabled source once, load the warehouse, derive the metrics "
        "of the new snapshots, update the serving copy and raise (and deliver) alerts.",
    )
    schedule = dg.ScheduleDefinition(
        name="scrape_schedule",
        job=job,
        cron_schedule=settings.file.schedule.cron,
        execution_timezone=settings.file.schedule.timezone,
        default_status=(
            dg.DefaultScheduleStatus.RUNNING
            if settings.file.schedule.running
            else dg.DefaultScheduleStatus.STOPPED
        ),
    )
    return dg.Definitions(
        assets=[
            reference_data,
            *fx,
            *snapshots,
            derived_metrics_asset(offers, quotes),
            serving_copy_asset,
            alert_asset,
        ],
        asset_checks=asset_checks,
        jobs=[job, deliver_alerts_job, retention_job, history_import_job, backfill_job],
        schedules=[schedule, retention_schedule(settings)],
        sensors=[delivery_sensor(settings)],
        resources={"gpuprice": resource or resource_from_environment()},
        # One process per run, whoever launches it (the daemon, a command): its resource is
        # set up once and holds the warehouse's lease from the first step to the last
        # (pipelines.resources); with a process per step, a restore could come in between.
        executor=dg.in_process_executor,
    )


defs = build_defs()
