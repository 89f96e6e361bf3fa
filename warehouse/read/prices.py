"""Read-only queries behind the dashboard and the CLI. SQL for metrics lives here."""

from __future__ import annotations

import polars as pl

from warehouse.public import PUBLIC
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse
from warehouse.store.serving import read_served

LATEST_OFFERS = (
    """
SELECT source, gpu, billing, gpu_count, price, unit_raw, unit, cny_per_card_hour,
       format('{{:,.2f}}', price) || ' ' || unit_raw AS listed,
       list_price, discount_label, region, observed_at, simulated, citation
FROM offer{latest}
WHERE gpu <> 'unknown' AND """
    + PUBLIC
    + """
QUALIFY row_number() OVER (PARTITION BY source, offer_id, billing ORDER BY observed_at DESC) = 1
ORDER BY gpu, source, billing
"""
)

DAILY_TREND = (
    """
SELECT CAST(observed_at AS DATE) AS day, gpu, source, billing,
       avg(cny_per_card_hour)::DOUBLE AS cny_per_card_hour, bool_or(simulated) AS simulated
FROM offer
WHERE gpu <> 'unknown' AND """
    + PUBLIC
    + """
GROUP BY ALL
ORDER BY day, gpu, source, billing
"""
)


def latest_offers(warehouse: Warehouse) -> pl.DataFrame:
    """The newest observation of every listing and billing mode (from the serving copy when
    there is one: warehouse.store.serving)."""
    return read_served(warehouse, LATEST_OFFERS)


def daily_trend(warehouse: Warehouse) -> pl.DataFrame:
    """Mean CNY per card-hour per day, card, source and billing mode."""
    return read_frame(warehouse, DAILY_TREND)
