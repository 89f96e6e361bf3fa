"""`gpuprice sources` and `gpuprice sources check`, against the real demo market on free ports
(started by the command itself, as a new user's first command would), a real DuckDB warehouse
for the last runs, and real secrets files for the credentials."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from typer.testing import CliRunner

from demo.autostart import port_answers
from demo.market import PLATFORM_SOURCES
from demo.market.platforms import layout_change_days
from demo.market.prices import DEFAULT_SEED
from gpuprice import cli_common
from gpuprice.cli import app
from scrapers.sources.evidence import evidence_table
from tests.support.demo_settings import FAST_HTTP, GENERIC_EXTRACT, GENERIC_SOURCE
from tests.support.handles import warehouse_at
from tests.support.loopback import LoopbackServer, free_port, reply
from warehouse.store.db import write_connection

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "skypilot"
LIVE = Path(__file__).resolve().parent.parent / "fixtures" / "live"

runner = CliRunner()
SECRETS = (
    "GPUPRICE_SMM_COOKIE",
    "GPUPRICE_AUTODL_TOKEN",
    "GPUPRICE_GPUSHARE_TOKEN",
    "GPUPRICE_PPIO_API_KEY",
    "GPUPRICE_LAMBDA_API_KEY",
    "GPUPRICE_UCLOUD_PUBLIC_KEY",
    "GPUPRICE_UCLOUD_PRIVATE_KEY",
)


@pytest.fixture(autouse=True)
def no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for env in SECRETS:
        monkeypatch.delenv(env, raising=False)
        monkeypatch.delenv(f"{env}_FILE", raising=False)
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)


def bundled_config(
    tmp_path: Path, overrides: dict[str, str] | None = None
) -> tuple[Path, dict[str, int]]:
    """Every source on the bundled demo market's own ports, all free: nothing serves them
    until a command starts the market itself. ``overrides``: a source's table, replaced."""
    ports = {site: free_port() for site in ("jygpu", "smm", "platforms")}
    bodies = {
        "jygpu": f'demo_url = "http://127.0.0.1:{ports["jygpu"]}"',
        "smm": f'demo_url = "http://127.0.0.1:{ports["smm"]}"',
    }
    for name in PLATFORM_SOURCES:
        url = f"http://127.0.0.1:{ports['platforms']}/{name}"
        bodies[name] = f'demo_url = "{url}"'
    bodies[GENERIC_SOURCE] = f'adapter = "generic"\n{bodies[GENERIC_SOURCE]}'
    bodies |= overrides or {}
    tables = "".join(f"[sources.{name}]\n{body}\n" for name, body in bodies.items())
    config = tmp_path / "gpuprice.toml"
    market = "".join(f"{site}_port = {port}\n" for site, port in ports.items())
    config.write_text(
        f"{FAST_HTTP}\n[demo_market]\n{market}{tables}{GENERIC_EXTRACT}", encoding="utf-8"
    )
    return config, ports


