"""The two fast paths of scrapers/sources/_jsonld.py give what the plain code gives:

* ``_decode`` (msgspec, falling back to ``json``) gives ``json.loads``'s values and errors;
* ``products`` on a page's :class:`~scrapers.sources._jsonld.Blocks` (looking only at the top
  of each block and its ``@graph`` when the text shows every Product is there) finds what
  walking every object finds, in the same order;
* ``all_offers`` on them (looking only there and under those Products' ``offers`` when the
  text shows every Offer is there) gives what it gives by walking every object.

The reference for all is the plain version: ``json.loads``, and a walk of every object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from scrapers.rows import ParseError
from scrapers.sources import _jsonld
from scrapers.sources._json import load_json
from tests.scrapers.live_fixtures import LIVE_DIR
from tests.scrapers.plain_versions import ref_types_of, ref_walk

# -- the plain versions ----------------------------------------------------------------------


def _ref_products(items: list[Any]) -> list[dict[str, Any]]:
    found = []
    for item in ref_walk(items):
        kind = item.get("@type")
        names = kind if isinstance(kind, list) else [kind]
        if "Product" in {str(k).rsplit("/", 1)[-1] for k in names if k}:
            found.append(item)
    return found


def _ref_all_offers(items: list[Any]) -> list[_jsonld.LdOffer]:
    """``all_offers`` as it was before its shortcut: the walk of every object for Products and
    Offers, then each Product's offers and the Offers none of them claims."""
    walked = list(ref_walk(items))
    found: list[_jsonld.LdOffer] = []
    claimed: set[int] = set()
    for product in [d for d in walked if "Product" in ref_types_of(d)]:
        for ld in _jsonld.offers_of(product):
            claimed.add(id(ld.offer))
            found.append(ld)
        for aggregate in _jsonld._as_list(product.get("offers")):
            if isinstance(aggregate, dict):
                claimed.update(id(o) for o in _jsonld._as_list(aggregate.get("offers")))
                claimed.add(id(aggregate))
    for item in walked:
        if "Offer" in ref_types_of(item) and id(item) not in claimed:
            offered = item.get("itemOffered")
            found.append(
                _jsonld.LdOffer(
                    offered if isinstance(offered, dict) else None, item, item.get("priceCurrency")
                )
            )
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


def test_a_number_json_will_not_convert_is_a_parse_error() -> None:
    # Valid JSON, but json (and so a parser) refuses integers of over 4,300 digits: a recorded
    # parse error, not a crash.
    raw = '{"@type": "Product", "sku": ' + "7" * 5000 + "}"
    with pytest.raises(ValueError, match="4300 digits"):
        json.loads(raw)
    with pytest.raises(ParseError, match=r"^u: JSON-LD block 3 cannot be read \(Exceeds"):
        _jsonld._decode(raw, "u", 3)
    with pytest.raises(ParseError, match=r"^u: body cannot be read as JSON \(Exceeds"):
        load_json(raw.encode(), "u")


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


# -- the offer search ------------------------------------------------------------------------

