"""`gpuprice sql` runs its query in a child process whose address space is capped and which is
killed at the timeout (issue 22): a single function's huge result, which DuckDB's memory limit
does not track and whose function ignores the interrupt, is stopped with the memory message or
the timeout message, the child is gone afterwards, and the warehouse opens for writing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from scrapers.gpu_names import CANONICAL_GPUS
from tests.warehouse.test_safe_sql import _home as _home
from tests.warehouse.test_safe_sql import _warehouse_on_ducklake as _warehouse_on_ducklake
from tests.warehouse.test_safe_sql import warehouse as warehouse
from warehouse.read import sql as safe_sql
from warehouse.read import sql_child
from warehouse.store.config import WarehouseConfig
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
TOO_BIG = "needs more memory than the limit of 128MB"
# Each built 3.9 GB or ran past a 20 s interrupt under a 128MB limit before the child process.
HUGE_VALUES = [
    "SELECT length(repeat('x', 2000000000)) AS n",
    "SELECT len(range(400000000)) AS n",
    "SELECT len(list_resize([1], 400000000)) AS n",
]
# Grows its 2 GB value slowly (30 s here before it fails under the cap) and ignores the
# interrupt: the kill at the timeout stops it.
SLOW_HUGE_VALUE = "SELECT length(lpad('x', 2000000000, 'y')) AS n"
RUNAWAY = "SELECT count(*) FROM gpu_spec, range(1000000000000) a, range(1000) b"


@pytest.fixture(autouse=True)
def _limit_128mb(warehouse: Warehouse) -> None:
    # The messages below name the limit: the default one, which the module's warehouse has.
    assert warehouse.memory_limit == "128MB"


def _query_processes(parent: int | None = None) -> list[int]:
    """The pids of the sql_child processes of ``parent`` (this process by default) that are
    still running (a zombie has ended)."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == parent and state != "Z" and b"warehouse.read.sql_child" in cmdline:
            found.append(int(entry.name))
    return found


def _wait_for(condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _warehouse_is_whole(warehouse: Warehouse) -> None:
    """A writer can open the warehouse (no lock left behind) and it reads as before."""
    with write_connection(warehouse, wait_s=5) as con:
        assert con.execute("SELECT count(*) FROM gpu_spec").fetchone() == (len(CANONICAL_GPUS),)
    got = safe_sql.run(warehouse, "SELECT count(*) AS n FROM gpu_spec")
    assert got.rows == [(str(len(CANONICAL_GPUS)),)]


@pytest.mark.parametrize("query", HUGE_VALUES)
def test_a_huge_single_value_is_stopped_by_the_memory_cap(warehouse: Warehouse, query: str) -> None:
    with pytest.raises(safe_sql.QueryTooBig, match=TOO_BIG):
        safe_sql.run(warehouse, query, timeout_s=20)
    assert _query_processes() == []


def test_a_slow_huge_value_that_ignores_the_interrupt_is_killed_at_the_timeout(
    warehouse: Warehouse,
) -> None:
    with pytest.raises(safe_sql.QueryTimeout, match="interrupted after 2 s"):
        safe_sql.run(warehouse, SLOW_HUGE_VALUE, timeout_s=2)
    assert _query_processes() == []
    _warehouse_is_whole(warehouse)


@pytest.mark.parametrize(
    ("query", "says"),
    [(HUGE_VALUES[0], TOO_BIG), (SLOW_HUGE_VALUE, "interrupted after 1 s (the timeout)")],
)
def test_the_command_says_so_with_exit_1(warehouse: Warehouse, query: str, says: str) -> None:
    result = runner.invoke(app, ["sql", query, "--timeout", "1"])
    assert result.exit_code == 1, result.output
    assert says in " ".join(result.stderr.split())
    assert "Traceback" not in result.output
    assert _query_processes() == []


def test_a_query_killed_while_reading_the_warehouse_leaves_it_whole(warehouse: Warehouse) -> None:
    with pytest.raises(safe_sql.QueryTimeout):
        safe_sql.run(warehouse, RUNAWAY, timeout_s=1)
    assert _query_processes() == []
    _warehouse_is_whole(warehouse)


def test_a_child_killed_from_outside_is_reported_as_out_of_memory(warehouse: Warehouse) -> None:
    """What the kernel's OOM killer would do: the child dies without an answer."""
    outcome: list[BaseException] = []

    def query() -> None:
        try:
            safe_sql.run(warehouse, RUNAWAY, timeout_s=60)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    thread = threading.Thread(target=query)
    thread.start()
    assert _wait_for(lambda: bool(_query_processes()))
    for pid in _query_processes():
        os.kill(pid, signal.SIGKILL)
    thread.join(60)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], safe_sql.QueryTooBig), outcome
    assert TOO_BIG in str(outcome[0])
    assert _query_processes() == []
    _warehouse_is_whole(warehouse)


