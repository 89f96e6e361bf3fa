-- scrape_run.reason gains 'timeout': the fetch passed its total deadline or fell below the
-- minimum transfer rate ([http] total_deadline_s, min_bytes_per_s; scrapers/http_limits.py),
-- and 'internal_error': the snapshot step itself failed (a bug, a full disk), not the source.
--
-- DuckDB cannot change a CHECK constraint in place, so scrape_run is rebuilt as in 003 (the
-- migration runner copies the rows in slices: warehouse/store/migrating.py).

CREATE TABLE scrape_run_v11 (
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
    -- why: unreachable | http_error | blocked | too_large | timeout (fetch), drift (pages that
    -- do not parse, parse to zero rows or to implausible prices), load_error, internal_error,
    -- not_configured
    reason       VARCHAR CHECK (reason IN ('unreachable', 'http_error', 'blocked', 'too_large',
                                           'timeout', 'drift', 'load_error', 'internal_error',
                                           'not_configured'))
);
INSERT INTO scrape_run_v11 BY NAME SELECT * FROM scrape_run;
DROP TABLE scrape_run;
ALTER TABLE scrape_run_v11 RENAME TO scrape_run;