# Each block, and whether all_offers finds its offers without the walk (on the block alone).
OFFER_ADVERSARIAL: dict[str, tuple[str, bool]] = {
    "a free Offer at the top": (
        '{"@type": "Offer", "price": 1, "itemOffered": {"@type": "Thing", "name": "x"}}',
        True,
    ),
    "free Offers in @graph around a Product": (
        '{"@graph": [{"@type": "Offer", "price": 1}, {"@type": "Product", "name": "p", '
        '"offers": {"@type": "Offer", "price": 2}}, {"@type": "Offer", "price": 3}]}',
        True,
    ),
    # The walk meets the block before its @graph, wherever the key is.
    "a free Offer at the top and in its @graph": (
        '{"@graph": [{"@type": "Offer", "price": 2}], "@type": "Offer", "price": 1}',
        True,
    ),
    "an Offer in an ItemList": (
        '{"@type": "ItemList", "itemListElement": [{"@type": "ListItem", '
        '"item": {"@type": "Offer", "price": 1}}]}',
        False,
    ),
    "an Offer under a Product field other than offers": (
        '{"@type": "Product", "name": "p", "offers": {"@type": "Offer", "price": 1}, '
        '"isRelatedTo": {"@type": "Offer", "price": 2}}',
        False,
    ),
    "an Offer in an Offer": (
        '{"@graph": [{"@type": "Offer", "price": 1, "addOn": {"@type": "Offer", "price": 2}}]}',
        False,
    ),
    "an AggregateOffer without inner offers": (
        '{"@type": "Product", "name": "p", "offers": {"@type": "AggregateOffer", '
        '"lowPrice": 1, "priceCurrency": "USD"}}',
        True,
    ),
    "an AggregateOffer with inner offers": (
        '{"@graph": [{"@type": "Product", "name": "p", "offers": [{"@type": "AggregateOffer", '
        '"priceCurrency": "EUR", "offers": [{"@type": "Offer", "price": 1}, '
        '{"@type": "Offer", "price": 2, "priceCurrency": "USD"}]}]}]}',
        True,
    ),
    "an AggregateOffer whose inner offer is one object": (
        '{"@type": "Product", "name": "p", "offers": {"@type": "AggregateOffer", '
        '"lowPrice": 9, "offers": {"@type": "Offer", "price": 1}}}',
        True,
    ),
    "an Offer's own offers under a Product": (
        '{"@type": "Product", "name": "p", "offers": {"@type": "Offer", "price": 1, '
        '"offers": [{"@type": "Offer", "price": 2}, 3]}}',
        True,
    ),
    "an untyped offer holding offers": (
        '{"@type": "Product", "name": "p", "offers": [{"price": 1, '
        '"offers": [{"@type": "Offer", "price": 2}]}, "x", null]}',
        True,
    ),
    "a free AggregateOffer": ('{"@type": "AggregateOffer", "lowPrice": 1}', True),
    "a free AggregateOffer with inner offers": (
        '{"@type": "AggregateOffer", "offers": [{"@type": "Offer", "price": 1}]}',
        False,
    ),
    # Equal JSON twice is two objects: the Product's and a free one.
    "the same Offer twice": (
        '{"@graph": [{"@type": "Product", "name": "p", "offers": {"@type": "Offer", '
        '"price": 1}}, {"@type": "Offer", "price": 1}]}',
        True,
    ),
    "Special Offer in a description": (
        '{"@type": "Product", "name": "p", "description": "Special Offer", '
        '"offers": {"@type": "Offer", "price": 1}}',
        False,
    ),
    "a key ending in Offer": (
        '{"@type": "Organization", "makesOffer": {"@type": "Offer", "price": 1}}',
        False,
    ),
    "a key ending in Offer on an Offer": ('{"@type": "Offer", "price": 1, "makesOffer": 2}', False),
    "the type spelled with escapes": ('{"@graph": [{"@type": "Off\\u0065r", "price": 1}]}', False),
    "a nested type spelled with escapes": (
        '{"@type": "Product", "name": "p", "offers": {"@type": "Offer", "price": 1}, '
        '"x": {"@type": "Off\\u0065r", "price": 2}}',
        False,
    ),
    "a list of types": ('{"@graph": [{"@type": ["Offer", "Thing"], "price": 1}]}', True),
    "a list of two offer types": (
        '{"@graph": [{"@type": ["Offer", "AggregateOffer"], "price": 1}]}',
        False,
    ),
    "a Product that is an Offer": (
        '{"@type": ["Product", "Offer"], "name": "p", "price": 5, '
        '"offers": {"@type": "Offer", "price": 1}}',
        True,
    ),
    "a duplicate @type": ('{"@type": "Offer", "@type": "Offer", "price": 1}', False),
    "schema.org URLs": (
        '[{"@type": "https://schema.org/Product", "name": "p", "offers": '
        '{"@type": "http:\\/\\/schema.org\\/AggregateOffer", "lowPrice": 1}}, '
        '{"@type": "https://schema.org/Offer", "price": 2}]',
        True,
    ),
    "a prefixed type": ('{"@type": "schema:Offer", "price": 1}', False),
    "Offer as a string": ('{"@type": "Product", "name": "p", "category": "Offer"}', False),
    "a @graph that is one Offer": ('{"@graph": {"@type": "Offer", "price": 1}}', True),
    "a block that is a list": (
        '[{"@type": "Offer", "price": 1}, {"@type": "Product", "name": "p", '
        '"offers": [{"@type": "Offer", "price": 2}]}]',
        True,
    ),
    "lists in a list": (
        '[[{"@type": "Offer", "price": 1}], {"@type": "Offer", "price": 2}]',
        False,
    ),
    "an Offer of a Product": (
        '{"@graph": [{"@type": "Offer", "itemOffered": {"@type": "Product", "name": "c", '
        '"offers": {"@type": "Offer", "price": 1}}}]}',
        False,
    ),
    # A Product that is not at the top has no Offer mark to miss when its offer is untyped
    # (offers_of takes it): the Product count must send this to the walk.
    "a nested Product with an untyped offer": (
        '{"@type": "ItemList", "itemListElement": [{"@type": "Product", "name": "p", '
        '"offers": {"price": 1}}]}',
        False,
    ),
    # As many Offer marks as Offer-typed objects seen, if an untyped inner offer were counted.
    "an untyped inner offer and a hidden Offer": (
        '{"@type": "Product", "name": "p", "offers": {"@type": "AggregateOffer", '
        '"offers": [{"price": 1}]}, "isRelatedTo": {"@type": "Offer", "price": 2}}',
        False,
    ),
    "no offers": ('{"@type": "BreadcrumbList", "itemListElement": []}', True),
}


