from datetime import timedelta

import dagster as dg

from pipelines.definitions import SCRAPE_JOB, build_defs
from pipelines.resources import GpupriceResource
from pipelines.retention import RETENTION_JOB
from tests.support.handles import warehouse_at
from tests.support.seeded_warehouse import seed_demo_history
from warehouse.store.db import read_frame, utcnow


def test_module_level_definitions_load_and_validate() -> None:
    from pipelines.definitions import defs

    dg.Definitions.validate_loadable(defs)
    assert defs.resolve_job_def(SCRAPE_JOB) is not None


def test_assets_job_and_running_hourly_schedule(make_settings) -> None:
    defs = build_defs(make_settings())
    keys = {key.to_user_string() for key in defs.resolve_all_asset_keys()}
    assert keys == {
        "reference_data",
        "jygpu_snapshot",
        "smm_snapshot",
        "card_value",
        "monthly_discount",
        "breakeven",
        "market_premium",
        "price_index",
        "serving_copy",
        "alert",
    }
    schedule = defs.resolve_schedule_def("scrape_schedule")
    assert schedule.cron_schedule == "0 * * * *"
    assert schedule.execution_timezone == "Asia/Shanghai"
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    assert schedule.job_name == SCRAPE_JOB


def test_schedule_follows_the_config(make_settings) -> None:
    settings = make_settings('[schedule]\ncron = "*/15 * * * *"\nrunning = false\n')
    schedule = build_defs(settings).resolve_schedule_def("scrape_schedule")
    assert schedule.cron_schedule == "*/15 * * * *"
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED


def test_disabled_source_has_no_asset(make_settings) -> None:
    settings = make_settings(
        '[sources.smm]\nenabled = false\ndemo_url = "http://x"\nlive_url = "https://y"\n'
    )
    keys = {key.to_user_string() for key in build_defs(settings).resolve_all_asset_keys()}
    assert "smm_snapshot" not in keys and "jygpu_snapshot" in keys


def test_the_lineage_reads_like_the_data_flow(make_settings) -> None:
    # sources -> snapshots (raw_page, offer, spot_quote) -> derived tables -> serving copy ->
    # alert (docs/ARCHITECTURE.md); no asset that writes nothing.
    graph = build_defs(make_settings()).resolve_asset_graph()

    def parents(key: str) -> set[str]:
        return {k.to_user_string() for k in graph.get(dg.AssetKey(key)).parent_keys}

    offers = {"jygpu_snapshot", "reference_data"}
    assert parents("card_value") == parents("monthly_discount") == parents("breakeven") == offers
    assert parents("market_premium") == offers | {"smm_snapshot"}
    assert parents("serving_copy") == {
        "card_value", "monthly_discount", "breakeven", "market_premium",
    }  # fmt: skip
    assert parents("price_index") == {"jygpu_snapshot"}  # it reads offer alone
    assert parents("alert") == {"breakeven", "price_index", "serving_copy"}


def test_retention_is_a_daily_job_of_its_own(make_settings) -> None:
    off = build_defs(make_settings()).resolve_schedule_def("retention_schedule")
    assert off.default_status == dg.DefaultScheduleStatus.STOPPED  # raw_page_days = 0: keep all
    settings = make_settings("[retention]\nraw_page_days = 2\n")
    resource = GpupriceResource(
        home=str(settings.home), profile=settings.profile, config_path=str(settings.config_path)
    )
    defs = build_defs(settings, resource)
    schedule = defs.resolve_schedule_def("retention_schedule")
    assert schedule.cron_schedule == "30 4 * * *" and schedule.job_name == RETENTION_JOB
    assert schedule.execution_timezone == "Asia/Shanghai"
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    path = settings.warehouse
    seed_demo_history(
        warehouse_at(path), utcnow().date() - timedelta(days=5), 3
    )  # 3 days x 3 pages
    assert defs.resolve_job_def(RETENTION_JOB).execute_in_process().success
    emptied = read_frame(
        warehouse_at(path), "SELECT count(*) FROM raw_page WHERE octet_length(body) = 0"
    )
    assert emptied.item() == 9
    assert (
        read_frame(warehouse_at(path), "SELECT count(*) FROM offer").item() > 0
    )  # parsed rows stay


def test_the_live_profile_has_a_snapshot_asset_for_every_live_source(tmp_path) -> None:
    from configuration.settings import load_settings

    defs = build_defs(load_settings(None, home=tmp_path, profile="live"))
    keys = {key.to_user_string() for key in defs.resolve_all_asset_keys()}
    snapshots = {k for k in keys if k.endswith("_snapshot")}
    assert snapshots == {
        f"{s}_snapshot"
        for s in (
            "jygpu",
            "smm",
            "vastai",
            "runpod",
            "matpool",
            "autodl",
            "gpushare",
            "ppio",
            "compshare",
            "lambda",
            "skypilot",
        )  # fmt: skip
    }
    graph = defs.resolve_asset_graph()
    for usd in ("vastai", "runpod", "lambda", "skypilot"):  # converted at the day's rate
        parents = graph.get(dg.AssetKey(f"{usd}_snapshot")).parent_keys
        assert dg.AssetKey("fx_rate") in parents, usd
