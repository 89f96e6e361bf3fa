"""The warehouse handle: which warehouse, and how every connection to it opens.

Each entry point (the CLI, the Dagster definitions, the dashboard, the demo, the benches)
builds one :class:`Warehouse` from its settings (``Settings.warehouse``) and passes it to every
warehouse function; nothing in the warehouse reads the environment, the TOML or a global.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from warehouse.store.config import LakeTarget, WarehouseConfig


@dataclass(frozen=True)
class Warehouse:
    """The DuckDB file at ``path`` (on a DuckLake, ``path`` only places the serving copy and
    DuckDB's spill files), opened the way ``config`` says: the memory limit and the lake."""

    path: Path
    config: WarehouseConfig = field(default_factory=WarehouseConfig)

    @property
    def lake(self) -> LakeTarget | None:
        return self.config.lake

    @property
    def memory_limit(self) -> str:
        return self.config.memory_limit

    def describe(self) -> str:
        """Where the warehouse is, for people: the file, or the DuckLake (no password)."""
        return f"DuckLake {self.lake.describe()}" if self.lake else str(self.path)

    def local(self, path: Path) -> Warehouse:
        """The DuckDB file at ``path`` under this handle's memory limit, never the lake (the
        serving copy beside each dashboard, a backup's file)."""
        return Warehouse(path, WarehouseConfig(memory_limit=self.memory_limit))
