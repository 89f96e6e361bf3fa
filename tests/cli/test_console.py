"""The console is for people: `gpuprice run`, `backfill`, `up` and the seeding print one line
per failed source-day saying what failed and what to do (the demo's deliberate layout days
say so), no stack trace and no Dagster log line; the details go to the run log and the
Dagster UI, or to the terminal with --verbose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from configuration.settings import Settings, load_settings
from demo.market import PLATFORM_SOURCES
from demo.market.platforms import layout_change_days
from demo.market.prices import DEFAULT_SEED
from gpuprice import cli_common
from gpuprice.cli import app
from gpuprice.jobs import SourceResult
from gpuprice.run_summary import DELIBERATE, ERROR_CHARS, failure_line
from scrapers.collect import Snapshot, parse_page
from scrapers.http import FetchedPage
from scrapers.sources.matpool import MatpoolAdapter
from tests.support.demo_days import reference_warehouse
from tests.support.live_fixtures import MATPOOL, read
from tests.support.live_settings import FAST_HTTP, sources
from tests.support.loopback import LoopbackServer, reply
from warehouse.ingest.load import load_snapshot

GPUPRICE = str(Path(sys.executable).parent / "gpuprice")
# What must never reach the console: a stack trace, Dagster's own log lines.
NOISE = ("Traceback", "dagster - ERROR", "dagster - WARNING", "were not executed", "Error in ")


def settings(tmp_path: Path, profile: str = "demo") -> Settings:
    return load_settings(home=tmp_path / "home", profile=profile)


def test_a_deliberate_demo_layout_day_says_so(tmp_path: Path) -> None:
    day = min(layout_change_days(DEFAULT_SEED, "matpool"))
    failed = SourceResult("matpool", "failed", 1, 0, "http://x/pools: implausible price …", "drift")
    line = failure_line(settings(tmp_path), day, failed)
    assert line == f"{day} matpool: {DELIBERATE} (nothing to do; other days load)"
    # the same failure on another day, or live, is a real one: fix the adapter
    other = failure_line(settings(tmp_path), day + timedelta(days=1), failed)
    live = failure_line(settings(tmp_path, "live"), day, failed)
    for text in (other, live):
        assert DELIBERATE not in text and "gpuprice reparse --source matpool" in text


@pytest.mark.parametrize(
    ("reason", "error", "advice"),
    [
        ("unreachable", "fetch failed after 0 page(s) (unreachable): ConnectError", "check [sources.jygpu]"),
        ("http_error", "fetch failed: HTTP 503 after 2 attempts", "the next run tries again"),
        ("too_large", "page over 8000000 bytes", "[http].max_page_bytes"),
        ("internal_error", "internal error: IOException: No space left on device", "disk of"),
        ("internal_error", "internal error: IOException: Read-only file system", "cannot be written"),
        ("internal_error", "internal error: BinderException: x", "gpuprice.log"),
    ],
)  # fmt: skip
def test_each_failure_says_what_to_do(tmp_path: Path, reason: str, error: str, advice: str) -> None:
    line = failure_line(
        settings(tmp_path), date(2026, 9, 4), SourceResult("jygpu", "failed", 0, 0, error, reason)
    )
    assert line.startswith("2026-09-04 jygpu: failed (") and "→" in line and advice in line


def test_a_long_error_stays_one_short_line(tmp_path: Path) -> None:
    pages = "; ".join(f"http://x/p{k}: parse error: {'word ' * 80}\nmore" for k in range(3))
    line = failure_line(
        settings(tmp_path), None, SourceResult("jygpu", "failed", 3, 0, pages, "drift")
    )
    assert "\n" not in line and "(+2 more page(s))" in line
    assert len(line) < ERROR_CHARS + 250


def run_cli(
    *args: str, env: dict[str, str], timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [GPUPRICE, *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPRICE_")}
    return env | {"GPUPRICE_HOME": str(home), "COLUMNS": "200"} | extra


@pytest.mark.e2e
def test_a_single_parse_error_is_one_line_and_verbose_shows_the_rest(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    loopback.script("/api/machine_pools", reply(200, b'{"code": 0, "data": {"machines": []}}'))
    config = tmp_path / "gpuprice.toml"
    config.write_text(FAST_HTTP + sources(matpool={"live_url": loopback.url}), encoding="utf-8")
    env = clean_env(tmp_path / "home", GPUPRICE_PROFILE="live", GPUPRICE_CONFIG=str(config))
    done = run_cli("run", env=env)
    out = done.stdout + done.stderr
    assert done.returncode == 1
    assert not [n for n in NOISE if n in out], out
    failures = [line for line in out.splitlines() if line.startswith("matpool: failed")]
    assert len(failures) == 1 and "gpuprice reparse --source matpool" in failures[0], out
    assert len(out.splitlines()) <= 12, out  # the table, the line, where the details are
    log = (tmp_path / "home" / "logs" / "gpuprice.log").read_text(encoding="utf-8")
    assert "matpool_snapshot" in log and "parse error" in log

    verbose = run_cli("run", "--verbose", env=env)
    assert verbose.returncode == 1
    assert "dagster - INFO" in verbose.stderr and "derived_metrics" in verbose.stderr


@pytest.mark.e2e
def test_a_demo_backfill_prints_one_line_per_failed_source_day(tmp_path: Path) -> None:
    """30 days of the whole demo (12 platforms) through the real command, its own market."""
    end = date(2026, 10, 10)
    span = [end - timedelta(days=k) for k in range(29, -1, -1)]
    deliberate = {
        (day, source)
        for source in PLATFORM_SOURCES
        for day in layout_change_days(DEFAULT_SEED, source)
        if span[0] <= day <= end
    }
    assert len(deliberate) >= 3  # the span holds some of the demo's layout days
    done = run_cli("backfill", "--days", "30", "--end", end.isoformat(), env=clean_env(tmp_path))
    out = done.stdout + done.stderr
    assert done.returncode == 1, out  # failed source-days, said
    assert not [n for n in NOISE if n in out], out
    lines = [line for line in out.splitlines() if DELIBERATE in line]
    assert len(lines) == len(deliberate), out
    said = {(date.fromisoformat(line[:10]), line[11:].split(":")[0]) for line in lines}
    assert said == deliberate
    assert f"{len(deliberate)} failed source-day(s)" in done.stdout.replace("\n", " ")
    # the 30 days are one Dagster run, its failed source-days in the run log once each
    with dg.DagsterInstance.from_config(str(tmp_path / "dagster")) as instance:
        assert [r.job_name for r in instance.get_runs()] == ["backfill_job"]
    log = (tmp_path / "logs" / "gpuprice.log").read_text(encoding="utf-8")
    for day, source in deliberate:
        assert log.count(f"{day} {source}: failed (drift)") == 1, log


@pytest.mark.e2e
def test_a_full_disk_is_one_line_saying_so(tmp_path: Path) -> None:
    """A home on a small tmpfs, filled up after a first run (needs the right to mount)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    tried = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if tried.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {tried.stderr.decode().strip()}")
    try:
        env = clean_env(mount / "home")
        assert run_cli("run", "--as-of", "2026-09-20", env=env).returncode == 0
        with (mount / "filler").open("wb") as filler:
            try:
                while True:
                    filler.write(b"\0" * (1 << 20))
            except OSError:
                pass
        done = run_cli("run", "--as-of", "2026-09-21", env=env)
        out = done.stdout + done.stderr
        assert done.returncode in (1, 2)
        assert not [n for n in NOISE if n in out], out
        # the check before the run (warehouse.store.preflight) or, when the disk fills
        # during it, the run's own line
        said = ("free some space on its disk", "is full or cannot be written")
        assert "no run record" not in out and any(text in out for text in said), out
        assert len(out.splitlines()) <= 25, out
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_alerts_show_resolution_and_what_was_not_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = reference_warehouse(tmp_path)
    now = datetime.now(UTC).replace(tzinfo=None, microsecond=0)

    def load(body: bytes, started: datetime, as_of: date | None = None) -> None:
        snap = Snapshot("matpool", "offers", started, as_of)
        page = FetchedPage("https://matgo.cn/api/machine_pools", 200, body, "", started)
        snap.pages = [parse_page(MatpoolAdapter(), page)]
        load_snapshot(warehouse, snap, profile="live")

    broken = read("matpool_renamed_price.json")
    load(read(MATPOOL), now - timedelta(hours=3))
    load(broken, now - timedelta(hours=2))  # a break, news
    load(read(MATPOOL), now - timedelta(hours=1))  # … resolved
    load(broken, now, date(2026, 9, 1))  # a past day: dated by it, not sent
    monkeypatch.setenv("GPUPRICE_HOME", str(warehouse.path.parent))
    monkeypatch.setattr(cli_common.console, "_width", 300)
    shown = CliRunner().invoke(app, ["alerts", "--verbose"])
    assert shown.exit_code == 0, shown.output
    assert f"resolved {now - timedelta(hours=1):%Y-%m-%d %H:%M}" in shown.stdout
    assert "[not sent (history)]" in shown.stdout and "2026-09-01 00:00" in shown.stdout
    assert "    about 2026-09-01, a day of history loaded on" in shown.stdout
    rows = {
        r["created_at"][:10]: r
        for r in json.loads(CliRunner().invoke(app, ["alerts", "--json"]).stdout)
    }
    assert rows["2026-09-01"]["not_sent"] and rows["2026-09-01"]["resolved_at"] is not None
