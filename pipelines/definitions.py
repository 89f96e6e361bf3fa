"""Dagster definitions: `dagster dev -m pipelines.definitions` loads ``defs``."""

from __future__ import annotations

import dagster as dg

from gpuprice.settings import Settings, load_settings
from pipelines.assets import reference_data, snapshot_asset, table_asset
from pipelines.metrics import (
    alert_asset,
    asset_checks,
    deliver_alerts_job,
    delivery_sensor,
    derived_metrics,
)
from pipelines.resources import GpupriceResource
from scrapers.sources import get_adapter

SCRAPE_JOB = "scrape_job"


def build_defs(
    settings: Settings | None = None, resource: GpupriceResource | None = None
) -> dg.Definitions:
    """Definitions for the enabled sources; tests pass their own settings and resource."""
    settings = settings or load_settings()
    sources = list(settings.enabled_sources())
    snapshots = [snapshot_asset(name) for name in sources]
    by_kind: dict[str, list[str]] = {"offers": [], "quotes": []}
    for name in sources:
        by_kind[get_adapter(name).kind].append(f"{name}_snapshot")
    tables = [
        table_asset("offer", by_kind["offers"] + ["reference_data"]),
        table_asset("spot_quote", by_kind["quotes"] + ["reference_data"]),
    ]
    job = dg.define_asset_job(
        SCRAPE_JOB,
        selection=dg.AssetSelection.all(),
        description="Scrape every enabled source once, load the warehouse, derive the metrics "
        "of the new snapshots and raise (and deliver) procurement alerts.",
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
        assets=[reference_data, *snapshots, *tables, derived_metrics, alert_asset],
        asset_checks=asset_checks,
        jobs=[job, deliver_alerts_job],
        schedules=[schedule],
        sensors=[delivery_sensor(settings)],
        resources={"gpuprice": resource or GpupriceResource()},
    )


defs = build_defs()