def listed(config: Path, home: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = runner.invoke(
        app,
        ["sources", *args, "--config", str(config)],
        env={"GPUPRICE_HOME": str(home), **(env or {})},
    )
    assert result.exit_code == 0, result.output
    return result.stdout


# -- gpuprice sources ------------------------------------------------------------------------


def test_sources_lists_every_source_with_evidence_credentials_and_schedule(tmp_path: Path) -> None:
    off = 'enabled = false\ndemo_url = "http://127.0.0.1:1/vastai"'
    config, _ = bundled_config(tmp_path, {"vastai": off})
    secret = tmp_path / "outside" / "smm_cookie"
    secret.parent.mkdir()
    secret.write_text("session=abc123", encoding="utf-8")
    env = {"GPUPRICE_SMM_COOKIE_FILE": str(secret), "GPUPRICE_UCLOUD_PUBLIC_KEY": "pub-xyz"}
    lines = json.loads(listed(config, tmp_path / "home", "--format", "json", env=env))
    by_name = {line["source"]: line for line in lines}
    assert set(by_name) == {"jygpu", "smm", *PLATFORM_SOURCES}

    table = evidence_table()
    for name, line in by_name.items():
        kind = "generic" if name == GENERIC_SOURCE else name
        assert line["adapter"] == kind
        assert (line["evidence"], line["real_captures"]) == (table[kind].text, table[kind].captures)
        assert line["last_status"] is None  # no warehouse: nothing has run
    assert by_name["skypilot"]["real_captures"] > 0  # a verified format, as the table says
    assert by_name["jygpu"]["evidence"].startswith("modelled")

    states = {
        name: (line["credentials"], line["credentials_env"]) for name, line in by_name.items()
    }
    assert states["smm"] == ("set", "GPUPRICE_SMM_COOKIE")  # from the file the variable names
    assert states["autodl"] == ("missing", "GPUPRICE_AUTODL_TOKEN")
    # one key of the pair set: the other one is named as missing
    assert states["compshare"] == ("missing", "GPUPRICE_UCLOUD_PRIVATE_KEY")
    assert states["lambda"] == ("optional", "GPUPRICE_LAMBDA_API_KEY")
    assert "public pages" in by_name["lambda"]["credentials_detail"]
    assert states["runpod"] == ("not needed", "")
    text = json.dumps(lines)
    assert "abc123" not in text and "pub-xyz" not in text  # never a value

    assert by_name["vastai"]["schedule"] == "off: enabled = false"
    assert by_name["runpod"]["schedule"] == "on"


SKYPILOT_CAPTURES = evidence_table()["skypilot"].captures


def test_sources_table_and_csv_for_people_and_scripts(tmp_path: Path) -> None:
    config, _ = bundled_config(tmp_path)
    table = listed(config, tmp_path / "home")
    words = " ".join(table.split())  # the table wraps at the console's width
    assert "cloudgrid" in words and "(generic)" in words and f"{SKYPILOT_CAPTURES} real" in words
    assert "cron 0 * * * * (Asia/Shanghai), RUNNING" in words
    assert "SIMULATED" in words and "no warehouse yet" in words
    rows = list(csv.DictReader(io.StringIO(listed(config, tmp_path / "home", "--format", "csv"))))
    assert len(rows) == 2 + len(PLATFORM_SOURCES)
    assert {r["source"]: r["credentials"] for r in rows}["ppio"] == "missing"


def test_an_unreadable_secret_file_is_said_not_raised(tmp_path: Path) -> None:
    config, _ = bundled_config(tmp_path)
    env = {"GPUPRICE_PPIO_API_KEY_FILE": str(tmp_path / "outside" / "no_such_file")}
    lines = json.loads(listed(config, tmp_path / "home", "--format", "json", env=env))
    ppio = next(line for line in lines if line["source"] == "ppio")
    assert ppio["credentials"] == "unreadable" and "cannot be read" in ppio["credentials_detail"]


def _runs(home: Path, runs: list[tuple]) -> None:
    """scrape_run rows as runs and backfills record them (run_id, source, as_of, started,
    finished, status, rows, reason), in the demo profile."""
    with write_connection(warehouse_at(home / "gpuprice.duckdb")) as con:
        for run_id, source, as_of, started, finished, status, rows, reason in runs:
            con.execute(
                "INSERT INTO scrape_run (run_id, source, profile, as_of, started_at, "
                "finished_at, status, pages, rows, error, reason) "
                "VALUES (?, ?, 'demo', ?, ?, ?, ?, 1, ?, NULL, ?)",
                [run_id, source, as_of, started, finished, status, rows, reason],
            )


def test_health_goes_by_the_day_the_data_is_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38: after a first start compshare showed "failed, 0 rows (drift)": its seeded
    2026-12-02 (a deliberate demo layout day) was loaded after the live run's success."""
    # the console's width was fixed when gpuprice.cli_common was first imported (by another
    # test in this worker, perhaps with another COLUMNS): the table's cells read whole here
    monkeypatch.setattr(cli_common.console, "_width", cli_common.PIPE_WIDTH)
    config, _ = bundled_config(tmp_path)
    home = tmp_path / "home"
    layout = max(d for d in layout_change_days(DEFAULT_SEED, "compshare") if d < date(2026, 12, 3))
    ppio_layout = max(d for d in layout_change_days(DEFAULT_SEED, "ppio") if d < date(2026, 12, 3))
    assert date(2026, 12, 1) not in layout_change_days(DEFAULT_SEED, "gpushare")
    live, seeded = datetime(2026, 12, 3, 17, 6), datetime(2026, 12, 3, 17, 40)
    _runs(home, [
        ("c1", "compshare", None, live, live, "ok", 20, None),
        ("c2", "compshare", layout, seeded, seeded, "failed", 0, "drift"),
        ("m1", "matpool", None, live, live, "failed", 0, "unreachable"),
        ("m2", "matpool", date(2026, 12, 2), seeded, seeded, "ok", 5, None),
        ("p1", "ppio", ppio_layout, seeded, seeded, "failed", 0, "drift"),
        ("g1", "gpushare", date(2026, 12, 1), seeded, seeded, "failed", 0, "drift"),
    ])  # fmt: skip
    by_name = {
        line["source"]: line for line in json.loads(listed(config, home, "--format", "json"))
    }
    compshare = by_name["compshare"]
    assert (compshare["last_status"], compshare["last_run_utc"], compshare["last_run_from"]) == (
        "ok", "2026-12-03 17:06", "live",
    )  # fmt: skip
    matpool = by_name["matpool"]
    assert (matpool["last_success_utc"], matpool["last_success_from"]) == (
        "2026-12-02 00:00",
        "backfill",
    )
    assert matpool["last_success_loaded_utc"] == "2026-12-03 17:40"
    rows = {
        line.split("│")[1].strip(): line
        for line in listed(config, home).splitlines()
        if "│" in line
    }
    assert "2026-12-03 17:06 live: ok, 20 rows" in rows["compshare"]
    assert "failed" not in rows["compshare"]
    assert "2026-12-03 17:06 live: failed, 0 rows (unreachable)" in rows["matpool"]
    assert "2026-12-02 backfill, loaded 2026-12-03 17:40" in rows["matpool"]
    # a newest day that is one of the demo's deliberate layout days says so; another does not
    assert (
        f"{ppio_layout} backfill, loaded 2026-12-03 17:40: failed, 0 rows (demo layout change, deliberate) │ —"
        in rows["ppio"]
    )
    assert (
        "2026-12-01 backfill, loaded 2026-12-03 17:40: failed, 0 rows (drift)" in rows["gpushare"]
    )


@pytest.mark.e2e
def test_sources_shows_each_last_run_after_a_run(tmp_path: Path) -> None:
    off = {n: 'enabled = false\ndemo_url = "http://127.0.0.1:1/off"' for n in PLATFORM_SOURCES}
    off[GENERIC_SOURCE] = f'adapter = "generic"\n{off[GENERIC_SOURCE]}'
    del off["runpod"]
    config, ports = bundled_config(tmp_path, off)
    home = tmp_path / "home"
    run = runner.invoke(app, ["run", "--config", str(config)], env={"GPUPRICE_HOME": str(home)})
    assert run.exit_code == 0, run.output
    lines = json.loads(listed(config, home, "--format", "json"))
    by_name = {line["source"]: line for line in lines}
    for name in ("jygpu", "smm", "runpod"):
        assert by_name[name]["last_status"] == "ok" and by_name[name]["last_rows"] > 0, name
        assert len(by_name[name]["last_run_utc"]) == len("2026-12-01 10:00")
    assert by_name["vastai"]["last_status"] is None  # switched off: never ran
    assert not port_answers("127.0.0.1", ports["platforms"])  # the run stopped its market


# -- gpuprice sources check ------------------------------------------------------------------


def checked(config: Path, home: Path, *names: str) -> tuple[int, list[dict], str]:
    result = runner.invoke(
        app,
        ["sources", "check", *names, "--json", "--config", str(config)],
        env={"GPUPRICE_HOME": str(home)},
    )
    return result.exit_code, json.loads(result.stdout or "[]"), result.stderr


@pytest.mark.e2e
def test_check_fetches_and_parses_against_the_demo_market_it_starts(tmp_path: Path) -> None:
    config, ports = bundled_config(tmp_path)
    home = tmp_path / "home"
    code, results, stderr = checked(config, home, "runpod", "skypilot", "lambda", "smm")
    assert code == 0, stderr
    # the command's own demo market, on free ports (demo.autostart), not the configured ones
    assert "this command reads its own copy of the demo market (the same SIMULATED pages" in stderr
    by_name = {r["source"]: r for r in results}
    for name, result in by_name.items():
        assert result["failure"] is None, name
        assert result["simulated"] is True and result["rows"] > 0, name
        assert len(result["samples"]) == 3, name
        path = "" if name in ("jygpu", "smm") else f"/{name}"
        assert re.fullmatch(rf"http://127\.0\.0\.1:\d+{path}", result["url"]), result["url"]
        assert f":{ports['platforms']}/" not in result["url"]
    assert by_name["skypilot"]["generations"][0].startswith("SkyPilot vms.csv, catalog v8 (aws)")
    assert len(by_name["skypilot"]["generations"]) > 1  # the clouds' GpuInfo differ
    assert by_name["runpod"]["generations"] == ["GraphQL gpuTypes answer (JSON)"]
    assert by_name["lambda"]["generations"] == ["instance-types API answer (JSON)"]
    assert by_name["smm"]["generations"] == ["its one format"]
    assert by_name["smm"]["quotes"] == by_name["smm"]["rows"]
    assert " USD (USD/" in by_name["runpod"]["samples"][0]  # as listed, currency and unit
    assert " CNY (" in by_name["smm"]["samples"][0]
    # nothing was loaded, and the market stopped with the command
    assert not (home / "gpuprice.duckdb").exists()
    assert not port_answers("127.0.0.1", ports["platforms"])


@pytest.mark.e2e
def test_check_prints_for_people(tmp_path: Path) -> None:
    config, _ = bundled_config(tmp_path)
    result = runner.invoke(
        app,
        ["sources", "check", "vastai", "--config", str(config)],
        env={"GPUPRICE_HOME": str(tmp_path / "home")},
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("vastai ok SIMULATED http://127.0.0.1:") and "UTC)" in lines[0]
    assert lines[1] == "  format: its one format"
    assert lines[2].startswith("  rows: ") and "offers" in lines[2] and "quotes" in lines[2]
    assert sum(line.startswith("  price: ") for line in lines) == 3


@pytest.mark.e2e
def test_a_failed_check_is_one_line_saying_what_to_do_and_exit_1(tmp_path: Path) -> None:
    # runpod points at a port nothing serves: the market is then not ours to start either
    config, _ = bundled_config(
        tmp_path, {"runpod": f'demo_url = "http://127.0.0.1:{free_port()}/runpod"'}
    )
    result = runner.invoke(
        app,
        ["sources", "check", "runpod", "--config", str(config)],
        env={"GPUPRICE_HOME": str(tmp_path / "home")},
    )
    assert result.exit_code == 1
    failure = [line for line in result.stderr.splitlines() if "FAILED" in line]
    assert len(failure) == 1 and "gpuprice demo-market" in failure[0], result.stderr
    assert "Traceback" not in result.output


@pytest.mark.e2e
def test_a_page_that_does_not_parse_fails_the_check_and_the_others_still_count(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    # two catalogs: the real v6 DigitalOcean one, and an HTML page where aws's should be
    loopback.script("/catalogs/v8/do/vms.csv", reply(200, (REAL / "v6/do/vms.csv").read_bytes()))
    loopback.script("/catalogs/v8/aws/vms.csv", reply(200, b"<html><h1>Moved</h1></html>"))
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f"""{FAST_HTTP}
[sources.skypilot]
demo_url = "{loopback.url}"
[sources.skypilot.catalog]
clouds = ["do", "aws"]
""",
        encoding="utf-8",
    )
    code, results, _ = checked(config, tmp_path / "home", "skypilot")
    assert code == 1
    (result,) = results
    assert result["rows"] == 2 and len(result["samples"]) == 2
    assert result["samples"][0].startswith("H100 ×1 hourly: 6.74 USD (USD/card-hour; listed as ")
    assert result["generations"] == [
        "SkyPilot vms.csv, catalog v8 (do), GpuInfo as a Python literal, lower-case keys",
        "SkyPilot vms.csv? not one this adapter reads (catalog v8)",
    ]
    assert result["failure"].startswith("1 of 2 page(s) would load no rows; first, ")
    assert "body is HTML" in result["failure"]
    assert "gpuprice parse skypilot FILE" in result["failure"]


@pytest.mark.e2e
def test_check_in_live_sends_the_secret_and_loads_nothing(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    sent: list[str | None] = []
    answer = reply(200, (LIVE / "lambda_instance_types.json").read_bytes())

    def record(handler: BaseHTTPRequestHandler) -> None:
        sent.append(handler.headers.get("Authorization"))
        answer(handler)

    loopback.script("/api/v1/instance-types", record)
    config = tmp_path / "gpuprice.toml"
    config.write_text(f'{FAST_HTTP}\n[sources.lambda]\nlive_url = "{loopback.url}"\n', "utf-8")
    home = tmp_path / "home"
    result = runner.invoke(
        app,
        ["sources", "check", "lambda", "--config", str(config)],
        env={
            "GPUPRICE_HOME": str(home),
            "GPUPRICE_PROFILE": "live",
            "GPUPRICE_LAMBDA_API_KEY": "secret_key_123",
        },
    )
    assert result.exit_code == 0, result.output
    assert sent == ["Bearer secret_key_123"]
    assert result.stdout.startswith(f"lambda ok {loopback.url} (fetched ")  # not SIMULATED
    assert "  format: instance-types API answer (JSON)" in result.stdout
    assert "secret_key_123" not in result.output
    assert not (home / "gpuprice.duckdb").exists()


def test_check_of_an_unconfigured_source_exits_2(tmp_path: Path) -> None:
    config, _ = bundled_config(tmp_path)
    code, results, stderr = checked(config, tmp_path / "home", "nope")
    assert (code, results) == (2, [])
    assert "not configured: nope" in stderr and "vastai" in stderr


def test_check_in_live_without_the_secret_says_what_to_set(tmp_path: Path) -> None:
    config = tmp_path / "gpuprice.toml"
    config.write_text(FAST_HTTP, encoding="utf-8")
    result = runner.invoke(
        app,
        ["sources", "check", "autodl", "--config", str(config)],
        env={"GPUPRICE_HOME": str(tmp_path / "home"), "GPUPRICE_PROFILE": "live"},
    )
    assert result.exit_code == 1
    assert "set GPUPRICE_AUTODL_TOKEN" in result.stderr
    assert not (tmp_path / "home" / "gpuprice.duckdb").exists()
