"""Settings for tests that run the pipeline against a real demo market on free ports."""

from __future__ import annotations

from pathlib import Path

from gpuprice.settings import Settings, load_settings
from scrapers.demo_market import DemoMarket

# Short timeouts and no per-host pause: the market is on loopback and tests must be quick.
FAST_HTTP = """
[http]
connect_timeout_s = 1
read_timeout_s = 2
retries = 1
backoff_s = 0.05
min_interval_s = 0
"""


def demo_settings(market: DemoMarket, tmp_path: Path, extra_toml: str = "") -> Settings:
    """A gpuprice.toml pointing both demo sources at ``market``, plus ``extra_toml``."""
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f"""{FAST_HTTP}
[sources.jygpu]
demo_url = "{market.jygpu_url}"
[sources.smm]
demo_url = "{market.smm_url}"
{extra_toml}""",
        encoding="utf-8",
    )
    return load_settings(config, home=tmp_path / "home", profile="demo")
