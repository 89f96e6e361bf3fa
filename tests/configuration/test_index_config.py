"""``[index]`` (the price index's gates) and ``[[alerts.index_rules]]`` in gpuprice.toml."""

from __future__ import annotations

import pytest

from configuration.settings import ConfigError
from pipelines.derived import index_rules
from warehouse.store.config import IndexGates


def test_the_gates_reach_the_warehouse_handle(make_settings) -> None:
    assert make_settings().warehouse.config.index == IndexGates(min_platforms=3)
    settings = make_settings("[index]\nmin_platforms = 5\n")
    assert settings.warehouse.config.index == IndexGates(min_platforms=5)


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ("[index]\nmin_platforms = 0\n", "index.min_platforms"),
        ('[index]\nmin_platforms = "3"\n', "write numbers without quotes"),
        ("[index]\nmin_sources = 3\n", "unknown key; allowed here: min_platforms"),
    ],
)
def test_bad_gates_are_named(make_settings, toml: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        make_settings(toml)


RULE = """
[[alerts.index_rules]]
name = "4090 index moves 10 % in 30 days"
gpu = "rtx4090-24g"
billing = "hourly"
data = "SIMULATED"
move_pct = 10
days = 30
"""


def test_an_index_rule_is_read_and_handed_to_the_alerts(make_settings) -> None:
    [rule] = index_rules(make_settings(RULE))
    assert (rule.name, rule.gpu, rule.billing, rule.data) == (
        "4090 index moves 10 % in 30 days",
        "rtx4090-24g",
        "hourly",
        "SIMULATED",
    )
    assert (rule.move_pct, rule.days, rule.hysteresis_pct) == (10.0, 30, 2.0)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (('gpu = "rtx4090-24g"', 'gpu = "rtx9999"'), "is not a card id"),
        (("days = 30", "days = 14"), "alerts.index_rules.0.days"),
        (('billing = "hourly"', 'billing = "yearly"'), "alerts.index_rules.0.billing"),
        (('data = "SIMULATED"', 'data = "mixed"'), "alerts.index_rules.0.data"),
        (("move_pct = 10", "move_pct = 10\nhysteresis_pct = 10"), "smaller than move_pct"),
    ],
)
def test_a_bad_index_rule_is_named(make_settings, change: tuple[str, str], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        make_settings(RULE.replace(*change))


def test_rule_names_are_unique_across_both_kinds_of_rule(make_settings) -> None:
    breakeven = """
[[alerts.rules]]
name = "4090 index moves 10 % in 30 days"
gpu = "rtx4090-24g"
usage_hours = 500
threshold_pct = 10
"""
    with pytest.raises(ConfigError, match="rule names must be unique"):
        make_settings(RULE + breakeven)
