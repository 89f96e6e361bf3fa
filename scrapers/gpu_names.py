"""Map any source's spelling of a GPU to a canonical id ``<model>-<vram>g``, or ``"unknown"``.

Sources spell the same card many ways ("RTX 4090 24GB", "4090-24G", "NVIDIA GeForce RTX 4090",
"昇腾910B", "A100-SXM4-80GB", "Tesla V100-SXM2-32GB", "RTX6000-Ada"). The rule is: recognise
the model by one pattern from :data:`MODELS`, take the memory size from the name and/or the
caller's ``vram_gb``, and return the id only when everything agrees. Anything ambiguous is
``UNKNOWN_GPU``, never a guess:

* an unrecognised model, or a variant the table keeps apart (RTX 4090 Laptop, 910B4, RTX PRO
  4500 Server Edition, a MIG slice of an RTX PRO 6000);
* a name matching two models ("H100/H200", "RTX A6000/A40");
* a model sold in several sizes (A100 40/80 GB, V100 16/32 GB, H20 96/141 GB, RTX 3080 10/12
  GB, GH200 96/144 GB) with no size;
* a size that contradicts the model ("H100 24GB") or contradicts ``vram_gb``.

Where a name is ambiguous only because it lost a word, the memory the source states decides:
SkyPilot's vast catalog lists a 4060 Ti and a 4070 Ti SUPER under "RTX4060" and "RTX4070", and
no plain 4060 or 4070 has 16 GB, so those names with 16 GB are the Ti cards; a bare "H100" with
94 GB can only be the H100 NVL; a plain "RTX 6000" with 24 GB is the Turing Quadro RTX 6000 (the
6000 Ada has 48 GB, the RTX PRO 6000 96 GB). Such an id is also reached from the variant's own row.

Variants get their own id when a listing's name always tells them apart and their figures
differ: a cut-down or lower-power edition sold under its own product name (4090 D, RTX 4000 SFF
Ada, RTX PRO 6000 Max-Q, H100 NVL, H200 NVL). The form factor of a data-centre module does not:
A100 PCIe and A100 SXM4 share one id per memory size (``a100-40g``, ``a100-80g``), as H100,
H800, A800 and V100 do. Same GA100 chip, same 108 SMs and peak tensor rate (312 TFLOPS dense
FP16); they differ in power (A100 40GB PCIe 250 W, 80GB PCIe 300 W, SXM4 400 W) and, for the
80 GB card, in bandwidth (1,935 vs 2,039 GB/s, 5 %). Most listings do not state the form factor
("A100 80G", "A100-80GB"), so separate ids would make all of those unknown; the ``gpu_spec``
row carries the SXM module's figures and the form factor stays in ``gpu_name_raw``. A name
with the form factor but no size ("A100 PCIe", "A100 SXM") is still unknown: both forms were
sold in 40 and 80 GB.

A name with Lambda's next columns glued on ("RTX 6000 24 GB 14 46 GiB 512 GiB SSD": vCPUs,
RAM, storage, as a tracker's text scrape of lambda.ai/pricing records it) is read without that
tail, so the RAM and disk figures never count as a memory size or a model number.

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
    # The 3070 Ti (GDDR6X, 48 SMs) is another card.
    GpuModel(
        _re(r"(?<!\d)3070(?![0-9A-Z])"),
        {8: "rtx3070-8g"},
        8,
        exclude=_re(rf"3070{_SEP}TI(?![A-Z])|{_LAPTOP}"),
    ),
    # The RTX 3080 came with 10 GB (68 SMs) and, from 2022, 12 GB (70 SMs): the size must be
    # stated, and 12 GB is not in the table (a "3080" with 12 GB may be a 3080 Ti).
    GpuModel(
        _re(r"(?<!\d)3080(?![0-9A-Z])"),
        {10: "rtx3080-10g"},
        None,
        exclude=_re(rf"3080{_SEP}TI(?![A-Z])|{_LAPTOP}"),
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
    # Any 4060 spelling: the 4060 Ti ships with 8 or 16 GB and the 4060 with 8, so only 16 GB
    # names a card for certain (the 4060 Ti 16 GB), whether or not the name kept its "Ti".
    GpuModel(_re(r"(?<!\d)4060(?!\d)"), {16: "rtx4060ti-16g"}, None, exclude=_re(_LAPTOP)),
    GpuModel(
        _re(rf"(?<!\d)4070{_SEP}TI(?![A-Z])"),
        {12: "rtx4070ti-12g"},
        12,
        exclude=_re(rf"4070{_SEP}TI{_SEP}S(?:UPER)?(?![A-Z])|{_LAPTOP}"),
    ),
    # "RTX 4070 Ti SUPER", "RTX_4070S_Ti" (vast.ai's spelling): 16 GB, 66 SMs.
    GpuModel(
        _re(rf"(?<!\d)4070{_SEP}(?:TI{_SEP}S(?:UPER)?|S(?:UPER)?{_SEP}TI)(?![A-Z])"),
        {16: "rtx4070tisuper-16g"},
        16,
        exclude=_re(_LAPTOP),
    ),
    # A 4070 or 4070 SUPER (both 12 GB) with 16 GB is a 4070 Ti SUPER that lost its "Ti".
    GpuModel(
        _re(r"(?<!\d)4070(?!\d)"),
        {16: "rtx4070tisuper-16g"},
        None,
        exclude=_re(rf"4070{_SEP}(?:S(?:UPER)?{_SEP})?TI(?![A-Z])|{_LAPTOP}"),
    ),
    GpuModel(
        _re(r"(?<!\d)4080(?![0-9A-Z])"),
        {16: "rtx4080-16g"},
        16,
        exclude=_re(rf"4080{_SEP}S(?:UPER)?(?![A-Z])|{_LAPTOP}"),
    ),
    # The 4080 SUPER (80 SMs, 23 Gbps memory) is its own card.
    GpuModel(
        _re(rf"(?<!\d)4080{_SEP}S(?:UPER)?(?![A-Z])"),
        {16: "rtx4080super-16g"},
        16,
        exclude=_re(_LAPTOP),
    ),
    GpuModel(
        _re(r"(?<!\d)5070(?![0-9A-Z])"),
        {12: "rtx5070-12g"},
        12,
        exclude=_re(rf"5070{_SEP}TI(?![A-Z])|{_LAPTOP}"),
    ),
    GpuModel(_re(r"(?<!\d)5080(?![0-9A-Z])"), {16: "rtx5080-16g"}, 16, exclude=_re(_LAPTOP)),
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
    # Ampere RTX A-series: "RTX A4000", "RTXA4000", "RTX-A4000", "A4000"; the notebook chips
    # of the same names (RTX A5000 Laptop: 16 GB) are other cards.
    GpuModel(
        _re(r"(?:(?<![0-9A-Z])|(?<=RTX))A2000(?![0-9A-Z])"),
        {6: "rtxa2000-6g"},
        None,  # 6 and 12 GB; only the 6 GB one is in the table
        exclude=_re(rf"{_LAPTOP}|EMBEDDED"),
    ),
    GpuModel(
        _re(r"(?:(?<![0-9A-Z])|(?<=RTX))A4000(?![0-9A-Z])"),
        {16: "rtxa4000-16g"},
        16,
        exclude=_re(_LAPTOP),
    ),
    GpuModel(
        _re(r"(?:(?<![0-9A-Z])|(?<=RTX))A4500(?![0-9A-Z])"),
        {20: "rtxa4500-20g"},
        20,
        exclude=_re(_LAPTOP),
    ),
    GpuModel(
        _re(r"(?:(?<![0-9A-Z])|(?<=RTX))A5000(?![0-9A-Z])"),
        {24: "rtxa5000-24g"},
        24,
        exclude=_re(_LAPTOP),
    ),
    # Ada workstation cards: "RTX 4000 Ada", "RTX 4000 Ada Generation", "RTX5880-Ada".
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?2000{_SEP}ADA(?![A-Z])"),
        {16: "rtx2000ada-16g"},
        16,
        exclude=_re(_LAPTOP),
    ),
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?4000{_SEP}ADA(?![A-Z])"),
        {20: "rtx4000ada-20g"},
        20,
        exclude=_re(rf"\bSFF\b|{_LAPTOP}"),
    ),
    # The 70 W small-form-factor card: same 48 SMs, lower clocks and 280 GB/s.
    GpuModel(
        _re(
            rf"(?<![0-9A-Z])(?:RTX{_SEP})?4000{_SEP}"
            rf"(?:SFF{_SEP}ADA|ADA{_SEP}(?:GENERATION{_SEP})?SFF)(?![A-Z])"
        ),
        {20: "rtx4000adasff-20g"},
        20,
    ),
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?5000{_SEP}ADA(?![A-Z])"),
        {32: "rtx5000ada-32g"},
        32,
        exclude=_re(_LAPTOP),
    ),
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?5880{_SEP}ADA(?![A-Z])"), {48: "rtx5880ada-48g"}, 48
    ),
    # Turing: "Quadro RTX 6000" is certain; a plain "RTX 6000" (Lambda's, SkyPilot's
    # "RTX6000") is the same card only with its 24 GB stated, since trackers also write
    # "RTX 6000" for the 6000 Ada and the RTX PRO 6000.
    GpuModel(
        _re(rf"(?<![0-9A-Z])QUADRO{_SEP}RTX{_SEP}6000(?![0-9A-Z])"),
        {24: "quadrortx6000-24g"},
        24,
        exclude=_re(r"ADA"),
    ),
    GpuModel(
        _re(rf"(?<![0-9A-Z])RTX{_SEP}6000(?![0-9A-Z])"),
        {24: "quadrortx6000-24g"},
        None,
        exclude=_re(r"QUADRO|ADA"),
    ),
    # RTX PRO Blackwell: the SFF 4000, the 165 W "4500 SE" (Server Edition: 800 GB/s, no
    # published tensor figure) and the notebook chips are other cards.
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?PRO{_SEP}4000(?!\d)"),
        {24: "rtxpro4000-24g"},
        24,
        exclude=_re(rf"\bSFF\b|{_LAPTOP}"),
    ),
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?PRO{_SEP}4500(?!\d)"),
        {32: "rtxpro4500-32g"},
        32,
        exclude=_re(rf"\bSE\b|SERVER|{_LAPTOP}"),
    ),
    # 48 GB, and since late 2025 a 72 GB edition: the size must be stated.
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?PRO{_SEP}5000(?!\d)"),
        {48: "rtxpro5000-48g"},
        None,
        exclude=_re(_LAPTOP),
    ),
    # The 300 W Max-Q Workstation Edition ("RTX PRO 6000 MaxQ"): same chip, lower clocks.
    GpuModel(
        _re(rf"(?<![0-9A-Z])(?:RTX{_SEP})?PRO{_SEP}6000(?!\d).*MAX{_SEP}Q"),
        {96: "rtxpro6000maxq-96g"},
        96,
        exclude=_re(rf"\bMIG\b|6000{_SEP}D(?![A-Z])"),
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
    # H100 SXM and PCIe are one id (80 GB); the 94 GB H100 NVL is its own card, and the only
    # H100 with 94 GB (SkyPilot's vast catalog lists its 1x-H100_NVL under the name "H100").
    GpuModel(
        _re(r"(?<![0-9A-Z])H100(?![0-9A-Z])"),
        {80: "h100-80g", 94: "h100nvl-94g"},
        80,
        exclude=_re(r"\bNVL\b"),
    ),
    GpuModel(_re(rf"(?<![0-9A-Z])H100{_SEP}NVL(?![A-Z])"), {94: "h100nvl-94g"}, 94),
    GpuModel(_re(r"(?<![0-9A-Z])H800(?![0-9A-Z])"), {80: "h800-80g"}, 80, exclude=_re(r"\bNVL\b")),
    # H200 NVL (600 W, lower clocks) is not the H200 SXM.
    GpuModel(
        _re(r"(?<![0-9A-Z])H200(?![0-9A-Z])"), {141: "h200-141g"}, 141, exclude=_re(r"\bNVL\b")
    ),
    # RunPod's API gives the H200 NVL 143 GB (its 141 GB as 143,771 MiB / 1,000): one card.
    GpuModel(
        _re(rf"(?<![0-9A-Z])H200{_SEP}NVL(?![A-Z])"),
        {141: "h200nvl-141g", 143: "h200nvl-141g"},
        141,
    ),
    # Grace Hopper: the H100 GPU of the superchip with 96 GB HBM3 or, later, 144 GB HBM3e.
    GpuModel(_re(r"(?<![0-9A-Z])GH200(?![0-9A-Z])"), {96: "gh200-96g"}, None),
    # H20 ships with 96 GB HBM3 and, since 2025, 141 GB HBM3e ("H20-141G"): size needed.
    GpuModel(_re(r"(?<![0-9A-Z])H20(?![0-9A-Z])"), {96: "h20-96g", 141: "h20-141g"}, None),
    # B200: 180 GB per GPU on shipping HGX/DGX boards; launch material said 192 GB. Both
    # spellings are the same card. GB200 has a letter before the number, so it is not this.
    GpuModel(_re(r"(?<![0-9A-Z])B200(?![0-9A-Z])"), {180: "b200-180g", 192: "b200-180g"}, 180),
    # B300 (Blackwell Ultra, HGX): 288 GB per GPU. SkyPilot's Verda catalog states 268,288 MiB
    # (262 GiB, the memory the driver leaves usable): the same card. GB300 is not this.
    GpuModel(_re(r"(?<![0-9A-Z])B300(?![0-9A-Z])"), {288: "b300-288g", 262: "b300-288g"}, 288),
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


# Lambda's pricing table has the columns VRAM/GPU, vCPUs, RAM, STORAGE after the card; a text
# scrape of the row (a tracker's raw_label) carries them: "... 24 GB 14 46 GiB 512 GiB SSD".
# Only this exact tail is cut (vCPU count, then two sizes in GiB/TiB, then SSD), so a memory
# size written in GiB beside a card is never dropped.
_LAMBDA_TAIL = re.compile(r"\s+\d+\s+[\d.]+\s*[GT]IB\s+[\d.]+\s*[GT]IB(?:\s+SSD)?\s*$")


def _normalise(name: str) -> str:
    # NFKC folds full-width letters and digits (ＲＴＸ４０９０) into ASCII.
    return _LAMBDA_TAIL.sub("", nfkc(name).upper())


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
