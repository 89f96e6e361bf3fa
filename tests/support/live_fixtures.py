"""Fixture pages of the live sources (``tests/fixtures/live/``) and their broken variants.

The base files follow each source's format field for field as documented in
docs/SOURCES.md (what is verified against real examples and what is modelled is said
there). The broken variants are derived from them by exact text replacements, as the demo
market's are (``fixture_pages.py``); a replacement whose text is not found the expected
number of times fails. Regenerate the variants after changing a base file:

    .venv/bin/python tests/support/live_fixtures.py
"""

from __future__ import annotations

from pathlib import Path

LIVE_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "live"

VASTAI = "vastai_bundles.json"
RUNPOD = "runpod_pricing.html"
RUNPOD_SAVED = "runpod_saved_from_browser.html"
MATPOOL = "matpool_machines.json"
AUTODL = "autodl_machines.json"
GENERIC_ZH = "generic_table_zh.html"
GENERIC_EN = "generic_table_en.html"
GENERIC_LD = "generic_jsonld.html"
SMM_LOGIN = "smm_login.html"

BASES = (
    VASTAI, RUNPOD, RUNPOD_SAVED, MATPOOL, AUTODL, GENERIC_ZH, GENERIC_EN,
    GENERIC_LD, SMM_LOGIN,
)  # fmt: skip

# name -> (base, [(old, new, expected occurrences of old)]); each one must give an error
# (a ParseError, or a page the load rejects as implausible: see BROKEN_BY_DRIFT).
VARIANTS: dict[str, tuple[str, list[tuple[str, str, int]]]] = {
    # -- vast.ai --
    "vastai_renamed_price.json": (
        VASTAI,
        [('"dph_total": 0.3639,', '"dph_total_usd": 0.3639,', 1)],
    ),
    "vastai_price_not_a_number.json": (VASTAI, [('"dph_base": 0.7,', '"dph_base": "0.7/hr",', 1)]),
    "vastai_total_below_base.json": (VASTAI, [('"dph_total": 0.3639,', '"dph_total": 0.0364,', 1)]),
    "vastai_gpu_count_missing.json": (VASTAI, [('"num_gpus": 8,', '"gpus": 8,', 1)]),
    # prices in cents: parses, but ¥226/card-hour for a 4090 is implausible (drift)
    "vastai_prices_in_cents.json": (
        VASTAI,
        [
            ('"dph_base": 0.319,', '"dph_base": 31.9,', 1),
            ('"dph_total": 0.3329,', '"dph_total": 31.9139,', 1),
        ],
    ),  # fmt: skip
    # -- RunPod --
    "runpod_no_prices.html": (
        RUNPOD,
        [('<script type="application/ld+json">', '<script type="application/x-ignored">', 2)],
    ),
    "runpod_renamed_products.html": (RUNPOD, [(" GPU on Runpod", " on Runpod Cloud", 8)]),
    "runpod_jsonld_truncated.html": (
        RUNPOD,
        [('"hour"}}]}}]}</script>', '"hour"}}]}</script>', 1)],
    ),
    "runpod_offer_without_price.html": (
        RUNPOD,
        [('"name": "Secure Cloud", "price": "2.99", ', '"name": "Secure Cloud", ', 1)],
    ),
    "runpod_price_per_month.html": (
        RUNPOD,
        [('"unitCode": "HUR", "unitText": "hour"', '"unitCode": "MON", "unitText": "month"', 16)],
    ),
    # -- 矩池云 --
    "matpool_renamed_price.json": (MATPOOL, [('"priceMillicent"', '"price"', 5)]),
    "matpool_no_gpu_name.json": (
        MATPOOL,
        [('"gpu_model": "NVIDIA RTX A2000"', '"gpuModel": "NVIDIA RTX A2000"', 1)],
    ),  # fmt: skip
    # the price in yuan where millicents belong: ¥0.0022/h is implausible (drift)
    "matpool_price_in_yuan.json": (
        MATPOOL,
        [('"priceMillicent": 220000', '"priceMillicent": 220', 1)],
    ),  # fmt: skip
    # -- AutoDL --
    "autodl_renamed_price.json": (AUTODL, [('"current_price"', '"price"', 13)]),
    "autodl_price_as_yuan.json": (
        AUTODL,
        [('"current_price": 1980', '"current_price": 1.98', 1)],
    ),  # fmt: skip
    # -- generic extractor --
    "generic_no_price_column.html": (
        GENERIC_ZH,
        [
            (
                "<th>按量价格(元/时)</th><th>包月价格(元/月)</th>",
                "<th>备注(元/时)</th><th>说明(元/月)</th>",
                1,
            )
        ],
    ),  # fmt: skip
    "generic_unit_missing.html": (
        GENERIC_EN,
        [
            ("<th>Price</th><th>Unit</th>", "<th>Price</th>", 1),
            ("</td><td>per hour</td></tr>", "</td></tr>", 2),
            ("</td><td>per GPU per hour</td></tr>", "</td></tr>", 1),
        ],
    ),  # fmt: skip
    "generic_price_on_request.html": (GENERIC_ZH, [("<td>6.50</td>", "<td>面议</td>", 1)]),
    "generic_cells_shifted.html": (
        GENERIC_ZH,
        [("<td>MTT S4000</td><td>48GB</td>", "<td>MTT S4000</td>", 1)],
    ),
}

# Bodies that are not the answer at all.
RAW: dict[str, bytes] = {
    "vastai_empty.json": b'{"offers": []}\n',
    "vastai_error.json": b'{"success": false, "error": "invalid_args", "msg": "Invalid query."}\n',
    "vastai_bad_gateway.html": (
        b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway"
        b"</h1></center><hr><center>nginx</center></body></html>\n"
    ),
    "matpool_error.json": b'{"code": 176, "msg": "check jwt token failed"}\n',
    "matpool_empty.json": (
        b'{"pools": [], "pagination": {"total": 0, "num_pages": 0, "page": 1, "per_page": 100}}\n'
    ),
    "autodl_auth_failed.json": (
        '{"code": "AuthorizeFailed", "msg": "认证失败; 登录超时"}\n'.encode()
    ),
    "autodl_empty.json": (
        b'{"code": "Success", "msg": "", "data": {"list": [], "page_index": 1, "page_size": 100,'
        b' "max_page": 0, "offset": 0, "result_total": 0}}\n'
    ),
}

# Variants that parse, but into prices the load rejects as implausible (warehouse.ingest.drift).
BROKEN_BY_DRIFT = ("vastai_prices_in_cents.json", "matpool_price_in_yuan.json")


def derive(base: bytes, replacements: list[tuple[str, str, int]], name: str) -> bytes:
    text = base.decode("utf-8")
    for old, new, count in replacements:
        found = text.count(old)
        if found != count:
            raise AssertionError(f"{name}: expected {count}× {old!r} in the base page, got {found}")
        text = text.replace(old, new)
    return text.encode("utf-8")


def read(name: str) -> bytes:
    return (LIVE_DIR / name).read_bytes()


def expected_variants() -> dict[str, bytes]:
    pages = {name: derive(read(base), reps, name) for name, (base, reps) in VARIANTS.items()}
    pages.update(RAW)
    return pages


def regenerate() -> None:
    for name, body in expected_variants().items():
        (LIVE_DIR / name).write_bytes(body)
        print(f"wrote {LIVE_DIR / name} ({len(body)} bytes)")


if __name__ == "__main__":
    regenerate()
