"""Fixtures every test folder may use: a private real redis-server (started here, stopped after) and a Store."""

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

__all__ = ["fresh_redis_server", "redis_server", "redis_server_session"]


@pytest.fixture
def store(redis_server: PrivateRedis) -> Iterator[Store]:
    """A :class:`Store` on an empty private redis-server."""
    s = Store.from_url(redis_server.url)
    try:
        yield s
    finally:
        s.close()
