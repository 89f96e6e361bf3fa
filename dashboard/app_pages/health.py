"""Data health: per source its last success and its newest data, each by the moment the data is
about (a live run's time, a backfilled day) with the load time beside it (stale ones
highlighted), failures with their errors, rows per snapshot, the listings pages rejected, the
rows held in quarantine, and GPU names that map to no known card."""

from __future__ import annotations

import re
from datetime import datetime

import polars as pl
import streamlit as st

from dashboard import charts, data, history_data
from dashboard.data import settings, simulated_banner
from dashboard.i18n import relabel, t
from dashboard.tables import show
from warehouse.store.db import utcnow

STALE = "STALE"
FRESH = "fresh"


def freshness(
    health: pl.DataFrame, expected: list[str], now: datetime, hours: float
) -> pl.DataFrame:
    """One row per source (configured or seen in scrape_run): hours since the moment its
    last success is about (warehouse.read.stats.SOURCE_RUNS: a backfilled day counts as that
    day, not as when it was loaded) and whether that is past ``hours``; never scraped counts
    as stale."""
    known = pl.DataFrame({"source": expected}, schema={"source": pl.String})
    table = known.join(health, on="source", how="full", coalesce=True)
    age = (pl.lit(now) - pl.col("last_ok_at")).dt.total_seconds() / 3600
    return (
        table.with_columns(age.round(1).alias("hours_since_success"))
        .with_columns(
            pl.when(pl.col("last_ok_at").is_null() | (pl.col("hours_since_success") > hours))
            .then(pl.lit(STALE))
            .otherwise(pl.lit(FRESH))
            .alias("status")
        )
        .sort("source")
    )


# "fetch failed: http://host/path?x=1: ConnectError: refused": the URL (up to the ": " that
# ends it) is moved behind the reason, which a narrow column would otherwise cut off.
_URL = re.compile(r"(https?://\S+?)(?::\s+|\s*$)")


def reason_first(error: str | None) -> str | None:
    """An error message with what went wrong first and the URL it concerned last."""
    if not error:
        return error
    urls = _URL.findall(error)
    if not urls:
        return error
    reason = _URL.sub("", error).strip().rstrip(":").strip()
    return f"{reason} — {urls[0]}" if reason else error


def _highlight(row: object) -> list[str]:
    get = getattr(row, "get", lambda _key, _default=None: None)
    bad = get("status") == STALE or get("parser") == "broken"
    return ["background-color: #f8d7da" if bad else "" for _ in row]  # type: ignore[attr-defined]


def _moment(at: str, how: str) -> pl.Expr:
    """When a run's data is about: a live run's time, a backfilled day's date (its day is
    what it says, not the midnight it is stamped with)."""
    return (
        pl.when(pl.col(how) == "backfill")
        .then(pl.col(at).dt.strftime("%Y-%m-%d"))
        .otherwise(pl.col(at).dt.strftime("%Y-%m-%d %H:%M"))
    )


def _how(frame: pl.DataFrame, column: str) -> pl.Expr:
    return relabel(frame, column, lambda how: t(f"health.{how}"))


def _when(frame: pl.DataFrame, at: str, how: str) -> pl.Expr:
    """ "2026-12-03 18:05 · live run", "2026-12-02 · backfill": the moment and how it came."""
    return pl.concat_str([_moment(at, how), pl.lit(" · "), _how(frame, how)])


def _parsers(table: pl.DataFrame, parsers: pl.DataFrame | None, profile: str) -> pl.DataFrame:
    """Whether each source's pages still parse (the pipeline's drift check; a warehouse from
    before that check has no such table, and the page goes on without the column)."""
    if parsers is None:
        return table
    return table.join(
        parsers.filter(pl.col("profile") == profile).select(
            "source",
            pl.col("state").alias("parser"),
            pl.col("since").alias("parser_since"),
            pl.col("reason").alias("parser_problem"),
        ),
        on="source",
        how="left",
    )


def sources(health: pl.DataFrame, parsers: pl.DataFrame | None) -> None:
    """One row per source, few enough columns to read without scrolling: its state, its last
    success and its newest data (each the moment the data is about, and how it came), when
    that success was loaded; a broken parser's problem and every error are below."""
    config = settings()
    hours = config.file.thresholds.stale_after_hours
    now = utcnow()
    table = _parsers(
        freshness(health, list(config.enabled_sources()), now, hours), parsers, config.profile
    )
    st.subheader(t("health.sources", now=f"{now:%Y-%m-%d %H:%M}", hours=hours))
    st.caption(t("health.by_day"))
    ended = pl.col("last_status") + pl.when(pl.col("last_reason").is_not_null()).then(
        pl.lit(" (") + pl.col("last_reason").str.replace_all("_", " ") + pl.lit(")")
    ).otherwise(pl.lit(""))
    shown = table.select(
        "source",
        "status",
        *(["parser"] if "parser" in table.columns else []),
        _when(table, "last_ok_at", "last_ok_how").alias("last_success_utc"),
        pl.col("last_ok_loaded_at").dt.strftime("%Y-%m-%d %H:%M").alias("loaded_utc"),
        "hours_since_success",
        pl.concat_str([_when(table, "last_run_at", "last_run_how"), pl.lit(" · "), ended]).alias(
            "newest_data_utc"
        ),
        pl.col("failed_runs").alias("failed"),
    )
    show(shown, row_style=_highlight)
    for row in (
        table.filter(pl.col("parser") == "broken").to_dicts() if "parser" in table.columns else []
    ):
        since = row["parser_since"]
        st.warning(
            t(
                "health.broken",
                source=row["source"],
                since="—" if since is None else f"{since:%Y-%m-%d %H:%M}",
                problem=row["parser_problem"] or "—",
            )
        )
    stale = table.filter(pl.col("status") == STALE)["source"].to_list()
    if stale:
        st.warning(t("health.stale", names=", ".join(stale)))
    else:
        st.success(t("health.all_fresh", hours=hours))


