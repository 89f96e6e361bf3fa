"""Issue 39's start-up: `gpuprice --help` imports no command module, and `gpuprice recommend`
reads the warehouse's place from the environment instead of loading (and validating every
scraper adapter of) the whole configuration. Times are measured by bench/recommend_startup.py
(docs/PERFORMANCE.md); these tests check what is imported and that the answers agree.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer.testing import CliRunner

import gpuprice.commands
from configuration.recommender_feed import WarehouseSettingError, warehouse_from_environment
from configuration.settings import load_settings
from gpuprice.cli import LAZY_COMMANDS, app

ROOT = Path(__file__).resolve().parents[2]


def registered() -> dict[str, tuple[str, str]]:
    """What each module of gpuprice/commands registers: name -> (module, help's first
    paragraph), in the order the modules register them."""
    found: dict[str, tuple[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(gpuprice.commands.__path__), key=lambda m: m.name):
        scratch = typer.Typer()
        importlib.import_module(f"gpuprice.commands.{info.name}").register(scratch)
        for name, command in typer.main.get_group(scratch).commands.items():
            found[name] = (info.name, (command.help or "").split("\n\n")[0])
    return found


def test_the_lazy_table_is_what_the_command_modules_register() -> None:
    assert registered() == LAZY_COMMANDS


def test_the_help_lists_every_command_as_the_eager_cli_did() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name, (_, help_text) in LAZY_COMMANDS.items():
        first_words = " ".join(help_text.split()[:5])
        assert name in result.output and first_words in " ".join(result.output.split())
    for own in ("run", "backfill", "demo-market", "up"):
        assert own in result.output


def test_every_lazy_command_runs_its_own_help() -> None:
    for name in LAZY_COMMANDS:
        result = CliRunner().invoke(app, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)


def imported_after(args: list[str], env: dict[str, str]) -> set[str]:
    """The modules a fresh `gpuprice ARGS` process has loaded when it ends."""
    code = (
        "import sys, json, atexit\n"
        "atexit.register(lambda: sys.__stderr__.write('MODULES=' + json.dumps(sorted(sys.modules))))\n"
        f"sys.argv = ['gpuprice', *{args!r}]\n"
        "from gpuprice.main import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    marker = done.stderr.rsplit("MODULES=", 1)
    assert len(marker) == 2, done.stderr[-2000:]
    return set(json.loads(marker[1]))


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUPRICE_", "HF_"))}
    return env | {"GPUPRICE_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1"}


def test_top_level_help_imports_no_command_module(clean_env: dict[str, str]) -> None:
    modules = imported_after(["--help"], clean_env)
    assert not {m for m in modules if m.startswith("gpuprice.commands.")}
    assert not {"configuration.schema", "pydantic_settings", "duckdb", "polars"} & modules


def test_recommend_loads_neither_the_configuration_nor_the_warehouse_libraries(
    clean_env: dict[str, str],
) -> None:
    modules = imported_after(
        ["recommend", "--task", "inference", "--model", "Qwen3-32B", "--context", "8192"],
        clean_env,
    )
    assert "gpuprice.commands.recommend" in modules and "recommender" in modules
    # the only other command module is not loaded, nor what loading the settings pulls in
    assert "gpuprice.commands.sql" not in modules
    assert not {"configuration.schema", "pydantic_settings", "duckdb", "polars"} & modules
    assert not {m for m in modules if m.startswith("scrapers.sources")}


def test_recommend_reads_a_warehouse_without_polars(clean_env: dict[str, str]) -> None:
    """With a warehouse the prices are read by DuckDB as rows: Polars and PyArrow (0.17 s of
    imports) stay out (issue 39: 0.57 s with them, 0.39 s without)."""
    from warehouse.ingest.reference import load_reference
    from warehouse.store.db import write_connection
    from warehouse.store.handle import Warehouse

    home = Path(clean_env["GPUPRICE_HOME"])
    home.mkdir(parents=True)
    with write_connection(Warehouse(home / "gpuprice.duckdb")) as con:
        load_reference(con)
    modules = imported_after(
        ["recommend", "--task", "inference", "--model", "Qwen3-32B", "--context", "8192"],
        clean_env,
    )
    assert "duckdb" in modules and "warehouse.read.recommender" in modules  # it read them
    assert not {"polars", "pyarrow"} & modules


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"GPUPRICE_HOME": "/srv/gpuprice"},
        {"GPUPRICE_HOME": "relative/home"},
        {"gpuprice_home": "/lower/case"},  # pydantic-settings matches names without case
        {"GPUPRICE_HOME": "/srv/x", "GPUPRICE_DUCKDB_MEMORY_LIMIT": "1GB"},
    ],
)
def test_the_warehouse_from_the_environment_is_the_settings_one(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for key in [k for k in os.environ if k.upper().startswith("GPUPRICE_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    expected = load_settings().warehouse
    assert warehouse_from_environment() == expected


def test_a_bad_warehouse_environment_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_DUCKDB_MEMORY_LIMIT", "lots")
    with pytest.raises(WarehouseSettingError, match="GPUPRICE_DUCKDB_MEMORY_LIMIT"):
        warehouse_from_environment()
    result = CliRunner().invoke(app, ["recommend", "--task", "inference", "--model", "Qwen3-8B"])
    assert result.exit_code == 2 and "GPUPRICE_DUCKDB_MEMORY_LIMIT" in result.output


def test_a_named_config_is_still_validated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path))
    bad = tmp_path / "bad.toml"
    bad.write_text("[http]\nnope = 1\n")
    args = ["recommend", "--task", "inference", "--model", "Qwen3-8B"]
    named = CliRunner().invoke(app, [*args, "--config", str(bad)])
    assert named.exit_code == 2 and "nope" in named.output
    assert CliRunner().invoke(app, args).exit_code == 0  # the file places no warehouse


def test_a_command_module_missing_from_the_table_is_still_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gpuprice.cli as cli

    without_sql = {k: v for k, v in cli.LAZY_COMMANDS.items() if v[0] != "sql"}
    monkeypatch.setattr(cli, "LAZY_COMMANDS", without_sql)
    scratch = typer.Typer(cls=cli._LazyGroup)
    scratch.command("own")(lambda: None)  # a group, as gpuprice's own commands make it
    cli._register_unlisted(scratch)
    result = CliRunner().invoke(scratch, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "sql" in result.output and "recommend" in result.output


def test_no_arguments_print_the_help_and_exit_2() -> None:
    result = CliRunner().invoke(app, [])
    assert result.exit_code == 2
    assert "[OPTIONS] COMMAND" in result.output and "recommend  " in result.output
