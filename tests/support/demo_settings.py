"""Settings for tests that run the pipeline against a real demo market on free ports."""

from __future__ import annotations

from pathlib import Path

from configuration.settings import Settings, load_settings
from demo.market import PLATFORM_SOURCES, DemoMarket

# Short timeouts and no per-host pause: the market is on loopback and tests must be quick.
FAST_HTTP = """
[http]
connect_timeout_s = 1
read_timeout_s = 2
retries = 1
backoff_s = 0.05
min_interval_s = 0
"""

# A watch rule on the demo 4090 of jygpu, whose bare metal drops from ¥7,920 to ¥6,840 on
# 2026-09-19: its breakeven vs hourly goes 505.1 h → 436.2 h, past the 30 h threshold and
# below 450 h − 10 h, so it raises a breakeven shift and a mode flip that day.
SHIFT_RULE = """
[[alerts.rules]]
name = "4090 inference box"
gpu = "rtx4090-24g"
source = "jygpu"
usage_hours = 450
threshold_hours = 30
hysteresis_hours = 10
"""

# The demo market's generic-extractor platform, configured as gpuprice.toml configures it.
GENERIC_SOURCE = "cloudgrid"
GENERIC_EXTRACT = """[sources.cloudgrid.extract]
paths = ["/pricing"]
currency = "CNY"
price_per = "machine"
jsonld = false
"""


def platform_sources_toml(market: DemoMarket | None) -> str:
    """``[sources.*]`` tables for every platform source: pointed at ``market``, or (None)
    switched off, so a test runs jygpu and smm alone whatever the default sources are."""
    tables = []
    for name in PLATFORM_SOURCES:
        if name == GENERIC_SOURCE:
            if market is not None:
                url = market.source_url(name)
                tables.append(f'[sources.{name}]\nadapter = "generic"\ndemo_url = "{url}"\n')
                tables.append(GENERIC_EXTRACT)
        elif market is None:
            tables.append(f"[sources.{name}]\nenabled = false\n")
        else:
            tables.append(f'[sources.{name}]\ndemo_url = "{market.source_url(name)}"\n')
    return "".join(tables)


def demo_settings(
    market: DemoMarket, tmp_path: Path, extra_toml: str = "", platforms: bool = False
) -> Settings:
    """A gpuprice.toml pointing jygpu and smm at ``market`` (and with ``platforms`` every
    other source at its platform of ``market``; else they are off), plus ``extra_toml``."""
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f"""{FAST_HTTP}
[sources.jygpu]
demo_url = "{market.jygpu_url}"
[sources.smm]
demo_url = "{market.smm_url}"
{platform_sources_toml(market if platforms else None)}
{extra_toml}""",
        encoding="utf-8",
    )
    return load_settings(config, home=tmp_path / "home", profile="demo")
