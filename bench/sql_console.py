"""Benchmark: what running `gpuprice sql`'s query in a child process costs, and what it bounds.

Prints figures only (no pass/fail):

1. ms per query (median and 90th percentile of --rounds) for small queries, in this process as
   before the child (the sandbox, the query and its rendering: warehouse.read.sql's own
   functions) and through ``run()`` (one child process each); the difference is the child's
   start-up cost. Then the parts of it: starting Python, importing warehouse.read.sql.
2. The child's address space once the warehouse is attached (what RLIMIT_AS is set over),
   with glibc's default malloc arenas and with MALLOC_ARENA_MAX=2 (what the child runs with).
3. The queries of issue 22 through the real command (``python -m gpuprice.cli sql``, 128MB,
   ``--timeout 20``): outcome, seconds, peak RSS of the command and its child. With
   ``--unbounded`` also the same queries run in-process as before (an interrupt timer, no
   child), each killed after 60 s (then its figures are lower bounds; up to 4 GB each).

Run: `.venv/bin/python bench/sql_console.py [--rounds 20] [--unbounded]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from warehouse.ingest.reference import load_reference
from warehouse.read import sql as safe_sql
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

SMALL = ["SELECT count(*) FROM gpu_spec", "SELECT * FROM gpu_spec ORDER BY gpu"]
ISSUE_22 = [
    "select length(repeat('x', 2000000000))",
    "select length(lpad('x', 2000000000, 'y'))",
    "select len(range(400000000))",
    "select len(list_resize([1], 400000000))",
]
BASELINE = (
    "import sys; from pathlib import Path; from warehouse.read import sql; "
    "from warehouse.store.handle import Warehouse; "
    "con = sql._sandbox(Warehouse(Path(sys.argv[1])), 5); "
    "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmSize')))"
)


def _in_process(path: Path, query: str, timeout_s: float = 30.0) -> list[tuple]:
    """The query as run() ran it before the child: in this process, interrupted by a timer."""
    con = safe_sql._sandbox(Warehouse(path), 15)
    timer = threading.Timer(timeout_s, con.interrupt)
    timer.start()
    try:
        return safe_sql._rendered(con.sql(safe_sql.check(query)).limit(10_001), "text")
    finally:
        timer.cancel()
        con.close()


def _ms(call: object, rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def _command(argv: list[str], env: dict[str, str], kill_after_s: float) -> tuple[str, float, int]:
    """Run ``argv``: its last stderr line (or how it ended), seconds, peak RSS in MB of it
    and its children."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killer = threading.Timer(kill_after_s, proc.kill)
    killer.start()
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    killer.cancel()
    seconds = time.monotonic() - started
    if os.WIFSIGNALED(status):
        said = f"killed by signal {os.WTERMSIG(status)} (bench cap {kill_after_s:g} s)"
    else:
        lines = [line for line in stderr.splitlines() if line.strip()]
        said = f"exit {os.WEXITSTATUS(status)}: " + (lines[0][:70] if lines else "")
    return said, seconds, usage.ru_maxrss // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--unbounded", action="store_true")
    parser.add_argument("--in-process", nargs=2, metavar=("WAREHOUSE", "QUERY"), help="internal")
    args = parser.parse_args()
    if args.in_process:
        _in_process(Path(args.in_process[0]), args.in_process[1], timeout_s=20)
        return

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gpuprice.duckdb"
        with write_connection(Warehouse(path)) as con:
            load_reference(con)

        print(f"1. ms per query ({args.rounds} rounds; median / p90)")
        for query in SMALL:
            before = _ms(lambda q=query: _in_process(path, q), args.rounds)
            after = _ms(lambda q=query: safe_sql.run(Warehouse(path), q), args.rounds)
            print(f"   {query!r}")
            print(f"     in-process (before): {before[0]:7.1f} / {before[1]:7.1f}")
            print(f"     child process (now): {after[0]:7.1f} / {after[1]:7.1f}")
            print(f"     start-up cost:       {after[0] - before[0]:7.1f} ms (median)")
        rounds = max(3, args.rounds // 4)
        python = _ms(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), rounds)
        imports = _ms(
            lambda: subprocess.run([sys.executable, "-c", "import warehouse.read.sql"], check=True),
            rounds,
        )
        print(f"   of which: start Python {python[0]:.0f} ms, + import {imports[0]:.0f} ms")

        print("2. the child's address space with the warehouse attached (RLIMIT_AS goes over it)")
        for arenas in (None, "2"):
            env = dict(os.environ)
            env.pop("MALLOC_ARENA_MAX", None)
            if arenas:
                env["MALLOC_ARENA_MAX"] = arenas
            done = subprocess.run(
                [sys.executable, "-c", BASELINE, str(path)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            kib = int(done.stdout.split()[-1])
            print(f"   MALLOC_ARENA_MAX={arenas or 'unset':5} {kib // 1024:6d} MB")

        print("3. issue 22's queries at GPUPRICE_DUCKDB_MEMORY_LIMIT=128MB, 20 s timeout")
        env = os.environ | {"GPUPRICE_HOME": tmp, "GPUPRICE_DUCKDB_MEMORY_LIMIT": "128MB"}
        env.pop("GPUPRICE_CONFIG", None)
        for query in ISSUE_22:
            print(f"   {query}")
            now = [sys.executable, "-m", "gpuprice.cli", "sql", query, "--timeout", "20"]
            said, seconds, peak = _command(now, env, kill_after_s=120)
            print(f"     child process (now):  {seconds:6.1f} s, peak {peak:5d} MB, {said}")
            if args.unbounded:
                before = [sys.executable, __file__, "--in-process", str(path), query]
                said, seconds, peak = _command(before, env, kill_after_s=60)
                print(f"     in-process (before): {seconds:6.1f} s, peak {peak:5d} MB, {said}")


if __name__ == "__main__":
    main()
