import re
from pathlib import Path

import pytest

from gpuprice.settings import ConfigError, load_settings


def test_defaults_from_the_bundled_file(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path)
    assert settings.profile == "demo"
    assert settings.warehouse_path == tmp_path / "gpuprice.duckdb"
    assert settings.file.schedule.cron == "0 * * * *"
    assert settings.source_url("jygpu") == "http://127.0.0.1:8701"
    assert set(settings.enabled_sources()) == {"jygpu", "smm"}


def test_live_profile_switches_urls(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path, profile="live")
    assert settings.source_url("jygpu").startswith("https://")


def test_relative_home_is_made_absolute() -> None:
    assert load_settings(home=Path("var")).home.is_absolute()


def test_unknown_key_is_named_with_what_is_allowed(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[http]\ntimeout = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(config, home=tmp_path)
    message = str(info.value)
    assert "http.timeout: unknown key" in message
    assert "read_timeout_s" in message and "connect_timeout_s" in message


def test_unknown_key_inside_a_source(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[sources.x]\ndemo_url="a"\nlive_url="b"\nurl="c"\n', encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=r"sources\.x\.url: unknown key; allowed here: adapter, catalog, demo_url, enabled, "
        r"extract, live_url, secret_file",
    ):
        load_settings(config, home=tmp_path)


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[schedule]\ncron = "0 * * *"\n', "schedule.cron"),
        ("[http]\nretries = -1\n", "http.retries"),
        ('[http]\nretries = "many"\n', "http.retries"),
        ("[demo_market]\njygpu_port = 70000\n", "demo_market.jygpu_port"),
        ("[schedule\n", "not valid TOML"),
    ],
)
def test_bad_values_fail_with_the_key_named(tmp_path: Path, toml: str, expected: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError, match=expected.replace(".", r"\.")):
        load_settings(config, home=tmp_path)


def test_bad_profile_names_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'demo' or 'live'"):
        load_settings(home=tmp_path, profile="prod")


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml", home=tmp_path)


def test_one_source_key_keeps_the_other_defaults(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[sources.smm]\nenabled = false\n", encoding="utf-8")
    settings = load_settings(config, home=tmp_path)
    assert list(settings.enabled_sources()) == ["jygpu"]
    assert settings.file.sources["smm"].demo_url == "http://127.0.0.1:8702"


def test_a_new_source_needs_its_urls(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[sources.other]\nadapter = "generic"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"sources\.other: .*give demo_url and/or live_url"):
        load_settings(config, home=tmp_path)


def test_the_skypilot_catalogs_come_from_its_catalog_table(tmp_path: Path) -> None:
    from pipelines.assets import source_adapter

    config = tmp_path / "c.toml"
    config.write_text(
        '[sources.skypilot.catalog]\nclouds = ["lambda", "runpod"]\ncatalog_version = "v7"\n',
        encoding="utf-8",
    )
    settings = load_settings(config, home=tmp_path, profile="live")
    adapter = source_adapter(settings, "skypilot")
    assert adapter.fetch_plan(settings.source_url("skypilot")) == [
        "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7/"
        f"{cloud}/vms.csv"
        for cloud in ("lambda", "runpod")
    ]
    defaults = load_settings(home=tmp_path, profile="live")
    assert len(source_adapter(defaults, "skypilot").fetch_plan("https://x")) == 6


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[sources.skypilot.catalog]\nclouds = ["AWS!"]\n', "not a SkyPilot cloud name"),
        ("[sources.skypilot.catalog]\nclouds = []\n", "sources.skypilot.catalog.clouds"),
        ('[sources.skypilot.catalog]\ncatalog_version = "8"\n', "catalog_version must look"),
        ('[sources.skypilot.catalog]\nzones = ["a"]\n', "sources.skypilot.catalog.zones"),
        ('[sources.vastai.catalog]\nclouds = ["aws"]\n', "only for the skypilot source"),
    ],
)
def test_a_bad_catalog_table_is_refused(tmp_path: Path, toml: str, expected: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(expected)):
        load_settings(config, home=tmp_path)
