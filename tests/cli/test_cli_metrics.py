"""`gpuprice breakeven` and `gpuprice alerts` over a real warehouse, and the rules' config."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from configuration.settings import ConfigError, load_settings
from gpuprice import cli_common
from gpuprice.cli import app
from gpuprice.commands.breakeven_alerts import parse_since
from tests.support.demo_days import insert, reference_warehouse
from tests.support.handles import warehouse_at
from tests.warehouse.derive.rows import listing
from warehouse.derive.alerts import WatchRule, evaluate
from warehouse.derive.metrics import derive
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

T0 = datetime(2026, 10, 1, 2)
cli = CliRunner()


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return reference_warehouse(tmp_path)


@pytest.fixture
def home(warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUPRICE_HOME", str(warehouse.path.parent))
    monkeypatch.setenv("COLUMNS", "250")
    # The console read COLUMNS when gpuprice.cli_common was first imported, perhaps before
    # this fixture (another test in the same worker): give it the wide table directly too.
    monkeypatch.setattr(cli_common.console, "_width", 250)
    return warehouse


def test_breakeven_json_has_the_seed_figures(home: Path) -> None:
    derive(warehouse_at(home))
    result = cli.invoke(app, ["breakeven", "--gpu", "rtx4090-24g", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["source"], r["observed_at"]) for r in rows] == [
        ("jygpu-published", "2026-09-04T00:00:00")
    ]
    row = rows[0]
    assert row["bare_metal_cny_per_card_month"] == 990.0
    assert round(row["breakeven_hours_vs_hourly"], 1) == 505.1
    assert round(row["breakeven_hours_vs_monthly"], 1) == 630.6


def test_breakeven_table_says_what_is_missing(home: Path) -> None:
    derive(warehouse_at(home))
    result = cli.invoke(app, ["breakeven"])
    assert result.exit_code == 0, result.output
    assert "505.1" in result.stdout and "630.6" in result.stdout
    assert "no bare-metal offer" in result.stdout  # H20
    assert "720 h" in result.stdout


@pytest.mark.parametrize("name", ["4090", "RTX 4090", "rtx4090", "NVIDIA GeForce RTX 4090 24GB"])
def test_breakeven_takes_a_cards_name_or_alias(home: Path, name: str) -> None:
    """--gpu goes through the card-name mapping (scrapers.gpu_names) sources go through."""
    derive(warehouse_at(home))
    result = cli.invoke(app, ["breakeven", "--gpu", name, "--json"])
    assert result.exit_code == 0, result.output
    assert {r["gpu"] for r in json.loads(result.stdout)} == {"rtx4090-24g"}


def test_breakeven_takes_h100_sxm(home: Path) -> None:
    result = cli.invoke(app, ["breakeven", "--gpu", "H100 SXM", "--json"])
    assert result.exit_code == 0, result.output
    assert all(r["gpu"] == "h100-80g" for r in json.loads(result.stdout))


@pytest.mark.parametrize(
    ("name", "nearest"),
    [
        ("a100", "did you mean a100-40g or a100-80g?"),  # two sizes: which?
        ("H20", "did you mean h20-141g or h20-96g?"),
        ("mi300", "did you mean mi300x-192g?"),
        ("qwerty", "no card is spelled like it"),
    ],
)
def test_breakeven_suggests_the_nearest_card(home: Path, name: str, nearest: str) -> None:
    result = cli.invoke(app, ["breakeven", "--gpu", name])
    assert result.exit_code == 2
    assert nearest in result.stderr and "\n" not in result.stderr.strip()
    assert "v100s-32g" not in result.stderr  # not the list of every id


def test_breakeven_without_a_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "nothing"))
    result = cli.invoke(app, ["breakeven"])
    assert result.exit_code == 1 and "gpuprice run" in result.output


def test_alerts_listing_and_since(home: Path) -> None:
    r = WatchRule(name="box", gpu="rtx4090-24g", usage_hours=550, source="mk", threshold_hours=30)
    insert(home, listing(T0, "mk", "rtx4090-24g", hourly="2.00", bare_metal="8000"))
    derive(warehouse_at(home))
    evaluate(warehouse_at(home), [r], now=datetime(2026, 10, 1, 3))
    insert(
        home,
        listing(T0 + timedelta(hours=1), "mk", "rtx4090-24g", hourly="1.60", bare_metal="8000"),
    )
    derive(warehouse_at(home))
    evaluate(warehouse_at(home), [r], now=datetime(2026, 10, 2, 3))

    listed = json.loads(cli.invoke(app, ["alerts", "--json"]).stdout)
    assert {a["kind"] for a in listed} == {"breakeven_shift", "mode_flip"}
    shift = next(a for a in listed if a["kind"] == "breakeven_shift")
    assert (shift["old_value"], shift["new_value"]) == (500.0, 625.0)
    assert shift["delivered_at"] is None and shift["rule"] == "box"
    assert json.loads(cli.invoke(app, ["alerts", "--json", "--since", "2026-10-03"]).stdout) == []
    assert (
        len(json.loads(cli.invoke(app, ["alerts", "--json", "--since", "2026-10-02"]).stdout)) == 2
    )
    table = cli.invoke(app, ["alerts"])
    assert table.exit_code == 0 and "500.0 → 625.0" in table.stdout and "pending" in table.stdout
    assert cli.invoke(app, ["alerts", "--since", "yesterday"]).exit_code == 2


def _two_alerts(home: Path) -> None:
    r = WatchRule(name="box", gpu="rtx4090-24g", usage_hours=550, source="mk", threshold_hours=30)
    for k, hourly in enumerate(["2.00", "1.60"]):  # 500 h, then 625 h: a shift and a flip
        at = T0 + timedelta(hours=k)
        insert(home, listing(at, "mk", "rtx4090-24g", hourly=hourly, bare_metal="8000"))
        derive(warehouse_at(home))
        evaluate(warehouse_at(home), [r], now=at + timedelta(minutes=5))


def test_alerts_print_one_line_each_and_the_whole_message_with_verbose(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_alerts(home)
    monkeypatch.setattr(cli_common.console, "_width", 100)  # a terminal of 100 columns
    short = cli.invoke(app, ["alerts"])
    assert short.exit_code == 0, short.output
    lines = short.stdout.splitlines()
    assert len(lines) == 3 and lines[-1].startswith("2 alert(s), newest first")
    assert all(len(line) <= 100 for line in lines[:2])  # cut at the edge, never wrapped
    assert lines[0].startswith("2026-10-01 03:05  flip    RTX 4090 24GB on mk at 550 h/month")
    assert lines[1].startswith("2026-10-01 03:05  shift   RTX 4090 24GB on mk at 550 h/month")
    long = cli.invoke(app, ["alerts", "--verbose"])
    messages = json.loads(cli.invoke(app, ["alerts", "--json"]).stdout)
    for alert in messages:  # each whole message, on one (soft-wrapped) line under its line
        assert f"    {alert['message']}" in long.stdout.splitlines()
    assert "--verbose" not in long.stdout.splitlines()[-1]


def test_alerts_in_chinese(home: Path) -> None:
    _two_alerts(home)
    zh = cli.invoke(app, ["alerts", "--lang", "zh", "--verbose"])
    assert zh.exit_code == 0, zh.output
    assert (
        "租用方式翻转  RTX 4090 24GB（mk），每月 550 小时：按时容器现在比裸金属便宜  [待投递]"
        in zh.stdout
    )
    assert "盈亏平衡 500.0 → 625.0 小时/月（+125.0 小时；阈值 30 小时）" in zh.stdout
    assert (
        "    [SIMULATED 模拟] RTX 4090 24GB（mk）：相对按时容器的盈亏平衡点变动 +125.0 小时"
        in zh.stdout
    )
    assert zh.stdout.splitlines()[-1] == "2 条预警，最新在前，时间为 UTC，盈亏平衡以每月小时计"
    assert cli.invoke(app, ["alerts", "--lang", "fr"]).exit_code == 2


def test_superseded_alerts_only_with_all(home: Path) -> None:
    _two_alerts(home)
    with write_connection(warehouse_at(home)) as con:
        con.execute(
            "UPDATE alert SET superseded = 'older days loaded on 2026-10-02 changed it' WHERE kind = 'mode_flip'"
        )
    shown = cli.invoke(app, ["alerts"]).stdout
    assert " flip " not in shown and "1 superseded not shown (--all)" in shown
    every = cli.invoke(app, ["alerts", "--all"]).stdout
    assert " flip " in every and "[superseded]" in every
    assert len(json.loads(cli.invoke(app, ["alerts", "--json"]).stdout)) == 1


def test_parse_since() -> None:
    now = datetime(2026, 10, 10, 12)
    assert parse_since("7d", now) == datetime(2026, 10, 3, 12)
    assert parse_since("24h", now) == datetime(2026, 10, 9, 12)
    assert parse_since("90m", now) == datetime(2026, 10, 10, 10, 30)
    assert parse_since("2026-09-04", now) == datetime(2026, 9, 4)
    assert parse_since("2026-09-04T10:00+08:00", now) == datetime(2026, 9, 4, 2)


# -- watch rules in the config ---------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "c.toml"
    config.write_text(text, encoding="utf-8")
    return config


def test_rules_are_read_from_the_config(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        '[[alerts.rules]]\nname = "a"\ngpu = "rtx4090-24g"\nusage_hours = 550\n'
        'threshold_pct = 5\n\n[[alerts.rules]]\nname = "b"\ngpu = "h20-96g"\nsource = "jygpu"\n'
        'usage_hours = 300\nagainst = "monthly"\nthreshold_hours = 20\nhysteresis_hours = 0\n',
    )
    rules = load_settings(config, home=tmp_path).file.alerts.rules
    assert [(r.name, r.source, r.against, r.threshold_pct, r.threshold_hours) for r in rules] == [
        ("a", None, "hourly", 5.0, None),
        ("b", "jygpu", "monthly", None, 20.0),
    ]
    from pipelines.derived import watch_rules

    assert [r.line for r in watch_rules(load_settings(config, home=tmp_path))] == [
        "cheapest",
        "jygpu",
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('name = "a"\ngpu = "rtx4090-24g"\nusage_hours = 550\nthreshold_hours = 9\ncolour = 1\n',
         "alerts.rules.0.colour: unknown key; allowed here: against, gpu, hysteresis_hours, name, "
         "source, threshold_hours, threshold_pct, usage_hours"),
        ('name = "a"\ngpu = "rtx4090-24g"\nusage_hours = 550\n', "exactly one of threshold_hours"),
        ('name = "a"\ngpu = "4090"\nusage_hours = 550\nthreshold_hours = 9\n', "is not a card id"),
        ('name = "a"\ngpu = "h20-96g"\nusage_hours = 721\nthreshold_hours = 9\n', "usage_hours"),
        ('name = "a"\ngpu = "h20-96g"\nusage_hours = 1\nthreshold_pct = 9\nagainst = "spot"\n',
         "alerts.rules.0.against"),
    ],
)  # fmt: skip
def test_bad_rules_are_refused_with_the_key_named(tmp_path: Path, body: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(write(tmp_path, "[[alerts.rules]]\n" + body), home=tmp_path)
    assert expected in str(info.value)


def test_rule_names_are_unique(tmp_path: Path) -> None:
    rule = '[[alerts.rules]]\nname = "a"\ngpu = "h20-96g"\nusage_hours = 1\nthreshold_pct = 9\n'
    with pytest.raises(ConfigError, match="repeated: a"):
        load_settings(write(tmp_path, rule + rule), home=tmp_path)


def test_the_bundled_config_and_its_commented_example_rule_load(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path)
    # the demo's watch rule (tests/demo/test_seeded_alerts.py: it fires in the seeded days)
    assert [(r.gpu, r.source) for r in settings.file.alerts.rules] == [("rtx4090-24g", "jygpu")]
    assert settings.file.notify.urls_file is None
    text = settings.config_path.read_text(encoding="utf-8")
    example = text[text.index("# [[alerts.rules]]") :]
    uncommented = "\n".join(line.removeprefix("# ") for line in example.splitlines())
    rules = load_settings(write(tmp_path, uncommented), home=tmp_path).file.alerts.rules
    assert [(r.gpu, r.source, r.usage_hours, r.threshold_hours) for r in rules] == [
        ("rtx4090-24g", "jygpu", 550.0, 30.0)
    ]
