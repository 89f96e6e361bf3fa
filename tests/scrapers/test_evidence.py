"""The evidence table (scrapers/sources/evidence.toml) is the one statement of what each
adapter's format is proven on: docs/SOURCES.md shows it verbatim, its capture counts are the
capture files in tests/fixtures/real/, and the docs' totals are those of the corpus."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scrapers.sources import ADAPTER_NAMES, GENERIC
from scrapers.sources.evidence import evidence_for, evidence_table

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
SOURCES_MD = ROOT / "docs" / "SOURCES.md"
README = ROOT / "README.md"


def docs_formats() -> dict[str, str]:
    """The "format" column of docs/SOURCES.md's source table, by adapter."""
    text = SOURCES_MD.read_text(encoding="utf-8")
    table = text.split("| source | live URL |", 1)[1].split("\n\n", 1)[0]
    formats = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name = re.search(r"`([a-z_]+)`", cells[0])
        adapter = GENERIC if "generic" in cells[0] else name[1] if name else cells[0]
        formats[adapter] = cells[-1]
    return formats


def capture_files(adapter: str) -> list[Path]:
    folder = REAL / adapter
    return [
        p
        for p in folder.rglob("*")
        if p.is_file() and p.name != "README.md" and not p.name.endswith(".expected.json")
    ]


def test_every_adapter_has_its_evidence_and_nothing_else_has() -> None:
    assert set(evidence_table()) == {*ADAPTER_NAMES, GENERIC}
    assert evidence_for("nope") is None


def test_docs_show_the_table_verbatim() -> None:
    assert docs_formats() == {name: e.format for name, e in evidence_table().items()}


def test_capture_counts_are_the_capture_files() -> None:
    for name, evidence in evidence_table().items():
        assert len(capture_files(name)) == evidence.captures, name
        if evidence.captures:
            assert f"on {evidence.captures} real" in evidence.format, name
        else:
            assert "**modelled**" in evidence.format and "verified" not in evidence.format, name


def test_the_terminal_text_has_no_markdown() -> None:
    text = evidence_for("gpushare").text
    assert text == "field names and payg real (public scripts), the rest modelled"


def test_the_docs_totals_are_the_corpus() -> None:
    cases = sorted(REAL.rglob("*.expected.json"))
    rows = sum(len(json.loads(p.read_text(encoding="utf-8"))["rows"]) for p in cases)
    docs = SOURCES_MD.read_text(encoding="utf-8")
    assert f"Today: **{len(cases)} captures, {rows:,} expected rows, all found, zero junk**" in docs
    readme = " ".join(README.read_text(encoding="utf-8").split())
    assert f"generic-table formats are verified on {len(cases)} real captures" in readme
