"""Shared fixtures: one sandbox server per test session, reset to its seeded state per test."""

from __future__ import annotations

import fixed_clock
import pytest

#: A token that must never be seen in a repr, a log line, an error or a saved file.
CANARY_TOKEN = "gb_api_CANARY7f3a9c2e5b1d4a8f6e0c"


def pytest_configure(config):
    """With ``DOCSAPI_TEST_NOW`` set, the whole session runs on a clock starting then."""
    config.docsapi_fixed_clock = fixed_clock.from_environment()


def pytest_unconfigure(config):
    clock = getattr(config, "docsapi_fixed_clock", None)
    if clock is not None:
        clock.stop()


def pytest_report_header(config):
    clock = getattr(config, "docsapi_fixed_clock", None)
    if clock is not None:
        return f"clock: starts at {clock.instant} ({fixed_clock.VARIABLE}), kernels included"
    return None


@pytest.fixture(scope="session")
def sandbox_server():
    """A documentation-platform sandbox shared by the whole session (seed 0, demo size)."""
    from docsapi.sandbox import Sandbox

    with Sandbox(seed=0) as sb:
        yield sb


@pytest.fixture
def sandbox(sandbox_server):
    """The shared sandbox, back in its seeded state with no faults, latency or rate limit."""
    sandbox_server.reset()
    return sandbox_server


@pytest.fixture(scope="session")
def highest_sandbox_server():
    """A second shared sandbox whose access model follows the ``highest`` rule set."""
    from docsapi.sandbox import Sandbox

    with Sandbox(seed=0, model="highest") as sb:
        yield sb


@pytest.fixture
def highest_sandbox(highest_sandbox_server):
    """The ``highest`` sandbox, back in its seeded state."""
    highest_sandbox_server.reset()
    return highest_sandbox_server


@pytest.fixture
def client(sandbox):
    """A DocsClient with the sandbox's full-access user token, retries without long waits."""
    return sandbox.client()


@pytest.fixture
def canary_token() -> str:
    return CANARY_TOKEN
