"""Faults of the warehouse's storage, as errors whose one-line message says what to do.

A damaged or truncated file, a home that cannot be written, a full disk, a warehouse that
vanished, a step that needs more memory than the limit: none of them goes away by trying
again, so each is a :class:`WarehouseFault` (not a :class:`~warehouse.store.db.WarehouseBusy`,
which is "try again"). The CLI prints the message as one line and exits with code 2.

DuckDB reports most of these as ``duckdb.IOException`` with the operating system's text, so
:func:`fault_of` reads the message; the patterns were taken from DuckDB 2.0.1's messages for a
truncated file, a file of garbage, a read-only or full directory (tests/cli/test_faults.py).
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

import duckdb

from warehouse.store.config import MEMORY_LIMIT_ENV

RESTORE_HINT = "restore from a backup: `gpuprice restore DIR`"


class WarehouseFault(RuntimeError):
    """The warehouse cannot be used until someone acts; the message says how."""


class WarehouseCorrupt(WarehouseFault):
    """The file is not a whole DuckDB database (damaged, truncated, emptied)."""


class WarehouseLost(WarehouseFault):
    """A warehouse was kept here (its marker says so) and is gone or has no tables."""


class WarehouseReadOnly(WarehouseFault):
    """The warehouse or its directory cannot be written."""


class DiskFull(WarehouseFault):
    """No room left to write (a full disk, a quota, a file-size limit)."""


class WarehouseOutOfMemory(WarehouseFault):
    """A step needed more memory than the limit allows, even after taking more."""


def corrupt(path: Path, reason: str) -> WarehouseCorrupt:
    return WarehouseCorrupt(f"the warehouse {path} is damaged ({reason}); {RESTORE_HINT}")


def read_only(where: Path | str, reason: str) -> WarehouseReadOnly:
    return WarehouseReadOnly(
        f"cannot write {where}: {reason}; make it writable, or set GPUPRICE_HOME to a "
        "directory you can write to"
    )


def disk_full(where: Path | str, reason: str) -> DiskFull:
    return DiskFull(f"cannot write {where}: {reason}; free some space on its disk and run again")


def out_of_memory(what: str, memory_limit: str) -> WarehouseOutOfMemory:
    return WarehouseOutOfMemory(
        f"{what} needs more memory than {MEMORY_LIMIT_ENV}={memory_limit} allows, even with "
        f"more taken for it; set {MEMORY_LIMIT_ENV} higher (e.g. 1GB) and run again"
    )


_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}
_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
# DuckDB's text for each fault, from its own message or the OS's it quotes
_DAMAGED = re.compile(
    r"not a valid DuckDB database file|Could not read enough bytes|Could not read from file|"
    r"[Cc]orrupt|checksum|[Ss]erializ",
)
_NO_ROOM_TEXT = re.compile(r"No space left on device|File too large|Disk quota exceeded")
_READ_ONLY_TEXT = re.compile(r"Read-only file system|Permission denied|Operation not permitted")
_QUOTED_PATH = re.compile(r'"([^"]+)"')


def fault_of(
    exc: BaseException, path: Path | None = None, *, memory_limit: str | None = None
) -> WarehouseFault | None:
    """The fault ``exc`` is, with a message about ``path`` (else the file DuckDB's message
    names); None when it is none of them (a bug, a query's own error, a lock)."""
    if isinstance(exc, WarehouseFault):
        return exc
    if isinstance(exc, OSError) and not isinstance(exc, duckdb.Error):
        where = exc.filename or path or "the warehouse's directory"
        reason = exc.strerror or str(exc)
        if exc.errno in _READ_ONLY:
            return read_only(where, reason)
        if exc.errno in _NO_ROOM:
            return disk_full(where, reason)
        return None
    if not isinstance(exc, duckdb.Error):
        return None
    text = str(exc)
    named = _QUOTED_PATH.search(text)
    where = path or (Path(named.group(1)) if named else Path("(the warehouse)"))
    first = text.splitlines()[0] if text else type(exc).__name__
    if isinstance(exc, duckdb.OutOfMemoryException) or "could not allocate" in text:
        return out_of_memory("this step", memory_limit or "its default")
    if _NO_ROOM_TEXT.search(text):
        return disk_full(where, _NO_ROOM_TEXT.search(text).group(0))
    if _READ_ONLY_TEXT.search(text):
        return read_only(where, _READ_ONLY_TEXT.search(text).group(0))
    if _DAMAGED.search(text) and isinstance(
        exc, duckdb.IOException | duckdb.InternalException | duckdb.SerializationException
    ):
        return corrupt(where, _damage(first))
    return None


def _damage(first_line: str) -> str:
    """DuckDB's words for the damage, without the path the message repeats."""
    if "not a valid DuckDB database file" in first_line:
        return "not a DuckDB database file"
    if "Could not read" in first_line:
        return "cut short: a block it needs lies past the end of the file"
    return _QUOTED_PATH.sub("the file", first_line.split(": ", 1)[-1])