def failures(failed: pl.DataFrame) -> None:
    st.subheader(t("health.failures"))
    if failed.is_empty():
        st.success(t("health.no_failures"))
        return
    show(
        failed.select(
            pl.col("finished_at").dt.strftime("%Y-%m-%d %H:%M").alias("finished_utc"),
            "source",
            "status",
            pl.col("error").map_elements(reason_first, return_dtype=pl.String),
            pl.col("as_of").alias("day_asked_for"),
            "pages",
            "rows",
        ),
        column_config={"error": st.column_config.TextColumn(width="large")},
    )


def snapshots(rows: pl.DataFrame) -> None:
    if rows.is_empty():
        return
    title = t("health.rows", n=rows.height)
    st.subheader(title)
    span = f"{rows['observed_at'].min():%Y-%m-%d %H:%M} – {rows['observed_at'].max():%Y-%m-%d %H:%M} UTC"
    st.altair_chart(
        charts.unchecked(charts.snapshot_rows(rows, f"{t('axis.rows')}, {span}")), width="stretch"
    )
    with st.expander(title):
        show(
            rows.with_columns(
                pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("observed_utc")
            ).select(
                "observed_utc",
                "source",
                pl.col("kind").alias("table"),
                "rows",
                pl.col("unknown_gpu").alias("unknown_cards"),
                pl.when(pl.col("simulated"))
                .then(pl.lit("SIMULATED"))
                .otherwise(pl.lit("real"))
                .alias("data"),
            ),
        )


def unknown(names: pl.DataFrame) -> None:
    """Card names no rule maps to a card: what a maintainer adds to scrapers/gpu_names.py."""
    total = int((names["loaded_rows"] + names["quarantine_rows"]).sum()) if names.height else 0
    st.subheader(t("health.unknown", n=total))
    if names.is_empty():
        st.success(t("health.no_unknown"))
        return
    show(
        names.select(
            "source",
            pl.col("gpu_name_raw").alias("name_as_listed"),
            pl.col("loaded_rows").alias("rows"),
            pl.col("quarantine_rows").alias("rows_held"),
            pl.col("first_seen").dt.strftime("%Y-%m-%d %H:%M").alias("first_seen_utc"),
            pl.col("last_seen").dt.strftime("%Y-%m-%d %H:%M").alias("last_seen_utc"),
        ),
    )


def rejected(rows: pl.DataFrame | None) -> None:
    """The listings pages rejected (the rest of each page loaded): where, why, an excerpt."""
    if rows is None:  # a warehouse from before rejected rows were kept
        return
    st.subheader(t("health.rejected", n=rows.height))
    if rows.is_empty():
        st.success(t("health.no_rejected"))
        return
    per_source = rows.group_by("source").agg(pl.col("source_total").first()).sort("source")
    st.caption(
        t(
            "health.rejected_by_source",
            counts=", ".join(f"{s} {n}" for s, n in per_source.iter_rows()),
        )
    )
    show(
        rows.select(
            pl.col("fetched_at").dt.strftime("%Y-%m-%d %H:%M").alias("fetched_utc"),
            "source",
            pl.col("position").alias("where_on_the_page"),
            "reason",
            pl.col("excerpt").alias("as_listed"),
            pl.col("stage").alias("refused_by"),
        ),
        column_config={
            "reason": st.column_config.TextColumn(width="large"),
            "as_listed": st.column_config.TextColumn(width="medium"),
        },
    )


def held(rows: pl.DataFrame) -> None:
    """Rows held in quarantine, with their reason and the command that decides them."""
    st.subheader(t("health.held", n=rows.height))
    if rows.is_empty():
        st.success(t("health.no_held"))
        return
    st.caption(t("health.held_how"))
    show(
        rows.select(
            pl.col("quarantine_id").alias("id"),
            pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M").alias("held_since_utc"),
            "source",
            pl.col("gpu_name_raw").alias("name_as_listed"),
            pl.col("reason_kind").alias("why"),
            "reason",
            pl.col("cny_per_card_hour").cast(pl.Float64).round(4),
            pl.col("baseline_cny_per_card_hour")
            .cast(pl.Float64)
            .round(4)
            .alias("last_accepted_cny_per_card_hour"),
        ),
        column_config={"reason": st.column_config.TextColumn(width="large")},
    )


def main() -> None:
    st.title(t("health.title"))
    simulated_banner()
    # every table of the page in one read of the warehouse
    tables = data.health(profile=settings().profile)
    if tables is None:
        return
    if tables["sources"].is_empty():
        st.info(t("health.no_runs"))
    sources(tables["sources"], tables["parsers"])
    failures(tables["failures"])
    snapshots(tables["snapshots"])
    rejected(tables["rejected"])
    held(tables["held"])
    unknown(tables["unknown"])
    history_data.imports_section()  # the history imports and their failures (coverage page)


main()
