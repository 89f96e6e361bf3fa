"""The demo market's archive of real captures (demo.market.archive) and the first start's
real history (demo.real_history, run by `gpuprice up`'s seeding process before the SIMULATED
90 days): the CDX listing and raw captures as the Wayback Machine answers them, the GitHub-like
API, and the import of all of it as real rows citing the Internet Archive and GitHub."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from demo.market import DemoMarket
from demo.market.archive import REAL, REAL_VERSIONS, wayback_digest
from gpuprice.history_jobs import import_demo_history
from tests.demo.test_first_start import bundled_settings
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e


def test_the_demo_market_serves_the_real_captures_as_the_archive_does() -> None:
    with DemoMarket() as market:
        base = market.platforms_url
        cdx = httpx.get(f"{base}/archive/cdx/search/cdx", params={
            "url": "lambdalabs.com/service/gpu-cloud", "output": "json", "from": "2023",
            "filter": "statuscode:200"}).json()  # fmt: skip
        capture = httpx.get(
            f"{base}/archive/web/20230909194011id_/https://lambdalabs.com/service/gpu-cloud"
        )
        gone = httpx.get(
            f"{base}/archive/web/20230909194012id_/https://lambdalabs.com/service/gpu-cloud"
        )
        commits = httpx.get(f"{base}/github/api/repos/skypilot-org/skypilot-catalog/commits",
                            params={"path": "catalogs/v5/lambda/vms.csv"}).json()  # fmt: skip
        raw = httpx.get(f"{base}/github/raw/skypilot-org/skypilot-catalog/{REAL_VERSIONS[0].sha}/"
                        "catalogs/v5/lambda/vms.csv")  # fmt: skip
        platform = httpx.get(f"{base}/runpod/graphql")  # the platforms are still there
    body = (REAL / "lambda" / "lambda_20230909194011.html").read_bytes()
    assert cdx[0] == [
        "urlkey",
        "timestamp",
        "original",
        "mimetype",
        "statuscode",
        "digest",
        "length",
    ]
    assert [row[1] for row in cdx[1:]] == ["20230909194011", "20241103180910"]
    assert cdx[1][2] == "https://lambdalabs.com/service/gpu-cloud" and cdx[1][5] == wayback_digest(
        body
    )
    assert capture.status_code == 200 and capture.content == body
    assert gone.status_code == 404
    assert [c["sha"] for c in commits] == [v.sha for v in reversed(REAL_VERSIONS)]
    assert commits[0]["commit"]["committer"]["date"] == "2023-06-15T20:16:46Z"
    assert raw.content == REAL_VERSIONS[0].file.read_bytes()
    assert platform.status_code != 404


def test_the_first_start_imports_real_history_beside_the_simulated(tmp_path: Path) -> None:
    settings, _ = bundled_settings(tmp_path)
    said: list[str] = []
    assert import_demo_history(settings, said.append) == 0, said
    assert any("European Central Bank's daily USD→CNY reference rate on" in line for line in said)
    assert "real history: RunPod's pricing page as the Internet Archive captured it: 3 captures " \
           "from 2023-09-29 to 2026-08-10" in "\n".join(said)  # fmt: skip
    found = read_frame(
        settings.warehouse,
        "SELECT source, min(observed_at)::DATE AS first, max(observed_at)::DATE AS last, "
        "bool_or(simulated) AS simulated, count(DISTINCT citation) AS origins FROM offer "
        "WHERE source IN ('runpod', 'lambda', 'skypilot') GROUP BY 1 ORDER BY 1",
    )
    assert [(s, str(f), str(last), sim) for s, f, last, sim, _ in found.rows()] == [
        ("lambda", "2023-09-09", "2026-07-09", False),
        ("runpod", "2023-09-29", "2026-08-10", False),
        ("skypilot", "2023-01-17", "2023-06-15", False),
    ]
    origins = read_frame(settings.warehouse, "SELECT DISTINCT citation FROM offer WHERE "
                                             "source = 'runpod' ORDER BY 1")["citation"]  # fmt: skip
    assert origins[0].startswith("https://web.archive.org/web/20230929070808id_/")
    assert not any("127.0.0.1" in origin for origin in origins)
    again = []
    assert import_demo_history(settings, again.append) == 0
    summaries = [line for line in again if line.endswith("already imported, nothing new")]
    assert len(summaries) == 4
    assert any(line.endswith("reference rate: already stored") for line in again)
    statuses = read_frame(settings.warehouse, "SELECT status FROM history_import")["status"]
    assert statuses.to_list() == ["ok"] * 8  # four imports, twice
