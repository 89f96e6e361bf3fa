"""The price index as an open dataset (`gpuprice index export DIR`): every revision as
Parquet and CSV, and ``methodology.json`` saying what the rows are, how they were made and
where their inputs come from (docs/INDEX.md)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from warehouse.derive.index_method import CHANGE_DAYS, KINDS, METHOD, METHODS, MODES
from warehouse.ingest.reference import SEED_000, SEED_002, SEED_003, SEED_003_SMM
from warehouse.read.index import COLUMNS, all_revisions
from warehouse.store.db import read_connection, utcnow
from warehouse.store.handle import Warehouse

PARQUET, CSV, METHODOLOGY = "price_index.parquet", "price_index.csv", "methodology.json"

# What each exported column is, with its unit (methodology.json).
COLUMN_NOTES = {
    "day": "UTC day (YYYY-MM-DD)",
    "card": "canonical card id, e.g. rtx4090-24g",
    "billing": f"rent mode: {', '.join(MODES)}",
    "kind": f"kind of data, never mixed: {', '.join(KINDS)}",
    "value": "index value, CNY per card-hour: the median across platforms of each platform's "
    "median; empty when withheld",
    "platforms": "platforms quoting the card and mode that day",
    "observations": "listings in the platforms' medians",
    "sold_out_share": "sold-out listings (stock = 0) / listings with stock given, over the "
    "platforms that give stock (0.25 = 25 %)",
    "status": "published | withheld",
    "gate": "the failing gate of a withheld day (min_platforms)",
    "change_1d": "matched-sample change over 1 day, a fraction (0.05 = +5 %)",
    "change_7d": "matched-sample change over 7 days, a fraction",
    "change_30d": "matched-sample change over 30 days, a fraction",
    "level": "chain-linked level, 100 on the series' first published day",
    "method": f"method version ({', '.join(METHODS)})",
    "gate_reason": "the gate in words",
    "stock_platforms": "platforms that give stock for the card and mode",
    **{
        f"change_{n}d_platforms": f"platforms in the {n}-day change's matched sample"
        for n in CHANGE_DAYS
    },
    "platform_set": "the quoting platforms, sorted, comma-separated",
    "platforms_changed": "the platform set differs from the series' previous quoting day",
    "last_snapshot_at": "the newest snapshot among the inputs, UTC",
    "revision": "1 for a day's first value, then 2, 3, ... per revision",
    "published_at": "when this revision was computed, UTC",
    "superseded_at": "when the next revision replaced it, UTC; empty: current",
    "inputs_hash": "sha256 over the method and every listing read",
    "gates": "the gates this revision was computed with (JSON)",
}


@dataclass(frozen=True, slots=True)
class ExportSummary:
    directory: Path
    rows: int
    current: int
    content_hash: str

    def line(self) -> str:
        return (
            f"wrote {self.rows} index row(s) ({self.current} current, the rest superseded "
            f"revisions) to {self.directory}: {PARQUET}, {CSV}, {METHODOLOGY} "
            f"(content sha256 {self.content_hash[:16]}…)"
        )


def export_index(warehouse: Warehouse, directory: Path) -> ExportSummary:
    """Write the whole index to ``directory`` (created if need be)."""
    rows = all_revisions(warehouse).select(COLUMNS)
    directory.mkdir(parents=True, exist_ok=True)
    rows.write_parquet(directory / PARQUET)
    rows.write_csv(directory / CSV)
    digest = hashlib.sha256((directory / CSV).read_bytes()).hexdigest()
    methodology = _methodology(warehouse, rows, digest)
    (directory / METHODOLOGY).write_text(
        json.dumps(methodology, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
    )
    current = rows.filter(pl.col("superseded_at").is_null()).height
    return ExportSummary(directory, rows.height, current, digest)


def _methodology(warehouse: Warehouse, rows: pl.DataFrame, digest: str) -> dict[str, object]:
    with read_connection(warehouse) as con:
        gates = con.sql("SELECT method, gates, computed_at FROM index_state").pl()
        platforms = con.sql(
            "SELECT kind, source, min(day) AS first_day, max(day) AS last_day, "
            "count(DISTINCT day) AS days FROM index_platform_day GROUP BY ALL ORDER BY kind, source"
        ).pl()
        imports = con.sql(
            "SELECT DISTINCT kind, source, target FROM history_import ORDER BY ALL"
        ).pl()
    return {
        "name": "gpuprice rental price index",
        "method": METHOD,
        "methods": list(METHODS),
        "method_document": "docs/INDEX.md (in the gpuprice repository)",
        "gates": {r["method"]: json.loads(r["gates"]) for r in gates.iter_rows(named=True)},
        "computed_at": {r["method"]: r["computed_at"] for r in gates.iter_rows(named=True)},
        "exported_at": utcnow(),
        "rows": rows.height,
        "content_hash": {"algorithm": "sha256", "of": CSV, "value": digest},
        "files": {PARQUET: "every revision, Apache Parquet", CSV: "the same rows, UTF-8 CSV"},
        "units": "value: CNY per card-hour (元/卡时); changes and shares: fractions",
        "columns": COLUMN_NOTES,
        "platforms": platforms.to_dicts(),
        "citations": {
            "platforms": "each listing is in the warehouse's offer table with the page it was "
            "parsed from (raw_page) or the archive capture / commit it was imported from "
            "(offer.citation, history_capture.origin)",
            "history_imports": imports.to_dicts(),
            "outside_figures": [SEED_003, SEED_002, SEED_000, SEED_003_SMM],
        },
    }
