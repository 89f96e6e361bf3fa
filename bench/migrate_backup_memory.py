"""Benchmark: upgrading, checking, backing up and restoring a large warehouse at the default
memory limit (issue 31; figures in docs/RELIABILITY.md).

Builds a warehouse as it was before migration 007 (version 6) holding ``--offers`` offers
(5 M by default: 5,000 listings × 1,000 hours) and ``--pages`` archived pages of ``--page-kb``
KB (10,000 × 100 KB = 1 GB of bodies), with room (8GB). Then, each step in a process of its
own at ``GPUPRICE_DUCKDB_MEMORY_LIMIT`` (``--limit``, default 128MB), it prints the outcome, the
seconds and the process's peak resident memory (ru_maxrss):

1. ``migrate``: the writer's open (warehouse.store.db.write_connection), which applies 007
   (offer rebuilt in slices) and 008;
2. ``check``: warehouse.store.preflight.check_writable, what `gpuprice run` does first;
3. ``backup`` into a new directory (tables copied and checksummed in slices);
4. ``restore`` of that backup into a new home (checked, staged, swapped);
5. ``prune``: retention empties every page's body (warehouse.store.backup.prune_raw_pages).

With ``--before`` it also runs the upgrade, the backup and the prune the way they ran before
issue 31 (007 as one transaction, ``COPY FROM DATABASE`` plus one checksum scan per table,
the prune as one transaction) on copies of the same data. Prints figures only (no pass/fail).

Run: `.venv/bin/python bench/migrate_backup_memory.py [--offers 5000000] [--pages 10000]
[--page-kb 100] [--limit 128MB] [--before] [--json FILE]`. At the default size it needs about
6 GB of temporary disk (removed at the end) and 10 to 20 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from warehouse.store.migrations import migration_files  # noqa: E402

LISTINGS = 5_000  # offers per hour; --offers / LISTINGS hours of history


def build(path: Path, offers: int, pages: int, page_bytes: int) -> None:
    """The warehouse at migration 006 with ``offers`` offers and ``pages`` pages."""
    con = duckdb.connect(str(path), config={"memory_limit": "8GB"})
    con.execute(
        "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_at TIMESTAMP NOT NULL)"
    )
    for version, name, sql in migration_files():
        if version < 7:
            con.execute(sql)
            con.execute(
                "INSERT INTO schema_migration VALUES (?, ?, now()::TIMESTAMP)", [version, name]
            )
    step = 500_000
    for start in range(0, offers, step):
        con.execute(
            "INSERT INTO offer (observed_at, source, offer_id, gpu, gpu_name_raw, gpu_count, "
            "vram_gb, billing, price, currency, unit, unit_raw, cny_per_card_hour, list_price, "
            "region, cpu_cores, ram_gb, disk_gb, page_id, run_id, simulated) "
            "SELECT TIMESTAMP '2021-01-01' + INTERVAL (i // $n) HOUR, 'src' || (i % 12), "
            "'listing-' || (i % $n), 'rtx4090-24g', 'NVIDIA GeForce RTX 4090 24GB', 1 + i % 8, "
            "24, CASE WHEN i % 3 = 0 THEN 'monthly' ELSE 'hourly' END, 1.98 + (i % 97) / 100, "
            "'CNY', 'CNY/card-hour', '元/时', 1.98 + (i % 97) / 100, 2.18, 'region-' || (i % 9), "
            "16, 64, 500, md5((i // $n)::VARCHAR || (i % 12)::VARCHAR), "
            "md5((i // $n)::VARCHAR), true FROM range($lo, $hi) t(i)",
            {"n": LISTINGS, "lo": start, "hi": min(offers, start + step)},
        )
        con.execute("CHECKPOINT")
    for start in range(0, pages, 500):
        con.execute(
            "INSERT INTO raw_page (page_id, source, url, fetched_at, http_status, content_type, "
            "body, parse_status, rows, simulated) SELECT sha256(i::VARCHAR), 'src' || (i % 12), "
            "'https://example.invalid/market?page=' || i, TIMESTAMP '2021-01-01' + "
            "INTERVAL (i) HOUR, 200, 'text/html', "
            "left(repeat(md5(i::VARCHAR) || sha256(i::VARCHAR), $b // 96 + 1), $b)::BLOB, 'ok', "
            "20, true FROM range($lo, $hi) t(i)",
            {"b": page_bytes, "lo": start, "hi": min(pages, start + 500)},
        )
    con.execute("CHECKPOINT")
    con.close()


# Each step as a small program run in a process of its own: argv[1] the memory limit,
# then paths. A failure prints its one line and exits 1.
STEPS = {
    "migrate": """
from warehouse.store.config import WarehouseConfig
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse
with write_connection(Warehouse(Path(sys.argv[2]), WarehouseConfig(memory_limit=sys.argv[1]))):
    pass
""",
    "check": """
from warehouse.store.config import WarehouseConfig
from warehouse.store.handle import Warehouse
from warehouse.store.preflight import check_writable
check_writable(Warehouse(Path(sys.argv[2]), WarehouseConfig(memory_limit=sys.argv[1])))
""",
    "backup": """
from warehouse.store.backup import backup
from warehouse.store.config import WarehouseConfig
from warehouse.store.handle import Warehouse
backup(Warehouse(Path(sys.argv[2]), WarehouseConfig(memory_limit=sys.argv[1])), Path(sys.argv[3]))
""",
    "restore": """
