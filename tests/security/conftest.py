"""Fixtures of the security tests: a Celery app on the private Redis, a real worker, a real gateway, and the
organizer API with an admin token (so that bots and anonymous callers are told apart)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from celery import Celery

from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.organizer import OrganizerServer
from tests.support.redis_server import PrivateRedis
from tests.support.workers import app, worker

__all__ = ["ADMIN", "ADMIN_TOKEN", "app", "worker"]

ADMIN_TOKEN = "admin-secret-token"
ADMIN = [("authorization", f"Bearer {ADMIN_TOKEN}")]


@pytest.fixture
def organizer(store: Any, app: Celery) -> Iterator[OrganizerServer]:
    """The organizer API with the admin token :data:`ADMIN_TOKEN` on a real grpc.aio server."""
    server = OrganizerServer(store, app, admin_token=ADMIN_TOKEN)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def gateway(redis_server: PrivateRedis) -> Iterator[GatewayHarness]:
    """A started gateway (grpc.aio, health, reflection, relay) on 127.0.0.1:<free port>, empty Redis."""
    with running_gateway(redis_server.url, hello_timeout_s=2.0, heartbeat_interval_s=1.0) as harness:
        yield harness
