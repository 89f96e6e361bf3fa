-- Core tables of docs/ARCHITECTURE.md. Money is CNY unless a column says otherwise;
-- timestamps are naive UTC; GB = 10^9 bytes.

CREATE TABLE raw_page (
    page_id      VARCHAR PRIMARY KEY,          -- sha256 of body
    source       VARCHAR   NOT NULL,
    url          VARCHAR   NOT NULL,
    fetched_at   TIMESTAMP NOT NULL,           -- first time this exact body was fetched
    http_status  INTEGER   NOT NULL,
    content_type VARCHAR,
    body         BLOB      NOT NULL,
    parse_status VARCHAR   NOT NULL CHECK (parse_status IN ('ok', 'error')),
    parse_error  VARCHAR,
    rows         INTEGER   NOT NULL DEFAULT 0,
    simulated    BOOLEAN   NOT NULL DEFAULT FALSE
);

CREATE TABLE scrape_run (
    run_id       VARCHAR PRIMARY KEY,
    source       VARCHAR   NOT NULL,
    profile      VARCHAR   NOT NULL,
    as_of        DATE,                         -- set for backfill runs of a past day
    started_at   TIMESTAMP NOT NULL,
    finished_at  TIMESTAMP NOT NULL,
    status       VARCHAR   NOT NULL CHECK (status IN ('ok', 'partial', 'failed')),
    pages        INTEGER   NOT NULL,
    rows         INTEGER   NOT NULL,           -- rows newly added by this run
    error        VARCHAR
);

CREATE TABLE offer (
    observed_at       TIMESTAMP NOT NULL,
    source            VARCHAR   NOT NULL,
    offer_id          VARCHAR   NOT NULL,
    gpu               VARCHAR   NOT NULL,      -- canonical id, or 'unknown'
    gpu_name_raw      VARCHAR   NOT NULL,
    gpu_count         INTEGER   NOT NULL CHECK (gpu_count > 0),
    vram_gb           INTEGER,
    billing           VARCHAR   NOT NULL CHECK (billing IN ('hourly', 'monthly', 'bare_metal_monthly', 'spot')),
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

CREATE TABLE spot_quote (
    observed_at       TIMESTAMP NOT NULL,
    source            VARCHAR   NOT NULL,
    gpu               VARCHAR   NOT NULL,
    gpu_name_raw      VARCHAR   NOT NULL,
    region            VARCHAR   NOT NULL,
    basis             VARCHAR   NOT NULL,
    price             DECIMAL(14, 4) NOT NULL CHECK (price > 0),
    unit_raw          VARCHAR   NOT NULL,
    cny_per_card_hour DECIMAL(18, 6) NOT NULL CHECK (cny_per_card_hour > 0),
    page_id           VARCHAR,
    run_id            VARCHAR,
    simulated         BOOLEAN   NOT NULL,
    citation          VARCHAR,
    PRIMARY KEY (source, gpu_name_raw, region, basis, observed_at)
);

CREATE TABLE gpu_spec (
    gpu                 VARCHAR PRIMARY KEY,
    vendor              VARCHAR NOT NULL,
    model               VARCHAR NOT NULL,
    vram_gb             INTEGER NOT NULL,
    memory_type         VARCHAR NOT NULL,
    bandwidth_gbs       DOUBLE  NOT NULL,      -- GB/s, 10^9 bytes
    fp16_tflops_dense   DOUBLE  NOT NULL,      -- tensor, FP16 accumulate, no sparsity
    fp16_tflops_sparse  DOUBLE,                -- 2:4 structured sparsity
    fp16_tflops_dense_fp32acc DOUBLE,          -- tensor, FP32 accumulate, no sparsity
    seed_fp16_tflops    VARCHAR,               -- what the seeds quote, and which figure it is
    interconnect        VARCHAR NOT NULL,
    link_gbs            DOUBLE,                -- card-to-card, bidirectional GB/s
    tdp_w               INTEGER NOT NULL,
    software_stack      VARCHAR NOT NULL,
    domestic            BOOLEAN NOT NULL,
    source              VARCHAR NOT NULL,      -- citation for the figures
    note                VARCHAR
);

CREATE TABLE fx_rate (
    day          DATE    NOT NULL,
    currency     VARCHAR NOT NULL,
    cny_per_unit DECIMAL(12, 6) NOT NULL CHECK (cny_per_unit > 0),
    source       VARCHAR NOT NULL,
    PRIMARY KEY (day, currency)
);
