"""Memory needed by a workload, two ways: the seeds' rules of thumb and an exact model.

GB is 10^9 bytes throughout, as the seeds use it. Serving is checked against the
engine's own budget (recommender.budget: the card's real GiB x --gpu-memory-utilization);
training against the card's label read as 10^9 bytes with the seeds' 20% margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from recommender.architecture import Architecture
from recommender.weights import weight_bytes
from recommender.workload import Workload

GB = 1e9

# The seeds' planning margin (seed 000 §七 建议4, seed 003 §五 step 2): training is sized
# for 20% more than the computed need, for peaks. Serving is not: the engine's budget
# (gpu_memory_utilization, recommender.budget) is the real limit, and the seeds' rule of
# thumb is shown beside the exact figure instead.
MARGIN = 0.20

# Fixed per-card runtime: CUDA context (~0.3-0.5 GB on current drivers), cuBLAS/NCCL
# workspaces and allocator fragmentation. One round number, stated everywhere it's used.
RUNTIME_OVERHEAD_GB = 1.0

# Inference activations live only while a prefill chunk passes through one layer:
# ~16 hidden-sized FP16 buffers per token (residual, norms, QKV, attention output,
# SwiGLU gate/up/down at ~3.5x hidden), for a chunk of at most 2048 tokens (the
# chunked-prefill budget vLLM and SGLang use by default), plus FP32 logits for the
# sequences the engine profiles with (vLLM's max_num_seqs, 256 unless more are asked for).
PREFILL_CHUNK_TOKENS = 2048
INFERENCE_ACT_BYTES_PER_HIDDEN = 32
LOGIT_BYTES = 4
MAX_NUM_SEQS = 256
# CUDA graphs vLLM captures for decode batch sizes up to 512 hold their own memory,
# outside the KV pool; 0.5-1.5 GiB per card is what its start-up log reports ("Graph
# capturing finished ... took X GiB"). One round figure, modelled, stated in the output.
CUDA_GRAPH_GB = 1.0

# Training assumes activation (gradient) checkpointing and flash attention, standard in
# LLM fine-tuning stacks: each layer keeps only its BF16 input (2 bytes x hidden per
# token), plus one layer being recomputed at 34 bytes x hidden per token (Korthikanti
# et al. 2022, "Reducing Activation Recomputation", without the attention-matrix term
# flash attention removes), plus FP32 logits and their gradient over the vocabulary
# (8 bytes per vocab entry per token; this is what OOMs 128k-vocab models first).
TRAIN_CKPT_BYTES_PER_HIDDEN = 2
TRAIN_LAYER_BYTES_PER_HIDDEN = 34
TRAIN_LOGIT_BYTES = 8

# Full fine-tune / pretraining with mixed-precision Adam, the breakdown seed 003 §二
# gives: FP16/BF16 weights 2 + gradients 2 + Adam first and second moments 8 + FP32
# master weights 4 = 16 bytes per parameter, activations on top.
FULL_WEIGHT_BYTES = 2.0
FULL_GRAD_BYTES = 2.0
FULL_OPTIMIZER_BYTES = 12.0  # Adam moments 8 + FP32 master copy 4

# LoRA adapters train in FP32 (PEFT's default): weights 4 + grads 4 + Adam moments 8.
ADAPTER_WEIGHT_BYTES = 4.0
ADAPTER_GRAD_BYTES = 4.0
ADAPTER_OPTIMIZER_BYTES = 8.0

# Adapter size as a fraction of the base, linear in rank. Rank 32 on every linear layer
# is ~1%: Llama-3.1-8B 1.04%, Qwen2.5-7B 1.06% (counted from their configs); larger
# models come out lower (Llama-3.1-70B 0.59%), so 1% at rank 32 errs on the safe side.
LORA_FRACTION_PER_RANK = 0.01 / 32

# Checkpoint sizes (for the data-disk check). A resumable full fine-tune checkpoint
# holds 16-bit weights 2 + FP32 master 4 + Adam moments 8 = 14 bytes per parameter
# (gradients are not saved). Seed 003's "7B checkpoint ~14 GB" is the weights-only
# export (2 bytes per parameter). A LoRA checkpoint is the adapters with their Adam
# state: 4 + 8 = 12 bytes per adapter parameter.
FULL_CHECKPOINT_BYTES = 14.0
ADAPTER_CHECKPOINT_BYTES = 12.0
RELEASE_WEIGHT_BYTES = 2.0  # the BF16 release you download before fine-tuning

# Rules of thumb (bytes per parameter), seed 003 §二 and §五 step 2. QLoRA is not in the
# seeds: its range is the LoRA range scaled by the 4-bit / 16-bit base ratio.
# Inference has two published rules, kept as the low and high end of one range:
# seed 000 §三 / §6.1 counts weights only ("FP16推理:模型参数量 × 2GB", 70B -> ~140 GB,
# "H20 96GB双卡或H100 80GB双卡"); seeds 002 §2.1 / 003 §二 add 20% for KV cache and
# activations (7B FP16 -> 16.8 GB). The seeds' card counts divide the low end by the
# card's VRAM with no margin; the exact model (below) adds KV, runtime and the margin.
RULE_INFERENCE_FACTOR = 1.2
RULE_BYTES: dict[str, tuple[float, float]] = {
    "full": (16.0, 20.0),
    "pretrain": (16.0, 20.0),
    "lora": (2.0, 4.0),
    "qlora": (0.5, 1.0),
}

# Custom models without an architecture: assume a modern GQA layout (8 KV heads of
# 128 dims, as in Llama-3, Qwen2.5-14B+ and Mistral) and get depth from
# params ~= 12 * layers * hidden^2 with hidden = 128 * layers (Kaplan et al. 2020's
# aspect ratio; 7B -> 33 layers x 4224, close to Llama's 32 x 4096). MoE uses the
# active parameters, which track attention width. Vocabulary 150,000 is typical of
# the Qwen / GLM families common in this market. Query heads are taken as a multiple of
# 8 near hidden / 128 (real models are built so that TP 8 divides them).
_ASPECT = 128
_ESTIMATED_KV_HEADS = 8
_ESTIMATED_HEAD_DIM = 128
_ESTIMATED_VOCAB = 150_000


def architecture_for(workload: Workload) -> Architecture:
    if (arch := workload.architecture) is not None:
        return arch
    params_b = float(workload.params_b or 0.0)
    active_b = float(workload.active_params_b or params_b)
    layers = max(1, round((active_b * 1e9 / (12 * _ASPECT**2)) ** (1 / 3)))
    hidden = _ASPECT * layers
    kv_heads = max(1, min(_ESTIMATED_KV_HEADS, hidden // _ESTIMATED_HEAD_DIM))
    heads = max(kv_heads, 8 * round(hidden / _ESTIMATED_HEAD_DIM / 8))
    return Architecture(
        f"custom {params_b:g}B",
        params_b,
        active_b,
        layers,
        hidden,
        kv_heads,
        _ESTIMATED_HEAD_DIM,
        _ESTIMATED_VOCAB,
        estimated=True,
        source=(
            f"estimated: {layers} layers x hidden {hidden} from params = 12*L*h^2 with "
            f"h = 128*L; {heads} heads, {kv_heads} KV heads x 128 head dim (Llama-3-style "
            "GQA); vocab 150,000"
        ),
        heads=heads,
        figure_sources=(("params_b", "given (--params)"), ("architecture", "estimated")),
    )


def kv_bytes_per_token(arch: Architecture, kv_bytes: float) -> float:
    """One token's cache over every attention layer (before any sliding-window cap):
    MHA/GQA 2 x layers x kv_heads x head_dim x bytes; MLA layers x (kv_lora_rank +
    qk_rope_head_dim) x bytes. Recurrent layers of a hybrid keep no KV (state_bytes)."""
    return arch.attention_layers * arch.kv_bytes_per_layer_token(kv_bytes)


def kv_cache_bytes(arch: Architecture, kv_bytes: float, context: int, sequences: int) -> float:
    """All sequences' cache at full context; sliding-window layers keep at most the window."""
    per_layer = arch.kv_bytes_per_layer_token(kv_bytes)
    capped = min(context, arch.sliding_window or context)
    per_sequence = per_layer * (arch.full_attention_layers * context + arch.sliding_layers * capped)
    return per_sequence * sequences


