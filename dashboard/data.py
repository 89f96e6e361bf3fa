"""Dashboard access to the warehouse: read-only, one connection per query, cached with a TTL.

Every page reads through the typed functions at the end of this module (``value_board``,
``price_trend``, ...). Each is a read function of ``warehouse.read.prices``,
``warehouse.read.dashboard`` or ``warehouse.read.metrics`` (which opens the file read-only
for one query and retries while the pipeline holds the lock) wrapped by ``page_query``:
the wrapper supplies the warehouse handle, caches the frame for ``CACHE_TTL_S`` and turns
every way the warehouse can be not-ready (no file, locked, table not created or not
derived yet) into an empty state on the page instead of a traceback.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import duckdb
import polars as pl
import streamlit as st

import warehouse.read.compare
import warehouse.read.dashboard
import warehouse.read.index
import warehouse.read.metrics
import warehouse.read.prices
import warehouse.read.report
from configuration.first_start import read_status
from configuration.recommender_feed import PriceInputs, UnknownSource, load_price_inputs
from configuration.settings import Settings, load_settings
from dashboard.i18n import t
from warehouse.store.db import WarehouseBusy, WarehouseMissing
from warehouse.store.handle import Warehouse

CACHE_TTL_S = 60
# Retry budget per query while the pipeline writes: its transactions last well under a
# second, so this is generous, and a page never waits longer than this for one query.
READ_WAIT_S = 15.0
# The queries of the warehouse itself (not the serving copy) wait at most this long on a
# first render: while the first start seeds history the writer holds the file for up to
# ~4 s at a time (a read waited 0.16 s at the median, 0.74 s at p95; docs/PERFORMANCE.md),
# and a page must draw within 2 s. Past it the page draws the rest, says that part is
# coming, and reruns itself every RETRY_EVERY_S until the read gets through.
FIRST_WAIT_S = 0.75
RETRY_EVERY_S = 2.0
_RETRY = "_gpuprice_retry"
_TICKS = "_gpuprice_retry_ticks"

P = ParamSpec("P")
R = TypeVar("R")


# What the settings are read from besides the TOML: a process (a test) that changes them gets
# settings and a warehouse handle of its own.
_ENVIRONMENT_PREFIXES = ("GPUPRICE_", "AWS_")


@st.cache_resource(show_spinner=False)
def _settings_of(environment: tuple[tuple[str, str], ...]) -> Settings:
    return load_settings()


def settings() -> Settings:
    """The dashboard's settings, loaded once per environment (an edited gpuprice.toml is
    read when the dashboard restarts)."""
    environment = tuple(
        sorted((k, v) for k, v in os.environ.items() if k.startswith(_ENVIRONMENT_PREFIXES))
    )
    return _settings_of(environment)


def warehouse_handle() -> Warehouse:
    """The one warehouse handle every query of the dashboard reads through."""
    return settings().warehouse


# One cache for every query (so one ``_cached.clear()`` empties it, and max_entries bounds
# them all together). The key is the query's name, the warehouse handle and the parameters;
# ``_read`` is what runs, and its leading underscore keeps Streamlit from hashing it: the
# name already says which function it is.
@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False, max_entries=512)
def _cached(
    name: str,
    handle: Warehouse,
    args: tuple[Any, ...],
    kwargs: tuple[tuple[str, Any], ...],
    _read: Callable[..., Any],
) -> Any:
    return _read(handle, *args, **dict(kwargs))


def _missing_table(exc: duckdb.CatalogException) -> str:
    # "Table with name card_value does not exist!" -> card_value
    words = str(exc).split()
    if "name" in words:
        return words[words.index("name") + 1]
    return "?"


def page_query(
    read: Callable[Concatenate[Warehouse, P], R], *, quiet: bool = False, brief: bool = False
) -> Callable[P, R | None]:
    """``read(warehouse, **params)`` as the page calls it: ``query(**params)``, the frame (or
    the frames, for a batch of queries read in one connection) for the configured warehouse
    (cached), or None after telling the user, in place, why there is nothing to show yet.
    Parameters must be hashable (tuples, not lists).

    ``quiet``: say nothing for a missing table, for queries whose page shows the same
    thing without them (the other not-ready states are still reported). ``brief``: a read
    of the warehouse itself (``read`` takes ``wait_s``), which waits FIRST_WAIT_S for the
    writer and is then retried on a rerun of the page (``retry_when_busy``)."""
    name = f"{read.__module__}.{read.__qualname__}"
    # The wait is no part of the cache key: ``_cached`` does not hash its ``_read``.
    run = functools.partial(read, wait_s=FIRST_WAIT_S) if brief else read

    def query(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return _cached(name, warehouse_handle(), args, tuple(sorted(kwargs.items())), run)
        except WarehouseMissing:
            st.info(t("empty.warehouse"))
        except WarehouseBusy:
            if brief:
                st.info(t("empty.writing"))
                st.session_state[_RETRY] = True
            else:
                st.warning(t("empty.busy"))
        except duckdb.CatalogException as exc:
            # A table the 002 migration adds, on a warehouse the pipeline has not migrated yet.
            if not quiet:
                st.info(t("empty.not_computed", what=f"`{_missing_table(exc)}`"))
        except duckdb.Error as exc:
            st.error(f"{type(exc).__name__}: {exc}")
        return None

    # Named and documented like the read function, for tracebacks and hover help.
    query.__name__ = query.__qualname__ = read.__name__
    query.__doc__ = read.__doc__
    return query


def retry_when_busy() -> None:
    """After the page: when a brief read found the pipeline writing, rerun the page in
    RETRY_EVERY_S (and again, until the read gets through)."""
    if st.session_state.pop(_RETRY, False):
        st.session_state[_TICKS] = 0
        _rerun_soon()


@st.fragment(run_every=RETRY_EVERY_S)
def _rerun_soon() -> None:
    # A fragment runs once with the page, then on its timer: only the timer's run reruns
    # the page (a rerun from the first would loop without waiting).
    ticks = st.session_state.get(_TICKS, 0)
    st.session_state[_TICKS] = ticks + 1
    if ticks:
        st.rerun(scope="app")


def simulated_banner() -> None:
    if settings().profile == "demo":
        st.warning(t("simulated"))


def backfill_banner() -> None:
    """While the first start's history backfill runs (configuration.first_start), say how far it
    is: the charts are still filling in, not wrong."""
    status = read_status(settings().home)
    if status is None or not status.running:
        return
    since = status.first_day or status.started_at[:10]
    st.info(t("backfill.filling", done=status.days_done, total=status.days_total, since=since))


def data_label(column: str = "simulated") -> pl.Expr:
    """The per-row provenance column every table shows: SIMULATED or real."""
    return pl.when(pl.col(column)).then(pl.lit("SIMULATED")).otherwise(pl.lit("real")).alias("data")


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def _price_inputs(handle: Warehouse, source: str | None) -> PriceInputs:
    return load_price_inputs(handle, source)


def price_inputs(source: str | None = None) -> PriceInputs | None:
    """The recommender's specs and latest prices (seed fallback when the warehouse is
    empty), or None after telling the user why they cannot be read now."""
    try:
        return _price_inputs(warehouse_handle(), source)
    except UnknownSource as exc:
        st.error(str(exc))
    except WarehouseBusy:
        st.warning(t("empty.busy"))
    return None


# The queries the pages use, one each; parameters as in the warehouse function, less
# the handle. The quiet ones read a table the page can do without (migration 002 adds it).
# Full module names: inside this package a bare `dashboard` would read as the dashboard,
# not as the warehouse's dashboard queries.

# Trends
trend_options = page_query(warehouse.read.dashboard.trend_options)
serving_freshness = page_query(warehouse.read.dashboard.serving_freshness, quiet=True)
price_trend = page_query(warehouse.read.dashboard.price_trend)
price_band = page_query(warehouse.read.dashboard.price_band)
quote_trend = page_query(warehouse.read.dashboard.quote_trend)
monthly_changes = page_query(warehouse.read.dashboard.monthly_changes)
card_changes = page_query(warehouse.read.dashboard.card_changes)
latest_offers = page_query(warehouse.read.prices.latest_offers)
# Value
value_board = page_query(warehouse.read.dashboard.value_board)
# Breakeven and alerts
latest_breakeven = page_query(warehouse.read.metrics.latest_breakeven)
breakeven_daily = page_query(warehouse.read.metrics.breakeven_daily)
line_history = page_query(warehouse.read.metrics.line_history, brief=True)
alert_feed = page_query(warehouse.read.metrics.alert_feed, brief=True)
# Compare
compare_options = page_query(warehouse.read.compare.compare_options)
platform_prices = page_query(warehouse.read.compare.platform_prices)
daily_prices = page_query(warehouse.read.compare.daily_prices)
fx_rates_on = page_query(warehouse.read.compare.fx_rates_on, quiet=True, brief=True)
# Monthly report: its five tables in one connection
month_report = page_query(warehouse.read.report.month_report, brief=True)
# Health: its tables in one connection
health = page_query(warehouse.read.dashboard.health, brief=True)
# Market index: its tables in one connection
index_overview = page_query(warehouse.read.index.index_overview, brief=True)
index_history = page_query(warehouse.read.index.index_history)
