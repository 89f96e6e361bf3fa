"""Names people read, beside the canonical ids the warehouse keeps.

The warehouse stores ``rtx4090-24g`` and ``bare_metal_monthly`` (DESIGN.md: one id per card,
one per billing mode); pages, reports and the CLI show "RTX 4090 24GB" and "裸金属包月 /
bare metal, monthly" instead, and keep the id where a machine or an engineer reads it
(tooltips, exports, ``--json``). One table each, so every screen names a card the same way.
"""

from __future__ import annotations

# Every canonical id of scrapers.gpu_names (tests/dashboard/test_names.py keeps the two in
# step). Model names as the vendors print them; the memory size is part of the name because
# two sizes of one model are two cards here (DESIGN.md: a cut-down card is its own id).
CARD_NAMES: dict[str, str] = {
    "910b-64g": "Ascend 910B 64GB",
    "a10-24g": "A10 24GB",
    "a100-40g": "A100 40GB",
    "a100-80g": "A100 80GB",
    "a30-24g": "A30 24GB",
    "a40-48g": "A40 48GB",
    "a800-40g": "A800 40GB",
    "a800-80g": "A800 80GB",
    "b200-180g": "B200 180GB",
    "h100-80g": "H100 80GB",
    "h100nvl-94g": "H100 NVL 94GB",
    "h20-141g": "H20 141GB",
    "h20-96g": "H20 96GB",
    "h200-141g": "H200 141GB",
    "h800-80g": "H800 80GB",
    "l20-48g": "L20 48GB",
    "l4-24g": "L4 24GB",
    "l40-48g": "L40 48GB",
    "l40s-48g": "L40S 48GB",
    "mi300x-192g": "Instinct MI300X 192GB",
    "rtx3060-12g": "RTX 3060 12GB",
    "rtx3060-8g": "RTX 3060 8GB",
    "rtx3080ti-12g": "RTX 3080 Ti 12GB",
    "rtx3090-24g": "RTX 3090 24GB",
    "rtx3090ti-24g": "RTX 3090 Ti 24GB",
    "rtx4090-24g": "RTX 4090 24GB",
    "rtx4090-48g": "RTX 4090 48GB (modded)",
    "rtx4090d-24g": "RTX 4090D 24GB",
    "rtx5090-32g": "RTX 5090 32GB",
    "rtx5090d-32g": "RTX 5090D 32GB",
    "rtx6000ada-48g": "RTX 6000 Ada 48GB",
    "rtxa6000-48g": "RTX A6000 48GB",
    "rtxpro6000-96g": "RTX PRO 6000 96GB",
    "t4-16g": "T4 16GB",
    "v100-16g": "V100 16GB",
    "v100-32g": "V100 32GB",
    "v100s-32g": "V100S 32GB",
    # issue 36
    "b300-288g": "B300 288GB",
    "gh200-96g": "GH200 96GB",
    "h200nvl-141g": "H200 NVL 141GB",
    "quadrortx6000-24g": "Quadro RTX 6000 24GB",
    "rtx2000ada-16g": "RTX 2000 Ada 16GB",
    "rtx3070-8g": "RTX 3070 8GB",
    "rtx3080-10g": "RTX 3080 10GB",
    "rtx4000ada-20g": "RTX 4000 Ada 20GB",
    "rtx4000adasff-20g": "RTX 4000 SFF Ada 20GB",
    "rtx4060ti-16g": "RTX 4060 Ti 16GB",
    "rtx4070ti-12g": "RTX 4070 Ti 12GB",
    "rtx4070tisuper-16g": "RTX 4070 Ti SUPER 16GB",
    "rtx4080-16g": "RTX 4080 16GB",
    "rtx4080super-16g": "RTX 4080 SUPER 16GB",
    "rtx5000ada-32g": "RTX 5000 Ada 32GB",
    "rtx5070-12g": "RTX 5070 12GB",
    "rtx5080-16g": "RTX 5080 16GB",
    "rtx5880ada-48g": "RTX 5880 Ada 48GB",
    "rtxa2000-6g": "RTX A2000 6GB",
    "rtxa4000-16g": "RTX A4000 16GB",
    "rtxa4500-20g": "RTX A4500 20GB",
    "rtxa5000-24g": "RTX A5000 24GB",
    "rtxpro4000-24g": "RTX PRO 4000 24GB",
    "rtxpro4500-32g": "RTX PRO 4500 32GB",
    "rtxpro5000-48g": "RTX PRO 5000 48GB",
    "rtxpro6000maxq-96g": "RTX PRO 6000 Max-Q 96GB",
}

# Billing mode id: (Chinese, English), as the seeds and the sites say it.
BILLING_NAMES: dict[str, tuple[str, str]] = {
    "hourly": ("按时计费", "hourly"),
    "daily": ("包日", "daily plan"),
    "weekly": ("包周", "weekly plan"),
    "monthly": ("包月", "monthly plan"),
    "yearly": ("包年", "yearly plan"),
    "bare_metal_monthly": ("裸金属包月", "bare metal, monthly"),
    "spot": ("竞价", "spot"),
}


def card_name(gpu: str | None) -> str:
    """The card's name ("RTX 4090 24GB"); an id missing from the table reads as itself, so
    a card added to scrapers.gpu_names before this table shows up, never vanishes."""
    if gpu is None:
        return "—"
    return CARD_NAMES.get(gpu, gpu)


def billing_name(billing: str | None, english: bool = True) -> str:
    """The billing mode's name in one language ("包月" / "monthly plan"); an unknown id as is."""
    if billing is None:
        return "—"
    zh, en = BILLING_NAMES.get(billing, (billing, billing))
    return en if english else zh
