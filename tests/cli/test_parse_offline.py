"""`gpuprice parse SOURCE FILE` needs no warehouse: with GPUPRICE_HOME an empty directory it
prints the rows as listed and leaves the directory empty; a USD row's CNY figure is at the
configured default, and says so."""

from __future__ import annotations

import json
import re
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


# -- the context a capture needs: --cloud, --url -------------------------------------------

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DO_CATALOG = FIXTURES / "real" / "skypilot" / "v6" / "do" / "vms.csv"
COMPSHARE = FIXTURES / "live" / "compshare_price.json"
ASKED = (
    "https://api.compshare.cn/?Action=GetCompShareInstancePrice"
    "#GpuType=5090&Gpu=1&Cpu=16&Memory=65536&Zone=cn-wlcb-01"
)


def saved_as(tmp_path: Path, source: Path, name: str) -> Path:
    saved = tmp_path / name
    saved.write_bytes(source.read_bytes())
    return saved


def parsed(*args: str) -> tuple[int, list[dict], str]:
    result = CliRunner().invoke(app, ["parse", *args])
    rows = [json.loads(line) for line in result.stdout.splitlines()] if result.stdout else []
    return result.exit_code, rows, result.stderr


def test_a_catalog_outside_a_cloud_folder_needs_cloud(tmp_path: Path) -> None:
    saved = saved_as(tmp_path, DO_CATALOG, "digitalocean-catalog.csv")
    code, rows, stderr = parsed("skypilot", str(saved))
    assert (code, rows) == (1, [])
    assert "cannot tell which cloud" in stderr and "--cloud NAME" in stderr

    code, rows, stderr = parsed("skypilot", str(saved), "--cloud", "do")
    assert code == 0, stderr
    assert [(r["offer_id"], r["region"], r["price"]) for r in rows] == [
        ("do/gpu-h100x1-80gb/tor1", "do/tor1", "6.7400"),
        ("do/gpu-h100x8-640gb/tor1", "do/tor1", "47.6000"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cloud", "do", "--url", "https://x.example/do/vms.csv"], "not both"),
        (["--cloud", "Digital Ocean"], "--cloud: not a SkyPilot cloud name"),
        (["--url", "  "], "--url '  ': give the request's URL"),
    ],
)
def test_bad_context_options_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    saved = saved_as(tmp_path, DO_CATALOG, "vms.csv")
    code, rows, stderr = parsed("skypilot", str(saved), *args)
    assert (code, rows) == (2, [])
    assert message in stderr


def test_cloud_is_for_skypilot_only(tmp_path: Path) -> None:
    saved = saved_as(tmp_path, COMPSHARE, "answer.json")
    code, _, stderr = parsed("compshare", str(saved), "--cloud", "aws")
    assert code == 2 and "--cloud is for the skypilot source only, not compshare" in stderr


def test_an_answer_priced_for_its_request_takes_the_request_url(tmp_path: Path) -> None:
    saved = saved_as(tmp_path, COMPSHARE, "answer.json")
    code, rows, stderr = parsed("compshare", str(saved))
    assert (code, rows) == (1, [])
    assert "no GpuType" in stderr and "give the request with --url" in stderr

    code, rows, stderr = parsed("compshare", str(saved), "--url", ASKED)
    assert code == 0, stderr
    assert rows and {(r["gpu"], r["cpu_cores"], r["ram_gb"]) for r in rows} == {
        ("rtx5090-32g", 16, 64)
    }


def test_help_shows_the_real_defaults() -> None:
    result = CliRunner().invoke(app, ["parse", "--help"], env={"COLUMNS": "200"})
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", result.stdout).split())  # the boxes' borders
    assert "at the configured default ([fx] usd_cny, 7.10 CNY/USD as shipped)" in text
    assert "[sources.NAME.extract]" in text and "()" not in text
    assert "Default: the folder the file is in" in text
    assert "Default: the file's own file:// URL" in text