def _offer_key(ld: _jsonld.LdOffer, tree: set[int]) -> tuple[Any, ...]:
    """An LdOffer by the identity of the objects it holds (an offer made from an
    AggregateOffer's lowPrice is a new object: by value), its currency as JSON."""
    offer = id(ld.offer) if id(ld.offer) in tree else json.dumps(ld.offer, allow_nan=True)
    product = None if ld.product is None else id(ld.product)
    return product, offer, json.dumps(ld.currency, allow_nan=True)


def _assert_same_offers(tree: LexborHTMLParser) -> bool:
    """all_offers gives the walk's answer on the page's blocks; whether it took the shortcut."""
    found = _jsonld.blocks(tree, "u")
    objects = {id(d) for d in ref_walk(list(found))}
    expected = [_offer_key(ld, objects) for ld in _ref_all_offers(list(found))]
    assert [_offer_key(ld, objects) for ld in _jsonld.all_offers(found)] == expected
    assert [_offer_key(ld, objects) for ld in _jsonld.all_offers(list(found))] == expected
    # And the shortcut itself, asked directly: when it answers, it answers so.
    shallow = _jsonld._shallow_offers(found) if found.product_marks is not None else None
    if shallow is not None:
        assert [_offer_key(ld, objects) for ld in shallow] == expected
    return shallow is not None


_PLAIN_OFFERS = (
    '{"@graph": [{"@type": "Product", "name": "p", "offers": {"@type": "Offer", "price": 1}}]}'
)


@pytest.mark.parametrize(
    ("raw", "shortcut"), OFFER_ADVERSARIAL.values(), ids=OFFER_ADVERSARIAL.keys()
)
def test_offers_found_as_a_walk_finds_them(raw: str, shortcut: bool) -> None:
    assert _assert_same_offers(_page(raw)) == shortcut
    # The same block beside a plain one, before and after it: the answer holds either way.
    assert _assert_same_offers(_page(_PLAIN_OFFERS, raw)) == shortcut
    assert _assert_same_offers(_page(raw, _PLAIN_OFFERS)) == shortcut
    assert _assert_same_offers(_page(raw, raw)) == shortcut


