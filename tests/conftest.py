"""Fixtures every test folder may use: a private real redis-server (started here, stopped after) and a Store; and the
hooks that keep the unit and integration tiers apart (tests/support/tiers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.store import Store
from tests.support.redis_server import (
    PrivateRedis,
    fresh_redis_server,
    redis_server,
    redis_server_session,
)
from tests.support.tiers import (
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_call,
    pytest_runtest_setup,
    pytest_runtest_teardown,
)

__all__ = ["fresh_redis_server", "pytest_collection_modifyitems", "pytest_configure", "pytest_runtest_call",
           "pytest_runtest_setup", "pytest_runtest_teardown", "redis_server", "redis_server_session"]


@pytest.fixture
def store(redis_server: PrivateRedis) -> Iterator[Store]:
    """A :class:`Store` on an empty private redis-server."""
    s = Store.from_url(redis_server.url)
    try:
        yield s
    finally:
        s.close()
