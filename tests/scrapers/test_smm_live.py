"""SMM 算力专区 live: the login cookie is the adapter's declared secret; a login page where
the quotes should be says so (and is a parse error, never rows)."""

from __future__ import annotations

from datetime import datetime

import pytest

from scrapers.rows import ParseError
from scrapers.sources.smm import SmmAdapter
from tests.support.fixture_pages import read as read_demo
from tests.support.live_fixtures import SMM_LOGIN, read

URL = "https://hq.smm.cn/compute/quotes"
FETCHED = datetime(2026, 9, 4, 3, 0)


def test_the_cookie_is_a_declared_secret_sent_as_a_header() -> None:
    spec = SmmAdapter().secret
    assert spec is not None and spec.env == "GPUPRICE_SMM_COOKIE"
    assert spec.headers("SESSION=abc; uid=1") == {"Cookie": "SESSION=abc; uid=1"}


def test_a_login_page_is_a_parse_error_that_names_the_cookie() -> None:
    with pytest.raises(ParseError, match="login page .*GPUPRICE_SMM_COOKIE"):
        SmmAdapter().parse(read(SMM_LOGIN), URL, FETCHED)


def test_the_live_page_format_is_the_demo_format_without_the_simulated_marker() -> None:
    rows = SmmAdapter().parse(read_demo("smm_quotes_not_simulated.html"), URL, FETCHED)
    assert rows and not any(r.simulated for r in rows)
    assert {r.quote_kind for r in rows} == {"market_average"} and {r.currency for r in rows} == {
        "CNY"
    }
