-- Real and SIMULATED apart in the rollups, and where real prices come from (issue 28, the
-- trends): the warehouse holds real history imported from public archives beside the demo's
-- SIMULATED history under the same source names (runpod, lambda, skypilot), and the trend
-- must draw each as what it is.
--
-- * offer_daily / offer_monthly: ``simulated`` is now part of the row's key (it was
--   bool_or over the group, so a day holding a real capture and simulated prices of the same
--   source was one simulated row averaging both);
-- * ``origin``: the citation of the row's earliest cited real observation (an Internet
--   Archive capture URL, a GitHub commit URL, a tracker file's or a seed's citation; NULL for
--   simulated rows and for live scrapes, which cite nothing); ``origins``: how many distinct
--   citations the row holds (a month: its days' counts, summed).
--
-- Only the (source, day) that hold a real offer change: a day of simulated offers alone has
-- the same aggregate as before and no origin. Those days are aggregated again from offer,
-- and their months from offer_daily (warehouse.derive.rollup keeps both from here on). The
-- serving copy's layout changes with it (warehouse.store.serving.LAYOUT): the next sync
-- rebuilds the copy whole; until then readers use the warehouse.
ALTER TABLE offer_daily ADD COLUMN origin VARCHAR;
ALTER TABLE offer_daily ADD COLUMN origins INTEGER DEFAULT 0;
ALTER TABLE offer_monthly ADD COLUMN origin VARCHAR;
ALTER TABLE offer_monthly ADD COLUMN origins INTEGER DEFAULT 0;

CREATE TEMP TABLE real_day_012 AS
SELECT DISTINCT source, observed_at::DATE AS day FROM offer
WHERE NOT simulated AND gpu <> 'unknown';

DELETE FROM offer_daily WHERE (source, day) IN (SELECT (source, day) FROM real_day_012);

INSERT INTO offer_daily BY NAME
SELECT observed_at::DATE AS day, source, gpu, billing,
       coalesce(region, '(none)') AS region,
       count(*) AS observations,
       sum(cny_per_card_hour)::DECIMAL(38, 6) AS sum_cny_per_card_hour,
       min(cny_per_card_hour) AS min_cny_per_card_hour,
       max(cny_per_card_hour) AS max_cny_per_card_hour,
       simulated,
       min(observed_at) AS first_observed_at, max(observed_at) AS last_observed_at,
       arg_min(citation, observed_at) FILTER (WHERE citation IS NOT NULL AND NOT simulated)
           AS origin,
       (count(DISTINCT citation) FILTER (WHERE NOT simulated))::INTEGER AS origins
FROM offer
WHERE gpu <> 'unknown'
  AND (source, observed_at::DATE) IN (SELECT (source, day) FROM real_day_012)
GROUP BY ALL
ORDER BY 1, 2, 3, 4, 5;

CREATE TEMP TABLE real_month_012 AS
SELECT DISTINCT source, date_trunc('month', day)::DATE AS month FROM real_day_012;

DELETE FROM offer_monthly WHERE (source, month) IN (SELECT (source, month) FROM real_month_012);

INSERT INTO offer_monthly BY NAME
SELECT date_trunc('month', day)::DATE AS month, source, gpu, billing, region,
       sum(observations)::BIGINT AS observations,
       sum(sum_cny_per_card_hour)::DECIMAL(38, 6) AS sum_cny_per_card_hour,
       min(min_cny_per_card_hour) AS min_cny_per_card_hour,
       max(max_cny_per_card_hour) AS max_cny_per_card_hour,
       simulated,
       min(first_observed_at) AS first_observed_at, max(last_observed_at) AS last_observed_at,
       arg_min(origin, first_observed_at) FILTER (WHERE origin IS NOT NULL) AS origin,
       sum(origins)::INTEGER AS origins
FROM offer_daily
WHERE (source, date_trunc('month', day)::DATE) IN (SELECT (source, month) FROM real_month_012)
GROUP BY ALL
ORDER BY 1, 2, 3, 4, 5;

DROP TABLE real_day_012;
DROP TABLE real_month_012;
