"""Migration 007 rebuilds offer (DuckDB cannot change a CHECK in place) so that prepaid terms
(daily, weekly, yearly) load; every row and the primary key survive."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from warehouse.store.db import migrate, migration_files, utcnow
from warehouse.store.lake import checks

T = datetime(2026, 9, 4, 2, 0)
OFFER = (
    "INSERT INTO offer (observed_at, source, offer_id, gpu, gpu_name_raw, gpu_count, billing, "
    "price, currency, unit, unit_raw, cny_per_card_hour, simulated) VALUES "
    "(?, 'jygpu', ?, 'rtx4090-24g', 'RTX 4090', 1, ?, ?, 'CNY', 'CNY/card-hour', '元/时', ?, true)"
)


def test_offers_survive_and_prepaid_terms_load(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(
        "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_at TIMESTAMP NOT NULL)"
    )
    for version, name, sql in migration_files():
        if version < 7:
            con.execute(sql)
            con.execute("INSERT INTO schema_migration VALUES (?, ?, ?)", [version, name, utcnow()])
    con.execute(OFFER, [T, "c-1", "hourly", 1.98, 1.98])
    with pytest.raises(duckdb.ConstraintException):  # before 007
        con.execute(OFFER, [T, "c-1", "daily", 40, 1.666667])

    assert migrate(con)[0] == "007_prepaid_terms.sql"

    assert con.execute("SELECT offer_id, billing, price FROM offer").fetchall() == [
        ("c-1", "hourly", Decimal("1.98"))
    ]
    for billing in ("daily", "weekly", "yearly"):
        con.execute(OFFER, [T, "c-1", billing, 40, 1.5])
    with pytest.raises(duckdb.ConstraintException):  # the key is still there
        con.execute(OFFER, [T, "c-1", "hourly", 2.0, 2.0])
    with pytest.raises(duckdb.ConstraintException):
        con.execute(OFFER, [T, "c-1", "quarterly", 40, 1.5])
    con.close()


def test_a_ducklake_checks_rows_with_the_rebuilt_tables_constraints() -> None:
    billing = next(check for check in checks("offer") if "billing" in check)
    assert "'yearly'" in billing and "'bare_metal_monthly'" in billing
    assert any("'skipped'" in check for check in checks("scrape_run"))  # 003's rebuild
