"""Breakeven: monthly cost per card against usage for hourly, monthly-plan and bare metal,
where the lines cross, which mode is cheapest at a chosen usage, and the breakeven's
history with the alerts it raised."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl
import streamlit as st

from dashboard import charts, data
from dashboard.alert_table import kind_label
from dashboard.data import data_label, simulated_banner
from dashboard.formatting import pays_off
from dashboard.i18n import card_label, labels, relabel, t
from dashboard.tables import show
from scrapers.rows import HOURS_PER_MONTH
from warehouse.derive.metrics import CHEAPEST
from warehouse.read.metrics import COST_MODES, cost_lines_for

HOURLY, MONTHLY, BARE_METAL = COST_MODES
DEFAULT_USAGE = 500
# Above this many snapshots the history is drawn as daily means: years of hourly points
# would make the browser, not the reader, do the work.
MAX_HISTORY_POINTS = 1500

# The price a breakeven against each container mode needs besides bare metal's, and the
# name its absence has in the locales (be.no.<name>).
RATE_COLUMNS = {
    HOURLY: ("hourly", "list_cny_per_card_hour"),
    MONTHLY: ("monthly", "monthly_cny_per_card_hour"),
}


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def mode_name(mode: str) -> str:
    """A cost mode (warehouse.read.metrics.COST_MODES) in the page's language."""
    return t(f"mode.{COST_MODES.index(mode)}")


def missing_why(row: dict[str, Any], mode: str) -> str:
    """Why the breakeven against ``mode`` (hourly or monthly) is missing, from which of its
    two prices the snapshot lacks; on the cheapest line a price is missing on every platform."""
    where = ".any" if row["source"] == CHEAPEST else ""
    reasons = [
        t(f"be.no.{name}{where}")
        for name, column in (("bare_metal", "bare_metal_cny_per_card_month"), RATE_COLUMNS[mode])
        if row[column] is None
    ]
    return "; ".join(reasons) or t("be.no.other")


def verdict_text(hours: float | None, why: str | None = None) -> str:
    """What a breakeven means for a buyer: from which usage bare metal is cheaper, or that
    it never is within a month (above 720 h); a missing one says ``why`` beside its dash."""
    if hours is None:
        return f"— ({why})" if why else "—"
    if pays_off(hours):
        return t("be.pays_off", hours=hours)
    return t("be.never")


def line_platforms(row: dict[str, Any]) -> str:
    """For the cross-platform cheapest line: which platform each of its prices came from
    (its offers are stored as ``source/offer_id``)."""
    parts = []
    for mode, column in (
        (BARE_METAL, "bare_metal_offer"),
        (HOURLY, "hourly_offer"),
        (MONTHLY, "monthly_offer"),
    ):
        offer = row.get(column)
        if offer:
            parts.append(f"{mode_name(mode)} {offer.split('/', 1)[0]}")
    return ", ".join(parts) or "—"


def monthly_costs(row: dict[str, Any], usage: float) -> list[tuple[str, float]]:
    """Cost per card for a month of ``usage`` hours in each mode that has a price,
    cheapest first (seed 003 §六's arithmetic, as warehouse.read.metrics draws it)."""
    costs = []
    if (rate := _num(row["list_cny_per_card_hour"])) is not None:
        costs.append((HOURLY, usage * rate))
    if (rate := _num(row["monthly_cny_per_card_hour"])) is not None:
        costs.append((MONTHLY, usage * rate))
    if (flat := _num(row["bare_metal_cny_per_card_month"])) is not None:
        costs.append((BARE_METAL, flat))
    return sorted(costs, key=lambda c: c[1])


def crossings(row: dict[str, Any]) -> pl.DataFrame:
    """Where each container line meets bare metal within a month, labelled in hours; what
    cannot be marked (beyond 720 h, or a price missing) is said in a caption instead."""
    marks = []
    flat = _num(row["bare_metal_cny_per_card_month"])
    for mode, column in (
        (HOURLY, "breakeven_hours_vs_hourly"),
        (MONTHLY, "breakeven_hours_vs_monthly"),
    ):
        hours = _num(row[column])
        if hours is None:
            st.caption(t("be.missing", mode=mode_name(mode), reason=missing_why(row, mode)))
        elif not pays_off(hours):
            st.caption(t("be.beyond", mode=mode_name(mode), hours=hours))
        else:
            marks.append(
                {
                    "usage_hours": hours,
                    "cny_per_card_month": flat,
                    "label": f"{hours:,.1f} h",
                    "mode": f"{mode_name(mode)} = {mode_name(BARE_METAL)}",
                }
            )
    schema = {
        "usage_hours": pl.Float64,
        "cny_per_card_month": pl.Float64,
        "label": pl.String,
        "mode": pl.String,
    }
    return pl.DataFrame(marks, schema=schema)


