-- Reliability (docs/RELIABILITY.md). Anomaly quarantine: rows held back from offer / spot_quote, and so
-- from every derived table and alert, until confirmed by consecutive snapshots or accepted by
-- hand (`gpuprice quarantine list|accept|reject`).
CREATE TABLE quarantine (
    quarantine_id     VARCHAR PRIMARY KEY,     -- sha256 of table, row key and observed_at
    row_table         VARCHAR   NOT NULL CHECK (row_table IN ('offer', 'spot_quote')),
    row_key           VARCHAR   NOT NULL,      -- offer: source|offer_id|billing; quote: source|gpu_name_raw|region|basis
    observed_at       TIMESTAMP NOT NULL,
    source            VARCHAR   NOT NULL,
    gpu               VARCHAR,
    gpu_name_raw      VARCHAR,
    price             VARCHAR,                 -- as listed (text: a NaN or negative price is kept too)
    unit              VARCHAR,
    cny_per_card_hour DOUBLE,
    baseline_cny_per_card_hour DOUBLE,         -- jump: the last accepted value it is compared with
    baseline_observed_at TIMESTAMP,
    reason_kind       VARCHAR   NOT NULL CHECK (reason_kind IN ('jump', 'invalid_price', 'unknown_gpu', 'impossible_unit')),
    reason            VARCHAR   NOT NULL,
    -- held: waiting; confirmed: released by N consecutive snapshots; accepted / rejected: by hand;
    -- noted: loaded anyway (unknown GPU names: loaded as gpu = 'unknown', which metrics skip)
    status            VARCHAR   NOT NULL CHECK (status IN ('held', 'confirmed', 'accepted', 'rejected', 'noted')),
    loadable          BOOLEAN   NOT NULL,      -- false for invalid prices: they can only be rejected
    row_json          VARCHAR   NOT NULL,      -- the row as parsed, to load on release
    page_id           VARCHAR,
    run_id            VARCHAR,
    created_at        TIMESTAMP NOT NULL,
    decided_at        TIMESTAMP,
    decided_by        VARCHAR                  -- 'confirmed by N snapshots' | 'hand' (+ note)
);

-- Raw-page retention (`[retention] raw_page_days`): an old page's body is emptied and it is
-- listed here; the page's row in raw_page, and every row parsed from it, stay.
CREATE TABLE raw_page_pruned (
    page_id     VARCHAR PRIMARY KEY,
    pruned_at   TIMESTAMP NOT NULL,
    body_bytes  BIGINT    NOT NULL          -- the size the body had
);
