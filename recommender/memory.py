"""Memory needed by a workload, two ways: the seeds' rules of thumb and an exact model.

GB is 10^9 bytes throughout, as the seeds use it. Card capacities are compared in the
same unit: a "24 GB" RTX 4090 really holds 24 GiB (25.8 GB), so reading the label as
10^9 bytes leaves ~7% unaccounted, which roughly covers what the driver reserves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recommender.architecture import Architecture
from recommender.workload import PRECISION_BYTES, Workload

GB = 1e9

# The seeds' planning margin (seed 000 §七 建议4, seed 003 §五 step 2): size cards for
# 20% more than the computed need, for concurrency peaks and framework overhead.
MARGIN = 0.20

# Fixed per-card runtime: CUDA context (~0.3-0.5 GB on current drivers), cuBLAS/NCCL
# workspaces and allocator fragmentation. One round number, stated everywhere it's used.
RUNTIME_OVERHEAD_GB = 1.0

# Inference activations live only while a prefill chunk passes through one layer:
# ~16 hidden-sized FP16 buffers per token (residual, norms, QKV, attention output,
# SwiGLU gate/up/down at ~3.5x hidden), for a chunk of at most 2048 tokens (the
# chunked-prefill budget vLLM and SGLang use by default), plus FP32 logits of the
# last token of each sequence for sampling.
PREFILL_CHUNK_TOKENS = 2048
INFERENCE_ACT_BYTES_PER_HIDDEN = 32
LOGIT_BYTES = 4

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

# Quantised weights carry scales. INT4 chosen by --precision is AWQ / GPTQ at group
# size 128: an FP16 scale and a 4-bit zero per 128 weights (+0.0195 B/param). INT8 and
# FP8 scales are per channel / per tensor (negligible). A checkpoint's own
# quantization_config states its format exactly (hf_config.weight_format).
INT4_GROUP_OVERHEAD = (2.0 + 0.5) / 128
# QLoRA's NF4 base: 4 bits + an 8-bit absmax per 64 weights + (double quantisation) one
# FP32 per 256 absmax blocks.
QLORA_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)


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
    """One token's cache over every layer (before any sliding-window cap): MHA/GQA
    2 x layers x kv_heads x head_dim x bytes; MLA layers x (kv_lora_rank + qk_rope_head_dim)
    x bytes."""
    return arch.layers * arch.kv_bytes_per_layer_token(kv_bytes)


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


def weight_bytes(arch: Architecture, precision: str, method: str | None) -> tuple[float, str]:
    """Bytes of all weights at `precision`, and how they were counted."""
    params = arch.params_b * 1e9
    fmt = arch.quantization
    if fmt is not None and fmt.precision == precision and method != "qlora":
        if fmt.experts_only:
            experts = arch.routed_expert_params_b * 1e9
            rest = params - experts
            total = experts * fmt.bytes_per_param + rest * 2
            return total, (
                f"routed experts {experts / 1e9:.2f}B x {fmt.bytes_per_param:.4g} B "
                f"({fmt.detail}) + other {rest / 1e9:.2f}B x 2 B (BF16, not quantised), "
                "as the checkpoint's quantization_config says"
            )
        return params * fmt.bytes_per_param, (
            f"{arch.params_b:.4g}B x {fmt.bytes_per_param:.4g} B ({fmt.detail}, the "
            "checkpoint's own quantization_config)"
        )
    if method == "qlora":
        return params * QLORA_BYTES, (
            f"{arch.params_b:.4g}B x {QLORA_BYTES:.4f} B (NF4 4-bit + absmax per 64, double "
            "quantised)"
        )
    per = PRECISION_BYTES[precision]
    if precision == "int4":
        per += INT4_GROUP_OVERHEAD
        return params * per, (
            f"{arch.params_b:.4g}B x {per:.4f} B (INT4 AWQ/GPTQ, group 128: FP16 scale + "
            "4-bit zero per group)"
        )
    return params * per, f"{arch.params_b:.4g}B x {per:g} B ({precision})"


@dataclass(frozen=True)
class MemoryEstimate:
    """Exact-model memory for one replica, split into parts that shard across cards
    (weights, KV cache, gradients, optimizer state) and parts every card carries
    (runtime overhead, activations)."""

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

    @property
    def sharded_gb(self) -> float:
        return (
            self.weights_gb
            + self.kv_cache_gb
            + self.adapters_gb
            + self.gradients_gb
            + self.optimizer_gb
        )

    @property
    def replicated_gb(self) -> float:
        return self.runtime_gb + self.activations_gb

    @property
    def total_gb(self) -> float:
        return self.sharded_gb + self.replicated_gb

    @property
    def overhead_gb(self) -> float:
        """Fixed runtime, plus (for inference) the small prefill activation term."""
        if self.workload.is_training:
            return self.runtime_gb
        return self.runtime_gb + self.activations_gb

    def per_card_gb(self, cards: int) -> float:
        """Need on each of `cards` cards: tensor parallel over `cards` (inference) or
        data parallel with the workload's ZeRO stage (training)."""
        if self.workload.is_training:
            return self.per_card_layout_gb(1, 1, cards)
        return self.per_card_layout_gb(cards, 1)

    def per_card_layout_gb(self, tp: int, pp: int, dp: int = 1) -> float:
        """Inference: weights split over tp x pp cards, KV by KV heads (tp) and layers (pp).
        Training: ZeRO stage 1 shards optimizer state over the dp cards, 2 also gradients,
        3 also weights; runtime and activations stay on every card."""
        if self.workload.is_training:
            stage = self.workload.zero_stage
            weights = self.weights_gb + self.adapters_gb
            return (
                (weights / dp if stage >= 3 else weights)
                + (self.gradients_gb / dp if stage >= 2 else self.gradients_gb)
                + (self.optimizer_gb / dp if stage >= 1 else self.optimizer_gb)
                + self.replicated_gb
            )
        kv = self.kv_cache_gb * kv_share_per_card(self.arch, tp) / pp
        return self.weights_gb / (tp * pp) + kv + self.replicated_gb

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
    if arch.sliding_layers and not workload.is_training:
        notes.append(
            f"Sliding window: {arch.sliding_layers} of {arch.layers} layers keep at most "
            f"{arch.sliding_window:,} tokens of KV; the other {arch.full_attention_layers} "
            "keep the full context."
        )
    fmt = arch.quantization
    if fmt is not None and fmt.precision != workload.precision:
        notes.append(
            f"The checkpoint ships {fmt.precision.upper()} ({fmt.method}); at "
            f"{workload.precision} it must be re-quantised or upcast first."
        )
    return notes


