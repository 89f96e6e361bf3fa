"""Sources per profile: live-only sources (no demo_url) stay out of the demo profile, build_defs
makes assets only for the active profile's sources, and the configuration errors name keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from configuration.settings import ConfigError, load_settings
from pipelines.definitions import build_defs
from tests.support.live_settings import LIVE_SOURCES, settings_from

DEMO_ASSETS = {
    "reference_data", "jygpu_snapshot", "smm_snapshot", "card_value", "monthly_discount",
    "breakeven", "market_premium", "price_index", "serving_copy", "alert",
}  # fmt: skip


def keys(settings) -> set[str]:
    return {k.to_user_string() for k in build_defs(settings).resolve_all_asset_keys()}


def test_the_bundled_config_runs_every_source_on_the_demo_market(tmp_path: Path) -> None:
    demo = load_settings(None, home=tmp_path, profile="demo")
    platforms = [*LIVE_SOURCES, "cloudgrid"]
    assert sorted(demo.enabled_sources()) == sorted(platforms)
    assert demo.source_url("smm") == "http://127.0.0.1:8702"
    assert demo.source_url("vastai") == "http://127.0.0.1:8703/vastai"
    snapshots = {f"{s}_snapshot" for s in platforms}
    assert keys(demo) == DEMO_ASSETS | snapshots | {"fx_rate"}


def test_without_the_bundled_file_the_demo_profile_is_jygpu_and_smm(tmp_path: Path) -> None:
    config = tmp_path / "gpuprice.toml"
    config.write_text("", encoding="utf-8")
    demo = load_settings(config, home=tmp_path, profile="demo")
    assert list(demo.enabled_sources()) == ["jygpu", "smm"]
    assert keys(demo) == DEMO_ASSETS
    with pytest.raises(ConfigError, match="sources.vastai: .*no demo_url"):
        demo.source_url("vastai")


def test_the_live_profile_has_every_live_source_and_the_fx_asset(tmp_path: Path) -> None:
    live = load_settings(None, home=tmp_path, profile="live")
    assert list(live.enabled_sources()) == list(LIVE_SOURCES)
    assert live.source_url("jygpu") == "https://www.jygpu.com"
    assert live.source_url("autodl") == "https://www.autodl.com"
    got = keys(live)
    assert got == DEMO_ASSETS | {f"{s}_snapshot" for s in LIVE_SOURCES} | {"fx_rate"}


def test_a_generic_source_in_the_demo_profile_is_added_without_code(tmp_path: Path) -> None:
    settings = settings_from(
        tmp_path,
        '[sources.examplecloud]\nadapter = "generic"\ndemo_url = "http://127.0.0.1:9"\n'
        '[sources.examplecloud.extract]\npaths = ["/p"]\nunit = "元/时"\n',
        profile="demo",
    )
    assert list(settings.enabled_sources()) == ["jygpu", "smm", "examplecloud"]
    assert "examplecloud_snapshot" in keys(settings)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[sources.foo]\nlive_url = "https://foo"\n', r"no adapter named 'foo'.*adapter = 'generic'"),
        ('[sources.foo]\nadapter = "vastai"\nlive_url = "https://foo"\n', r"sources\.foo\.adapter"),
        ('[sources.vastai.extract]\nunit = "/hr"\n', r"sources\.vastai\.extract: only for adapter"),
        ('[sources.x]\nadapter = "generic"\nlive_url = "u"\n[sources.x.extract]\nunit = "/季"\n',
         r"sources\.x\.extract\.unit: .*unknown billing period"),
        ('[sources.x]\nadapter = "generic"\nlive_url = "u"\n[sources.x.extract]\nrows = 3\n',
         r"sources\.x\.extract\.rows: unknown key; allowed here: currency, jsonld, paths, "
         r"price_per, table_selector, tables, unit"),
        ('[fx]\nusd_cny = 0\n', r"fx\.usd_cny"),
        ('[fx]\nrate = 7\n', r"fx\.rate: unknown key; allowed here: as_of, confirm_days, max_daily_change, note, source_url, usd_cny, usd_cny_max, usd_cny_min"),
        ('[sources.smm]\nsecret_file = "relative/cookie"\n', r"secret_file must be an absolute path"),
    ],
)  # fmt: skip
def test_bad_source_settings_name_the_key(tmp_path: Path, toml: str, message: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(config, home=tmp_path)


def test_a_secrets_file_inside_the_repository_is_refused(tmp_path: Path) -> None:
    inside = Path(__file__).resolve().parent / "cookie"
    config = tmp_path / "c.toml"
    config.write_text(f'[sources.smm]\nsecret_file = "{inside}"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="inside the repository"):
        load_settings(config, home=tmp_path)


def test_a_secret_comes_from_the_environment_then_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cookie = tmp_path / "smm_cookie"
    cookie.write_text("SESSION=from-file\n", encoding="utf-8")
    settings = settings_from(tmp_path, f'[sources.smm]\nsecret_file = "{cookie}"\n')
    for env in ("GPUPRICE_SMM_COOKIE", "GPUPRICE_SMM_COOKIE_FILE"):
        monkeypatch.delenv(env, raising=False)
    assert settings.source_secret("smm", "GPUPRICE_SMM_COOKIE") == "SESSION=from-file"
    other = tmp_path / "other_cookie"
    other.write_text("SESSION=env-file", encoding="utf-8")
    monkeypatch.setenv("GPUPRICE_SMM_COOKIE_FILE", str(other))
    assert settings.source_secret("smm", "GPUPRICE_SMM_COOKIE") == "SESSION=env-file"
    monkeypatch.setenv("GPUPRICE_SMM_COOKIE", "SESSION=env")
    assert settings.source_secret("smm", "GPUPRICE_SMM_COOKIE") == "SESSION=env"
    assert settings.source_secret("autodl", "GPUPRICE_AUTODL_TOKEN") is None
    cookie.unlink()
    monkeypatch.delenv("GPUPRICE_SMM_COOKIE")
    monkeypatch.delenv("GPUPRICE_SMM_COOKIE_FILE")
    with pytest.raises(ConfigError, match="cannot be read"):
        settings.source_secret("smm", "GPUPRICE_SMM_COOKIE")