from warehouse.store.config import WarehouseConfig
from warehouse.store.handle import Warehouse
from warehouse.store.restore import restore
restore(Warehouse(Path(sys.argv[2]), WarehouseConfig(memory_limit=sys.argv[1])), Path(sys.argv[3]))
""",
    "prune": """
from datetime import datetime
from warehouse.store.backup import prune_raw_pages
from warehouse.store.config import WarehouseConfig
from warehouse.store.handle import Warehouse
prune_raw_pages(Warehouse(Path(sys.argv[2]), WarehouseConfig(memory_limit=sys.argv[1])), 1, now=datetime(2100, 1, 1))
""",
    # before issue 31: 007 in one transaction; the backup as one COPY plus one checksum scan
    "migrate before": """
import duckdb
from warehouse.store.migrations import migration_files
con = duckdb.connect(sys.argv[2], config={"memory_limit": sys.argv[1]})
con.execute("SET enable_progress_bar = false")
for version, name, sql in migration_files():
    if version == 7:
        con.execute("BEGIN TRANSACTION"); con.execute(sql); con.execute("COMMIT")
""",
    "backup before": """
import duckdb
con = duckdb.connect(":memory:", config={"memory_limit": sys.argv[1], "temp_directory": sys.argv[3] + ".tmp"})
con.execute("SET enable_progress_bar = false")
con.execute(f"ATTACH '{sys.argv[2]}' AS warehouse (READ_ONLY)")
con.execute(f"ATTACH '{sys.argv[3]}' AS backup")
con.execute("COPY FROM DATABASE warehouse TO backup")
for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'backup'").fetchall():
    con.execute(f"SELECT count(*), sum(('0x' || left(md5(t::VARCHAR), 16))::UBIGINT) FROM backup.main.{t} AS t").fetchall()
""",
    "prune before": """
import duckdb
con = duckdb.connect(sys.argv[2], config={"memory_limit": sys.argv[1]})
con.execute("SET enable_progress_bar = false")
con.execute("BEGIN TRANSACTION")
con.execute("INSERT INTO raw_page_pruned SELECT page_id, now()::TIMESTAMP, octet_length(body) FROM raw_page WHERE page_id NOT IN (SELECT page_id FROM raw_page_pruned)")
con.execute("SELECT count(*), coalesce(sum(p.body_bytes), 0) FROM raw_page_pruned p JOIN raw_page r USING (page_id) WHERE octet_length(r.body) > 0").fetchall()
con.execute("UPDATE raw_page SET body = ''::BLOB WHERE octet_length(body) > 0 AND page_id IN (SELECT page_id FROM raw_page_pruned)")
con.execute("COMMIT")
""",
}
PRELUDE = """
import sys
from pathlib import Path
try:
{body}
except Exception as exc:
    print(f"{{type(exc).__name__}}: {{str(exc).splitlines()[0][:200]}}")
    sys.exit(1)
"""


def step(name: str, limit: str, *paths: Path) -> dict[str, object]:
    body = "\n".join("    " + line for line in STEPS[name].strip().splitlines())
    program = PRELUDE.format(body=body)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", program, limit, *map(str, paths)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    said = (proc.stdout.read().strip().splitlines() or [""])[-1] if proc.stdout else ""
    outcome = "ok" if os.waitstatus_to_exitcode(status) == 0 else f"failed: {said}"
    figure = {
        "step": name,
        "limit": limit,
        "outcome": outcome,
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
    }
    print(
        f"{name:<15} {limit:>6}  {figure['seconds']:>7} s  {figure['peak_rss_mb']:>5} MB peak RSS"
        f"  {outcome}",
        flush=True,
    )
    return figure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--offers", type=int, default=5_000_000)
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--page-kb", type=int, default=100)
    parser.add_argument("--limit", default="128MB")
    parser.add_argument("--before", action="store_true", help="also the pre-issue-31 way")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = (args.offers, args.pages, args.page_kb * 1000)
    if args.build:
        build(args.build, *sizes)
        return
    work = Path(tempfile.mkdtemp(prefix="gpuprice-bench-migrate-"))
    figures = []
    try:
        original = work / "v6.duckdb"
        started = time.perf_counter()
        # in a process of its own: a child's peak RSS counts what it inherited when forked,
        # so this process stays small
        subprocess.run(
            [sys.executable, __file__, "--build", str(original)] + sys.argv[1:], check=True
        )
        size = original.stat().st_size / 1e9
        print(
            f"built: {args.offers:,} offers, {args.pages:,} pages of {args.page_kb} KB, "
            f"{size:.2f} GB at migration 006, in {time.perf_counter() - started:.0f} s"
        )
        if args.before:
            shutil.copyfile(original, work / "before.duckdb")
            figures.append(step("migrate before", args.limit, work / "before.duckdb"))
            (work / "before.duckdb").unlink()
        home = work / "home"
        home.mkdir()
        warehouse = home / "gpuprice.duckdb"
        original.rename(warehouse)
        figures.append(step("migrate", args.limit, warehouse))
        figures.append(step("check", args.limit, warehouse))
        if args.before:
            figures.append(step("backup before", args.limit, warehouse, work / "before.bk"))
        figures.append(step("backup", args.limit, warehouse, work / "bk"))
        restored = work / "restored" / "gpuprice.duckdb"
        figures.append(step("restore", args.limit, restored, work / "bk"))
        if args.before:
            figures.append(step("prune before", args.limit, restored))
        figures.append(step("prune", args.limit, warehouse))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
