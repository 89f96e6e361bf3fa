"""Parallel layouts people actually deploy, and the card counts they allow.

Inference (vLLM / SGLang): tensor parallel over 1, 2, 4 or 8 cards of one server. The
degree must divide the attention heads, and divide the KV heads or be a multiple of them
(then each card holds a replica of one KV head, as vLLM does). MLA has one shared latent,
so any degree that divides the heads works and every card keeps the whole latent cache.
Beyond one server: pipeline stages over whole 8-card servers (TP inside the server, PP
across), which for MoE models may equally be expert parallel; a 3-, 5- or 6-card count
is never offered. When no degree above 4 divides the heads, PP fills the rest of the
server (TP 4 x PP 2).

Training (data parallel with ZeRO / FSDP): any count up to one server, whole servers
beyond it.
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.architecture import Architecture
from recommender.cards import CARDS_PER_NODE, CardSpec

TP_DEGREES = (1, 2, 4, 8)
MAX_NODES = 8  # 64 cards: beyond that it's a cluster design, not a rental choice


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1  # training: data-parallel replicas sharing ZeRO state
    nodes: int = 1
    pcie: bool = False  # tensor / data parallel traffic crosses PCIe, not NVLink / HCCS

    @property
    def cards(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def label(self) -> str:
        nodes = f"{self.nodes} node" + ("s" if self.nodes > 1 else "")
        if self.dp > 1:
            return f"DP {self.dp} × {nodes}"
        return f"TP {self.tp} × PP {self.pp} × {nodes}"


def tp_degrees(arch: Architecture) -> tuple[list[int], list[str]]:
    """Tensor-parallel degrees the architecture allows, and why the others are out."""
    heads, kv = arch.query_heads, arch.kv_heads
    ok: list[int] = []
    why: list[str] = []
    for tp in TP_DEGREES:
        if heads % tp:
            why.append(f"TP {tp} does not divide the {heads} attention heads")
        elif arch.attention != "mla" and kv % tp and tp % kv:
            why.append(f"TP {tp} neither divides nor is a multiple of the {kv} KV heads")
        else:
            ok.append(tp)
    return ok, why


def inference_layouts(arch: Architecture, spec: CardSpec) -> list[Layout]:
    """Valid layouts, fewest cards first."""
    degrees, _ = tp_degrees(arch)
    out = [Layout(tp=tp, pcie=tp > spec.fast_domain) for tp in degrees]
    widest = degrees[-1]
    per_node_pp = CARDS_PER_NODE // widest
    if per_node_pp > 1 and per_node_pp <= arch.layers:
        out.append(Layout(tp=widest, pp=per_node_pp, pcie=widest > spec.fast_domain))
    for nodes in range(2, MAX_NODES + 1):
        pp = per_node_pp * nodes
        if pp > arch.layers:
            break
        out.append(Layout(tp=widest, pp=pp, nodes=nodes, pcie=widest > spec.fast_domain))
    return out


def training_layouts(spec: CardSpec) -> list[Layout]:
    out = [Layout(dp=n, pcie=n > spec.fast_domain) for n in range(1, CARDS_PER_NODE + 1)]
    out += [
        Layout(dp=CARDS_PER_NODE * nodes, nodes=nodes, pcie=spec.fast_domain < CARDS_PER_NODE)
        for nodes in range(2, MAX_NODES + 1)
    ]
    return out
