"""The opening the filtered pages share (trends, compare, report): the title, the demo
banner, and the options their filters offer, or a plain word on why there are none yet."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import streamlit as st

from dashboard.data import simulated_banner
from dashboard.i18n import t


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
