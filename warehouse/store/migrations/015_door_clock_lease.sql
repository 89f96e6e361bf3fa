-- Issue 40. history_import.status gains 'interrupted': an import stopped by Ctrl-C records
-- what it loaded and that it was stopped (the same command resumes it). DuckDB cannot change
-- a CHECK constraint in place, so history_import is rebuilt as in 011 (the migration runner
-- copies the rows in slices: warehouse/store/migrating.py).
--
-- fx_rate_held: an exchange rate that moved by more than [fx] max_daily_change from the day
-- before is held here, not in fx_rate, like a quarantined price (warehouse/ingest/fx_rates.py):
-- 'held' until [fx] confirm_days rates in a row agree with it ('confirmed': then in fx_rate)
-- or someone decides (`gpuprice fx accept DAY`: 'accepted', in fx_rate). No row is ever
-- converted at a held rate.

CREATE TABLE history_import_v15 (
    import_id       VARCHAR   PRIMARY KEY,
    kind            VARCHAR   NOT NULL CHECK (kind IN ('wayback', 'skypilot', 'csv')),
    source          VARCHAR   NOT NULL,      -- the source rows go to ('*': several, a CSV)
    target          VARCHAR   NOT NULL,      -- the archived URLs, the catalog path, the file
    first_day       DATE,
    last_day        DATE,
    every           VARCHAR,                 -- day | week | month
    started_at      TIMESTAMP NOT NULL,
    finished_at     TIMESTAMP,
    status          VARCHAR   NOT NULL CHECK (status IN ('running', 'ok', 'partial', 'failed',
                                                         'interrupted')),
    listed          INTEGER   NOT NULL DEFAULT 0,   -- captures / commits / snapshots listed
    kept            INTEGER   NOT NULL DEFAULT 0,   -- periods kept (one capture each)
    fetched         INTEGER   NOT NULL DEFAULT 0,   -- bodies fetched
    reused          INTEGER   NOT NULL DEFAULT 0,   -- bodies already archived, not fetched again
    parsed          INTEGER   NOT NULL DEFAULT 0,   -- captures loaded
    failed          INTEGER   NOT NULL DEFAULT 0,   -- captures recorded as failed
    rows_added      INTEGER   NOT NULL DEFAULT 0,
    first_observed  TIMESTAMP,
    last_observed   TIMESTAMP,
    fx_note         VARCHAR,                 -- rates used other than the day's own
    dagster_run_id  VARCHAR,
    error           VARCHAR
);
INSERT INTO history_import_v15 BY NAME SELECT * FROM history_import;
DROP TABLE history_import;
ALTER TABLE history_import_v15 RENAME TO history_import;

CREATE TABLE fx_rate_held (
    day          DATE      NOT NULL,
    currency     VARCHAR   NOT NULL,
    cny_per_unit DECIMAL(12, 6) NOT NULL CHECK (cny_per_unit > 0),
    source       VARCHAR   NOT NULL,
    reason       VARCHAR   NOT NULL,         -- "moved 20.0% from 7.10 on 2025-01-02 (…)"
    status       VARCHAR   NOT NULL CHECK (status IN ('held', 'confirmed', 'accepted')),
    held_at      TIMESTAMP NOT NULL,
    decided_at   TIMESTAMP,
    PRIMARY KEY (day, currency)
);
