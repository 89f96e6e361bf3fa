"""Check docs/SCALING.md's DuckLake recipe against a real DuckLake (issue 8).

Runs in the DuckLake environment (``make ducklake-deps``: DuckDB 1.5.5 with the ducklake and
postgres extensions from PyPI), because no ducklake build loads into the DuckDB 2.0.1 the
product uses and DuckDB cannot download extensions here. This checks what DuckLake itself
does with the product's migrations and SQL patterns, statement by statement, and reports
each refusal; the product running on a DuckLake is tests/deploy/test_ducklake_product.py.

    .venv-ducklake/bin/python deploy/ducklake/check_ducklake.py \\
        --catalog 'postgres:dbname=lake host=127.0.0.1 port=5432 user=u password=p' \\
        --data-path /tmp/lake-data/

``--catalog`` is what follows ``ducklake:`` in the ATTACH string (a Postgres connection
string, or a file path for a DuckDB-file catalog). It prints one JSON report on stdout and
exits 0 when every step of the recipe behaves as documented, 1 otherwise (the report says
which step).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "warehouse" / "store" / "migrations"

sys.path.insert(0, str(ROOT))
# The product's own stripping of the constraints DuckLake lacks and extension loading
# (warehouse/store/lake.py).
from warehouse.store.lake import load_extension, without_constraints  # noqa: E402


def statements(path: Path) -> list[str]:
    # Split on ';' after dropping comments: the migrations have no ';' inside a string.
    # tests/deploy/test_ducklake.py compares the tables made here with those the product's
    # migration runner makes, so a split gone wrong shows.
    text = re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8"))
    return [s.strip() for s in text.split(";") if s.strip()]


def attach(catalog: str, data_path: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_extension(con, "ducklake")  # from PyPI's wheel, as the product loads it
    if catalog.startswith("postgres:"):
        load_extension(con, "postgres_scanner")
    con.execute(f"ATTACH 'ducklake:{catalog}' AS lake (DATA_PATH '{data_path}')")
    con.execute("USE lake")
    return con


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0]


OFFER_ROWS = """
SELECT * FROM (VALUES
    (TIMESTAMP '2026-09-10 02:00:00', 'jygpu', 'c-4090-1', 'rtx4090-24g', 'RTX 4090', 1, 24,
     'hourly', 1.89, 'CNY', 'CNY/card-hour', '元/时', 1.89, TRUE),
    (TIMESTAMP '2026-09-10 02:00:00', 'jygpu', 'c-h20-8', 'h20-96g', 'H20', 8, 96,
     'bare_metal_monthly', 52000, 'CNY', 'CNY/server-month', '元/台/月', 9.027778, TRUE)
) AS t(observed_at, source, offer_id, gpu, gpu_name_raw, gpu_count, vram_gb, billing, price,
       currency, unit, unit_raw, cny_per_card_hour, simulated)
"""

# ON CONFLICT DO NOTHING without a key: insert the rows whose key is not there yet.
ANTI_JOIN_LOAD = f"""
INSERT INTO offer BY NAME
SELECT page.* FROM ({OFFER_ROWS}) AS page
ANTI JOIN offer USING (source, offer_id, billing, observed_at)
"""


def run(catalog: str, data_path: str, serving: Path) -> dict[str, Any]:
    kind = "postgres" if catalog.startswith("postgres:") else "duckdb file"
    report: dict[str, Any] = {"duckdb": duckdb.__version__, "catalog": kind}
    con = attach(catalog, data_path)

    refused, failed = [], []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        for statement in statements(path):
            try:
                con.execute(statement)
                continue
            except duckdb.Error as exc:
                refused.append({"migration": path.name, "error": _first_line(exc)})
            try:  # the same statement as the port would write it
                con.execute(without_constraints(statement))
            except duckdb.Error as exc:
                failed.append({"migration": path.name, "error": _first_line(exc)})
    report["refused_as_written"] = refused
    report["failed_without_constraints"] = failed
    report["tables"] = sorted(
        r[0]
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'lake'"
        ).fetchall()
    )

    for name, sql in (
        ("on_conflict", f"INSERT INTO offer BY NAME {OFFER_ROWS} ON CONFLICT DO NOTHING"),
        ("insert_or_replace", "INSERT OR REPLACE INTO region_market SELECT * FROM region_market"),
    ):
        try:
            con.execute(sql)
            report[name] = "accepted"
        except duckdb.Error as exc:
            report[name] = _first_line(exc)
    for _ in range(2):  # the same page loaded twice keeps one copy of each row
        con.execute(ANTI_JOIN_LOAD)
    report["offer_rows_after_two_loads"] = con.execute("SELECT count(*) FROM offer").fetchall()[0][
        0
    ]

    # INSERT OR REPLACE in the derive ledger becomes DELETE + INSERT in one transaction.
    con.execute("BEGIN")
    for _ in range(2):
        con.execute(
            "DELETE FROM derived_snapshot WHERE kind = 'offer' AND source = 'jygpu' "
            "AND observed_at = TIMESTAMP '2026-09-10 02:00:00'"
        )
        con.execute(
            "INSERT INTO derived_snapshot BY NAME SELECT 'offer' AS kind, 'jygpu' AS source, "
            "TIMESTAMP '2026-09-10 02:00:00' AS observed_at, 2 AS row_count, "
            "now()::TIMESTAMP AS derived_at"
        )
    con.execute("COMMIT")
    report["ledger_rows"] = con.execute("SELECT count(*) FROM derived_snapshot").fetchall()[0][0]

    con.execute("ALTER TABLE offer SET SORTED BY (observed_at)")
    report["sorted_by"] = "accepted"

    # A second process (another host, in production) reads while this one holds the lake:
    # with a Postgres catalog there is no file lock to wait for; a DuckDB-file catalog is
    # one process's, like the warehouse file today.
    reader = subprocess.run(
        [sys.executable, __file__, "--catalog", catalog, "--data-path", data_path,
         "--count-offers"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    report["second_process_reads"] = (
        int(reader.stdout) if reader.returncode == 0 else reader.stderr.strip().splitlines()[-1]
    )

    # The serving copy stays a local DuckDB file, ATTACHed from the lake's connection.
    con.execute(f"ATTACH '{serving}' AS serving")
    con.execute(
        "CREATE OR REPLACE TABLE serving.offer_latest AS SELECT * FROM lake.offer "
        "QUALIFY row_number() OVER (PARTITION BY source, offer_id, billing "
        "ORDER BY observed_at DESC) = 1"
    )
    report["serving_rows"] = con.execute("SELECT count(*) FROM serving.offer_latest").fetchall()[0][
        0
    ]
    con.close()
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", required=True, help="what follows 'ducklake:'")
    parser.add_argument("--data-path", required=True, help="where the Parquet files go")
    parser.add_argument("--serving", type=Path, help="a DuckDB file for the serving check")
    parser.add_argument("--count-offers", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count_offers:  # the second process of the check
        print(
            attach(args.catalog, args.data_path)
            .execute("SELECT count(*) FROM offer")
            .fetchall()[0][0]
        )
        return 0
    serving = args.serving or Path(args.data_path).parent / "serving.duckdb"
    report = run(args.catalog, args.data_path, serving)
    ok = (
        not report["failed_without_constraints"]
        and report["on_conflict"] != "accepted"
        and report["insert_or_replace"] != "accepted"
        and report["offer_rows_after_two_loads"] == 2
        and report["ledger_rows"] == 1
        and (report["catalog"] != "postgres" or report["second_process_reads"] == 2)
        and report["serving_rows"] == 2
    )
    report["as_documented"] = ok
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
