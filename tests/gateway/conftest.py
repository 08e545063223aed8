"""Fixtures of the gateway tests: a real gateway on a free port over the session's private redis-server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.redis_server import PrivateRedis


@pytest.fixture
def gateway(redis_server: PrivateRedis) -> Iterator[GatewayHarness]:
    """A started gateway (grpc.aio, health, reflection, relay) on 127.0.0.1:<free port>, empty Redis."""
    with running_gateway(redis_server.url, hello_timeout_s=2.0, heartbeat_interval_s=1.0) as harness:
        yield harness
