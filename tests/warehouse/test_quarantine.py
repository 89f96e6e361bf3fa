"""Anomaly quarantine: jumps, impossible units, invalid prices and unknown GPU names are kept
with their reason, out of the tables (and so out of metrics and alerts) until confirmed by N
consecutive snapshots or decided by hand."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from scrapers.parse import Rejected
from scrapers.rows import InvalidRow, OfferRow, SpotQuoteRow
from tests.support.handles import warehouse_at
from warehouse.derive.metrics import derive
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.quarantine import QuarantinePolicy, decide
from warehouse.ingest.reference import load_reference
from warehouse.store.db import read_frame, write_connection

T0 = datetime(2026, 9, 4, 2, 0)
HOUR = timedelta(hours=1)
OFFER = OfferRow(
    observed_at=T0, source="jygpu", offer_id="c-4090", gpu="rtx4090-24g",
    gpu_name_raw="RTX 4090 24GB", gpu_count=1, vram_gb=24, billing="hourly",
    price=Decimal("1.96"), currency="CNY", unit="CNY/card-hour", unit_raw="元/时",
    per_card_hour=Decimal("1.96"), list_price=Decimal("1.96"), simulated=True,
)  # fmt: skip
OTHER = replace(OFFER, offer_id="c-4090-b", price=Decimal("2.10"), per_card_hour=Decimal("2.10"))
QUOTE = SpotQuoteRow(
    observed_at=T0, source="smm", gpu="h20-96g", gpu_name_raw="H20-96G", region="京津冀",
    basis="整机包月均价", price=Decimal("7.47"), unit_raw="元/卡时",
    per_card_hour=Decimal("7.47"), simulated=True,
)  # fmt: skip
POLICY = QuarantinePolicy(jump_factor=3.0, confirm_snapshots=3)
runner = CliRunner()


def at(row, hours: int, price: str | None = None):
    moved = replace(row, observed_at=T0 + hours * HOUR)
    if price is not None:
        moved = replace(moved, price=Decimal(price), per_card_hour=Decimal(price))
    return moved


def load(path: Path, *rows, source: str = "jygpu", policy: QuarantinePolicy = POLICY):
    when = rows[0].observed_at
    body = json.dumps([r.to_dict() for r in rows], default=str).encode()
    fetched = FetchedPage("http://127.0.0.1/p", 200, body, "text/html", when)
    kind = "offers" if source == "jygpu" else "quotes"
    snapshot = Snapshot(source, kind, when, None, [ParsedPage(fetched, list(rows), None)])
    return load_snapshot(warehouse_at(path), snapshot, profile="demo", quarantine=policy)


def prices(path: Path, offer_id: str = "c-4090") -> list[Decimal]:
    return read_frame(
        warehouse_at(path),
        "SELECT price FROM offer WHERE offer_id = ? ORDER BY observed_at",
        [offer_id],
    )["price"].to_list()


def entries(path: Path) -> list[dict]:
    return read_frame(
        warehouse_at(path),
        "SELECT quarantine_id, reason_kind, status, price, reason, loadable FROM quarantine "
        "ORDER BY observed_at, quarantine_id",
    ).to_dicts()


def test_a_jump_is_held_with_its_reason_and_the_rest_of_the_page_loads(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load(path, OFFER, OTHER)
    summary = load(path, at(OFFER, 1, "19.60"), at(OTHER, 1, "2.20"))
    assert summary.status == "ok" and summary.rows_added == 1 and summary.quarantined == 1
    assert prices(path) == [Decimal("1.96")]
    assert prices(path, "c-4090-b") == [Decimal("2.10"), Decimal("2.20")]
    (held,) = entries(path)
    assert held["reason_kind"] == "jump" and held["status"] == "held"
    assert "10.00× the last accepted 1.96" in held["reason"]
    # a fall below 1/factor is a jump too
    load(path, at(OTHER, 2, "0.50"))
    assert prices(path, "c-4090-b")[-1] == Decimal("2.20")


def test_a_jump_is_judged_against_the_last_value_however_old_it_is(tmp_path: Path) -> None:
    """Baselines are looked for in the recent week first (a long import read the source's
    whole history on every page); a listing last seen before it is still judged against
    that value, and one seen within it against the newest."""
    path = tmp_path / "w.duckdb"
    load(path, OFFER, OTHER)
    load(path, at(OTHER, 24 * 30, "2.30"))  # OTHER seen again within the month, OFFER not
    weeks_later = 24 * 30 + 2
    summary = load(path, at(OFFER, weeks_later, "19.60"), at(OTHER, weeks_later, "6.50"))
    assert summary.rows_added == 1 and summary.quarantined == 1
    (held,) = entries(path)
    assert (
        held["reason_kind"] == "jump"
        and "the last accepted 1.96 (2026-09-04 02:00)" in held["reason"]
    )
    assert prices(path, "c-4090-b")[-1] == Decimal("6.50")  # 2.83× the newest 2.30: no jump
    # against the old 2.10 it would have been 3.10×: the newest value is the one compared
    late = load(path, at(OTHER, weeks_later + 1, "2.00"))
    assert late.quarantined == 1 and "the last accepted 6.5 (" in entries(path)[-1]["reason"]


def test_held_rows_stay_out_of_metrics(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    load(path, OFFER)
    load(path, at(OFFER, 1, "15.00"))
    derive(warehouse_at(path))
    values = read_frame(
        warehouse_at(path),
        "SELECT max(cny_per_card_hour) AS m FROM card_value WHERE source = 'jygpu'",
    )["m"][0]
    assert float(values) == pytest.approx(1.96)
    # accepted by hand: the next derive picks the snapshot up
    (held,) = entries(path)
    assert decide(warehouse_at(path), [held["quarantine_id"]], accept=True) == 1
    derive(warehouse_at(path))
    values = read_frame(
        warehouse_at(path),
        "SELECT max(cny_per_card_hour) AS m FROM card_value WHERE source = 'jygpu'",
    )["m"][0]
    assert float(values) == pytest.approx(15.0)


def test_confirmed_by_n_consecutive_snapshots(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load(path, OFFER)
    assert load(path, at(OFFER, 1, "6.50")).released == 0
    assert load(path, at(OFFER, 2, "6.40")).released == 0
    third = load(path, at(OFFER, 3, "6.60"))
    assert third.released == 3 and third.rows_added == 3
    assert prices(path) == [Decimal(p) for p in ("1.96", "6.50", "6.40", "6.60")]
    assert {e["status"] for e in entries(path)} == {"confirmed"}
    # the new level is now the baseline: 6.7 is no jump
    assert load(path, at(OFFER, 4, "6.70")).quarantined == 0


def test_jumps_that_disagree_or_are_interrupted_are_not_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load(path, OFFER)
    load(path, at(OFFER, 1, "6.00"))
    load(path, at(OFFER, 2, "2.00"))  # back to normal: accepted, a new baseline
    load(path, at(OFFER, 3, "7.00"))
    load(path, at(OFFER, 4, "0.30"))  # disagrees with 7.00 by more than the factor
    assert prices(path) == [Decimal("1.96"), Decimal("2.00")]
    assert [e["status"] for e in entries(path)] == ["held", "held", "held"]


def test_quotes_jump_too(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load(path, QUOTE, source="smm")
    summary = load(path, at(QUOTE, 1, "0.70"), source="smm")
    assert summary.quarantined == 1 and summary.rows_added == 0


def test_impossible_unit_is_held(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    weird = replace(OFFER, offer_id="x", unit="CNY/card-fortnight")
    wrong_currency = replace(OFFER, offer_id="y", unit="USD/card-hour")
    summary = load(path, OFFER, weird, wrong_currency)
    assert summary.rows_added == 1 and summary.quarantined == 2
    assert {e["reason_kind"] for e in entries(path)} == {"impossible_unit"}


def test_a_row_with_an_invalid_price_cannot_exist(tmp_path: Path) -> None:
    """Zero, NaN and negative prices are refused when the row is built (scrapers.rows): the
    parse path rejects their listing alone (tests/scrapers/test_parse_path.py), nothing of
    them reaches the load or the quarantine."""
    for bad in ("0", "NaN", "-1"):
        with pytest.raises(InvalidRow, match="price"):
            replace(OFFER, price=Decimal(bad), per_card_hour=Decimal(bad))


def test_the_listings_a_page_rejected_are_kept_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "gpuprice.duckdb"
    when = OFFER.observed_at
    fetched = FetchedPage("http://127.0.0.1/p", 200, b"page", "text/html", when)
    gone = Rejected("card 3", "RTX 4090 | 面议", "no price given: '面议'")
    page = ParsedPage(fetched, [OFFER, OTHER], None, (gone,), listings=6)
    snapshot = Snapshot("jygpu", "offers", when, None, [page])
    summary = load_snapshot(warehouse_at(path), snapshot, profile="demo", quarantine=POLICY)
    assert (summary.status, summary.rows_added, summary.rejected) == ("ok", 2, 1)
    assert "1 listing(s) rejected" in summary.line()
    stored = read_frame(
        warehouse_at(path), "SELECT stage, position, excerpt, reason, url FROM rejected_row"
    ).rows()
    assert stored == [("parse", "card 3", "RTX 4090 | 面议", "no price given: '面议'",
                       "http://127.0.0.1/p")]  # fmt: skip
    load_snapshot(warehouse_at(path), snapshot, profile="demo", quarantine=POLICY)
    assert read_frame(warehouse_at(path), "SELECT count(*) FROM rejected_row").item() == 1


def test_a_page_that_loses_more_than_its_share_loads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "gpuprice.duckdb"
    when = OFFER.observed_at
    fetched = FetchedPage("http://127.0.0.1/p", 200, b"page", "text/html", when)
    gone = tuple(Rejected(f"card {n}", "", "no price given: '面议'") for n in (3, 4))
    page = ParsedPage(fetched, [OFFER, OTHER], None, gone, listings=4)  # 50 % rejected
    snapshot = Snapshot("jygpu", "offers", when, None, [page])
    strict = load_snapshot(warehouse_at(path), snapshot, profile="demo", quarantine=POLICY)
    assert (strict.status, strict.reason, strict.rows_added) == ("failed", "drift", 0)
    assert "2 of 4 listing(s) rejected (50%, above the 20%" in strict.error
    lenient = replace(POLICY, max_rejected_share=0.5)
    loaded = load_snapshot(warehouse_at(path), snapshot, profile="demo", quarantine=lenient)
    assert (loaded.status, loaded.rows_added) == ("ok", 2)


def test_unknown_gpu_names_are_loaded_as_unknown_and_noted(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    odd = replace(OFFER, offer_id="u", gpu="unknown", gpu_name_raw="RTX 9090 Ti")
    summary = load(path, OFFER, odd)
    assert summary.rows_added == 2
    (noted,) = entries(path)
    assert noted["reason_kind"] == "unknown_gpu" and noted["status"] == "noted"
    derive(warehouse_at(path))
    assert (
        read_frame(
            warehouse_at(path), "SELECT count(*) FROM card_value WHERE gpu = 'unknown'"
        ).item()
        == 0
    )


def test_reloading_the_same_page_adds_no_entries(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load(path, OFFER)
    load(path, at(OFFER, 1, "15.00"))
    load(path, at(OFFER, 1, "15.00"))
    assert len(entries(path)) == 1


def _env(path: Path) -> dict[str, str]:
    return {"GPUPRICE_HOME": str(path.parent), "GPUPRICE_PROFILE": "demo"}


def test_cli_list_accept_reject(tmp_path: Path) -> None:
    path = tmp_path / "gpuprice.duckdb"
    load(path, OFFER, OTHER)
    load(path, at(OFFER, 1, "15.00"), at(OTHER, 1, "0.50"))
    env = _env(path)
    listed = runner.invoke(app, ["quarantine", "list", "--format", "json"], env=env)
    assert listed.exit_code == 0, listed.output
    held = [json.loads(line) for line in listed.stdout.splitlines()]
    assert {h["reason_kind"] for h in held} == {"jump"} and len(held) == 2
    by_price = {h["price"]: h["id"] for h in held}

    accepted = runner.invoke(app, ["quarantine", "accept", by_price["15.00"][:10]], env=env)
    assert accepted.exit_code == 0, accepted.output
    assert "1 row(s) loaded" in accepted.stdout
    assert prices(path) == [Decimal("1.96"), Decimal("15.00")]

    rejected = runner.invoke(
        app, ["quarantine", "reject", by_price["0.50"], "--note", "typo on the site"], env=env
    )
    assert rejected.exit_code == 0
    assert prices(path, "c-4090-b") == [Decimal("2.10")]
    again = runner.invoke(app, ["quarantine", "reject", by_price["0.50"]], env=env)
    assert again.exit_code == 2 and "already rejected" in again.stderr
    table = runner.invoke(
        app, ["quarantine", "list", "--status", "all", "--format", "csv"], env=env
    )
    assert table.exit_code == 0 and "accepted" in table.stdout and "rejected" in table.stdout
    unknown = runner.invoke(app, ["quarantine", "accept", "zzz"], env=env)
    assert unknown.exit_code == 2 and "matches 0" in unknown.stderr


def test_the_csv_list_shows_a_formula_like_name_as_text(tmp_path: Path) -> None:
    """Issue 31: a card name from a page such as `=HYPERLINK(…)` ran as a formula in whoever
    opened the export; `quarantine list --format csv` writes it as text."""
    path = tmp_path / "gpuprice.duckdb"
    name = '=HYPERLINK("http://evil.example/","RTX 4090")'
    load(path, replace(OFFER, offer_id="u", gpu="unknown", gpu_name_raw=name))
    listed = runner.invoke(
        app, ["quarantine", "list", "--status", "all", "--format", "csv"], env=_env(path)
    )
    assert listed.exit_code == 0, listed.output
    (row,) = list(csv.DictReader(io.StringIO(listed.stdout)))
    assert row["gpu_name_raw"] == "'" + name
