"""Model architecture presets with the figures KV-cache and activation maths need.

Every figure is copied from the model's config.json on Hugging Face (layers, hidden,
KV heads, head dim, vocab) and its model card (parameter count). head_dim is
hidden / attention heads unless the config states it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from recommender.errors import RecommenderInputError


@dataclass(frozen=True)
class ModelPreset:
    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    vocab: int
    source: str

    @property
    def is_moe(self) -> bool:
        return self.active_params_b < self.params_b


def _hf(repo: str, facts: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json ({facts})"


_QWEN25_32B = dict(layers=64, hidden=5120, kv_heads=8, head_dim=128, vocab=152064)

_PRESETS = (
    ModelPreset(
        "Qwen2.5-7B-Instruct", 7.62, 7.62, 28, 3584, 4, 128, 152064,
        _hf("Qwen/Qwen2.5-7B-Instruct",
            "num_hidden_layers 28, hidden_size 3584, 28 heads, num_key_value_heads 4; "
            "7.62B params per model card"),
    ),
    ModelPreset(
        "Qwen2.5-14B-Instruct", 14.7, 14.7, 48, 5120, 8, 128, 152064,
        _hf("Qwen/Qwen2.5-14B-Instruct",
            "num_hidden_layers 48, hidden_size 5120, 40 heads, num_key_value_heads 8; "
            "14.7B params per model card"),
    ),
    ModelPreset(
        "Qwen2.5-32B-Instruct", 32.8, 32.8, **_QWEN25_32B,
        source=_hf("Qwen/Qwen2.5-32B-Instruct",
                   "num_hidden_layers 64, hidden_size 5120, 40 heads, num_key_value_heads 8; "
                   "32.8B params in the safetensors (model card rounds to 32.5B)"),
    ),
    ModelPreset(
        "Qwen2.5-72B-Instruct", 72.7, 72.7, 80, 8192, 8, 128, 152064,
        _hf("Qwen/Qwen2.5-72B-Instruct",
            "num_hidden_layers 80, hidden_size 8192, 64 heads, num_key_value_heads 8; "
            "72.7B params per model card"),
    ),
    ModelPreset(
        "Llama-3.1-8B-Instruct", 8.03, 8.03, 32, 4096, 8, 128, 128256,
        _hf("meta-llama/Llama-3.1-8B-Instruct",
            "num_hidden_layers 32, hidden_size 4096, 32 heads, num_key_value_heads 8; "
            "8.03B params"),
    ),
    ModelPreset(
        "Llama-3.1-70B-Instruct", 70.6, 70.6, 80, 8192, 8, 128, 128256,
        _hf("meta-llama/Llama-3.1-70B-Instruct",
            "num_hidden_layers 80, hidden_size 8192, 64 heads, num_key_value_heads 8; "
            "70.6B params"),
    ),
    ModelPreset(
        "DeepSeek-R1-Distill-Qwen-32B", 32.8, 32.8, **_QWEN25_32B,
        source=_hf("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
                   "Qwen2.5-32B architecture: num_hidden_layers 64, hidden_size 5120, "
                   "num_key_value_heads 8; 32.8B params"),
    ),
    ModelPreset(
        "GLM-4-9B-Chat", 9.4, 9.4, 40, 4096, 2, 128, 151552,
        _hf("THUDM/glm-4-9b-chat",
            "num_layers 40, hidden_size 4096, multi_query_group_num 2, kv_channels 128, "
            "padded_vocab_size 151552; 9.4B params"),
    ),
    ModelPreset(
        "Qwen3-30B-A3B", 30.5, 3.3, 48, 2048, 4, 128, 151936,
        _hf("Qwen/Qwen3-30B-A3B",
            "MoE, 128 experts / 8 active; num_hidden_layers 48, hidden_size 2048, "
            "num_key_value_heads 4, head_dim 128; 30.5B total / 3.3B activated per model card"),
    ),
    ModelPreset(
        "Mixtral-8x7B-Instruct-v0.1", 46.7, 12.9, 32, 4096, 8, 128, 32000,
        _hf("mistralai/Mixtral-8x7B-Instruct-v0.1",
            "MoE, 8 experts / 2 active; num_hidden_layers 32, hidden_size 4096, "
            "num_key_value_heads 8; 46.7B total / 12.9B active per Mistral's release"),
    ),
)  # fmt: skip

PRESETS: MappingProxyType[str, ModelPreset] = MappingProxyType({p.name: p for p in _PRESETS})

# People type "Llama-3.1-8B" or "qwen2.5-72b"; the suffixes below don't change the
# architecture, so lookups ignore them.
_SUFFIXES = ("-instruct-v0.1", "-instruct", "-chat")


def _key(name: str) -> str:
    key = name.strip().lower()
    for suffix in _SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key


_BY_KEY = {_key(p.name): p for p in _PRESETS}


def get_preset(name: str) -> ModelPreset:
    """Look a preset up by name, case-insensitive, with or without -Instruct/-Chat."""
    if isinstance(name, str) and (preset := _BY_KEY.get(_key(name))):
        return preset
    allowed = ", ".join(PRESETS)
    raise RecommenderInputError(
        f"unknown model preset {name!r}; allowed: {allowed} (or give params_b instead)"
    )