def kv_share_per_card(arch: Architecture, tp: int) -> float:
    """Share of the KV cache one tensor-parallel card holds. GQA/MHA split KV heads across
    cards; past the KV head count each card keeps one replicated head (vLLM). MLA's latent
    is shared by all heads, so every card keeps all of it."""
    if arch.attention == "mla":
        return 1.0
    return 1.0 / min(tp, arch.kv_heads)


def state_bytes(arch: Architecture, sequences: int) -> float:
    """Recurrent (Mamba / linear-attention) state: fixed per sequence, whatever the context."""
    return arch.recurrent_state_bytes * sequences


@dataclass(frozen=True)
class MemoryEstimate:
    """Exact-model memory for one replica, split into parts that shard across cards
    (weights, KV cache, recurrent state, gradients, optimizer state) and parts every card
    carries (runtime overhead, CUDA graphs, activations)."""

    workload: Workload
    arch: Architecture
    weights_gb: float
    kv_cache_gb: float
    adapters_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float
    runtime_gb: float
    kv_bytes_per_token: float
    adapter_params_b: float
    checkpoint_gb: float
    model_files_gb: float
    rule_low_gb: float
    rule_high_gb: float
    rule_basis: str
    notes: tuple[str, ...] = field(default=())
    weights_basis: str = ""
    state_gb: float = 0.0  # recurrent state of all sequences
    cuda_graph_gb: float = 0.0
    routed_weights_gb: float = 0.0
    vision_weights_gb: float = 0.0

    @property
    def sharded_gb(self) -> float:
        return (
            self.weights_gb
            + self.kv_cache_gb
            + self.state_gb
            + self.adapters_gb
            + self.gradients_gb
            + self.optimizer_gb
        )

    @property
    def replicated_gb(self) -> float:
        return self.runtime_gb + self.activations_gb + self.cuda_graph_gb

    @property
    def total_gb(self) -> float:
        return self.sharded_gb + self.replicated_gb

    @property
    def overhead_gb(self) -> float:
        """What every card reserves besides weights and cache: the runtime, and for
        inference the CUDA graphs and the prefill activations."""
        if self.workload.is_training:
            return self.runtime_gb
        return self.replicated_gb

    def per_card_gb(self, cards: int) -> float:
        """Need on each of `cards` cards: tensor parallel over `cards` (inference) or
        data parallel with the workload's ZeRO stage (training)."""
        if self.workload.is_training:
            return self.per_card_layout_gb(1, 1, cards)
        return self.per_card_layout_gb(cards, 1)

    def sequences_per_replica(self, dp: int) -> int:
        return math.ceil(self.workload.concurrency / max(1, dp))

    def per_card_layout_gb(self, tp: int, pp: int, dp: int = 1) -> float:
        """Inference: weights split over tp x pp cards, KV by KV heads (tp) and layers (pp),
        each of dp replicas holding its share of the sequences. Training: ZeRO stage 1
        shards optimizer state over the dp cards, 2 also gradients, 3 also weights;
        runtime and activations stay on every card."""
        if self.workload.is_training:
            stage = self.workload.zero_stage
            weights = self.weights_gb + self.adapters_gb
            return (
                (weights / dp if stage >= 3 else weights)
                + (self.gradients_gb / dp if stage >= 2 else self.gradients_gb)
                + (self.optimizer_gb / dp if stage >= 1 else self.optimizer_gb)
                + self.replicated_gb
            )
        return self.weights_gb / (tp * pp) + self.cache_per_card_gb(tp, pp, dp) + self.replicated_gb

    def cache_per_card_gb(self, tp: int, pp: int, dp: int = 1) -> float:
        """KV cache and recurrent state one card of a replica holds for its sequences."""
        share = self.sequences_per_replica(dp) / self.workload.concurrency
        kv = self.kv_cache_gb * kv_share_per_card(self.arch, tp) / pp
        return (kv + self.state_gb / (tp * pp)) * share

    def with_margin_gb(self, cards: int = 1) -> float:
        return self.per_card_gb(cards) * (1 + MARGIN)


