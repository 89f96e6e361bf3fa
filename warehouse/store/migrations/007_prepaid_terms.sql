-- Prepaid terms beside hourly and monthly (docs/SOURCES.md): some sites list a price per day,
-- week or year (包日, 包周, 包年, a one-week commitment), kept as billing 'daily', 'weekly' and
-- 'yearly', each a price for that whole period (cny_per_card_hour divides by its hours).
--
-- DuckDB cannot change a CHECK constraint in place, so offer is rebuilt as scrape_run was in
-- 003: create the new table, copy every row, drop the old one, rename. The migration runner
-- applies this whole file in one transaction.

CREATE TABLE offer_v7 (
    observed_at       TIMESTAMP NOT NULL,
    source            VARCHAR   NOT NULL,
    offer_id          VARCHAR   NOT NULL,
    gpu               VARCHAR   NOT NULL,      -- canonical id, or 'unknown'
    gpu_name_raw      VARCHAR   NOT NULL,
    gpu_count         INTEGER   NOT NULL CHECK (gpu_count > 0),
    vram_gb           INTEGER,
    billing           VARCHAR   NOT NULL CHECK (billing IN ('hourly', 'daily', 'weekly', 'monthly', 'yearly', 'bare_metal_monthly', 'spot')),
    price             DECIMAL(14, 4) NOT NULL CHECK (price > 0),   -- exactly as listed
    currency          VARCHAR   NOT NULL,
    unit              VARCHAR   NOT NULL,      -- normalised, e.g. CNY/card-hour, CNY/server-month
    unit_raw          VARCHAR   NOT NULL,      -- as listed, e.g. 元/时
    cny_per_card_hour DECIMAL(18, 6) NOT NULL CHECK (cny_per_card_hour > 0),
    list_price        DECIMAL(14, 4),
    stated_discount   DECIMAL(6, 4),           -- what the page says, e.g. 0.95 for 95折
    discount_label    VARCHAR,
    region            VARCHAR,
    cpu_cores         INTEGER,
    ram_gb            INTEGER,
    disk_gb           INTEGER,
    interconnect      VARCHAR,
    stock             INTEGER,
    page_id           VARCHAR,                 -- NULL only for published (seed) prices
    run_id            VARCHAR,
    simulated         BOOLEAN   NOT NULL,
    citation          VARCHAR,                 -- article and date, for published prices
    PRIMARY KEY (source, offer_id, billing, observed_at)
);
INSERT INTO offer_v7 BY NAME SELECT * FROM offer ORDER BY observed_at;
DROP TABLE offer;
ALTER TABLE offer_v7 RENAME TO offer;
