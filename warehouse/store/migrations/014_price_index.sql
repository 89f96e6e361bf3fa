-- The gpuprice rental price index (issue 37; method and query: docs/INDEX.md). Kept by the
-- derive step (warehouse.derive.index), incrementally: only the days new snapshots touch.
--
-- * index_platform_day: per UTC day, kind of data (real | SIMULATED), card, billing mode and
--   platform, that platform's last snapshot of the day and the median CNY per card-hour of
--   its listings in it (stock = 0 left out, the tier the public pays only), with the
--   sold-out counts behind the availability figure. The current state: a platform-day is
--   replaced when its inputs change.
-- * price_index: one row per revision of a day's value, never updated but for the time a
--   newer revision superseded it (superseded_at), so `--as-of T` reads the revisions with
--   published_at <= T < superseded_at. A recomputation that changes anything published
--   (the value, a change, the level, the gate, the inputs' hash) appends a revision.
-- * index_state: the gates ([index] in gpuprice.toml) each method was last computed with;
--   other gates recompute every day (revisions where a value changes).
-- * index_rule_state: where each index-move watch rule stands (warehouse.derive.index_alerts).
-- * alert: a fourth kind, 'index_move' (a watch rule on the index). DuckDB cannot change a
--   CHECK in place, so alert is rebuilt as in 003: new table, copy, drop, rename.

CREATE TABLE index_platform_day (
    day                      DATE      NOT NULL,
    kind                     VARCHAR   NOT NULL CHECK (kind IN ('real', 'SIMULATED')),
    gpu                      VARCHAR   NOT NULL,
    billing                  VARCHAR   NOT NULL,
    source                   VARCHAR   NOT NULL,
    snapshot_at              TIMESTAMP NOT NULL,      -- the platform's last snapshot of the day
    median_cny_per_card_hour DOUBLE,                  -- NULL: every listing sold out
    listings                 INTEGER   NOT NULL,      -- listings in the median (stock <> 0 or unknown)
    sold_out                 INTEGER   NOT NULL,      -- listings with stock = 0
    stock_known              INTEGER   NOT NULL,      -- listings whose stock is given
    inputs_hash              VARCHAR   NOT NULL,      -- sha256 of the listings read
    PRIMARY KEY (kind, gpu, billing, day, source)
);

CREATE TABLE price_index (
    method                   VARCHAR   NOT NULL,      -- 'v1'
    kind                     VARCHAR   NOT NULL CHECK (kind IN ('real', 'SIMULATED')),
    gpu                      VARCHAR   NOT NULL,
    billing                  VARCHAR   NOT NULL,
    day                      DATE      NOT NULL,      -- UTC
    revision                 INTEGER   NOT NULL,      -- 1, 2, ... per key
    published_at             TIMESTAMP NOT NULL,      -- when this revision was computed
    superseded_at            TIMESTAMP,               -- when the next revision was; NULL: current
    status                   VARCHAR   NOT NULL CHECK (status IN ('published', 'withheld')),
    gate                     VARCHAR,                 -- the failing gate of a withheld day
    gate_reason              VARCHAR,                 -- that gate in words
    value_cny_per_card_hour  DOUBLE,                  -- NULL when withheld
    platforms                INTEGER   NOT NULL,      -- platforms quoting
    observations             INTEGER   NOT NULL,      -- listings in their medians
    sold_out_share           DOUBLE,                  -- sold-out listings / listings with stock given
    stock_platforms          INTEGER   NOT NULL,      -- platforms that give stock
    change_1d                DOUBLE,                  -- matched sample, 0.05 = +5 %
    change_1d_platforms      INTEGER,
    change_7d                DOUBLE,
    change_7d_platforms      INTEGER,
    change_30d               DOUBLE,
    change_30d_platforms     INTEGER,
    level                    DOUBLE,                  -- chain-linked, 100 on the first published day
    platform_set             VARCHAR   NOT NULL,      -- the quoting platforms, sorted, comma-separated
    platforms_changed        BOOLEAN   NOT NULL,      -- the set differs from the series' previous day
    last_snapshot_at         TIMESTAMP,               -- the newest snapshot among the inputs
    gates                    VARCHAR   NOT NULL,      -- the gates applied, JSON
    inputs_hash              VARCHAR   NOT NULL,      -- sha256 of the method and every input listing
    PRIMARY KEY (method, kind, gpu, billing, day, revision)
);

CREATE TABLE index_state (
    method      VARCHAR   PRIMARY KEY,
    gates       VARCHAR   NOT NULL,
    computed_at TIMESTAMP NOT NULL
);

CREATE TABLE index_rule_state (
    rule        VARCHAR   PRIMARY KEY,
    fingerprint VARCHAR   NOT NULL,
    day         DATE      NOT NULL,       -- the newest day walked (walked again next time)
    mode_before VARCHAR   NOT NULL,       -- up | down | flat before that day
    mode        VARCHAR   NOT NULL,       -- after it
    updated_at  TIMESTAMP NOT NULL
);

CREATE TABLE alert_v14 (
    alert_id                          VARCHAR PRIMARY KEY,
    created_at                        TIMESTAMP NOT NULL,
    kind                              VARCHAR   NOT NULL CHECK (kind IN ('breakeven_shift', 'mode_flip', 'scraper_broken', 'index_move')),
    rule                              VARCHAR   NOT NULL,
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
    new_observed_at                   TIMESTAMP NOT NULL,
    old_bare_metal_cny_per_card_month DECIMAL(18, 6),
    new_bare_metal_cny_per_card_month DECIMAL(18, 6),
    old_container_cny_per_card_hour   DECIMAL(18, 6),
    new_container_cny_per_card_hour   DECIMAL(18, 6),
    new_offers                        VARCHAR,
    simulated                         BOOLEAN   NOT NULL,
    attempts                          INTEGER   NOT NULL DEFAULT 0,
    last_attempt_at                   TIMESTAMP,
    last_error                        VARCHAR,
    resolved_at                       TIMESTAMP,
    resolution                        VARCHAR,
    not_sent                          VARCHAR,
    -- index_move: gpu, the index values (CNY per card-hour) and the series' billing mode
    -- (against) are given, usage_hours is not
    CHECK (kind = 'scraper_broken'
           OR (kind = 'index_move' AND gpu IS NOT NULL AND new_value IS NOT NULL
               AND against IS NOT NULL)
           OR (gpu IS NOT NULL AND new_value IS NOT NULL AND against IS NOT NULL
               AND usage_hours IS NOT NULL))
);
INSERT INTO alert_v14 BY NAME SELECT * FROM alert;
DROP TABLE alert;
ALTER TABLE alert_v14 RENAME TO alert;
