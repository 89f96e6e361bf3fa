"""Benchmark: how long each parser takes over hostile and broken pages (issue 22), as a ratio to
the same parser over the unmutated page. Figures only, no pass/fail.

For one capture per adapter (tests/fixtures: real where there is one, else the modelled page),
each hostile class is built from it and parsed; the table gives the outcome (rows, or the
ParseError's first words), the median time and the ratio to the unmutated page. Classes:

* ``200k divs`` / ``200k JSON``: the capture inside 200,000 nested <div>s (2.4 MB), or one of
  its numbers inside 200,000 nested arrays: refused by the depth scan (_limits.py);
* ``512 divs``: the capture inside 512 - its own depth levels, the deepest page still parsed;
* ``32 digits`` / ``10^400`` / ``1e400`` / ``1e-7``: a price of that many digits, too large,
  or one that rounds to zero;
* ``8 MB``: the capture's body repeated to 8 MB (the default fetch limit): parsed, linear;
* ``16 MB deep``: 16 MB of 512-deep blocks, the costliest page the limits let through to lexbor;
* ``16 MB + 1``: a page one byte over the size limit, refused unread.

Run: `.venv/bin/python bench/parse_hostile.py [--repeat 3]`.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scrapers.limits import MAX_HTML_DEPTH, MAX_PAGE_BYTES, html_depth  # noqa: E402
from scrapers.rows import ParseError  # noqa: E402
from scrapers.sources import SourceAdapter, build_adapter  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
WHEN = datetime(2026, 9, 4, 2, 0)
DEEP = 200_000

# (adapter, capture, url, a price as the capture prints it): one page per adapter.
PAGES: list[tuple[str, str, str, str]] = [
    ("jygpu", "pages/jygpu_container_2026-09-04.html", "http://x/market/container", "¥1.96<"),
    ("smm", "pages/smm_quotes_2026-09-04.html", "http://x/compute/quotes", '"avg">1.26<'),
    ("generic", "real/generic/gcp.html", "https://cloud.google.com/compute/gpus-pricing",
     "$64.4400"),
    ("runpod", "real/runpod/runpod_20250909131230.html", "https://www.runpod.io/pricing",
     'price="3.79"'),
    ("lambda", "real/lambda/lambda_20230909194011.html",
     "https://lambdalabs.com/service/gpu-cloud", "$1.99"),
    ("vastai", "real/vastai/vastcli_search_2024-11-18.json",
     "https://console.vast.ai/api/v0/bundles/", '"dph_total": 2.6680555555555556'),
    ("matpool", "live/matpool_machines.json", "https://matpool.com/api/machine_pools",
     '"priceMillicent": 220000'),
    ("autodl", "live/autodl_machines.json", "https://www.autodl.com/api/v1/machine/search",
     '"current_price": 1980'),
]  # fmt: skip
_PRICE = re.compile(r"\d+(?:\.\d+)?")


def _adapter(name: str) -> SourceAdapter:
    return build_adapter(name) if name != "generic" else build_adapter(name, name)


def _with_price(text: str, price: str, value: str) -> str:
    """``text`` with the number in its first ``price`` replaced by ``value``."""
    assert price in text, f"{price!r} is not in the capture"
    return text.replace(price, _PRICE.sub(value, price, count=1), 1)


def _html_classes(text: str, price: str) -> dict[str, str | bytes]:
    body_at = max(text.find("<body"), 0)
    inner = text.find(">", body_at) + 1 if body_at else 0
    fits = MAX_HTML_DEPTH - html_depth(text)
    block = "<div>" * MAX_HTML_DEPTH + "x" + "</div>" * MAX_HTML_DEPTH
    return {
        "200k divs": text[:inner] + "<div>" * DEEP + text[inner:] + "</div>" * DEEP,
        "512 divs": text[:inner] + "<div>" * fits + text[inner:] + "</div>" * fits,
        "32 digits": _with_price(text, price, "9" * 32),
        "1e-7": _with_price(text, price, "0.0000001"),
        "8 MB": text * (8_000_000 // len(text)),
        "16 MB deep": text + block * ((MAX_PAGE_BYTES - len(text)) // len(block)),
        "16 MB + 1": b" " * (MAX_PAGE_BYTES + 1),
    }


def _json_classes(text: str, price: str) -> dict[str, str | bytes]:
    return {
        "200k JSON": _with_price(text, price, "[" * DEEP + "1" + "]" * DEEP),
        "10^400": _with_price(text, price, "1" + "0" * 400),
        "1e400": _with_price(text, price, "1e400"),
        "1e-400": _with_price(text, price, "1e-400"),
        "8 MB": text + " " * (8_000_000 - len(text)),
        "16 MB + 1": b" " * (MAX_PAGE_BYTES + 1),
    }


def _timed(parse: Callable[[], object], repeat: int) -> tuple[float, str]:
    times, outcome = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            rows = parse()
            outcome = f"{len(rows)} rows" if isinstance(rows, list) else "?"
        except ParseError as exc:
            words = str(exc).split(": ", 1)[-1]
            outcome = "ParseError: " + words[:48]
        except Exception as exc:  # a crash is a finding: show it
            outcome = f"CRASH {type(exc).__name__}"
        times.append(time.perf_counter() - start)
    return statistics.median(times), outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each parse (median)")
    args = parser.parse_args()
    print(f"{'adapter':8} {'page':11} {'ms':>9} {'ratio':>8}  outcome")
    for name, capture, url, price in PAGES:
        adapter = _adapter(name)
        body = (FIXTURES / capture).read_bytes()
        text = body.decode("utf-8")
        base, outcome = _timed(_parser(adapter, body, url), args.repeat * 5)
        print(f"{name:8} {'unmutated':11} {base * 1000:9.2f} {1:8.1f}  {outcome}")
        is_json = capture.endswith(".json")
        classes = _json_classes(text, price) if is_json else _html_classes(text, price)
        for kind, page in classes.items():
            data = page if isinstance(page, bytes) else page.encode("utf-8")
            spent, outcome = _timed(_parser(adapter, data, url), args.repeat)
            print(f"{name:8} {kind:11} {spent * 1000:9.1f} {spent / base:8.0f}  {outcome}")


def _parser(adapter: SourceAdapter, body: bytes, url: str) -> Callable[[], object]:
    return lambda: adapter.parse(body, url, WHEN)


if __name__ == "__main__":
    main()
