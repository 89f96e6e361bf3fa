"""Storage faults and bad configuration give one line on stderr and exit code 2, never a stack
trace (issue 31), through the real `gpuprice` executable (gpuprice.main) in a subprocess:

- a read-only home (chmod 555; as root the command runs without CAP_DAC_OVERRIDE, since
  root writes through any mode bits): `run` printed 11 stack traces, `restore`, `prune-raw`
  and `reparse` crashed;
- a truncated, a corrupted and a table-less warehouse file, and one that is gone where one
  was kept: each says "restore from a backup: `gpuprice restore DIR`";
- a full disk: a 16 MB tmpfs (root can mount one here; without root the test is skipped, and
  says so);
- a non-UTF-8 file and an unknown time zone named by ``GPUPRICE_CONFIG`` (not --config).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from scrapers.sources import build_adapter
from tests.support.fixture_pages import CONTAINER, PAGES_DIR
from warehouse.ingest.load import load_snapshot
from warehouse.store.backup import backup
from warehouse.store.faults import DiskFull, fault_of
from warehouse.store.handle import Warehouse
from warehouse.store.marker import marker_path

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
GPUPRICE = str(Path(sys.executable).with_name("gpuprice"))
RESTORE_HINT = "restore from a backup: `gpuprice restore DIR`"
FETCHED = datetime(2026, 9, 4, 2, 30)


def make_home(home: Path) -> Warehouse:
    """A home whose warehouse holds an archived jygpu page and its offers."""
    warehouse = Warehouse(home / "gpuprice.duckdb")
    url = "http://127.0.0.1:8701/market/container?as_of=2026-09-04"
    body = (PAGES_DIR / CONTAINER).read_bytes()
    page = FetchedPage(url=url, status=200, body=body, content_type="text/html", fetched_at=FETCHED)
    parsed = ParsedPage(page, build_adapter("jygpu").parse(body, url, FETCHED), None)
    load_snapshot(warehouse, Snapshot("jygpu", "offers", FETCHED, None, [parsed]), profile="demo")
    return warehouse


def gpuprice(
    home: Path, *args: str, env: dict[str, str] | None = None, prefix: Sequence[str] = ()
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "GPUPRICE_CONFIG"}
    environ |= {"GPUPRICE_HOME": str(home), "GPUPRICE_PROFILE": "demo"} | (env or {})
    return subprocess.run(
        [*prefix, GPUPRICE, *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def as_bits_say() -> list[str]:
    """How to run a command so that a file's mode bits hold: root writes through any of them
    (CAP_DAC_OVERRIDE), so as root without that capability (util-linux's setpriv)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores a read-only mode without setpriv to drop CAP_DAC_OVERRIDE")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]


def one_line(result: subprocess.CompletedProcess[str], expected: str) -> None:
    """Exit 2, one line on stderr holding ``expected``, no stack trace anywhere."""
    shown = result.stderr.strip()
    assert result.returncode == 2, (result.returncode, result.stdout[-2000:], shown[-2000:])
    assert "Traceback" not in result.stderr + result.stdout
    assert len(shown.splitlines()) == 1, shown
    assert expected in shown, shown


def test_a_read_only_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    warehouse = make_home(home)
    bk = tmp_path / "bk"
    backup(warehouse, bk)
    home.chmod(0o555)
    warehouse.path.chmod(0o444)
    prefix = as_bits_say()
    try:
        for args in (
            ["run"],
            ["restore", str(bk)],
            ["prune-raw", "--days", "1"],
            ["reparse", "--source", "jygpu"],
        ):
            one_line(gpuprice(home, *args, prefix=prefix), "cannot write")
        # reading needs no writing
        read = gpuprice(home, "sql", "SELECT count(*) FROM offer", prefix=prefix)
        assert read.returncode == 0, read.stderr
    finally:
        home.chmod(0o755)


@pytest.mark.parametrize("damage", ["truncated", "corrupted", "no tables", "gone"])
def test_a_damaged_or_lost_warehouse_says_restore(tmp_path: Path, damage: str) -> None:
    home = tmp_path / "home"
    warehouse = make_home(home)
    path = warehouse.path
    assert marker_path(path).exists()
    if damage == "truncated":  # a copy cut short: the header whole, most blocks gone
        with path.open("r+b") as file:
            file.truncate(100_000)
    elif damage == "corrupted":
        with path.open("r+b") as file:
            file.write(b"garbage " * 64)  # over DuckDB's header
    elif damage == "no tables":
        path.unlink()
        duckdb.connect(str(path)).close()
    else:
        path.unlink()
    expected = {"gone": "is missing", "no tables": "has no tables"}.get(damage, "is damaged")
    commands = [
        ["run"],
        ["sql", "SELECT count(*) FROM offer"],
        ["quarantine", "list"],
        ["reparse", "--source", "jygpu"],
        ["prune-raw", "--days", "1"],
    ]
    for args in commands:
        result = gpuprice(home, *args)
        one_line(result, RESTORE_HINT)
        assert expected in result.stderr, (args, result.stderr)
    log = (home / "logs" / "cli.log").read_text(encoding="utf-8")  # the trace, for whoever asks
    assert "Traceback (most recent call last)" in log and "gpuprice run" in log


def test_a_full_disk(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(home)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"a full disk is simulated with a tmpfs, which needs root: {mounted.stderr}")
    try:
        make_home(home)
        one_line(gpuprice(home, "run"), "free some space on its disk")
        # and DuckDB's own words for it, when a write meets the end of the disk
        filler = duckdb.connect(str(home / "filler.duckdb"), config={"memory_limit": "64MB"})
        with pytest.raises(duckdb.Error) as full:
            filler.execute(
                "CREATE TABLE t AS SELECT gen_random_uuid()::VARCHAR AS u FROM range(2000000)"
            )
            filler.execute("CHECKPOINT")
        filler.close()
        assert isinstance(fault_of(full.value), DiskFull), full.value
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'[schedule]\ncron = "0 * * * *"\n# \xff\xfe\n', "is not UTF-8 text"),
        (b'[schedule]\ntimezone = "Mars/Olympus"\n', "is not an IANA time zone"),
    ],
)
def test_bad_configuration_named_by_the_environment(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    config = tmp_path / "named.toml"
    config.write_bytes(content)
    env = {"GPUPRICE_CONFIG": str(config)}
    for args in (["run"], ["sql", "SELECT 1"], ["backfill", "--days", "1"]):
        one_line(gpuprice(tmp_path / "home", *args, env=env), expected)
    with_option = gpuprice(tmp_path / "home", "sql", "SELECT 1", "--config", str(config))
    one_line(with_option, expected)  # the same message either way


def test_an_unexpected_error_is_one_line_and_its_trace_goes_to_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever else goes wrong: one line naming the error and where its trace is, exit 2."""
    import warehouse.read.sql as safe_sql
    from gpuprice.main import main

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something nobody planned for\nwith a second line")

    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path))
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    monkeypatch.setattr(safe_sql, "run", broken)
    with pytest.raises(SystemExit) as ended:
        main(["sql", "SELECT 1"])
    assert ended.value.code == 2
    shown = capsys.readouterr().err.strip()
    log = tmp_path / "logs" / "cli.log"
    assert shown.splitlines() == [
        f"gpuprice failed: RuntimeError: something nobody planned for (the details are in {log})"
    ]
    assert "Traceback (most recent call last)" in log.read_text(encoding="utf-8")
