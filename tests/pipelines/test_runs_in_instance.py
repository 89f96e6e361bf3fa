"""Every run in the Dagster UI: the runs of `gpuprice run`, `backfill`, `up`'s first scrape
and the seeding are recorded in the home's instance, the one `gpuprice up`'s webserver and
daemon read ($GPUPRICE_HOME/dagster), with their asset materialisations and checks; read back
here through a second instance and through the webserver's GraphQL schema."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._core.workspace.load_target import EmptyWorkspaceTarget
from dagster_graphql.test.utils import execute_dagster_graphql

from demo.market import DemoMarket
from gpuprice.jobs import NO_DAEMON_RETRY, JobRunner
from pipelines.assets import LOADED_CHECK
from tests.support.demo_settings import demo_settings

pytestmark = pytest.mark.e2e

RUNS = """
query {
  runsOrError {
    ... on Runs { results { runId status jobName tags { key value } } }
  }
}
"""
MATERIALIZATIONS = """
query ($path: [String!]!) {
  assetOrError(assetKey: {path: $path}) {
    ... on Asset { assetMaterializations(limit: 10) { runId } }
  }
}
"""


def test_command_runs_and_their_assets_are_in_the_home_instance(
    market: DemoMarket, tmp_path: Path
) -> None:
    settings = demo_settings(market, tmp_path)
    JobRunner(settings).run(date(2026, 9, 10))
    JobRunner(settings, command="backfill").backfill([date(2026, 9, 11), date(2026, 9, 12)])

    # A second instance on the same directory: what the webserver and the daemon read.
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        # the run is a run of scrape_job, the backfill of its two days one of backfill_job
        runs = instance.get_runs()
        assert sorted(r.job_name for r in runs) == ["backfill_job", "scrape_job"]
        assert all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
        assert all(NO_DAEMON_RETRY.items() <= r.tags.items() for r in runs)
        tags = {r.job_name: r.tags for r in runs}
        assert tags["scrape_job"]["gpuprice/command"] == "run"
        assert tags["scrape_job"]["gpuprice/as_of"] == "2026-09-10"
        assert tags["backfill_job"]["gpuprice/command"] == "backfill"
        assert tags["backfill_job"]["gpuprice/first_day"] == "2026-09-11"
        assert tags["backfill_job"]["gpuprice/last_day"] == "2026-09-12"
        run_ids = {r.run_id for r in runs}
        for asset in ("jygpu_snapshot", "smm_snapshot", "card_value", "serving_copy", "alert"):
            records = instance.fetch_materializations(dg.AssetKey(asset), limit=10).records
            assert {r.run_id for r in records} == run_ids, asset
        check = dg.AssetCheckKey(dg.AssetKey("jygpu_snapshot"), LOADED_CHECK)
        executions = instance.event_log_storage.get_asset_check_execution_history(check, limit=10)
        assert len(executions) == 1  # the run's; the backfill's outcomes are its metadata

        # The webserver's own GraphQL schema over that instance: its Runs page and assets.
        with WorkspaceProcessContext(instance, EmptyWorkspaceTarget()) as process:
            context = process.create_request_context()
            shown = execute_dagster_graphql(context, RUNS).data["runsOrError"]["results"]
            assert {r["runId"] for r in shown} == run_ids
            assert {r["status"] for r in shown} == {"SUCCESS"}
            found = execute_dagster_graphql(
                context, MATERIALIZATIONS, {"path": ["card_value"]}
            ).data["assetOrError"]["assetMaterializations"]
            assert {m["runId"] for m in found} == run_ids
