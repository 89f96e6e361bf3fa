"""The card names the warehouse still meets that map to no canonical id (``gpu = 'unknown'``).

A name ``scrapers.gpu_names`` cannot identify is loaded as ``unknown`` (metrics skip it) and
noted in ``quarantine`` (status ``noted``); a row held for another reason (a jump, an
impossible unit) may also carry an unknown card and never reach ``offer``. This lists each
such name once per source, so a maintainer sees which card to add to the catalog: how many
rows were loaded, how many sit in quarantine without being loaded, and when it was first and
last seen. ``gpuprice sources`` and the Data health page show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from scrapers.rows import UNKNOWN_GPU
from warehouse.store.db import read_connection
from warehouse.store.handle import Warehouse

__all__ = ["PARAMS", "SQL", "UnknownCard", "unknown_cards"]

# Quarantine rows that never reached offer: still waiting, or rejected by hand. The others
# (noted, confirmed, accepted) were loaded and are counted from offer, not twice.
_NOT_LOADED = ("held", "rejected")


@dataclass(frozen=True, slots=True)
class UnknownCard:
    """One unknown card name of one source. Times are naive UTC (``observed_at``)."""

    source: str
    gpu_name_raw: str
    offer_rows: int  # loaded into offer (or spot_quote) as gpu = 'unknown'
    quarantine_rows: int  # held or rejected in quarantine, never loaded
    first_seen: datetime
    last_seen: datetime
    simulated: bool  # every loaded row of it is SIMULATED (False when none was loaded)

    @property
    def rows(self) -> int:
        return self.offer_rows + self.quarantine_rows


# Per (source, name): rows loaded (offer and spot_quote) and rows in quarantine never loaded.
SQL = f"""
WITH met AS (
    SELECT source, gpu_name_raw, observed_at, 1 AS in_table, simulated
    FROM offer WHERE gpu = $unknown
    UNION ALL
    SELECT source, gpu_name_raw, observed_at, 1, simulated
    FROM spot_quote WHERE gpu = $unknown
    UNION ALL
    SELECT source, coalesce(gpu_name_raw, ''), observed_at, 0, NULL
    FROM quarantine
    WHERE gpu = $unknown AND status IN ({", ".join(f"'{s}'" for s in _NOT_LOADED)})
)
SELECT source, gpu_name_raw, sum(in_table)::INTEGER AS loaded_rows,
       (count(*) - sum(in_table))::INTEGER AS quarantine_rows,
       min(observed_at) AS first_seen, max(observed_at) AS last_seen,
       coalesce(bool_and(simulated), false) AS simulated
FROM met
GROUP BY source, gpu_name_raw
ORDER BY min(observed_at) DESC, source, gpu_name_raw
"""
PARAMS = {"unknown": UNKNOWN_GPU}


def unknown_cards(warehouse: Warehouse, *, wait_s: float = 15.0) -> list[UnknownCard]:
    """Every (source, name) met with ``gpu = 'unknown'`` in ``offer`` or, not loaded, in
    ``quarantine``; the newest first seen first. Read-only; ``WarehouseMissing`` when there
    is no warehouse yet."""
    with read_connection(warehouse, wait_s=wait_s) as con:
        found = con.execute(SQL, PARAMS).fetchall()
    return [UnknownCard(*row) for row in found]
