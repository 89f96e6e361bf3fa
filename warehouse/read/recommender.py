"""Read-only inputs for the GPU recommender: latest price per card, mode and source, and specs.

Plain rows (a dict each), so this layer knows nothing of the recommender's types (the
conversion lives in ``configuration.recommender_feed``), and `gpuprice recommend` does not
import Polars and PyArrow for a few dozen rows (0.17 s of its start, bench/recommend_startup.py).
"""

from __future__ import annotations

from typing import Any

from scrapers.rows import HOURS_PER_MONTH
from warehouse.public import PUBLIC
from warehouse.store.db import read_records
from warehouse.store.handle import Warehouse
from warehouse.store.serving import read_served_records

# A listing whose newest observation is this much older than its source's newest one
# has left the market (the source was scraped since and no longer shows it).
GONE_AFTER_DAYS = 7

# One row per (source, gpu): the latest price of each rent mode the recommender uses.
#  * hourly: container list price, CNY per card-hour;
#  * monthly: prepaid monthly plan, as its CNY per card-hour equivalent (billed 720 h);
#  * bare_metal_monthly: CNY per whole server-month, with the server's card count.
# Per (source, gpu, billing) only the newest snapshot counts, and in it the cheapest
# in-stock listing (sold-out ones only when nothing else is listed). CPU / RAM / disk are
# per card: the container listing's figures divided by its card count, else the
# server's divided by its card count. Read from the serving copy's newest row per listing
# when there is one (warehouse.store.serving): the newest snapshot of a (source, card,
# mode) holds only listings whose newest row it is, so the answer is the same, without a
# window over the whole history (the recommender page took 3.3 s at five years for it).
LATEST_CARD_PRICES = f"""
WITH latest AS (
    SELECT *
    FROM offer{{latest}}
    WHERE gpu <> 'unknown' AND {PUBLIC}
      AND billing IN ('hourly', 'monthly', 'bare_metal_monthly')
      AND ($source IS NULL OR source = $source)
    QUALIFY observed_at = max(observed_at) OVER (PARTITION BY source, gpu, billing)
        AND observed_at >= max(observed_at) OVER (PARTITION BY source)
            - INTERVAL {GONE_AFTER_DAYS} DAY
),
best AS (
    SELECT *
    FROM latest
    QUALIFY row_number() OVER (
        PARTITION BY source, gpu, billing
        ORDER BY coalesce(stock, 1) = 0, cny_per_card_hour, offer_id
    ) = 1
),
server AS (
    SELECT *,
        CASE
            WHEN unit = 'CNY/server-month' THEN price::DOUBLE
            ELSE cny_per_card_hour::DOUBLE * gpu_count * {HOURS_PER_MONTH}
        END AS server_month_cny
    FROM best
    WHERE billing = 'bare_metal_monthly'
)
SELECT
    g.source,
    g.gpu,
    h.cny_per_card_hour::DOUBLE AS hourly_cny,
    m.cny_per_card_hour::DOUBLE AS monthly_plan_cny_per_hour,
    s.server_month_cny AS bare_metal_cny_per_server_month,
    s.gpu_count AS cards_per_server,
    coalesce(h.cpu_cores / h.gpu_count, m.cpu_cores / m.gpu_count, s.cpu_cores / s.gpu_count)
        ::DOUBLE AS cpu_cores_per_card,
    coalesce(h.ram_gb / h.gpu_count, m.ram_gb / m.gpu_count, s.ram_gb / s.gpu_count)
        ::DOUBLE AS ram_gb_per_card,
    coalesce(h.disk_gb / h.gpu_count, m.disk_gb / m.gpu_count, s.disk_gb / s.gpu_count)
        ::DOUBLE AS disk_gb_per_card,
    CASE
        WHEN h.cpu_cores IS NOT NULL OR m.cpu_cores IS NOT NULL THEN 'container'
        WHEN s.cpu_cores IS NOT NULL THEN 'bare-metal server / cards'
    END AS companion_from,
    greatest(h.observed_at, m.observed_at, s.observed_at) AS observed_at,
    least(h.observed_at, m.observed_at, s.observed_at) AS oldest_observed_at,
    coalesce(h.simulated, false) OR coalesce(m.simulated, false)
        OR coalesce(s.simulated, false) AS simulated,
    h.offer_id AS hourly_offer_id,
    m.offer_id AS monthly_offer_id,
    s.offer_id AS bare_metal_offer_id,
    coalesce(h.citation, m.citation, s.citation) AS citation
FROM (SELECT DISTINCT source, gpu FROM best) AS g
LEFT JOIN best AS h ON h.source = g.source AND h.gpu = g.gpu AND h.billing = 'hourly'
LEFT JOIN best AS m ON m.source = g.source AND m.gpu = g.gpu AND m.billing = 'monthly'
LEFT JOIN server AS s ON s.source = g.source AND s.gpu = g.gpu
ORDER BY g.gpu, g.source
"""

# Spec columns the recommender reads. The 4090 / 5090 tensor figures differ by
# accumulate precision (330 vs 165 TFLOPS); training and serving frameworks accumulate
# in FP32, so that figure is used where the card has one.
GPU_SPECS = """
SELECT gpu, vram_gb::DOUBLE AS vram_gb, bandwidth_gbs,
       coalesce(fp16_tflops_dense_fp32acc, fp16_tflops_dense) AS fp16_tflops_dense,
       interconnect, link_gbs, domestic, fp8
FROM gpu_spec
ORDER BY vram_gb, gpu
"""

SOURCES = (
    """
SELECT source, bool_or(simulated) AS simulated, max(observed_at) AS newest, count(*) AS rows
FROM offer
WHERE gpu <> 'unknown' AND """
    + PUBLIC
    + """ AND billing IN ('hourly', 'monthly', 'bare_metal_monthly')
GROUP BY source
ORDER BY source
"""
)


def latest_card_prices(warehouse: Warehouse, source: str | None = None) -> list[dict[str, Any]]:
    """Latest hourly / monthly-plan / bare-metal price per (source, gpu), one row each.

    Raises ``WarehouseMissing`` when there is no warehouse file yet.
    """
    return read_served_records(warehouse, LATEST_CARD_PRICES, {"source": source})


def gpu_specs(warehouse: Warehouse) -> list[dict[str, Any]]:
    """The ``gpu_spec`` rows, with the columns the recommender needs."""
    return read_records(warehouse, GPU_SPECS)


def price_sources(warehouse: Warehouse) -> list[dict[str, Any]]:
    """Sources that list rentable prices, whether they are simulated, and their newest row."""
    return read_records(warehouse, SOURCES)
