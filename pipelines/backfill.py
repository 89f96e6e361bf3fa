"""A backfill as one Dagster run: `gpuprice backfill --days N` and the first start's seeding
run ``backfill_job`` in-process in the instance the UI reads, and the UI's launchpad can run
one with the same config (``days``, or ``first_day`` .. ``last_day``).

One run loads every day (pipelines.backfill_days: fetch per source-day, the day loaded in
bulk, derived every few days, alerts walked and delivered), then records what it
materialised: each source's snapshot asset (its days, ok / failed, rows), the reference
data and FX rates, the derived tables, the serving copy and the alerts, with the outcome of
every source-day in the run's metadata. Its own job, not the history job's: a history
import is real rows with a ledger and raises no alert, a backfill is the demo's SIMULATED
days recorded as runs are (scrape_run per source-day, source health) and walks the watch
rules; what the two share is the bulk loader (warehouse.ingest.bulk).
"""

# No `from __future__ import annotations` here: Dagster reads the config and resource
# annotations at definition time and cannot resolve them from strings.

from collections.abc import Iterator
from datetime import date, timedelta

import dagster as dg

from pipelines.backfill_days import Backfill, BackfillProgress, QuietProgress
from pipelines.derived import INDEX_ASSET, SERVING_ASSET
from pipelines.resources import GpupriceResource, resource_from_environment
from warehouse.derive.metrics import DERIVED_TABLES
from warehouse.ingest.load import LoadSummary

BACKFILL_JOB = "backfill_job"
PROGRESS_RESOURCE = "backfill_progress"
# What the run's metadata quotes of a source-day's error (the run log has it whole).
ERROR_CHARS = 300
# The most source-days the run's outcome table lists (~400 days of 12 sources; a metadata
# entry is one event record): every failed one first, then the others in day order;
# scrape_run has them all.
TABLE_ROWS = 5000


class BackfillRequest(dg.Config):
    """The days to fill: ``days`` in the order to load them (a command's), else every day
    from ``first_day`` to ``last_day`` (YYYY-MM-DD), oldest first."""

    days: list[str] = []
    first_day: str | None = None
    last_day: str | None = None

    def day_list(self) -> list[date]:
        """The days, each once; ValueError saying what to give instead."""
        if self.days:
            listed = [date.fromisoformat(day) for day in self.days]
            return list(dict.fromkeys(listed))
        if not (self.first_day and self.last_day):
            raise ValueError("give `days`, or `first_day` and `last_day` (YYYY-MM-DD)")
        first, last = date.fromisoformat(self.first_day), date.fromisoformat(self.last_day)
        if first > last:
            raise ValueError(f"first_day {first} is after last_day {last}")
        return [first + timedelta(days=k) for k in range((last - first).days + 1)]


@dg.op(
    name="backfill_days",
    description="Fill past days of every enabled source (the demo market's SIMULATED days): "
    "fetch and parse each source-day, load each day in one transaction through the bulk path "
    "(scrape_run, source health, quarantine), derive every few days, walk the watch rules "
    "(alerts about past days are dated by their day and not sent) and deliver what is pending.",
)
def backfill_days(
    context: dg.OpExecutionContext,
    config: BackfillRequest,
    gpuprice: GpupriceResource,
    backfill_progress: dg.ResourceParam[BackfillProgress],
) -> Iterator[dg.AssetMaterialization | dg.Output]:
    try:
        days = config.day_list()
    except ValueError as exc:
        raise dg.Failure(description=f"backfill: {exc}") from None
    work = Backfill(gpuprice.settings(), gpuprice.redactor(), context.log, context.run_id)
    whole = work.run(days, backfill_progress)
    yield from materializations(work)
    loaded = [outcome for day in work.days for outcome in day.sources]
    failed = [
        f"{day.day} {outcome.line()}"
        for day in work.days
        for outcome in day.sources
        if outcome.status in ("failed", "partial")
    ]
    yield dg.Output(
        {"days": len(work.days), "whole": whole},
        metadata={
            "days": len(work.days),
            "days_asked": len(days),
            "stopped": "" if whole else f"stopped after {len(work.days)} of {len(days)} days",
            "source_days_ok": sum(o.status == "ok" for o in loaded),
            "source_days_failed": len(failed),
            "rows_added": sum(o.rows_added for o in loaded),
            "derives": work.derived.derives,
            "failed_source_days": "\n".join(failed),
            "outcomes": outcomes_table(loaded_days(work)),
            "outcomes_shown": f"{min(len(loaded), TABLE_ROWS)} of {len(loaded)} source-day(s)"
            + (" (every failed one; scrape_run has all)" if len(loaded) > TABLE_ROWS else ""),
        },
    )


