-- Real price history imported from where it is archived (issue 28): the Internet Archive's
-- captures of pricing pages, SkyPilot's catalog versions in git, public trackers' CSVs.
--
-- Every row such an import loads into offer / spot_quote is real (simulated = false) and says
-- where it came from: its citation is its origin (the Internet Archive URL of the capture,
-- the GitHub URL of the catalog's commit, the tracker file's citation), and its run_id names
-- its capture below, which says what was imported, from where, when and by which import.
-- (A re-parse or a quarantine release keeps run_id; the capture row is the lasting link.)

CREATE TABLE history_import (
    import_id       VARCHAR   PRIMARY KEY,
    kind            VARCHAR   NOT NULL CHECK (kind IN ('wayback', 'skypilot', 'csv')),
    source          VARCHAR   NOT NULL,      -- the source rows go to ('*': several, a CSV)
    target          VARCHAR   NOT NULL,      -- the archived URLs, the catalog path, the file
    first_day       DATE,
    last_day        DATE,
    every           VARCHAR,                 -- day | week | month
    started_at      TIMESTAMP NOT NULL,
    finished_at     TIMESTAMP,
    status          VARCHAR   NOT NULL CHECK (status IN ('running', 'ok', 'partial', 'failed')),
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

CREATE TABLE history_capture (
    run_id          VARCHAR   PRIMARY KEY,   -- offer.run_id / spot_quote.run_id of its rows
    import_id       VARCHAR   NOT NULL,
    kind            VARCHAR   NOT NULL,
    source          VARCHAR   NOT NULL,
    target          VARCHAR   NOT NULL,      -- the archived URL / catalog path / file it is of
    observed_at     TIMESTAMP,               -- capture / commit / tracker time
    origin          VARCHAR   NOT NULL,      -- archive URL / commit URL / file citation
    digest          VARCHAR,                 -- CDX digest / commit sha / file sha256
    status          VARCHAR   NOT NULL CHECK (status IN ('ok', 'failed')),
    reason          VARCHAR,                 -- why it failed: not_found, not_pricing, ...
    retry           BOOLEAN   NOT NULL DEFAULT FALSE,  -- a failure the next import tries again
    error           VARCHAR,
    page_id         VARCHAR,                 -- raw_page of its body
    rows_added      INTEGER   NOT NULL DEFAULT 0,
    loaded_at       TIMESTAMP NOT NULL
);

-- Resumable imports: per kind, source and archived URL (catalog path, file), the newest
-- capture time settled (loaded, or failed for good); the next import lists from there.
CREATE TABLE history_cursor (
    kind            VARCHAR   NOT NULL,
    source          VARCHAR   NOT NULL,
    target          VARCHAR   NOT NULL,
    last_observed   TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (kind, source, target)
);
