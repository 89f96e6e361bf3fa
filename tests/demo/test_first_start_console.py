"""What the first start (`gpuprice up` / `make up`) says on the console, in words a newcomer
follows (issue 38): each demo market it starts is explained; each import says what it read,
how many items of which days, how many prices; the seeding's closing line calls the demo's
deliberate layout days what they are and names every day that really failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from configuration.first_start import read_status
from demo.autostart import private_notice
from demo.history_seed import NAMED_DAYS, _finish, _Progress
from demo.market import DemoMarket
from demo.market.platforms import layout_change_days
from demo.market.prices import DEFAULT_SEED
from demo.real_history import _rates_line, demo_requests, import_line
from gpuprice.stack import _what
from scrapers.fx import FxRate
from tests.demo.test_first_start import bundled_settings


@dataclass
class Source:
    source: str
    reason: str | None = "drift"
    rows_added: int = 0


@dataclass
class Day:
    as_of: date
    failed: list[Source] = field(default_factory=list)

    @property
    def sources(self) -> list[Source]:
        return self.failed


def _progress(tmp_path: Path, days: list[date]) -> _Progress:
    layout = {(s, d) for s in ("ppio", "matpool") for d in layout_change_days(DEFAULT_SEED, s)}
    return _Progress(tmp_path, days, lambda day, source: f"{day.as_of} {source.source}",
                     lambda source, day: (source, day) in layout)  # fmt: skip


def test_deliberate_layout_days_are_not_called_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ppio = sorted(layout_change_days(DEFAULT_SEED, "ppio"))[:3]
    progress = _progress(tmp_path, ppio)
    for day in ppio:
        progress.on_day(Day(day, [Source("ppio")]))
    assert _finish(progress) == 0
    closing = capsys.readouterr().out.splitlines()[-1]
    assert closing.startswith("history: done, 3 days seeded; 3 of them had a platform in a "
                              "deliberately changed layout")  # fmt: skip
    assert "failed" not in closing and "nothing to do" in closing
    status = read_status(tmp_path)
    assert status is not None and status.state == "done" and status.error is None


def test_real_failures_are_counted_and_every_day_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "done, 11 day(s) had failed sources" listed 5 dates."""
    first = date(2026, 9, 4)
    days = [first + timedelta(days=k) for k in range(NAMED_DAYS + 3)]
    progress = _progress(tmp_path, days)
    for day in days:  # smm unreachable every day, and matpool on a day that is no layout day
        progress.on_day(Day(day, [Source("smm", "unreachable")]))
    assert _finish(progress) == 1
    closing = capsys.readouterr().out.splitlines()[-1]
    named = ", ".join(str(d) for d in days[:NAMED_DAYS])
    assert f"{len(days)} day(s) had failed sources: {named} and 3 more" in closing
    # a layout day on which the source failed for another reason is a real failure
    layout = min(layout_change_days(DEFAULT_SEED, "matpool"))
    other = _progress(tmp_path / "b", [layout])
    other.on_day(Day(layout, [Source("matpool", "unreachable")]))
    assert _finish(other) == 1
    assert f"1 day(s) had failed sources: {layout} " in capsys.readouterr().out


def test_each_import_is_said_in_words() -> None:
    runpod, _lambda, skypilot, csv = demo_requests("http://127.0.0.1:9")
    row = {"parsed": 3, "failed": 0, "rows_added": 125, "first_day": date(2023, 9, 29),
           "last_day": date(2026, 8, 10)}  # fmt: skip
    assert import_line(runpod, row, "ok") == (
        "real history: RunPod's pricing page as the Internet Archive captured it: 3 captures "
        "from 2023-09-29 to 2026-08-10, 125 prices added"
    )
    assert import_line(skypilot, row | {"parsed": 1, "failed": 2}, "partial").startswith(
        "real history: SkyPilot's catalog of Lambda's prices, version by version on GitHub: "
        "1 version from 2023-09-29"
    )
    assert import_line(skypilot, row | {"failed": 2}, "partial").endswith(
        "; 2 versions could not be read (the Data coverage page lists them)"
    )
    assert import_line(csv, row | {"rows_added": 0}, "ok") == (
        "real history: two days of a public price tracker's CSV (gpu_price_track): already "
        "imported, nothing new"
    )
    assert "not imported (failed;" in import_line(csv, None, "failed")
    for line in (import_line(r, row, "ok") for r in (runpod, skypilot, csv)):
        assert "listed" not in line and "fetched" not in line and "one a day" not in line


def test_the_rates_say_what_they_are_for() -> None:
    days = [date(2005, 4, 1), date(2023, 1, 2), date(2023, 1, 3)]
    rates = [FxRate(day, "USD", Decimal("7.1"), "ECB") for day in days]
    line = _rates_line(3, rates)
    assert "USD→CNY reference rate on 3 business days from 2005-04-01 to 2023-01-03" in line
    assert "to convert the real prices listed in USD below into CNY" in line
    assert "rate(s) stored" not in line
    assert _rates_line(0, rates).endswith("already stored")


def test_each_demo_market_is_explained(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    started = _what("demo-market", settings)
    assert f"http://127.0.0.1:{ports['jygpu']}" in started and "SIMULATED" in started
    assert "hourly schedule" in started
    with DemoMarket(jygpu_port=0, smm_port=0, platforms_port=0).start() as market:
        notice = private_notice(settings, market, {"jygpu": "jygpu", "runpod": "platforms"})
    assert notice.startswith("this command reads its own copy of the demo market")
    assert f"ports {ports['jygpu']}, {ports['smm']}, {ports['platforms']}" in notice
    assert "极智算 (jygpu) on port" in notice and "the other platforms on port" in notice
    assert "SMM" not in notice  # no source of this command reads it
    assert "depends on no other process" in notice
