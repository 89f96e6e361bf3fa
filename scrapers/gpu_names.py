"""Map any source's spelling of a GPU to a canonical id ``<model>-<vram>g``, or ``"unknown"``.

Sources spell the same card many ways ("RTX 4090 24GB", "4090-24G", "NVIDIA GeForce RTX 4090",
"昇腾910B", "A100-SXM4-80GB", "Tesla V100-SXM2-32GB", "RTX6000-Ada"). The rule is: recognise
the model by one pattern from :data:`MODELS`, take the memory size from the name and/or the
caller's ``vram_gb``, and return the id only when everything agrees. Anything ambiguous is
``UNKNOWN_GPU``, never a guess:

* an unrecognised model, or a variant the table keeps apart (RTX 4090 Laptop, H200 NVL, 910B4);
* a name matching two models ("H100/H200", "RTX A6000/A40");
* a model sold in several sizes (A100 40/80 GB, V100 16/32 GB, H20 96/141 GB) with no size;
* a size that contradicts the model ("H100 24GB") or contradicts ``vram_gb``.

To support a new card, add one :class:`GpuModel` row to :data:`MODELS` (and its row to
``warehouse/ingest/data/gpu_spec.csv``).
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

    ``named_sizes`` are sizes believed only when the *name* states them, not when they come
    from a separate memory figure: an RTX 3060 8GB is rare, while an RTX 3060 Ti (8 GB)
    whose name lost its "Ti" is not (SkyPilot's vast catalog lists ``1x-RTX_3060_Ti`` under
    the accelerator name ``RTX3060``).
    """

    pattern: re.Pattern[str]
    sizes: dict[int, str]
    default_vram: int | None
    exclude: re.Pattern[str] | None = None
    named_sizes: frozenset[int] = frozenset()


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Patterns run on the NFKC-normalised, upper-cased name. A digit or letter directly after the
# model number means another card (4090D, 5090D, 910B4, H200 vs H20, A100 vs A10, L40S vs
# L40), hence the lookarounds; separators between words may be a space, "-" or "_" or none.
_SEP = r"[\s_-]*"
# Notebook chips share the desktop card's number but not its memory or power.
_LAPTOP = r"LAPTOP|MOBILE|NOTEBOOK|MAX[\s_-]*Q"

