"""Source adapters by name: the name table and :func:`build_adapter`, the one factory every
caller uses (the pipeline, ``gpuprice parse``, reparse, the history imports, tests): a built-in
adapter with its default options, the generic extractor (``adapter = "generic"``) with its
source name and ``[sources.<name>.extract]`` options, or ``skypilot`` with the catalogs
``[sources.skypilot.catalog]`` names. No adapter converts money: rows carry prices as listed,
and the warehouse converts them at load.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from scrapers.sources.base import (
    SecretSpec,
    SourceAdapter,
    format_generation,
    produces_offers,
    produces_quotes,
    public_fetch_plan,
)

__all__ = [
    "ADAPTER_NAMES",
    "GENERIC",
    "SecretSpec",
    "SourceAdapter",
    "build_adapter",
    "format_generation",
    "produces_offers",
    "produces_quotes",
    "public_fetch_plan",
]

GENERIC = "generic"

# Built-in adapters (the source name is the adapter name) and where each lives. They are
# imported when first built, not with this package: every process that loads the settings
# checks source names against this table, and most (`gpuprice recommend`, the dashboard)
# never parse a page.
_ADAPTERS: dict[str, tuple[str, str]] = {
    "jygpu": ("jygpu", "JygpuAdapter"),
    "smm": ("smm", "SmmAdapter"),
    "vastai": ("vastai", "VastaiAdapter"),
    "runpod": ("runpod.adapter", "RunpodAdapter"),
    "matpool": ("matpool", "MatpoolAdapter"),
    "autodl": ("autodl", "AutodlAdapter"),
    "gpushare": ("gpushare", "GpushareAdapter"),
    "ppio": ("ppio", "PpioAdapter"),
    "compshare": ("compshare", "CompshareAdapter"),
    "lambda": ("lambda_cloud", "LambdaAdapter"),
    "skypilot": ("skypilot", "SkypilotAdapter"),
}
ADAPTER_NAMES: tuple[str, ...] = tuple(_ADAPTERS)


def build_adapter(
    source: str,
    adapter: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> SourceAdapter:
    """The adapter for ``source``: a built-in one (``adapter`` None or the source's name) or
    the generic extractor (``adapter = "generic"``, configured by ``options``); ``KeyError``
    naming the known sources for any other."""
    kind = adapter or source
    if kind == GENERIC:
        from scrapers.sources.generic.adapter import GenericAdapter, GenericOptions

        opts = dict(options or {})
        if "paths" in opts:
            opts["paths"] = tuple(opts["paths"])
        return GenericAdapter(source, GenericOptions(**opts))
    if kind != source:
        raise KeyError(
            f"source {source!r}: adapter {kind!r} can only be used by the source of that name; "
            f"a site with no adapter of its own uses adapter = {GENERIC!r}"
        )
    if kind not in _ADAPTERS:
        known = ", ".join(sorted(ADAPTER_NAMES))
        raise KeyError(
            f"unknown source {source!r}; known sources: {known} (or adapter = {GENERIC!r})"
        )
    module, name = _ADAPTERS[kind]
    cls = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    if kind == "skypilot" and options:
        from scrapers.sources.skypilot import SkypilotOptions

        return cls(SkypilotOptions(**options))
    return cls()
