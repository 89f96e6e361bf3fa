"""The first dashboard page through Streamlit's AppTest, over a real DuckDB file."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.seeded_warehouse import seed_demo_history

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path))
    monkeypatch.setenv("GPUPRICE_PROFILE", "demo")
    return tmp_path


def run_app() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def texts(app: AppTest) -> str:
    parts = [m.value for m in (*app.markdown, *app.info, *app.warning, *app.title, *app.subheader)]
    return "\n".join(str(p) for p in parts)


def test_empty_warehouse_shows_the_empty_state(home: Path) -> None:
    app = run_app()
    shown = texts(app)
    assert "warehouse is empty" in shown and "make up" in shown
    assert "SIMULATED" in shown
    assert len(app.dataframe) == 0


def test_seeded_warehouse_shows_latest_prices_and_trend(home: Path) -> None:
    seed_demo_history(home / "gpuprice.duckdb", date(2026, 9, 10), days=7)
    app = run_app()
    shown = texts(app)
    assert "SIMULATED" in shown
    assert "2026-09-10" in shown  # the newest observation date is stated
    table = app.dataframe[0].value
    assert {
        "card",
        "platform",
        "billing",
        "CNY per card-hour",
        "listed price",
        "observed",
        "data",
    } <= set(table.columns)
    assert {"jygpu", "jygpu-published"} <= set(table["platform"])
    published = table[table["platform"] == "jygpu-published"]
    assert set(published["data"]) == {"real"}
    assert set(table[table["platform"] == "jygpu"]["data"]) == {"SIMULATED"}
    h100 = table[(table["card"] == "h100-80g") & (table["platform"] == "jygpu")].iloc[0]
    assert (
        h100["listed price"].endswith(" 元/月") and "," in h100["listed price"]
    )  # e.g. "84,300.00 元/月"
    assert len(app.multiselect) == 2


def test_trend_filters_change_the_chart(home: Path) -> None:
    seed_demo_history(home / "gpuprice.duckdb", date(2026, 9, 10), days=3)
    app = run_app()
    cards = app.multiselect[0]
    cards.set_value(["h20-96g"]).run()
    assert not app.exception
    charts = app.get("vega_lite_chart")
    assert len(charts) == 1, "a trend chart is drawn"
    spec = charts[0].proto.spec
    assert "CNY per card-hour" in spec and "date (UTC)" in spec
    app.multiselect[0].set_value([]).run()
    assert "Nothing matches these filters" in texts(app)
