"""Parallel layouts an engine can run, and the card counts they allow.

Inference (vLLM / SGLang): tensor parallel (TP) over 1, 2, 4 or 8 cards of one server.
The degree must divide the attention heads, and divide the KV heads or be a multiple of
them (then each card holds a replica of one KV head, as vLLM does); MLA has one shared
latent, so any degree that divides the heads works. Every width TP splits (q/o, k/v, the
MLP's intermediate size, each expert's) must divide by the degree, and for a
block-quantised checkpoint (FP8 128 x 128) each shard must be a multiple of the block:
vLLM refuses at load otherwise ("The output_size of gate's and up's weight = 192 is not
divisible by weight quantization block_n = 128", Fp8MoEMethod.create_weights). When only
the experts fail, expert parallel (EP: --enable-expert-parallel) keeps every expert
whole on one card and is offered instead; it is also chosen where TP would cut an
expert thinner than one 128-wide tile (wasteful GEMMs).

Beyond one server: pipeline stages (PP) over whole 8-card servers (TP inside the
server, PP across); a 3-, 5- or 6-card replica is never offered. When no degree above 4
works, PP fills the rest of the server (TP 4 x PP 2). Data parallel (DP) replicas are
added by recommender.sizing when one replica fits the model but not all the sequences.

Training (data parallel with ZeRO / FSDP): any count up to one server, whole servers
beyond it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from recommender.architecture import Architecture, WeightFormat
from recommender.cards import CARDS_PER_NODE, CardSpec

TP_DEGREES = (1, 2, 4, 8)
MAX_NODES = 8  # 64 cards: beyond that it's a cluster design, not a rental choice
MIN_EXPERT_SHARD = 128  # below one tensor-core tile per card, TP-sharded experts waste GEMMs


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1  # inference: replicas; training: data-parallel cards sharing ZeRO state
    nodes: int = 1
    pcie: bool = False  # tensor / data parallel traffic crosses PCIe, not NVLink / HCCS
    ep: bool = False  # MoE experts spread whole over the TP cards (expert parallel)
    training: bool = False

    @property
    def cards(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def replica_cards(self) -> int:
        return self.tp * self.pp

    @property
    def label(self) -> str:
        nodes = f"{self.nodes} node" + ("s" if self.nodes > 1 else "")
        if self.training:
            return f"DP {self.dp} × {nodes}"
        ep = " (EP)" if self.ep else ""
        return f"TP {self.tp}{ep} × PP {self.pp} × DP {self.dp}, {nodes}"

    def with_replicas(self, dp: int) -> Layout:
        per_node = max(1, CARDS_PER_NODE // self.replica_cards)
        nodes = self.nodes * dp if self.replica_cards >= CARDS_PER_NODE else -(-dp // per_node)
        return replace(self, dp=dp, nodes=nodes)


@dataclass(frozen=True)
class TpChoice:
    tp: int
    ep: bool
    why_ep: str = ""


def _shard_problem(arch: Architecture, tp: int, fmt: WeightFormat | None) -> tuple[bool, str]:
    """(experts only, why) when a TP shard is not whole or not a multiple of the block;
    (False, "") when every shard is fine."""
    block = fmt.block[0] if fmt is not None and fmt.block else None
    kept = fmt.not_converted if fmt is not None else frozenset()
    experts_only, problems = True, []
    for what, size, group in arch.tp_dims:
        split = min(tp, arch.kv_heads) if group == "attention_kv" else tp
        if size % split:
            problem = f"{what} {size} does not split over TP {tp}"
        elif block and group not in kept and (size // split) % block:
            problem = (
                f"{what} {size} / TP {tp} = {size // split} is not a multiple of the FP8 block "
                f"{block} (vLLM refuses: 'not divisible by weight quantization block_n')"
            )
        else:
            continue
        problems.append(problem)
        experts_only = experts_only and group == "routed_experts"
    return (experts_only, "; ".join(problems)) if problems else (False, "")


def expert_shard_problem(arch: Architecture, devices: int, fmt: WeightFormat | None) -> str:
    """Why the routed experts cannot be tensor-split over `devices` cards ("" when they
    can). Without expert parallel vLLM splits every expert over TP x DP cards, not TP alone
    (FusedMoEParallelConfig.flatten_tp_across_dp_and_pcp: "Update tp_size and tp_rank so we
    shard across all devices"), so DP replicas of a TP 4 layout cut each expert in 8."""
    block = fmt.block[0] if fmt is not None and fmt.block else None
    kept = fmt.not_converted if fmt is not None else frozenset()
    for what, size, group in arch.tp_dims:
        if group != "routed_experts":
            continue
        if size % devices:
            return f"{what} {size} does not split over {devices} cards"
        if block and group not in kept and (size // devices) % block:
            return (
                f"{what} {size} / {devices} cards = {size // devices} is not a multiple of the FP8 "
                f"block {block} (vLLM refuses: 'not divisible by weight quantization block_n')"
            )
    return ""


def with_replicas_allowed(arch: Architecture, layout: Layout, fmt: WeightFormat | None
                          ) -> Layout | None:  # fmt: skip
    """`layout` with DP replicas as vLLM runs it: MoE experts split over TP x DP cards
    unless expert parallel is on; when that split fails (or cuts an expert below one
    128-column tile) expert parallel over the TP x DP cards is set when the experts divide
    among them, else None (no such layout runs)."""
    if layout.ep or layout.dp == 1 or not arch.routed_experts:
        return layout
    devices = layout.tp * layout.dp
    thin = arch.moe_intermediate and arch.moe_intermediate // devices < MIN_EXPERT_SHARD
    if not expert_shard_problem(arch, devices, fmt) and not thin:
        return layout
    return replace(layout, ep=True) if arch.routed_experts % devices == 0 else None


def tp_choices(
    arch: Architecture, fmt: WeightFormat | None = None
) -> tuple[list[TpChoice], list[str]]:
    """Tensor-parallel degrees the architecture (and its block-quantised format, when the
    checkpoint's own is served) allows, each with or without expert parallel, and why the
    others are out."""
    heads, kv = arch.query_heads, arch.kv_heads
    ok: list[TpChoice] = []
    why: list[str] = []
    for tp in TP_DEGREES:
        if heads % tp:
            why.append(f"TP {tp} does not divide the {heads} attention heads")
            continue
        if arch.attention != "mla" and kv % tp and tp % kv:
            why.append(f"TP {tp} neither divides nor is a multiple of the {kv} KV heads")
            continue
        experts_only, problem = _shard_problem(arch, tp, fmt)
        if problem and not (experts_only and arch.routed_experts % tp == 0):
            why.append(problem)
        elif problem:
            ok.append(TpChoice(tp, True, f"TP {tp} alone is refused ({problem}): expert parallel"))
        elif tp > 1 and arch.moe_intermediate and arch.moe_intermediate // tp < MIN_EXPERT_SHARD:
            ok.append(TpChoice(tp, True, f"TP {tp} would cut each expert to "
                                         f"{arch.moe_intermediate // tp} columns: expert parallel"))  # fmt: skip
        else:
            ok.append(TpChoice(tp, False))
    return ok, why


def tp_degrees(arch: Architecture, fmt: WeightFormat | None = None) -> tuple[list[int], list[str]]:
    """The allowed degrees alone (with EP where it is needed), and why the others are out."""
    choices, why = tp_choices(arch, fmt)
    return [c.tp for c in choices], why


def inference_layouts(
    arch: Architecture, spec: CardSpec, fmt: WeightFormat | None = None
) -> list[Layout]:
    """Valid single-replica layouts, fewest cards first."""
    choices, _ = tp_choices(arch, fmt)
    if not choices:
        return []
    out = [Layout(tp=c.tp, pcie=c.tp > spec.fast_domain, ep=c.ep) for c in choices]
    widest = choices[-1]
    pcie = widest.tp > spec.fast_domain
    per_node_pp = CARDS_PER_NODE // widest.tp
    if 1 < per_node_pp <= arch.layers:
        out.append(Layout(tp=widest.tp, pp=per_node_pp, pcie=pcie, ep=widest.ep))
    for nodes in range(2, MAX_NODES + 1):
        pp = per_node_pp * nodes
        if pp > arch.layers:
            break
        out.append(Layout(tp=widest.tp, pp=pp, nodes=nodes, pcie=pcie, ep=widest.ep))
    return out


def training_layouts(spec: CardSpec) -> list[Layout]:
    out = [Layout(dp=n, pcie=n > spec.fast_domain, training=True)
           for n in range(1, CARDS_PER_NODE + 1)]  # fmt: skip
    out += [
        Layout(
            dp=CARDS_PER_NODE * nodes,
            nodes=nodes,
            pcie=spec.fast_domain < CARDS_PER_NODE,
            training=True,
        )  # fmt: skip
        for nodes in range(2, MAX_NODES + 1)
    ]
    return out
