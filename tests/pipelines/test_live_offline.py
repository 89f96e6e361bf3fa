"""`GPUPRICE_PROFILE=live gpuprice run` on a machine with no internet: every live source is
reported unreachable within a bounded time and recorded in scrape_run; without its secret a
source is "not configured" (skipped), not failed."""

from __future__ import annotations

import os
import socket
from collections import Counter
from pathlib import Path

import pytest

from configuration.settings import load_settings
from gpuprice.jobs import JobRunner
from scrapers.sources import lambda_cloud
from tests.support.client_record import ClientRecord, record_client, stop_client_clock
from tests.support.live_settings import (
    FAST_HTTP,
    LIVE_SOURCES,
    closed_port,
    settings_from,
    silent_port,
    sources,
)
from tests.support.loopback import LoopbackServer, reply
from warehouse.store.db import read_frame

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"

pytestmark = pytest.mark.e2e


def runs(settings) -> dict[str, dict]:
    frame = read_frame(
        settings.warehouse,
        "SELECT source, status, reason, pages, rows, error FROM scrape_run ORDER BY source",
    )
    return {r["source"]: r for r in frame.iter_rows(named=True)}


def assert_gave_up_at_once(
    client: ClientRecord, names: tuple[str, ...], *, attempts: int, longest_wait: float
) -> None:
    """Fast, without a clock: no request was tried more than ``attempts`` times, no source
    went past its first request, and no wait before a retry was longer than
    ``longest_wait`` seconds."""
    tries = Counter(client.attempts)
    assert tries and max(tries.values()) <= attempts, tries
    assert len(tries) <= len(names), sorted(tries)
    assert all(w <= longest_wait for w in client.waits), client.waits


def test_live_sources_on_closed_and_silent_ports_fail_fast_as_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "smm_cookie").write_text("SESSION=test\n", encoding="utf-8")
    monkeypatch.setenv("GPUPRICE_AUTODL_TOKEN", "test-token")
    monkeypatch.setenv("GPUPRICE_GPUSHARE_TOKEN", "test-token")
    monkeypatch.setenv("GPUPRICE_PPIO_API_KEY", "test-key")
    monkeypatch.setenv("GPUPRICE_UCLOUD_PUBLIC_KEY", "test-public")
    monkeypatch.setenv("GPUPRICE_UCLOUD_PRIVATE_KEY", "test-private")
    monkeypatch.setenv("GPUPRICE_LAMBDA_API_KEY", "test-key")  # else: lambda.ai's public page
    monkeypatch.delenv("GPUPRICE_SMM_COOKIE", raising=False)
    with silent_port() as silent:
        tables: dict[str, dict[str, object]] = {
            name: {"live_url": f"http://127.0.0.1:{closed_port()}"} for name in LIVE_SOURCES
        }
        tables["runpod"]["live_url"] = f"http://127.0.0.1:{silent}"  # connects, never answers
        tables["smm"]["secret_file"] = str(secrets / "smm_cookie")
        settings = settings_from(tmp_path, FAST_HTTP + sources(**tables))
        client = record_client(monkeypatch)
        result = JobRunner(settings).run()
    assert not result.success
    assert {s.source: (s.status, s.reason) for s in result.sources} == {
        name: ("failed", "unreachable") for name in LIVE_SOURCES
    }
    # Fast: each source gives up on its first request after one retry (retries and
    # connect_retries 1), and only the 0.05 s backoff is waited between the two.
    assert_gave_up_at_once(client, LIVE_SOURCES, attempts=2, longest_wait=0.1)
    recorded = runs(settings)
    assert set(recorded) == set(LIVE_SOURCES)
    for name, run in recorded.items():
        assert (run["status"], run["reason"], run["rows"]) == ("failed", "unreachable", 0), name
        assert run["error"].startswith("fetch failed after 0 page(s) (unreachable)")
    assert "timed out" in recorded["runpod"]["error"]
    assert "ConnectError" in recorded["vastai"]["error"]
    assert read_frame(settings.warehouse, "SELECT count(*) FROM raw_page").item() == 0


