import re
from pathlib import Path

import pytest

from configuration.settings import ConfigError, load_settings


def test_defaults_from_the_bundled_file(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path)
    assert settings.profile == "demo"
    assert settings.warehouse.path == tmp_path / "gpuprice.duckdb"
    assert settings.file.schedule.cron == "0 * * * *"
    assert settings.source_url("jygpu") == "http://127.0.0.1:8701"
    # the bundled gpuprice.toml: every source on its own SIMULATED demo platform
    assert set(settings.enabled_sources()) == {
        "jygpu", "smm", "vastai", "runpod", "matpool", "autodl", "gpushare", "ppio",
        "compshare", "lambda", "skypilot", "cloudgrid",
    }  # fmt: skip
    assert settings.source_url("autodl") == "http://127.0.0.1:8703/autodl"


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
        match=r"sources\.x\.url: unknown key; allowed here: adapter, allow_private_redirects, "
        r"archived_urls, catalog, demo_url, enabled, extract, live_url, secret_file",
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


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[schedule]\ntimezone = "Mars/Olympus"\n', "schedule.timezone: 'Mars/Olympus' is not an IANA"),
        ('[schedule]\ntimezone = "../etc"\n', "schedule.timezone"),
        ('[services]\nhost = "not a host!"\n', "services.host: 'not a host!' is not an IP address"),
        ('[demo_market]\nhost = "256.1.1.1"\n', "demo_market.host"),
        ('[http]\nretries = "3"\n', "http.retries: Input should be a valid integer (got the string "
         "'3': write numbers without quotes)"),
        ('[schedule]\nrunning = "false"\n', "schedule.running: Input should be a valid boolean "
         "(got the string 'false': write true or false without quotes)"),
        ('[sources.jygpu]\nenabled = "yes"\n', "sources.jygpu.enabled"),
        ('[http]\nread_timeout_s = "15"\n', "http.read_timeout_s"),
        ('[fx]\nusd_cny = "7.1"\n', "fx.usd_cny: Input should be a number (got the string"),
        ("[fx]\nusd_cny = true\n", "fx.usd_cny"),
        ("[thresholds]\nstale_after_hours = inf\n", "thresholds.stale_after_hours"),
        ("[http]\nbackoff_s = nan\n", "http.backoff_s"),
        ("[http]\nretries = 3.0\n", "http.retries"),
        ('[http]\nuser_agent = "a\\nb"\n', "http.user_agent: must be 1-512 printable ASCII"),
        ('[sources.jygpu]\ndemo_url = "ftp://x"\n', "sources.jygpu.demo_url"),
        ('[sources.jygpu]\nlive_url = "https://x:99999"\n', "sources.jygpu.live_url"),
        ('[sources."my-cloud"]\nadapter = "generic"\nlive_url = "https://x"\n', "is not a source name"),
        ('[sources.x]\nadapter = "generic"\nlive_url = "https://x"\n[sources.x.extract]\n'
         'table_selector = "a["\n', "sources.x.extract.table_selector: 'a[' is not a CSS selector"),
        ('[sources.smm]\nsecret_file = "~nosuchuser/x"\n', "sources.smm.secret_file"),
        ("[fx]\nas_of = 0001-01-01\n", "fx.as_of"),
    ],
)  # fmt: skip
def test_values_that_would_fail_later_or_be_coerced_are_refused(
    tmp_path: Path, toml: str, expected: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(config, home=tmp_path)
    assert expected in str(info.value)


def test_toml_types_still_load_as_before(tmp_path: Path) -> None:
    """Strict mode keeps what TOML gives: ints for floats, a float for Decimal, a date, a path
    as a string; and host names, IPv6, time zones that exist."""
    config = tmp_path / "c.toml"
    config.write_text(
        '[schedule]\ntimezone = "UTC"\n[http]\nread_timeout_s = 2\n[fx]\nusd_cny = 7.25\n'
        'as_of = 2026-01-01\n[services]\nhost = "::1"\n[demo_market]\nhost = "gpuprice.internal"\n'
        '[notify]\nurls_file = "/etc/gpuprice/notify"\n',
        encoding="utf-8",
    )
    settings = load_settings(config, home=tmp_path)
    assert settings.file.http.read_timeout_s == 2.0
    assert str(settings.file.fx.usd_cny) == "7.25"
    assert settings.file.fx.as_of.isoformat() == "2026-01-01"
    assert settings.file.notify.urls_file == Path("/etc/gpuprice/notify")
    assert (settings.file.services.host, settings.file.demo_market.host) == (
        "::1",
        "gpuprice.internal",
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'[http]\nuser_agent = "\xff\xfe"\n', "is not UTF-8 text (byte 0xff on line 2)"),
        (b"a = " + b"[" * 5000 + b"]" * 5000, "nests arrays or tables too deeply"),
        (None, "cannot be read: Is a directory"),
    ],
)
def test_a_file_that_cannot_be_read_as_toml_is_a_config_error(
    tmp_path: Path, content: bytes | None, expected: str
) -> None:
    config = tmp_path / "c.toml"
    if content is None:
        config.mkdir()
    else:
        config.write_bytes(content)
    with pytest.raises(ConfigError, match=re.escape(expected)):
        load_settings(config, home=tmp_path)


def test_the_demo_profile_fetches_its_local_market_without_the_per_host_pause(
    tmp_path: Path,
) -> None:
    demo = load_settings(home=tmp_path, profile="demo")
    live = load_settings(home=tmp_path, profile="live")
    assert demo.file.http.min_interval_s == live.file.http.min_interval_s == 1.0
    assert demo.fetch_http().min_interval_s == 0
    assert live.fetch_http() == live.file.http
