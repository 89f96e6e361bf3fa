"""The DuckDB memory limit (GPUPRICE_DUCKDB_MEMORY_LIMIT): checked before DuckDB sees it,
carried by the warehouse handle each entry point builds from its settings and applied to
every connection, and a derive backlog too big for it is retried with more room instead of
failing the run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from configuration.environment import MEMORY_LIMIT_ENV
from configuration.settings import ConfigError, load_settings
from tests.support.demo_days import warehouse as warehouse
from tests.support.handles import warehouse_at
from warehouse.derive.metrics import derive
from warehouse.store.db import LARGER_MEMORY_LIMITS, read_frame, with_more_memory, write_connection
from warehouse.store.handle import Warehouse


def with_limit(warehouse: Warehouse, limit: str) -> Warehouse:
    """``warehouse`` opened under another memory limit."""
    return replace(warehouse, config=replace(warehouse.config, memory_limit=limit))


# Simulated: 4 platforms x 6 cards x hourly / monthly / 8-card bare metal, every hour of
# 90 days (~156k offer rows), generated in SQL as a long backfill would leave them.
BACKLOG = """
INSERT INTO offer BY NAME
WITH h AS (SELECT unnest(range(TIMESTAMP '{start}', TIMESTAMP '{end}', INTERVAL 1 HOUR)) AS t),
p AS (SELECT * FROM (VALUES ('sim-a', 1.0), ('sim-b', 1.07), ('sim-c', 0.96),
                            ('sim-d', 1.02)) p(source, f)),
c AS (SELECT * FROM (VALUES ('rtx4090-24g', 1.96), ('rtx5090-32g', 2.9), ('h100-80g', 14.7),
                            ('h20-96g', 7.75), ('a100-80g', 6.5), ('910b-64g', 4.47)) c(gpu, base)),
b AS (SELECT * FROM (VALUES ('hourly', 1.0, 'CNY/card-hour', '元/时', 1),
                            ('monthly', 0.8, 'CNY/card-hour', '元/时', 1),
                            ('bare_metal_monthly', 0.7, 'CNY/server-month', '元/月', 8))
              b(billing, f, unit, unit_raw, n)),
priced AS (
    SELECT h.t, p.source, c.gpu, b.*,
           round(c.base * p.f * b.f * (1 + 0.01 * (hash(h.t, p.source, c.gpu) % 10)), 2) AS per
    FROM h, p, c, b
)
SELECT t AS observed_at, source, source || '-' || gpu || '-' || billing AS offer_id, gpu,
       gpu AS gpu_name_raw, n AS gpu_count, billing,
       CASE WHEN n = 8 THEN round(per * 8 * 720, 2) ELSE per END AS price, 'CNY' AS currency,
       unit, unit_raw, per AS cny_per_card_hour, '华东-杭州' AS region, 'sim' AS run_id,
       true AS simulated
FROM priced
"""


def test_a_bad_memory_limit_is_refused_with_what_to_do(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    for bad in ("lots", "-5MB", "16MB", "1 TB x", "0GB"):
        monkeypatch.setenv(MEMORY_LIMIT_ENV, bad)
        with pytest.raises(ConfigError, match="at least 64MB") as refused:
            load_settings()  # every entry point (CLI, dashboard, Dagster) says so at start
        assert MEMORY_LIMIT_ENV in str(refused.value)
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "300MB")
    settings = load_settings()  # the handle the entry point passes on carries the limit
    assert settings.warehouse.memory_limit == "300MB"
    with write_connection(replace(warehouse, config=settings.warehouse_config)) as con:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    assert limit == "286.1 MiB", limit  # DuckDB prints MiB
    monkeypatch.delenv(MEMORY_LIMIT_ENV)
    settings = load_settings()
    with write_connection(replace(warehouse, config=settings.warehouse_config)) as con:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    assert limit == "122.0 MiB", limit  # the 128MB default


def test_the_warehouse_reads_its_limit_from_its_configuration_not_the_environment(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "lots")  # not read again after start
    with write_connection(with_limit(warehouse, "300MB")) as con:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    assert limit == "286.1 MiB", limit


def test_a_backlog_too_big_for_the_limit_is_derived_with_more_room(warehouse: Warehouse) -> None:
    with write_connection(warehouse) as con:
        con.execute(BACKLOG.format(start="2026-06-01", end="2026-08-30"))
        offers = con.execute("SELECT count(*) FROM offer").fetchall()[0][0]
    assert offers > 150_000
    warehouse = with_limit(warehouse, "64MB")
    summary = derive(warehouse)
    assert summary.memory_limit in LARGER_MEMORY_LIMITS, summary.line()
    assert "needed DuckDB memory_limit" in summary.line()
    assert summary.rows["card_value"] == offers
    assert summary.serving is not None and summary.serving.full
    derived = read_frame(
        warehouse,
        "SELECT count(*) FROM derived_snapshot WHERE kind = 'offer' AND source LIKE 'sim-%'",
    ).item()
    assert derived == offers // 18  # every (platform, hour) snapshot
    # The next, ordinary run (one hour of the four platforms) stays inside the limit.
    with write_connection(warehouse) as con:
        con.execute(BACKLOG.format(start="2026-08-30", end="2026-08-30 01:00"))
    small = derive(warehouse)
    assert small.offer_snapshots == 4 and small.memory_limit is None


def test_the_configured_limit_is_set_back_after_a_larger_one(tmp_path: Path) -> None:
    tries = []

    def step() -> str:
        tries.append(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])
        if len(tries) == 1:
            raise duckdb.OutOfMemoryException("Out of Memory Error: test")
        return "done"

    with write_connection(with_limit(warehouse_at(tmp_path / "w.duckdb"), "96MB")) as con:
        assert with_more_memory(con, step, configured="96MB") == ("done", LARGER_MEMORY_LIMITS[0])
        after = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    assert tries[1] != tries[0]  # the second try ran with more room
    assert after == tries[0]  # and the configured limit is back


def test_every_connection_opens_with_the_configured_limit(warehouse: Warehouse) -> None:
    """Readers, the writer, private in-memory connections and the SQL sandbox (which had
    DuckDB's default, 80% of the RAM: 18.8 GiB here)."""
    from warehouse.read import sql as safe_sql
    from warehouse.store.db import memory_connection, read_connection

    warehouse = with_limit(warehouse, "96MB")
    setting = "SELECT current_setting('memory_limit')"
    with write_connection(warehouse) as con:
        seen = [con.execute(setting).fetchall()[0][0]]
    with read_connection(warehouse) as con:
        seen.append(con.execute(setting).fetchall()[0][0])
    with memory_connection(warehouse.memory_limit, None) as con:
        seen.append(con.execute(setting).fetchall()[0][0])
    sandbox = safe_sql._sandbox(warehouse, 5)
    try:
        seen.append(sandbox.execute(setting).fetchall()[0][0])
    finally:
        sandbox.close()
    seen.append(safe_sql.run(warehouse, setting).rows[0][0])
    assert seen == ["91.5 MiB"] * 5, seen