def test_without_their_secrets_smm_and_autodl_are_not_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for env in ("GPUPRICE_SMM_COOKIE", "GPUPRICE_AUTODL_TOKEN"):
        monkeypatch.delenv(env, raising=False)
        monkeypatch.delenv(f"{env}_FILE", raising=False)
    url = f"http://127.0.0.1:{closed_port()}"  # never contacted
    settings = settings_from(
        tmp_path, FAST_HTTP + sources(smm={"live_url": url}, autodl={"live_url": url})
    )
    result = JobRunner(settings).run()
    assert result.success and result.failed == []
    recorded = runs(settings)
    assert {n: (r["status"], r["reason"]) for n, r in recorded.items()} == {
        "smm": ("skipped", "not_configured"),
        "autodl": ("skipped", "not_configured"),
    }
    assert "GPUPRICE_SMM_COOKIE" in recorded["smm"]["error"]
    assert "GPUPRICE_AUTODL_TOKEN" in recorded["autodl"]["error"]


DEFAULT_HOSTS = (
    "www.jygpu.com", "hq.smm.cn", "console.vast.ai", "api.runpod.io", "matgo.cn",
    "www.autodl.com", "cloud.lambdalabs.com", "lambda.ai", "raw.githubusercontent.com",
    "api.gpushare.com", "api.ppinfra.com", "api.compshare.cn",
)  # fmt: skip


PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


def _resolves(host: str) -> bool:
    try:
        socket.getaddrinfo(host, 443)
    except OSError:
        return False
    return True


def test_the_real_default_urls_fail_fast_on_a_machine_without_internet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if any(os.environ.get(v) for v in PROXY_VARIABLES):
        pytest.skip("an HTTP proxy is configured: the real sites might be reached, not run")
    if any(_resolves(host) for host in DEFAULT_HOSTS):
        pytest.skip("this machine resolves the live sites' names: not offline, not run")
    monkeypatch.setenv("GPUPRICE_SMM_COOKIE", "SESSION=test")
    monkeypatch.setenv("GPUPRICE_AUTODL_TOKEN", "test-token")
    monkeypatch.setenv("GPUPRICE_GPUSHARE_TOKEN", "test-token")
    monkeypatch.setenv("GPUPRICE_PPIO_API_KEY", "test-key")
    monkeypatch.setenv("GPUPRICE_UCLOUD_PUBLIC_KEY", "test-public")
    monkeypatch.setenv("GPUPRICE_UCLOUD_PRIVATE_KEY", "test-private")
    # The bundled gpuprice.toml as it is: the real URLs and the shipped timeouts and retries.
    settings = load_settings(None, home=tmp_path / "home", profile="live")
    assert settings.source_url("vastai") == "https://console.vast.ai"
    client = record_client(monkeypatch)
    clock = stop_client_clock(monkeypatch)
    result = JobRunner(settings).run()
    assert {s.source: (s.status, s.reason) for s in result.sources} == {
        name: ("failed", "unreachable") for name in LIVE_SOURCES
    }
    # About 8 s for the eleven sources, Dagster included: DNS fails at once, one connect
    # retry after the backoff, and no per-host interval after an attempt that reached no one.
    http = settings.file.http
    assert_gave_up_at_once(
        client, LIVE_SOURCES, attempts=http.connect_retries + 1, longest_wait=2 * http.backoff_s
    )
    assert clock.sleeps == []
    assert {r["reason"] for r in runs(settings).values()} == {"unreachable"}


def test_without_its_api_key_lambda_reads_its_public_pricing_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loopback: LoopbackServer
) -> None:
    monkeypatch.delenv("GPUPRICE_LAMBDA_API_KEY", raising=False)
    monkeypatch.delenv("GPUPRICE_LAMBDA_API_KEY_FILE", raising=False)
    page = REAL / "lambda" / "lambda_20260109103934.html"
    loopback.script("/pricing", reply(200, page.read_bytes(), {"Content-Type": "text/html"}))
    loopback.script("/api/v1/instance-types", reply(200, b'{"data": {}}'))
    monkeypatch.setattr(lambda_cloud, "PRICING_URL", f"{loopback.url}/pricing")
    settings = settings_from(
        tmp_path, FAST_HTTP + sources(**{"lambda": {"live_url": loopback.url}})
    )
    result = JobRunner(settings).run()
    assert result.success, result
    assert [h.split("?")[0] for h in loopback.hits if "robots" not in h] == ["/pricing"]
    recorded = runs(settings)
    assert (recorded["lambda"]["status"], recorded["lambda"]["rows"]) == ("ok", 5)
    prices = read_frame(
        settings.warehouse,
        "SELECT gpu_name_raw, gpu_count, price FROM offer WHERE source = 'lambda' ORDER BY price",
    )
    assert prices.height == 5 and prices["price"].min() > 0
