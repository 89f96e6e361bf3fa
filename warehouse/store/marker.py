"""The marker that a warehouse file was created here, so that one that vanished is reported
instead of silently created again empty.

Without it a run after a lost warehouse (a restore killed at the wrong moment before issue 31,
a file deleted by mistake, a volume not mounted) created a new empty file, exited 0, and the
dashboard showed a market with no history. The marker, ``.<file name>.created`` beside the
file, is written once the file holds the warehouse's tables; while it exists a writer refuses
to create the file or to fill a table-less one, and says what to do: restore a backup, or
delete the marker to start empty on purpose.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from warehouse.store.faults import RESTORE_HINT, WarehouseLost


def marker_path(path: Path) -> Path:
    """The marker of the warehouse file ``path``."""
    return path.with_name(f".{path.name}.created")


def mark_created(path: Path) -> None:
    """Leave the marker (once; a directory that cannot be written keeps none, and its
    writers fail on the file itself)."""
    marker = marker_path(path)
    if not marker.exists():
        with contextlib.suppress(OSError):
            marker.write_text(f"{path.name} was created here; see docs/RELIABILITY.md\n")


def lost(path: Path, what: str = "is missing") -> WarehouseLost:
    return WarehouseLost(
        f"the warehouse {path} {what}; {RESTORE_HINT}, or delete {marker_path(path)} to "
        "start with an empty one"
    )


def refuse_if_lost(path: Path) -> None:
    """Raise :class:`WarehouseLost` when the marker says a warehouse was here and the file is
    gone."""
    if not path.exists() and marker_path(path).exists():
        raise lost(path)
