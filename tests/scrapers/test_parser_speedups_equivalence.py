"""The fast paths in units, gpu_names, _jsonld, fx and runpod give what the plain versions
they replaced give. The plain versions (the earlier, straightforward implementations) are the
specification, in tests/scrapers/plain_versions.py or as ``_ref_*`` here; the fast one must
agree with its plain version on every input, errors included."""

from __future__ import annotations

import json
import random
import re
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from scrapers import gpu_names, units
from scrapers.fx import FxRate, FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.rows import HOURS_PER_MONTH, ParseError
from scrapers.sources import _jsonld, runpod
from scrapers.sources._json import number, positive_number
from tests.scrapers.live_fixtures import LIVE_DIR
from tests.scrapers.plain_versions import (
    ref_canonical_gpu,
    ref_parse_money,
    ref_parse_period,
    ref_types_of,
    ref_walk,
)

# -- inputs ----------------------------------------------------------------------------------

_SEEDS = [
    "$2.69/hr", "¥1.96/时", "7.75 元/卡时", "US$ 1,074 per GPU per hour", "1.26", "1,96",
    "  ３.５ 元 / 卡 / 小时 ", "Contact us", "N/A", "面议", "0", "-1", "7,9200", "2.69 USD/hr",
    "$2 CNY", "¥2 USD /mo", "RMB 3/台/月", "/hr", "per hour", "per GPU per hour", "hourly",
    "monthly", "daily", "/GPU/hr", "/卡时", "元/台/月", "/ h", "/h.", "USD/hr", "$/hr",
    "/server-hour", "/gpu-hr", "/instance/day", "/x", "", "/", "元/卡·时", "\u00a0/hr\u3000",
    "Per Hour", "super hour", "/卡", "/card_month", "￥1,074", "$3.99 /hr", "usdhourly",
    "RTX 4090 24GB", "4090-24G", "NVIDIA GeForce RTX 4090", "昇腾910B", "A100-SXM4-80GB",
    "H100/H200", "H100 NVL", "ＲＴＸ４０９０", "RTX 4090 D", "A100 40GB 80GB", "H100 24GB",
    "910B4", "H20", "H200 SXM", "L40S", "RTX 5090D", "5090 32G", "A100", "24GDDR6X 4090",
    "Ascend910B", "\u00a0H200\u3000", "h100 sxm", "MTT S4000", "RTX 6000 Ada",
]  # fmt: skip
_PIECES = ["", " ", "/", "/hr", " per ", "GB", "G", "元", "卡", "台", "$", "\u3000", "\t", "Ｇ",
           ".5", "·", "gpu", "card", "node", "-", "_", "80", "mo", "天", "时"]  # fmt: skip


def _corpus() -> list[str]:
    texts = set(_SEEDS)
    for path in sorted(LIVE_DIR.glob("*.html")):
        page = path.read_text("utf-8", "replace")
        texts.update(m[:40] for m in re.findall(r">([^<>]{1,60})<", page))
    rnd = random.Random(20260904)
    base = sorted(texts)
    for _ in range(3000):
        text = rnd.choice(base)
        if rnd.random() < 0.6:
            text += rnd.choice(_PIECES) + rnd.choice(base)[:8]
        if text and rnd.random() < 0.4:
            i = rnd.randrange(len(text))
            text = text[:i] + rnd.choice(_PIECES) + text[i + 1 :]
        texts.add(text)
    return sorted(texts)


CORPUS = _corpus()


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except ParseError as exc:
        return "error", str(exc)


# -- the checks ------------------------------------------------------------------------------


def test_parse_money_matches_the_plain_version() -> None:
    for text in CORPUS:
        assert _outcome(units.parse_money, text) == _outcome(ref_parse_money, text), text


def test_parse_period_matches_the_plain_version() -> None:
    for text in CORPUS:
        assert _outcome(units.parse_period, text) == _outcome(ref_parse_period, text), text


