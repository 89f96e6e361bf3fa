"""Acceptance: the generic extractor parses an HTML price table configured only in the TOML,
end to end: a loopback site, `gpuprice run` in the live profile, rows in the warehouse."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from tests.support.handles import warehouse_at
from tests.support.live_fixtures import GENERIC_ZH, read
from tests.support.live_settings import FAST_HTTP, sources
from tests.support.loopback import LoopbackServer, reply
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e


def test_a_price_table_configured_only_in_the_toml_lands_in_the_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loopback: LoopbackServer
) -> None:
    loopback.script(
        "/gpu/pricing",
        reply(200, read(GENERIC_ZH), {"Content-Type": "text/html; charset=utf-8"}),
    )
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        FAST_HTTP
        + sources(
            examplecloud={
                "adapter": "generic",
                "live_url": loopback.url,
                "extract": {"paths": ["/gpu/pricing"]},
            }
        ),
        encoding="utf-8",
    )
    home = tmp_path / "home"
    monkeypatch.setenv("GPUPRICE_HOME", str(home))
    monkeypatch.setenv("GPUPRICE_PROFILE", "live")
    result = CliRunner().invoke(app, ["run", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "examplecloud" in result.stdout and "ok" in result.stdout
    assert "/gpu/pricing" in loopback.hits

    path = home / "gpuprice.duckdb"
    offers = read_frame(
        warehouse_at(path),
        "SELECT gpu, gpu_name_raw, gpu_count, billing, price, currency, unit_raw, "
        "cny_per_card_hour, region, simulated FROM offer WHERE source = 'examplecloud' "
        "ORDER BY gpu_name_raw, gpu_count, billing",
    ).to_dicts()
    assert len(offers) == 8
    first = offers[0]
    assert (first["gpu"], first["gpu_name_raw"], first["billing"], first["price"]) == (
        "a100-80g", "A100-SXM4-80GB", "hourly", Decimal("6.5"),
    )  # fmt: skip
    by_name = {(o["gpu_name_raw"], o["gpu_count"], o["billing"]): o for o in offers}
    server = by_name[("RTX 4090", 8, "hourly")]
    assert server["cny_per_card_hour"] == Decimal("1.85")  # ¥14.80 for the 8-card machine
    assert by_name[("昇腾910B", 1, "monthly")]["unit_raw"] == "元/月"
    assert by_name[("MTT S4000", 1, "hourly")]["gpu"] == "unknown"
    assert not any(o["simulated"] for o in offers)
    run = read_frame(warehouse_at(path), "SELECT status, profile, rows FROM scrape_run").to_dicts()
    assert run == [{"status": "ok", "profile": "live", "rows": 8}]
    health = read_frame(warehouse_at(path), "SELECT source, state FROM source_health").rows()
    assert health == [("examplecloud", "ok")]
    # derived on the way: the card values of the new source
    assert (
        read_frame(
            warehouse_at(path), "SELECT count(*) FROM card_value WHERE source = 'examplecloud'"
        ).item()
        > 0
    )
