"""Migration 003 rebuilds scrape_run and alert (DuckDB cannot change a CHECK in place) in one
transaction and keeps every row."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from warehouse.store.db import migrate, migration_files, utcnow

T = datetime(2026, 9, 4, 2, 0)


def test_rows_survive_and_the_new_values_are_allowed(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(
        "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_at TIMESTAMP NOT NULL)"
    )
    for version, name, sql in migration_files():
        if version < 3:
            con.execute(sql)
            con.execute("INSERT INTO schema_migration VALUES (?, ?, ?)", [version, name, utcnow()])
    con.execute(
        "INSERT INTO scrape_run VALUES ('r1', 'jygpu', 'demo', NULL, ?, ?, 'failed', 0, 0, "
        "'fetch failed: refused')",
        [T, T],
    )
    con.execute(
        "INSERT INTO alert (alert_id, created_at, kind, rule, gpu, source, new_value, message, "
        "against, usage_hours, new_observed_at, simulated, attempts) VALUES "
        "('a1', ?, 'mode_flip', 'r', 'rtx4090-24g', 'jygpu', 500, 'm', 'hourly', 550, ?, true, 2)",
        [T, T],
    )
    con.execute(
        "INSERT INTO spot_quote (observed_at, source, gpu, gpu_name_raw, region, basis, price, "
        "unit_raw, cny_per_card_hour, simulated) VALUES (?, 'smm', 'h20-96g', 'H20-96G', '京津冀', "
        "'整机包月均价', 7.47, '元/卡时', 7.47, false)",
        [T],
    )

    assert migrate(con)[0] == "003_live_sources.sql"  # and any later migrations

    assert con.execute("SELECT run_id, status, error, reason FROM scrape_run").fetchall() == [
        ("r1", "failed", "fetch failed: refused", None)
    ]
    assert con.execute("SELECT alert_id, kind, attempts, gpu FROM alert").fetchall() == [
        ("a1", "mode_flip", 2, "rtx4090-24g")
    ]
    assert con.execute("SELECT currency, quote_kind FROM spot_quote").fetchall() == [
        ("CNY", "market_average")
    ]
    con.execute(
        "INSERT INTO scrape_run VALUES ('r2', 'smm', 'live', NULL, ?, ?, 'skipped', 0, 0, "
        "'not configured', 'not_configured')",
        [T, T],
    )
    con.execute(
        "INSERT INTO alert (alert_id, created_at, kind, rule, source, message, new_observed_at, "
        "simulated) VALUES ('a2', ?, 'scraper_broken', 'scraper:smm', 'smm', 'm', ?, false)",
        [T, T],
    )
    with pytest.raises(duckdb.ConstraintException):  # a price alert still needs its card
        con.execute(
            "INSERT INTO alert (alert_id, created_at, kind, rule, source, message, "
            "new_observed_at, simulated) VALUES ('a3', ?, 'mode_flip', 'r', 's', 'm', ?, false)",
            [T, T],
        )
    with pytest.raises(duckdb.ConstraintException):
        con.execute(
            "INSERT INTO scrape_run VALUES ('r3', 'smm', 'live', NULL, ?, ?, 'broken', 0, 0, "
            "NULL, NULL)",
            [T, T],
        )
    con.close()
