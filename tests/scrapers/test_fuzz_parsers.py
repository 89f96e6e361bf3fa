"""Fuzzing: mutated fixture pages (truncated, tags removed, numbers garbled, wrong encoding,
bytes spliced in) fed to every parser in scrapers.sources.ADAPTERS: never a crash, always
either valid rows or a ParseError."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapers.http import Request
from scrapers.rows import ParseError
from scrapers.sources import ADAPTER_NAMES, build_adapter
from tests.support.valid_rows import assert_valid

pytestmark = pytest.mark.fuzz

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WHEN = datetime(2026, 9, 4, 2, 0)


def url_for(source: str, name: str) -> str:
    if source == "jygpu":
        return "http://x/market/baremetal" if "baremetal" in name else "http://x/market/container"
    step = build_adapter(source).fetch_plan("https://example.com", None)[0]
    return step.url if isinstance(step, Request) else step


def fixtures() -> list[tuple[str, Path]]:
    found = []
    for path in sorted((FIXTURES / "pages").iterdir()) + sorted((FIXTURES / "live").iterdir()):
        source = path.name.split("_", 1)[0]
        if source in ADAPTER_NAMES and path.suffix in (".html", ".json"):
            found.append((source, path))
    return found


CASES = fixtures()


def garble_numbers(text: str, data: st.DataObject) -> str:
    def swap(m: re.Match[str]) -> str:
        return data.draw(
            st.sampled_from(["0", "-1", "NaN", "1e309", "9" * 30, "", "0.0.1", "１２", m[0] * 3])
        )

    return re.sub(r"\d+(\.\d+)?", swap, text, count=data.draw(st.integers(1, 50)))


def mutate(body: bytes, data: st.DataObject) -> bytes:
    kind = data.draw(
        st.sampled_from(["truncate", "tags", "numbers", "encoding", "splice", "combined"])
    )
    text = body.decode("utf-8", "replace")
    if kind in ("truncate", "combined"):
        body = body[: data.draw(st.integers(0, len(body)))]
        text = body.decode("utf-8", "replace")
    if kind in ("tags", "combined"):
        tags = sorted(set(re.findall(r"</?([a-zA-Z][a-zA-Z0-9]*)", text))) or ["td"]
        tag = data.draw(st.sampled_from(tags))
        text = re.sub(rf"</?{tag}\b[^>]*>", "", text)
        body = text.encode("utf-8")
    if kind in ("numbers", "combined"):
        body = garble_numbers(text, data).encode("utf-8")
    if kind == "encoding":
        codec = data.draw(st.sampled_from(["gb18030", "utf-16", "latin-1", "big5"]))
        body = text.encode(codec, "replace")
    if kind == "splice":
        at = data.draw(st.integers(0, len(body)))
        body = body[:at] + data.draw(st.binary(min_size=1, max_size=64)) + body[at:]
    return body


@pytest.mark.parametrize(("source", "path"), CASES, ids=[p.name for _, p in CASES])
@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_pages_give_valid_rows_or_a_parse_error(
    source: str, path: Path, data: st.DataObject
) -> None:
    body = mutate(path.read_bytes(), data)
    adapter = build_adapter(source)
    try:
        rows = adapter.parse(body, url_for(source, path.name), WHEN)
    except ParseError:
        return
    for row in rows:
        assert_valid(row, source)
