-- Every valid price kept (issue 36): price tiers on offers, and the listings a page rejected.
--
-- * offer.tier: the tier a price was listed at: 'list' (the public list price), 'promo' (a
--   promotional or current price, the list price it replaced in list_price) or 'member' (a
--   member's price, named in tier_name as the page names it). The public pays 'list' or
--   'promo', one of the two per listing; metrics, alerts and the dashboard read those
--   (warehouse.public.PUBLIC), the member tiers are kept beside them. tier_from / tier_to: a
--   promotion's dates where the page states them. Rows loaded before this are list prices.
--   (ADD COLUMN takes no CHECK; scrapers.rows.OfferRow refuses any other tier when built.)
-- * rejected_row: each listing of a page that gave no row, with where it was on the page,
--   an excerpt of its raw text and why: refused by the parser (stage 'parse') or by the load
--   (stage 'load': no rate to convert it, an implausible price, a date after the fetch).
--   Loading the same page again adds nothing.
ALTER TABLE offer ADD COLUMN tier VARCHAR DEFAULT 'list';
ALTER TABLE offer ADD COLUMN tier_name VARCHAR;
ALTER TABLE offer ADD COLUMN tier_from DATE;
ALTER TABLE offer ADD COLUMN tier_to DATE;

CREATE TABLE rejected_row (
    page_id     VARCHAR   NOT NULL,            -- raw_page.page_id of the page it was on
    source      VARCHAR   NOT NULL,
    url         VARCHAR   NOT NULL,
    fetched_at  TIMESTAMP NOT NULL,
    stage       VARCHAR   NOT NULL CHECK (stage IN ('parse', 'load')),
    position    VARCHAR   NOT NULL,            -- "line 6", "machine 17", "table t1 row 3"
    excerpt     VARCHAR   NOT NULL,            -- its raw text, shortened
    reason      VARCHAR   NOT NULL,
    run_id      VARCHAR,
    recorded_at TIMESTAMP NOT NULL,
    PRIMARY KEY (page_id, stage, position, reason)
);

-- * Weekly and yearly plans (and daily ones) beside the monthly: monthly_discount gains the
--   prepaid term it compares with the hourly list price (its key: a listing may offer several
--   terms; rows from before are monthly), and breakeven the cheapest weekly and yearly plans
--   per card-hour with bare metal's breakeven against each (NULL where none is listed).
CREATE TABLE monthly_discount_v13 (
    observed_at               TIMESTAMP NOT NULL,
    source                    VARCHAR   NOT NULL,
    gpu                       VARCHAR   NOT NULL,
    offer_id                  VARCHAR   NOT NULL,
    term                      VARCHAR   NOT NULL DEFAULT 'monthly'
                              CHECK (term IN ('daily', 'weekly', 'monthly', 'yearly')),
    list_cny_per_card_hour    DECIMAL(18, 6) NOT NULL,  -- the listed (挂牌) hourly price
    monthly_cny_per_card_hour DECIMAL(18, 6) NOT NULL,  -- the term's price per card-hour
    discount_ratio            DOUBLE    NOT NULL,       -- term ÷ list, computed
    stated_discount           DECIMAL(6, 4),            -- what the page prints, e.g. 0.95 for 95折
    discount_label            VARCHAR,
    stated_minus_computed     DOUBLE,                   -- stated_discount − discount_ratio
    disagrees                 BOOLEAN   NOT NULL,       -- |stated − computed| > 0.01; flagged, never fixed
    simulated                 BOOLEAN   NOT NULL,
    PRIMARY KEY (source, observed_at, offer_id, term)
);
INSERT INTO monthly_discount_v13 BY NAME SELECT * FROM monthly_discount;
DROP TABLE monthly_discount;
ALTER TABLE monthly_discount_v13 RENAME TO monthly_discount;

ALTER TABLE breakeven ADD COLUMN weekly_cny_per_card_hour DECIMAL(18, 6);
ALTER TABLE breakeven ADD COLUMN yearly_cny_per_card_hour DECIMAL(18, 6);
ALTER TABLE breakeven ADD COLUMN breakeven_hours_vs_weekly DOUBLE;
ALTER TABLE breakeven ADD COLUMN breakeven_hours_vs_yearly DOUBLE;
ALTER TABLE breakeven ADD COLUMN weekly_offer VARCHAR;
ALTER TABLE breakeven ADD COLUMN yearly_offer VARCHAR;