def loaded_days(work: Backfill) -> list[tuple[date, LoadSummary]]:
    """The source-days the outcome table lists: at most TABLE_ROWS, every failed one."""
    every = [(day.day, outcome) for day in work.days for outcome in day.sources]
    if len(every) <= TABLE_ROWS:
        return every
    failed = [(d, o) for d, o in every if o.status != "ok"][:TABLE_ROWS]
    ok = [(d, o) for d, o in every if o.status == "ok"][: TABLE_ROWS - len(failed)]
    return sorted(failed + ok, key=lambda entry: (entry[0], entry[1].source))


def outcomes_table(entries: list[tuple[date, LoadSummary]]) -> dg.TableMetadataValue:
    """Source-days' outcomes, as the run's metadata shows them."""
    columns = [
        dg.TableColumn("day", "string"),
        dg.TableColumn("source", "string"),
        dg.TableColumn("status", "string"),
        dg.TableColumn("reason", "string"),
        dg.TableColumn("pages", "int"),
        dg.TableColumn("rows_added", "int"),
        dg.TableColumn("error", "string"),
    ]
    records = [
        dg.TableRecord(
            {
                "day": day.isoformat(),
                "source": o.source,
                "status": o.status,
                "reason": o.reason or "",
                "pages": o.pages,
                "rows_added": o.rows_added,
                "error": (o.error or "")[:ERROR_CHARS],
            }
        )
        for day, o in entries
    ]
    return dg.MetadataValue.table(records, dg.TableSchema(columns))


def materializations(work: Backfill) -> Iterator[dg.AssetMaterialization]:
    """What the backfill materialised, as the scrape job's assets would show it: one
    materialisation per asset for the whole run (not per day: each costs an event)."""
    span = f"{work.days[0].day} .. {work.days[-1].day}" if work.days else ""
    for asset, metadata in work.prepared.items():
        yield dg.AssetMaterialization(asset, metadata=metadata)
    for source, totals in work.per_source().items():
        yield dg.AssetMaterialization(
            f"{source}_snapshot",
            description=f"backfill of {totals['days']} day(s), {span}",
            metadata=totals | {"profile": work.settings.profile, "as_of": span},
        )
    derived = work.derived
    for table in DERIVED_TABLES:
        yield dg.AssetMaterialization(
            table,
            metadata={
                "rows_written": derived.rows[table],
                "offer_snapshots_derived": derived.offer_snapshots,
                "quote_snapshots_new": derived.quote_snapshots,
                "derives": derived.derives,
            },
        )
    yield dg.AssetMaterialization(
        INDEX_ASSET,
        metadata={"revisions_appended": derived.rows[INDEX_ASSET], "derives": derived.derives},
    )
    yield dg.AssetMaterialization(SERVING_ASSET, metadata={"serving_copy": derived.serving})
    delivery = derived.delivery
    yield dg.AssetMaterialization(
        "alert",
        metadata={
            "rules": derived.rules,
            "snapshot_steps": derived.steps,
            "new_alerts": len(derived.new_alerts),
            "delivery": delivery.line() if delivery else "",
        },
    )


@dg.job(
    name=BACKFILL_JOB,
    description="Fill past days of every enabled source in one run (gpuprice backfill, the "
    "first start's seeding): loaded in bulk, derived every few days, alerts walked; one "
    "materialisation per asset, every source-day's outcome in the run's metadata.",
    # Its own resources, so that the command can hand in its progress for one run;
    # gpuprice as in pipelines.definitions (GPUPRICE_* of the process that runs it).
    resource_defs={
        "gpuprice": resource_from_environment(),
        PROGRESS_RESOURCE: dg.ResourceDefinition.hardcoded_resource(QuietProgress()),
    },
)
def backfill_job() -> None:
    backfill_days()
