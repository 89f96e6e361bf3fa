"""The two fast paths of scrapers/sources/_jsonld.py give what the plain code gives:

* ``_decode`` (msgspec, falling back to ``json``) gives ``json.loads``'s values and errors;
* ``products`` on a page's :class:`~scrapers.sources._jsonld.Blocks` (looking only at the top
  of each block and its ``@graph`` when the text shows every Product is there) finds what
  walking every object finds, in the same order.

The reference for both is the plain version: ``json.loads``, and a walk of every object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from scrapers.rows import ParseError
from scrapers.sources import _jsonld
from tests.scrapers.live_fixtures import LIVE_DIR
from tests.scrapers.plain_versions import ref_walk

# -- the plain versions ----------------------------------------------------------------------


def _ref_products(items: list[Any]) -> list[dict[str, Any]]:
    found = []
    for item in ref_walk(items):
        kind = item.get("@type")
        names = kind if isinstance(kind, list) else [kind]
        if "Product" in {str(k).rsplit("/", 1)[-1] for k in names if k}:
            found.append(item)
    return found


def _page(*raw_blocks: str) -> LexborHTMLParser:
    scripts = "".join(f'<script type="application/ld+json">{raw}</script>' for raw in raw_blocks)
    return LexborHTMLParser(f"<html><head><title>t</title>{scripts}</head><body></body></html>")


def _same_json(a: Any, b: Any) -> bool:
    """Equal with the same types (``1 == 1.0`` is not enough): as JSON, keys in order."""
    return json.dumps(a, allow_nan=True) == json.dumps(b, allow_nan=True)


# -- decoding --------------------------------------------------------------------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
_json_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values, st.booleans())
def test_decode_gives_json_loads_values(value: Any, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only)
    assert _same_json(_jsonld._decode(raw, "u", 1), json.loads(raw))


@pytest.mark.parametrize(
    "raw",
    [
        '{"price": NaN}',  # what msgspec refuses and json takes: decoded as json does
        '{"price": Infinity, "low": -Infinity}',
        '{"price": 1e400}',
        '["\\ud800"]',  # a lone surrogate
        '{"id": 123456789012345678901234567890}',  # wider than 64 bits: exact, not a float
        '{"a": 1, "a": 2}',
        '  {"a": [1.5, 2.25e-3, -0.0]}  ',
    ],
)
def test_decode_edge_cases_are_json_loads(raw: str) -> None:
    assert _same_json(_jsonld._decode(raw, "u", 1), json.loads(raw))


@pytest.mark.parametrize("raw", ['{"a": ', "{bad", '{"a": 1} trailing', "[1, 2,]", "\ufeff{}"])
def test_decode_errors_are_worded_as_json_words_them(raw: str) -> None:
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(raw)
    with pytest.raises(ParseError) as ours:
        _jsonld._decode(raw, "https://x.invalid/p", 2)
    assert str(ours.value) == (
        f"https://x.invalid/p: JSON-LD block 2 is not valid JSON ({plain.value.msg})"
    )


# -- the product search ----------------------------------------------------------------------

ADVERSARIAL = {
    "nested in a Product": '{"@type": "Product", "name": "a", "isRelatedTo": '
    '{"@type": "Product", "name": "b"}}',
    "under another key": '{"@context": "https://schema.org", "mainEntity": {"@type": "Product"}}',
    "under an Offer": '{"@type": "Offer", "itemOffered": {"@type": "Product", "name": "c"}}',
    "a list of types": '{"@graph": [{"@type": ["Thing", "Product"]}, {"@type": "Thing"}]}',
    "the type spelled with escapes": '{"@graph": [{"@type": "Pr\\u006fduct"}]}',
    "a nested type spelled with escapes": '{"@graph": [{"@type": "Product", '
    '"x": {"@type": "Pr\\u006fduct"}}]}',
    "the key spelled with escapes": '{"@t\\u0079pe": "Product"}',
    "escapes that spell no letter": '{"@graph": [{"@type": "Product", '
    '"name": "A \\u0026 B \\u003c C"}]}',
    "a @graph that is one object": '{"@graph": {"@type": "Product", "name": "d"}}',
    "lists in a list": '[[{"@type": "Product"}], {"@type": "Product"}]',
    "a name ending in Product": '{"@graph": [{"@type": "Product", "name": "Best Product"}]}',
    "a schema.org URL": '[{"@type": "https://schema.org/Product"}, '
    '{"@type": "http:\\/\\/schema.org\\/Product"}]',
    "a Product holding a @graph": '{"@type": "Product", "name": "top", '
    '"@graph": [{"@type": "Product", "name": "inner"}]}',
    "Product as a key": '{"@graph": [{"@type": "Product", "Product": 1}]}',
    "no Product": '{"@type": "BreadcrumbList", "itemListElement": []}',
    "not an object": '"Product"',
}


def _assert_same_products(tree: LexborHTMLParser) -> _jsonld.Blocks:
    found = _jsonld.blocks(tree, "u")
    expected = _ref_products(list(found))
    assert [id(p) for p in _jsonld.products(found)] == [id(p) for p in expected]
    assert [id(p) for p in _jsonld.products(list(found))] == [id(p) for p in expected]
    return found


@pytest.mark.parametrize("raw", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_products_found_as_a_walk_finds_them(raw: str) -> None:
    _assert_same_products(_page(raw))
    # The same block beside a plain one, before and after it.
    plain = '{"@graph": [{"@type": "Product", "name": "p"}]}'
    _assert_same_products(_page(plain, raw))
    _assert_same_products(_page(raw, plain))


def test_every_fixture_page_gives_the_walks_products() -> None:
    pages = sorted(LIVE_DIR.glob("*.html"))
    assert pages
    for path in pages:
        tree = LexborHTMLParser(path.read_bytes())
        try:
            _assert_same_products(tree)
        except ParseError:
            assert "truncated" in path.name  # the broken-JSON fixture: an error either way


def test_runpod_page_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """RunPod's page lists its Products in a @graph: found without the walk (the speedup)."""
    tree = LexborHTMLParser((LIVE_DIR / "runpod_pricing.html").read_bytes())
    found = _jsonld.blocks(tree, "u")
    expected = _ref_products(list(found))
    assert len(expected) == 8
    assert found.product_marks == 8

    def no_walk(*args: object) -> None:
        raise AssertionError("walked")

    monkeypatch.setattr(_jsonld, "_objects_of_types", no_walk)
    assert [id(p) for p in _jsonld.products(found)] == [id(p) for p in expected]


