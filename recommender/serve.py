"""The engine command that runs an option: `vllm serve ...` or SGLang's launch_server.

Flags as the engines spell them (vLLM `vllm serve --help`: --tensor-parallel-size,
--pipeline-parallel-size, --data-parallel-size, --enable-expert-parallel,
--max-model-len, --gpu-memory-utilization, --max-num-seqs, --quantization,
--kv-cache-dtype; SGLang server arguments: --model-path, --tp-size, --pp-size,
--dp-size, --ep-size, --context-length, --mem-fraction-static, --max-running-requests,
--quantization, --kv-cache-dtype). A checkpoint's own quantization_config is read by
the engine itself, so no --quantization is passed for it; FP8 asked of a 16-bit
checkpoint is vLLM's / SGLang's online FP8 (--quantization fp8); INT8, INT4 and MXFP4
are no online options: the line then says which checkpoint to serve instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import CardSpec
from recommender.layout import Layout
from recommender.memory import MAX_NUM_SEQS
from recommender.support import family
from recommender.workload import Workload

ENGINES = ("vllm", "sglang")
PLACEHOLDER = "<model>"


@dataclass(frozen=True)
class ServeLine:
    command: str
    note: str = ""  # what the command assumes (a checkpoint to fetch, multi-node set-up)

    @property
    def text(self) -> str:
        return self.command + (f"  # {self.note}" if self.note else "")


def serve_line(
    workload: Workload, spec: CardSpec, layout: Layout, engine: str = "vllm"
) -> ServeLine:
    arch = workload.architecture
    model = (arch.repo_id if arch is not None else None) or PLACEHOLDER
    quant, kv, note = _flags(workload, spec)
    if layout.replica_cards > 8:
        note = "; ".join(filter(None, [note, f"one replica spans {layout.nodes // layout.dp} "
                                              "servers: start a Ray cluster first"]))  # fmt: skip
    per_replica = -(-workload.concurrency // layout.dp)  # each replica schedules its own
    seqs = per_replica if per_replica > MAX_NUM_SEQS else None
    if engine == "sglang":
        parts = [
            "python -m sglang.launch_server",
            f"--model-path {model}",
            f"--tp-size {layout.tp}",
        ]
        parts += [f"--pp-size {layout.pp}"] if layout.pp > 1 else []
        parts += [f"--dp-size {layout.dp}"] if layout.dp > 1 else []
        parts += [f"--ep-size {layout.tp}"] if layout.ep else []
        parts += [f"--context-length {workload.context_tokens}",
                  f"--mem-fraction-static {workload.gpu_memory_utilization:g}"]  # fmt: skip
        parts += [f"--max-running-requests {seqs}"] if seqs else []
        parts += [f"--quantization {quant}"] if quant else []
        parts += [f"--kv-cache-dtype {'fp8_e4m3' if kv == 'fp8' else kv}"] if kv else []
        return ServeLine(" ".join(parts), note)
    parts = [f"vllm serve {model}", f"--tensor-parallel-size {layout.tp}",
             f"--pipeline-parallel-size {layout.pp}"]  # fmt: skip
    parts += [f"--data-parallel-size {layout.dp}"] if layout.dp > 1 else []
    parts += ["--enable-expert-parallel"] if layout.ep else []
    parts += [f"--max-model-len {workload.context_tokens}",
              f"--gpu-memory-utilization {workload.gpu_memory_utilization:g}"]  # fmt: skip
    parts += [f"--max-num-seqs {seqs}"] if seqs else []
    parts += [f"--quantization {quant}"] if quant else []
    parts += [f"--kv-cache-dtype {kv}"] if kv else []
    return ServeLine(" ".join(parts), note)


def _flags(workload: Workload, spec: CardSpec) -> tuple[str | None, str | None, str]:
    """(--quantization value, --kv-cache-dtype value, note)."""
    arch = workload.architecture
    precision = workload.precision or "bf16"
    own = arch.quantization if arch is not None else None
    kv = workload.kv_dtype if workload.kv_precision not in (None, "auto") else None
    if kv in ("bf16", "fp16"):
        kv = None  # the model dtype: what "auto" gives anyway
    if precision in ("bf16", "fp16", "fp32") or (own is not None and own.precision == precision):
        return None, kv, ""
    if family(spec) == "ascend-a2" and precision in ("int8", "int4"):
        kind = "W8A8" if precision == "int8" else "W4A16"
        return "ascend", kv, f"serve a ModelSlim {kind} checkpoint (vllm-ascend)"
    if precision == "fp8":
        return "fp8", kv, "online FP8: the engine quantises the 16-bit weights at load"
    what = {"int8": "an INT8 (W8A8)", "int4": "an AWQ / GPTQ INT4", "mxfp4": "an MXFP4"}[precision]
    return (
        None,
        kv,
        f"serve {what} checkpoint of the model: the engine does not quantise to {precision} at load",
    )
