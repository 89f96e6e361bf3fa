"""Warehouses and helpers for the dashboard's AppTest tests.

The seeded warehouses are built once per test session (a few seconds each), by the first
xdist worker that needs one; each worker reads a copy of its own (copying a DuckDB file is
fast). The dashboard opens them read-only, and its query cache is keyed by the file's path;
a test that changes a warehouse works on ``copy_of`` it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from filelock import FileLock
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from tests.dashboard.seeding import Seeded, build
from warehouse.store.db import write_connection

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
PAGES = {
    "index": "app_pages/market_index.py",  # the front page (the root URL)
    "trends": "app_pages/trends.py",
    "compare": "app_pages/compare.py",
    "report": "app_pages/report.py",
    "value": "app_pages/value.py",
    "breakeven": "app_pages/breakeven.py",
    "alerts": "app_pages/alerts.py",
    "health": "app_pages/health.py",
    "recommend": "app_pages/recommend.py",
}
DERIVED = (
    "card_value",
    "monthly_discount",
    "breakeven",
    "market_premium",
    "derived_snapshot",
    "alert",
    "alert_delivery",
    "alert_rule_state",
    "region_market",
)


def _session_build(tmp_path_factory: pytest.TempPathFactory, name: str, **kwargs: Any) -> Seeded:
    """``build(**kwargs)`` once for the whole test session: under xdist the first worker to
    need it builds it (the others wait on a lock) and every worker reads a copy of its own,
    so no two processes share a DuckDB file and each worker builds at most one of each."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # no xdist: this process is the session
        return build(tmp_path_factory.mktemp(name), **kwargs)
    shared = tmp_path_factory.getbasetemp().parent / "seeded-warehouses" / name
    shared.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(shared) + ".lock"):
        days = shared / "days.json"
        if days.exists():
            first_day, last_day = map(date.fromisoformat, json.loads(days.read_text()))
        else:
            built = build(shared / "home", **kwargs)
            first_day, last_day = built.first_day, built.last_day
            days.write_text(json.dumps([first_day.isoformat(), last_day.isoformat()]))
    built = Seeded(shared / "home", shared / "home" / "gpuprice.toml", first_day, last_day)
    return copy_of(built, tmp_path_factory.mktemp(name))


def copy_of(seeded: Seeded, into: Path) -> Seeded:
    """A copy of a seeded home (warehouse, serving copy, config) a test may change."""
    home = into / "home"
    shutil.copytree(seeded.home, home)
    return Seeded(home, home / seeded.config.name, seeded.first_day, seeded.last_day)


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    """400 days of demo history to 2026-09-10, derived, with alerts and health cases."""
    return _session_build(tmp_path_factory, "seeded")


