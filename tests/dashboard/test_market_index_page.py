"""The front page, 市场指数 / Market index: it opens at the root, its tiles show the index as
stored (value with its day, 7- and 30-day change, platforms, a 90-day sparkline with
withheld days empty), its lines break at withheld days and carry the reason and a label at
their end, real and SIMULATED sit in tabs of their own (a kind that published nothing
shows where its days are and why), and the outside figures are set against the index."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from configuration.settings import Settings
from dashboard.formatting import money, percent
from tests.dashboard.conftest import APP, assert_clean, chart_data, charts, texts
from tests.dashboard.real_history import build as build_real_history
from tests.dashboard.seeding import Seeded
from tests.support.demo_days import insert, reference_warehouse
from tests.warehouse.derive.test_index import at, platform
from warehouse.derive.metrics import derive
from warehouse.store.db import read_frame

START = date(2026, 9, 1)
THIN = START + timedelta(days=4)  # two platforms only: withheld


def front_page(english: bool = False) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.session_state["lang_en"] = english
    app.run()  # no page named: the root URL's page
    assert_clean(app)
    return app


@pytest.fixture
def small(tmp_path: Path, use: Callable[..., None]) -> Path:
    """Eight days of three platforms listing the 4090 by the hour (the fifth day two only),
    and one day of real captures of two platforms; derived."""
    warehouse = reference_warehouse(tmp_path)
    for offset in range(8):
        day = START + timedelta(days=offset)
        sources = ("pa", "pb") if day == THIN else ("pa", "pb", "pc")
        price = f"{2.00 + 0.05 * offset:.2f}"
        insert(warehouse, [r for s in sources for r in platform(at(day, 8), s, price)])
    insert(warehouse, platform(at(START, 3), "pa", "9.00", simulated=False))
    insert(warehouse, platform(at(START, 3), "pb", "9.50", simulated=False))
    derive(warehouse)
    use(warehouse.path.parent)
    return warehouse.path


def test_the_front_page_is_the_market_index_and_its_tiles_are_the_index(
    use_multi: Seeded,
) -> None:
    app = front_page()
    assert app.title[0].value == "现在租 GPU 要多少钱？"
    newest = read_frame(
        use_multi.warehouse,
        "SELECT gpu, billing, day, value_cny_per_card_hour AS value, change_7d, change_30d, "
        "platforms FROM price_index WHERE superseded_at IS NULL AND kind = 'SIMULATED' "
        "AND status = 'published' QUALIFY day = max(day) OVER (PARTITION BY gpu, billing)",
    )
    assert not newest.is_empty()
    by_label = {m.label: m for m in app.metric}
    tile = by_label["RTX 4090 24GB · 按时计费"]
    [row] = newest.filter(
        (pl.col("gpu") == "rtx4090-24g") & (pl.col("billing") == "hourly")
    ).to_dicts()
    assert tile.value == f"{money(row['value'])} /卡时"  # the unit on the figure
    assert tile.proto.delta == percent(row["change_7d"])
    caption = (
        f"{row['day']} (UTC) · 30 日变化 {percent(row['change_30d'])} · {row['platforms']} 个平台"
    )
    assert caption in texts(app)
    assert len(tile.proto.chart_data) > 30  # the sparkline: up to 90 days
    # the method is one click away: the popover on the page holds it
    assert "配对样本" in texts(app) and "docs/INDEX.md" in texts(app)


def test_lines_break_at_a_withheld_day_and_say_why(small: Path) -> None:
    app = front_page()
    [tile] = app.metric
    assert tile.label == "RTX 4090 24GB · 按时计费" and tile.value == "¥2.35 /卡时"
    sparkline = list(tile.proto.chart_data)
    assert len(sparkline) == 8 and math.isnan(sparkline[4])  # the thin day is a gap
    line, crosses, labels = chart_data(app, 0)
    # two runs of published days: the lines are segments, never drawn across the gap
    assert line["segment"].nunique() == 2 and len(line) == 7
    [cross] = crosses.to_dict("records")
    assert str(cross["day"])[:10] == f"{THIN}"
    assert cross["reason"] == "2 个平台报价，至少需要 3 个"
    assert cross["y_at"] == pytest.approx(2.15)  # drawn at the last value before it
    [label] = labels.to_dict("records")
    assert label["label"] == "RTX 4090 24GB · 按时计费" and label["y"] == pytest.approx(2.35)
    spec = charts(app)[0]
    assert "SIMULATED 市场指数，2026-09-01 至 2026-09-08 (UTC)" in str(spec)
    assert any("SIMULATED" in w.value for w in app.warning)


def test_a_kind_that_published_nothing_shows_its_days_and_why(small: Path) -> None:
    app = front_page(english=True)
    # the real tab: one day, two platforms, withheld; its strip and the reason
    assert "Nothing published in the last 90 days" in texts(app)
    strips = [d for i in range(len(charts(app))) for d in chart_data(app, i)]
    real = [d for d in strips if "shown_status" in d.columns]
    assert real and set(real[0]["shown_status"]) == {"withheld"}
    assert set(real[0]["reason"]) == {"2 platform(s) quoted, at least 3 needed"}
    # the seeds' published figures: real, and no real index on their day
    frames = [f.value for f in app.dataframe]
    seeds = [f for f in frames if "figure" in f.columns and "jygpu-published" in set(f["figure"])]
    assert seeds and set(seeds[0]["index_note"]) == {"no index of this kind that day"}


def test_no_index_yet_says_so(tmp_path: Path, use: Callable[..., None]) -> None:
    warehouse = reference_warehouse(tmp_path)
    derive(warehouse)
    use(warehouse.path.parent)
    app = front_page(english=True)
    assert "No index yet" in texts(app) and not app.metric


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The demo's real history, imported from its archive as `make up` imports it, beside one
    SIMULATED day of RunPod (whose last real capture is of the same day)."""
    return build_real_history(
        tmp_path_factory.mktemp("index-real"), (date(2026, 8, 10),), ("runpod",)
    )


def test_imported_real_history_is_indexed_and_shown_as_such(
    imported: Settings, use: Callable[..., None]
) -> None:
    real = read_frame(
        imported.warehouse,
        "SELECT min(day) AS first, max(day) AS last, count(*) AS days, "
        "count(*) FILTER (WHERE status = 'published') AS published, max(platforms) AS most "
        "FROM price_index WHERE superseded_at IS NULL AND kind = 'real'",
    ).row(0, named=True)
    # as far back as the archive's captures; never three platforms captured on one day
    assert real["first"] == date(2023, 1, 17) and real["days"] > 50
    assert real["published"] == 0 and real["most"] <= 2
    sources = read_frame(
        imported.warehouse,
        "SELECT DISTINCT source FROM index_platform_day WHERE kind = 'real' ORDER BY 1",
    )["source"].to_list()
    assert sources == ["lambda", "runpod", "skypilot"]
    # RunPod's real capture and its SIMULATED price of 2026-08-10: two series, two figures
    both = read_frame(
        imported.warehouse,
        "SELECT kind, count(*) AS n FROM index_platform_day WHERE source = 'runpod' "
        "AND day = '2026-08-10' GROUP BY kind ORDER BY kind",
    )
    assert both["kind"].to_list() == ["SIMULATED", "real"]
    use(imported.home, imported.config_path)
    app = front_page()
    assert "2023-01-17" in texts(app)  # the real tab's days computed reach back to 2023
