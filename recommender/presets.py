"""Model presets: real architectures by name.

Two kinds. The original ten carry figures copied by hand from each model's config.json
on Hugging Face (layers, hidden, heads, KV heads, head dim, vocab) and its model card
(parameter count). The newer ones are built from the config.json itself, stored verbatim
under recommender/configs/ (recommender/configs/README.md cites each file: repository,
path, commit) and read with recommender.hf_config, so their parameter counts are counted
from the architecture, not copied.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from importlib import resources

from recommender.architecture import Architecture
from recommender.errors import RecommenderInputError
from recommender.hf_config import architecture_from_config

# Kept as a name: older code imports ModelPreset; a preset is an Architecture now.
ModelPreset = Architecture


def _hf(repo: str, facts: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json ({facts})"


def _legacy(name: str, params: float, active: float, layers: int, hidden: int, heads: int,
            kv: int, head_dim: int, vocab: int, source: str) -> Architecture:  # fmt: skip
    repo = source.removeprefix("https://huggingface.co/").split("/blob/")[0]
    return Architecture(
        name, params, active, layers, hidden, kv, head_dim, vocab, estimated=False,
        source=source, heads=heads, attention="mha" if kv == heads else "gqa",
        figure_sources=(("params_b", "model card"), ("layers/heads/kv_heads", "config.json")),
        repo_id=repo,
    )  # fmt: skip


_QWEN25_32B = dict(layers=64, hidden=5120, heads=40, kv=8, head_dim=128, vocab=152064)

_LEGACY = (
    _legacy("Qwen2.5-7B-Instruct", 7.62, 7.62, 28, 3584, 28, 4, 128, 152064,
            _hf("Qwen/Qwen2.5-7B-Instruct",
                "num_hidden_layers 28, hidden_size 3584, 28 heads, num_key_value_heads 4; "
                "7.62B params per model card")),
    _legacy("Qwen2.5-14B-Instruct", 14.7, 14.7, 48, 5120, 40, 8, 128, 152064,
            _hf("Qwen/Qwen2.5-14B-Instruct",
                "num_hidden_layers 48, hidden_size 5120, 40 heads, num_key_value_heads 8; "
                "14.7B params per model card")),
    _legacy("Qwen2.5-32B-Instruct", 32.8, 32.8, **_QWEN25_32B,
            source=_hf("Qwen/Qwen2.5-32B-Instruct",
                       "num_hidden_layers 64, hidden_size 5120, 40 heads, num_key_value_heads 8; "
                       "32.8B params in the safetensors (model card rounds to 32.5B)")),
    _legacy("Qwen2.5-72B-Instruct", 72.7, 72.7, 80, 8192, 64, 8, 128, 152064,
            _hf("Qwen/Qwen2.5-72B-Instruct",
                "num_hidden_layers 80, hidden_size 8192, 64 heads, num_key_value_heads 8; "
                "72.7B params per model card")),
    _legacy("Llama-3.1-8B-Instruct", 8.03, 8.03, 32, 4096, 32, 8, 128, 128256,
            _hf("meta-llama/Llama-3.1-8B-Instruct",
                "num_hidden_layers 32, hidden_size 4096, 32 heads, num_key_value_heads 8; "
                "8.03B params")),
    _legacy("Llama-3.1-70B-Instruct", 70.6, 70.6, 80, 8192, 64, 8, 128, 128256,
            _hf("meta-llama/Llama-3.1-70B-Instruct",
                "num_hidden_layers 80, hidden_size 8192, 64 heads, num_key_value_heads 8; "
                "70.6B params")),
    _legacy("DeepSeek-R1-Distill-Qwen-32B", 32.8, 32.8, **_QWEN25_32B,
            source=_hf("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
                       "Qwen2.5-32B architecture: num_hidden_layers 64, hidden_size 5120, "
                       "40 heads, num_key_value_heads 8; 32.8B params")),
    _legacy("GLM-4-9B-Chat", 9.4, 9.4, 40, 4096, 32, 2, 128, 151552,
            _hf("THUDM/glm-4-9b-chat",
                "num_layers 40, hidden_size 4096, 32 heads, multi_query_group_num 2, "
                "kv_channels 128, padded_vocab_size 151552; 9.4B params")),
    _legacy("Mixtral-8x7B-Instruct-v0.1", 46.7, 12.9, 32, 4096, 32, 8, 128, 32000,
            _hf("mistralai/Mixtral-8x7B-Instruct-v0.1",
                "MoE, 8 experts / 2 active; num_hidden_layers 32, hidden_size 4096, 32 heads, "
                "num_key_value_heads 8; 46.7B total / 12.9B active per Mistral's release")),
)  # fmt: skip

# name -> (Hugging Face repo, stored file, where it was copied from: repository, path, commit)
_AIC = "ai-dynamo/aiconfigurator"
_AIC_HEAD = "095f58a51c4ca8e61b66ec108d86f223f8d559ce"
_AIC_DIR = "aic-core/src/aiconfigurator_core/model_configs"
CONFIG_PRESETS: dict[str, tuple[str, str, str, str, str]] = {
    "DeepSeek-V3": ("deepseek-ai/DeepSeek-V3", "deepseek-ai--DeepSeek-V3.json",
                    _AIC, f"{_AIC_DIR}/deepseek-ai--DeepSeek-V3_config.json", _AIC_HEAD),
    "DeepSeek-R1": ("deepseek-ai/DeepSeek-R1", "deepseek-ai--DeepSeek-R1.json",
                    _AIC, f"{_AIC_DIR}/deepseek-ai--DeepSeek-R1_config.json", _AIC_HEAD),
    "Qwen3-8B": ("Qwen/Qwen3-8B", "Qwen--Qwen3-8B.json",
                 _AIC, f"{_AIC_DIR}/Qwen--Qwen3-8B_config.json", _AIC_HEAD),
    "Qwen3-32B": ("Qwen/Qwen3-32B", "Qwen--Qwen3-32B.json",
                  _AIC, f"{_AIC_DIR}/Qwen--Qwen3-32B_config.json", _AIC_HEAD),
    "Qwen3-30B-A3B": ("Qwen/Qwen3-30B-A3B", "Qwen--Qwen3-30B-A3B.json",
                      _AIC, f"{_AIC_DIR}/Qwen--Qwen3-30B-A3B_config.json", _AIC_HEAD),
    "Qwen3-235B-A22B": ("Qwen/Qwen3-235B-A22B", "Qwen--Qwen3-235B-A22B.json",
                        _AIC, f"{_AIC_DIR}/Qwen--Qwen3-235B-A22B_config.json", _AIC_HEAD),
    "GLM-4.5-Air": ("zai-org/GLM-4.5-Air", "zai-org--GLM-4.5-Air.json",
                    "triple-mu/aiconfigurator",
                    "src/aiconfigurator/model_configs/zai-org--GLM-4.5-Air_config.json",
                    "ba4dfe36eb020fb154c7aaaf04c77fb06c714b72"),
    "Kimi-K2-Instruct": ("moonshotai/Kimi-K2-Instruct", "moonshotai--Kimi-K2-Instruct.json",
                         _AIC, f"{_AIC_DIR}/moonshotai--Kimi-K2-Instruct_config.json",
                         _AIC_HEAD),
    "Llama-3.3-70B-Instruct": ("meta-llama/Llama-3.3-70B-Instruct",
                               "meta-llama--Llama-3.3-70B-Instruct.json", _AIC,
                               "src/aiconfigurator/model_configs/"
                               "meta-llama--Llama-3.3-70B-Instruct_config.json",
                               "f577ab8432dfc9970fea27853a24861a6d3076cf"),
}  # fmt: skip


def stored_config(file: str) -> dict:
    """One of the verbatim config.json copies shipped in recommender/configs/."""
    text = resources.files("recommender.configs").joinpath(file).read_text(encoding="utf-8")
    return json.loads(text)


def _from_config(name: str) -> Architecture:
    repo, file, copied_repo, copied_path, commit = CONFIG_PRESETS[name]
    source = (
        f"https://huggingface.co/{repo}/blob/main/config.json, stored verbatim as "
        f"recommender/configs/{file} (copied from {copied_repo} {copied_path} @ {commit})"
    )
    return architecture_from_config(stored_config(file), name=name, source=source, repo_id=repo)


class _Presets(Mapping[str, Architecture]):
    """Every preset by name. The config-based ones are read from their stored config.json
    when first asked for: a command that uses one preset does not parse them all."""

    def __init__(self) -> None:
        self._built: dict[str, Architecture] = {p.name: p for p in _LEGACY}
        self._names = (*self._built, *CONFIG_PRESETS)

    def __getitem__(self, name: str) -> Architecture:
        if name not in self._built:
            if name not in CONFIG_PRESETS:
                raise KeyError(name)
            self._built[name] = _from_config(name)
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


PRESETS: Mapping[str, Architecture] = _Presets()

# People type "Llama-3.1-8B" or "qwen2.5-72b"; the suffixes below don't change the
# architecture, so lookups ignore them.
_SUFFIXES = ("-instruct-v0.1", "-instruct", "-chat")


def _key(name: str) -> str:
    key = name.strip().lower()
    for suffix in _SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key


_BY_KEY = {_key(name): name for name in PRESETS}


def find_preset(name: str) -> Architecture | None:
    """The preset called `name` (case-insensitive, with or without -Instruct/-Chat)."""
    found = _BY_KEY.get(_key(name)) if isinstance(name, str) else None
    return None if found is None else PRESETS[found]


def get_preset(name: str) -> Architecture:
    """Look a preset up by name, case-insensitive, with or without -Instruct/-Chat."""
    if preset := find_preset(name):
        return preset
    allowed = ", ".join(PRESETS)
    raise RecommenderInputError(
        f"unknown model preset {name!r}; allowed: {allowed} (or give params_b instead, or a "
        "config.json path, a directory holding one, or a Hugging Face id)"
    )
