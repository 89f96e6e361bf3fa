"""`history skypilot` end to end: the history job against a loopback GitHub-like API serving
the five real versions of SkyPilot's Lambda catalog (commits listing and raw files), with
GitHub's rate limit and an optional token."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest

from demo.market.archive import REAL_VERSIONS
from gpuprice.history_jobs import run_history
from pipelines.history_import import HistoryRequest, QuietProgress
from tests.support.archive_server import ArchiveServer, history_settings
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

COMMITS = "/github/api/repos/skypilot-org/skypilot-catalog/commits"


class Said(QuietProgress):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, line: str) -> None:
        self.lines.append(line)


def _request(server: ArchiveServer, every: str = "day") -> HistoryRequest:
    return HistoryRequest(
        kind="skypilot", cloud="lambda", version="v5", every=every, api_url=server.api,
        raw_url=server.raw,
    )  # fmt: skip


def _expected(version) -> int:
    spec = json.loads(version.file.with_name(version.file.name + ".expected.json").read_text())
    return len(spec["rows"])


def test_each_catalog_version_loads_at_its_commit_time_citing_its_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    settings = history_settings(tmp_path)
    said = Said()
    with ArchiveServer() as server:
        outcome = run_history(settings, _request(server), said)
    assert outcome.status == "ok", outcome.lines
    # two versions were committed on 2023-06-02: one a day keeps the first
    assert "5 listed, 4 kept (one a day), 4 fetched" in outcome.lines[0]
    assert "history skypilot catalogs/v5/lambda/vms.csv" in outcome.lines[0]
    kept = [v for v in REAL_VERSIONS if not v.sha.startswith("a56234d")]
    rows = read_frame(
        settings.warehouse,
        "SELECT observed_at, count(*) AS n, any_value(citation) AS citation, "
        "bool_or(simulated) AS simulated FROM offer WHERE source = 'skypilot' GROUP BY 1 ORDER BY 1",
    )
    assert rows["observed_at"].to_list() == [v.committed_utc.replace(tzinfo=None) for v in kept]
    assert rows["observed_at"][0] == datetime(2023, 1, 17, 17, 22, 11)
    assert rows["n"].to_list() == [_expected(v) for v in kept]
    assert rows["citation"].to_list() == [
        f"https://github.com/skypilot-org/skypilot-catalog/commit/{v.sha}" for v in kept
    ]
    assert not any(rows["simulated"])
    urls = read_frame(settings.warehouse, "SELECT url FROM raw_page ORDER BY fetched_at")["url"]
    assert urls[0] == (
        f"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/{kept[0].sha}/"
        "catalogs/v5/lambda/vms.csv"
    )
    assert any("GitHub allows 60 API requests an hour" in line for line in said.lines)
    assert all("Authorization" not in hit.headers for hit in server.hits)
    # H100 arrives on 2023-06-02 at $2.40 an hour and is cut to $1.99 on 2023-06-15
    h100 = read_frame(settings.warehouse, "SELECT observed_at::DATE AS day, min(price) AS p "
                                          "FROM offer WHERE gpu = 'h100-80g' AND source = 'skypilot' GROUP BY 1 ORDER BY 1")  # fmt: skip
    assert [str(p) for p in h100["p"]] == ["2.4000", "1.9900"]


def test_a_token_is_sent_to_the_api_only_and_a_second_run_adds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = tmp_path / "secrets" / "github_token"  # a secret file outside the repository
    token.parent.mkdir()
    token.write_text("ghp_testtoken\n", encoding="utf-8")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(token))
    settings = history_settings(tmp_path)
    said = Said()
    with ArchiveServer() as server:
        run_history(settings, _request(server, "month"), said)
        raws = len(server.requests("/github/raw/"))
        again = run_history(settings, _request(server, "month"))
        assert len(server.requests("/github/raw/")) == raws == 3  # Jan, Feb, Jun 2023
    assert again.lines[0].endswith("0 failed; 0 row(s) added")
    api = server.requests("/github/api/")
    assert api and all(h.headers.get("Authorization") == "Bearer ghp_testtoken" for h in api)
    assert all("Authorization" not in h.headers for h in server.requests("/github/raw/"))
    assert not any("60 API requests" in line for line in said.lines)
    assert (
        "ghp_testtoken"
        not in read_frame(settings.warehouse, "SELECT * FROM history_import").write_csv()
    )


def test_a_spent_rate_limit_waits_for_its_reset_or_stops_saying_when(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    settings = history_settings(tmp_path)

    def spent(reset_in: int) -> bytes:
        core = {"limit": 60, "remaining": 0, "reset": int(time.time()) + reset_in, "used": 60}
        return json.dumps({"resources": {"core": core}, "rate": core}).encode()

    said = Said()
    with ArchiveServer() as server:
        server.answer_body("/github/api/rate_limit", spent(1), times=1)
        soon = run_history(settings, _request(server), said)
        assert soon.status == "ok"
        assert any("API limit is spent; waiting" in line for line in said.lines)
        server.answer_body("/github/api/rate_limit", spent(3600))
        later = run_history(settings, HistoryRequest(
            kind="skypilot", cloud="runpod", version="v5", api_url=server.api, raw_url=server.raw))  # fmt: skip
    assert later.status == "failed"
    assert any("GitHub's API limit (60 requests an hour) is spent until" in line
               and "set GITHUB_TOKEN" in line for line in later.lines)  # fmt: skip
    listed = [h.query for h in server.requests(COMMITS)]
    assert listed and not [q for q in listed if "runpod" in q]  # stopped before asking


def test_a_name_that_is_no_catalog_is_refused(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    with ArchiveServer() as server:
        bad = HistoryRequest(
            kind="skypilot", cloud="../aws", api_url=server.api, raw_url=server.raw
        )
        refused = run_history(settings, bad)
    assert refused.status == "refused" and "not a SkyPilot cloud name" in refused.lines[0]
    assert not server.hits
