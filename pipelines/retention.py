"""Raw-page retention as a job of its own: ``[retention] raw_page_days`` empties the bodies of
old raw pages (warehouse.store.backup.prune_raw_pages), once a day, not inside every snapshot."""

# No `from __future__ import annotations` here: Dagster reads the resource annotations at
# definition time and cannot resolve them from strings.

import dagster as dg

from configuration.settings import Settings
from pipelines.resources import GpupriceResource
from warehouse.store.backup import prune_raw_pages

RETENTION_JOB = "retention_job"
# Daily, off the hour: the hourly scrape starts on it, and runs go one at a time.
RETENTION_CRON = "30 4 * * *"


@dg.op(description="Empty the bodies of raw pages older than [retention] raw_page_days.")
def prune_old_raw_pages(context: dg.OpExecutionContext, gpuprice: GpupriceResource) -> None:
    settings = gpuprice.settings()
    days = settings.file.retention.raw_page_days
    if not days:
        context.log.info("retention is off ([retention] raw_page_days = 0): nothing pruned")
        return
    pruned = prune_raw_pages(settings.warehouse, days)
    context.log.info(
        f"retention: emptied {pruned.pages} raw page(s) fetched before "
        f"{pruned.before:%Y-%m-%d} ({pruned.bytes_freed} bytes)"
    )


@dg.job(name=RETENTION_JOB, description="Apply [retention] raw_page_days (parsed rows stay).")
def retention_job() -> None:
    prune_old_raw_pages()


def retention_schedule(settings: Settings) -> dg.ScheduleDefinition:
    """Daily in the scrape schedule's timezone; running only when retention is configured."""
    on = bool(settings.file.retention.raw_page_days)
    return dg.ScheduleDefinition(
        name="retention_schedule",
        job=retention_job,
        cron_schedule=RETENTION_CRON,
        execution_timezone=settings.file.schedule.timezone,
        default_status=dg.DefaultScheduleStatus.RUNNING if on else dg.DefaultScheduleStatus.STOPPED,
    )