@pytest.fixture(scope="session")
def multi(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    """75 days to 2026-09-10 on seven platforms (seeding.EXTRA_PLATFORMS: two in USD at a
    daily fx_rate, matpool only from 2026-09-01), derived, with alerts."""
    return _session_build(tmp_path_factory, "multi", days=75, live_days=45, chunk=5, platforms=True)


@pytest.fixture
def use_multi(use: Callable[..., None], multi: Seeded) -> Seeded:
    use(multi.home, multi.config)
    return multi


@pytest.fixture(scope="session")
def offers_only(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    """Offers and quotes loaded, nothing derived yet (the derive step has not run)."""
    return _session_build(tmp_path_factory, "offers_only", days=20, live_days=0, derived=False)


@pytest.fixture(scope="session")
def unmigrated(tmp_path_factory: pytest.TempPathFactory, offers_only: Seeded) -> Seeded:
    """A warehouse from before migration 002: the derived and alert tables do not exist
    (a copy of ``offers_only`` with them dropped)."""
    seeded = copy_of(offers_only, tmp_path_factory.mktemp("unmigrated"))
    with write_connection(seeded.warehouse) as con:
        for table in DERIVED:
            con.execute(f"DROP TABLE {table}")
        con.execute("DELETE FROM schema_migration WHERE version = 2")
    return seeded


@pytest.fixture
def use(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Point the dashboard at a warehouse home (and its gpuprice.toml), demo profile."""

    def point(home: Path, config: Path | None = None, profile: str = "demo") -> None:
        monkeypatch.setenv("GPUPRICE_HOME", str(home))
        monkeypatch.setenv("GPUPRICE_PROFILE", profile)
        if config is None:
            config = home / "empty.toml"
            config.write_text("", encoding="utf-8")
        monkeypatch.setenv("GPUPRICE_CONFIG", str(config))

    return point


@pytest.fixture(autouse=True, scope="session")
def _no_streamlit_magic() -> None:
    """As in .streamlit/config.toml: no ast.parse per rerun (CPython 3.11.7 thread bug)."""
    from streamlit import config as streamlit_config

    streamlit_config.set_option("runner.magicEnabled", False)


@pytest.fixture
def use_seeded(use: Callable[..., None], seeded: Seeded) -> Seeded:
    use(seeded.home, seeded.config)
    return seeded


def open_page(page: str) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.switch_page(PAGES[page])  # before the first run: only that page runs
    app.run()
    assert_clean(app)
    return app


def assert_clean(app: AppTest) -> None:
    """No exception box, and no lock error or query failure shown to the user."""
    assert not app.exception, [e.value for e in app.exception]
    for error in app.error:
        assert "lock" not in str(error.value).lower(), error.value
        assert "Exception" not in str(error.value), error.value


def texts(app: AppTest) -> str:
    parts = [
        m.value
        for kind in (
            "title",
            "subheader",
            "markdown",
            "caption",
            "info",
            "warning",
            "success",
            "error",
        )
        for m in getattr(app, kind)
    ]
    return "\n".join(str(p) for p in parts)


# st.dataframe keeps no user key unless it is selectable, so each table a test reads is
# found by a column only it has.
TABLES = {
    "tr_table": "layer",
    "cp_summary": "spread_max_over_min",
    "cp_prices": "times_cheapest",
    "cp_moves": "change_pct",
    "cp_month": "month_to_date_cny_per_card_hour",
    "rp_medians": "observations",
    "rp_cheapest": "cheapest_mom_pct",
    "rp_breakeven": "snapshots",
    "rp_alerts": "summary",
    "tr_changes": "mom_pct",
    "tr_latest": "listed_price",
    "va_table": "cny_per_tflop_hour",
    "va_specs": "interconnect",
    "be_row": "breakeven_vs_hourly",
    "be_alerts": "from_hours_per_month",
    "al_feed": "created_utc",
    "al_rules": "name_in_gpuprice_toml",
    "he_sources": "hours_since_success",
    "he_failures": "error",
    "he_rows": "unknown_cards",
    "he_unknown": "name_as_listed",
}


def _find(app: AppTest, name: str) -> pd.DataFrame | None:
    """The table holding ``TABLES[name]``: its frame keeps the snake_case column names in
    either language (dashboard.tables.show labels them through column_config)."""
    for element in app.dataframe:
        if TABLES[name] in element.value.columns:
            return element.value
    return None


def headers(element: Any) -> list[str]:
    """A table's headers as a user reads them: each column's column_config label."""
    config = json.loads(element.proto.columns or "{}")
    return [(config.get(str(c)) or {}).get("label") or str(c) for c in element.value.columns]


def table(app: AppTest, name: str) -> pd.DataFrame:
    frame = _find(app, name)
    assert frame is not None, f"no table {name} ({TABLES[name]!r} column) on the page"
    return frame


def trends_detail(app: AppTest, view: str) -> AppTest:
    """The trends page with ``view`` chosen under its chart (changes, latest or table):
    one detail is drawn at a time."""
    app.button_group(key="tr_view").set_value(view).run()
    return app


def kpi_tiles(app: AppTest) -> dict[tuple[str, str], Any]:
    """The trends page's KPI tiles by (the billing mode named above their row, label), in
    the order the page draws them."""
    tiles: dict[tuple[str, str], Any] = {}
    mode = ""
    for node in app.main:
        if node.type == "markdown" and node.value.startswith("**"):
            mode = node.value.strip("*")
        elif node.type == "metric":
            tiles[(mode, node.label)] = node
    return tiles


def has_table(app: AppTest, name: str) -> bool:
    return _find(app, name) is not None


def charts(app: AppTest) -> list[dict]:
    """Each Altair chart's Vega-Lite spec."""
    return [json.loads(c.proto.spec) for c in app.get("vega_lite_chart")]


def chart_data(app: AppTest, index: int) -> list[pd.DataFrame]:
    """The data sets a chart draws (Streamlit ships them as Arrow, outside the spec)."""
    chart = app.get("vega_lite_chart")[index]
    return [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]


def titles(spec: object) -> list[str]:
    """Every title in a Vega-Lite spec (chart, axes, legends), as text."""
    found: list[str] = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "title":
                found.append(value["text"] if isinstance(value, dict) else str(value))
                if isinstance(value, dict) and "subtitle" in value:
                    found.append(str(value["subtitle"]))
            found.extend(titles(value))
    elif isinstance(spec, list):
        for value in spec:
            found.extend(titles(value))
    return found
