"""How an ad-hoc query's result is printed (`gpuprice sql --format table|csv|json`), for every
DuckDB type.

DuckDB renders the values itself, in the same query, so that every type it has (and any it adds)
has a text form, and rendering is bounded by the same memory limit and timeout as the query:

- text (table and csv): ``CAST(v AS VARCHAR)``, DuckDB's own form: decimals with their scale,
  timestamps with time zone in the session's zone (``2026-09-04 10:00:00+08``), intervals
  (``1 year 2 months 3 days``), bit strings (``0101``), enums, UUIDs, huge integers and
  bignums in full, ``infinity`` dates, ``nan``. Lists, structs, maps, fixed-size arrays and
  unions are JSON (``to_json``). Blobs, also inside lists and structs, are base64.
- json (one object per line): numbers (integers of any size, decimals as listed, finite
  floats) are JSON numbers with DuckDB's digits; NaN and infinities, which JSON lacks, are
  strings (``"nan"``, ``"inf"``); booleans and NULL are JSON's; a JSON column is embedded as
  it is; lists, structs, maps, arrays and unions are nested JSON (``to_json``; a union is
  ``{"member": value}``), blobs are base64 strings; everything else is its text form as a
  string.

Polars is not used here: it cannot hold unions, intervals or bignums, and its writers fail
on lists and blobs (csv), blobs and bit strings (json), and infinite dates (both).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence

from duckdb.sqltypes import DuckDBPyType

# DuckDB type ids (DuckDBPyType.id) whose text form is a JSON number.
_INTEGERS = {
    "tinyint",
    "smallint",
    "integer",
    "bigint",
    "hugeint",
    "utinyint",
    "usmallint",
    "uinteger",
    "ubigint",
    "uhugeint",
    "bignum",
    "varint",
    "decimal",
}
_FLOATS = {"float", "double"}
_NESTED = {"list", "array", "struct", "map", "union"}

Row = tuple[str | None, ...]


def _has_blob(kind: DuckDBPyType) -> bool:
    if kind.id == "blob":
        return True
    if kind.id in _NESTED:
        return any(isinstance(t, DuckDBPyType) and _has_blob(t) for _, t in kind.children)
    return False


def _blobs_as_base64(expr: str, kind: DuckDBPyType, depth: int = 0) -> str:
    """``expr`` with every blob in it, however deep in lists, arrays, structs and maps, as
    base64 text (to_json would give DuckDB's escaped form, ``\\x00ab``). Unions are left
    as they are."""
    if not _has_blob(kind):
        return expr
    if kind.id == "blob":
        return f"to_base64({expr})"
    item = f"v{depth}"  # one lambda parameter name per level, so none shadows another
    if kind.id in ("list", "array"):
        inner = _blobs_as_base64(item, kind.children[0][1], depth + 1)
        return f"list_transform({expr}, lambda {item}: {inner})"
    if kind.id == "struct":
        fields = ", ".join(
            f"{quote(name)} := "
            + _blobs_as_base64(f"struct_extract({expr}, {_string(name)})", t, depth + 1)
            for name, t in kind.children
        )
        return f"CASE WHEN {expr} IS NULL THEN NULL ELSE struct_pack({fields}) END"
    if kind.id == "map":
        key = _blobs_as_base64(f"{item}.key", kind.children[0][1], depth + 1)
        value = _blobs_as_base64(f"{item}.value", kind.children[1][1], depth + 1)
        entry = f"{{'key': {key}, 'value': {value}}}"
        return f"map_from_entries(list_transform(map_entries({expr}), lambda {item}: {entry}))"
    return expr


def _string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def quote(name: str) -> str:
    """A SQL identifier for any column name."""
    return '"' + name.replace('"', '""') + '"'


def text_sql(expr: str, kind: DuckDBPyType) -> str:
    """SQL giving ``expr``'s text for a table cell or a CSV field (NULL stays NULL)."""
    if kind.id == "blob":
        return f"to_base64({expr})"
    if kind.id in _NESTED:
        return f"CAST(to_json({_blobs_as_base64(expr, kind)}) AS VARCHAR)"
    return f"CAST({expr} AS VARCHAR)"


def json_sql(expr: str, kind: DuckDBPyType) -> str:
    """SQL giving ``expr`` as one JSON value (never NULL: JSON's ``null``)."""
    if kind.id in _INTEGERS:
        value = f"CAST({expr} AS VARCHAR)"
    elif kind.id in _FLOATS:
        text = f"CAST({expr} AS VARCHAR)"
        value = f"CASE WHEN isfinite({expr}) THEN {text} ELSE CAST(to_json({text}) AS VARCHAR) END"
    elif kind.id == "boolean":
        value = f"CASE WHEN {expr} THEN 'true' ELSE 'false' END"
    elif str(kind) == "JSON":
        value = f"CAST(json({expr}) AS VARCHAR)"
    elif kind.id == "blob" or kind.id in _NESTED:
        value = f"CAST(to_json({_blobs_as_base64(expr, kind)}) AS VARCHAR)"
    else:
        value = f"CAST(to_json(CAST({expr} AS VARCHAR)) AS VARCHAR)"
    return f"coalesce({value}, 'null')"


# A spreadsheet reads a cell that starts with one of these as a formula (`=HYPERLINK(…)`,
# `@SUM(…)`, `+cmd|…`, and tab or CR before one), so a stored text such as a page's label
# would run in whoever opens the export (OWASP "CSV injection"). Such a field is prefixed
# with `'`, which spreadsheets show as text and do not keep; numbers (`-1.5`, `+3`, `-1e-05`,
# `-inf`) stay as they are: a spreadsheet reads them as numbers, never as a function call.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def spreadsheet_safe(value: str | None) -> str | None:
    """``value`` as a CSV field a spreadsheet shows as text (see _FORMULA_START)."""
    if value and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_text(columns: Sequence[str], rows: Sequence[Row]) -> str:
    """RFC 4180 CSV with a header; NULL is an empty field; a field a spreadsheet would take
    for a formula is escaped (:func:`spreadsheet_safe`), in the header too."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([spreadsheet_safe(name) for name in columns])
    writer.writerows([spreadsheet_safe(value) for value in row] for row in rows)
    return out.getvalue()


def json_lines(columns: Sequence[str], rows: Sequence[Row]) -> str:
    """One JSON object per row, from values :func:`json_sql` rendered. A repeated column name
    gets ``_1``, ``_2`` … (JSON objects cannot repeat a key)."""
    keys = [json.dumps(name, ensure_ascii=False) for name in unique(columns)]
    lines = (
        "{" + ",".join(f"{k}:{v}" for k, v in zip(keys, row, strict=True)) + "}\n" for row in rows
    )
    return "".join(lines)


def unique(columns: Sequence[str]) -> list[str]:
    """``columns`` with repeated names suffixed ``_1``, ``_2`` … in order."""
    seen: set[str] = set()
    names = []
    for name in columns:
        candidate, n = name, 0
        while candidate in seen:
            n += 1
            candidate = f"{name}_{n}"
        seen.add(candidate)
        names.append(candidate)
    return names
