"""The opening the filtered pages share (trends, compare, report): the title, the demo
banner, and the options their filters offer, or a plain word on why there are none yet;
the region filter trends and compare both draw."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import streamlit as st

from dashboard.data import simulated_banner
from dashboard.i18n import labels, region_label, t


def open_page(
    title: str, options: Callable[[], pl.DataFrame | None], empty: str
) -> pl.DataFrame | None:
    """Draw the page's ``title`` (an i18n key) and the demo banner, then read ``options``:
    the frame, or None when it cannot be read (the query said why) or is empty (after
    saying ``empty``, an i18n key)."""
    st.title(t(title))
    simulated_banner()
    found = options()
    if found is None:
        return None
    if found.is_empty():
        st.info(t(empty))
        return None
    return found


def region_filter(where: Any, options: pl.DataFrame, key: str) -> list[str]:
    """The regions of ``options`` as a multiselect in ``where`` (a column), every one chosen
    at first, each named in the page's words (dashboard.i18n.region_label)."""
    regions = sorted(options["region"].unique().to_list())
    return where.multiselect(
        t("f.regions"),
        regions,
        default=regions,
        format_func=labels(regions, region_label),
        placeholder=t("choose"),
        key=key,
    )
