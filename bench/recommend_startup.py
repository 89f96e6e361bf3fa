"""Benchmark: how long `gpuprice recommend` makes a user wait, and where the time goes.

Prints figures only (no pass/fail), each the median and the best of --rounds runs in a fresh
process (a child per run, as a user starts the command):

1. `import gpuprice.cli` (what every command pays before it starts; ~1 s before issue 29,
   when configuration.schema pulled in the scrapers, DuckDB and Polars at import);
2. `gpuprice recommend --help`;
3. `gpuprice recommend --task inference --model Qwen3-32B --context 8192` with no warehouse
   (the seeds' prices: no DuckDB, no Polars);
4. the same with a warehouse holding the reference data (DuckDB and Polars read the prices);
5. an uncached Hugging Face id with the Hub unreachable (HF_ENDPOINT on a closed loopback
   port): the one-line refusal (it was 26 s of retries).

The target is 0.5 s for (1)-(3) on an idle machine; the figures say how loaded this one was
(the load average is printed). Run: `.venv/bin/python bench/recommend_startup.py [--rounds 5]`.
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
CLI = [sys.executable, "-m", "gpuprice.cli"]
QWEN = ["recommend", "--task", "inference", "--model", "Qwen3-32B", "--context", "8192"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _time(argv: list[str], env: dict[str, str], rounds: int) -> tuple[float, float, int]:
    """(median s, best s, exit code of the last run)."""
    times, code = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        code = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True).returncode
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), code


def _warehouse(home: Path) -> None:
    from warehouse.ingest.reference import load_reference
    from warehouse.store.db import write_connection
    from warehouse.store.handle import Warehouse

    with write_connection(Warehouse(home / "gpuprice.duckdb")) as con:
        load_reference(con)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
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
            ("import gpuprice.cli", [sys.executable, "-c", "import gpuprice.cli"], base),
            ("gpuprice recommend --help", [*CLI, "recommend", "--help"], base),
            ("recommend Qwen3-32B, no warehouse", [*CLI, *QWEN], base),
            ("recommend Qwen3-32B, warehouse", [*CLI, *QWEN], base | {"GPUPRICE_HOME": str(filled)}),
            ("uncached HF id, Hub unreachable", [*CLI, "recommend", "--task", "inference",
                                                 "--model", "acme/nope-7b"], offline),
        ]  # fmt: skip
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {rounds} rounds")
        for what, argv, env in cases:
            median, best, code = _time(argv, env, rounds)
            print(f"{what:<40} median {median:6.3f} s   best {best:6.3f} s   exit {code}")


if __name__ == "__main__":
    main()
