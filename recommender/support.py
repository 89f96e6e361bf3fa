"""Which weight formats each card runs, and how: a quantisation format x card matrix.

Sources (recommender/README.md quotes them):
- vLLM, docs/features/quantization/README.md "Supported Hardware" (vllm-project/vllm
  @ 0328802bed2bb6ca346ea10acb61221a0c607768): FP8 (W8A8) on Ada and Hopper only;
  Marlin (GPTQ/AWQ/FP8) on Ampere, Ada, Hopper; INT8 (W8A8) Turing to Hopper; AWQ /
  GPTQ Turing to Hopper.
- vLLM, vllm/model_executor/layers/quantization/fp8.py (@ 0071b24bf8fe8c3d1bc3516d0ff8477f07964aaf):
  below compute capability 8.9 FP8 weights run through the Marlin kernel, weight-only.
- vLLM recipes, OpenAI/GPT-OSS.md: gpt-oss (MXFP4) runs on H100 / H200 / B200; on
  Ampere (A100) "by default, using ... Marlin MXFP4 MoE"; Ada and the RTX 5090 named
  as still being worked on.
- SGLang, docs "Quantization on Ascend": Atlas A2 (910B) runs W8A8 / W4A8 / W4A16
  (ModelSlim); MXFP8 / MXFP4 only on the Ascend 950; the 910B has no FP8 at all.
- NVIDIA TransformerEngine "Datatype and hardware support matrix": FP8 from SM 8.9
  (Ada) on, Blackwell data-centre (SM 10.0) and workstation / RTX 50 (SM 12.0) included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recommender.cards import FP8_NATIVE, FP8_NONE, FP8_WEIGHT_ONLY, CardSpec

NATIVE = "native"
WEIGHT_ONLY = "weight-only"
UNSUPPORTED = "none"

_FAMILIES = (
    ("ascend-a2", re.compile(r"^910")),
    ("ampere", re.compile(r"^(a100|a800|a10-|a30-|a40-|rtx30|rtxa6000)")),
    ("ada", re.compile(r"^(rtx40|l40|l20|l4-|rtx6000ada)")),
    ("hopper", re.compile(r"^(h100|h800|h200|h20-|gh200)")),
    ("blackwell-rtx", re.compile(r"^(rtx50|rtxpro6000)")),  # SM 12.0
    ("blackwell", re.compile(r"^(b200|b100|gb200|b300)")),  # SM 10.0
)

_VLLM_TABLE = "vLLM quantization 'Supported Hardware' table"
_ASCEND = "SGLang 'Quantization on Ascend': A2 runs W8A8 / W4A16 (ModelSlim), no FP8 / MXFP4"
_GPT_OSS = "vLLM gpt-oss recipe"

# (format, family) -> (path, why). A missing pair falls back to the card's stated FP8
# support for fp8 and to "native" for 16-bit.
_MATRIX: dict[tuple[str, str], tuple[str, str]] = {
    ("fp8", "ampere"): (WEIGHT_ONLY, f"FP8 Marlin, W8A16 ({_VLLM_TABLE}; fp8.py uses Marlin below SM 8.9)"),
    ("fp8", "ada"): (NATIVE, f"FP8 tensor cores, W8A8 ({_VLLM_TABLE}: Ada)"),
    ("fp8", "hopper"): (NATIVE, f"FP8 tensor cores, W8A8 ({_VLLM_TABLE}: Hopper)"),
    ("fp8", "blackwell"): (NATIVE, "FP8 tensor cores, W8A8 (TransformerEngine matrix: SM 10.0)"),
    ("fp8", "blackwell-rtx"): (NATIVE, "FP8 tensor cores, W8A8 (TransformerEngine matrix: SM 12.0)"),
    ("fp8", "ascend-a2"): (UNSUPPORTED, f"no FP8 on the 910B ({_ASCEND}): re-quantise to W8A8 INT8 with ModelSlim or serve BF16"),
    ("mxfp4", "ampere"): (WEIGHT_ONLY, f"Marlin MXFP4 MoE, weight-only ({_GPT_OSS}: A100)"),
    ("mxfp4", "ada"): (WEIGHT_ONLY, f"Marlin MXFP4, weight-only; the {_GPT_OSS} names Ada as still being worked on"),
    ("mxfp4", "hopper"): (NATIVE, f"MXFP4 MoE kernels ({_GPT_OSS}: H100 / H200)"),
    ("mxfp4", "blackwell"): (NATIVE, f"MXFP4 tensor cores ({_GPT_OSS}: B200)"),
    ("mxfp4", "blackwell-rtx"): (WEIGHT_ONLY, f"Marlin MXFP4, weight-only; the {_GPT_OSS} names the RTX 5090 as still being worked on"),
    ("mxfp4", "ascend-a2"): (UNSUPPORTED, f"no MXFP4 on the 910B ({_ASCEND}; MXFP4 only on the Ascend 950): serve BF16"),
    ("int8", "ascend-a2"): (NATIVE, f"W8A8 from a ModelSlim checkpoint, --quantization ascend ({_ASCEND})"),
    ("int4", "ascend-a2"): (WEIGHT_ONLY, f"W4A16 from a ModelSlim checkpoint, --quantization ascend ({_ASCEND})"),
    ("int8", "ampere"): (NATIVE, f"INT8 W8A8 ({_VLLM_TABLE}: Ampere)"),
    ("int8", "ada"): (NATIVE, f"INT8 W8A8 ({_VLLM_TABLE}: Ada)"),
    ("int8", "hopper"): (NATIVE, f"INT8 W8A8 ({_VLLM_TABLE}: Hopper)"),
    ("int8", "blackwell"): (NATIVE, "INT8 W8A8 (INT8 tensor cores, as Hopper)"),
    ("int8", "blackwell-rtx"): (NATIVE, "INT8 W8A8 (INT8 tensor cores, as Ada)"),
    ("int4", "ampere"): (WEIGHT_ONLY, f"AWQ / GPTQ Marlin, W4A16 ({_VLLM_TABLE}: Ampere)"),
    ("int4", "ada"): (WEIGHT_ONLY, f"AWQ / GPTQ Marlin, W4A16 ({_VLLM_TABLE}: Ada)"),
    ("int4", "hopper"): (WEIGHT_ONLY, f"AWQ / GPTQ Marlin, W4A16 ({_VLLM_TABLE}: Hopper)"),
    ("int4", "blackwell"): (WEIGHT_ONLY, "AWQ / GPTQ Marlin, W4A16 (Marlin runs from SM 8.0 on)"),
    ("int4", "blackwell-rtx"): (WEIGHT_ONLY, "AWQ / GPTQ Marlin, W4A16 (Marlin runs from SM 8.0 on)"),
}  # fmt: skip


@dataclass(frozen=True)
class Support:
    path: str  # native, weight-only or none
    why: str

    @property
    def runs(self) -> bool:
        return self.path != UNSUPPORTED


def family(spec: CardSpec) -> str:
    for name, pattern in _FAMILIES:
        if pattern.match(spec.gpu):
            return name
    return "unknown"


def support(precision: str, spec: CardSpec) -> Support:
    """How `spec` runs weights at `precision` (16-bit runs everywhere)."""
    if precision in ("bf16", "fp16", "fp32"):
        return Support(NATIVE, "16-bit")
    found = _MATRIX.get((precision, family(spec)))
    if found is not None:
        return Support(*found)
    if precision == "fp8":  # a card outside the table: what its gpu_spec row says
        path = {FP8_NATIVE: NATIVE, FP8_WEIGHT_ONLY: WEIGHT_ONLY, FP8_NONE: UNSUPPORTED}[
            spec.fp8_path
        ]
        stated = "states FP8" if spec.fp8 else "does not state FP8"
        return Support(path, f"{spec.gpu} {stated} (gpu_spec.fp8)")
    if precision == "mxfp4":
        return Support(UNSUPPORTED, f"{spec.gpu}: no MXFP4 path known ({_GPT_OSS}); serve BF16")
    return Support(WEIGHT_ONLY if precision == "int4" else NATIVE, f"{precision} on {spec.gpu}")


def matrix_rows(specs: list[CardSpec]) -> list[tuple[str, str, str, str]]:
    """(card, format, path, why) for every card and quantised format, for the docs / JSON."""
    return [(s.gpu, p, (sup := support(p, s)).path, sup.why)
            for s in specs for p in ("fp8", "int8", "int4", "mxfp4")]  # fmt: skip
