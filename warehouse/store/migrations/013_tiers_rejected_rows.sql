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
