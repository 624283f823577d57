"""The Rust lane's fixtures: the seed's session and one vllm-rs frontend for it per run
(hermes + qwen3 on the qwen3 tokenizer; a start costs 2-5 s)."""

from __future__ import annotations

import pytest

from tests.support.rust import RUST_VERSION, seed_setup

@pytest.fixture(scope="session")
def seed_session():
    from workbench.core.session import Session

    return Session(seed_setup())


@pytest.fixture(scope="session")
def seed_frontend(seed_session):
    from workbench.rustfe import lane

    return lane.frontend(lane.config_of(seed_session, RUST_VERSION))
