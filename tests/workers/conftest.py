"""Fixtures of the worker tests: a Celery app with short timings on the private Redis, a real worker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import celery.contrib.testing.tasks  # noqa: F401  - registers celery.ping, used by start_worker
import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker

import workers.tasks  # noqa: F401  - the shared tasks
from tests.support.organizer import OrganizerServer

from .helpers import fast_app


@pytest.fixture
def app(redis_server: Any) -> Celery:
    return fast_app(redis_server.url)


@pytest.fixture
def worker(app: Celery) -> Iterator[Any]:
    """A real Celery worker (celery.contrib.testing) consuming from the private Redis."""
    with start_worker(app, pool="solo", perform_ping_check=True, shutdown_timeout=30) as w:
        yield w


@pytest.fixture
def organizer(store: Any, app: Celery) -> Iterator[Any]:
    """The organizer API (ArenaService) on a real grpc.aio server, sending tasks through `app`."""
    server = OrganizerServer(store, app)
    try:
        yield server
    finally:
        server.close()
