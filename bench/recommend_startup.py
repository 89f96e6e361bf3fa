"""Benchmark: how long `gpuprice recommend` and `gpuprice --help` make a user wait.

Prints figures only (no pass/fail). Each case runs --rounds times in a fresh process (as a
user starts the command), each run paired with a run of `python -c pass` right before it, so
the ratio of the pair holds while the machine's speed drifts; printed: the median and best
wall time, and the median ratio to `python -c pass` (issue 39's unit: on the idle machine
that measured it, `python -c pass` took ~0.05 s, so 0.5 s is ~10x and 0.3 s ~6x).

1. `gpuprice --help` (target < 0.3 s idle): the commands of gpuprice/commands/* are listed
   from gpuprice.cli.LAZY_COMMANDS, none imported, in click's plain layout;
2. `gpuprice recommend --help`;
3. `gpuprice recommend --task inference --model Qwen3-32B --context 8192` with no warehouse
   (target < 0.5 s idle; the seeds' prices: no settings, no DuckDB, no Polars);
4. the same with a warehouse holding the reference data (DuckDB and Polars read the prices);
5. an uncached Hugging Face id with the Hub unreachable (HF_ENDPOINT on a closed loopback
   port): the one-line refusal (it was 26 s of retries).

Run: `.venv/bin/python bench/recommend_startup.py [--rounds 7]` (the load average is printed:
a loaded machine slows every figure).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "gpuprice.main"]  # what the `gpuprice` script runs
PASS = [sys.executable, "-c", "pass"]
QWEN = ["recommend", "--task", "inference", "--model", "Qwen3-32B", "--context", "8192"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _once(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    code = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True).returncode
    return time.perf_counter() - start, code


def _time(argv: list[str], env: dict[str, str], rounds: int) -> tuple[float, float, float, int]:
    """(median s, best s, median ratio to `python -c pass`, exit code of the last run),
    after one run not counted (the byte-code caches warm)."""
    _once(argv, env)
    times, ratios, code = [], [], 0
    for _ in range(rounds):
        base, _ = _once(PASS, env)
        took, code = _once(argv, env)
        times.append(took)
        ratios.append(took / base)
    return statistics.median(times), min(times), statistics.median(ratios), code


def _warehouse(home: Path) -> None:
    from warehouse.ingest.reference import load_reference
    from warehouse.store.db import write_connection
    from warehouse.store.handle import Warehouse

    with write_connection(Warehouse(home / "gpuprice.duckdb")) as con:
        load_reference(con)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        empty, filled = Path(tmp, "empty"), Path(tmp, "filled")
        empty.mkdir()
        filled.mkdir()
        _warehouse(filled)
        base = {k: v for k, v in os.environ.items() if not k.startswith(("GPUPRICE_", "HF_"))}
        base |= {"HF_HUB_CACHE": str(Path(tmp, "hf")), "GPUPRICE_HOME": str(empty)}
        offline = base | {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"}
        cases = [
            ("gpuprice --help", [*CLI, "--help"], base),
            ("gpuprice recommend --help", [*CLI, "recommend", "--help"], base),
            ("recommend Qwen3-32B, no warehouse", [*CLI, *QWEN], base),
            ("recommend Qwen3-32B, warehouse", [*CLI, *QWEN], base | {"GPUPRICE_HOME": str(filled)}),
            ("uncached HF id, Hub unreachable", [*CLI, "recommend", "--task", "inference",
                                                 "--model", "acme/nope-7b"], offline),
        ]  # fmt: skip
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {rounds} rounds")
        for what, argv, env in cases:
            median, best, ratio, code = _time(argv, env, rounds)
            print(
                f"{what:<40} median {median:6.3f} s   best {best:6.3f} s   "
                f"{ratio:5.1f}x python -c pass   exit {code}"
            )


if __name__ == "__main__":
    main()
