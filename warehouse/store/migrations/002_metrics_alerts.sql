-- Derived metrics and procurement alerts (docs/METRICS.md). Filled by warehouse.metrics
-- (derive, incremental per snapshot) and warehouse.alerts (rules, delivery state).
-- A snapshot is every offer of one source with one observed_at; derived rows carry that
-- snapshot's (source, observed_at). Money is CNY; hours are card-hours per month of 720 h.

CREATE TABLE card_value (
    observed_at        TIMESTAMP NOT NULL,
    source             VARCHAR   NOT NULL,
    gpu                VARCHAR   NOT NULL,
    billing            VARCHAR   NOT NULL,
    offer_id           VARCHAR   NOT NULL,      -- the cheapest listing of this card and billing mode
    offers             INTEGER   NOT NULL,      -- listings of this card and billing mode in the snapshot
    cny_per_card_hour  DECIMAL(18, 6) NOT NULL, -- that cheapest listing's CNY per card-hour
    cny_per_tflop_hour DOUBLE,                  -- ÷ gpu_spec.fp16_tflops_dense (dense FP16 TFLOPS)
    cny_per_gb_hour    DOUBLE,                  -- ÷ gpu_spec.vram_gb (GB = 10^9 bytes)
    cny_per_tbps_hour  DOUBLE,                  -- ÷ gpu_spec.bandwidth_gbs / 1000 (TB/s)
    simulated          BOOLEAN   NOT NULL,
    PRIMARY KEY (source, observed_at, gpu, billing)
);

CREATE TABLE monthly_discount (
    observed_at               TIMESTAMP NOT NULL,
    source                    VARCHAR   NOT NULL,
    gpu                       VARCHAR   NOT NULL,
    offer_id                  VARCHAR   NOT NULL,
    list_cny_per_card_hour    DECIMAL(18, 6) NOT NULL,  -- the listed (挂牌) hourly price
    monthly_cny_per_card_hour DECIMAL(18, 6) NOT NULL,  -- the monthly plan's per-hour price
    discount_ratio            DOUBLE    NOT NULL,       -- monthly ÷ list, computed
    stated_discount           DECIMAL(6, 4),            -- what the page prints, e.g. 0.95 for 95折
    discount_label            VARCHAR,
    stated_minus_computed     DOUBLE,                   -- stated_discount − discount_ratio
    disagrees                 BOOLEAN   NOT NULL,       -- |stated − computed| > 0.01; flagged, never fixed
    simulated                 BOOLEAN   NOT NULL,
    PRIMARY KEY (source, observed_at, offer_id)
);

CREATE TABLE breakeven (
    observed_at                   TIMESTAMP NOT NULL,
    source                        VARCHAR   NOT NULL,  -- a platform, or 'cheapest' (scope cheapest)
    gpu                           VARCHAR   NOT NULL,
    scope                         VARCHAR   NOT NULL CHECK (scope IN ('platform', 'cheapest')),
    bare_metal_cny_per_card_month DECIMAL(18, 6),      -- cheapest bare-metal server-month ÷ its cards
    list_cny_per_card_hour        DECIMAL(18, 6),      -- cheapest listed hourly price
    monthly_cny_per_card_hour     DECIMAL(18, 6),      -- cheapest monthly-plan per-hour price
    breakeven_hours_vs_hourly     DOUBLE,              -- bare metal ÷ list hourly (h per month)
    breakeven_hours_vs_monthly    DOUBLE,              -- bare metal ÷ monthly-plan hourly
    reason_vs_hourly              VARCHAR,             -- why breakeven_hours_vs_hourly is NULL
    reason_vs_monthly             VARCHAR,             -- why breakeven_hours_vs_monthly is NULL
    bare_metal_offer              VARCHAR,             -- offer_id used (cheapest: 'source/offer_id')
    hourly_offer                  VARCHAR,
    monthly_offer                 VARCHAR,
    simulated                     BOOLEAN   NOT NULL,
    PRIMARY KEY (source, observed_at, gpu, simulated)
);

CREATE TABLE market_premium (
    observed_at               TIMESTAMP NOT NULL,
    source                    VARCHAR   NOT NULL,
    offer_id                  VARCHAR   NOT NULL,
    billing                   VARCHAR   NOT NULL,
    gpu                       VARCHAR   NOT NULL,
    region                    VARCHAR,                -- the listing's region as printed
    cny_per_card_hour         DECIMAL(18, 6) NOT NULL,
    match                     VARCHAR   NOT NULL CHECK (match IN ('region', 'national_average')),
    quote_region              VARCHAR   NOT NULL,     -- the market region, or '全国均值'
    quote_regions             INTEGER   NOT NULL,     -- regional quotes averaged
    quote_source              VARCHAR   NOT NULL,
    quote_observed_at         TIMESTAMP NOT NULL,
    quote_basis               VARCHAR   NOT NULL,
    quote_cny_per_card_hour   DOUBLE    NOT NULL,
    premium_cny_per_card_hour DOUBLE    NOT NULL,     -- listing − quote
    premium_ratio             DOUBLE    NOT NULL,     -- listing ÷ quote − 1
    simulated                 BOOLEAN   NOT NULL,
    PRIMARY KEY (source, observed_at, offer_id, billing)
);

