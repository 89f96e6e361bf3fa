-- Pre-aggregated daily offers (docs/PERFORMANCE.md): one row per day, platform, card,
-- billing mode and region, kept by the derive step (warehouse.rollup) for every offer
-- snapshot it derives. The dashboard's trend, band and month-over-month queries read this
-- table instead of scanning years of hourly offers. Unknown cards are left out (no page
-- shows them); region NULL is stored as '(none)', as the trend filters show it.
-- Averages are exact: sum_cny_per_card_hour / observations.
CREATE TABLE offer_daily (
    day                   DATE      NOT NULL,
    source                VARCHAR   NOT NULL,
    gpu                   VARCHAR   NOT NULL,
    billing               VARCHAR   NOT NULL,
    region                VARCHAR   NOT NULL,
    observations          BIGINT    NOT NULL,
    sum_cny_per_card_hour DECIMAL(38, 6) NOT NULL,
    min_cny_per_card_hour DECIMAL(18, 6) NOT NULL,
    max_cny_per_card_hour DECIMAL(18, 6) NOT NULL,
    simulated             BOOLEAN   NOT NULL,
    first_observed_at     TIMESTAMP NOT NULL,
    last_observed_at      TIMESTAMP NOT NULL
);

-- Offers loaded before this migration: roll them up once, in day order (zone maps on day).
INSERT INTO offer_daily
SELECT observed_at::DATE, source, gpu, billing, coalesce(region, '(none)'),
       count(*), sum(cny_per_card_hour), min(cny_per_card_hour), max(cny_per_card_hour),
       bool_or(simulated), min(observed_at), max(observed_at)
FROM offer
WHERE gpu <> 'unknown'
GROUP BY ALL
ORDER BY 1, 2, 3, 4, 5;

-- The same per calendar month, kept from offer_daily (whole-history monthly views and the
-- month-over-month figures read it: 60 months instead of 1,826 days over five years).
CREATE TABLE offer_monthly (
    month                 DATE      NOT NULL,
    source                VARCHAR   NOT NULL,
    gpu                   VARCHAR   NOT NULL,
    billing               VARCHAR   NOT NULL,
    region                VARCHAR   NOT NULL,
    observations          BIGINT    NOT NULL,
    sum_cny_per_card_hour DECIMAL(38, 6) NOT NULL,
    min_cny_per_card_hour DECIMAL(18, 6) NOT NULL,
    max_cny_per_card_hour DECIMAL(18, 6) NOT NULL,
    simulated             BOOLEAN   NOT NULL,
    first_observed_at     TIMESTAMP NOT NULL,
    last_observed_at      TIMESTAMP NOT NULL
);

INSERT INTO offer_monthly
SELECT date_trunc('month', day)::DATE, source, gpu, billing, region,
       sum(observations), sum(sum_cny_per_card_hour), min(min_cny_per_card_hour),
       max(max_cny_per_card_hour), bool_or(simulated), min(first_observed_at),
       max(last_observed_at)
FROM offer_daily
GROUP BY ALL
ORDER BY 1, 2, 3, 4, 5;
