"""The "warehouse in use" lease: a lock file beside the warehouse that long writers hold
shared for their whole length, and that a restore takes exclusively.

DuckDB's own file lock is held only for each short transaction, so between two of a
backfill's days a restore found the file free, moved it aside and put the backup in its
place: the backfill's later rows went into the restored file and its earlier ones stayed in
the moved-aside one (issue 31). With the lease:

- every Dagster run holds it shared (:func:`in_use`) from start to end, whoever started it:
  the daemon (the schedule, a run launched from the UI) or a command (``gpuprice run``,
  ``backfill``, ``history``): the run's resource takes it (pipelines.resources), and the
  commands take it around their runs too; any number of them at once;
- ``gpuprice restore`` takes it exclusively without waiting (:func:`exclusive`) and is refused
  with a message while a run holds it; a run that starts during a restore waits for it (a
  restore takes seconds to minutes) up to ``wait_s``, saying so (``on_wait``), then gives up
  with a message.

``fcntl.flock`` (Linux, macOS): the kernel drops the lock when its holder exits, also on
SIGKILL, so a lease can never be left behind by a crash. (``filelock`` is only a test
dependency here, and has no shared mode.)
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from warehouse.store.db import WarehouseBusy
from warehouse.store.faults import fault_of
from warehouse.store.handle import Warehouse

POLL_S = 0.2


class WarehouseInUse(WarehouseBusy):
    """A run or backfill holds the warehouse; the message says to wait for it."""


def lease_path(path: Path) -> Path:
    """The lease file of the warehouse file ``path``."""
    return path.with_name(f".{path.name}.lease")


def _open(path: Path) -> int:
    lease = lease_path(path)
    try:
        lease.parent.mkdir(parents=True, exist_ok=True)
        return os.open(lease, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if lease.exists():  # a read-only directory with a lease file: a read lock is enough
            try:
                return os.open(lease, os.O_RDONLY)
            except OSError:
                pass
        fault = fault_of(exc, lease)
        if fault is None:
            raise
        raise fault from None


@contextmanager
def in_use(
    warehouse: Warehouse, *, wait_s: float = 600.0, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the warehouse shared for the block (a run, a backfill); waits up to ``wait_s``
    while a restore replaces it (``on_wait`` is called once when it starts waiting), then
    raises WarehouseBusy. A DuckLake has no lease."""
    if warehouse.lake is not None:
        yield
        return
    fd = _open(warehouse.path)
    try:
        deadline = time.monotonic() + wait_s
        waited = False
        while not _try(fd, fcntl.LOCK_SH):
            if not waited and on_wait is not None:
                on_wait()
            waited = True
            if time.monotonic() > deadline:
                raise WarehouseBusy(
                    f"a restore has been replacing the warehouse {warehouse.path} for more "
                    f"than {wait_s:.0f} s; run again when it has finished"
                )
            time.sleep(POLL_S)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextmanager
def exclusive(warehouse: Warehouse) -> Iterator[None]:
    """Hold the warehouse alone for the block (a restore), or raise WarehouseInUse at once
    while a run or backfill holds it."""
    fd = _open(warehouse.path)
    try:
        if not _try(fd, fcntl.LOCK_EX):
            raise WarehouseInUse(
                f"the warehouse {warehouse.path} is in use by a run (a `gpuprice run`, "
                "`backfill` or `history`, or one the Dagster daemon started: the schedule, the "
                "UI): restore when it has finished (or stop it first)"
            )
        yield
    finally:
        os.close(fd)


def _try(fd: int, mode: int) -> bool:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
