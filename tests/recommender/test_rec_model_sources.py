"""`--model` as a config.json, a directory, a Hugging Face cache entry; bad ones exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[2] / "recommender" / "configs"
QWEN3_8B = (CONFIGS / "Qwen--Qwen3-8B.json").read_text()
REVISION = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path


def fake_hf_cache(cache: Path, repo: str, files: dict[str, str]) -> None:
    """huggingface_hub's layout: models--owner--name/{refs/main, snapshots/<rev>/<file>}."""
    folder = cache / ("models--" + repo.replace("/", "--"))
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(REVISION)
    snapshot = folder / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    for name, text in files.items():
        (snapshot / name).write_text(text)


def model_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["recommend", "--task", "inference", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["model"]


def test_a_config_file_and_its_directory_give_the_same_model(tmp_path: Path) -> None:
    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    (folder / "config.json").write_text(QWEN3_8B)
    by_file = model_json("--model", str(folder / "config.json"))
    by_dir = model_json("--model", str(folder))
    assert by_file == by_dir
    assert by_file["params_b"] == pytest.approx(8.1907, abs=1e-4)
    assert by_file["active_params_b"] == by_file["params_b"]
    assert by_file["attention"] == "gqa"
    assert by_file["kv_bytes_per_token"] == 2 * 36 * 8 * 128 * 2  # bf16 by default
    assert by_file["figure_sources"]["kv_heads"] == "num_key_value_heads"
    assert by_file["source"].endswith("config.json")


def test_a_hugging_face_id_is_read_from_the_cache_with_its_index(tmp_path: Path) -> None:
    index = json.dumps({"metadata": {"total_size": 16_381_470_720}, "weight_map": {}})
    fake_hf_cache(
        tmp_path / "hf",
        "Qwen/Qwen3-8B",
        {"config.json": QWEN3_8B, "model.safetensors.index.json": index},
    )
    model = model_json("--model", "Qwen/Qwen3-8B")
    assert model["name"] == "Qwen/Qwen3-8B"
    assert model["checkpoint_gb"] == pytest.approx(16.381)
    assert model["figure_sources"]["checkpoint_gb"].endswith("total_size")
    assert "Hugging Face cache" in model["source"]


@pytest.mark.parametrize(
    ("make", "hint"),
    [
        (lambda d: (d / "config.json").write_text('{"hidden_size": 4096,'), "not valid JSON"),
        (lambda d: (d / "config.json").write_text('{"hidden_size": 4096}'), "no num_hidden_layers"),
        (lambda d: (d / "config.json").write_text("[1, 2]"), "must be a JSON object"),
        (lambda d: None, "holds no config.json"),
    ],
)
def test_broken_or_partial_configs_exit_2_with_one_line(tmp_path: Path, make, hint: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    make(folder)
    result = runner.invoke(app, ["recommend", "--task", "inference", "--model", str(folder)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert hint in result.stderr and "invalid input" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_missing_path_and_an_uncached_id_offline_say_what_to_do(tmp_path: Path) -> None:
    missing = runner.invoke(
        app, ["recommend", "--task", "inference", "--model", str(tmp_path / "none.json")]
    )
    assert missing.exit_code == 2 and "no such file or directory" in missing.stderr
    offline = runner.invoke(app, ["recommend", "--task", "inference", "--model", "Qwen/Qwen9-1B"])
    assert offline.exit_code == 2
    text = " ".join(offline.stderr.split())
    assert "hf download Qwen/Qwen9-1B config.json" in text and "HF_HUB_OFFLINE" in text
    assert len(offline.stderr.strip().splitlines()) == 1


def test_presets_still_resolve_by_name() -> None:
    model = model_json("--model", "deepseek-v3")
    assert (model["name"], model["attention"]) == ("DeepSeek-V3", "mla")
    assert model["quantization"]["precision"] == "fp8"


def test_a_model_name_too_long_for_a_path_is_bad_input() -> None:
    from configuration.recommender_feed import resolve_model
    from recommender.errors import RecommenderInputError

    with pytest.raises(RecommenderInputError, match="not a usable path"):
        resolve_model("a" * 2000)


def test_an_unreachable_hub_fails_at_once_in_one_line_without_retries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without HF_HUB_OFFLINE, an uncached id on a machine that cannot reach the Hub: one
    connection attempt (the reachability check), then huggingface_hub's own offline lookup,
    one line, no retry lines (it used to be 26 s and 12 "Retrying" lines)."""
    import socket

    from configuration.recommender_feed import hub_unreachable
    from tests.support.loopback import free_port

    monkeypatch.delenv("HF_HUB_OFFLINE")
    port = free_port()  # nothing listens there: connection refused, as offline
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    attempts: list[object] = []
    connect = socket.socket.connect

    def counted(sock: socket.socket, address: object) -> object:
        attempts.append(address)
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", counted)
    hub_unreachable.cache_clear()
    try:
        result = runner.invoke(app, ["recommend", "--task", "inference", "--model", "acme/nope-7b"])
    finally:
        hub_unreachable.cache_clear()
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Retry" not in result.output
    assert f"127.0.0.1:{port} unreachable" in lines[0]
    assert "hf download acme/nope-7b config.json" in lines[0]
    assert attempts == [("127.0.0.1", port)]  # one attempt, no retries


def test_hf_hub_offline_makes_no_connection_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    attempts: list[object] = []
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: attempts.append(address))
    result = runner.invoke(app, ["recommend", "--task", "inference", "--model", "acme/nope-7b"])
    assert result.exit_code == 2
    assert "HF_HUB_OFFLINE is set" in result.stderr
    assert attempts == []
