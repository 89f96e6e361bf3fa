"""Which format generation an adapter reads a body as, told by content like its parser:
`gpuprice sources check` prints it. One-format adapters say nothing (None)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapers.sources import build_adapter, format_generation

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RUNPOD = FIXTURES / "real" / "runpod"


@pytest.mark.parametrize(
    ("capture", "generation"),
    [
        ("runpod_graphql_20260928.json", "GraphQL gpuTypes answer (JSON)"),
        ("runpod_20230929070808.html", "2023 pricing page (Next.js __NEXT_DATA__)"),
        ("runpod_20250909131230.html", "2025 pricing page (Webflow gpu-pricing-row)"),
        ("runpod_20260810082317.html", "2026 pricing page (schema.org JSON-LD), or no RunPod page"),
    ],
)
def test_runpod_tells_its_api_and_three_page_generations(capture: str, generation: str) -> None:
    body = (RUNPOD / capture).read_bytes()
    assert format_generation(build_adapter("runpod"), body, "file:///saved") == generation


def test_an_adapter_with_one_format_says_none() -> None:
    body = (FIXTURES / "live" / "vastai_bundles.json").read_bytes()
    assert format_generation(build_adapter("vastai"), body, "https://console.vast.ai") is None


def test_a_body_that_is_neither_json_nor_html_is_said_not_raised() -> None:
    assert format_generation(build_adapter("runpod"), b"", "x") == "neither JSON nor HTML"
