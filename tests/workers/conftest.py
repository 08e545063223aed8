"""Fixtures of the worker tests: a Celery app with short timings on the private Redis, a real worker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from celery import Celery

from tests.support.organizer import OrganizerServer
from tests.support.workers import app, worker

__all__ = ["app", "worker"]


@pytest.fixture
def organizer(store: Any, app: Celery) -> Iterator[Any]:
    """The organizer API (ArenaService) on a real grpc.aio server, sending tasks through `app`."""
    server = OrganizerServer(store, app)
    try:
        yield server
    finally:
        server.close()
