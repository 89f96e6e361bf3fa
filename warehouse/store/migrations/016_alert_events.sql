-- Alerts that are events (warehouse.derive.alerts, warehouse.derive.alert_text):
--
-- * params: what an alert's message says, as data (JSON: the rule's card, line, usage and
--   threshold, the old and new snapshot with their breakeven and prices, the modes; for a
--   scraper_broken alert the source, profile, day and problem), so the dashboard and
--   `gpuprice alerts` render it in the reader's language; ``message`` keeps the English
--   text for SQL users. NULL for an alert stored before this migration: its English
--   message is all there is.
-- * superseded: why an alert no longer stands (NULL: it stands). When older days arrive
--   behind a watch rule (a backfill, the first start's seeding) the rule walks its whole
--   line again; an alert raised as news on the shorter line that the new walk does not
--   give again is kept, marked here, and never sent (warehouse.derive.notify.PENDING).
--   (An alert about history that the new walk does not give again is deleted: it was a
--   reconstruction, never sent to anyone.)
ALTER TABLE alert ADD COLUMN params VARCHAR;
ALTER TABLE alert ADD COLUMN superseded VARCHAR;
