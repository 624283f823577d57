"""The Rust lane's fixtures: the seed's session and one vllm-rs frontend for it per run
(hermes + qwen3 on the qwen3 tokenizer; a start costs 2-5 s)."""

from __future__ import annotations

import pytest

from tests.conftest import WEATHER_TOOLS

RUST_VERSION = "0.34.0"
QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]


def seed_setup(api: str = "chat", tokenizer: str = "qwen3", tool: str | None = "hermes",
               reasoning: str | None = "qwen3"):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    return Setup(tokenizer=tokenizer, parser=ParserSpec(tool, reasoning),
                 request=RequestSpec(messages=[dict(m) for m in QUESTION], tools=WEATHER_TOOLS), api=api)


@pytest.fixture(scope="session")
def seed_session():
    from workbench.core.session import Session

    return Session(seed_setup())


@pytest.fixture(scope="session")
def seed_frontend(seed_session):
    from workbench.rustfe import lane

    return lane.frontend(lane.config_of(seed_session, RUST_VERSION))
