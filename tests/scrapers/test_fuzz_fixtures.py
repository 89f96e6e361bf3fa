"""Fuzzing every real and modelled capture (tests/fixtures/real/**, live/**, pages/**) with the
hostile mutations of issue 22: nesting deepened, numbers lengthened to 21, 32, 400 or 5,000
digits, huge and tiny exponents, counts of 10^400, besides truncation and spliced bytes. Every
outcome is a ParseError or rows that are valid (finite positive prices that survive the
warehouse's rounding, known billing, a catalog GPU id, counts in range): never a crash.

Bounded: a few derandomized examples per capture, so the file runs in seconds. How long each
kind of page takes against its unmutated page is measured in bench/parse_hostile.py, not here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapers.http import Request
from scrapers.rows import ParseError
from scrapers.sources import ADAPTER_NAMES, SourceAdapter, build_adapter
from tests.support.valid_rows import assert_valid

pytestmark = pytest.mark.fuzz

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WHEN = datetime(2026, 9, 4, 2, 0)


@dataclass(frozen=True)
class Capture:
    path: Path
    source: str
    adapter: SourceAdapter
    url: str
    fetched_at: datetime


def _modelled_url(source: str, name: str) -> str:
    if source == "jygpu":
        return "http://x/market/baremetal" if "baremetal" in name else "http://x/market/container"
    if source == "generic":
        return "https://example.com/pricing"
    step = build_adapter(source).fetch_plan("https://example.com", None)[0]
    return step.url if isinstance(step, Request) else step


def captures() -> list[Capture]:
    found = []
    for expected in sorted((FIXTURES / "real").rglob("*.expected.json")):
        spec = json.loads(expected.read_text(encoding="utf-8"))
        source = spec.get("source") or spec["adapter"]
        adapter = build_adapter(source, spec["adapter"], spec.get("options"))
        path = expected.with_name(expected.name.removesuffix(".expected.json"))
        when = datetime.fromisoformat(spec["fetched_at"])
        found.append(Capture(path, source, adapter, spec["url"], when))
    for folder in ("live", "pages"):
        for path in sorted((FIXTURES / folder).iterdir()):
            source = path.name.split("_", 1)[0]
            if path.suffix not in (".html", ".json") or source not in (*ADAPTER_NAMES, "generic"):
                continue
            if source == "generic":
                adapter = build_adapter("generic", "generic")
            else:
                adapter = build_adapter(source)
            found.append(Capture(path, source, adapter, _modelled_url(source, path.name), WHEN))
    return found


CAPTURES = captures()
NUMBER = re.compile(r"\d+(?:\.\d+)?")
HOSTILE_NUMBERS = [
    "9" * 21, "9" * 32, "1" + "0" * 400, "7" * 5000, "1e400", "1E+30", "1e-400", "0.0000001",
    "0.00004", "-0", "NaN", "Infinity", "１２", "5000",
]  # fmt: skip


def _deepen(text: str, is_json: bool, at: int, levels: int) -> str:
    if is_json:
        # a number somewhere becomes the same number inside `levels` arrays: still valid JSON
        m = NUMBER.search(text, at)
        if m is None:
            return "[" * levels + text + "]" * levels
        return text[: m.start()] + "[" * levels + m[0] + "]" * levels + text[m.end() :]
    start = text.find("<", at)
    start = len(text) if start < 0 else start
    return text[:start] + "<div>" * levels + text[start:]


def mutate(body: bytes, data: st.DataObject) -> bytes:
    kind = data.draw(st.sampled_from(["deepen", "numbers", "truncate", "splice", "combined"]))
    text = body.decode("utf-8", "replace")
    is_json = text.lstrip()[:1] in ("{", "[")
    if kind in ("deepen", "combined"):
        at = data.draw(st.integers(0, len(text)))
        levels = data.draw(st.sampled_from([2, 100, 513, 5000]))
        text = _deepen(text, is_json, at, levels)
    if kind in ("numbers", "combined"):
        count = data.draw(st.integers(1, 5))
        text = NUMBER.sub(lambda m: data.draw(st.sampled_from(HOSTILE_NUMBERS)), text, count=count)
    body = text.encode("utf-8")
    if kind == "truncate":
        body = body[: data.draw(st.integers(0, len(body)))]
    if kind == "splice":
        at = data.draw(st.integers(0, len(body)))
        body = body[:at] + data.draw(st.binary(min_size=1, max_size=64)) + body[at:]
    return body


def test_every_capture_is_fuzzed() -> None:
    assert len([c for c in CAPTURES if "real" in c.path.parts]) >= 20
    assert len(CAPTURES) >= 80


@pytest.mark.parametrize(
    "capture", CAPTURES, ids=[str(c.path.relative_to(FIXTURES)) for c in CAPTURES]
)
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_captures_give_valid_rows_or_a_parse_error(
    capture: Capture, data: st.DataObject
) -> None:
    body = mutate(capture.path.read_bytes(), data)
    try:
        rows = capture.adapter.parse(body, capture.url, capture.fetched_at)
    except ParseError:
        return
    for row in rows:
        assert_valid(row, capture.source)
