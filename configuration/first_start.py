"""The first start's history backfill: its status, shared by `gpuprice up` (which writes it)
and the dashboard (which says "history is filling" while it runs).

A small JSON file in GPUPRICE_HOME rather than a warehouse table: the dashboard reads it while
the backfill holds the warehouse's writer lock, and it must survive a failed backfill.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

State = Literal["running", "done", "failed"]
STATUS_FILE = "first_start_backfill.json"


@dataclass(frozen=True)
class BackfillStatus:
    state: State
    days_done: int
    days_total: int
    started_at: str  # ISO 8601, UTC
    updated_at: str  # ISO 8601, UTC
    first_day: str | None = None  # the oldest day loaded so far (YYYY-MM-DD)
    error: str | None = None

    @property
    def running(self) -> bool:
        return self.state == "running"


def status_path(home: Path) -> Path:
    return home / STATUS_FILE


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def write_status(home: Path, status: BackfillStatus) -> None:
    """Replace the status file atomically, so a reader never sees half of it."""
    path = status_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(status), ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def read_status(home: Path) -> BackfillStatus | None:
    """The last status written, or None when there was no first-start backfill (or the file
    cannot be read: the dashboard then shows no banner rather than failing)."""
    try:
        data = json.loads(status_path(home).read_text(encoding="utf-8"))
        return BackfillStatus(**data)
    except (OSError, ValueError, TypeError):
        return None
