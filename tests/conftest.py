"""Shared fixtures and the hypothesis profiles (``fast`` default, ``thorough`` local)."""

from __future__ import annotations

import os

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture
def rng():
    """A fixed-seed numpy generator (tests are reproducible)."""
    return np.random.default_rng(20261129)


def pytest_addoption(parser):
    parser.addoption("--regen", action="store_true", help="rewrite the golden files")


@pytest.fixture
def regen(request):
    """True when the golden files should be rewritten (``pytest --regen``)."""
    return request.config.getoption("--regen")


@pytest.fixture(autouse=True, scope="session")
def _no_compile_notice():
    """The one-line cold-start notice (engine.jit.warmup) is for people; the tests that count
    stderr lines must not depend on which test happens to compile a part first, so every
    part counts as announced (tests/engine/jit/test_warmup.py resets it to test the notice)."""
    from engine.jit import warmup as _warmup

    _warmup._ANNOUNCED.update(what for what, _, _ in (*_warmup.PARTS.values(), _warmup._DEFAULT))
    yield


INTERPRETED = bool(numba.config.DISABLE_JIT)
"""True in .ci/run's coverage pass (``NUMBA_DISABLE_JIT=1 pytest -m twin``): the kernels run
as plain Python, so the tests marked ``twin`` check the kernel code itself against its
brute-force twin, on fewer cases."""


@pytest.fixture
def twin_n():
    """``twin_n(n)``: ``n`` cases compiled, a tenth of them (at least 100) interpreted."""
    return lambda n: n if not INTERPRETED else max(100, n // 10)
