"""Fuzzing every `gpuprice` command's arguments (hypothesis, bounded and derandomized; typer's
CliRunner over gpuprice.cli:app, in-process, against a small real warehouse).

The commands and their parameters are enumerated from the app, and each parameter must have a
generator of bad values here (a new command or option fails `test_every_parameter_is_fuzzed`
until it has one). One parameter is bad per invocation, the others valid. Every outcome must be
the documented exit code, 2 for bad input (1 where documented: `backup` / `restore` that cannot
be done), with a message on stderr and never a traceback. Free-text filters (`quarantine list
--source`, `--note`) take any text: there the outcome must be a normal answer, even for text
that looks like rich markup. Arguments hold no NUL byte: an operating system's argv cannot.
"""

from __future__ import annotations

import json
import math
import re
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from configuration.schema import valid_host
from gpuprice.cli import app
from gpuprice.cli_common import FIRST_DAY, LAST_DAY, card_id
from scrapers.sources import ADAPTER_NAMES
from tests.support.handles import warehouse_at
from tests.support.seeded_warehouse import seed_demo_history
from warehouse.store.backup import backup

pytestmark = pytest.mark.fuzz

runner = CliRunner()
FUZZ = settings(
    max_examples=8,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FIXTURE_PAGE = (
    Path(__file__).parent.parent / "fixtures" / "pages" / "jygpu_container_2026-09-04.html"
)

# Text a user might type by mistake, or an attacker on purpose (no NUL: argv cannot hold it).
_SAMPLES = [
    "", " ", "-", "[/x]", "[red]x", "[bold", "\x1b[31m", "a\nb", "\t", "💥", "x" * 2000,
    "1e309", "nan", "inf", "-inf", "-1", "0", "99999999999", "٣", "１", "0x10", "1_0",
    "../../etc/passwd", "~nobody", "Mars/Olympus", "not a host!", "'; DROP TABLE offer; --",
]  # fmt: skip
TEXT = st.sampled_from(_SAMPLES) | st.text(
    st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=16
)


def _number(text: str) -> float | None:
    """What a number option might read ``text`` as (typer takes "1.0" and " 2" for ints)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def bad_int(low: int, high: int) -> st.SearchStrategy[str]:
    def maybe_valid(text: str) -> bool:
        number = _number(text)
        return number is not None and number.is_integer() and low <= number <= high

    outside = st.integers(max_value=low - 1) | st.integers(min_value=high + 1)
    return outside.map(str) | TEXT.filter(lambda t: not maybe_valid(t))


def bad_float(low: float, high: float, *, low_open: bool = False) -> st.SearchStrategy[str]:
    """Numbers outside [low, high] (or (low, high] with low_open), inf, nan, and text."""

    def maybe_valid(text: str) -> bool:
        number = _number(text)
        if number is None:
            return False
        return (low < number if low_open else low <= number) and number <= high

    under = st.floats(max_value=low, exclude_max=not low_open)
    outside = under | st.floats(min_value=high, exclude_min=True) | st.just(math.nan)
    return outside.map(repr) | TEXT.filter(lambda t: not maybe_valid(t))


def _is_day(text: str) -> bool:
    try:
        return FIRST_DAY <= date.fromisoformat(text) <= LAST_DAY
    except ValueError:
        return False


BAD_DAY = st.sampled_from(["0001-01-01", "9999-12-31", "1999-12-31", "2101-01-01"]) | (
    st.dates().map(date.isoformat) | TEXT
).filter(lambda t: not _is_day(t))
_DURATION = re.compile(r"^(\d+)\s*([mhdw])$")


def _is_since(text: str) -> bool:
    match = _DURATION.match(text.strip().lower())
    if match:
        return int(match[1]) < 10**6  # a few thousand years back: still a moment
    try:
        return date(1, 2, 1) <= date.fromisoformat(text.strip()[:10]) <= date(9999, 11, 30)
    except ValueError:
        return False


BAD_SINCE = st.sampled_from(
    ["99999999999d", "99999999999w", "1e5d", "-1d", "7 days", "0001-01-01T00:00+14:00"]
) | TEXT.filter(lambda t: not _is_since(t))


def _is_host(text: str) -> bool:
    try:
        valid_host(text)
    except ValueError:
        return False
    return True


@dataclass
class Context:
    """Paths the generated values refer to (made once per module)."""

    home: Path
    page: Path
    a_file: Path
    bad_configs: list[Path]
    bad_backups: list[Path]
    busy_port: int


def _bad_config(ctx: Context, index: int) -> str:
    return str(ctx.bad_configs[index % len(ctx.bad_configs)])


@dataclass(frozen=True)
class Case:
    values: st.SearchStrategy[Any]
    args: Callable[[Context, Any], list[str]]
    codes: frozenset[int] = frozenset({2})


def option(command: list[str], name: str, *rest: str) -> Callable[[Context, Any], list[str]]:
    return lambda ctx, value: [*command, f"{name}={value}", *rest]


CONFIG = st.integers(min_value=0, max_value=4)


def config_case(command: list[str], *rest: str) -> Case:
    return Case(CONFIG, lambda ctx, i: [*command, "--config", _bad_config(ctx, i), *rest])


def _closed_port() -> int:
    """A loopback port nothing listens on: a connection to it is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_CLOSED = f"http://127.0.0.1:{_closed_port()}"
_CLOSED_RAW = [f"--raw-url={_CLOSED}"]


_CLOSED_ARCHIVE = [f"--archive-url={_CLOSED}"]
_CLOSED_API = [f"--api-url={_CLOSED}"]


RECOMMEND = ["recommend", "--task", "inference", "--model", "qwen2.5-7b"]
CASES: dict[tuple[str, str], Case] = {
    ("run", "as_of"): Case(BAD_DAY, option(["run"], "--as-of")),
    ("run", "config"): config_case(["run"]),
    ("backfill", "days"): Case(bad_int(1, 3650), option(["backfill"], "--days")),
    ("backfill", "end"): Case(BAD_DAY, option(["backfill", "--days", "1"], "--end")),
    ("backfill", "config"): config_case(["backfill", "--days", "1"]),
    ("parse", "source"): Case(
        TEXT.filter(lambda t: t not in ADAPTER_NAMES),
        lambda ctx, v: ["parse", "--", v, str(ctx.page)],
    ),
    ("parse", "file"): Case(
        st.sampled_from(["missing.html", "", "."]) | TEXT.map(lambda t: f"/nonexistent/{t}"),
        lambda ctx, v: ["parse", "--", "jygpu", v if v != "." else str(ctx.home)],
    ),
    ("parse", "config"): Case(
        CONFIG, lambda ctx, i: ["parse", "--config", _bad_config(ctx, i), "jygpu", str(ctx.page)]
    ),
    ("parse", "cloud"): Case(
        TEXT.filter(lambda t: not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", t)),
        lambda ctx, v: ["parse", f"--cloud={v}", "--", "skypilot", str(ctx.page)],
    ),
    # any text names a request (a parser only reads it); one with spaces cannot be a URL
    ("parse", "url"): Case(
        TEXT,
        lambda ctx, v: ["parse", f"--url={v}", "--", "jygpu", str(ctx.page)],
        frozenset({0, 2}),
    ),
    ("sources check", "names"): Case(
        TEXT.filter(lambda t: t not in ADAPTER_NAMES and t != "cloudgrid"),
        lambda ctx, v: ["sources", "check", "--", v],
    ),
    ("sources check", "config"): config_case(["sources", "check"], "jygpu"),
    ("demo-market", "host"): Case(
        TEXT.filter(lambda t: not _is_host(t)), option(["demo-market"], "--host")
    ),
    ("demo-market", "jygpu_port"): Case(bad_int(0, 65535), option(["demo-market"], "--jygpu-port")),
    ("demo-market", "smm_port"): Case(bad_int(0, 65535), option(["demo-market"], "--smm-port")),
    ("demo-market", "platforms_port"): Case(
        bad_int(0, 65535), option(["demo-market"], "--platforms-port")
    ),
    ("demo-market", "config"): config_case(["demo-market"]),
    ("up", "config"): config_case(["up"]),
    ("backup", "directory"): Case(
        st.sampled_from(["file", "under-file", "proc", "existing"]),
        lambda ctx, v: ["backup", _backup_target(ctx, v)],
        frozenset({1}),
    ),
    ("backup", "config"): Case(
        CONFIG, lambda ctx, i: ["backup", "--config", _bad_config(ctx, i), str(ctx.home / "bk")]
    ),
    ("restore", "directory"): Case(
        st.integers(min_value=0, max_value=20),
        lambda ctx, i: ["restore", str(ctx.bad_backups[i % len(ctx.bad_backups)])],
        frozenset({1}),
    ),
    ("restore", "config"): Case(
        CONFIG, lambda ctx, i: ["restore", "--config", _bad_config(ctx, i), str(ctx.home)]
    ),
    # a file (a usage error, 2), a directory under a file or one that cannot be made (1)
    ("index export", "directory"): Case(
        st.sampled_from(["file", "under-file", "proc"]),
        lambda ctx, v: ["index", "export", _backup_target(ctx, v)],
        frozenset({1, 2}),
    ),
    ("prune-raw", "days"): Case(bad_int(1, 36_500), option(["prune-raw"], "--days")),
    ("prune-raw", "config"): config_case(["prune-raw", "--days", "1"]),
    ("breakeven", "gpu"): Case(  # any text that names no single card (gpuprice.cli_common)
        TEXT.filter(lambda t: card_id(t)[0] is None), option(["breakeven"], "--gpu")
    ),
    ("breakeven", "config"): config_case(["breakeven"]),
    ("alerts", "since"): Case(BAD_SINCE, option(["alerts"], "--since")),
    ("alerts", "lang"): Case(
        TEXT.filter(lambda t: t not in {"en", "zh"}), option(["alerts"], "--lang")
    ),
    ("alerts", "config"): config_case(["alerts"]),
    ("quarantine list", "status"): Case(
        TEXT.filter(
            lambda t: t not in {"held", "confirmed", "accepted", "rejected", "noted", "all"}
        ),
        option(["quarantine", "list"], "--status"),
    ),
    ("quarantine list", "source"): Case(
        TEXT, option(["quarantine", "list"], "--source"), frozenset({0})
    ),
    ("quarantine list", "fmt"): Case(
        TEXT.filter(lambda t: t not in {"table", "csv", "json"}),
        option(["quarantine", "list"], "--format"),
    ),
    ("quarantine list", "config"): config_case(["quarantine", "list"]),
    ("quarantine accept", "ids"): Case(TEXT, lambda ctx, v: ["quarantine", "accept", "--", v]),
    ("quarantine accept", "note"): Case(
        TEXT, lambda ctx, v: ["quarantine", "accept", f"--note={v}", "--", "nosuchid"]
    ),
    ("quarantine accept", "config"): config_case(["quarantine", "accept"], "x"),
    ("quarantine reject", "ids"): Case(TEXT, lambda ctx, v: ["quarantine", "reject", "--", v]),
    ("quarantine reject", "note"): Case(
        TEXT, lambda ctx, v: ["quarantine", "reject", f"--note={v}", "--", "nosuchid"]
    ),
    ("quarantine reject", "config"): config_case(["quarantine", "reject"], "x"),
    ("recommend", "task"): Case(
        TEXT.filter(lambda t: t.strip().lower() not in {"inference", "training"}),
        option(["recommend", "--model", "qwen2.5-7b"], "--task"),
    ),
    ("recommend", "method"): Case(TEXT, option(RECOMMEND, "--method")),
    ("recommend", "model"): Case(TEXT, option(["recommend", "--task", "inference"], "--model")),
    ("recommend", "params"): Case(
        bad_float(0, 10_000, low_open=True),
        option(["recommend", "--task", "inference"], "--params"),
    ),
    ("recommend", "precision"): Case(TEXT, option(RECOMMEND, "--precision")),
    ("recommend", "kv_precision"): Case(TEXT, option(RECOMMEND, "--kv-precision")),
    ("recommend", "gpu_memory_utilization"): Case(
        bad_float(0, 1, low_open=True), option(RECOMMEND, "--gpu-memory-utilization")
    ),
    ("recommend", "engine"): Case(
        TEXT.filter(lambda t: t.strip().lower() not in {"vllm", "sglang"}),
        option(RECOMMEND, "--engine"),
    ),
    ("recommend", "objective"): Case(
        TEXT.filter(lambda t: t.strip().lower() not in {"monthly", "tokens"}),
        option(RECOMMEND, "--objective"),
    ),
    ("recommend", "compare_api"): Case(
        bad_float(0, sys.float_info.max, low_open=True), option(RECOMMEND, "--compare-api")
    ),
    ("recommend", "context"): Case(bad_int(1, 10_000_000), option(RECOMMEND, "--context")),
    ("recommend", "concurrency"): Case(bad_int(1, 100_000), option(RECOMMEND, "--concurrency")),
    ("recommend", "hours"): Case(bad_float(0, 744, low_open=True), option(RECOMMEND, "--hours")),
    ("recommend", "budget"): Case(
        bad_float(0, sys.float_info.max, low_open=True), option(RECOMMEND, "--budget")
    ),
    ("recommend", "dataset_gb"): Case(
        bad_float(0, sys.float_info.max), option(RECOMMEND, "--dataset-gb")
    ),
    ("recommend", "lora_rank"): Case(
        bad_int(1, 1024),
        option(
            ["recommend", "--task", "training", "--method", "lora", "--model", "qwen2.5-7b"],
            "--lora-rank",
        ),
    ),  # fmt: skip
    ("recommend", "zero_stage"): Case(
        bad_int(0, 3),
        option(
            ["recommend", "--task", "training", "--method", "full", "--model", "qwen2.5-7b"],
            "--zero-stage",
        ),
    ),  # fmt: skip
    ("recommend", "source"): Case(TEXT, option(RECOMMEND, "--source")),
    ("recommend", "config"): config_case(RECOMMEND),
    ("fx import", "where"): Case(
        st.sampled_from(["page", "a_file", "home", "", "-"])
        | TEXT.map(lambda t: f"/nonexistent/{t}"),
        lambda ctx, v: [
            "fx",
            "import",
            "--",
            {"page": str(ctx.page), "a_file": str(ctx.a_file), "home": str(ctx.home)}.get(v, v),
        ],
    ),
    ("fx import", "config"): config_case(["fx", "import"], "eurofxref-hist.csv"),
    ("fx list", "currency"): Case(TEXT, option(["fx", "list"], "--currency"), frozenset({0})),
    ("fx list", "since"): Case(BAD_DAY, option(["fx", "list"], "--since")),
    ("fx list", "config"): config_case(["fx", "list"]),
    ("fx accept", "days"): Case(BAD_DAY, lambda ctx, v: ["fx", "accept", "--", v]),
    # any currency: one line that none of its rates is held (exit 1)
    ("fx accept", "currency"): Case(
        TEXT, option(["fx", "accept"], "--currency", "2025-05-08"), frozenset({1})
    ),
    ("fx accept", "config"): config_case(["fx", "accept"], "2025-05-08"),
    ("reparse", "source"): Case(
        TEXT.filter(lambda t: t not in ADAPTER_NAMES), option(["reparse"], "--source")
    ),
    ("reparse", "since"): Case(BAD_DAY, option(["reparse", "--source", "jygpu"], "--since")),
    ("reparse", "config"): config_case(["reparse", "--source", "jygpu"]),
    # history: every bad value is refused before a fetch (one line, exit 2); the archive and
    # GitHub given are a closed loopback port, so a valid-looking value fails at once (exit 1)
    ("history wayback", "source"): Case(
        TEXT.filter(lambda t: t not in ADAPTER_NAMES and t != "cloudgrid"),
        lambda ctx, v: ["history", "wayback", *_CLOSED_ARCHIVE, "--", v],
    ),
    ("history wayback", "url"): Case(
        TEXT,
        lambda ctx, v: ["history", "wayback", f"--url={v}", *_CLOSED_ARCHIVE, "runpod"],
        frozenset({1, 2}),
    ),
    ("history wayback", "first"): Case(
        BAD_DAY, lambda ctx, v: ["history", "wayback", f"--from={v}", *_CLOSED_ARCHIVE, "runpod"]
    ),
    ("history wayback", "last"): Case(
        BAD_DAY, lambda ctx, v: ["history", "wayback", f"--to={v}", *_CLOSED_ARCHIVE, "runpod"]
    ),
    ("history wayback", "every"): Case(
        TEXT.filter(lambda t: t not in {"day", "week", "month"}),
        lambda ctx, v: ["history", "wayback", f"--every={v}", "runpod"],
    ),
    ("history wayback", "archive_url"): Case(
        TEXT, option(["history", "wayback", "runpod"], "--archive-url"), frozenset({1, 2})
    ),
    ("history wayback", "config"): config_case(["history", "wayback"], "runpod"),
    ("history skypilot", "cloud"): Case(
        TEXT.filter(lambda t: not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", t)),
        lambda ctx, v: ["history", "skypilot", "--", v],
    ),
    ("history skypilot", "version"): Case(
        TEXT.filter(lambda t: not re.fullmatch(r"v\d+", t)),
        option(["history", "skypilot", "lambda"], "--version"),
    ),
    ("history skypilot", "first"): Case(
        BAD_DAY, option(["history", "skypilot", "aws", *_CLOSED_API], "--from")
    ),
    ("history skypilot", "last"): Case(
        BAD_DAY, option(["history", "skypilot", "aws", *_CLOSED_API], "--to")
    ),
    ("history skypilot", "every"): Case(
        TEXT.filter(lambda t: t not in {"day", "week", "month"}),
        option(["history", "skypilot", "aws"], "--every"),
    ),
    ("history skypilot", "api_url"): Case(
        TEXT, option(["history", "skypilot", "aws", *_CLOSED_RAW], "--api-url"), frozenset({1, 2})
    ),
    ("history skypilot", "raw_url"): Case(
        TEXT,
        lambda ctx, v: ["history", "skypilot", "aws", f"--raw-url={v}", *_CLOSED_API],
        frozenset({1, 2}),
    ),
    ("history skypilot", "config"): config_case(["history", "skypilot"], "aws"),
    ("history csv", "file"): Case(
        st.sampled_from(["", "."]) | TEXT.map(lambda t: f"/nonexistent/{t}"),
        lambda ctx, v: ["history", "csv", "--mapping", "gpu_price_track", "--", v],
    ),
    ("history csv", "mapping"): Case(
        TEXT.filter(lambda t: t != "gpu_price_track"),
        lambda ctx, v: ["history", "csv", f"--mapping={v}", "--", str(ctx.a_file)],
    ),
    ("history csv", "source"): Case(
        TEXT.filter(lambda t: not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", t)),
        lambda ctx, v: [
            "history",
            "csv",
            "--mapping",
            "gpu_price_track",
            f"--source={v}",
            "--",
            str(ctx.a_file),
        ],
    ),  # fmt: skip
    ("history csv", "config"): config_case(
        ["history", "csv", "--mapping", "gpu_price_track"], "/nonexistent.csv"
    ),
    ("sql", "query"): Case(
        TEXT.filter(lambda t: t.strip() != ""), lambda ctx, v: ["sql", "--", f"SELEC {v}"]
    ),
    ("sql", "limit"): Case(bad_int(1, 10_000_000), option(["sql", "--", "select 1"], "--limit")),
    ("sql", "timeout"): Case(
        bad_float(0, 3600, low_open=True),
        lambda ctx, v: ["sql", f"--timeout={v}", "--", "select 1"],
    ),
    ("sql", "fmt"): Case(
        TEXT.filter(lambda t: t not in {"table", "csv", "json"}),
        lambda ctx, v: ["sql", f"--format={v}", "--", "select 1"],
    ),
    ("sql", "config"): Case(
        CONFIG, lambda ctx, i: ["sql", "--config", _bad_config(ctx, i), "select 1"]
    ),
}


def _backup_target(ctx: Context, kind: str) -> str:
    return str(
        {
            "file": ctx.a_file,
            "under-file": ctx.a_file / "sub",
            "proc": Path("/proc/no-such-dir/backup"),
            "existing": ctx.bad_backups[0],  # holds gpuprice.duckdb already
        }[kind]
    )


def _commands() -> Iterator[tuple[str, Any]]:
    # list_commands / get_command, not .commands: gpuprice.cli loads a command module only
    # when one of its commands is asked for (LAZY_COMMANDS)
    def walk(command: Any, prefix: str) -> Iterator[tuple[str, Any]]:
        ctx = click_context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            path = f"{prefix} {name}".strip()
            if hasattr(sub, "commands"):
                yield from walk(sub, path)
            else:
                yield path, sub

    yield from walk(typer.main.get_command(app), "")


def click_context(command: Any) -> Any:
    return command.context_class(command)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Context]:
    root = tmp_path_factory.mktemp("fuzz_cli")
    home = root / "home"
    seed_demo_history(warehouse_at(home / "gpuprice.duckdb"), date(2026, 9, 5), 2)
    a_file = root / "a_file"
    a_file.write_text("not a directory\n", encoding="utf-8")
    configs = {
        "missing.toml": None,
        "not_utf8.toml": b'[http]\nuser_agent = "\xff"\n',
        "not_toml.toml": b"[schedule\n",
        "bad_value.toml": b'[schedule]\ntimezone = "Mars/Olympus"\n',
        "deep.toml": b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n",
    }
    for name, body in configs.items():
        if body is not None:
            (root / name).write_bytes(body)
    good = root / "good_backup"
    backup(warehouse_at(home / "gpuprice.duckdb"), good)
    bad_backups = [good]  # (backup onto it: exists already)
    for name, manifest in {
        "no_manifest": None,
        "not_json": "{",
        "no_tables": "[]",
        "old_manifest": json.dumps({"tables": {"offer": 1}}),
        "wrong_counts": None,
        "tampered": None,
    }.items():
        target = root / name
        target.mkdir()
        (target / "gpuprice.duckdb").write_bytes((good / "gpuprice.duckdb").read_bytes())
        text = (good / "manifest.json").read_text(encoding="utf-8")
        if name == "wrong_counts":
            text = text.replace('"offer": ', '"offer": 1')
        if name == "tampered":
            import duckdb

            with duckdb.connect(str(target / "gpuprice.duckdb")) as con:
                con.execute("UPDATE offer SET price = price * 10")
        if manifest is not None:
            text = manifest
        if name != "no_manifest":
            (target / "manifest.json").write_text(text, encoding="utf-8")
        bad_backups.append(target)
    bad_backups += [a_file, root / "missing_dir"]
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        yield Context(
            home, FIXTURE_PAGE, a_file, [root / n for n in configs], bad_backups[1:],
            busy.getsockname()[1],
        )  # fmt: skip
    finally:
        busy.close()


def invoke(ctx: Context, args: list[str]) -> Any:
    return runner.invoke(
        app,
        args,
        env={"GPUPRICE_HOME": str(ctx.home), "GPUPRICE_CONFIG": None, "GPUPRICE_PROFILE": None},
    )


def assert_clean(result: Any, codes: frozenset[int], args: list[str]) -> None:
    shown = f"{args!r} -> {result.exit_code}: {result.output[-600:]}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{args!r} raised {result.exception!r}"
    )
    assert result.exit_code in codes, shown
    assert "Traceback" not in result.output, shown
    if result.exit_code:
        assert result.stderr.strip(), f"{args!r}: exit {result.exit_code} without a message"


def test_every_parameter_is_fuzzed() -> None:
    params = {
        (path, p.name)
        for path, command in _commands()
        for p in command.params
        if not getattr(p, "is_flag", False)  # a flag takes no value to make bad
    }
    assert params == set(CASES), (
        f"not fuzzed: {sorted(params - set(CASES))}; gone: {sorted(set(CASES) - params)}"
    )


@pytest.mark.parametrize("key", sorted(CASES), ids=[" ".join(k) for k in sorted(CASES)])
def test_bad_arguments_exit_with_their_code_and_a_message(
    ctx: Context, key: tuple[str, str]
) -> None:
    case = CASES[key]

    @FUZZ
    @given(value=case.values)
    def one(value: Any) -> None:
        args = case.args(ctx, value)
        assert_clean(invoke(ctx, args), case.codes, args)

    one()


@pytest.mark.parametrize("option", ["--jygpu-port", "--smm-port", "--platforms-port"])
def test_demo_market_on_a_port_in_use_exits_2_naming_it(ctx: Context, option: str) -> None:
    args = ["demo-market", f"{option}={ctx.busy_port}"]
    result = invoke(ctx, args)
    assert_clean(result, frozenset({2}), args)
    assert "Address already in use" in result.stderr and str(ctx.busy_port) in result.stderr


@pytest.mark.parametrize("host", ["nothing.invalid", "192.0.2.1"])
def test_demo_market_on_a_host_it_cannot_bind_exits_2(ctx: Context, host: str) -> None:
    args = ["demo-market", f"--host={host}"]
    result = invoke(ctx, args)
    assert_clean(result, frozenset({2}), args)
    assert f"cannot serve the demo market on {host}" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["backfill", "--days", "2", "--end", "0001-01-01"], "--end '0001-01-01': use a day"),
        (["alerts", "--since", "99999999999d"], "--since '99999999999d': use a duration"),
        (["prune-raw", "--days", "99999999999"], "less than or equal to 36500"),
        (["demo-market", "--jygpu-port", "70000"], "65535"),
    ],
)
def test_the_reported_overflows_are_messages(ctx: Context, args: list[str], message: str) -> None:
    result = invoke(ctx, args)
    assert_clean(result, frozenset({2}), args)
    assert message in result.stderr
