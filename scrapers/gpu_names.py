"""Map any source's spelling of a GPU to a canonical id ``<model>-<vram>g``, or ``"unknown"``.

Sources spell the same card many ways ("RTX 4090 24GB", "4090-24G", "NVIDIA GeForce RTX 4090",
"昇腾910B", "A100-SXM4-80GB"). The rule is: recognise the model by one pattern from
:data:`MODELS`, take the memory size from the name and/or the caller's ``vram_gb``, and return
the id only when everything agrees. Anything ambiguous is ``UNKNOWN_GPU``, never a guess:

* an unrecognised model, or a known model's different variant (RTX 4090D, H100 NVL, 910B4);
* a name matching two models ("H100/H200");
* a model sold in several sizes (A100 40/80 GB) with no size given;
* a size that contradicts the model ("H100 24GB") or contradicts ``vram_gb``.

To support a new card, add one :class:`GpuModel` row to :data:`MODELS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scrapers.rows import UNKNOWN_GPU
from scrapers.units import nfkc

__all__ = ["CANONICAL_GPUS", "MODELS", "GpuModel", "canonical_gpu", "nominal_vram_gb"]


@dataclass(frozen=True, slots=True)
class GpuModel:
    """One card model: how its name looks, which memory sizes exist, and the size to assume.

    ``default_vram`` is set only when the model ships in a single stock size, so a name
    without a size still identifies the card (e.g. every stock RTX 4090 has 24 GB; the
    48 GB one is a board-level mod that sources always label as such).
    """

    pattern: re.Pattern[str]
    sizes: dict[int, str]
    default_vram: int | None
    exclude: re.Pattern[str] | None = None


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Patterns run on the NFKC-normalised, upper-cased name. A digit or letter directly after the
# model number means another card (4090D, 5090D, 910B4, H200 vs H20), hence the lookaheads.
MODELS: tuple[GpuModel, ...] = (
    GpuModel(
        _re(r"(?<!\d)4090(?![0-9A-Z])"),
        {24: "rtx4090-24g", 48: "rtx4090-48g"},
        24,
        exclude=_re(r"4090\s+D(?![A-Z])"),
    ),
    GpuModel(
        _re(r"(?<!\d)5090(?![0-9A-Z])"),
        {32: "rtx5090-32g"},
        32,
        exclude=_re(r"5090\s+D(?![A-Z])"),
    ),
    GpuModel(_re(r"(?<![0-9A-Z])A100(?![0-9A-Z])"), {40: "a100-40g", 80: "a100-80g"}, None),
    # H100 NVL is a 94 GB card: a different product, not an 80 GB H100.
    GpuModel(_re(r"(?<![0-9A-Z])H100(?![0-9A-Z])"), {80: "h100-80g"}, 80, exclude=_re(r"\bNVL\b")),
    GpuModel(_re(r"(?<![0-9A-Z])H200(?![0-9A-Z])"), {141: "h200-141g"}, 141),
    GpuModel(_re(r"(?<![0-9A-Z])H20(?![0-9A-Z])"), {96: "h20-96g"}, 96),
    GpuModel(_re(r"(?<![0-9A-Z])L40S(?![0-9A-Z])"), {48: "l40s-48g"}, 48),
    # Ascend 910B; "ASCEND910B" has a letter right before the number, so only digits are barred.
    GpuModel(_re(r"(?<!\d)910B(?![0-9A-Z])"), {64: "910b-64g"}, 64),
)

CANONICAL_GPUS: frozenset[str] = frozenset(gid for m in MODELS for gid in m.sizes.values())

# "24GB", "80 GB", "4090-24G", "SXM4-80GB"; not "24GDDR6X" (that G starts a memory type) and
# not "PCIE 4.0". Only the memory size of the card is ever written this way in a GPU name.
_VRAM = re.compile(r"(?<![\d.])(\d{1,3})\s*G(?:B)?(?![0-9A-Z])")


def _normalise(name: str) -> str:
    # NFKC folds full-width letters and digits (ＲＴＸ４０９０) into ASCII.
    return nfkc(name).upper()


def _model(text: str) -> GpuModel | None:
    """The one model a normalised name names, or ``None`` (no model, two models, a variant)."""
    matches = [m for m in MODELS if m.pattern.search(text)]
    if len(matches) != 1:
        return None
    model = matches[0]
    if model.exclude is not None and model.exclude.search(text):
        return None
    return model


# A measured memory size is the marketed one when within this fraction of it: an L40S reports
# 46068 MiB (44.99 GiB, 6.3 % under its 48 GB) on vast.ai; dstack's gpuhunt allows 7 % too.
_MEASURED_TOLERANCE = 0.07


def nominal_vram_gb(name: str, memory_mib: float) -> int:
    """The marketed memory size (the "24" of "24GB") of a card whose memory a source reports
    as measured MiB, as vast.ai's ``gpu_ram`` does (an RTX 4090 reports 24564, an H100 SXM
    81559, an H200 143771). Marketed sizes are GiB-sized, so the figure is ``memory_mib /
    1024``: the model's size within 7 % of that, else that figure rounded."""
    gib = memory_mib / 1024
    model = _model(_normalise(name))
    if model is not None:
        for size in model.sizes:
            if abs(gib - size) <= size * _MEASURED_TOLERANCE:
                return size
    return round(gib)


def canonical_gpu(name: str, vram_gb: int | None = None) -> str:
    """Canonical id for a GPU as spelled by a source, or ``"unknown"`` when not certain.

    ``vram_gb`` is the card's memory if the source states it separately (e.g. a 显存 column).
    """
    text = _normalise(name)
    if not text:
        return UNKNOWN_GPU

    model = _model(text)
    if model is None:
        return UNKNOWN_GPU

    sizes = {int(size) for size in _VRAM.findall(text)}
    if len(sizes) > 1:
        return UNKNOWN_GPU  # two sizes
    size = sizes.pop() if sizes else None
    if vram_gb is not None:
        if size is not None and size != vram_gb:
            return UNKNOWN_GPU
        size = vram_gb
    if size is None:
        size = model.default_vram
    if size is None:
        return UNKNOWN_GPU
    return model.sizes.get(size, UNKNOWN_GPU)
