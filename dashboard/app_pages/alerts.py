"""Alerts: the procurement alert feed with filters, and the watch rules in force."""

from __future__ import annotations

import polars as pl
import streamlit as st

from configuration.errors import ConfigError
from dashboard import data
from dashboard.alert_table import KINDS, alert_table, mode_label
from dashboard.data import settings, simulated_banner
from dashboard.i18n import both, card_label, labels, relabel, t
from dashboard.tables import show

DELIVERY = ("all", "delivered", "pending")
# Alerts about a source rather than a card (e.g. a broken scraper) have no card: they are
# listed and filtered under this name instead of vanishing behind the card filter.
NO_CARD = "—"


def feed(alerts: pl.DataFrame | None) -> None:
    if alerts is None:
        return
    if alerts.is_empty():
        st.info(t("alerts.none"))
        return
    alerts = alerts.with_columns(pl.col("gpu").fill_null(NO_CARD))
    kinds = sorted(alerts["kind"].drop_nulls().unique().to_list())
    cards = sorted(alerts["gpu"].unique().to_list())
    rules = sorted(alerts["rule"].drop_nulls().unique().to_list())
    first = alerts["created_at"].min().date()
    with st.expander(t("filters"), expanded=True):
        a, b, c = st.columns(3)
        kind = a.multiselect(
            t("alerts.kind"),
            kinds,
            default=kinds,
            format_func=labels(kinds, lambda k: both(f"kind.{k}") if k in KINDS else k),
            placeholder=t("choose"),
            key="al_kind",
        )
        card = b.multiselect(
            t("f.cards"),
            cards,
            default=cards,
            format_func=labels(
                cards, lambda c: both("alerts.no_card") if c == NO_CARD else card_label(c)
            ),
            placeholder=t("choose"),
            key="al_cards",
        )
        rule = c.multiselect(
            t("alerts.rule"), rules, default=rules, placeholder=t("choose"), key="al_rules"
        )
        d, e = st.columns(2)
        since = d.date_input(t("alerts.since"), value=first, key="al_since")
        delivery = e.radio(
            t("alerts.delivery"),
            DELIVERY,
            format_func=labels(DELIVERY, lambda v: both(f"alerts.{v}")),
            horizontal=True,
            key="al_delivery",
        )
    shown = alerts.filter(
        pl.col("kind").is_in(kind),
        pl.col("gpu").is_in(card),
        pl.col("rule").is_in(rule),
        pl.col("created_at").dt.date() >= since,
    )
    if delivery == "delivered":
        shown = shown.filter(pl.col("delivered_at").is_not_null())
    elif delivery == "pending":  # waiting to go out: an alert about history never goes
        shown = shown.filter(pl.col("delivered_at").is_null(), pl.col("not_sent").is_null())
    st.subheader(t("alerts.feed", n=shown.height))
    if shown.is_empty():
        st.info(t("empty.filters"))
        return
    show(
        alert_table(
            shown.with_columns(pl.col("gpu").replace(NO_CARD, None)),
            relabel(shown, "old_mode", mode_label).alias("from mode"),
            relabel(shown, "new_mode", mode_label).alias("to mode"),
            pl.col("new_observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("snapshot (UTC)"),
            pl.col("delivered_at").dt.strftime("%Y-%m-%d %H:%M").alias("delivered (UTC)"),
            pl.col("attempts").alias("delivery attempts"),
            pl.col("last_error").alias("last delivery error"),
            pl.col("not_sent").alias("not sent"),
            pl.col("resolved_at").dt.strftime("%Y-%m-%d %H:%M").alias("resolved (UTC)"),
            "resolution",
        ),
        translate=True,
    )


def targets() -> None:
    """Whether the alerts go anywhere: with no notification target they are only listed
    here (pending), and the page says how to add one. The URLs are secrets: only counted."""
    try:
        count = len(settings().notify_urls())
    except (ConfigError, OSError) as exc:
        st.warning(t("alerts.targets_unreadable", error=str(exc)))
        return
    if count:
        st.caption(t("alerts.targets", n=count))
    else:
        st.warning(t("alerts.no_target"))


def watch_rules(states: pl.DataFrame | None) -> None:
    st.subheader(t("alerts.rules"))
    rules = settings().file.alerts.rules
    if not rules:
        st.info(t("alerts.no_rules"))
        return
    table = pl.DataFrame(
        [
            {
                "rule": r.name,
                "card": card_label(r.gpu),
                "line": r.source or t("be.cheapest"),
                "usage h/month": r.usage_hours,
                "against": mode_label(r.against),
                "threshold": f"{r.threshold_hours:g} h"
                if r.threshold_hours is not None
                else f"{r.threshold_pct:g} %",
                "hysteresis h": r.hysteresis_hours,
            }
            for r in rules
        ]
    )
    # Where each rule stands, when the pipeline has evaluated it; rules are shown anyway.
    if states is not None and not states.is_empty():
        table = table.join(
            states.select(
                "rule",
                relabel(states, "mode", mode_label).alias("cheaper mode now"),
                pl.col("last_value").round(1).alias("breakeven now h"),
                pl.col("last_observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("as of (UTC)"),
            ),
            on="rule",
            how="left",
        )
    show(table, translate=True)


def main() -> None:
    st.title(t("alerts.title"))
    simulated_banner()
    targets()
    tables = data.alert_feed()  # the feed and the rules' states in one read
    feed(tables["alerts"] if tables is not None else None)
    watch_rules(tables["rules"] if tables is not None else None)


main()
