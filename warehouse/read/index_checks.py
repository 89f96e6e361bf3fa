"""The asset check of the price index's gates (Dagster: ``index_gates`` on ``price_index``)."""

from __future__ import annotations

from warehouse.derive.index_method import MIN_PLATFORMS, PUBLISHED, WITHHELD
from warehouse.read.metrics import CheckOutcome
from warehouse.store.db import read_connection
from warehouse.store.handle import Warehouse


def check_index_gates(warehouse: Warehouse) -> CheckOutcome:
    """The asset check ``index_gates``: every published day passed the gates it was computed
    with and has a positive, finite value and a level; every withheld day names its gate and
    has no value; one current revision per day."""
    with read_connection(warehouse) as con:
        frame = con.sql(
            f"""
            WITH current AS (
                SELECT *, count(*) OVER (PARTITION BY method, kind, gpu, billing, day) AS n
                FROM price_index WHERE superseded_at IS NULL
            )
            SELECT kind, gpu, billing, day, revision, status, gate, platforms,
                   value_cny_per_card_hour AS value, level, gates
            FROM current
            WHERE (
                (status = '{PUBLISHED}' AND (
                    platforms < (gates::JSON ->> '{MIN_PLATFORMS}')::INTEGER
                    OR value_cny_per_card_hour IS NULL OR NOT isfinite(value_cny_per_card_hour)
                    OR value_cny_per_card_hour <= 0 OR level IS NULL OR gate IS NOT NULL))
                OR (status = '{WITHHELD}' AND (gate IS NULL OR value_cny_per_card_hour IS NOT NULL))
                OR n > 1)
            ORDER BY day DESC
            """
        ).pl()
        counts = con.execute(
            f"SELECT count(*) FILTER (WHERE status = '{PUBLISHED}'), "
            f"count(*) FILTER (WHERE status = '{WITHHELD}') "
            "FROM price_index WHERE superseded_at IS NULL"
        ).fetchone()
    examples = [
        "{kind} {gpu} {billing} {day} (revision {revision}): {status}, gate {gate}, "
        "{platforms} platform(s), value {value}, level {level}, gates {gates}".format(**row)
        for row in frame.head(10).iter_rows(named=True)
    ]
    return CheckOutcome(
        frame.is_empty(),
        frame.height,
        examples,
        {"published_days": counts[0], "withheld_days": counts[1]},
    )
