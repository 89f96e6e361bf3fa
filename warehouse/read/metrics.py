"""Read-only views of the derived tables and alerts, for the CLI, the dashboard, the
Dagster asset checks and SQL users. Every function opens the warehouse read-only, per query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import polars as pl

from scrapers.rows import HOURS_PER_MONTH
from warehouse.derive.metrics import CHEAPEST
from warehouse.read.batch import WAIT_S
from warehouse.store.db import read_connection, read_frame
from warehouse.store.handle import Warehouse
from warehouse.store.serving import BREAKEVEN_DAILY, read_served, serving_connection

BREAKEVEN_COLUMNS = (
    "observed_at, source, gpu, scope, bare_metal_cny_per_card_month, list_cny_per_card_hour, "
    "monthly_cny_per_card_hour, breakeven_hours_vs_hourly, breakeven_hours_vs_monthly, "
    "reason_vs_hourly, reason_vs_monthly, bare_metal_offer, hourly_offer, monthly_offer, simulated"
)


def latest_breakeven(warehouse: Warehouse, gpu: str | None = None) -> pl.DataFrame:
    """The newest breakeven row of every line (platform or cheapest) and card (from the
    serving copy when there is one: warehouse.store.serving)."""
    return read_served(
        warehouse,
        f"""
        SELECT {BREAKEVEN_COLUMNS} FROM breakeven{{latest}}
        WHERE $gpu IS NULL OR gpu = $gpu
        QUALIFY row_number() OVER (PARTITION BY source, gpu ORDER BY observed_at DESC) = 1
        ORDER BY gpu, scope DESC, source
        """,
        {"gpu": gpu},
    )


BREAKEVEN_HISTORY = f"""
    SELECT {BREAKEVEN_COLUMNS} FROM breakeven
    WHERE ($gpu IS NULL OR gpu = $gpu) AND ($source IS NULL OR source = $source)
    ORDER BY gpu, source, observed_at
"""


def breakeven_history(
    warehouse: Warehouse, gpu: str | None = None, source: str | None = None
) -> pl.DataFrame:
    """Every snapshot's breakeven: the breakeven trend."""
    return read_frame(warehouse, BREAKEVEN_HISTORY, {"gpu": gpu, "source": source})


def line_history(
    warehouse: Warehouse, gpu: str, source: str, snapshots: bool, wait_s: float = WAIT_S
) -> dict[str, pl.DataFrame | None]:
    """The breakeven page's history of one line, read in one connection (one wait for the
    lock while the pipeline writes): every snapshot's breakeven when ``snapshots`` (else
    None: the page draws the serving copy's daily means) and the alerts about the line."""
    with read_connection(warehouse, wait_s=wait_s) as con:
        history = None
        if snapshots:
            history = con.sql(BREAKEVEN_HISTORY, params={"gpu": gpu, "source": source}).pl()
        marks = _alerts(con, None).filter(pl.col("gpu") == gpu, pl.col("source") == source)
    return {"history": history, "alerts": marks}


def breakeven_daily(warehouse: Warehouse, gpu: str, source: str) -> pl.DataFrame:
    """One line's breakeven per day: the mean over that day's snapshots (``observed_at`` at
    midnight UTC) and how many there were: the breakeven trend over a long history, from
    the serving copy when there is one (warehouse.store.serving)."""
    params = {"gpu": gpu, "source": source}
    select = (
        "SELECT day::TIMESTAMP AS observed_at, breakeven_hours_vs_hourly, "
        "breakeven_hours_vs_monthly, simulated, snapshots FROM {table} "
        "WHERE gpu = $gpu AND source = $source ORDER BY day"
    )
    with serving_connection(warehouse) as served:
        if served is not None:
            return served[0].sql(select.format(table="breakeven_daily"), params=params).pl()
    daily = BREAKEVEN_DAILY.format(where="gpu = $gpu AND source = $source")
    return read_frame(warehouse, select.format(table=f"({daily})"), params)


COST_MODES = ("hourly container", "monthly-plan container", "bare metal")


