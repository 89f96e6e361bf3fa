"""Source adapters by name.

``get_adapter("jygpu")`` is the registered adapter with its default options;
:func:`build_adapter` is the one factory every caller uses (the pipeline, ``gpuprice parse``,
reparse): for ``adapter = "generic"`` with its source name and the
``[sources.<name>.extract]`` options, and for ``skypilot`` with the catalogs
``[sources.skypilot.catalog]`` names. No adapter converts money: rows carry prices as
listed, and the warehouse converts them at load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scrapers.sources.autodl import AutodlAdapter
from scrapers.sources.base import (
    SecretSpec,
    SourceAdapter,
    format_generation,
    produces_offers,
    produces_quotes,
    public_fetch_plan,
)
from scrapers.sources.compshare import CompshareAdapter
from scrapers.sources.generic.adapter import GenericAdapter, GenericOptions
from scrapers.sources.gpushare import GpushareAdapter
from scrapers.sources.jygpu import JygpuAdapter
from scrapers.sources.lambda_cloud import LambdaAdapter
from scrapers.sources.matpool import MatpoolAdapter
from scrapers.sources.ppio import PpioAdapter
from scrapers.sources.runpod.adapter import RunpodAdapter
from scrapers.sources.skypilot import SkypilotAdapter, SkypilotOptions
from scrapers.sources.smm import SmmAdapter
from scrapers.sources.vastai import VastaiAdapter

__all__ = [
    "ADAPTERS",
    "ADAPTER_TYPES",
    "GENERIC",
    "AutodlAdapter",
    "CompshareAdapter",
    "GenericAdapter",
    "GenericOptions",
    "GpushareAdapter",
    "JygpuAdapter",
    "LambdaAdapter",
    "MatpoolAdapter",
    "PpioAdapter",
    "RunpodAdapter",
    "SecretSpec",
    "SkypilotAdapter",
    "SkypilotOptions",
    "SmmAdapter",
    "SourceAdapter",
    "VastaiAdapter",
    "build_adapter",
    "format_generation",
    "get_adapter",
    "produces_offers",
    "produces_quotes",
    "public_fetch_plan",
]

GENERIC = "generic"

# Built-in adapters: the source name is the adapter name.
ADAPTER_TYPES: dict[str, type] = {
    "jygpu": JygpuAdapter,
    "smm": SmmAdapter,
    "vastai": VastaiAdapter,
    "runpod": RunpodAdapter,
    "matpool": MatpoolAdapter,
    "autodl": AutodlAdapter,
    "gpushare": GpushareAdapter,
    "ppio": PpioAdapter,
    "compshare": CompshareAdapter,
    "lambda": LambdaAdapter,
    "skypilot": SkypilotAdapter,
}

ADAPTERS: dict[str, SourceAdapter] = {name: cls() for name, cls in ADAPTER_TYPES.items()}


def get_adapter(name: str) -> SourceAdapter:
    """The adapter registered as ``name``; ``KeyError`` lists the known names otherwise."""
    try:
        return ADAPTERS[name]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise KeyError(f"unknown source {name!r}; known sources: {known}") from None


def build_adapter(
    source: str,
    adapter: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> SourceAdapter:
    """The adapter for ``source``: a built-in one (``adapter`` None or the source's name) or
    the generic extractor (``adapter = "generic"``, configured by ``options``)."""
    kind = adapter or source
    if kind == GENERIC:
        opts = dict(options or {})
        if "paths" in opts:
            opts["paths"] = tuple(opts["paths"])
        return GenericAdapter(source, GenericOptions(**opts))
    if kind != source:
        raise KeyError(
            f"source {source!r}: adapter {kind!r} can only be used by the source of that name; "
            f"a site with no adapter of its own uses adapter = {GENERIC!r}"
        )
    cls = ADAPTER_TYPES.get(kind)
    if cls is None:
        known = ", ".join(sorted(ADAPTER_TYPES))
        raise KeyError(
            f"unknown source {source!r}; known sources: {known} (or adapter = {GENERIC!r})"
        )
    if cls is SkypilotAdapter:
        return SkypilotAdapter(SkypilotOptions(**options) if options else None)
    return cls()
