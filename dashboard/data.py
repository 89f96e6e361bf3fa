"""Dashboard access to the warehouse: read-only, one connection per query, cached with a TTL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import streamlit as st

from gpuprice.recommend_inputs import PriceInputs, UnknownSource, load_price_inputs
from gpuprice.settings import Settings, load_settings
from warehouse import queries
from warehouse.db import WarehouseBusy, WarehouseMissing

CACHE_TTL_S = 60


def settings() -> Settings:
    # Not cached: reading one small TOML per rerun is cheap, and a cached copy would
    # outlive a change of GPUPRICE_HOME or of the file.
    return load_settings()


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def _cached(name: str, path: str) -> pl.DataFrame:
    query: Callable[[Path], pl.DataFrame] = getattr(queries, name)
    return query(Path(path))


def load(name: str) -> pl.DataFrame | None:
    """A query's frame, or None after telling the user why there is nothing to show."""
    path = settings().warehouse_path
    try:
        return _cached(name, str(path))
    except WarehouseMissing:
        st.info(
            "仓库还是空的 / The warehouse is empty. Run `make up` (it scrapes once at start) "
            "or `gpuprice run`, then reload this page."
        )
    except WarehouseBusy:
        st.warning("仓库正在写入 / The pipeline is writing; reload in a few seconds.")
    return None


def simulated_banner() -> None:
    if settings().profile == "demo":
        st.warning(
            "**模拟数据 SIMULATED** — demo profile: prices come from the bundled demo market "
            "(anchored on the seeds' published 2026-09-04 prices). Rows from `*-published` sources are real."
        )


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def _price_inputs(path: str, source: str | None) -> PriceInputs:
    return load_price_inputs(Path(path), source)


def price_inputs(source: str | None = None) -> PriceInputs | None:
    """The recommender's specs and latest prices (seed fallback when the warehouse is
    empty), or None after telling the user why they cannot be read now."""
    try:
        return _price_inputs(str(settings().warehouse_path), source)
    except UnknownSource as exc:
        st.error(str(exc))
    except WarehouseBusy:
        st.warning("仓库正在写入 / The pipeline is writing; reload in a few seconds.")
    return None
