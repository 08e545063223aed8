"""Fixtures of the security tests: a Celery app on the private Redis, a real worker, a real gateway, and the
organizer API with an admin token (so that bots and anonymous callers are told apart)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import celery.contrib.testing.tasks  # noqa: F401  - registers celery.ping, used by start_worker
import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker

import workers.tasks  # noqa: F401  - the shared tasks
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.organizer import OrganizerServer
from tests.support.redis_server import PrivateRedis
from tests.workers.helpers import fast_app

ADMIN_TOKEN = "admin-secret-token"
ADMIN = [("authorization", f"Bearer {ADMIN_TOKEN}")]


@pytest.fixture
def app(redis_server: Any) -> Celery:
    return fast_app(redis_server.url)


@pytest.fixture
def worker(app: Celery) -> Iterator[Any]:
    """A real Celery worker (celery.contrib.testing) consuming from the private Redis."""
    with start_worker(app, pool="solo", perform_ping_check=True, shutdown_timeout=30) as w:
        yield w


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
