"""Which offers a dashboard query reads: one frozen value that the pages build from their
filter widgets and every trend and comparison query takes (warehouse.read.dashboard,
warehouse.read.compare), instead of the same six parameters in each.

A field left None does not filter. A tuple keeps the rows whose value is in it, so an
empty tuple matches nothing (the pages say so before asking). The days are UTC and both
ends are included.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date
from typing import Any

# Published (seed) prices carry no region; filters show them under this name.
NO_REGION = "(none)"
# The region as the filters name it, on a table whose region may be NULL (offer).
OFFER_REGION = f"coalesce(region, '{NO_REGION}')"

_LISTS = (("gpus", "gpu"), ("sources", "source"), ("billing", "billing"))


@dataclass(frozen=True)
class OfferFilter:
    """Cards, platforms, billing modes, regions and the days [start, end] to read."""

    gpus: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    billing: tuple[str, ...] | None = None
    regions: tuple[str, ...] | None = None
    start: date | None = None
    end: date | None = None

    def __post_init__(self) -> None:
        # Tuples whatever the caller passed: the filter is a cache key, so it must hash.
        for name in ("gpus", "sources", "billing", "regions"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))

    def where(
        self, *, table: str = "", region: str = OFFER_REGION, at: str | None = "observed_at"
    ) -> str:
        """The SQL condition for the fields that are set (``TRUE`` when none is), over the
        columns gpu, source and billing (of ``table``, e.g. ``"t."``, in a join), the
        ``region`` expression and the timestamp ``at``. ``at=None`` leaves the days to the
        caller, for queries that bound them per table (the daily rollup is dated by day)."""
        columns = (*((name, table + column) for name, column in _LISTS), ("regions", region))
        clauses = [
            f"list_contains(${name}::VARCHAR[], {column})"
            for name, column in columns
            if getattr(self, name) is not None
        ]
        if at is not None and self.start is not None:
            clauses.append(f"{at} >= $start::TIMESTAMP")
        if at is not None and self.end is not None:
            clauses.append(f"{at} < $end::TIMESTAMP + INTERVAL 1 DAY")
        return " AND ".join(clauses) or "TRUE"

    def params(self) -> dict[str, Any]:
        """The named parameters of the fields that are set, as ``where`` refers to them
        (DuckDB refuses a parameter the query does not use, so unset fields are left out)."""
        found: dict[str, Any] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None:
                found[field.name] = list(value) if isinstance(value, tuple) else value
        return found
