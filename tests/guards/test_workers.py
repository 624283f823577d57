"""make test's two workers share what is costly to start (tests/support/workers.py): a test
that uses a shared fixture, or a module-scoped one, runs in its group, on one worker. xdist
reads the group into the test's id; where it cannot (pytest 9.2's ids with xdist 3.8) every
group silently runs on both workers, each starting its own JupyterLab, engine, lanes and
module fixtures."""

from __future__ import annotations

import pytest

from tests.support import workers


@pytest.fixture(scope="module")
def module_scoped():
    return object()


def test_a_grouped_test_carries_its_group_in_its_id(request, module_scoped):
    if not workers.is_worker(request.config):
        pytest.skip("only a pytest -n worker's test ids carry their group (make test runs two workers)")
    assert workers.group_of(request.node) == __name__
    assert request.node.nodeid.endswith(f"@{__name__}"), request.node.nodeid
