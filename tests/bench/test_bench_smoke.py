"""`make bench` keeps working: bench/scale.py on a one-day warehouse prints every section
(figures are not checked: they are measurements, docs/PERFORMANCE.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_scale_bench_runs_every_section(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "scale.py"),
            *("--days", "1", "--rounds", "2", "--parse-rounds", "2", "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "SIMULATED" in run.stdout
    figures = json.loads(out.read_text(encoding="utf-8"))
    sections = {f["section"] for f in figures}
    assert sections == {"parse", "derive", "ingest", "query", "memory", "index"}
    parsed = {f["what"].split()[0].rstrip(",") for f in figures if f["section"] == "parse"}
    assert parsed == {"jygpu", "smm", "runpod", "generic", "vastai", "matpool", "autodl"}
    # RunPod's four layouts (three real page generations) and the generic extractor's three
    # sites are also measured one by one, each against its own baseline.
    pages = [f for f in figures if f["what"].startswith("runpod, runpod_")]
    assert len(pages) == 4 and all(f["ratio"] > 0 for f in pages), pages
    pages = [f for f in figures if f["what"].startswith("generic, generic_")]
    assert len(pages) == 3 and all(f["ratio"] > 0 for f in pages), pages
    assert not [f for f in figures if f["value"] == "failed"], figures
    queries = [f["what"] for f in figures if f["section"] == "query"]
    assert any("warehouse path" in q for q in queries)
    assert any("open the serving copy" in q for q in queries)


def test_user_waits_bench_prints_each_figure_beside_its_baseline() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "user_waits.py"), "--runs", "1", "--days", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert any(
        line.startswith("gpuprice run, demo profile (12 sources, SIMULATED)") for line in lines
    )
    assert any("hourly run, median of 1:" in line for line in lines), run.stdout
    assert any("run / baseline" in line for line in lines), run.stdout
    backfill = [line for line in lines if line.startswith("gpuprice backfill --days 1:")]
    assert backfill and "offer rows" in backfill[0], run.stdout
    assert not backfill[0].endswith("(0 offer rows)"), backfill  # the days were loaded
    assert any("backfill / baseline" in line for line in lines), run.stdout
