"""How a live snapshot reaches a source that needs secrets (pipelines.assets.source_access):
a header, a signed key pair, public pages without an optional key, or "not configured"."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.assets import source_access, source_adapter
from scrapers.http import Request
from scrapers.sources.compshare import sign
from tests.support.live_settings import settings_from, sources

PAIR = ("GPUPRICE_UCLOUD_PUBLIC_KEY", "GPUPRICE_UCLOUD_PRIVATE_KEY")


@pytest.fixture(autouse=True)
def no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for env in (*PAIR, "GPUPRICE_AUTODL_TOKEN", "GPUPRICE_LAMBDA_API_KEY"):
        monkeypatch.delenv(env, raising=False)
        monkeypatch.delenv(f"{env}_FILE", raising=False)


def access(tmp_path: Path, source: str, **keys: object):
    settings = settings_from(
        tmp_path, sources(**{source: {"live_url": "https://x.invalid", **keys}})
    )
    return source_access(settings, source, source_adapter(settings, source), None)


def test_a_key_pair_signs_every_request_body_and_never_the_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PAIR[0], "pub-1")
    monkeypatch.setenv(PAIR[1], "priv-1")
    got = access(tmp_path, "compshare")
    assert got.not_configured is None and got.headers is None
    assert got.plan and all(isinstance(r, Request) for r in got.plan)
    for request in got.plan:
        body = dict(request.json_body)
        signature = body.pop("Signature")
        assert body.pop("PublicKey") == "pub-1"
        assert sign(body, "pub-1", "priv-1")["Signature"] == signature
        assert "pub-1" not in request.url and "priv-1" not in request.url
        assert signature not in request.url


def test_half_a_key_pair_is_not_configured_and_names_the_missing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PAIR[0], "pub-1")
    got = access(tmp_path, "compshare")
    assert got.plan is None
    assert got.not_configured is not None
    assert "GPUPRICE_UCLOUD_PRIVATE_KEY" in got.not_configured
    assert "GPUPRICE_UCLOUD_PUBLIC_KEY" not in got.not_configured


def test_one_secret_file_cannot_hold_both_keys(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "key"
    secret.parent.mkdir()
    secret.write_text("same-for-both\n", encoding="utf-8")
    got = access(tmp_path, "compshare", secret_file=str(secret))
    assert got.not_configured is not None and "GPUPRICE_UCLOUD_PUBLIC_KEY" in got.not_configured


def test_a_single_token_goes_in_its_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_AUTODL_TOKEN", "tok-1")
    got = access(tmp_path, "autodl")
    assert got.headers == {"Authorization": "tok-1"} and got.plan is None
    monkeypatch.delenv("GPUPRICE_AUTODL_TOKEN")
    assert "GPUPRICE_AUTODL_TOKEN" in (access(tmp_path, "autodl").not_configured or "")


def test_without_its_optional_key_lambda_fetches_its_public_page(tmp_path: Path) -> None:
    got = access(tmp_path, "lambda")
    assert got.not_configured is None and got.headers is None
    assert got.plan == ["https://lambda.ai/pricing"]
    assert got.note and "public pages" in got.note
