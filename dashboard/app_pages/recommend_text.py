"""UI strings the recommend page adds for models from a config.json or a Hugging Face id
(kept here, not in dashboard/i18n.py, so this page's helper owns them)."""

PASTE = "config.json (paste)"
HF_ID = "Hugging Face id"
CONFIG_LABEL = "config.json 内容 / Paste a config.json"
CONFIG_HELP = (
    "The model's config.json as published with its weights; parameters, heads, KV heads, "
    "MLA ranks, experts, sliding window and quantization are read from it."
)
HF_LABEL = "Hugging Face id (e.g. Qwen/Qwen3-8B)"
HF_HELP = (
    "Read from the local Hugging Face cache (HF_HUB_CACHE); fetched with huggingface_hub "
    "when online."
)
NO_CONFIG = "粘贴 config.json / Paste the model's config.json first."
NO_HF_ID = "填写 Hugging Face id / Give a Hugging Face id such as Qwen/Qwen3-8B."
LAYOUT = "layout"
