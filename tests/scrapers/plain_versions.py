"""The plain versions of the parsing helpers that fast paths replaced: the earlier,
straightforward implementations, kept as the specification the fast ones are tested against
(tests/scrapers/test_*_equivalence.py, test_jsonld_fast_paths.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from scrapers import gpu_names, units
from scrapers.gpu_names import MODELS
from scrapers.rows import UNKNOWN_GPU, ParseError


def ref_nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def ref_parse_money(text: str) -> tuple[Decimal, str | None, str]:
    raw = ref_nfkc(text)
    if raw in units._NO_PRICE or raw.lower() in {"contact us", "contact sales", "n/a", "sold out"}:
        raise ParseError(f"no price given: {text!r} (placeholder instead of a number)")
    m = units._MONEY.match(raw)
    if m is None:
        raise ParseError(f"not a price: {text!r}")
    value = Decimal(m["num"].replace(",", ""))
    if value <= 0:
        raise ParseError(f"price must be positive, got {text!r}")
    pre = units._CURRENCY_PREFIX[m["pre"].upper()] if m["pre"] else None
    post = (
        units._CURRENCY_SUFFIX[m["post"] if m["post"] == "元" else m["post"].upper()]
        if m["post"]
        else None
    )
    if pre and post and pre != post:
        raise ParseError(f"price {text!r} names two currencies")
    return value, pre or post, re.sub(r"\s+", " ", m["unit"]).strip()


def ref_parse_period(unit: str) -> tuple[int, str | None]:
    key = re.sub(r"\bper\s+", "/", ref_nfkc(unit).lower())
    key = re.sub(r"[\s.·]", "", key)
    key = re.sub(r"^(usd|cny|rmb|元|\$|¥)", "", key)
    key = {"hourly": "/h", "daily": "/d", "monthly": "/mo"}.get(key, key)
    if not key.startswith("/"):
        raise ParseError(f"unit {unit!r} names no billing period (expected e.g. /hr, /时, /月)")
    segments = [part for part in key.split("/") if part]
    last = units._WHO.sub("", segments[-1]) if segments else ""
    if last not in units._PERIOD_WORDS:
        raise ParseError(f"unknown billing period in unit {unit!r} (known: hour, day, month)")
    joined = "/".join(segments)
    per = None
    if re.search(r"(卡|gpu|card)", joined):
        per = "card"
    elif re.search(r"(台|server|machine|node|instance)", joined):
        per = "machine"
    return units._PERIOD_WORDS[last], per


def ref_canonical_gpu(name: str, vram_gb: int | None = None) -> str:
    text = unicodedata.normalize("NFKC", name).upper().strip()
    if not text:
        return UNKNOWN_GPU
    matches = [m for m in MODELS if m.pattern.search(text)]
    if len(matches) != 1:
        return UNKNOWN_GPU
    model = matches[0]
    if model.exclude is not None and model.exclude.search(text):
        return UNKNOWN_GPU
    sizes = {int(s) for s in gpu_names._VRAM.findall(text)}
    if len(sizes) > 1:
        return UNKNOWN_GPU
    size = sizes.pop() if sizes else None
    if vram_gb is not None:
        if size is not None and size != vram_gb:
            return UNKNOWN_GPU
        size = vram_gb
    if size is None:
        size = model.default_vram
    if size is None:
        return UNKNOWN_GPU
    return model.sizes.get(size, UNKNOWN_GPU)


def ref_walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from ref_walk(child)
    elif isinstance(value, list):
        for child in value:
            yield from ref_walk(child)


def ref_types_of(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    names = kind if isinstance(kind, list) else [kind]
    return {str(k).rsplit("/", 1)[-1] for k in names if k}
