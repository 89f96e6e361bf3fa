"""Every page on an empty, a half-filled and an unmigrated warehouse: helpful empty states,
never a traceback; plus the language toggle and the SIMULATED labelling."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.dashboard.conftest import (
    PAGES,
    charts,
    has_table,
    open_page,
    table,
    texts,
    trends_detail,
)
from tests.dashboard.seeding import Seeded

EMPTY = "仓库还是空的"
NOT_COMPUTED = "尚未计算"


@pytest.mark.parametrize("page", [p for p in PAGES if p != "recommend"])
def test_empty_warehouse_shows_the_empty_state(
    page: str, use: Callable[..., None], tmp_path: Path
) -> None:
    use(tmp_path)
    app = open_page(page)
    shown = texts(app)
    assert EMPTY in shown and "make up" in shown
    assert "SIMULATED" in shown  # the demo profile's banner
    assert len(app.dataframe) == 0 and not charts(app) and not app.metric


def test_empty_warehouse_recommender_falls_back_to_seed_prices(
    use: Callable[..., None], tmp_path: Path
) -> None:
    use(tmp_path)
    app = open_page("recommend")
    assert "Fallback" in texts(app)


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("value", "`card_value` " + NOT_COMPUTED),
        ("breakeven", "`breakeven` " + NOT_COMPUTED),
        ("alerts", "还没有预警"),
    ],
)
def test_offers_without_derived_rows_say_not_computed(
    page: str, expected: str, use: Callable[..., None], offers_only: Seeded
) -> None:
    use(offers_only.home, offers_only.config)
    app = open_page(page)
    assert expected in texts(app)
    assert not charts(app)


@pytest.mark.parametrize(
    ("page", "missing"),
    [("value", "card_value"), ("breakeven", "breakeven"), ("alerts", "alert")],
)
def test_derived_tables_missing_before_the_migration_say_not_computed(
    page: str, missing: str, use: Callable[..., None], unmigrated: Seeded
) -> None:
    use(unmigrated.home, unmigrated.config)
    app = open_page(page)
    assert f"`{missing}` {NOT_COMPUTED}" in texts(app)
    assert not app.error


@pytest.mark.parametrize("fixture", ["offers_only", "unmigrated"])
def test_trends_and_health_work_from_offers_alone(
    fixture: str, use: Callable[..., None], request: pytest.FixtureRequest
) -> None:
    seeded: Seeded = request.getfixturevalue(fixture)
    use(seeded.home, seeded.config)
    trends = open_page("trends")
    assert len(charts(trends)) == 1 and len(table(trends_detail(trends, "table"), "tr_table")) > 0
    health = open_page("health")
    assert set(table(health, "he_sources")["source"]) == {"jygpu", "smm"}
    rules = open_page("alerts")
    assert has_table(rules, "al_rules")  # rules are settings: shown even with no alert table


def test_language_toggle_switches_every_page_to_english(use_seeded: Seeded) -> None:
    app = open_page("trends")
    assert app.title[0].value == "租金这段时间怎么变了？"
    app.radio(key="tr_grain").set_value("week").run()
    app.toggle(key="lang_en").set_value(True).run()
    assert app.title[0].value == "How have GPU rents moved?"
    assert app.radio(key="tr_grain").value == "week"  # choices survive the language switch
    periods = table(trends_detail(app, "table"), "tr_table")["period"]
    assert {p.weekday() for p in periods} == {0}
    assert [b.label for b in app.download_button] == ["Export CSV", "Export Excel"]
    assert "CNY per card-hour" in " ".join(str(s) for s in charts(app))
    english = {
        "value": "Which card buys the most compute per yuan now?",
        "breakeven": "Hourly, monthly or bare metal: which is cheapest at my usage?",
        "alerts": "What changed that procurement should know?",
        "health": "Is each source's data fresh and complete?",
    }
    for page, title in english.items():
        app.switch_page(PAGES[page]).run()
        assert not app.exception
        assert app.title[0].value == title  # the toggle's value survives page switches
    app.toggle(key="lang_en").set_value(False).run()
    assert app.title[0].value == "各来源的数据新鲜、完整吗？"


def test_simulated_banner_only_in_the_demo_profile_but_rows_always_say_so(
    use: Callable[..., None], seeded: Seeded
) -> None:
    use(seeded.home, seeded.config, profile="live")
    app = open_page("trends")
    assert not any("模拟数据 SIMULATED" in w.value for w in app.warning)
    data = table(trends_detail(app, "table"), "tr_table")
    assert set(data.loc[data["platform"] == "jygpu", "data"]) == {"SIMULATED"}
    assert "所示数据含模拟行" in texts(app)
    use(seeded.home, seeded.config, profile="demo")
    demo = open_page("value")
    assert any("模拟数据 SIMULATED" in w.value for w in demo.warning)


def test_project_streamlit_config_turns_magic_off() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False