def cost_lines_for(
    bare_metal_cny_per_card_month: float | None,
    list_cny_per_card_hour: float | None,
    monthly_cny_per_card_hour: float | None,
    step: int = 1,
) -> pl.DataFrame:
    """Monthly cost per card against usage hours 0–720 for each mode that has a price.

    As seed 003 §六 counts it: a container costs usage × its hourly rate (listed, or the
    monthly plan's per-hour rate), bare metal costs its per-card month whatever the usage.
    The lines cross at the breakeven hours. Columns: usage_hours, mode, cny_per_card_month.
    """
    hours = list(range(0, HOURS_PER_MONTH + 1, step))
    if hours[-1] != HOURS_PER_MONTH:
        hours.append(HOURS_PER_MONTH)
    frames = []
    for mode, rate, flat in (
        (COST_MODES[0], list_cny_per_card_hour, None),
        (COST_MODES[1], monthly_cny_per_card_hour, None),
        (COST_MODES[2], None, bare_metal_cny_per_card_month),
    ):
        if rate is None and flat is None:
            continue
        costs = [float(flat) if flat is not None else h * float(rate) for h in hours]
        frames.append(
            pl.DataFrame(
                {"usage_hours": hours, "mode": [mode] * len(hours), "cny_per_card_month": costs},
                schema={
                    "usage_hours": pl.Int64,
                    "mode": pl.String,
                    "cny_per_card_month": pl.Float64,
                },
            )
        )
    if not frames:
        return pl.DataFrame(
            schema={"usage_hours": pl.Int64, "mode": pl.String, "cny_per_card_month": pl.Float64}
        )
    return pl.concat(frames)


def cost_lines(
    warehouse: Warehouse,
    gpu: str,
    source: str = CHEAPEST,
    at: datetime | None = None,
    step: int = 1,
) -> pl.DataFrame:
    """The cost lines of one card on one line (a platform, or ``"cheapest"``) at its newest
    snapshot at or before ``at`` (default: newest), with that snapshot's breakeven hours.

    Columns: observed_at, source, gpu, usage_hours, mode, cny_per_card_month,
    breakeven_hours_vs_hourly, breakeven_hours_vs_monthly, simulated. Empty if no snapshot.
    """
    row = read_frame(
        warehouse,
        f"""
        SELECT {BREAKEVEN_COLUMNS} FROM breakeven
        WHERE gpu = $gpu AND source = $source AND ($at IS NULL OR observed_at <= $at)
        ORDER BY observed_at DESC LIMIT 1
        """,
        {"gpu": gpu, "source": source, "at": at},
    )
    if row.is_empty():
        return pl.DataFrame()
    r = row.row(0, named=True)

    def num(value: Any) -> float | None:
        return None if value is None else float(value)

    lines = cost_lines_for(
        num(r["bare_metal_cny_per_card_month"]),
        num(r["list_cny_per_card_hour"]),
        num(r["monthly_cny_per_card_hour"]),
        step,
    )
    return lines.with_columns(
        pl.lit(r["observed_at"]).alias("observed_at"),
        pl.lit(r["source"]).alias("source"),
        pl.lit(r["gpu"]).alias("gpu"),
        pl.lit(r["breakeven_hours_vs_hourly"], dtype=pl.Float64).alias("breakeven_hours_vs_hourly"),
        pl.lit(r["breakeven_hours_vs_monthly"], dtype=pl.Float64).alias(
            "breakeven_hours_vs_monthly"
        ),
        pl.lit(r["simulated"]).alias("simulated"),
    ).select(
        "observed_at",
        "source",
        "gpu",
        "usage_hours",
        "mode",
        "cny_per_card_month",
        "breakeven_hours_vs_hourly",
        "breakeven_hours_vs_monthly",
        "simulated",
    )


def _latest(table: str, partition: str) -> str:
    return (
        f"SELECT * FROM {table} QUALIFY row_number() OVER "
        f"(PARTITION BY {partition} ORDER BY observed_at DESC) = 1"
    )


def latest_card_value(warehouse: Warehouse) -> pl.DataFrame:
    return read_frame(
        warehouse, _latest("card_value", "source, gpu, billing") + " ORDER BY gpu, source, billing"
    )


def latest_monthly_discount(warehouse: Warehouse) -> pl.DataFrame:
    return read_frame(
        warehouse, _latest("monthly_discount", "source, offer_id, term") + " ORDER BY gpu, source"
    )


