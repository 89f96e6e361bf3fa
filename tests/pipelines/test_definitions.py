import dagster as dg

from pipelines.definitions import SCRAPE_JOB, build_defs


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
        "offer",
        "spot_quote",
        "card_value",
        "monthly_discount",
        "breakeven",
        "market_premium",
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
