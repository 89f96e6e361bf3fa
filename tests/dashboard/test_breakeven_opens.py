"""Breakeven page (issue 38 item 5): it opens on the watched card, its cost axis starts at
zero, a missing breakeven says why, and two listings behind one line are named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

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
    titles,
)
from tests.dashboard.seeding import Seeded
from warehouse.store.db import write_connection


def watching(seeded: Seeded, tmp_path: Path, gpu: str | None) -> Path:
    """The seeded gpuprice.toml with its first rule's card changed (None: no rules)."""
    text = seeded.config.read_text(encoding="utf-8")
    if gpu is None:
        text = text.split("[[alerts.rules]]", 1)[0]
    else:
        text = text.replace('gpu = "rtx4090-24g"', f'gpu = "{gpu}"', 1)
    config = tmp_path / "gpuprice.toml"
    config.write_text(text, encoding="utf-8")
    return config


def opened_on(app: AppTest) -> tuple[str, str]:
    return app.selectbox(key="be_card").value, app.selectbox(key="be_line").value


def test_opens_on_the_first_watched_card_and_line(use_seeded: Seeded) -> None:
    app = open_page("breakeven")
    assert opened_on(app) == ("rtx4090-24g", "jygpu")  # not 910b-64g, alphabetically first
    assert any("RTX 4090 24GB · jygpu" in x for x in titles(charts(app)[0]))


def test_opens_on_another_watched_card(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    use(seeded.home, watching(seeded, tmp_path, "h20-96g"))
    assert opened_on(open_page("breakeven")) == ("h20-96g", "jygpu")


def test_without_a_watched_card_opens_on_the_most_quoted(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    # the 4090 is on three platforms (jygpu, jygpu-published, testcloud), the rest on two
    for gpu in (None, "b200-180g"):  # no rule; a rule on a card with no data
        use(seeded.home, watching(seeded, tmp_path, gpu))
        card, _line = opened_on(open_page("breakeven"))
        assert card == "rtx4090-24g", gpu


def test_cost_axis_starts_at_zero(use_seeded: Seeded) -> None:
    app = open_page("breakeven")
    spec = charts(app)[0]
    for layer in spec["layer"]:
        assert layer["mark"]["clip"] is True
        if "y" in layer["encoding"]:
            scale = layer["encoding"]["y"]["scale"]
            assert scale["zero"] is True and scale["domainMin"] == 0
    lines = chart_data(app, 0)[0]
    assert lines["cny_per_card_month"].min() == 0  # usage 0 costs nothing, and nothing less


def test_a_dash_says_which_price_is_missing(use_seeded: Seeded) -> None:
    app = open_page("breakeven")
    app.selectbox(key="be_line").set_value("testcloud").run()  # hourly only
    assert_clean(app)
    row = table(app, "be_row").iloc[0]
    assert row["breakeven_vs_hourly"] == "— (该卡在此平台没有裸金属价格)"
    assert row["breakeven_vs_monthly"] == (
        "— (该卡在此平台没有裸金属价格; 此平台没有该卡的包月方案)"
    )
    assert "无法计算 包月容器：该卡在此平台没有裸金属价格; 此平台没有该卡的包月方案" in texts(app)
    app.selectbox(key="be_card").set_value("h20-96g").run()
    app.selectbox(key="be_line").set_value("cheapest").run()
    row = table(app, "be_row").iloc[0]
    assert row["breakeven_vs_hourly"] == "— (该卡在任何平台都没有裸金属价格)"


def test_a_dash_says_why_in_english(use_seeded: Seeded) -> None:
    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state[LANG_KEY] = True
    app.switch_page(PAGES["breakeven"])
    app.run()
    app.selectbox(key="be_line").set_value("testcloud").run()
    assert_clean(app)
    row = table(app, "be_row").iloc[0]
    assert row["breakeven_vs_monthly"] == (
        "— (no bare-metal price for this card on this platform; "
        "no monthly plan for this card on this platform)"
    )


def test_two_listings_behind_one_line_are_named(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    """RunPod's monthly price is a Secure Cloud commitment, its hourly Community Cloud: the
    page names both listings rather than compare them as two ways to rent one."""
    app = open_page_on(use, seeded, tmp_path, monthly_offer=None)
    assert "不同的挂牌" not in texts(app)  # the seeded jygpu line: one listing, both modes
    app = open_page_on(use, seeded, tmp_path / "b", monthly_offer="secure-4090")
    assert "注意：按时容器与包月容器价格来自不同的挂牌（ctr-rtx4090-24g-hz1 vs secure-4090）" in (
        texts(app)
    )


def open_page_on(
    use: Callable[..., None], seeded: Seeded, into: Path, monthly_offer: str | None
) -> AppTest:
    copy = copy_of(seeded, into)
    if monthly_offer is not None:
        with write_connection(copy.warehouse) as con:
            con.execute(
                "UPDATE breakeven SET monthly_offer = $o "
                "WHERE gpu = 'rtx4090-24g' AND source = 'jygpu'",
                {"o": monthly_offer},
            )
    (copy.home / "gpuprice-serving.duckdb").unlink()  # the pages read the warehouse
    use(copy.home, copy.config)
    return open_page("breakeven")
