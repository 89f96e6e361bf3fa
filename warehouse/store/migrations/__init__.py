"""The warehouse's numbered migrations, ``NNN_name.sql``, applied in order by
``warehouse.store.db.migrate``."""

from __future__ import annotations

import re
from importlib import resources

MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def migration_files() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration, oldest first."""
    found = []
    for entry in resources.files(__name__).iterdir():
        match = MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)
