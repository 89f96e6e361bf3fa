"""`gpuprice fx import` against hostile servers on loopback and absurd files (issue 40).

Before, the command fetched with its own `httpx.Client(follow_redirects=True)`: it followed a
redirect to a loopback service and printed the start of its answer, sent a request to
169.254.169.254, had no total deadline (a 1-byte/s body ran past 150 s) and read a whole
body before checking its size (2 GB resident on a gzip bomb). It also stored 999,999 and
0.000001 CNY per USD, after which that day's USD offers were refused as 6.7 M CNY a
card-hour. Now it fetches through the one door (configuration.outbound) and every rate is
screened (warehouse.ingest.fx_rates)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from configuration.settings import load_settings
from gpuprice.cli import app
from scrapers.collect import ParsedPage, Snapshot
from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from scrapers.http import FetchedPage
from tests.scrapers.hostile_http import Sent, endless, gzip_bomb, serve, slow_body
from tests.support.listed_usd import ListedAdapter
from tests.support.loopback import reply
from warehouse.ingest.fx_rates import read_rates
from warehouse.ingest.load import load_snapshot
from warehouse.store.db import read_connection, read_frame
from warehouse.store.handle import Warehouse

runner = CliRunner()
INTERNAL = b'{"AccessKeyId": "ASIAINTERNALONLY", "Token": "internal-only-answer"}'
HEADER = "Date,USD,CNY,\n"


@pytest.fixture
def warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Warehouse]:
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        "[http]\nconnect_timeout_s = 1\nread_timeout_s = 2\nretries = 0\nmin_interval_s = 0\n"
        "total_deadline_s = 2\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GPUPRICE_CONFIG", str(config))
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)
    yield load_settings(None).warehouse


def _usd(warehouse: Warehouse) -> dict[date, Decimal]:
    with read_connection(warehouse) as con:
        return {r.day: r.cny_per_unit for r in read_rates(con) if r.currency == "USD"}


# -- the door -------------------------------------------------------------------------------


@pytest.mark.parametrize("internal", ["loopback", "metadata"])
def test_a_redirect_inside_the_network_is_refused_before_it_is_sent(
    warehouse: Warehouse, internal: str
) -> None:
    with serve() as service, serve() as ecb:
        service.routes["/latest/meta-data"] = reply(200, INTERNAL)
        target = {
            "loopback": f"{service.url}/latest/meta-data",
            "metadata": "http://169.254.169.254/latest/meta-data",
        }[internal]
        ecb.routes["/eurofxref-hist.zip"] = reply(302, b"", {"Location": target})
        result = runner.invoke(app, ["fx", "import", f"{ecb.url}/eurofxref-hist.zip"])
    assert result.exit_code == 2, result.output
    assert service.seen == []
    assert "refused" in result.stderr and "internal address" in result.stderr
    assert "AccessKeyId" not in result.output and "internal-only" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_body_trickling_in_ends_at_the_total_deadline(warehouse: Warehouse) -> None:
    sent = Sent()
    with serve() as ecb:
        # 4,000 bytes a byte every 5 ms: 20 s if waited for; the deadline is 2 s
        ecb.routes["/eurofxref-hist.csv"] = slow_body(sent, size=4000, every_s=0.005)
        result = runner.invoke(app, ["fx", "import", f"{ecb.url}/eurofxref-hist.csv"])
    assert result.exit_code == 2, result.output
    assert "deadline" in result.stderr and "(timeout)" in result.stderr
    assert not sent.finished


@pytest.mark.parametrize("kind", ["gzip bomb", "endless body"])
def test_a_huge_answer_stops_at_the_limit_in_bounded_memory(
    warehouse: Warehouse, kind: str
) -> None:
    with serve() as ecb:
        if kind == "gzip bomb":  # 256 MB once inflated, about 250 KB on the wire
            bomb = gzip_bomb(HEADER.encode(), b"2025-05-09,1.1252,8.147,\n", 256)
            ecb.routes["/x"] = reply(200, bomb, {"Content-Encoding": "gzip"})
        else:  # 96 MB, then the server would go on
            ecb.routes["/x"] = endless(Sent(), HEADER.encode(), b"2025-05-09,1,7,\n", 96 << 20)
        tracemalloc.start()
        try:
            result = runner.invoke(app, ["fx", "import", f"{ecb.url}/x"])
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert result.exit_code == 2, result.output
    assert "larger than 8000000 bytes" in result.stderr
    assert peak < 48 << 20, f"{peak / 2**20:.0f} MB traced"  # the limit is 8 MB


# -- values with bounds ---------------------------------------------------------------------


def test_rates_outside_the_plausible_band_are_refused_with_one_line(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    file = tmp_path / "eurofxref-hist.csv"
    file.write_text(
        HEADER + "2025-05-09,1,999999,\n2025-05-08,1000000,1,\n2025-05-07,1.1252,8.147,\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["fx", "import", str(file)])
    assert result.exit_code == 1, result.output
    refused = [line for line in result.stderr.splitlines() if "refused" in line]
    assert len(refused) == 1 and "2 rate(s) refused" in refused[0]
    assert "999999" in refused[0] and "outside the plausible band 5.5 .. 9.5" in refused[0]
    assert _usd(warehouse) == {date(2025, 5, 7): Decimal("7.240491")}  # 8.147 / 1.1252


def test_a_rate_that_jumps_in_a_day_is_held_and_not_used(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    file = tmp_path / "eurofxref-hist.csv"
    file.write_text(
        HEADER + "2025-05-09,1,7.21,\n2025-05-08,1,8.70,\n2025-05-07,1,7.20,\n2025-05-06,1,7.19,\n",
        encoding="utf-8",
    )  # newest first, as the ECB writes it: the 8th moved 20.8% from the 7th, and back
    result = runner.invoke(app, ["fx", "import", str(file)])
    assert result.exit_code == 1, result.output
    assert "1 rate(s) held: 2025-05-08 8.7" in result.stderr
    assert date(2025, 5, 8) not in _usd(warehouse)
    held = read_frame(warehouse, "SELECT day, status FROM fx_rate_held").rows()
    assert held == [(date(2025, 5, 8), "held")]
    listed = runner.invoke(app, ["fx", "list", "--held"])
    assert "2025-05-08" in listed.stdout and "moved 20.8%" in listed.stdout
    # a USD offer of that day is converted at the day before's rate, not the held one
    at = datetime(2025, 5, 8, 12)
    page = FetchedPage("https://cloud.example/p", 200, b"2", "text/html", at)
    parsed = ParsedPage(page, ListedAdapter().parse(b"2", page.url, at), None)
    default = FxRate(date(2025, 1, 1), "USD", Decimal("7.1"), f"{CONFIGURED_DEFAULT}: test")
    summary = load_snapshot(
        warehouse, Snapshot("examplecloud", "offers", at, None, [parsed]), profile="live",
        fx_defaults=(default,),
    )  # fmt: skip
    assert summary.status == "ok", summary.error
    cny = read_frame(warehouse, "SELECT cny_per_card_hour FROM offer")["cny_per_card_hour"]
    assert cny.to_list() == [Decimal("14.400000")]  # 2 × 7.20
    # accepted by hand, it is stored
    accepted = runner.invoke(app, ["fx", "accept", "2025-05-08"])
    assert accepted.exit_code == 0, accepted.output
    assert _usd(warehouse)[date(2025, 5, 8)] == Decimal("8.7")


def test_a_real_change_of_level_is_confirmed_by_the_days_after_it(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    file = tmp_path / "eurofxref-hist.csv"
    days = ["2025-05-12,1,8.01,", "2025-05-09,1,8.00,", "2025-05-08,1,8.02,",
            "2025-05-07,1,7.20,"]  # fmt: skip
    file.write_text(HEADER + "\n".join(days) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["fx", "import", str(file)])
    assert result.exit_code == 0, result.output  # three days agree: nothing held
    assert set(_usd(warehouse)) == {date(2025, 5, d) for d in (7, 8, 9, 12)}
