"""`gpuprice parse SOURCE FILE` needs no warehouse: with GPUPRICE_HOME an empty directory it
prints the rows as listed and leaves the directory empty; a USD row's CNY figure is at the
configured default, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from tests.support.live_fixtures import MATPOOL, VASTAI, read


@pytest.mark.parametrize("source, fixture", [("vastai", VASTAI), ("matpool", MATPOOL)])
def test_parse_with_an_empty_home_writes_nothing_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, fixture: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    saved = tmp_path / "saved" / fixture
    saved.parent.mkdir()
    saved.write_bytes(read(fixture))
    monkeypatch.setenv("GPUPRICE_HOME", str(home))
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)

    result = CliRunner().invoke(app, ["parse", source, str(saved)])

    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(r["source"] == source for r in rows)
    assert list(home.iterdir()) == []  # no warehouse, no lock, no log: nothing
    assert sorted(p.name for p in saved.parent.iterdir()) == [fixture]
    if source == "vastai":
        one = next(r for r in rows if r.get("offer_id") == "21440112")
        assert (one["price"], one["currency"], one["per_card_hour"]) == ("0.3639", "USD", "0.3639")
        assert "cny_per_card_hour" not in one  # no converted money on the row itself
        assert one["cny_note"].endswith("at the configured default 7.1 CNY/USD")
    else:
        assert all(r["currency"] == "CNY" and "cny_note" not in r for r in rows)
