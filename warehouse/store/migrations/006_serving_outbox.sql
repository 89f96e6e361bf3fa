-- The serving copy (warehouse.serving, docs/PERFORMANCE.md): the dashboard's trend and
-- newest-value queries read a small second DuckDB file next to the warehouse, because
-- opening the multi-gigabyte warehouse alone costs more than the whole query budget.
-- The derive step records here, in its own transaction, every (source, day) whose rollup
-- it changed; the copy step brings those days over and only then deletes them from here,
-- so a copy that fails (file locked, disk full) is simply done again by the next run.
-- source '*' means: copy everything (a full recompute, or a serving file from before).
CREATE TABLE serving_outbox (
    source VARCHAR NOT NULL,
    day    DATE    NOT NULL,
    PRIMARY KEY (source, day)
);
INSERT INTO serving_outbox VALUES ('*', DATE '1970-01-01');
