"""Dashboard access to the warehouse: read-only, one connection per query, cached with a TTL.

Every query goes through ``load``: it runs a named function of ``warehouse.read.prices``,
``warehouse.read.dashboard`` or ``warehouse.read.metrics`` (each opens the file
read-only for one query and retries while the pipeline holds the lock), caches the frame
for ``CACHE_TTL_S`` and turns every way the warehouse can be not-ready (no file, locked,
table not created or not derived yet) into an empty state on the page instead of a
traceback.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from dashboard.i18n import t
from gpuprice.recommender_feed import PriceInputs, UnknownSource, load_price_inputs
from gpuprice.settings import Settings, load_settings
from warehouse.read import dashboard as dashboard_queries
from warehouse.read import metrics as metric_queries
from warehouse.read import prices as queries
from warehouse.store.db import WarehouseBusy, WarehouseMissing

CACHE_TTL_S = 60
# Retry budget per query while the pipeline writes: its transactions last well under a
# second, so this is generous, and a page never waits longer than this for one query.
READ_WAIT_S = 15.0
MODULES: dict[str, ModuleType] = {
    "queries": queries,
    "dashboard_queries": dashboard_queries,
    "metric_queries": metric_queries,
}


def settings() -> Settings:
    # Not cached: reading one small TOML per rerun is cheap, and a cached copy would
    # outlive a change of GPUPRICE_HOME or of the file.
    return load_settings()


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False, max_entries=512)
def _cached(name: str, path: str, params: tuple[tuple[str, Any], ...]) -> pl.DataFrame:
    module, function = name.split(".")
    return getattr(MODULES[module], function)(Path(path), **dict(params))


def _missing_table(exc: duckdb.CatalogException) -> str:
    # "Table with name card_value does not exist!" -> card_value
    words = str(exc).split()
    if "name" in words:
        return words[words.index("name") + 1]
    return "?"


def load(name: str, /, *, quiet: bool = False, **params: Any) -> pl.DataFrame | None:
    """The frame of query ``module.function`` with ``params`` (hashable values), or None
    after telling the user, in place, why there is nothing to show yet (``quiet``: only
    for a missing table, when the page shows the same thing without it)."""
    path = settings().warehouse_path
    try:
        return _cached(name, str(path), tuple(sorted(params.items())))
    except WarehouseMissing:
        st.info(t("empty.warehouse"))
    except WarehouseBusy:
        st.warning(t("empty.busy"))
    except duckdb.CatalogException as exc:
        # A table the 002 migration adds, on a warehouse the pipeline has not migrated yet.
        if not quiet:
            st.info(t("empty.not_computed", what=f"`{_missing_table(exc)}`"))
    except duckdb.Error as exc:
        st.error(f"{type(exc).__name__}: {exc}")
    return None


def simulated_banner() -> None:
    if settings().profile == "demo":
        st.warning(t("simulated"))


def data_label(column: str = "simulated") -> pl.Expr:
    """The per-row provenance column every table shows: SIMULATED or real."""
    return pl.when(pl.col(column)).then(pl.lit("SIMULATED")).otherwise(pl.lit("real")).alias("data")


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
        st.warning(t("empty.busy"))
    return None
