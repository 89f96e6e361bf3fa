"""Assets: one snapshot per source, the reference data, and the tables they fill.

Assets stay thin: fetching and parsing live in ``scrapers``, loading and SQL in
``warehouse``.
"""

# No `from __future__ import annotations` here: Dagster reads the config and resource
# annotations at definition time and cannot resolve them from strings.

from datetime import date

import dagster as dg

from pipelines.resources import GpupriceResource
from scrapers.collect import collect
from scrapers.http import PoliteClient
from scrapers.sources import get_adapter
from warehouse.db import utcnow, write_connection
from warehouse.load import load_snapshot
from warehouse.reference import load_reference
from warehouse.stats import table_stats


class SnapshotConfig(dg.Config):
    as_of: str | None = None  # YYYY-MM-DD: fetch that day's page (demo market backfill)


@dg.asset(group_name="reference", description="GPU specs and the seeds' published prices (cited).")
def reference_data(gpuprice: GpupriceResource) -> dg.MaterializeResult:
    with write_connection(gpuprice.settings().warehouse_path) as con:
        counts = load_reference(con)
    return dg.MaterializeResult(metadata=counts)


def snapshot_asset(source: str) -> dg.AssetsDefinition:
    adapter = get_adapter(source)

    @dg.asset(
        name=f"{source}_snapshot",
        group_name="snapshots",
        description=f"Fetch, archive, parse and load one snapshot of `{source}` ({adapter.kind}).",
    )
    def _snapshot(
        context: dg.AssetExecutionContext, config: SnapshotConfig, gpuprice: GpupriceResource
    ) -> dg.MaterializeResult:
        settings = gpuprice.settings()
        as_of = date.fromisoformat(config.as_of) if config.as_of else None
        with PoliteClient(settings.file.http, respect_robots=settings.profile == "live") as client:
            snapshot = collect(adapter, client, settings.source_url(source), utcnow(), as_of)
        summary = load_snapshot(
            settings.warehouse_path,
            snapshot,
            profile=settings.profile,
            run_id=f"{context.run.run_id}-{source}-{context.retry_number}",
        )
        context.log.info(summary.line())
        metadata = {
            "status": summary.status,
            "pages": summary.pages,
            "rows_added": summary.rows_added,
            "profile": settings.profile,
            "as_of": config.as_of or "latest",
            "error": summary.error or "",
        }
        if summary.status == "failed":
            raise dg.Failure(description=f"{source}: {summary.error}", metadata=metadata)
        return dg.MaterializeResult(metadata=metadata)

    return _snapshot


def table_asset(table: str, upstream: list[str]) -> dg.AssetsDefinition:
    @dg.asset(
        name=table,
        group_name="warehouse",
        deps=upstream,
        description=f"The `{table}` table of the DuckDB warehouse (row counts and freshness).",
    )
    def _table(gpuprice: GpupriceResource) -> dg.MaterializeResult:
        return dg.MaterializeResult(metadata=table_stats(gpuprice.settings().warehouse_path, table))

    return _table