def test_escaped_letters_turn_the_shortcut_off() -> None:
    found = _jsonld.blocks(_page(ADVERSARIAL["the type spelled with escapes"]), "u")
    assert found.product_marks is None
    assert len(_jsonld.products(found)) == 1


_types = st.sampled_from(
    ["Product", "Offer", "Thing", "https://schema.org/Product", "xProduct", ["Thing", "Product"]]
)
_keys = st.sampled_from(["@graph", "offers", "mainEntity", "itemOffered", "name", "isRelatedTo"])
_names = st.sampled_from(["", "Product", "My Product", "H100", 'Product"s'])


def _nodes(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    node = st.fixed_dictionaries(
        {"@type": _types, "name": _names}, optional={"x": st.lists(inner, max_size=3)}
    )
    nested = st.tuples(node, _keys, inner).map(lambda t: {**t[0], t[1]: t[2]})
    return st.lists(inner, max_size=4) | node | nested


_documents = st.recursive(st.fixed_dictionaries({"@type": _types}), _nodes, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_documents, min_size=1, max_size=3), st.booleans())
def test_products_of_generated_documents(documents: list[Any], ascii_only: bool) -> None:
    _assert_same_products(_page(*(json.dumps(d, ensure_ascii=ascii_only) for d in documents)))