def test_a_normal_query_returns_its_rows_from_the_child(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = _count_children(monkeypatch)
    got = safe_sql.run(warehouse, "SELECT gpu, vram_gb FROM gpu_spec ORDER BY gpu", max_rows=2)
    assert started == [1]
    assert got.columns == ["gpu", "vram_gb"] and got.types[0] == "VARCHAR"
    assert len(got.rows) == 2 and got.truncated
    assert all(isinstance(row, tuple) and isinstance(row[0], str) for row in got.rows)
    as_json = safe_sql.run(warehouse, "SELECT 1 AS n, NULL AS e, 'a' AS s", render="json")
    assert as_json.rows == [("1", "null", '"a"')]
    assert _query_processes() == []


def _count_children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    started = [0]
    popen = subprocess.Popen

    def counting(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started[0] += 1
        return popen(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(sql_child.subprocess, "Popen", counting)
    return started


@pytest.mark.parametrize(
    ("query", "kwargs", "error"),
    [
        ("DELETE FROM gpu_spec", {}, safe_sql.UnsafeQuery),
        ("SELECT * FROM read_csv('/etc/passwd')", {}, safe_sql.UnsafeQuery),
        ("SELECT 1", {"max_rows": 0}, ValueError),
        ("SELECT 1", {"timeout_s": float("inf")}, ValueError),
    ],
)
def test_a_refused_query_starts_no_child(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch, query: str, kwargs: dict, error: type
) -> None:
    started = _count_children(monkeypatch)
    with pytest.raises(error):
        safe_sql.run(warehouse, query, **kwargs)
    assert started == [0]


def test_a_missing_warehouse_starts_no_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = Warehouse(tmp_path / "none.duckdb")  # the file, also when testing on a lake
    started = _count_children(monkeypatch)
    with pytest.raises(safe_sql.WarehouseMissing, match="no warehouse at"):
        safe_sql.run(missing, "SELECT 1")
    assert started == [0]


def test_errors_in_the_child_come_back_as_they_were(warehouse: Warehouse) -> None:
    with pytest.raises(duckdb.CatalogException, match="nope"):
        safe_sql.run(warehouse, "SELECT * FROM nope")
    with pytest.raises(duckdb.ConversionException):
        safe_sql.run(warehouse, "SELECT CAST('x' AS INTEGER)")


def test_a_warehouse_held_by_a_writer_is_reported_busy(tmp_path: Path) -> None:
    busy = Warehouse(tmp_path / "busy.duckdb", WarehouseConfig())  # a file of its own: its lock
    with write_connection(busy) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
        with pytest.raises(safe_sql.WarehouseBusy, match="locked by another process"):
            safe_sql.run(busy, "SELECT * FROM t", wait_s=0.5)
    assert safe_sql.run(busy, "SELECT * FROM t").rows == [("1",)]
    assert _query_processes() == []


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _address_space_cap(pid: int) -> int | None:
    """The child's RLIMIT_AS in bytes, None while unlimited (before it says "ready")."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max address space"):
            soft = line.split()[3]
            return None if soft == "unlimited" else int(soft)
    raise AssertionError("no address space limit line")


def test_the_child_caps_itself_and_ends_itself_when_its_parent_is_killed(
    warehouse: Warehouse,
) -> None:
    """Nobody is left to kill it: it exits ORPHAN_GRACE_S after its timeout (the query would
    run for hours)."""
    script = (
        "import sys; from pathlib import Path; from tests.support.handles import warehouse_at; "
        "from warehouse.read import sql; "
        "sql.run(warehouse_at(Path(sys.argv[1])), sys.argv[2], timeout_s=2)"
    )
    where = str(warehouse.path)
    parent = subprocess.Popen([sys.executable, "-c", script, where, RUNAWAY], cwd=ROOT)
    try:
        assert _wait_for(lambda: bool(_query_processes(parent.pid)))
        (child,) = _query_processes(parent.pid)
        assert _wait_for(lambda: _address_space_cap(child) is not None)  # it is "ready"
        cap = _address_space_cap(child)
    finally:
        parent.kill()
        parent.wait()
    # Python, DuckDB and the attached warehouse (430 MB here) and the headroom over them (at
    # the default limit: the parent's environment sets none)
    assert cap is not None and cap > sql_child.headroom("128MB")

    def ended() -> bool:
        try:
            return _stat(child)[0] == "Z"
        except OSError:
            return True

    assert _wait_for(ended)


@pytest.mark.parametrize(
    ("size", "bytes_"),
    [("128MB", 128_000_000), ("1.5GiB", 3 * 2**29), (" 64 mib ", 64 * 2**20), ("2TB", 2 * 10**12)],
)
def test_memory_sizes_are_read_as_duckdb_reads_them(size: str, bytes_: int) -> None:
    assert sql_child.size_bytes(size) == bytes_


@pytest.mark.parametrize("size", ["lots", "", "-5MB", "1 TB x"])
def test_a_size_that_is_not_one_is_refused(size: str) -> None:
    with pytest.raises(ValueError, match="is not a memory size"):
        sql_child.size_bytes(size)


def test_the_headroom_is_twice_the_limit_and_a_fixed_part() -> None:
    assert sql_child.headroom("128MB") == 256_000_000 + sql_child.HEADROOM_FIXED


def _raises(error: BaseException) -> Callable[[], None]:
    def ready() -> None:
        raise error

    return ready


@pytest.mark.parametrize(
    ("failure", "reply", "raised"),
    [
        (MemoryError(), {"error": "QueryTooBig"}, safe_sql.QueryTooBig),
        (duckdb.OutOfMemoryException("x"), {"error": "QueryTooBig"}, safe_sql.QueryTooBig),
        (
            duckdb.ConversionException("Conversion Error: x"),
            {"error": "duckdb", "class": "ConversionException", "message": "Conversion Error: x"},
            duckdb.ConversionException,
        ),
        (
            safe_sql.WarehouseBusy("locked"),
            {"error": "WarehouseBusy", "message": "locked"},
            safe_sql.WarehouseBusy,
        ),
        (KeyError("k"), {"error": "other", "message": "KeyError: 'k'"}, RuntimeError),
    ],
)
def test_the_child_answers_every_failure_and_the_parent_raises_it(
    warehouse: Warehouse, failure: BaseException, reply: dict, raised: type
) -> None:
    job = sql_child.Job(warehouse, "SELECT 1", 10, "text", 5, 5)
    assert safe_sql.answer(job, _raises(failure)) == reply
    with pytest.raises(raised):
        safe_sql._result(reply, warehouse.memory_limit)


def test_a_duckdb_class_name_that_is_not_an_error_is_raised_as_duckdb_error() -> None:
    with pytest.raises(duckdb.Error, match="odd"):
        safe_sql._result({"error": "duckdb", "class": "connect", "message": "odd"}, "128MB")
