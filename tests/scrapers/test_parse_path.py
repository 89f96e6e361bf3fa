"""The shared parse path (scrapers.parse): a page keeps every listing that reads; each one
that does not is rejected alone with where it was, an excerpt and why; a listing repeated on
the page is rejected the second time; the page fails only when no row is left or too many
listings were rejected. Tested on a small adapter whose listings are lines of text."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from pydantic import BaseModel

from scrapers.parse import Item, Page, read_page, reason_of
from scrapers.rows import NoPrice, OfferRow, ParseError
from scrapers.sources.base import Adapter
from scrapers.units import is_placeholder, parse_money

WHEN = datetime(2026, 12, 1, 8, 0)


class Listing(BaseModel):
    card: str
    price: Decimal


class Lines(Adapter):
    """A page of lines "id,card,price"; the header line "id,card,price" must come first."""

    name = "lines"

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        lines = body.decode().splitlines()
        if not lines or lines[0] != "id,card,price":
            raise ParseError(f"{url}: not a price list")
        items = [Item(f"line {n}", text, text) for n, text in enumerate(lines[1:], 2)]
        return Page(url, fetched_at, items)

    def rows(self, item: Item, page: Page) -> list[OfferRow]:
        offer_id, card, price = item.data.split(",")
        if is_placeholder(price):
            parse_money(price)  # raises NoPrice, as every adapter reading a price cell does
        listing = Listing(card=card, price=price)
        return [
            OfferRow(
                observed_at=page.observed_at,
                source=self.name,
                offer_id=offer_id,
                gpu="h100-80g",
                gpu_name_raw=listing.card,
                gpu_count=1,
                vram_gb=80,
                billing="hourly",
                price=listing.price,
                currency="CNY",
                unit="CNY/card-hour",
                unit_raw="元/时",
                per_card_hour=listing.price,
            )  # fmt: skip
        ]


def page(*lines: str) -> bytes:
    return "\n".join(["id,card,price", *lines]).encode()


GOOD = [f"o{n},H100,{10 + n}" for n in range(9)]


def test_a_broken_listing_is_rejected_alone_and_the_rest_kept() -> None:
    body = page(*GOOD[:4], "o9,H100,1.2.3", *GOOD[4:])
    read = read_page(Lines(), body, "u", WHEN)
    assert [row.offer_id for row in read.rows] == [f"o{n}" for n in range(9)]
    (gone,) = read.rejected
    assert (gone.where, gone.excerpt, gone.stage) == ("line 6", "o9,H100,1.2.3", "parse")
    assert gone.reason == "price: Input should be a valid decimal (got '1.2.3')"
    assert not gone.unpriced  # a price gone wrong, unlike "面议" (below)
    assert read.failure() is None and read.listings == 10


def test_a_row_built_invalid_rejects_its_listing() -> None:
    read = read_page(Lines(), page(*GOOD, "o9,H100,0"), "u", WHEN)
    (gone,) = read.rejected
    assert gone.where == "line 11" and "price 0 is not a positive number" in gone.reason


def test_a_listing_repeated_on_the_page_is_rejected_the_second_time() -> None:
    read = read_page(Lines(), page(*GOOD, "o3,H100,99"), "u", WHEN)
    assert len(read.rows) == 9 and {r.price for r in read.rows if r.offer_id == "o3"} == {13}
    (gone,) = read.rejected
    assert gone.where == "line 11" and gone.reason == "listed twice: o3 is on the page as line 5"


@pytest.mark.parametrize("text", ["面议", "Contact sales", "––", "-", "—", "N/A", "sold out", " "])
def test_a_placeholder_is_no_price(text: str) -> None:
    assert is_placeholder(text)
    with pytest.raises(NoPrice, match="no price given"):
        parse_money(text)


def test_listings_that_publish_no_price_are_rejected_but_fail_no_page() -> None:
    """ "面议" or "Contact sales" is the market's answer, not a parser gone wrong: such a
    listing is rejected and named, and the share that fails a page is of the listings that
    state a price (Crusoe's 2025-12 page: two "Contact sales" cards of four)."""
    body = page(*GOOD[:6], "x1,H100,面议", "x2,H100,Contact sales", "x3,H100,––", "x4,H100,?")
    read = read_page(Lines(), body, "u", WHEN)
    assert len(read.rows) == 6 and read.listings == 10
    assert [(r.where, r.unpriced) for r in read.rejected] == [
        ("line 8", True), ("line 9", True), ("line 10", True), ("line 11", False),
    ]  # fmt: skip
    assert read.rejected[0].reason == "no price given: '面议' (placeholder instead of a number)"
    assert read.failure() is None  # 1 of the 7 listings that state a price: 14 %
    body = page(*GOOD[:5], "x1,H100,面议", "x2,H100,Contact sales", "x3,H100,––", "x4,H100,?",
                "x5,H100,?")  # fmt: skip
    problem = read_page(Lines(), body, "u", WHEN).failure()
    assert problem is not None
    assert problem.startswith("2 of 7 listing(s) rejected (and 3 stating no price) (29%")
    only = page("x1,H100,面议", "x2,H100,Contact sales")
    assert read_page(Lines(), only, "u", WHEN).failure().startswith("no row; 2 rejected")


def test_a_page_fails_when_too_many_listings_are_rejected() -> None:
    body = page(*GOOD[:7], "x1,H100,?", "x2,H100,?", "x3,H100,?")  # 3 of 10
    read = read_page(Lines(), body, "u", WHEN)
    assert len(read.rows) == 7
    problem = read.failure()
    assert problem is not None and problem.startswith("3 of 10 listing(s) rejected (30%")
    assert read.failure(max_rejected_share=0.3) is None
    with pytest.raises(ParseError, match="3 rejected: line 9: price"):
        Lines().parse(body, "u", WHEN)


def test_a_page_with_no_row_fails_and_one_with_no_listing_is_empty() -> None:
    read = read_page(Lines(), page("x,H100,?"), "u", WHEN)
    assert read.failure() == "no row; 1 rejected: line 2: price: Input should be a valid " + (
        "decimal (got '?')"
    )
    assert Lines().parse(page(), "u", WHEN) == []
    assert read_page(Lines(), page(), "u", WHEN).failure() == "no row: no listing on the page"


def test_a_page_that_is_not_the_format_is_refused_whole() -> None:
    with pytest.raises(ParseError, match="u: not a price list"):
        read_page(Lines(), b"<html>login</html>", "u", WHEN)


def test_a_listing_with_an_unexpected_shape_is_rejected_not_the_page() -> None:
    read = read_page(Lines(), page(*GOOD, "only-one-field"), "u", WHEN)
    (gone,) = read.rejected
    assert gone.reason.startswith("ValueError: not enough values to unpack")


def test_reasons_name_the_field_once() -> None:
    try:
        Listing(card=None, price="x")  # type: ignore[arg-type]
    except ValueError as exc:
        assert reason_of(exc) == "card: Input should be a valid string (got None), and 1 more"
