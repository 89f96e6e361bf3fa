"""Source adapters by name.

``get_adapter("jygpu")`` is the registered adapter with its default options;
:func:`build_adapter` is the one factory every caller uses (the pipeline, ``gpuprice parse``,
reparse): for ``adapter = "generic"`` with its source name and the
``[sources.<name>.extract]`` options, and for ``skypilot`` with the catalogs
``[sources.skypilot.catalog]`` names. No adapter converts money: rows carry prices as
listed, and the warehouse converts them at load.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scrapers.sources.base import (
    SecretSpec,
    SourceAdapter,
    format_generation,
    produces_offers,
    produces_quotes,
    public_fetch_plan,
)

if TYPE_CHECKING:
    from scrapers.sources.autodl import AutodlAdapter
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
    "ADAPTER_NAMES",
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
    "adapter_type",
    "build_adapter",
    "format_generation",
    "get_adapter",
    "produces_offers",
    "produces_quotes",
    "public_fetch_plan",
]

GENERIC = "generic"

# Built-in adapters (the source name is the adapter name) and where each lives. They are
# imported when first asked for, not with this package: every process that loads the
# settings validates source names against this table, and most (`gpuprice recommend`, the
# dashboard) never parse a page.
_ADAPTER_CLASSES: dict[str, tuple[str, str]] = {
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
ADAPTER_NAMES: tuple[str, ...] = tuple(_ADAPTER_CLASSES)
# Every other public name, by the module it lives in.
_ELSEWHERE = {
    "GenericAdapter": "generic.adapter",
    "GenericOptions": "generic.adapter",
    "SkypilotOptions": "skypilot",
    **{cls: module for module, cls in _ADAPTER_CLASSES.values()},
}


def adapter_type(name: str) -> type:
    """The class of the built-in adapter ``name`` (KeyError for any other name)."""
    module, cls = _ADAPTER_CLASSES[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def __getattr__(name: str) -> Any:
    """The adapter classes, ``ADAPTER_TYPES`` (name → class) and ``ADAPTERS`` (name → an
    instance with its default options), imported on first use (PEP 562)."""
    if name == "ADAPTER_TYPES":
        return {n: adapter_type(n) for n in ADAPTER_NAMES}
    if name == "ADAPTERS":
        return {n: adapter_type(n)() for n in ADAPTER_NAMES}
    if name in _ELSEWHERE:
        return getattr(importlib.import_module(f"{__name__}.{_ELSEWHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_adapter(name: str) -> SourceAdapter:
    """The adapter registered as ``name``; ``KeyError`` lists the known names otherwise."""
    if name not in _ADAPTER_CLASSES:
        known = ", ".join(sorted(ADAPTER_NAMES))
        raise KeyError(f"unknown source {name!r}; known sources: {known}") from None
    return adapter_type(name)()


def build_adapter(
    source: str,
    adapter: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> SourceAdapter:
    """The adapter for ``source``: a built-in one (``adapter`` None or the source's name) or
    the generic extractor (``adapter = "generic"``, configured by ``options``)."""
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
    if kind not in _ADAPTER_CLASSES:
        known = ", ".join(sorted(ADAPTER_NAMES))
        raise KeyError(
            f"unknown source {source!r}; known sources: {known} (or adapter = {GENERIC!r})"
        )
    if kind == "skypilot":
        from scrapers.sources.skypilot import SkypilotAdapter, SkypilotOptions

        return SkypilotAdapter(SkypilotOptions(**options) if options else None)
    return adapter_type(kind)()
