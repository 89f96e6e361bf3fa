"""Alerts: the procurement alert feed in the page's language (filters; one line per alert;
the selected alert in full below it), and the watch rules in force."""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import streamlit as st

from configuration.errors import ConfigError
from dashboard import data
from dashboard.alert_table import (
    KINDS,
    alert_table,
    delivery_labels,
    kind_label,
    mode_label,
    page_lang,
)
from dashboard.data import settings, simulated_banner
from dashboard.i18n import card_label, labels, relabel, t
from dashboard.tables import show
from warehouse.derive import alert_text
from warehouse.derive.metrics import CHEAPEST

DELIVERY = ("all", "delivered", "pending")
# Alerts about a source rather than a card (e.g. a broken scraper) have no card: they are
# listed and filtered under this name instead of vanishing behind the card filter.
NO_CARD = "—"
_MARKDOWN = re.compile(r"([\\*_\[\]<>#|~])")
FEED_WIDTHS = {
    "created_utc": 125,
    "kind": 110,  # "breakeven shift", "scraper broken" whole
    "what": 200,
    "summary": 270,
    "delivery": 95,
    "data": 75,
}


def _rule_choice(alerts: pl.DataFrame) -> dict[str, str]:
    """Each rule's label in the rule filter: its card, line and usage hours."""
    found: dict[str, str] = {}
    for row in alerts.select("rule", "kind", "gpu", "source", "usage_hours").to_dicts():
        if row["rule"] in found:
            continue
        if row["kind"] == "scraper_broken" or row["usage_hours"] is None:
            found[row["rule"]] = f"{row['source']} · {t('kind.scraper_broken')}"
            continue
        line = t("be.cheapest") if row["source"] == CHEAPEST else row["source"]
        found[row["rule"]] = f"{card_label(row['gpu'])} · {line} · {row['usage_hours']:g} h"
    return found


