"""The alert columns the alerts page and the monthly report both show, in one order."""

from __future__ import annotations

import polars as pl

from dashboard.data import data_label
from dashboard.i18n import card_label, relabel, t
from warehouse.derive.metrics import CHEAPEST

KINDS = ("breakeven_shift", "mode_flip", "scraper_broken", "index_move")
# The rent modes a watch rule compares (alert.old_mode / new_mode, rule states).
MODES = ("hourly", "monthly", "bare_metal")


def kind_label(kind: str) -> str:
    """An alert kind in the page's language (an unknown kind as stored)."""
    return t(f"kind.{kind}") if kind in KINDS else kind


def mode_label(mode: str | None) -> str | None:
    """A rent mode (hourly, monthly, bare_metal) in the page's language."""
    return t(f"mode.{MODES.index(mode)}") if mode in MODES else mode


def line_label(source: str | None) -> str | None:
    """A breakeven line: a platform, or the lowest line across platforms by name."""
    return t("be.cheapest") if source == CHEAPEST else source


def _hours(alerts: pl.DataFrame, column: str) -> pl.Expr:
    return pl.when(pl.col("kind") != "index_move").then(pl.col(column).round(1))


def alert_table(alerts: pl.DataFrame, *more: str | pl.Expr) -> pl.DataFrame:
    """``alerts`` (warehouse.read.metrics.alerts' columns) as a table: when, what, which
    card and line, the move in hours per month, then ``more``, the message and provenance."""
    return alerts.select(
        pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M").alias("created (UTC)"),
        relabel(alerts, "kind", kind_label).alias("kind"),
        "rule",
        pl.col("gpu").map_elements(card_label, return_dtype=pl.String).alias("card"),
        relabel(alerts, "source", line_label).alias("line"),
        # an index move's values are CNY per card-hour (its message says them): not hours
        _hours(alerts, "old_value").alias("from h/month"),
        _hours(alerts, "new_value").alias("to h/month"),
        *more,
        "message",
        data_label(),
    )
