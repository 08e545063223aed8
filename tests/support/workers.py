"""Celery fixtures shared by the test folders that run tournaments: an app with short timings on the private
Redis (``app``) and a real worker consuming from it (``worker``). Import them into a ``conftest.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import celery.contrib.testing.tasks  # noqa: F401  - registers celery.ping, used by start_worker
import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker

import workers.tasks  # noqa: F401  - the shared tasks
from tests.workers.helpers import fast_app


@pytest.fixture
def app(redis_server: Any) -> Celery:
    return fast_app(redis_server.url)


@pytest.fixture
def worker(app: Celery) -> Iterator[Any]:
    """A real Celery worker (celery.contrib.testing) consuming from the private Redis."""
    with start_worker(app, pool="solo", perform_ping_check=True, shutdown_timeout=30) as w:
        yield w