def rule_of_thumb(workload: Workload, params_b: float) -> tuple[float, float, str]:
    """The seeds' quick estimate: (low GB, high GB, how it was computed).

    Inference: low = weights only (seed 000 §三), high = weights x 1.2 (seeds 002/003).
    Training: the seeds' bytes-per-parameter range for the method (seed 003 §二).
    """
    if not workload.is_training:
        weights = params_b * workload.weight_bytes
        gb = weights * RULE_INFERENCE_FACTOR
        basis = (
            f"{params_b:g}B params x {workload.weight_bytes:g} bytes ({workload.precision}) "
            f"= {weights:.1f} GB of weights (seed 000 §三, weights only), "
            f"x {RULE_INFERENCE_FACTOR} for KV cache and activations = {gb:.1f} GB "
            "(seed 002 §2.1 / seed 003 §二)"
        )
        return weights, gb, basis
    low, high = RULE_BYTES[workload.method or "full"]
    cite = "seed 003 §二" if workload.method != "qlora" else "LoRA range x 0.5/2 (4-bit base)"
    basis = f"{params_b:g}B params x {low:g}-{high:g} bytes/param ({workload.method}, {cite})"
    return params_b * low, params_b * high, basis


def _notes(workload: Workload, arch: Architecture) -> list[str]:
    notes: list[str] = []
    if arch.is_moe:
        notes.append(
            f"MoE: all {arch.params_b:.4g}B parameters must be resident, so memory uses the "
            f"total; decode speed uses the {arch.active_params_b:.4g}B active per token."
        )
    if arch.estimated:
        notes.append(f"No architecture given; KV cache and activations use an {arch.source}.")
    if arch.attention == "mla":
        notes.append(
            f"MLA: each token caches the {arch.kv_lora_rank}-dim KV latent + the "
            f"{arch.qk_rope_head_dim}-dim RoPE key per layer, not K and V per head; the latent "
            "is shared by all heads, so tensor-parallel cards each keep all of it."
        )
    if arch.is_hybrid:
        notes.append(
            f"Hybrid ({arch.layer_mix}): only the {arch.attention_layers} attention layers "
            f"keep KV; the {arch.recurrent_layers} recurrent layers keep a fixed "
            f"{arch.recurrent_state_bytes / 1e6:,.1f} MB of state per sequence "
            f"({arch.recurrent_basis} per layer), whatever the context."
        )
    if arch.sliding_layers and not workload.is_training:
        notes.append(
            f"{arch.window_kind.capitalize()}: {arch.sliding_layers} of {arch.attention_layers} "
            f"attention layers keep at most {arch.sliding_window:,} tokens of KV; the other "
            f"{arch.full_attention_layers} keep the full context."
        )
    if arch.vision_note:
        notes.append(arch.vision_note.capitalize() + ".")
    if not workload.is_training and (warning := workload.context_warning):
        notes.append(warning.capitalize() + ".")
    fmt = arch.quantization
    if fmt is not None and fmt.precision != workload.precision:
        notes.append(
            f"The checkpoint ships {fmt.precision.upper()} ({fmt.method}); at "
            f"{workload.precision} it must be re-quantised or upcast first."
        )
    return notes


