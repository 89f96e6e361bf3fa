"""The Data coverage page (AppTest): per source the days with real and SIMULATED prices, the
imported history among them, a week strip, and the history imports with the captures they
could not load; the same listing at the end of the Data health page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from demo.market.archive import REAL_PAGES, ArchivedPage, LocalArchive
from gpuprice.history_jobs import run_history
from pipelines.history_import import HistoryRequest
from tests.dashboard.conftest import APP, assert_clean, charts, texts, titles
from tests.support.archive_server import ArchiveServer, history_settings
from tests.support.demo_days import load_demo_day
from warehouse.store.db import write_connection

RUNPOD = tuple(p for p in REAL_PAGES if "runpod" in p.original)
GONE = ArchivedPage("20240315120000", "https://www.runpod.io/pricing", None)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two SIMULATED demo days of jygpu and smm, and RunPod's real captures imported (one
    the archive lost)."""
    tmp = tmp_path_factory.mktemp("coverage")
    settings = history_settings(tmp, profile="demo")
    for day in (date(2026, 9, 3), date(2026, 9, 4)):
        load_demo_day(settings.warehouse.path, day)
    with ArchiveServer(LocalArchive(pages=(*RUNPOD, GONE))) as server:
        request = HistoryRequest(kind="wayback", source="runpod", archive_url=server.wayback,
                                 every="day")  # fmt: skip
        assert run_history(settings, request).status == "partial"
    return tmp


def _page(page: str, english: bool = True) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state["lang_en"] = english
    app.run()
    app.switch_page(f"app_pages/{page}.py").run()
    assert_clean(app)
    return app


def _table(app: AppTest, column: str):
    """The table with ``column`` (its column name, whichever language the page is in)."""
    frames = [d.value for d in app.dataframe]
    found = [frame for frame in frames if column in frame.columns]
    assert found, f"no table with a {column!r} column"
    return found[0]


def test_coverage_per_source_real_and_simulated(home: Path, use: Callable[..., None]) -> None:
    use(home / "home", home / "gpuprice.toml")
    app = _page("coverage")
    table = _table(app, "days_with_data")
    rows = {(r["source"], r["data"]): r for r in table.to_dict("records")}
    runpod = rows[("runpod", "real")]
    assert (runpod["first_day_utc"], runpod["last_day_utc"]) == ("2023-09-29", "2026-08-10")
    assert runpod["days_with_data"] == 3 and runpod["of_which_imported_history"] == 3
    jygpu = rows[("jygpu", "SIMULATED")]
    assert jygpu["days_with_data"] == 2 and jygpu["of_which_imported_history"] == 0
    assert ("runpod", "SIMULATED") not in rows
    spec = charts(app)[0]
    assert any("Days with data per week" in t and "(UTC)" in t for t in titles(spec))
    imports = _table(app, "archived_what")
    assert imports.iloc[0]["status"] == "partial" and imports.iloc[0]["rows_added"] == 125
    failures = _table(app, "archive_url_or_origin")
    assert failures.iloc[0]["archive_url_or_origin"] == (
        "https://web.archive.org/web/20240315120000id_/https://www.runpod.io/pricing"
    )
    assert failures.iloc[0]["reason"] == "not_found"
    assert "Captures an import could not load: 1" in texts(app)


def test_the_health_page_lists_the_imports_too(home: Path, use: Callable[..., None]) -> None:
    use(home / "home", home / "gpuprice.toml")
    app = _page("health", english=False)
    assert "历史导入（最新在前）" in texts(app)
    assert _table(app, "archive_url_or_origin").iloc[0]["reason"] == "not_found"


def test_an_empty_warehouse_says_what_to_run(tmp_path: Path, use: Callable[..., None]) -> None:
    settings = history_settings(tmp_path)
    with write_connection(settings.warehouse):
        pass  # created and migrated, empty
    use(tmp_path / "home", tmp_path / "gpuprice.toml")
    app = _page("coverage")
    said = texts(app)
    assert "No prices in the warehouse yet" in said and "No history imports yet" in said
