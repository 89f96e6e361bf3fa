"""What each adapter's format is proven on, from the one table of it, ``evidence.toml``.

``gpuprice sources`` prints it; docs/SOURCES.md shows the same text, and a test checks the
two agree (and the capture counts against ``tests/fixtures/real/``), so neither can drift.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["Evidence", "evidence_for", "evidence_table"]

_MARKUP = re.compile(r"\*\*|`")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One adapter's evidence: ``captures`` real captures (0: modelled), ``format`` in words
    (Markdown, as docs/SOURCES.md shows it)."""

    adapter: str
    captures: int
    format: str

    @property
    def text(self) -> str:
        """``format`` for a terminal or a CSV: without the Markdown marks."""
        return _MARKUP.sub("", self.format)


@cache
def evidence_table() -> dict[str, Evidence]:
    """Every adapter's evidence, by adapter name (``generic`` for the generic extractor)."""
    raw = tomllib.loads(resources.files(__package__).joinpath("evidence.toml").read_text("utf-8"))
    return {
        name: Evidence(name, int(entry["captures"]), str(entry["format"]))
        for name, entry in raw.items()
    }


def evidence_for(adapter: str) -> Evidence | None:
    """The evidence of ``adapter``, ``None`` for a name the table does not know."""
    return evidence_table().get(adapter)
