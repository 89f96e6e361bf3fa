"""The history imports on the dashboard: their queries (read through ``page_query`` as every
query of the pages is) and the listing of the imports and their failures, which the coverage
page and the data-health page both show (a page module cannot be imported by another: it
draws itself when imported)."""

from __future__ import annotations

import polars as pl
import streamlit as st

import warehouse.read.history
from dashboard.data import page_query
from dashboard.i18n import t
from dashboard.tables import show

# Quiet: a warehouse from before migration 009 has no history tables; the pages say "no
# imports yet" instead of "not computed".
coverage = page_query(warehouse.read.history.coverage)
coverage_weeks = page_query(warehouse.read.history.coverage_weeks)
imports = page_query(warehouse.read.history.imports, quiet=True)
import_failures = page_query(warehouse.read.history.import_failures, quiet=True)


def imports_table(found: pl.DataFrame) -> pl.DataFrame:
    return found.select(
        pl.col("started_at").dt.strftime("%Y-%m-%d %H:%M").alias("started_utc"),
        "kind",
        "source",
        pl.col("target").alias("archived_what"),
        "status",
        "listed",
        "kept",
        "fetched",
        pl.col("reused").alias("already_archived"),
        "parsed",
        "failed",
        "rows_added",
        pl.col("first_day").alias("first_day_utc"),
        pl.col("last_day").alias("last_day_utc"),
        pl.col("fx_note").alias("fx"),
        pl.col("dagster_run_id").alias("dagster_run"),
    )


def failures_table(found: pl.DataFrame) -> pl.DataFrame:
    return found.select(
        pl.col("loaded_at").dt.strftime("%Y-%m-%d %H:%M").alias("recorded_utc"),
        "kind",
        "source",
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("captured_utc"),
        pl.col("origin").alias("archive_url_or_origin"),
        "reason",
        "error",
        pl.when(pl.col("retry")).then(pl.lit("yes")).otherwise(pl.lit("no")).alias("retried_next"),
    )


def imports_section() -> None:
    """The history imports, newest first, and the captures they could not load."""
    st.subheader(t("cov.imports"))
    found = imports()
    if found is None or found.is_empty():
        st.info(t("cov.no_imports"))
        return
    show(imports_table(found))
    failed = import_failures()
    if failed is None:
        return
    st.subheader(t("cov.failures", n=failed.height))
    if failed.is_empty():
        st.success(t("cov.no_failures"))
        return
    show(failures_table(failed))
