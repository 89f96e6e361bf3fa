"""Missing values read "—" in every table (dashboard.tables), and the first-start banner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from configuration.first_start import BackfillStatus, status_path, write_status
from dashboard import tables
from tests.dashboard.conftest import PAGES, open_page, table, trends_detail
from tests.dashboard.seeding import Seeded

RUNNING = BackfillStatus(
    state="running",
    days_done=12,
    days_total=90,
    started_at="2026-09-10T08:00:00+00:00",
    updated_at="2026-09-10T08:01:00+00:00",
    first_day="2026-08-30",
)


def test_columns_with_missing_values_print_a_dash() -> None:
    frame = pl.DataFrame(
        {
            "p": [1.25, None, float("nan")],
            "n": [3, None, 4],
            "s": ["x", None, "y"],
            "d": [date(2026, 9, 1), None, None],
            "k": [1.5, 2.0, 3.0],
        }
    )
    shown = tables.displayed(frame)
    assert shown["p"].to_list() == ["1.25", "—", "—"]
    assert shown["n"].to_list() == ["3", "—", "4"] and shown["s"].to_list() == ["x", "—", "y"]
    assert shown["d"].to_list() == ["2026-09-01", "—", "—"]
    assert shown.schema["k"] == pl.Float64  # a column with nothing missing keeps its type
    clean = pl.DataFrame({"p": [1.0]})
    assert tables.displayed(clean) is clean


def test_row_style_colours_the_text_table() -> None:
    frame = pl.DataFrame({"status": ["STALE", "fresh"], "h": [None, 2.5]})
    styler = tables.displayed(frame, row_style=lambda row: ["color: red" for _ in row])
    body = styler._translate(False, False)["body"]
    cells = [[c["display_value"] for c in row if c.get("type") == "td"] for row in body]
    assert cells == [["STALE", "—"], ["fresh", "2.5"]]


@pytest.mark.parametrize(
    ("page", "name", "column"),
    [
        ("trends", "tr_table", "min"),
        ("trends", "tr_changes", "yoy_pct"),
        ("report", "rp_medians", "previous_month"),
    ],
)
def test_pages_print_a_dash_for_missing_values(
    page: str, name: str, column: str, use_multi: Seeded
) -> None:
    app = open_page(page)
    if page == "report":
        app.selectbox(key="rp_month").set_value(date(2026, 9, 1)).run()
    if page == "trends":
        trends_detail(app, {"tr_table": "table", "tr_changes": "changes"}[name])
    text = table(app, name).astype(str)  # what the grid prints: the cells are text
    assert "—" in set(text[column])  # quotes have no min; 75 days have no year ago
    assert not {"None", "nan", "NaN", "<NA>"} & set(text.to_numpy().ravel())


def test_banner_while_the_backfill_runs(use: Callable[..., None], tmp_path: Path) -> None:
    use(tmp_path)
    write_status(tmp_path, RUNNING)
    for page in ("trends", "compare", "health"):
        app = open_page(page)
        assert any(
            "历史数据正在回填：已载入 12 / 90 天（自 2026-08-30 起）" in i.value for i in app.info
        ), page
    app.toggle(key="lang_en").set_value(True).run()
    assert any(
        "History is filling: 12 of 90 days loaded (since 2026-08-30)" in i.value for i in app.info
    )


@pytest.mark.parametrize("state", ["done", "failed", "none", "garbage"])
def test_no_banner_otherwise(state: str, use: Callable[..., None], tmp_path: Path) -> None:
    use(tmp_path)
    if state in ("done", "failed"):
        write_status(tmp_path, replace(RUNNING, state=state, days_done=90))
    elif state == "garbage":
        status_path(tmp_path).write_text("{not json", encoding="utf-8")
    app = open_page("trends")
    assert not any("回填" in i.value for i in app.info)
    assert "trends" in PAGES
