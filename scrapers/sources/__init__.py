"""Source adapters by name: ``get_adapter("jygpu").fetch_plan(...)`` / ``.parse(...)``."""

from __future__ import annotations

from scrapers.sources.base import SourceAdapter
from scrapers.sources.jygpu import JygpuAdapter
from scrapers.sources.smm import SmmAdapter

__all__ = ["ADAPTERS", "JygpuAdapter", "SmmAdapter", "SourceAdapter", "get_adapter"]

ADAPTERS: dict[str, SourceAdapter] = {
    adapter.name: adapter for adapter in (JygpuAdapter(), SmmAdapter())
}


def get_adapter(name: str) -> SourceAdapter:
    """The adapter registered as ``name``; ``KeyError`` lists the known names otherwise."""
    try:
        return ADAPTERS[name]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise KeyError(f"unknown source {name!r}; known sources: {known}") from None