def _inference(workload: Workload, arch: Architecture, common: dict) -> MemoryEstimate:
    tokens = workload.context_tokens * workload.concurrency
    chunk = min(tokens, PREFILL_CHUNK_TOKENS)
    activations = (
        chunk * arch.hidden * INFERENCE_ACT_BYTES_PER_HIDDEN
        + max(workload.concurrency, MAX_NUM_SEQS) * arch.vocab * LOGIT_BYTES
    )
    kv = kv_cache_bytes(arch, workload.kv_bytes, workload.context_tokens, workload.concurrency)
    weights = common.pop("weights")
    return MemoryEstimate(
        **common,
        weights_gb=weights.total_bytes / GB,
        kv_cache_gb=kv / GB,
        state_gb=state_bytes(arch, workload.concurrency) / GB,
        adapters_gb=0.0,
        gradients_gb=0.0,
        optimizer_gb=0.0,
        activations_gb=activations / GB,
        cuda_graph_gb=CUDA_GRAPH_GB,
        adapter_params_b=0.0,
        checkpoint_gb=0.0,
        model_files_gb=(arch.checkpoint_gb or weights.total_bytes / GB),
        weights_basis=weights.basis,
        routed_weights_gb=weights.routed_bytes / GB,
        vision_weights_gb=weights.vision_bytes / GB,
    )


