"""The alert columns the alerts page and the monthly report both show, in one order, in the
page's language: what the alert is about (its watch rule named by card, line and usage, or
the broken scraper) and what happened in a few words, both rendered from the alert's stored
parameters (warehouse.derive.alert_text); the whole message is the alerts page's details."""

from __future__ import annotations

from typing import Any

import polars as pl

from dashboard.data import data_label
from dashboard.i18n import english, relabel, t
from warehouse.derive import alert_text
from warehouse.derive.metrics import CHEAPEST

KINDS = ("breakeven_shift", "mode_flip", "scraper_broken", "index_move")
# The rent modes a watch rule compares (alert.old_mode / new_mode, rule states).
MODES = ("hourly", "monthly", "bare_metal")


def page_lang() -> alert_text.Lang:
    return "en" if english() else "zh"


def kind_label(kind: str) -> str:
    """An alert kind in the page's language (an unknown kind as stored)."""
    return t(f"kind.{kind}") if kind in KINDS else kind


def mode_label(mode: str | None) -> str | None:
    """A rent mode (hourly, monthly, bare_metal) in the page's language."""
    return t(f"mode.{MODES.index(mode)}") if mode in MODES else mode


def line_label(source: str | None) -> str | None:
    """A breakeven line: a platform, or the lowest line across platforms by name."""
    return t("be.cheapest") if source == CHEAPEST else source


def rendered(alerts: pl.DataFrame) -> list[tuple[str, str, str]]:
    """(what, summary, message) of each alert in the page's language, made here on the
    script's thread (the language is the session's: see dashboard.i18n.relabel)."""
    lang = page_lang()
    columns = [c for c in ("kind", "params", "rule", "message") if c in alerts.columns]
    return [alert_text.render(row, lang) for row in alerts.select(columns).to_dicts()]


def delivery_labels(alerts: pl.DataFrame) -> pl.Series:
    """Where each alert's delivery stands, in the page's language."""
    lang = page_lang()
    columns = [
        c for c in ("superseded", "not_sent", "delivered_at", "attempts") if c in alerts.columns
    ]
    rows: list[dict[str, Any]] = alerts.select(columns).to_dicts()
    return pl.Series("delivery", [alert_text.delivery_text(row, lang) for row in rows], pl.String)


def _summaries(alerts: pl.DataFrame, words: list[tuple[str, str, str]]) -> list[str]:
    """What happened; a broken scraper that loaded again says when (its summary is of the
    break, its resolution a fact stored beside it)."""
    resolved = alerts["resolved_at"] if "resolved_at" in alerts.columns else None
    out = []
    for k, (_, summary, _) in enumerate(words):
        at = resolved[k] if resolved is not None else None
        out.append(
            summary
            if at is None
            else f"{summary}; {t('alerts.resolved_short', at=f'{at:%Y-%m-%d %H:%M}')}"
        )
    return out


def alert_table(alerts: pl.DataFrame, *more: str | pl.Expr | pl.Series) -> pl.DataFrame:
    """``alerts`` (warehouse.read.metrics.alerts' columns) as a table: when, what kind, what
    it is about and what happened, in the page's language, then ``more`` and provenance."""
    words = rendered(alerts)
    return alerts.with_columns(
        pl.Series("what", [w[0] for w in words], pl.String),
        pl.Series("summary", _summaries(alerts, words), pl.String),
    ).select(
        pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M").alias("created_utc"),
        relabel(alerts, "kind", kind_label).alias("kind"),
        "what",
        "summary",
        *more,
        data_label(),
    )