MODELS: tuple[GpuModel, ...] = (
    # -- GeForce --------------------------------------------------------------------------
    GpuModel(
        _re(r"(?<!\d)3060(?![0-9A-Z])"),
        {12: "rtx3060-12g", 8: "rtx3060-8g"},
        12,
        exclude=_re(rf"3060{_SEP}TI(?![A-Z])|{_LAPTOP}"),
        named_sizes=frozenset({8}),
    ),
    GpuModel(
        _re(rf"(?<!\d)3080{_SEP}TI(?![A-Z])"), {12: "rtx3080ti-12g"}, 12, exclude=_re(_LAPTOP)
    ),
    GpuModel(
        _re(r"(?<!\d)3090(?![0-9A-Z])"),
        {24: "rtx3090-24g"},
        24,
        exclude=_re(rf"3090{_SEP}TI(?![A-Z])|{_LAPTOP}"),
    ),
    # The 3090 Ti is the full GA102 with faster memory and 450 W: its own card.
    GpuModel(_re(rf"(?<!\d)3090{_SEP}TI(?![A-Z])"), {24: "rtx3090ti-24g"}, 24),
    GpuModel(
        _re(r"(?<!\d)4090(?![0-9A-Z])"),
        {24: "rtx4090-24g", 48: "rtx4090-48g"},
        24,
        exclude=_re(rf"4090{_SEP}D(?![A-Z])|{_LAPTOP}"),
    ),
    # The China-market 4090 D (114 of the 4090's 128 SMs, 425 W) is never a 4090.
    GpuModel(_re(rf"(?<!\d)4090{_SEP}D(?![0-9A-Z])"), {24: "rtx4090d-24g"}, 24),
    GpuModel(
        _re(r"(?<!\d)5090(?![0-9A-Z])"),
        {32: "rtx5090-32g"},
        32,
        exclude=_re(rf"5090{_SEP}D(?![A-Z])|{_LAPTOP}"),
    ),
    # The 5090 D has the 5090's board but capped AI throughput; the "5090 D V2" has 24 GB.
    GpuModel(
        _re(rf"(?<!\d)5090{_SEP}D(?![0-9A-Z])"),
        {32: "rtx5090d-32g"},
        32,
        exclude=_re(rf"5090{_SEP}D{_SEP}V2"),
    ),
    # -- professional (workstation) --------------------------------------------------------
    # "RTX A6000", "RTXA6000", "RTX-A6000", "A6000"; never the RTX 6000 Ada.
    GpuModel(
        _re(r"(?:(?<![0-9A-Z])|(?<=RTX))A6000(?![0-9A-Z])"),
        {48: "rtxa6000-48g"},
        48,
        exclude=_re(r"ADA"),
    ),
    # "RTX 6000 Ada", "RTX6000-Ada", "RTX-6000-Ada"; a plain "RTX 6000" is the Turing Quadro.
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?6000{_SEP}ADA(?![A-Z])"), {48: "rtx6000ada-48g"}, 48
    ),
    # RTX PRO 6000 Blackwell (Workstation or Server Edition, 600 W); the 300 W Max-Q, MIG
    # slices and the China "6000D" are other products.
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?PRO{_SEP}6000(?!\d)"),
        {96: "rtxpro6000-96g"},
        96,
        exclude=_re(rf"MAX{_SEP}Q|\bMIG\b|6000{_SEP}D(?![A-Z])"),
    ),
    # -- data centre, NVIDIA ---------------------------------------------------------------
    GpuModel(_re(r"(?<![0-9A-Z])T4(?![0-9A-Z])"), {16: "t4-16g"}, 16),
    # V100 came in 16 and 32 GB with the same name: the size must be stated.
    GpuModel(_re(r"(?<![0-9A-Z])V100(?![0-9A-Z])"), {16: "v100-16g", 32: "v100-32g"}, None),
    GpuModel(_re(r"(?<![0-9A-Z])V100S(?![0-9A-Z])"), {32: "v100s-32g"}, 32),
    GpuModel(_re(r"(?<![0-9A-Z])A10(?![0-9A-Z])"), {24: "a10-24g"}, 24),  # not the A10G
    GpuModel(_re(r"(?<![0-9A-Z])A30(?![0-9A-Z])"), {24: "a30-24g"}, 24),
    GpuModel(_re(r"(?<![0-9A-Z])A40(?![0-9A-Z])"), {48: "a40-48g"}, 48),
    GpuModel(_re(r"(?<![0-9A-Z])A100(?![0-9A-Z])"), {40: "a100-40g", 80: "a100-80g"}, None),
    GpuModel(_re(r"(?<![0-9A-Z])A800(?![0-9A-Z])"), {40: "a800-40g", 80: "a800-80g"}, None),
    GpuModel(_re(r"(?<![0-9A-Z])L4(?![0-9A-Z])"), {24: "l4-24g"}, 24),
    GpuModel(_re(r"(?<![0-9A-Z])L20(?![0-9A-Z])"), {48: "l20-48g"}, 48),
    GpuModel(_re(r"(?<![0-9A-Z])L40(?![0-9A-Z])"), {48: "l40-48g"}, 48, exclude=_re(r"\bCNX\b")),
    GpuModel(_re(r"(?<![0-9A-Z])L40S(?![0-9A-Z])"), {48: "l40s-48g"}, 48),
    # H100 SXM and PCIe are one id (80 GB); the 94 GB H100 NVL is its own card.
    GpuModel(_re(r"(?<![0-9A-Z])H100(?![0-9A-Z])"), {80: "h100-80g"}, 80, exclude=_re(r"\bNVL\b")),
    GpuModel(_re(rf"(?<![0-9A-Z])H100{_SEP}NVL(?![A-Z])"), {94: "h100nvl-94g"}, 94),
    GpuModel(_re(r"(?<![0-9A-Z])H800(?![0-9A-Z])"), {80: "h800-80g"}, 80, exclude=_re(r"\bNVL\b")),
    # H200 NVL (600 W, lower clocks) is not the H200 SXM.
    GpuModel(
        _re(r"(?<![0-9A-Z])H200(?![0-9A-Z])"), {141: "h200-141g"}, 141, exclude=_re(r"\bNVL\b")
    ),
    # H20 ships with 96 GB HBM3 and, since 2025, 141 GB HBM3e ("H20-141G"): size needed.
    GpuModel(_re(r"(?<![0-9A-Z])H20(?![0-9A-Z])"), {96: "h20-96g", 141: "h20-141g"}, None),
    # B200: 180 GB per GPU on shipping HGX/DGX boards; launch material said 192 GB. Both
    # spellings are the same card. GB200 has a letter before the number, so it is not this.
    GpuModel(_re(r"(?<![0-9A-Z])B200(?![0-9A-Z])"), {180: "b200-180g", 192: "b200-180g"}, 180),
    # -- AMD, Huawei -----------------------------------------------------------------------
    GpuModel(_re(r"(?<![0-9A-Z])MI300X(?![0-9A-Z])"), {192: "mi300x-192g"}, 192),
    # Ascend 910B; "ASCEND910B" has a letter right before the number, so only digits are
    # barred. The binned 910B1/B2/B3 (fewer AI cores) and the 32 GB 910B4 stay unknown.
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
    matches = [
        m
        for m in MODELS
        if m.pattern.search(text) and not (m.exclude is not None and m.exclude.search(text))
    ]
    return matches[0] if len(matches) == 1 else None


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
    named = sizes.pop() if sizes else None
    size = named
    if vram_gb is not None:
        if named is not None and named != vram_gb:
            return UNKNOWN_GPU
        size = vram_gb
    if size is None:
        size = model.default_vram
    if size is None or (size in model.named_sizes and size != named):
        return UNKNOWN_GPU
    return model.sizes.get(size, UNKNOWN_GPU)