def estimate_memory(workload: Workload) -> MemoryEstimate:
    arch = architecture_for(workload)
    params = arch.params_b * 1e9
    kv_per_token = kv_bytes_per_token(arch, workload.kv_bytes)
    low, high, basis = rule_of_thumb(workload, arch.total_params_b)
    notes = _notes(workload, arch)
    precision = workload.precision or "bf16"
    weights = weight_bytes(arch, precision, workload.method)

    common = dict(
        workload=workload,
        arch=arch,
        runtime_gb=RUNTIME_OVERHEAD_GB,
        kv_bytes_per_token=kv_per_token,
        rule_low_gb=low,
        rule_high_gb=high,
        rule_basis=basis,
        notes=tuple(notes),
    )
    if not workload.is_training:
        return _inference(workload, arch, common | {"weights": weights})

    tokens = workload.context_tokens * workload.concurrency  # per card: micro-batch x sequence
    activations = tokens * (
        arch.hidden * (arch.layers * TRAIN_CKPT_BYTES_PER_HIDDEN + TRAIN_LAYER_BYTES_PER_HIDDEN)
        + arch.vocab * TRAIN_LOGIT_BYTES
    )
    release_gb = arch.checkpoint_gb or params * RELEASE_WEIGHT_BYTES / GB
    if workload.method in ("full", "pretrain"):
        return MemoryEstimate(
            **common,
            weights_gb=params * FULL_WEIGHT_BYTES / GB,
            kv_cache_gb=0.0,
            adapters_gb=0.0,
            gradients_gb=params * FULL_GRAD_BYTES / GB,
            optimizer_gb=params * FULL_OPTIMIZER_BYTES / GB,
            activations_gb=activations / GB,
            adapter_params_b=0.0,
            checkpoint_gb=params * FULL_CHECKPOINT_BYTES / GB,
            model_files_gb=release_gb,
            weights_basis=f"{arch.params_b:.4g}B x {FULL_WEIGHT_BYTES:g} B (BF16 working copy)",
        )

    adapter_params = params * workload.lora_rank * LORA_FRACTION_PER_RANK
    common["notes"] = (*notes, (
        f"LoRA rank {workload.lora_rank}: adapters ~{adapter_params / 1e9:.3g}B params "
        f"({workload.lora_rank * LORA_FRACTION_PER_RANK:.2%} of the base), trained in FP32 "
        "with Adam (16 bytes each); the base stays frozen at "
        f"{workload.precision} and has no gradients or optimizer state."
    ))  # fmt: skip
    return MemoryEstimate(
        **common,
        weights_gb=weights.total_bytes / GB,
        kv_cache_gb=0.0,
        adapters_gb=adapter_params * ADAPTER_WEIGHT_BYTES / GB,
        gradients_gb=adapter_params * ADAPTER_GRAD_BYTES / GB,
        optimizer_gb=adapter_params * ADAPTER_OPTIMIZER_BYTES / GB,
        activations_gb=activations / GB,
        adapter_params_b=adapter_params / 1e9,
        checkpoint_gb=adapter_params * ADAPTER_CHECKPOINT_BYTES / GB,
        model_files_gb=release_gb,
        weights_basis=weights.basis,
    )