def latest_market_premium(warehouse: Warehouse) -> pl.DataFrame:
    return read_frame(
        warehouse,
        _latest("market_premium", "source, offer_id, billing") + " ORDER BY gpu, source, billing",
    )


# Columns of migrations 010 (a scraper_broken alert's resolution; why an alert about
# history is never sent) and 016 (what the message says, as data; why an alert no longer
# stands), NULL when a reader meets a warehouse no writer has upgraded yet.
LATER_COLUMNS = {
    "resolved_at": "TIMESTAMP",
    "resolution": "VARCHAR",
    "not_sent": "VARCHAR",
    "params": "VARCHAR",
    "superseded": "VARCHAR",
}


def alerts(
    warehouse: Warehouse, since: datetime | None = None, *, include_superseded: bool = False
) -> pl.DataFrame:
    """Alerts created at or after ``since`` (all when None), newest first, with their
    resolution, why one was not sent, and their parameters (warehouse.derive.alert_text).
    An alert a rule's later walk no longer gives (``superseded``) only when asked for."""
    with read_connection(warehouse) as con:
        return _alerts(con, since, include_superseded)


RULE_STATES = """
    SELECT rule, last_observed_at, last_value, baseline_observed_at, baseline_value, mode,
           updated_at
    FROM alert_rule_state ORDER BY rule
"""


def alert_feed(warehouse: Warehouse, wait_s: float = WAIT_S) -> dict[str, pl.DataFrame | None]:
    """The alerts page's tables in one connection (one wait for the lock while the pipeline
    writes): ``alerts`` (as ``alerts``, the superseded ones too: the page offers them) and
    ``rules``, where each watch rule stands (alert_rule_state: its cursor, baseline and mode;
    None before migration 002 made it)."""
    with read_connection(warehouse, wait_s=wait_s) as con:
        feed = _alerts(con, None, include_superseded=True)
        try:
            rules = con.sql(RULE_STATES).pl()
        except duckdb.CatalogException:
            rules = None
    return {"alerts": feed, "rules": rules}


def _alerts(
    con: duckdb.DuckDBPyConnection, since: datetime | None, include_superseded: bool = False
) -> pl.DataFrame:
    present = set(con.sql("SELECT * FROM alert LIMIT 0").columns)
    later = ", ".join(
        name if name in present else f"NULL::{kind} AS {name}"
        for name, kind in LATER_COLUMNS.items()
    )
    standing = "AND superseded IS NULL" if "superseded" in present else ""
    return con.sql(
        f"""
        SELECT alert_id, created_at, kind, rule, gpu, source, old_value, new_value, message,
               delivered_at, attempts, last_error, against, usage_hours, old_mode, new_mode,
               old_observed_at, new_observed_at, old_bare_metal_cny_per_card_month,
               new_bare_metal_cny_per_card_month, old_container_cny_per_card_hour,
               new_container_cny_per_card_hour, new_offers, simulated, {later}
        FROM alert
        WHERE ($since IS NULL OR created_at >= $since) {"" if include_superseded else standing}
        ORDER BY created_at DESC, new_observed_at DESC, alert_id
        """,
        params={"since": since},
    ).pl()


# -- checks on the derived tables (the Dagster asset checks call these) ---------------------


@dataclass
class CheckOutcome:
    passed: bool
    failing_rows: int
    examples: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def _outcome(warehouse: Warehouse, sql: str, describe: str, **metadata: Any) -> CheckOutcome:
    frame = read_frame(warehouse, sql)
    examples = [describe.format(**row) for row in frame.head(10).iter_rows(named=True)]
    return CheckOutcome(frame.is_empty(), frame.height, examples, metadata)


def check_card_value(warehouse: Warehouse) -> CheckOutcome:
    """No zero, negative, non-finite or missing price per card, TFLOP, GB or TB/s."""
    return _outcome(
        warehouse,
        """
        SELECT source, gpu, billing, observed_at, cny_per_card_hour, cny_per_tflop_hour
        FROM card_value
        WHERE cny_per_card_hour <= 0
           OR NOT coalesce(isfinite(cny_per_tflop_hour) AND cny_per_tflop_hour > 0
                       AND isfinite(cny_per_gb_hour) AND cny_per_gb_hour > 0
                       AND isfinite(cny_per_tbps_hour) AND cny_per_tbps_hour > 0, false)
        ORDER BY observed_at DESC
        """,
        "{source} {gpu} {billing} at {observed_at}: {cny_per_card_hour} CNY/card-hour, "
        "{cny_per_tflop_hour} CNY/TFLOP-hour",
    )


