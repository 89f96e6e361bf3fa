"""warehouse.read.filters.OfferFilter: frozen, hashable, and the SQL filter of each field,
set and unset, run against a small in-memory table."""

from __future__ import annotations

import dataclasses
from datetime import date

import duckdb
import pytest

from warehouse.read.filters import NO_REGION, OfferFilter

ROWS = [
    # gpu, source, billing, region, observed_at
    ("h100-80g", "jygpu", "hourly", "cn-east", "2026-09-01 10:00"),
    ("h100-80g", "autodl", "monthly", None, "2026-09-02 23:59"),
    ("rtx4090-24g", "jygpu", "hourly", "cn-north", "2026-09-03 00:00"),
    ("910b-64g", "matpool", "bare_metal_monthly", "cn-east", "2026-09-04 12:00"),
]


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE offer (gpu VARCHAR, source VARCHAR, billing VARCHAR, region VARCHAR, "
        "observed_at TIMESTAMP)"
    )
    con.executemany("INSERT INTO offer VALUES (?, ?, ?, ?, ?)", ROWS)
    return con


def matching(con: duckdb.DuckDBPyConnection, offers: OfferFilter, **where: str) -> list[str]:
    """The (gpu, source) of the rows ``offers`` keeps, in insertion order."""
    sql = f"SELECT gpu || '@' || source FROM offer WHERE {offers.where(**where)} ORDER BY rowid"
    return [row[0] for row in con.execute(sql, offers.params()).fetchall()]


def test_it_is_frozen_and_hashable() -> None:
    offers = OfferFilter(gpus=("h100-80g",), start=date(2026, 9, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        offers.gpus = ("rtx4090-24g",)  # type: ignore[misc]
    assert hash(offers) == hash(OfferFilter(gpus=("h100-80g",), start=date(2026, 9, 1)))
    assert {offers: 1}[OfferFilter(gpus=("h100-80g",), start=date(2026, 9, 1))] == 1


def test_lists_become_tuples_so_the_filter_stays_a_cache_key() -> None:
    offers = OfferFilter(gpus=["h100-80g"], regions=["cn-east"])  # type: ignore[arg-type]
    assert offers.gpus == ("h100-80g",) and offers.regions == ("cn-east",)
    hash(offers)


def test_nothing_set_filters_nothing(con: duckdb.DuckDBPyConnection) -> None:
    offers = OfferFilter()
    assert offers.where() == "TRUE" and offers.params() == {}
    assert len(matching(con, offers)) == len(ROWS)


@pytest.mark.parametrize(
    ("offers", "expected", "clause"),
    [
        (
            OfferFilter(gpus=("h100-80g",)),
            ["h100-80g@jygpu", "h100-80g@autodl"],
            "list_contains($gpus::VARCHAR[], gpu)",
        ),
        (
            OfferFilter(sources=("jygpu",)),
            ["h100-80g@jygpu", "rtx4090-24g@jygpu"],
            "list_contains($sources::VARCHAR[], source)",
        ),
        (
            OfferFilter(billing=("monthly", "bare_metal_monthly")),
            ["h100-80g@autodl", "910b-64g@matpool"],
            "list_contains($billing::VARCHAR[], billing)",
        ),
        (
            # A row without a region is named NO_REGION, as the filters offer it.
            OfferFilter(regions=(NO_REGION, "cn-north")),
            ["h100-80g@autodl", "rtx4090-24g@jygpu"],
            f"coalesce(region, '{NO_REGION}')",
        ),
        (
            OfferFilter(start=date(2026, 9, 3)),
            ["rtx4090-24g@jygpu", "910b-64g@matpool"],
            "observed_at >= $start::TIMESTAMP",
        ),
        (
            # The end day is included to its last minute.
            OfferFilter(end=date(2026, 9, 2)),
            ["h100-80g@jygpu", "h100-80g@autodl"],
            "observed_at < $end::TIMESTAMP + INTERVAL 1 DAY",
        ),
    ],
)
def test_each_field_set_alone_filters_on_it(
    con: duckdb.DuckDBPyConnection, offers: OfferFilter, expected: list[str], clause: str
) -> None:
    sql = offers.where()
    assert clause in sql and " AND " not in sql  # one clause: the unset fields add none
    assert len(offers.params()) == 1
    assert matching(con, offers) == expected


def test_an_empty_tuple_matches_nothing(con: duckdb.DuckDBPyConnection) -> None:
    assert matching(con, OfferFilter(gpus=())) == []


def test_every_field_set_combines_them(con: duckdb.DuckDBPyConnection) -> None:
    offers = OfferFilter(
        gpus=("h100-80g", "rtx4090-24g"),
        sources=("jygpu", "autodl"),
        billing=("hourly",),
        regions=("cn-east", "cn-north"),
        start=date(2026, 9, 1),
        end=date(2026, 9, 2),
    )
    assert set(offers.params()) == {"gpus", "sources", "billing", "regions", "start", "end"}
    assert offers.params()["gpus"] == ["h100-80g", "rtx4090-24g"]  # DuckDB lists
    assert matching(con, offers) == ["h100-80g@jygpu"]


def test_columns_of_a_join_and_dates_left_to_the_caller(con: duckdb.DuckDBPyConnection) -> None:
    offers = OfferFilter(gpus=("h100-80g",), regions=("cn-east",), start=date(2026, 9, 1))
    sql = offers.where(table="t.", region="t.region", at=None)
    assert "t.gpu" in sql and "t.region" in sql and "$start" not in sql
    # The caller bounds the days itself, with the start the filter's parameters carry.
    rows = con.execute(
        f"SELECT t.source FROM offer t WHERE {sql} AND t.observed_at::DATE >= $start",
        offers.params(),
    ).fetchall()
    assert rows == [("jygpu",)]