@pytest.mark.parametrize("raw", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_offers_of_the_product_cases(raw: str) -> None:
    _assert_same_offers(_page(raw))
    _assert_same_offers(_page(_PLAIN_OFFERS, raw))
    _assert_same_offers(_page(raw, _PLAIN_OFFERS))


def test_every_fixture_page_gives_the_walks_products_and_offers() -> None:
    pages = sorted(LIVE_DIR.parent.rglob("*.html"))
    assert len(pages) > 20 and any(p.parent == LIVE_DIR for p in pages)
    for path in pages:
        tree = LexborHTMLParser(path.read_bytes())
        try:
            _assert_same_products(tree)
            _assert_same_offers(tree)
        except ParseError:
            assert "truncated" in path.name  # the broken-JSON fixture: an error either way


def test_generic_jsonld_page_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generic fixture's Offers are under the Products of a @graph: found without the
    walk (the speedup), and its Offer marks counted once."""
    tree = LexborHTMLParser((LIVE_DIR / "generic_jsonld.html").read_bytes())
    found = _jsonld.blocks(tree, "u")
    objects = {id(d) for d in ref_walk(list(found))}
    expected = [_offer_key(ld, objects) for ld in _ref_all_offers(list(found))]
    assert len(expected) == 3
    assert found.offer_marks() == 3

    def no_walk(*args: object) -> None:
        raise AssertionError("walked")

    monkeypatch.setattr(_jsonld, "_objects_of_types", no_walk)
    assert [_offer_key(ld, objects) for ld in _jsonld.all_offers(found)] == expected
    assert [_offer_key(ld, objects) for ld in _jsonld.all_offers(found)] == expected


def test_offer_marks_are_counted_lazily() -> None:
    """blocks() does not count Offer marks (RunPod's adapter never asks for them)."""
    found = _jsonld.blocks(_page('{"@type": "Offer"}', '["Offer"]'), "u")
    assert found._offer_marks == -1
    assert found.offer_marks() == 2
    found._texts.clear()  # the count is kept, not redone
    assert found.offer_marks() == 2
    escaped = _jsonld.blocks(
        _page('{"@type": "Offer"}', ADVERSARIAL["the key spelled with escapes"]), "u"
    )
    assert escaped.offer_marks() is None
    assert len(_jsonld.all_offers(escaped)) == 1


# Documents shaped as pages shape them (Products with offers at the top, in @graph, in a list,
# free Offers beside them), with noise (the generated documents above) at various depths.
_offer_kinds = st.sampled_from(
    [
        "Offer",
        "Offer",
        "Offer",
        "Offer",
        "AggregateOffer",
        "https://schema.org/Offer",
        "Thing",
        ["Offer", "Thing"],
        ["Offer", "AggregateOffer"],
        "xOffer",
        None,  # offers_of takes an untyped offer: it has no Offer mark
        None,
        None,
    ]
)
_product_kinds = st.sampled_from(
    ["Product", "Product", "Product", "https://schema.org/Product", ["Product", "Offer"], "Thing"]
)
_currencies = st.sampled_from([None, "USD", "CNY"])
# Mostly values that hold no type, so that the shortcut is often taken; sometimes an Offer
# where only the walk finds it, or a generated document, which may hide a Product or an Offer
# anywhere.
_plain_names = st.sampled_from(["", "H100", "A100 80GB"])
_noise = (
    st.fixed_dictionaries(
        {"@type": st.sampled_from(["Thing", "PropertyValue"]), "name": _plain_names}
    )
    | st.lists(st.integers(0, 9), max_size=2)
    | _plain_names
    | st.fixed_dictionaries({"@type": st.just("Offer"), "price": st.integers(0, 9)})
    | _documents
)


def _typed(kind: Any, fields: dict[str, Any]) -> dict[str, Any]:
    return fields if kind is None else {"@type": kind, **fields}


_untyped_offer = st.fixed_dictionaries({"price": st.integers(0, 9)})
_leaf_offers = st.builds(
    lambda kind, price, currency, extra: _typed(
        kind, {"price": price, **({"priceCurrency": currency} if currency else {}), **extra}
    ),
    _offer_kinds,
    st.integers(0, 9),
    _currencies,
    st.dictionaries(
        st.sampled_from(["lowPrice", "name", "addOn", "itemOffered"]), _noise, max_size=1
    ),
)
_offers = _leaf_offers | st.builds(
    lambda kind, low, inner, currency: _typed(
        kind,
        {
            **({"lowPrice": low} if low is not None else {}),
            **({"offers": inner} if inner is not None else {}),
            **({"priceCurrency": currency} if currency else {}),
        },
    ),
    st.sampled_from(["AggregateOffer", "AggregateOffer", "Offer", None]),
    st.none() | st.integers(0, 9),
    st.none() | _leaf_offers | st.lists(_leaf_offers | _untyped_offer | _noise, max_size=3),
    _currencies,
)
_products = st.builds(
    lambda kind, name, offers, extra: {
        "@type": kind,
        "name": name,
        **({"offers": offers} if offers is not None else {}),
        **extra,
    },
    _product_kinds,
    _plain_names | _names,
    st.none() | _untyped_offer | _offers | st.lists(_offers | _noise, max_size=3),
    st.dictionaries(_keys.filter(lambda k: k != "offers"), _noise, max_size=1),
)
# Products and Offers also below the top, where only the walk finds them.
_nested = st.builds(
    lambda kind, key, item: {"@type": kind, key: [item]},
    st.sampled_from(["ItemList", "Thing", "Offer"]),
    st.sampled_from(["itemListElement", "itemOffered", "mainEntity"]),
    _products | _offers,
)
_items = _products | _products | _leaf_offers | _offers | _nested | _noise
_offer_blocks = (
    st.lists(_items, min_size=1, max_size=4)
    | st.builds(
        lambda graph: {"@context": "https://schema.org", "@graph": graph},
        st.lists(_items, min_size=1, max_size=4),
    )
    | st.builds(
        lambda item, graph: {**item, "@graph": graph},
        _products | _leaf_offers,
        st.lists(_items, max_size=3),
    )
    | st.builds(lambda item: {"@graph": item}, _items)
    | _items
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_offer_blocks | _offer_blocks | _documents, min_size=1, max_size=3), st.booleans())
def test_offers_of_generated_documents(documents: list[Any], ascii_only: bool) -> None:
    _assert_same_offers(_page(*(json.dumps(d, ensure_ascii=ascii_only) for d in documents)))
