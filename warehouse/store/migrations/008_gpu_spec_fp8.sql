-- Whether a card has native FP8 tensor cores (Hopper, Ada, Blackwell, MI300X: true; Ampere,
-- Turing, Volta, Ascend 910B: false), from warehouse/ingest/data/gpu_spec.csv. NULL only for
-- rows loaded before this column existed; the next load_reference fills it. A column added
-- to a table with rows cannot be NOT NULL in DuckDB, so the loader checks it instead.
ALTER TABLE gpu_spec ADD COLUMN fp8 BOOLEAN;
