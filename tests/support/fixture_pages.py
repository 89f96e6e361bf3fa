"""Fixture pages: saved from the demo market for 2026-09-04, plus broken variants of them.

Regenerate after changing the demo market's templates or prices:

    .venv/bin/python tests/support/fixture_pages.py

Each variant is its base page with exact text replacements; a replacement whose text is not
found the expected number of times fails, so a template change cannot silently produce a
"broken" fixture that is not broken in the intended way.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "pages"
DAY = date(2026, 9, 4)

CONTAINER = "jygpu_container_2026-09-04.html"
BAREMETAL = "jygpu_baremetal_2026-09-04.html"
QUOTES = "smm_quotes_2026-09-04.html"

# name -> (site, path) served by the demo market for DAY
SAVED: dict[str, tuple[str, str]] = {
    CONTAINER: ("jygpu", "/market/container"),
    BAREMETAL: ("jygpu", "/market/baremetal"),
    QUOTES: ("smm", "/compute/quotes"),
}

_NOT_SIMULATED = [
    ('<meta name="gpuprice-simulated" content="true">\n', "", 1),
]
_NO_BANNER = (
    '<div class="gpuprice-sim-banner" role="alert" style="background:#b91c1c;color:#fff;'
    'font-weight:700;text-align:center;padding:6px 12px;">模拟数据 SIMULATED — gpuprice 演示市场, '
    "价格为模拟值</div>\n",
    "",
    1,
)

# name -> (base, [(old, new, expected occurrences of old)])
VARIANTS: dict[str, tuple[str, list[tuple[str, str, int]]]] = {
    # -- container page --
    "jygpu_container_no_grid.html": (
        CONTAINER,
        [('<div class="product-grid" id="container-list">', '<div class="goods-list">', 1)],
    ),
    "jygpu_container_renamed_label.html": (
        CONTAINER,
        [('<span class="spec-label">内存</span>', '<span class="spec-label">系统内存</span>', 3)],
    ),
    "jygpu_container_price_on_request.html": (
        CONTAINER,
        [
            (
                '<span class="price-value">¥7.75<small>/时</small></span>',
                '<span class="price-value">面议</span>',
                1,
            )
        ],
    ),  # fmt: skip
    "jygpu_container_unknown_unit.html": (
        CONTAINER,
        [("¥3.58<small>/时</small>", "¥9,666<small>/季</small>", 1)],
    ),
    "jygpu_container_non_numeric.html": (
        CONTAINER,
        [('<span class="spec-value">15 核</span>', '<span class="spec-value">多 核</span>', 1)],
    ),
    "jygpu_container_unknown_gpu.html": (
        CONTAINER,
        [
            (
                '<h3 class="gpu-name">NVIDIA H20</h3>',
                '<h3 class="gpu-name">摩尔线程 MTT S4000</h3>',
                1,
            ),
            (
                '<span class="spec-value">96GB HBM3</span>',
                '<span class="spec-value">48GB GDDR6</span>',
                1,
            ),
        ],
    ),  # fmt: skip
    "jygpu_container_no_update_time.html": (
        CONTAINER,
        [('  <p class="update-time">数据更新时间:2026-09-04 10:00(北京时间)</p>\n', "", 1)],
    ),
    "jygpu_container_not_simulated.html": (CONTAINER, [*_NOT_SIMULATED, _NO_BANNER]),
    # -- bare-metal page --
    "jygpu_baremetal_no_table.html": (
        BAREMETAL,
        [('<table class="server-table" id="baremetal-list">', '<table class="server-table">', 1)],
    ),
    "jygpu_baremetal_renamed_header.html": (
        BAREMETAL,
        [("<th>月付价格</th>", "<th>包月价格</th>", 1)],
    ),
    "jygpu_baremetal_price_on_request.html": (
        BAREMETAL,
        [
            (
                '<span class="price-value">¥84,480</span><span class="price-unit">/月</span>',
                '<span class="price-value">面议</span>',
                1,
            )
        ],
    ),  # fmt: skip
    "jygpu_baremetal_unknown_unit.html": (
        BAREMETAL,
        [
            (
                '¥13,990</span><span class="price-unit">/月</span>',
                '¥41,970</span><span class="price-unit">/季</span>',
                1,
            )
        ],
    ),  # fmt: skip
    # -- SMM quote board --
    "smm_quotes_no_table.html": (
        QUOTES,
        [('<table class="quote-table" id="compute-quotes">', '<div class="quote-table">', 1)],
    ),
    "smm_quotes_renamed_header.html": (QUOTES, [("<th>均价</th>", "<th>参考价</th>", 1)]),
    "smm_quotes_price_on_request.html": (
        QUOTES,
        [('<td class="avg">7.47</td>', '<td class="avg">面议</td>', 1)],
    ),
    "smm_quotes_unknown_unit.html": (
        QUOTES,
        [
            (
                "<td>元/卡时</td>\n        <td>2026-09-04</td>\n      </tr>\n    </tbody>",
                "<td>元/季</td>\n        <td>2026-09-04</td>\n      </tr>\n    </tbody>",
                1,
            )
        ],
    ),  # fmt: skip
    "smm_quotes_unknown_gpu.html": (
        QUOTES,
        [('<td class="name">A100-80G</td>', '<td class="name">MTT-S4000-48G</td>', 1)],
    ),
    "smm_quotes_not_simulated.html": (QUOTES, [*_NOT_SIMULATED, _NO_BANNER]),
}

# Bodies that are not the page at all: a failed fetch that still returned 200.
RAW: dict[str, bytes] = {
    "empty_body.html": b"",
    "non_html_body.json": b'{"code": 502, "msg": "Bad Gateway", "data": null}\n',
}


def derive(base: bytes, replacements: list[tuple[str, str, int]], name: str) -> bytes:
    text = base.decode("utf-8")
    for old, new, count in replacements:
        found = text.count(old)
        if found != count:
            raise AssertionError(f"{name}: expected {count}× {old!r} in the base page, got {found}")
        text = text.replace(old, new)
    return text.encode("utf-8")


def expected_pages() -> dict[str, bytes]:
    """Every fixture file's expected content, from the current demo market."""
    from demo.market.server import render_page

    pages = {name: render_page(site, path, DAY) for name, (site, path) in SAVED.items()}  # type: ignore[arg-type]
    for name, (base, replacements) in VARIANTS.items():
        pages[name] = derive(pages[base], replacements, name)
    pages.update(RAW)
    return pages


def read(name: str) -> bytes:
    return (PAGES_DIR / name).read_bytes()


def regenerate() -> None:
    PAGES_DIR.mkdir(parents=True, exist_ok=True)
    for name, body in expected_pages().items():
        (PAGES_DIR / name).write_bytes(body)
        print(f"wrote {PAGES_DIR / name} ({len(body)} bytes)")


if __name__ == "__main__":
    regenerate()