-- How a platform's region maps onto a market-quote region (SMM's economic zones): the
-- listing's region containing `keyword`; the lowest `priority` wins. No match: national average.
CREATE TABLE region_market (
    keyword       VARCHAR PRIMARY KEY,
    market_region VARCHAR NOT NULL,
    priority      INTEGER NOT NULL
);
INSERT INTO region_market VALUES
    ('长三角', '长三角', 0), ('京津冀', '京津冀', 0), ('粤港澳', '粤港澳', 0), ('成渝', '成渝', 0),
    ('上海', '长三角', 1), ('杭州', '长三角', 1), ('南京', '长三角', 1), ('苏州', '长三角', 1),
    ('无锡', '长三角', 1), ('宁波', '长三角', 1), ('合肥', '长三角', 1), ('江苏', '长三角', 2),
    ('浙江', '长三角', 2), ('安徽', '长三角', 2), ('华东', '长三角', 3),
    ('北京', '京津冀', 1), ('天津', '京津冀', 1), ('张家口', '京津冀', 1), ('廊坊', '京津冀', 1),
    ('石家庄', '京津冀', 1), ('河北', '京津冀', 2),
    ('广州', '粤港澳', 1), ('深圳', '粤港澳', 1), ('东莞', '粤港澳', 1), ('佛山', '粤港澳', 1),
    ('香港', '粤港澳', 1), ('澳门', '粤港澳', 1), ('广东', '粤港澳', 2), ('华南', '粤港澳', 3),
    ('成都', '成渝', 1), ('重庆', '成渝', 1), ('四川', '成渝', 2);

-- Which snapshots have been derived, and from how many rows: a snapshot whose row count
-- changed (a page loaded late) is derived again; one already derived is not touched.
CREATE TABLE derived_snapshot (
    kind        VARCHAR   NOT NULL CHECK (kind IN ('offer', 'quote')),
    source      VARCHAR   NOT NULL,
    observed_at TIMESTAMP NOT NULL,
    row_count   INTEGER   NOT NULL,
    derived_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (kind, source, observed_at)
);

CREATE TABLE alert (
    alert_id                          VARCHAR PRIMARY KEY,  -- hash of rule, kind and new snapshot
    created_at                        TIMESTAMP NOT NULL,
    kind                              VARCHAR   NOT NULL CHECK (kind IN ('breakeven_shift', 'mode_flip')),
    rule                              VARCHAR   NOT NULL,   -- the watch rule's name
    gpu                               VARCHAR   NOT NULL,
    source                            VARCHAR   NOT NULL,   -- the platform watched, or 'cheapest'
    old_value                         DOUBLE,               -- breakeven h/month before
    new_value                         DOUBLE    NOT NULL,   -- breakeven h/month now
    message                           VARCHAR   NOT NULL,
    delivered_at                      TIMESTAMP,            -- NULL until every target took it
    against                           VARCHAR   NOT NULL,   -- container mode compared: hourly | monthly
    usage_hours                       DOUBLE    NOT NULL,
    old_mode                          VARCHAR,              -- cheaper mode at usage_hours before
    new_mode                          VARCHAR,
    old_observed_at                   TIMESTAMP,            -- the snapshot compared with
    new_observed_at                   TIMESTAMP NOT NULL,   -- the snapshot that caused it
    old_bare_metal_cny_per_card_month DECIMAL(18, 6),
    new_bare_metal_cny_per_card_month DECIMAL(18, 6),
    old_container_cny_per_card_hour   DECIMAL(18, 6),
    new_container_cny_per_card_hour   DECIMAL(18, 6),
    new_offers                        VARCHAR,              -- the offers behind the new prices
    simulated                         BOOLEAN   NOT NULL,
    attempts                          INTEGER   NOT NULL DEFAULT 0,
    last_attempt_at                   TIMESTAMP,
    last_error                        VARCHAR               -- never holds a notification URL
);

-- One row per alert and notification target that took it; `target` is a hash of the URL.
CREATE TABLE alert_delivery (
    alert_id     VARCHAR   NOT NULL,
    target       VARCHAR   NOT NULL,
    delivered_at TIMESTAMP NOT NULL,
    PRIMARY KEY (alert_id, target)
);

-- Where each watch rule stands: the newest snapshot evaluated, the value last alerted
-- (baseline) and the cheaper mode with hysteresis. A rule whose settings change restarts.
CREATE TABLE alert_rule_state (
    rule                 VARCHAR PRIMARY KEY,
    fingerprint          VARCHAR   NOT NULL,
    last_observed_at     TIMESTAMP NOT NULL,
    last_value           DOUBLE    NOT NULL,
    last_bare_metal      DECIMAL(18, 6),
    last_container       DECIMAL(18, 6),
    baseline_observed_at TIMESTAMP NOT NULL,
    baseline_value       DOUBLE    NOT NULL,
    baseline_bare_metal  DECIMAL(18, 6),
    baseline_container   DECIMAL(18, 6),
    mode                 VARCHAR   NOT NULL,
    updated_at           TIMESTAMP NOT NULL
);
