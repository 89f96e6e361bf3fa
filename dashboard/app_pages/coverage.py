"""Data coverage: per source, the days it has prices for, real and SIMULATED apart (real
history from imports counted too), a week-by-week strip, and the history imports with the
captures they could not load."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboard import history_data
from dashboard.data import data_label, simulated_banner
from dashboard.i18n import header, t
from dashboard.tables import show


def coverage_table(found: pl.DataFrame) -> pl.DataFrame:
    return found.select(
        "source",
        data_label(),
        # a day, not a midnight: Streamlit draws a date column with its time
        pl.col("first_day").cast(pl.Date).dt.strftime("%Y-%m-%d").alias("first_day_utc"),
        pl.col("last_day").cast(pl.Date).dt.strftime("%Y-%m-%d").alias("last_day_utc"),
        pl.col("days").alias("days_with_data"),
        pl.col("imported_days").alias("of_which_imported_history"),
        "rows",
    )


def strip(weeks: pl.DataFrame) -> alt.Chart:
    """A mark per source and week with data, coloured real / SIMULATED, sized by its days."""
    frame = weeks.with_columns(data_label())
    first, last = frame["week"].min(), frame["week"].max()
    return (
        alt.Chart(frame)
        .mark_square(opacity=0.8)
        .encode(
            x=alt.X("week:T", title=t("cov.axis_week"), axis=alt.Axis(format="%Y-%m-%d")),
            y=alt.Y("source:N", title=header("source")),
            color=alt.Color(
                "data:N",
                title=header("data"),
                scale=alt.Scale(domain=["real", "SIMULATED"], range=["#1f77b4", "#ff7f0e"]),
                legend=alt.Legend(orient="bottom"),
            ),
            size=alt.Size(
                "days:Q",
                title=t("cov.axis_days"),
                # a week of one day must still show: one capture is often all a year has
                scale=alt.Scale(domain=[1, 7], range=[40, 220]),
            ),
            tooltip=[
                alt.Tooltip("source:N", title=header("source")),
                alt.Tooltip("data:N", title=header("data")),
                alt.Tooltip("week:T", title=header("week_from_utc"), format="%Y-%m-%d"),
                alt.Tooltip("days:Q", title=header("days_with_data")),
            ],
        )
        .properties(
            title=alt.TitleParams(t("cov.chart", first=first, last=last), anchor="start"),
            height=alt.Step(22),
        )
    )


def main() -> None:
    st.title(t("cov.title"))
    simulated_banner()
    st.caption(t("cov.intro"))
    found = history_data.coverage()
    if found is None:
        return
    if found.is_empty():
        st.info(t("cov.empty"))
    else:
        st.subheader(t("cov.table"))
        show(coverage_table(found))
        weeks = history_data.coverage_weeks()
        if weeks is not None and not weeks.is_empty():
            st.altair_chart(strip(weeks), width="stretch")
    history_data.imports_section()


main()