def estimate_memory(workload: Workload) -> MemoryEstimate:
    arch = architecture_for(workload)
    params = arch.params_b * 1e9
    kv_per_token = kv_bytes_per_token(arch, workload.kv_bytes)
    low, high, basis = rule_of_thumb(workload, arch.params_b)
    notes = _notes(workload, arch)
    precision = workload.precision or "bf16"
    weights, weights_basis = weight_bytes(arch, precision, workload.method)

    common = dict(
        workload=workload,
        arch=arch,
        runtime_gb=RUNTIME_OVERHEAD_GB,
        kv_bytes_per_token=kv_per_token,
        rule_low_gb=low,
        rule_high_gb=high,
        rule_basis=basis,
    )

    if not workload.is_training:
        tokens = workload.context_tokens * workload.concurrency
        chunk = min(tokens, PREFILL_CHUNK_TOKENS)
        activations = (
            chunk * arch.hidden * INFERENCE_ACT_BYTES_PER_HIDDEN
            + workload.concurrency * arch.vocab * LOGIT_BYTES
        )
        kv = kv_cache_bytes(arch, workload.kv_bytes, workload.context_tokens, workload.concurrency)
        return MemoryEstimate(
            **common,
            weights_gb=weights / GB,
            kv_cache_gb=kv / GB,
            adapters_gb=0.0,
            gradients_gb=0.0,
            optimizer_gb=0.0,
            activations_gb=activations / GB,
            adapter_params_b=0.0,
            checkpoint_gb=0.0,
            model_files_gb=(arch.checkpoint_gb or weights / GB),
            notes=tuple(notes),
            weights_basis=weights_basis,
        )

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
            notes=tuple(notes),
            weights_basis=f"{arch.params_b:.4g}B x {FULL_WEIGHT_BYTES:g} B (BF16 working copy)",
        )

    adapter_params = params * workload.lora_rank * LORA_FRACTION_PER_RANK
    notes.append(
        f"LoRA rank {workload.lora_rank}: adapters ~{adapter_params / 1e9:.3g}B params "
        f"({workload.lora_rank * LORA_FRACTION_PER_RANK:.2%} of the base), trained in FP32 "
        "with Adam (16 bytes each); the base stays frozen at "
        f"{workload.precision} and has no gradients or optimizer state."
    )
    return MemoryEstimate(
        **common,
        weights_gb=weights / GB,
        kv_cache_gb=0.0,
        adapters_gb=adapter_params * ADAPTER_WEIGHT_BYTES / GB,
        gradients_gb=adapter_params * ADAPTER_GRAD_BYTES / GB,
        optimizer_gb=adapter_params * ADAPTER_OPTIMIZER_BYTES / GB,
        activations_gb=activations / GB,
        adapter_params_b=adapter_params / 1e9,
        checkpoint_gb=adapter_params * ADAPTER_CHECKPOINT_BYTES / GB,
        model_files_gb=release_gb,
        notes=tuple(notes),
        weights_basis=weights_basis,
    )
