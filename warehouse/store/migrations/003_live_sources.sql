-- Live sources (docs/SOURCES.md): runs that are skipped (a source not configured), why a run
-- failed, scraper-broken alerts, spot quotes in other currencies and of another kind, and
-- each source's health (ok | broken) for drift detection.
--
-- DuckDB cannot drop or change a CHECK constraint in place, so scrape_run and alert are
-- rebuilt: create the new table, copy every row, drop the old one, rename. The migration
-- runner applies this whole file in one transaction (warehouse.db.migrate).

CREATE TABLE scrape_run_v3 (
    run_id       VARCHAR PRIMARY KEY,
    source       VARCHAR   NOT NULL,
    profile      VARCHAR   NOT NULL,
    as_of        DATE,
    started_at   TIMESTAMP NOT NULL,
    finished_at  TIMESTAMP NOT NULL,
    status       VARCHAR   NOT NULL CHECK (status IN ('ok', 'partial', 'failed', 'skipped')),
    pages        INTEGER   NOT NULL,
    rows         INTEGER   NOT NULL,
    error        VARCHAR,
    -- why: unreachable | http_error | blocked | too_large (fetch), drift (pages that do not
    -- parse, parse to zero rows or to implausible prices), load_error, not_configured
    reason       VARCHAR CHECK (reason IN ('unreachable', 'http_error', 'blocked', 'too_large',
                                           'drift', 'load_error', 'not_configured'))
);
-- Runs recorded before this migration keep reason NULL: their error text is all there is.
INSERT INTO scrape_run_v3 BY NAME SELECT * FROM scrape_run;
DROP TABLE scrape_run;
ALTER TABLE scrape_run_v3 RENAME TO scrape_run;

-- alert: kind 'scraper_broken' (a source's pages stopped parsing, or parse to implausible
-- prices); such an alert concerns a source, not a card or a watch rule, so gpu, new_value,
-- against and usage_hours may be NULL (for it only).
CREATE TABLE alert_v3 (
    alert_id                          VARCHAR PRIMARY KEY,
    created_at                        TIMESTAMP NOT NULL,
    kind                              VARCHAR   NOT NULL CHECK (kind IN ('breakeven_shift', 'mode_flip', 'scraper_broken')),
    rule                              VARCHAR   NOT NULL,   -- the watch rule's name; 'scraper:<source>'
    gpu                               VARCHAR,
    source                            VARCHAR   NOT NULL,
    old_value                         DOUBLE,
    new_value                         DOUBLE,
    message                           VARCHAR   NOT NULL,
    delivered_at                      TIMESTAMP,
    against                           VARCHAR,
    usage_hours                       DOUBLE,
    old_mode                          VARCHAR,
    new_mode                          VARCHAR,
    old_observed_at                   TIMESTAMP,
    new_observed_at                   TIMESTAMP NOT NULL,   -- scraper_broken: when the break was seen
    old_bare_metal_cny_per_card_month DECIMAL(18, 6),
    new_bare_metal_cny_per_card_month DECIMAL(18, 6),
    old_container_cny_per_card_hour   DECIMAL(18, 6),
    new_container_cny_per_card_hour   DECIMAL(18, 6),
    new_offers                        VARCHAR,
    simulated                         BOOLEAN   NOT NULL,
    attempts                          INTEGER   NOT NULL DEFAULT 0,
    last_attempt_at                   TIMESTAMP,
    last_error                        VARCHAR,
    CHECK (kind = 'scraper_broken'
           OR (gpu IS NOT NULL AND new_value IS NOT NULL AND against IS NOT NULL
               AND usage_hours IS NOT NULL))
);
INSERT INTO alert_v3 BY NAME SELECT * FROM alert;
DROP TABLE alert;
ALTER TABLE alert_v3 RENAME TO alert;

-- Quotes in another currency (vast.ai: USD) and of another kind: the interruptible floor.
ALTER TABLE spot_quote ADD COLUMN currency VARCHAR DEFAULT 'CNY';
ALTER TABLE spot_quote ADD COLUMN quote_kind VARCHAR DEFAULT 'market_average';

-- Drift detection: per source and profile, ok or broken since when. One scraper-broken alert
-- per break (alert_id), none while it stays broken; a run whose pages all parse again makes
-- it ok.
CREATE TABLE source_health (
    source      VARCHAR   NOT NULL,
    profile     VARCHAR   NOT NULL,
    state       VARCHAR   NOT NULL CHECK (state IN ('ok', 'broken')),
    since       TIMESTAMP NOT NULL,      -- the run that changed the state
    checked_at  TIMESTAMP NOT NULL,      -- the newest run that looked (fetched pages)
    run_id      VARCHAR,                 -- that newest run
    reason      VARCHAR,                 -- broken: the page errors of the newest run
    alert_id    VARCHAR,                 -- broken: the alert raised for this break
    PRIMARY KEY (source, profile)
);