@pytest.mark.parametrize("vram", [None, 24, 40, 80, 141])
def test_canonical_gpu_matches_the_plain_version(vram: int | None) -> None:
    for text in CORPUS:
        assert canonical_gpu(text, vram) == ref_canonical_gpu(text, vram), text


def _ld_samples() -> list[Any]:
    samples: list[Any] = []
    for path in sorted(LIVE_DIR.glob("*.html")):
        page = path.read_text("utf-8", "replace")
        for raw in re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S):
            try:
                samples.append(json.loads(raw))
            except json.JSONDecodeError:
                continue
    samples += [
        [{"@type": ["Offer", "x/Product"], "offers": [1, {"@type": "AggregateOffer", "lowPrice": 3}]}],
        {"@type": "Product", "name": "p", "offers": {"@type": "AggregateOffer", "offers": []}},
        [[[{"@type": None, "x": [{"@type": "https://schema.org/Offer", "price": 1}]}]]],
        {"@type": ["", 0, "http://schema.org/Offer"]},
        {"@type": 5, "a": {"@type": {"b": 1}, "c": {"@type": "Product", "offers": [{"p": 1}]}}},
        {"@type": "Product", "x": {"@type": "Product", "offers": {"@type": "Offer"}}},
        "not an object",
        3,
    ]  # fmt: skip
    return samples


def test_jsonld_walk_and_searches_match_the_plain_versions() -> None:
    for sample in _ld_samples():
        items = [sample, sample]
        expected_products = [d for d in ref_walk(items) if "Product" in ref_types_of(d)]
        assert [id(p) for p in _jsonld.products(items)] == [id(p) for p in expected_products]
        for item in ref_walk(items):
            assert _jsonld.types_of(item) == ref_types_of(item)
        offers = _jsonld.all_offers(items)
        claimed = {id(ld.offer) for p in expected_products for ld in _jsonld.offers_of(p)}
        for p in expected_products:
            for aggregate in _jsonld._as_list(p.get("offers")):
                if isinstance(aggregate, dict):
                    claimed |= {id(o) for o in _jsonld._as_list(aggregate.get("offers"))}
                    claimed.add(id(aggregate))
        free = [d for d in ref_walk(items) if id(d) not in claimed and "Offer" in ref_types_of(d)]
        under = [ld for p in expected_products for ld in _jsonld.offers_of(p)]
        # By value: an AggregateOffer with only a lowPrice gives a new dict on each call.
        assert [(ld.offer, ld.currency) for ld in offers] == [
            (ld.offer, ld.currency) for ld in under
        ] + [(d, d.get("priceCurrency")) for d in free]


def test_month_constant_is_unchanged() -> None:
    assert units.parse_period("/月") == (HOURS_PER_MONTH, None)


def test_offer_pairs_are_offers_of_without_the_wrapper() -> None:
    for sample in _ld_samples():
        for product in _jsonld.products([sample]):
            # By value: an AggregateOffer with only a lowPrice gives a new dict on each call.
            assert _jsonld.offer_pairs(product) == [
                (ld.offer, ld.currency) for ld in _jsonld.offers_of(product)
            ]


def _ref_runpod_gb(text: str | None) -> int | None:
    m = runpod._GB.search(text or "")
    if m is None:
        return None
    return int(Decimal(m[1]).to_integral_value())


def _ref_runpod_int(text: str | None) -> int | None:
    m = runpod._INT.search(text or "")
    return None if m is None else int(m[1])


def test_runpod_sizes_and_counts_match_the_regex_versions() -> None:
    sizes = ["141 GB", "80GB", "80 gb", "24 Gb", "0 GB", "1.5 GB", "80", "GB", "", " GB", "8 0 GB",
             "about 80 GB", "80 GB VRAM", "８０GB", "²GB", "80\u3000GB", "12 TB", None]  # fmt: skip
    for text in [*sizes, *CORPUS]:
        assert runpod._gb(text) == _ref_runpod_gb(text), text
        assert runpod._int(text) == _ref_runpod_int(text), text


class _Text(str):
    """A str subclass: number() takes it, positive_number leaves it to number()."""


