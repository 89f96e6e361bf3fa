"""Benchmark: the price index (issue 37, docs/INDEX.md) at scale.

Figures only, no pass/fail (docs/PERFORMANCE.md, "The price index"):

1. `gpuprice index --card rtx4090-24g` (every mode, both kinds, every day) as a user runs it:
   a fresh process each time (start-up, settings, opening the warehouse read-only, the
   query, the output), JSON and table, median and best of --rounds; and `--as-of` a past
   time;
2. the read alone (warehouse.read.index.index_rows), p50 / p95;
3. the baseline: v1 computed from the raw offers by the plain SQL query of docs/INDEX.md,
   for that one card (what answering from `offer` would cost without the stored index);
4. the derive step's index part for one new snapshot: in bench/scale.py's derive figure
   (``bench_derive``, which reports the index step's share beside it).

bench/scale.py calls :func:`bench_index` on each warehouse it builds (`make bench`); on a
kept one: `.venv/bin/python bench/index_speed.py /tmp/b8keep/5y/gpuprice.duckdb`.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from warehouse.read.index import IndexFilter, index_rows  # noqa: E402
from warehouse.store.config import WarehouseConfig  # noqa: E402
from warehouse.store.db import read_frame  # noqa: E402
from warehouse.store.handle import Warehouse  # noqa: E402

CARD = "rtx4090-24g"
Report = Callable[[str, str, str, str, "float | None"], None]


def _print(section: str, what: str, value: str, baseline: str, ratio: float | None) -> None:
    r = f"{ratio:,.1f}x" if ratio is not None else "-"
    print(f"  {section:<8} {what:<52} {value:>20}  vs {baseline:>20}  {r:>9}", flush=True)


def _command(home: Path, args: list[str], rounds: int) -> tuple[float, float, int]:
    """(median s, best s, output bytes) of `gpuprice index ARGS` in a fresh process each."""
    env = os.environ | {"GPUPRICE_HOME": str(home), "COLUMNS": "200"}
    env.pop("GPUPRICE_CONFIG", None)
    times, size = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "gpuprice.main", "index", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
        if run.returncode != 0:
            raise RuntimeError(run.stderr.decode()[-2000:])
        size = len(run.stdout)
    return statistics.median(times), min(times), size


def _doc_query(card: str) -> str:
    """docs/INDEX.md's plain SQL query, for one card (before migration 013: no tier)."""
    text = (ROOT / "docs" / "INDEX.md").read_text(encoding="utf-8")
    sql = re.findall(r"```sql\n(.*?)```", text, re.S)[-1].replace("$min_platforms", "3")
    sql = sql.replace(
        "WHERE source NOT LIKE '%-published'",
        f"WHERE source NOT LIKE '%-published' AND gpu = '{card}'",
    )
    return sql.rstrip().rstrip(";")


def _has_tier(warehouse: Warehouse) -> bool:
    return bool(
        read_frame(
            warehouse,
            "SELECT count(*) AS n FROM duckdb_columns() "
            "WHERE table_name = 'offer' AND column_name = 'tier'",
        )["n"].item()
    )


def bench_index(path: Path, label: str, rounds: int, report: Report = _print) -> None:
    warehouse = Warehouse(path)
    rows = read_frame(warehouse, "SELECT count(*) AS n, min(day) AS a, max(day) AS b FROM price_index "
                      "WHERE superseded_at IS NULL AND gpu = ?", [CARD]).row(0, named=True)  # fmt: skip
    span = f"{rows['a']} .. {rows['b']}"
    median, best, size = _command(path.parent, ["--card", CARD, "--format", "json"], rounds)
    report("index", f"{label}: gpuprice index --card (JSON, {rows['n']:,} rows, {span}), s",
           f"{median:.2f} (best {best:.2f})", f"{size / 1e6:.1f} MB out", None)  # fmt: skip
    median, best, _ = _command(path.parent, ["--card", CARD], rounds)
    report("index", f"{label}: gpuprice index --card (table), s",
           f"{median:.2f} (best {best:.2f})", "", None)  # fmt: skip
    middle = read_frame(warehouse, "SELECT min(published_at) + (max(published_at) - "
                        "min(published_at)) / 2 AS t FROM price_index")["t"].item()  # fmt: skip
    median, best, _ = _command(
        path.parent, ["--card", CARD, "--as-of", middle.isoformat(), "--format", "json"], rounds
    )
    report("index", f"{label}: gpuprice index --card --as-of (mid-history), s",
           f"{median:.2f} (best {best:.2f})", "", None)  # fmt: skip
    reads = []
    for _ in range(max(rounds, 5)):
        start = time.perf_counter()
        index_rows(warehouse, IndexFilter(card=CARD))
        reads.append(time.perf_counter() - start)
    reads.sort()
    sql = _doc_query(CARD)
    if not _has_tier(warehouse):
        sql = sql.replace(", tier\n", "\n").replace(" AND l.tier <> 'member'", "")
    # The raw-offer baseline at the product's 128 MB ran out of memory at five years: it is
    # given 8 GB (what answering from `offer` would need without the stored index).
    roomy = Warehouse(path, WarehouseConfig(memory_limit="8GB"))
    start = time.perf_counter()
    computed = read_frame(roomy, sql, wait_s=60)
    baseline = time.perf_counter() - start
    p50 = statistics.median(reads)
    report("index", f"{label}: the read alone (index_rows, one card), p50 / p95 ms",
           f"{p50 * 1000:.0f} / {reads[int(0.95 * (len(reads) - 1))] * 1000:.0f}",
           f"raw offers {baseline * 1000:,.0f} ms", baseline / p50)  # fmt: skip
    report("index", f"{label}: days the raw-offer computation gave / the index holds",
           f"{computed.height:,} / {rows['n']:,}", "", None)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("warehouse", type=Path, help="a warehouse file (bench/scale.py --keep)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = read_frame(Warehouse(args.warehouse), "SELECT count(*) FROM offer").item()
    bench_index(args.warehouse, f"{n / 1e6:.0f}M rows", args.rounds)


if __name__ == "__main__":
    main()