def verdict(row: dict[str, Any], usage: float) -> None:
    costs = monthly_costs(row, usage)
    if not costs:
        return
    (mode, cost), rest = costs[0], costs[1:]
    if not rest:
        st.info(t("be.only", usage=usage, mode=mode_name(mode), cost=cost))
        return
    other, other_cost = rest[0]
    st.success(
        t(
            "be.verdict",
            usage=usage,
            mode=mode_name(mode),
            cost=cost,
            other=mode_name(other),
            saving=other_cost - cost,
        )
    )


def history(gpu: str, line: str) -> None:
    # The daily means first (from the serving copy: small at any history length); every
    # snapshot only when there are few enough to draw.
    frame = data.breakeven_daily(gpu=gpu, source=line)
    if frame is None or frame.is_empty():
        return
    daily = frame["snapshots"].sum() > MAX_HISTORY_POINTS
    # every snapshot (when few) and the line's alerts in one read of the warehouse
    found = data.line_history(gpu=gpu, source=line, snapshots=not daily)
    if found is None:
        return
    if not daily:
        frame = found["history"]
        if frame is None or frame.is_empty():
            return
    long = (
        frame.select(
            "observed_at",
            "simulated",
            pl.col("breakeven_hours_vs_hourly").alias(HOURLY),
            pl.col("breakeven_hours_vs_monthly").alias(MONTHLY),
        )
        .unpivot(
            [HOURLY, MONTHLY],
            index=["observed_at", "simulated"],
            variable_name="against",
            value_name="breakeven_hours",
        )
        .drop_nulls("breakeven_hours")
        .with_columns(
            data_label(),
            pl.col("against").replace_strict({m: mode_name(m) for m in (HOURLY, MONTHLY)}),
            shown_hours=pl.col("breakeven_hours").clip(upper_bound=HOURS_PER_MONTH),
            beyond=pl.col("breakeven_hours") > HOURS_PER_MONTH,
        )
    )
    if long.is_empty():
        return
    long = long.with_columns(verdict=relabel(long, "breakeven_hours", verdict_text))
    marks = found["alerts"]
    title = t(
        "be.history",
        start=f"{long['observed_at'].min():%Y-%m-%d}",
        end=f"{long['observed_at'].max():%Y-%m-%d}",
    ) + (t("be.daily") if daily else "")
    st.altair_chart(
        charts.unchecked(
            charts.breakeven_history(long, marks, title, [mode_name(m) for m in COST_MODES])
        ),
        width="stretch",
    )
    if not marks.is_empty():
        show(
            marks.select(
                pl.col("new_observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("snapshot_utc"),
                relabel(marks, "kind", kind_label),
                "rule",
                pl.col("old_value").round(1).alias("from_hours_per_month"),
                pl.col("new_value").round(1).alias("to_hours_per_month"),
                "message",
            ),
        )


def row_table(row: dict[str, Any]) -> pl.DataFrame:
    """The line's newest snapshot as one row: the prices, each breakeven and what it means
    (a figure above 720 h is shown as never paying off, not as hours a month lacks)."""
    hours = {c: _num(row[c]) for c in ("breakeven_hours_vs_hourly", "breakeven_hours_vs_monthly")}
    # one row; a NULL would make its column untyped, hence the casts
    return pl.DataFrame([row]).select(
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("snapshot_utc"),
        pl.col("bare_metal_cny_per_card_month").cast(pl.Float64).round(2),
        pl.col("list_cny_per_card_hour")
        .cast(pl.Float64)
        .round(4)
        .alias("hourly_cny_per_card_hour"),
        pl.col("monthly_cny_per_card_hour")
        .cast(pl.Float64)
        .round(4)
        .alias("monthly_plan_cny_per_card_hour"),
        pl.lit(verdict_text(hours["breakeven_hours_vs_hourly"], missing_why(row, HOURLY))).alias(
            "breakeven_vs_hourly"
        ),
        pl.lit(verdict_text(hours["breakeven_hours_vs_monthly"], missing_why(row, MONTHLY))).alias(
            "breakeven_vs_monthly"
        ),
        pl.col("bare_metal_offer").alias("bare_metal_listing"),
        pl.col("hourly_offer").alias("hourly_listing"),
        pl.col("monthly_offer").alias("monthly_plan_listing"),
        data_label(),
    )


def watched() -> tuple[str | None, str]:
    """The card and line of the first ``[[alerts.rules]]`` rule (its line the cheapest when
    the rule names no platform): what the user said they care about."""
    rules = data.settings().file.alerts.rules
    if not rules:
        return None, CHEAPEST
    return rules[0].gpu, rules[0].source or CHEAPEST


def opening_card(latest: pl.DataFrame, watched_gpu: str | None) -> str:
    """The card the page opens on: the watched one when it has data, else the card quoted by
    the most platforms (the alphabetically first was Ascend 910B, which nobody asked for)."""
    if watched_gpu is not None and watched_gpu in latest["gpu"]:
        return watched_gpu
    ranked = latest.group_by("gpu").agg(
        pl.col("source").filter(pl.col("source") != CHEAPEST).n_unique().alias("platforms"),
        pl.col("breakeven_hours_vs_hourly").is_not_null().any().alias("has"),
    )
    return ranked.sort("platforms", "has", "gpu", descending=[True, True, False])["gpu"][0]


def from_zero(chart: alt.LayerChart) -> alt.LayerChart:
    """The cost chart with its y axis starting at zero and its marks clipped to the plot: the
    lines started below the zero gridline (dashboard.charts is shared; this page's chart is
    adjusted here)."""
    for layer in chart.layer:
        y = layer.encoding.y
        if y is not alt.Undefined:
            y.scale = alt.Scale(zero=True, domainMin=0, nice=True)
        if isinstance(layer.mark, str):
            layer.mark = alt.MarkDef(type=layer.mark)
        layer.mark.clip = True
    return chart


def tier_caption(row: dict[str, Any]) -> None:
    """When the hourly and the monthly-plan price come from different listings (RunPod's
    monthly is a Secure Cloud commitment, its hourly Community Cloud), name both: the lines
    then compare two offers, not two ways to rent one. The cheapest line already says which
    platform each of its prices came from (``line_platforms``)."""
    hourly, monthly = row.get("hourly_offer"), row.get("monthly_offer")
    if row["source"] != CHEAPEST and hourly and monthly and hourly != monthly:
        st.caption(
            t("be.tiers", mode_a=mode_name(HOURLY), mode_b=mode_name(MONTHLY), a=hourly, b=monthly)
        )


def choose(latest: pl.DataFrame) -> tuple[str, str]:
    """The card and line widgets, opening on the watched card and line (``opening_card``);
    cards with a breakeven first (those are the ones the page is for), and on each card the
    cross-platform cheapest line first."""
    ranked = latest.group_by("gpu").agg(
        pl.col("breakeven_hours_vs_hourly").is_not_null().any().alias("has")
    )
    cards = ranked.sort(~pl.col("has"), "gpu")["gpu"].to_list()
    watched_gpu, watched_line = watched()
    a, b = st.columns(2)
    gpu = a.selectbox(
        t("f.card"),
        cards,
        index=cards.index(opening_card(latest, watched_gpu)),
        format_func=card_label,
        key="be_card",
    )
    lines = latest.filter(pl.col("gpu") == gpu)["source"].to_list()
    lines = sorted(lines, key=lambda s: (s != CHEAPEST, s))
    line = b.selectbox(
        t("f.platform"),
        lines,
        index=lines.index(watched_line) if gpu == watched_gpu and watched_line in lines else 0,
        format_func=labels(lines, lambda s: t("be.cheapest") if s == CHEAPEST else s),
        key="be_line",
    )
    return gpu, line


def main() -> None:
    st.title(t("be.title"))
    simulated_banner()
    latest = data.latest_breakeven()
    if latest is None:
        return
    if latest.is_empty():
        st.info(t("empty.not_computed", what="`breakeven`"))
        return
    gpu, line = choose(latest)
    row = latest.filter(pl.col("gpu") == gpu, pl.col("source") == line).row(0, named=True)
    if line == CHEAPEST:
        st.caption(t("be.cheapest.from", platforms=line_platforms(row)))
    usage = st.slider(t("be.usage"), 0, HOURS_PER_MONTH, DEFAULT_USAGE, step=10, key="be_usage")
    lines_frame = cost_lines_for(
        _num(row["bare_metal_cny_per_card_month"]),
        _num(row["list_cny_per_card_hour"]),
        _num(row["monthly_cny_per_card_hour"]),
        step=10,
    )
    if lines_frame.is_empty():
        st.info(t("be.no_line"))
        return
    sim = " · SIMULATED" if row["simulated"] else ""
    name = t("be.cheapest") if line == CHEAPEST else line
    title = t("be.lines", gpu=card_label(gpu), line=name, at=f"{row['observed_at']:%Y-%m-%d %H:%M}")
    marks = crossings(row)
    # a month's cost is never negative: nothing drawn below the zero line
    lines_frame = lines_frame.with_columns(
        pl.col("mode").replace_strict({m: mode_name(m) for m in COST_MODES}),
        pl.col("cny_per_card_month").clip(lower_bound=0),
    )
    chart = charts.cost_lines(
        lines_frame, marks, usage, title + sim, t("be.caption"), [mode_name(m) for m in COST_MODES]
    )
    st.altair_chart(charts.unchecked(from_zero(chart)), width="stretch")
    tier_caption(row)
    verdict(row, usage)
    show(row_table(row))
    history(gpu, line)


main()