def _number_or_error(value: Any) -> Decimal | str:
    try:
        return number(value, "price")
    except ParseError as exc:
        return f"ParseError: {exc}"


def test_positive_number_is_number_without_the_message() -> None:
    values: list[Any] = [
        "2.69", " 2.69 ", "2.690", "0.44", "7920", "1,074", "1_000", "0", "-1", "-0.0", "+3",
        "1e3", "1E-2", "NaN", "nan", "Infinity", "-inf", "sNaN", "", "  ", "面议", "２.５", "$2",
        2, 0, -5, 4150, 10**30, 7.2, 0.1, 1e-300, 1e300, float("inf"), float("nan"), -0.0,
        True, False, None, [2], {"price": 2}, Decimal("2.5"), _Text("2.5"),
    ]  # fmt: skip
    rnd = random.Random(20261130)
    values += [f"{rnd.uniform(-5, 50):.{rnd.randrange(6)}f}" for _ in range(300)]
    values += [rnd.uniform(0, 1e4) for _ in range(100)] + [
        rnd.randrange(-9, 10**6) for _ in range(100)
    ]
    taken = 0
    for value in values:
        fast = positive_number(value)
        plain = _number_or_error(value)
        if fast is None:
            # Left to number(): it refuses it, or takes a type the fast path does not.
            assert isinstance(plain, str) or type(value) not in (str, int, float), value
        else:
            taken += 1
            assert isinstance(plain, Decimal) and str(fast) == str(plain), value
    assert taken > 450


def test_every_model_pattern_has_its_literal() -> None:
    # canonical_gpu's check above covers the answers; this, that the shortcut is taken.
    assert all(key for key, _ in gpu_names._KEYED)


def test_fx_converter_is_to_cny_with_each_rate_looked_up_once() -> None:
    fx = FxRates((FxRate(date(2026, 9, 1), "USD", Decimal("7.123456"), "x"),))
    day = date(2026, 9, 10)
    to_cny = fx.converter(day)
    for amount in ("2.69", "0.0001", "1234567.891234", "3.3333333333333333333"):
        for currency in ("USD", "usd", "CNY"):
            got = to_cny(Decimal(amount), currency)
            assert got == fx.to_cny(Decimal(amount), currency, day)
            assert str(got) == str(fx.to_cny(Decimal(amount), currency, day))
    # A currency without a rate raises as to_cny does, at its first price.
    with pytest.raises(ParseError, match="no EUR→CNY rate") as raised:
        to_cny(Decimal("1"), "EUR")
    with pytest.raises(ParseError) as again:
        fx.to_cny(Decimal("1"), "EUR", day)
    assert str(raised.value) == str(again.value)


def test_cny_per_unit_is_the_rate_without_building_it() -> None:
    """FxRates.cny_per_unit (the converter's lookup, and the generic extractor's) gives
    rate(...).cny_per_unit for every currency and day, and raises as rate() does."""
    usd = FxRate(date(2026, 9, 5), "USD", Decimal("7.123456"), "x")
    fallback = FxRate(date(2026, 1, 1), "usd", Decimal("7.2"), "configured default")
    eur = FxRate(date(2026, 9, 5), "EUR", Decimal("7.9"), "x")
    tables = [
        FxRates(),
        FxRates((usd,)),
        FxRates((usd, eur), (fallback,)),
        FxRates((), (fallback,)),
    ]
    currencies = ["CNY", "cny", "Cny", "USD", "usd", "EUR", "eur", "JPY", "", "cnY "]
    days = [date(2025, 12, 31), date(2026, 9, 4), date(2026, 9, 5), date(2027, 1, 1)]
    for fx in tables:
        for currency in currencies:
            for day in days:
                try:
                    expected: Any = repr(fx.rate(currency, day).cny_per_unit)
                except ParseError as exc:
                    expected = str(exc)
                try:
                    got: Any = repr(fx.cny_per_unit(currency, day))
                except ParseError as exc:
                    got = str(exc)
                assert got == expected, (fx, currency, day)
