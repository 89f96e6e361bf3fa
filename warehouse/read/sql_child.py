"""The process an ad-hoc query runs in (warehouse.read.sql.run), so that the operating system
bounds its memory and time, not only DuckDB.

DuckDB's ``memory_limit`` tracks its buffers, not what one function's result holds, and a
function building one huge value does not look at the interrupt: at 128MB in one process,
``repeat('x', 2000000000)`` grew to 3.9 GB, ``len(range(400000000))`` to 15 GB and past a
20 s interrupt (bench/sql_console.py --unbounded). So the query runs in a child process
(``python -m warehouse.read.sql_child_main``, a fresh interpreter: no fork of a process with
DuckDB's threads, and nothing of the caller's ``__main__`` imported again):

1. The parent sends the job (pickled; the child trusts its parent) over a socket pair and
   waits for the child to attach the warehouse, at most ``wait_s`` (the lock wait) plus
   :data:`START_S`.
2. The child caps its own address space (``RLIMIT_AS``) at what it maps once the warehouse is
   attached plus :func:`headroom`, says "ready", and runs the query. A value too big for the
   cap fails to allocate at once: DuckDB raises ``OutOfMemoryException``, Python
   ``MemoryError``.
3. The parent waits ``timeout_s`` for the answer and SIGKILLs the child if none came. Killing
   a reader is safe: it attached the warehouse read-only and writes nothing.

The answer comes back as JSON (the rows are text and JSON strings already, at most
``max_rows`` of them): the parent unpickles nothing a query's process produced.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import Any

from warehouse.store.handle import Warehouse

# Starting Python, importing DuckDB and polars and attaching the warehouse took 0.3-0.4 s here
# (bench/sql_console.py); the rest is for a loaded machine or a DuckLake catalog far away.
START_S = 30.0
# Room over the address space the child maps before the query (Python, DuckDB, its threads'
# stacks, the attached warehouse: measured 430 MB on 2 cores, in bench/sql_console.py): twice
# DuckDB's limit (its buffers, and as much again that DuckDB allocates untracked: vectors,
# string heaps, per-thread state) plus a fixed part for the rendered rows in Python and their
# JSON. The workload of bench/sql_console.py needed at most 145 MB over the baseline at
# 128MB; it all still ran at 256 MB of headroom, this gives 512 MB.
HEADROOM_FIXED = 256 * 2**20
# glibc reserves 64 MiB of address space per malloc arena, up to 8 per core: 1.1 GB of the
# child's 1.1 GB baseline on 2 cores, 32 GB on a 64-core server, none of it used. Two arenas
# make the baseline what the process really maps (430 MB here) at the same query times.
MALLOC_ARENAS = "2"
# If the parent dies, nobody kills the child: it ends itself this long after the timeout.
ORPHAN_GRACE_S = 2.0
READY = b"ready"  # the child's first message once it is capped, before the query
CHILD_MODULE = "warehouse.read.sql_child_main"  # its entry point
_UNITS = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Job:
    """What the child runs: ``text`` (already checked) on the parent's ``warehouse`` handle
    (the child builds no settings of its own)."""

    warehouse: Warehouse
    text: str
    max_rows: int
    render: str
    wait_s: float
    timeout_s: float


class ChildTimedOut(RuntimeError):
    """No answer within the timeout; the child was killed."""


class ChildNotReady(RuntimeError):
    """The child did not attach the warehouse in time; it was killed."""


class ChildLost(RuntimeError):
    """The child ended without an answer (for a query, a failed allocation DuckDB did not
    catch, or the kernel's OOM killer)."""

    def __init__(self, returncode: int | None) -> None:
        super().__init__(f"the query's process ended with status {returncode}")
        self.returncode = returncode


def size_bytes(limit: str) -> int:
    """A DuckDB memory size such as ``128MB`` or ``1.5GiB`` in bytes (KB, MB … are powers of
    1000 for DuckDB, KiB, MiB … of 1024)."""
    match = _SIZE.fullmatch(limit)
    if not match:
        raise ValueError(f"{limit!r} is not a memory size such as 128MB or 1GiB")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def headroom(memory_limit: str) -> int:
    """The bytes of address space a query may map over the child's baseline."""
    return 2 * size_bytes(memory_limit) + HEADROOM_FIXED


def run_in_child(job: Job) -> dict[str, Any]:
    """The child's answer to ``job`` (a JSON object), or ChildNotReady, ChildTimedOut,
    ChildLost. The child is gone when this returns or raises."""
    ours, theirs = Pipe()
    env = os.environ | {"MALLOC_ARENA_MAX": MALLOC_ARENAS}
    with theirs:
        child = subprocess.Popen(
            [sys.executable, "-m", CHILD_MODULE, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            # Everything the child has to say comes over the pipe; a crash, by its status.
            stderr=subprocess.DEVNULL,
            env=env,
        )
    try:
        with ours:
            return _answer(ours, job)
    except (EOFError, ConnectionError):  # it ended without an answer: let it say how
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=ORPHAN_GRACE_S)
        raise ChildLost(child.returncode) from None
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def _answer(ours: Connection, job: Job) -> dict[str, Any]:
    ours.send(job)
    if not ours.poll(job.wait_s + START_S):
        raise ChildNotReady(
            f"the query's process did not open the warehouse within {job.wait_s + START_S:g} s"
        )
    first = ours.recv_bytes()
    if first == READY:  # else the child failed before the query: that is its answer
        if not ours.poll(job.timeout_s):
            raise ChildTimedOut(f"no answer within {job.timeout_s:g} s")
        first = ours.recv_bytes()
    return json.loads(first)