def _filtered(alerts: pl.DataFrame, every: pl.DataFrame) -> pl.DataFrame:
    """``alerts`` as the filters choose; the choices are of ``every`` alert, superseded ones
    too, so that a choice stays when those are shown or hidden."""
    kinds = sorted(every["kind"].drop_nulls().unique().to_list())
    cards = sorted(every["gpu"].unique().to_list())
    choice = _rule_choice(every)
    rules = sorted(choice, key=choice.__getitem__)
    # Closed at first (every alert is chosen): open, the filters pushed the feed below the
    # first screen at 1400×900.
    with st.expander(t("filters"), expanded=False):
        a, b, c = st.columns(3)
        kind = a.multiselect(
            t("alerts.kind"),
            kinds,
            default=kinds,
            format_func=labels(kinds, lambda k: t(f"kind.{k}") if k in KINDS else k),
            placeholder=t("choose"),
            key="al_kind",
        )
        card = b.multiselect(
            t("f.cards"),
            cards,
            default=cards,
            format_func=labels(
                cards, lambda c: t("alerts.no_card") if c == NO_CARD else card_label(c)
            ),
            placeholder=t("choose"),
            key="al_cards",
        )
        rule = c.multiselect(
            t("alerts.rule"),
            rules,
            default=rules,
            format_func=labels(rules, choice.__getitem__),
            placeholder=t("choose"),
            key="al_rules",
        )
        d, e = st.columns(2)
        since = d.date_input(
            t("alerts.since"), value=alerts["created_at"].min().date(), key="al_since"
        )
        delivery = e.radio(
            t("alerts.delivery"),
            DELIVERY,
            format_func=labels(DELIVERY, lambda v: t(f"alerts.{v}")),
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
        return shown.filter(pl.col("delivered_at").is_not_null())
    if delivery == "pending":  # waiting to go out: one about history, or superseded, never goes
        return shown.filter(
            pl.col("delivered_at").is_null(),
            pl.col("not_sent").is_null(),
            pl.col("superseded").is_null(),
        )
    return shown


def feed(alerts: pl.DataFrame | None) -> None:
    if alerts is None:
        return
    if alerts.is_empty():
        st.info(t("alerts.none"))
        return
    every = alerts = alerts.with_columns(pl.col("gpu").fill_null(NO_CARD))
    taken_back = alerts.filter(pl.col("superseded").is_not_null()).height
    if not taken_back or not st.checkbox(
        t("alerts.show_superseded", n=taken_back), key="al_superseded"
    ):
        alerts = alerts.filter(pl.col("superseded").is_null())
    if alerts.is_empty():
        st.info(t("alerts.none"))
        return
    shown = _filtered(alerts, every)
    st.subheader(t("alerts.feed", n=shown.height))
    if shown.is_empty():
        st.info(t("empty.filters"))
        return
    shown = shown.with_columns(pl.col("gpu").replace(NO_CARD, None))
    picked = show(
        alert_table(shown, delivery_labels(shown)),
        key="al_feed",
        on_select="rerun",
        selection_mode="single-row",
        # widths in pixels that fit the page at 1400 px without an inner scroll; a cell cut
        # short is read in full in the details below
        column_config={
            name: st.column_config.TextColumn(width=px) for name, px in FEED_WIDTHS.items()
        },
    )
    rows = picked.selection.rows if picked is not None else []
    details(shown.row(rows[0] if rows else 0, named=True))


def _plain(text: str) -> str:
    """Text shown as it is, not read as Markdown (an error may hold * _ < or |)."""
    return _MARKDOWN.sub(r"\\\1", text)


def details(row: dict[str, Any]) -> None:
    """One alert in full, in the page's language, with where it came from and where its
    delivery stands."""
    lang = page_lang()
    what, _, message = alert_text.render(row, lang)
    notes = [t("alerts.state", state=alert_text.delivery_text(row, lang))]
    if row.get("old_observed_at") is not None:
        notes.append(
            t(
                "alerts.snapshots",
                new=f"{row['new_observed_at']:%Y-%m-%d %H:%M}",
                old=f"{row['old_observed_at']:%Y-%m-%d %H:%M}",
            )
        )
    if row.get("new_offers"):
        notes.append(t("alerts.offers", offers=row["new_offers"]))
    if row.get("not_sent"):
        notes.append(t("alerts.why_not_sent", why=alert_text.note_text(row["not_sent"], lang)))
    if row.get("superseded"):
        notes.append(t("alerts.superseded_note", why=alert_text.note_text(row["superseded"], lang)))
    if row.get("resolved_at") is not None:
        notes.append(
            t("alerts.resolved", at=f"{row['resolved_at']:%Y-%m-%d %H:%M}", source=row["source"])
        )
    with st.container(border=True):
        st.markdown(f"**{t('alerts.details')}** · {kind_label(row['kind'])} · {_plain(what)}")
        st.markdown(_plain(message))
        st.caption("  \n".join(_plain(note) for note in notes))
    st.caption(t("alerts.pick"))


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
    lang = page_lang()
    table = pl.DataFrame(
        [
            {
                "rule": alert_text.rule_title(r.gpu, r.source or CHEAPEST, r.usage_hours, lang),
                "name_in_gpuprice_toml": r.name,
                "against": mode_label(r.against),
                "threshold": f"{r.threshold_hours:g} h"
                if r.threshold_hours is not None
                else f"{r.threshold_pct:g} %",
                "hysteresis_hours": r.hysteresis_hours,
            }
            for r in rules
        ]
    )
    # Where each rule stands, when the pipeline has evaluated it; rules are shown anyway.
    if states is not None and not states.is_empty():
        # one column: the cheaper mode, the breakeven and the snapshot they are of
        now = pl.concat_str(
            [
                relabel(states, "mode", mode_label),
                pl.lit(" · "),
                pl.col("last_value").round(1).cast(pl.String),
                pl.lit(" h · "),
                pl.col("last_observed_at").dt.strftime("%Y-%m-%d %H:%M"),
            ]
        )
        table = table.join(
            states.select(
                pl.col("rule").alias("name_in_gpuprice_toml"), now.alias("where_it_stands_utc")
            ),
            on="name_in_gpuprice_toml",
            how="left",
        )
    show(table)


def main() -> None:
    st.title(t("alerts.title"))
    simulated_banner()
    targets()
    tables = data.alert_feed()  # the feed and the rules' states in one read
    feed(tables["alerts"] if tables is not None else None)
    watch_rules(tables["rules"] if tables is not None else None)


main()
