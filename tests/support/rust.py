"""The Rust lane tests' seed: the vllm-rs version they run and the seed's Setup."""

from __future__ import annotations

from tests.support.seed import WEATHER_TOOLS

RUST_VERSION = "0.34.0"
QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]


def seed_setup(api: str = "chat", tokenizer: str = "qwen3", tool: str | None = "hermes",
               reasoning: str | None = "qwen3"):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    return Setup(tokenizer=tokenizer, parser=ParserSpec(tool, reasoning),
                 request=RequestSpec(messages=[dict(m) for m in QUESTION], tools=WEATHER_TOOLS), api=api)
