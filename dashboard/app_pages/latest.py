"""First page: latest price per card and platform, and a trend line per card."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboard.data import load, simulated_banner

st.title("GPU 租赁价格 · Latest prices")
simulated_banner()

latest = load("latest_offers")
if latest is not None and latest.is_empty():
    st.info("还没有价格 / No prices yet: run `gpuprice run` or wait for the hourly schedule.")
elif latest is not None:
    as_of = latest["observed_at"].max()
    st.subheader(
        f"最新价格 / Latest price per card and platform (newest observation {as_of:%Y-%m-%d %H:%M} UTC)"
    )
    shown = latest.select(
        pl.col("gpu").alias("card"),
        pl.col("source").alias("platform"),
        pl.col("billing"),
        pl.col("cny_per_card_hour").cast(pl.Float64).round(3).alias("CNY per card-hour"),
        pl.col("listed").alias("listed price"),
        pl.col("gpu_count").alias("cards"),
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M UTC").alias("observed"),
        pl.when(pl.col("simulated"))
        .then(pl.lit("SIMULATED"))
        .otherwise(pl.lit("real"))
        .alias("data"),
    )
    st.dataframe(shown, hide_index=True, width="stretch")

    trend = load("daily_trend")
    if trend is not None and not trend.is_empty():
        st.subheader("价格趋势 / Trend: CNY per card-hour, daily mean")
        cards = sorted(trend["gpu"].unique().to_list())
        chosen = st.multiselect("显卡 / Cards", cards, default=cards)
        billing = st.multiselect(
            "计费方式 / Billing",
            sorted(trend["billing"].unique().to_list()),
            default=["hourly", "bare_metal_monthly"],
        )
        data = trend.filter(pl.col("gpu").is_in(chosen) & pl.col("billing").is_in(billing))
        if data.is_empty():
            st.info("所选条件没有数据 / Nothing matches these filters.")
        else:
            chart = (
                alt.Chart(
                    data.with_columns(
                        series=pl.col("gpu") + " · " + pl.col("source") + " · " + pl.col("billing")
                    )
                )
                .mark_line(point=True)
                .encode(
                    x=alt.X("day:T", title="date (UTC)"),
                    y=alt.Y("cny_per_card_hour:Q", title="CNY per card-hour"),
                    color=alt.Color("series:N", title="card · platform · billing"),
                    tooltip=[
                        "day:T",
                        "gpu",
                        "source",
                        "billing",
                        alt.Tooltip("cny_per_card_hour:Q", format=".3f"),
                    ],
                )
            )
            st.altair_chart(chart, width="stretch")
