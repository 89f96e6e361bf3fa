-- Alerts people can trust (warehouse.derive.alerts, warehouse.ingest.drift):
--
-- * a scraper_broken alert resolves itself when its source next loads: resolved_at (the
--   observation that loaded again) and resolution (what resolved it);
-- * an alert about a day more than a day before it was raised (while seeding or importing
--   history) is dated by that day and never sent: not_sent says why (NULL: sent as usual;
--   such an alert is not pending either);
-- * source_health.observed_at: the observation the health was last judged on (a snapshot
--   of a past day, loaded later, does not overrule a newer one);
-- * alert_rule_state.points_seen: how many breakeven snapshots a watch rule has walked (when
--   older ones arrive, e.g. the first start's history after its first scrape, the rule walks
--   its line again from the start).
ALTER TABLE alert ADD COLUMN resolved_at TIMESTAMP;
ALTER TABLE alert ADD COLUMN resolution VARCHAR;
ALTER TABLE alert ADD COLUMN not_sent VARCHAR;
ALTER TABLE source_health ADD COLUMN observed_at TIMESTAMP;
ALTER TABLE alert_rule_state ADD COLUMN points_seen BIGINT;

-- Breaks that already ended: the source is ok again since source_health.since.
UPDATE alert SET resolved_at = h.since,
                 resolution = 'the source loaded again (resolved when migration 010 was applied)'
FROM source_health AS h
WHERE alert.kind = 'scraper_broken' AND alert.resolved_at IS NULL
  AND h.source = alert.source AND h.profile = CASE WHEN alert.simulated THEN 'demo' ELSE 'live' END
  AND h.state = 'ok' AND h.since >= alert.new_observed_at;
