"""`gpuprice sql` prints every DuckDB type in table, csv and json (issue 22): lists, structs,
maps and arrays as JSON, blobs as base64 (also inside lists, structs and maps), bit strings,
intervals and the rest in DuckDB's text form; in json, numbers of any size as JSON numbers
with DuckDB's digits and NaN / infinities as strings.

Expected values are written from DuckDB's documented text forms and RFC 4648 base64
(b"\\x00ab" is AGFi, b"\\x01" is AQ==, b"\\x00" is AA==), not copied from a run."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime

import pytest
from typer.testing import CliRunner

from gpuprice import cli_common
from gpuprice.cli import app
from tests.warehouse.test_safe_sql import _home as _home
from tests.warehouse.test_safe_sql import _warehouse_on_ducklake as _warehouse_on_ducklake
from tests.warehouse.test_safe_sql import warehouse as warehouse
from warehouse.read.sql_output import json_lines, unique
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

runner = CliRunner()

# (SQL expression, text in table and csv, the JSON value in json); None: NULL / empty field
TYPES = [
    ("[1, 2]", "[1,2]", "[1,2]"),
    ("['a', 'b,\"c']", '["a","b,\\"c"]', '["a","b,\\"c"]'),
    ("{'a': 1, 'b': 'x'}", '{"a":1,"b":"x"}', '{"a":1,"b":"x"}'),
    ("'\\x00ab'::BLOB", "AGFi", '"AGFi"'),
    ("[{'a': [1, 2], 'b': '\\x01'::BLOB}]", '[{"a":[1,2],"b":"AQ=="}]', '[{"a":[1,2],"b":"AQ=="}]'),
    ("MAP {'k': '\\x00'::BLOB}", '{"k":"AA=="}', '{"k":"AA=="}'),
    ("NULL::STRUCT(b BLOB)", None, "null"),
    ("'0101'::BIT", "0101", '"0101"'),
    ("union_value(k := 1)::UNION(k INTEGER, s VARCHAR)", '{"k":1}', '{"k":1}'),
    (
        "INTERVAL '1 year 2 months 3 days 04:05:06'",
        "1 year 2 months 3 days 04:05:06",
        '"1 year 2 months 3 days 04:05:06"',
    ),
    ("'123456789012345678901234567890'::VARINT", "123456789012345678901234567890", None),
    ("170141183460469231731687303715884105727::HUGEINT", None, None),
    ("340282366920938463463374607431768211455::UHUGEINT", None, None),
    ("18446744073709551615::UBIGINT", None, None),
    ("1.50::DECIMAL(10, 2)", "1.50", "1.50"),
    ("12345678901234567890.123456789::DECIMAL(38, 9)", None, None),
    ("0.1::FLOAT", "0.1", "0.1"),
    ("'nan'::DOUBLE", "nan", '"nan"'),
    ("'-inf'::DOUBLE", "-inf", '"-inf"'),
    ("TIMESTAMPTZ '2026-09-04 10:00:00+08'", "2026-09-04 02:00:00+00", None),  # shown in UTC
    ("TIMESTAMP '2026-09-04 10:00:00'", "2026-09-04 10:00:00", None),
    ("'2026-09-04 10:00:00.123456789'::TIMESTAMP_NS", "2026-09-04 10:00:00.123456789", None),
    ("'infinity'::TIMESTAMP", "infinity", None),
    ("'infinity'::DATE", "infinity", None),
    ("DATE '2026-09-04'", "2026-09-04", None),
    ("'10:00:00+08'::TIMETZ", "10:00:00+08", None),
    ("'ok'::ENUM('sad', 'ok')", "ok", None),
    ("MAP {'k': 1, 'j': 2}", '{"k":1,"j":2}', '{"k":1,"j":2}'),
    ("MAP {1: 'a'}", '{"1":"a"}', '{"1":"a"}'),
    ("[1, 2, 3]::INTEGER[3]", "[1,2,3]", "[1,2,3]"),
    ("'f81d4fae-7dec-11d0-a765-00a0c91e6bf6'::UUID", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", None),
    ("'{\"a\": [1]}'::JSON", '{"a": [1]}', '{"a":[1]}'),
    ("'a\"b'", 'a"b', '"a\\"b"'),
    ("true", "true", "true"),
    ("NULL", None, "null"),
]
NUMBERS = {"VARINT", "HUGEINT", "UHUGEINT", "UBIGINT", "DECIMAL(38, 9)"}


def _text(expr: str, text: str | None) -> str | None:
    """The expected text; a number given by its literal: the literal's digits."""
    if text is None and any(expr.endswith("::" + n) for n in NUMBERS):
        return expr.split("::")[0].strip("'")
    return text


def _json(expr: str, text: str | None, value: str | None) -> str:
    if value is not None:
        return value
    if any(expr.endswith("::" + n) for n in NUMBERS):
        return expr.split("::")[0].strip("'")  # a JSON number, every digit kept
    return json.dumps(_text(expr, text))  # a string


def _cells(table: str) -> str:
    """A rich table's text without its borders and white space (rich wraps long cells)."""
    return "".join(c for c in table if not c.isspace() and not "\u2500" <= c <= "\u257f")


