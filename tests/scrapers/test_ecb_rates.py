"""The ECB's euro reference rates history (scrapers.ecb) read as daily CNY per USD, on a real
capture of ``eurofxref-hist.csv`` (tests/fixtures/real/ecb/README.md says where it comes from).

The expected rates were worked out by hand from the capture's USD and CNY columns (both per
euro): CNY per USD = CNY / USD, to 6 decimals, half-up."""

from __future__ import annotations

import io
import zipfile
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapers.ecb import ecb_source, parse_ecb_history
from scrapers.fx import FxRates
from scrapers.rows import ParseError

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "ecb" / "eurofxref-hist.csv"
BODY = CAPTURE.read_bytes()
HEADER = BODY.split(b"\n", 1)[0]
D = Decimal

# day: (USD per EUR, CNY per EUR) as the capture lists them → CNY per USD
BY_HAND = {
    date(2025, 5, 9): D("7.240491"),  # 8.147 / 1.1252 = 7.2404905...
    date(2024, 12, 24): D("7.296104"),  # 7.5843 / 1.0395 = 7.2961038...
    date(2023, 1, 2): D("6.898624"),  # 7.3698 / 1.0683 = 6.8986239...
    date(2005, 4, 1): D("8.276487"),  # 10.7255 / 1.2959 = 8.2764873... (CNY's first day)
}


def zipped(name: str, body: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, body)
    return out.getvalue()


def test_the_real_capture_gives_each_days_cny_per_usd() -> None:
    rates = parse_ecb_history(BODY, "eurofxref-hist.csv")
    by_day = {r.day: r for r in rates}
    for day, expected in BY_HAND.items():
        assert by_day[day].cny_per_unit == expected, day
        assert by_day[day].currency == "USD"
    assert rates[0].day == date(2005, 4, 1) and rates[-1].day == date(2025, 5, 9)
    assert [r.day for r in rates] == sorted(by_day)  # oldest first, one per day
    # 608 rows from 2022-12-20 to 2025-05-09, and 2005-04-01..06 (4 days with a CNY figure)
    assert len(rates) == 612
    assert {r.source for r in rates} == {ecb_source("eurofxref-hist.csv")}
    assert "ECB" in rates[0].source and "eurofxref-hist.csv" in rates[0].source


def test_a_day_whose_cny_is_na_is_skipped() -> None:
    rates = parse_ecb_history(BODY, "eurofxref-hist.csv")
    days = {r.day for r in rates}
    # the capture's 2005-03-24..31 rows hold N/A for CNY (the ECB quotes it from 2005-04-01)
    assert date(2005, 3, 31) not in days and date(2005, 3, 24) not in days
    # columns of currencies no longer quoted (CYP, EEK, ... all N/A since) are not read at all
    assert date(2025, 5, 9) in days


def test_holidays_have_no_rate_and_take_the_nearest_earlier_one() -> None:
    rates = parse_ecb_history(BODY, "eurofxref-hist.csv")
    days = {r.day for r in rates}
    # TARGET closes on 25-26 December and from Good Friday to Easter Monday
    assert date(2024, 12, 25) not in days and date(2024, 12, 26) not in days
    assert date(2025, 4, 18) not in days and date(2025, 4, 21) not in days
    lookup = FxRates(tuple(rates))
    assert lookup.rate("USD", date(2024, 12, 26)).day == date(2024, 12, 24)
    assert lookup.rate("USD", date(2024, 12, 26)).cny_per_unit == D("7.296104")
    # 2025-04-17: 8.29 / 1.136 = 7.2975352...
    assert lookup.rate("USD", date(2025, 4, 21)).cny_per_unit == D("7.297535")
    # 2025-04-22: 8.3929 / 1.1476 = 7.3134367...
    assert lookup.rate("USD", date(2025, 4, 22)).cny_per_unit == D("7.313437")


def test_the_zip_the_ecb_serves_reads_the_same() -> None:
    url = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"
    from_zip = parse_ecb_history(zipped("eurofxref-hist.csv", BODY), url)
    from_csv = parse_ecb_history(BODY, url)
    assert from_zip == from_csv and url in from_zip[0].source


def test_crlf_and_a_header_without_the_trailing_comma_read_the_same() -> None:
    lines = BODY.decode().splitlines()
    variant = "\r\n".join([lines[0].rstrip(","), *lines[1:]]).encode()
    assert parse_ecb_history(variant, "x") == parse_ecb_history(BODY, "x")


ROW = b"2025-05-09,1.1252,163.36,8.147,"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty file"),
        (b"\n\n", "empty file"),
        (b"Day,USD,CNY,\n" + ROW, "first column is 'Day'"),
        (b"Date,JPY,CNY,\n2025-05-09,163.36,8.147,", "no USD column"),
        (b"Date,USD,JPY,\n2025-05-09,1.1252,163.36,", "no CNY column"),
        (b"Date,USD,JPY,CNY,\n2025-05-09,1.1252,163.36,eight,", "CNY 'eight' is not a number"),
        (b"Date,USD,JPY,CNY,\n2025-05-09,-1.1,163.36,8.147,", "not a positive rate"),
        (b"Date,USD,CNY,\n2025-05-09,99999999,0.0001,", "out of range"),
        (b"Date,USD,CNY,\n2025-05-09,0.0001,99999999,", "out of range"),
        (b"Date,USD,JPY,CNY,\n09/05/2025,1.1252,163.36,8.147,", "not a day YYYY-MM-DD"),
        (b"Date,USD,JPY,CNY,\n2025-13-09,1.1252,163.36,8.147,", "not a day YYYY-MM-DD"),
        (b"Date,USD,JPY,CNY,\n2025-05-09,1.1252", "fewer than the header"),
        (b"Date,USD,JPY,CNY,\n" + ROW + b"\n" + ROW, "appears twice"),
        (b"Date,USD,JPY,CNY,\n2025-05-09,N/A,163.36,N/A,", "no day with both"),
        (b"Date,USD,JPY,CNY,\n", "no day with both"),
        (b"\xff\xfeD\x00a\x00", "not a UTF-8 CSV"),
        (b"PK\x03\x04broken", "not a readable zip"),
        (zipped("readme.txt", b"hello"), "a zip with 0 CSV files"),
        (b"<html><body>Not found</body></html>", "first column is"),
    ],
)
def test_broken_input_is_one_line_parse_error(body: bytes, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_ecb_history(body, "in.csv")
    text = str(caught.value)
    assert message in text and "\n" not in text and text.startswith("in.csv: ")


def test_the_real_header_is_the_documented_one() -> None:
    cells = HEADER.decode().split(",")
    assert cells[:3] == ["Date", "USD", "JPY"] and "CNY" in cells and cells[-1] == ""


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    cut=st.integers(min_value=0, max_value=4000),
    at=st.integers(min_value=0, max_value=3999),
    byte=st.binary(min_size=0, max_size=3),
)
def test_a_mangled_capture_parses_or_is_a_parse_error(cut: int, at: int, byte: bytes) -> None:
    head = BODY[:4000]
    body = head[:at] + byte + head[at + 1 : cut] if at < cut else head[:cut]
    try:
        rates = parse_ecb_history(body, "in.csv")
    except ParseError as exc:
        assert "\n" not in str(exc)
    else:
        assert rates and all(r.cny_per_unit > 0 for r in rates)
