"""Value board (issue 38 item 5): only current prices by default, the older ones counted and
dated in a caption, and every row and dot carrying the date it was observed (UTC)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from dashboard.i18n import LANG_KEY
from tests.dashboard.conftest import (
    APP,
    PAGES,
    assert_clean,
    chart_data,
    charts,
    copy_of,
    open_page,
    table,
    texts,
)
from tests.dashboard.seeding import Seeded
from warehouse.read.compare import FRESH_HOURS
from warehouse.store.db import write_connection

NEWEST = datetime(2026, 9, 10, 2, 0)


@pytest.fixture
def with_old_runpod(use: Callable[..., None], seeded: Seeded, tmp_path: Path) -> Seeded:
    """The seeded warehouse plus a real RunPod 4090 price from 2023-09-29, RunPod's newest:
    what a history import leaves behind for a platform that is no longer scraped."""
    copy = copy_of(seeded, tmp_path)
    with write_connection(copy.warehouse) as con:
        con.execute(
            "INSERT INTO card_value SELECT * REPLACE ('runpod' AS source, "
            "TIMESTAMP '2023-09-29 12:00' AS observed_at, false AS simulated) FROM card_value "
            "WHERE source = 'jygpu' AND gpu = 'rtx4090-24g' AND billing = 'hourly' "
            "ORDER BY observed_at DESC LIMIT 1"
        )
    (copy.home / "gpuprice-serving.duckdb").unlink()  # the pages read the warehouse
    use(copy.home, copy.config)
    return copy


def observed(frame: pd.DataFrame) -> set[datetime]:
    return {datetime.strptime(x, "%Y-%m-%d %H:%M") for x in frame["observed_utc"]}


def test_old_prices_are_left_out_and_counted(with_old_runpod: Seeded) -> None:
    app = open_page("value")
    board = table(app, "va_table")
    assert "runpod" not in set(board["platform"])
    assert "jygpu-published" not in set(board["platform"])  # 2026-09-04: six days old
    assert min(observed(board)) >= NEWEST - timedelta(hours=FRESH_HOURS)
    # hourly: RunPod's 4090 and the three published container prices
    caption = "另有 4 条较旧的价格未显示（观测时间早于最新数据 72 小时以上）"
    assert caption in texts(app)
    assert "最新的观测于 2026-09-04 00:00 UTC，最旧的观测于 2023-09-29 12:00 UTC" in texts(app)
    assert "jygpu-published, runpod" in texts(app)
    assert "截至 2026-09-10 02:00 UTC" in texts(app)
    for index in (0, 1):
        (dots,) = chart_data(app, index)
        assert "runpod" not in set(dots["source"])


def test_older_prices_can_be_shown_with_their_dates(with_old_runpod: Seeded) -> None:
    app = open_page("value")
    app.toggle(key="va_older").set_value(True).run()
    assert_clean(app)
    board = table(app, "va_table")
    runpod = board[board["platform"] == "runpod"].iloc[0]
    assert runpod["observed_utc"] == "2023-09-29 12:00" and runpod["data"] == "real"
    assert "较旧的价格未显示" not in texts(app)
    (dots,) = chart_data(app, 0)
    dated = dots.set_index("source")["observed_at"]
    assert pd.Timestamp(dated["runpod"]).strftime("%Y-%m-%d") == "2023-09-29"


def test_every_dot_carries_its_observation_date(with_old_runpod: Seeded) -> None:
    app = open_page("value")
    for index in (0, 1):
        (dots,) = chart_data(app, index)
        assert dots["observed_at"].notna().all()
        tooltip = charts(app)[index]["layer"][0]["encoding"]["tooltip"]
        (date,) = [x for x in tooltip if x["field"] == "observed_at"]
        assert date["type"] == "temporal" and "UTC" in date["title"]


def test_the_caption_in_english(with_old_runpod: Seeded) -> None:
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state[LANG_KEY] = True
    app.switch_page(PAGES["value"])
    app.run()
    assert_clean(app)
    assert "4 older prices not shown (observed more than 72 h before the newest data)" in texts(app)
    assert app.toggle(key="va_older").label == "Include older prices"