def _strict(line: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(line, parse_constant=refuse)


def test_every_type_prints_in_every_format(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One query with a column of each type, once per format (three runs, not a hundred)."""
    monkeypatch.setattr(cli_common.console, "_width", 100_000)  # no wrapped or cut cells
    names = [f"t{i}" for i in range(len(TYPES))]
    query = "SELECT " + ", ".join(f"{e} AS {n}" for (e, _, _), n in zip(TYPES, names, strict=True))
    texts = [_text(expr, text) for expr, text, _ in TYPES]

    got = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert got.exit_code == 0, got.output
    header, row = csv.reader(io.StringIO(got.stdout))
    assert header == names
    for (expr, _, _), field, text in zip(TYPES, row, texts, strict=True):
        assert field == (text or ""), expr

    got = runner.invoke(app, ["sql", query, "--format", "json"])
    assert got.exit_code == 0, got.output
    assert _strict(got.stdout)  # strict JSON: no NaN, no Infinity
    expected = ",".join(
        f'"{n}":{_json(expr, text, value)}'
        for (expr, text, value), n in zip(TYPES, names, strict=True)
    )
    assert got.stdout == "{" + expected + "}\n"

    got = runner.invoke(app, ["sql", query])
    assert got.exit_code == 0, got.output
    lines = got.stdout.splitlines()
    assert [c.strip() for c in lines[1].strip("┃").split("┃")] == names
    cells = [c.strip() for c in lines[3].strip("│").split("│")]
    for (expr, _, _), cell, text in zip(TYPES, cells, texts, strict=True):
        assert cell == (text or ""), expr
    assert lines[-1] == "1 row(s)"


def test_the_raw_page_table_prints_in_every_format(warehouse: Warehouse) -> None:
    """The issue's example: a raw page's body (BLOB) panicked polars's JSON writer."""
    body = b"<html>\x00\xff</html>"
    with write_connection(warehouse) as con:
        con.execute(
            "INSERT INTO raw_page (page_id, source, url, fetched_at, http_status, body, "
            "parse_status) VALUES ('p1', 'jygpu', 'https://x/', ?, 200, ?, 'ok')",
            [datetime(2026, 9, 4, 2), body],
        )
    query = "SELECT page_id, fetched_at, body FROM raw_page WHERE page_id = 'p1'"
    js = runner.invoke(app, ["sql", query, "--format", "json"])
    assert js.exit_code == 0, js.output
    assert _strict(js.stdout) == {
        "page_id": "p1",
        "fetched_at": "2026-09-04 02:00:00",
        "body": "PGh0bWw+AP88L2h0bWw+",  # base64 of body
    }
    table = runner.invoke(app, ["sql", "SELECT body FROM raw_page LIMIT 1"])
    assert table.exit_code == 0, table.output
    assert _cells(table.stdout) == "bodyPGh0bWw+AP88L2h0bWw+1row(s)"
    assert runner.invoke(app, ["sql", "SELECT * FROM raw_page LIMIT 1"]).exit_code == 0
    got = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert got.stdout.splitlines()[1] == "p1,2026-09-04 02:00:00,PGh0bWw+AP88L2h0bWw+"


def test_a_name_used_twice_gets_a_suffix_in_json_only(warehouse: Warehouse) -> None:
    query = 'SELECT 1 AS a, 2 AS a, 3 AS "a_1", \'x\' AS "we""ird"'
    js = runner.invoke(app, ["sql", query, "--format", "json"])
    assert js.stdout == '{"a":1,"a_1":2,"a_1_1":3,"we\\"ird":"x"}\n'
    got = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert got.stdout.splitlines() == ['a,a,a_1,"we""ird"', "1,2,3,x"]
    assert unique(["a", "a", "a"]) == ["a", "a_1", "a_2"]
    assert json_lines(["x"], []) == ""


def test_no_rows_and_describe_show_explain_print(warehouse: Warehouse) -> None:
    for query in (
        "SELECT 1 AS a WHERE false",
        "DESCRIBE raw_page",
        "SHOW TABLES",
        "EXPLAIN SELECT 1",
    ):
        for fmt in ("table", "csv", "json"):
            got = runner.invoke(app, ["sql", query, "--format", fmt])
            assert got.exit_code == 0, (query, fmt, got.output)
            if fmt == "json":
                for line in got.stdout.splitlines():
                    _strict(line)
    empty = runner.invoke(app, ["sql", "SELECT 1 AS a WHERE false", "--format", "csv"])
    assert empty.stdout == "a\n"


def test_csv_escapes_what_a_spreadsheet_would_run_as_a_formula(warehouse: Warehouse) -> None:
    """Issue 31: `=HYPERLINK(…)` stored in a page's text was written as it is, and ran in
    whoever opened the export. Numbers keep their sign; table and json are unchanged."""
    cells = {
        "'=HYPERLINK(\"http://evil.example/\",\"click\")'": "'=HYPERLINK(\"http://evil.example/\",\"click\")",
        "'+1+cmd|'' /C calc''!A0'": "'+1+cmd|' /C calc'!A0",
        "'-2+3'": "'-2+3",
        "'@SUM(A1:A9)'": "'@SUM(A1:A9)",
        "chr(9) || '=1+1'": "'\t=1+1",
        "-1.50::DECIMAL(10, 2)": "-1.50",
        "'-1'": "-1",
        "'+3'": "+3",
        "-1e-05::DOUBLE": "-1e-05",
        "'-inf'::DOUBLE": "-inf",
        "'a=b'": "a=b",
    }  # fmt: skip
    query = "SELECT " + ", ".join(f"{e} AS c{i}" for i, e in enumerate(cells)) + ', 1 AS "=x"'
    got = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert got.exit_code == 0, got.output
    header, row = csv.reader(io.StringIO(got.stdout))
    assert header[-1] == "'=x" and row[:-1] == list(cells.values())
    js = _strict(runner.invoke(app, ["sql", query, "--format", "json"]).stdout)
    assert isinstance(js, dict) and js["c0"].startswith("=HYPERLINK") and js["=x"] == 1
