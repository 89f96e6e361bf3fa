"""The alert columns the alerts page and the monthly report both show, in one order."""

from __future__ import annotations

import polars as pl

from dashboard.data import data_label


def alert_table(alerts: pl.DataFrame, *more: str | pl.Expr) -> pl.DataFrame:
    """``alerts`` (warehouse.read.metrics.alerts' columns) as a table: when, what, which
    card and line, the move in hours per month, then ``more``, the message and provenance."""
    return alerts.select(
        pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M").alias("created (UTC)"),
        "kind",
        "rule",
        pl.col("gpu").alias("card"),
        pl.col("source").alias("line"),
        pl.col("old_value").round(1).alias("from h/month"),
        pl.col("new_value").round(1).alias("to h/month"),
        *more,
        "message",
        data_label(),
    )
