"""Every adapter declares what the protocol in scrapers.sources.base asks for, so the pipeline
reads its kind and its secrets as attributes, never by probing its type."""

from __future__ import annotations

from typing import get_args

import pytest

from scrapers.sources import ADAPTER_NAMES, build_adapter
from scrapers.sources.base import KeyPairSpec, Kind, SecretSpec, SourceAdapter

ALL = {
    **{n: build_adapter(n) for n in ADAPTER_NAMES},
    "generic": build_adapter("example", "generic"),
}


@pytest.mark.parametrize("name", sorted(ALL))
def test_an_adapter_declares_kind_currency_and_both_secret_slots(name: str) -> None:
    adapter: SourceAdapter = ALL[name]
    assert adapter.kind in get_args(Kind)
    assert adapter.currency in ("CNY", "USD")
    assert adapter.secret is None or isinstance(adapter.secret, SecretSpec)
    assert adapter.key_pair is None or isinstance(adapter.key_pair, KeyPairSpec)
    assert adapter.secret is None or adapter.key_pair is None  # one way in, not two


def test_only_compshare_signs_its_requests_with_a_key_pair() -> None:
    signed = {name for name, adapter in ALL.items() if adapter.key_pair is not None}
    assert signed == {"compshare"}
    pair = ALL["compshare"].key_pair
    assert pair is not None
    assert pair.envs == ("GPUPRICE_UCLOUD_PUBLIC_KEY", "GPUPRICE_UCLOUD_PRIVATE_KEY")


def test_a_header_secret_names_its_one_variable() -> None:
    spec = SecretSpec(env="GPUPRICE_X_TOKEN", header="Authorization", what="token")
    assert spec.envs == ("GPUPRICE_X_TOKEN",)
