"""Fuzzing gpuprice.toml (hypothesis, bounded and derandomized): every key of the file's models
gets hostile values (a string where a number or boolean is meant, out-of-range and non-finite
numbers, markup, control characters, unknown zones and hosts, arrays, tables, dates), and whole
files get bytes that are not UTF-8 or nest too deeply. The loader either accepts the value, and
then the Dagster definitions build from it (no "crash later"), or refuses it with a
ConfigError; a value of a type the key does not take is always refused (strict, no coercion),
and `gpuprice breakeven --config` exits 2 (refused) or 1 (accepted; no warehouse) with one
message and no traceback."""

from __future__ import annotations

import json
import math
import types
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typer.testing import CliRunner

from configuration.schema import FileConfig
from configuration.settings import ConfigError, load_settings
from gpuprice.cli import app
from pipelines.definitions import build_defs

pytestmark = pytest.mark.fuzz

runner = CliRunner()
FUZZ = settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# A valid table to put each fuzzed key in, for tables that need other keys to be valid.
RULE = {"name": "r", "gpu": "rtx4090-24g", "usage_hours": 300, "threshold_hours": 30}
GENERIC = {"adapter": "generic", "demo_url": "http://127.0.0.1:9", "extract": {"paths": [""]}}
BASES: dict[tuple[str, ...], dict[str, Any]] = {
    ("alerts", "rules"): RULE,
    ("alerts", "index_rules"): {"name": "i", "gpu": "rtx4090-24g", "move_pct": 5},
    ("sources", "fuzzed", "extract"): {"paths": [""]},
    ("history", "csv", "fuzzed"): {"time": "t", "provider": "p", "gpu": "g", "price": "x"},
}


def _inner(annotation: Any) -> list[Any]:
    """The types an annotation holds: itself, or the members of Optional / Union / Annotated."""
    if get_origin(annotation) is Annotated:
        return _inner(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        return [t for arg in get_args(annotation) for t in _inner(arg)]
    return [annotation]


def _leaves(model: type[BaseModel], path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """Every key of the file: (path, annotation). Sources' keys are fuzzed in jygpu, the
    generic extractor's in a generic source, the catalog's in skypilot's, rules' in one rule."""
    found = []
    for name, field in model.model_fields.items():
        here = path + (name,)
        inner = [t for t in _inner(field.annotation) if t is not type(None)]
        sub = next((t for t in inner if isinstance(t, type) and issubclass(t, BaseModel)), None)
        origin = get_origin(inner[0]) if inner else None
        if here == ("sources",):
            source = get_args(inner[0])[1]
            for key, leaf in _leaves(source, ()):
                owner = {"extract": "fuzzed", "catalog": "skypilot"}.get(key[0], "jygpu")
                found.append((("sources", owner, *key), leaf))
        elif (
            origin is list
            and isinstance(get_args(inner[0])[0], type)
            and issubclass(get_args(inner[0])[0], BaseModel)
        ):
            found += _leaves(get_args(inner[0])[0], here)
        elif (
            origin is dict
            and isinstance(get_args(inner[0])[1], type)
            and issubclass(get_args(inner[0])[1], BaseModel)
        ):
            # named tables ([history.csv.<name>]): their keys in one named "fuzzed"
            found += _leaves(get_args(inner[0])[1], (*here, "fuzzed"))
        elif sub is not None:
            found += _leaves(sub, here)
        else:
            found.append((here, field.annotation))
    return found


KEYS = _leaves(FileConfig, ())


def _takes(annotation: Any) -> set[type]:
    """The TOML value types a key takes (TOML has no None; a path is a string)."""
    taken: set[type] = set()
    for t in _inner(annotation):
        if t is bool:
            taken.add(bool)
        elif t is int:
            taken.add(int)
        elif t in (float, Decimal):
            taken |= {int, float}
        elif t in (str, Path) or get_origin(t) is Literal:
            taken.add(str)
        elif t is date:
            taken.add(date)
        elif get_origin(t) is list:
            taken.add(list)
        elif get_origin(t) is dict:  # a table of tables ([history.csv.<name>])
            taken.add(dict)
    return taken


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, int | date):
        return str(value) if isinstance(value, int) else value.isoformat()
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's (a lone surrogate is refused)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_file(data: dict[str, dict[str, Any]]) -> str:
    return "".join(
        f"[{table}]\n" + "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in keys.items())
        for table, keys in data.items()
    )


# the arrays of tables ([[alerts.rules]]): each key is fuzzed in a list of one
LISTS = (("alerts", "rules"), ("alerts", "index_rules"))


def config_with(path: tuple[str, ...], value: Any) -> dict[str, dict[str, Any]]:
    """A file that is valid but for ``value`` at ``path``."""
    data: dict[str, Any] = {"sources": {"fuzzed": json.loads(json.dumps(GENERIC))}}
    node = data
    for depth, part in enumerate(path[:-1]):
        base = BASES.get(path[: depth + 1], {})
        if path[: depth + 1] in LISTS:
            rule = dict(base)
            node[part] = [rule]
            node = rule
            continue
        node = node.setdefault(part, dict(base))
    node[path[-1]] = value
    return data


TEXT = st.sampled_from(
    ["", " ", "3", "false", "yes", "nan", "inf", "1e309", "-1", "０", "[/x]", "[red]x",
     "\x00", "a\nb", "Mars/Olympus", "not a host!", "256.1.1.1", "ftp://x", "http://",
     "*/0 * * * *", "~nobody/x", "../../etc/passwd", "💥" * 3, "x" * 3000]
) | st.text(max_size=20)  # fmt: skip
NUMBERS = (
    st.sampled_from([0, -1, 2**31, 2**63 - 1, -(2**63), 10**30, 0.5, -0.0, 1e308])
    | st.integers()
    | st.floats()
)
OTHER = (
    st.booleans()
    | st.dates()
    | st.lists(st.integers() | st.text(max_size=3), max_size=3)
    | st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)
)
BAD = TEXT | NUMBERS | OTHER