def check_breakeven(warehouse: Warehouse) -> CheckOutcome:
    """Breakeven finite and positive where given, a reason where not, prices positive."""
    return _outcome(
        warehouse,
        """
        SELECT source, gpu, observed_at, breakeven_hours_vs_hourly AS h,
               breakeven_hours_vs_monthly AS m, reason_vs_hourly, reason_vs_monthly
        FROM breakeven
        WHERE (breakeven_hours_vs_hourly IS NOT NULL
               AND NOT (isfinite(breakeven_hours_vs_hourly) AND breakeven_hours_vs_hourly > 0))
           OR (breakeven_hours_vs_monthly IS NOT NULL
               AND NOT (isfinite(breakeven_hours_vs_monthly) AND breakeven_hours_vs_monthly > 0))
           OR (breakeven_hours_vs_hourly IS NULL AND reason_vs_hourly IS NULL)
           OR (breakeven_hours_vs_monthly IS NULL AND reason_vs_monthly IS NULL)
           OR bare_metal_cny_per_card_month <= 0 OR list_cny_per_card_hour <= 0
           OR monthly_cny_per_card_hour <= 0
        ORDER BY observed_at DESC
        """,
        "{source} {gpu} at {observed_at}: vs hourly {h} ({reason_vs_hourly}), "
        "vs monthly {m} ({reason_vs_monthly})",
    )


def check_discount_range(warehouse: Warehouse) -> CheckOutcome:
    """Computed monthly ÷ list ratio in (0, 1.2]."""
    return _outcome(
        warehouse,
        """
        SELECT source, gpu, offer_id, observed_at, discount_ratio FROM monthly_discount
        WHERE NOT (isfinite(discount_ratio) AND discount_ratio > 0 AND discount_ratio <= 1.2)
        ORDER BY observed_at DESC
        """,
        "{source} {gpu} ({offer_id}) at {observed_at}: ratio {discount_ratio}",
    )


def check_discount_stated(warehouse: Warehouse) -> CheckOutcome:
    """The discount a page states agrees with its own prices, in each source's newest snapshot.

    A disagreement is reported (WARN), never corrected: seed 003 prints 95折 / 93折 for the
    4090 / 910B while its prices give 0.80.
    """
    outcome = _outcome(
        warehouse,
        """
        WITH newest AS (
            SELECT * FROM monthly_discount
            QUALIFY observed_at = max(observed_at) OVER (PARTITION BY source)
        )
        SELECT source, gpu, offer_id, observed_at, discount_label,
               round(stated_discount::DOUBLE, 4) AS stated, round(discount_ratio, 4) AS computed,
               round(list_cny_per_card_hour::DOUBLE, 4) AS list,
               round(monthly_cny_per_card_hour::DOUBLE, 4) AS monthly
        FROM newest WHERE disagrees ORDER BY source, gpu
        """,
        "{source} {gpu} at {observed_at}: states {discount_label} ({stated}) but "
        "{monthly} / {list} = {computed}",
    )
    history = read_frame(
        warehouse,
        "SELECT count(*) FILTER (WHERE disagrees) AS n, count(*) AS total FROM monthly_discount",
    ).row(0)
    outcome.metadata = {"disagreeing_rows_in_history": int(history[0]), "rows": int(history[1])}
    return outcome


def check_market_premium(warehouse: Warehouse) -> CheckOutcome:
    """Quotes positive and premium ratios finite."""
    return _outcome(
        warehouse,
        """
        SELECT source, offer_id, billing, observed_at, quote_cny_per_card_hour, premium_ratio
        FROM market_premium
        WHERE NOT (quote_cny_per_card_hour > 0 AND isfinite(premium_ratio))
        ORDER BY observed_at DESC
        """,
        "{source} {offer_id} {billing} at {observed_at}: quote {quote_cny_per_card_hour}, "
        "premium {premium_ratio}",
    )
