"""Secrets: the SMM cookie and the notification URLs come only from the environment or a
file outside the repository, and never show up in the warehouse, the Dagster event log, the
logs or error messages; services bind to 127.0.0.1 by default."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from configuration.log_redaction import install as install_log_redaction
from configuration.log_redaction import register_secrets
from configuration.secrets import PROJECT_ROOT
from configuration.settings import ConfigError, load_settings
from demo.market import DemoMarket
from gpuprice.jobs import JobRunner
from scrapers.redaction import MARKER
from tests.support.handles import warehouse_at
from tests.support.loopback import LoopbackServer, reply
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e
COOKIE = "SESSION=cookie-secret-7f3a9"
TOKEN = "token-secret-b41c"


def live_config(tmp_path: Path, smm_url: str) -> Path:
    path = tmp_path / "gpuprice.toml"
    off = "".join(
        f"[sources.{name}]\nenabled = false\n" for name in ("jygpu", "vastai", "runpod", "matpool")
    )
    path.write_text(
        "[http]\nconnect_timeout_s = 1\nread_timeout_s = 2\nretries = 0\nmin_interval_s = 0\n"
        f'[sources.smm]\nlive_url = "{smm_url}"\n'
        f"{off}[sources.autodl]\nenabled = false\n",
        encoding="utf-8",
    )
    return path


def test_cookie_and_notify_urls_never_leak(
    loopback: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: dict[str, str] = {}

    def login_page(handler) -> None:
        seen["cookie"] = handler.headers.get("Cookie", "")
        body = b"<html><body><form id='login'>please log in</form></body></html>"
        reply(200, body, {"Content-Type": "text/html; charset=utf-8"})(handler)

    loopback.script("/compute/quotes", login_page)
    monkeypatch.setenv("GPUPRICE_SMM_COOKIE", COOKIE)
    # an unreachable webhook carrying a token: delivery fails and its error is recorded
    monkeypatch.setenv("GPUPRICE_NOTIFY_URLS", f"json://127.0.0.1:9/{TOKEN}")
    settings = load_settings(
        live_config(tmp_path, loopback.url), home=tmp_path / "home", profile="live"
    )
    runner = JobRunner(settings)
    with caplog.at_level(logging.DEBUG):
        result = runner.run()
    assert seen["cookie"] == COOKIE  # it was sent …
    smm = {s.source: s for s in result.sources}["smm"]
    assert smm.status == "failed" and smm.reason == "drift"

    # … and is nowhere else: warehouse, Dagster's event log, Python logs
    path = settings.warehouse
    tables = read_frame(warehouse_at(path), "SELECT table_name FROM information_schema.tables")[
        "table_name"
    ]
    dumps = []
    for table in tables:
        frame = read_frame(warehouse_at(path), f'SELECT * FROM "{table}"')
        dumps.append(str(frame.to_dicts()))
    alerts = read_frame(warehouse_at(path), "SELECT kind, attempts, last_error FROM alert")
    assert alerts.height == 1 and alerts["attempts"][0] >= 1  # the delivery was tried
    events = [str(e) for e in runner.instance.all_logs(result.dagster_run_id)]
    text = "\n".join(dumps + events + [r.getMessage() for r in caplog.records] + [caplog.text])
    for secret in (COOKIE, "cookie-secret-7f3a9", TOKEN):
        assert secret not in text


def test_secrets_are_refused_inside_the_repository(tmp_path: Path) -> None:
    inside = tmp_path / "in.toml"
    inside.write_text(
        f'[sources.smm]\nsecret_file = "{PROJECT_ROOT / "cookie.txt"}"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError, match="inside the repository"):
        load_settings(inside, home=tmp_path)
    urls = tmp_path / "urls.toml"
    urls.write_text('[notify]\nurls = ["json://x/y"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="secrets"):
        load_settings(urls, home=tmp_path)


def test_services_bind_to_loopback_by_default(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path)
    assert settings.file.services.host == "127.0.0.1"
    assert settings.file.demo_market.host == "127.0.0.1"
    with DemoMarket(jygpu_port=0, smm_port=0).start() as market:
        assert market.jygpu_url.startswith("http://127.0.0.1:")
        assert market.smm_url.startswith("http://127.0.0.1:")
    stack = (PROJECT_ROOT / "gpuprice" / "stack.py").read_text(encoding="utf-8")
    assert '"--server.address",\n                services.host' in stack
    assert '"-h",\n                services.host' in stack


def test_secret_values_are_every_configured_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "secrets"
    outside.mkdir()
    (outside / "autodl").write_text("autodl-token-from-file-1\n", encoding="utf-8")
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f'[sources.autodl]\nsecret_file = "{outside / "autodl"}"\n'
        f'[sources.smm]\nsecret_file = "{outside / "missing"}"\n',  # unreadable: left out
        encoding="utf-8",
    )
    for env in ("GPUPRICE_SMM_COOKIE", "GPUPRICE_AUTODL_TOKEN", "GPUPRICE_NOTIFY_URLS_FILE"):
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("GPUPRICE_UCLOUD_PUBLIC_KEY", "ucloud-public-1234")
    monkeypatch.setenv("GPUPRICE_UCLOUD_PRIVATE_KEY", "ucloud-private-5678")
    monkeypatch.setenv("GPUPRICE_PPIO_API_KEY", "ppio-key-abcdef")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_ci0123456789")
    monkeypatch.setenv("GPUPRICE_NOTIFY_URLS", "json://hooks.example/services/T0KEN42xyz")
    values = load_settings(config, home=tmp_path / "home").secret_values()
    for secret in (
        "autodl-token-from-file-1",
        "ucloud-public-1234",
        "ucloud-private-5678",  # both halves of the key pair
        "ppio-key-abcdef",
        "ghp_ci0123456789",
        "json://hooks.example/services/T0KEN42xyz",
        "T0KEN42xyz",  # the token part of the URL alone: an error may quote only the path
    ):
        assert secret in values, secret
    assert "services" not in values  # a word of the path, not a credential


def test_every_log_record_is_masked_whatever_its_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    install_log_redaction()
    register_secrets(["canary-in-a-log-9f1"])
    logger = logging.getLogger("some.library.nobody.filters")
    with caplog.at_level(logging.INFO, logger="some.library.nobody.filters"):
        logger.info("token is %s", "canary-in-a-log-9f1")
        try:
            raise ValueError("bad key canary-in-a-log-9f1")
        except ValueError:
            logger.exception("failed")
    text = caplog.text
    assert "canary-in-a-log-9f1" not in text
    assert text.count(MARKER) >= 2 and "ValueError" in text  # the traceback, masked