def _check(tmp_path: Path, text: str) -> Exception | None:
    config = tmp_path / "fuzz.toml"
    config.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        loaded = load_settings(config, home=tmp_path)
    except ConfigError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return exc
    build_defs(loaded).get_repository_def()  # what Dagster would refuse later
    return None


@pytest.mark.parametrize(("path", "annotation"), KEYS, ids=[".".join(p) for p, _ in KEYS])
def test_every_key_refuses_bad_values_with_a_config_error(
    tmp_path: Path, path: tuple[str, ...], annotation: Any
) -> None:
    takes = _takes(annotation)
    named = ".".join(path)
    for table in LISTS:  # as pydantic names it: alerts.rules.0.gpu
        named = named.replace(".".join(table) + ".", ".".join(table) + ".0.")

    @FUZZ
    @given(value=BAD)
    def one(value: Any) -> None:
        refused = _check(tmp_path, toml_file(config_with(path, value)))
        kind = type(value)
        if kind not in takes and not (kind is int and float in takes):
            assert refused is not None, f"{'.'.join(path)} = {value!r} was accepted"
            assert named in str(refused) or "not valid TOML" in str(refused)

    one()


def test_the_keys_cover_the_file(tmp_path: Path) -> None:
    """Every key the bundled gpuprice.toml sets is fuzzed (and the file itself loads)."""
    import tomllib

    from configuration.environment import DEFAULT_CONFIG

    def flat(table: dict[str, Any], path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
        leaves: set[tuple[str, ...]] = set()
        for key, value in table.items():
            if isinstance(value, dict):
                leaves |= flat(value, path + (key,))
            elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                for item in value:  # an array of tables ([[alerts.rules]])
                    leaves |= flat(item, path + (key,))
            else:
                leaves.add(path + (key,))
        return leaves

    def generic(path: tuple[str, ...]) -> tuple[str, ...]:  # any source's keys are one set
        if path[:2] == ("history", "csv"):  # and any CSV mapping's
            return ("history", "csv", *path[3:])
        return ("sources", *path[2:]) if path[0] == "sources" else path

    bundled = flat(tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8")))
    fuzzed = {generic(p) for p, _ in KEYS}
    assert {generic(p) for p in bundled} - fuzzed == set()
    assert _check(tmp_path, DEFAULT_CONFIG.read_text(encoding="utf-8")) is None


@FUZZ
@given(
    table=st.sampled_from(sorted(FileConfig.model_fields)),
    key=st.text(min_size=1, max_size=12),
    value=BAD,
)
def test_unknown_keys_are_refused(tmp_path: Path, table: str, key: str, value: Any) -> None:
    known = FileConfig.model_fields[table].annotation
    inner = [t for t in _inner(known) if isinstance(t, type) and issubclass(t, BaseModel)]
    if table in ("sources", "alerts") or key in inner[0].model_fields:
        return
    assert _check(tmp_path, toml_file({table: {key: value}})) is not None


@FUZZ
@given(
    junk=st.binary(min_size=1, max_size=200).filter(lambda b: not _is_utf8(b)),
    depth=st.integers(min_value=1, max_value=20_000),
)
def test_files_that_are_not_utf8_or_nest_too_deep_are_config_errors(
    tmp_path: Path, junk: bytes, depth: int
) -> None:
    config = tmp_path / "junk.toml"
    config.write_bytes(b'[http]\nuser_agent = "' + junk + b'"\n')
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_settings(config, home=tmp_path)
    config.write_text("x = " + "[" * depth + "]" * depth + "\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_settings(config, home=tmp_path)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize(
    "text",
    [
        '[schedule]\ntimezone = "Mars/Olympus"\n',
        '[services]\nhost = "not a host!"\n',
        '[http]\nretries = "3"\n',
        '[schedule]\nrunning = "false"\n',
        '[sources.jygpu]\nenabled = "yes"\n',
        "x = " + "[" * 5000 + "]" * 5000 + "\n",
    ],
    ids=["timezone", "host", "retries", "running", "enabled", "deep"],
)
def test_the_cli_exits_2_with_one_message(tmp_path: Path, text: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(text, encoding="utf-8")
    result = runner.invoke(
        app, ["breakeven", "--config", str(config)], env={"GPUPRICE_HOME": str(tmp_path)}
    )
    assert result.exit_code == 2, result.output
    assert (
        "Traceback" not in result.output
        and result.exception is None
        or isinstance(result.exception, SystemExit)
    )
    assert result.stderr.strip() and result.stdout == ""


def test_a_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_bytes(b'[http]\nuser_agent = "\xff\xfe"\n')
    result = runner.invoke(
        app, ["breakeven", "--config", str(config)], env={"GPUPRICE_HOME": str(tmp_path)}
    )
    assert result.exit_code == 2
    assert "is not UTF-8 text (byte 0xff on line 2): save it as UTF-8" in result.stderr
