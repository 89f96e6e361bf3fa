"""The first start: `gpuprice run` / `backfill` serve the bundled demo market themselves, and
`gpuprice up`'s history seeding fills past days and reports its progress in the status file."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from configuration.first_start import read_status
from configuration.settings import Settings, load_settings
from demo.autostart import bundled_market_ports, demo_market_if_needed, port_answers
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


def test_bundled_ports_are_those_the_demo_sources_read(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    assert bundled_market_ports(settings) == sorted(
        ("127.0.0.1", ports[name]) for name in ("jygpu", "smm")
    )
    live, _ = bundled_settings(tmp_path / "live", profile="live")
    assert bundled_market_ports(live) == []


def test_a_source_pointing_elsewhere_means_the_market_is_not_ours(tmp_path: Path) -> None:
    with DemoMarket(jygpu_port=0, smm_port=0).start() as market:
        settings = demo_settings(market, tmp_path)  # free ports, not [demo_market]'s
        assert bundled_market_ports(settings) == []
        notices: list[str] = []
        with demo_market_if_needed(settings, notices.append) as started:
            assert started is False
        assert notices == []


def test_run_starts_the_market_itself_and_stops_it_after(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    assert not listening(ports["jygpu"])
    notices: list[str] = []
    result = JobRunner(settings, say=notices.append).run()
    assert {s.source: s.status for s in result.sources} == {"jygpu": "ok", "smm": "ok"}
    assert len(notices) == 1 and "SIMULATED" in notices[0], notices
    assert not listening(ports["jygpu"]) and not listening(ports["smm"])


def test_a_running_market_is_used_not_started_again(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    cfg = settings.file.demo_market
    with DemoMarket(
        cfg.host, cfg.jygpu_port, cfg.smm_port, cfg.seed, platforms_port=cfg.platforms_port
    ):
        notices: list[str] = []
        with demo_market_if_needed(settings, notices.append) as started:
            assert started is False
        assert notices == []
        assert listening(ports["jygpu"])


def test_a_port_held_by_another_program_is_said_not_raised(tmp_path: Path) -> None:
    settings, ports = bundled_settings(tmp_path)
    # Something else holds the platforms port (not one the demo sources read): binding fails.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", ports["platforms"]))
        holder.listen()
        notices: list[str] = []
        with demo_market_if_needed(settings, notices.append) as started:
            assert started is False
        assert len(notices) == 1 and "could not start" in notices[0], notices
        assert "gpuprice demo-market" in notices[0]
    assert not listening(ports["jygpu"])


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


def test_seeding_records_failed_days_for_the_dashboard(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # smm points at a port nobody serves, so the bundled market is not started for it either
    settings, _ = bundled_settings(tmp_path, smm_url=f"http://127.0.0.1:{free_port()}")
    with DemoMarket(jygpu_port=settings.file.demo_market.jygpu_port, smm_port=0):
        assert seed_with_jobs(settings, days=2) == 1
    status = read_status(settings.home)
    assert status is not None and status.state == "done"
    assert status.error is not None and "2 day(s) had failed sources" in status.error
    out = capfd.readouterr()
    assert out.out.count(" smm failed (unreachable)") == 2, out.out
    assert "dagster" not in out.err.lower(), out.err  # its own lines, not Dagster's log


def test_live_profile_never_seeds(tmp_path: Path) -> None:
    live, _ = bundled_settings(tmp_path, profile="live")
    assert not needs_history(live)
