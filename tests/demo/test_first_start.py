"""The first start: `gpuprice run` / `backfill` serve the bundled demo market themselves (each
its own, on free ports), and `gpuprice up`'s history seeding fills past days and reports its
progress in the status file."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dagster as dg
import pytest

from configuration.first_start import read_status
from configuration.settings import Settings, load_settings
from demo.autostart import bundled_market_sources, port_answers, private_demo_market
from demo.history_seed import days_of_history, history_days, needs_history
from demo.market import DemoMarket
from gpuprice.history_process import seed_with_jobs
from gpuprice.jobs import JobRunner
from tests.support.demo_settings import FAST_HTTP, demo_settings
from tests.support.loopback import free_port

pytestmark = pytest.mark.e2e


def listening(port: int) -> bool:
    return port_answers("127.0.0.1", port)


OTHER_SOURCES = ("vastai", "runpod", "matpool", "autodl", "gpushare", "ppio", "compshare")
OTHER_SOURCES += ("lambda", "skypilot")


def bundled_settings(
    tmp_path: Path, profile: str = "demo", smm_url: str | None = None
) -> tuple[Settings, dict[str, int]]:
    """The two demo sources on the bundled market's own (free) ports, with nothing serving;
    the other platforms off, so each run here stays quick."""
    ports = {name: free_port() for name in ("jygpu", "smm", "platforms")}
    others = "".join(f"[sources.{name}]\nenabled = false\n" for name in OTHER_SOURCES)
    config = tmp_path / "gpuprice.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"""{FAST_HTTP}
[demo_market]
jygpu_port = {ports["jygpu"]}
smm_port = {ports["smm"]}
platforms_port = {ports["platforms"]}
[sources.jygpu]
demo_url = "http://127.0.0.1:{ports["jygpu"]}"
[sources.smm]
demo_url = "{smm_url or f"http://127.0.0.1:{ports['smm']}"}"
{others}""",
        encoding="utf-8",
    )
    return load_settings(config, home=tmp_path / "home", profile=profile), ports


def test_the_sources_reading_the_bundled_market_are_found(tmp_path: Path) -> None:
    settings, _ = bundled_settings(tmp_path)
    assert bundled_market_sources(settings) == {"jygpu": "jygpu", "smm": "smm"}
    live, _ = bundled_settings(tmp_path / "live", profile="live")
    assert bundled_market_sources(live) == {}


def test_a_source_pointing_elsewhere_is_left_alone(tmp_path: Path) -> None:
    with DemoMarket(jygpu_port=0, smm_port=0).start() as market:
        settings = demo_settings(market, tmp_path)  # free ports, not [demo_market]'s
        assert bundled_market_sources(settings) == {}
        notices: list[str] = []
        with private_demo_market(settings, notices.append) as urls:
            assert urls == {}
        assert notices == []


def test_run_serves_its_own_market_on_free_ports_and_stops_it_after(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    notices: list[str] = []
    with private_demo_market(settings, notices.append) as urls:
        assert set(urls) == {"jygpu", "smm"}
        moved = {urlsplit(url).port for url in urls.values()}
        assert not moved & set(ports.values())  # not the configured ports
        assert all(port_answers("127.0.0.1", port) for port in moved if port)
    assert not any(port_answers("127.0.0.1", port) for port in moved if port)
    assert len(notices) == 1 and "SIMULATED" in notices[0], notices

    result = JobRunner(settings, say=notices.append).run()
    assert {s.source: s.status for s in result.sources} == {"jygpu": "ok", "smm": "ok"}
    assert not listening(ports["jygpu"]) and not listening(ports["smm"])


def test_whatever_holds_the_configured_ports_is_not_used(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    # Another program answers on the configured jygpu port (a market of another command that
    # may stop any moment, or something else entirely): this command does not depend on it.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", ports["jygpu"]))
        holder.listen()
        result = JobRunner(settings, say=lambda line: None).run()
    assert {s.source: s.status for s in result.sources} == {"jygpu": "ok", "smm": "ok"}


def test_history_days_end_yesterday_oldest_first() -> None:
    today = datetime(2026, 12, 1, tzinfo=UTC).date()
    days = history_days(today, 3)
    assert days == [today - timedelta(days=3), today - timedelta(days=2), today - timedelta(1)]
    assert len(history_days(today)) == 90


def test_seeding_fills_past_days_and_records_its_progress(tmp_path: Path) -> None:
    settings, _ = bundled_settings(tmp_path)
    assert needs_history(settings)  # empty warehouse, no status yet
    assert read_status(settings.home) is None

    assert seed_with_jobs(settings, days=3) == 0  # serves the demo market itself, too

    status = read_status(settings.home)
    assert status is not None and status.state == "done" and not status.running
    assert (status.days_done, status.days_total, status.error) == (3, 3, None)
    assert status.first_day == history_days(datetime.now(UTC).date(), 3)[0].isoformat()
    assert days_of_history(settings) == 3
    assert not needs_history(settings)  # seeded once: never again
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        (run,) = instance.get_runs()  # the 3 days in one run of the backfill job
    assert (run.job_name, run.tags["gpuprice/command"]) == ("backfill_job", "history-seed")
    assert run.status == dg.DagsterRunStatus.SUCCESS


def test_seeding_records_failed_days_for_the_dashboard(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # smm points at a port nobody serves (not the bundled market's, so it stays there)
    settings, _ = bundled_settings(tmp_path, smm_url=f"http://127.0.0.1:{free_port()}")
    assert seed_with_jobs(settings, days=2) == 1
    status = read_status(settings.home)
    assert status is not None and status.state == "done"
    assert status.error is not None and "2 day(s) had failed sources" in status.error
    out = capfd.readouterr()
    failures = [line for line in out.out.splitlines() if "smm: failed" in line]
    assert len(failures) == 2, out.out  # one line per failed source-day, saying what to do
    assert all("(unreachable)" in line and "check [sources.smm]" in line for line in failures)
    assert "dagster" not in out.err.lower(), out.err  # its own lines, not Dagster's log
    assert "Traceback" not in out.out + out.err


def test_live_profile_never_seeds(tmp_path: Path) -> None:
    live, _ = bundled_settings(tmp_path, profile="live")
    assert not needs_history(live)
