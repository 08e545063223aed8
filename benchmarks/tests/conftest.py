"""The benchmarks' tests use the suite's fixtures and tiers (tests/conftest.py, tests/support/tiers.py): each of
them is marked ``bench``, and ``integration`` too when it starts a service."""

from __future__ import annotations

from tests.conftest import store
from tests.support.redis_server import fresh_redis_server, redis_server, redis_server_session
from tests.support.tiers import (
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_call,
    pytest_runtest_setup,
    pytest_runtest_teardown,
)

__all__ = ["fresh_redis_server", "pytest_collection_modifyitems", "pytest_configure", "pytest_runtest_call",
           "pytest_runtest_setup", "pytest_runtest_teardown", "redis_server", "redis_server_session", "store"]
