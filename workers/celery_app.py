"""The Celery application: Redis as broker, result backend and state store, configured on purpose.

``celery -A workers.celery_app worker`` uses the module-level :data:`app`, built from
``$REDIS_URL`` (``redis://``, ``rediss://``, ``unix://`` or ``redis+socket://``; the default
``redis://127.0.0.1:6379/0`` only if it is unset). :func:`make_celery` builds another app for a
given URL (tests, the demo). Tasks are shared tasks in :mod:`workers.tasks`, so every app built
here runs them. :func:`get_store` gives a task the :class:`arena.store.Store` of its app, created
lazily in the process that uses it (never inherited across a fork).

Every setting below is chosen for "nothing lost, nothing counted twice"; see the comments, and
``PRACTICE.md`` in the design notes for the Celery/Redis issues behind them.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from celery import Celery

from arena.store import Store, kombu_url, redis_py_url

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

TASK_SOFT_TIME_LIMIT = 55 * 60
"""Seconds before a task gets ``SoftTimeLimitExceeded``: a batch stops starting new matches and
returns what it recorded (its results are already stored one by one)."""

TASK_TIME_LIMIT = 60 * 60
"""Hard limit: the child process running the task is killed. A batch must be sized to finish
well within this (batches of matches, not a tournament per task)."""

VISIBILITY_TIMEOUT = 2 * TASK_TIME_LIMIT
"""Seconds an unacknowledged message stays invisible before Redis hands it to another worker.
It must exceed the longest task (the hard limit) plus its wait in the worker's prefetch buffer,
or a long task runs twice (kombu#337, celery#3270, #5306, #7651). Results are idempotent anyway,
so a redelivery after a real crash only costs time."""

RESULT_EXPIRES = 24 * 3600
"""Task results (not match results, which live in the store) are dropped after a day."""

CANARY_INTERVAL = 60.0
"""Seconds between canary tasks sent by ``celery beat``."""


def make_celery(redis_url: str | None = None, *, main: str = "uno-arena", **overrides: Any) -> Celery:
    """A configured Celery app for ``redis_url`` (default ``$REDIS_URL``); ``overrides`` win."""
    url = redis_url or os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    broker = kombu_url(url)
    app = Celery(main, include=["workers.tasks"])
    app.conf.update(
        broker_url=broker,
        result_backend=broker,
        # The store's own URL (redis-py form), read by get_store().
        arena_redis_url=redis_py_url(url),
        # JSON only: tasks carry ids and small specs, and no worker unpickles what a client sent.
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        enable_utc=True,
        # Late ack: a message is acknowledged after its task finished, so a worker killed
        # mid-task leaves the message to be redelivered (the default early ack would lose it).
        task_acks_late=True,
        # ... and a child process that dies (OOM, SIGKILL) rejects the message back to the queue
        # instead of acknowledging it as failed.
        task_reject_on_worker_lost=True,
        # One message reserved per child at a time: a long batch does not sit on further
        # messages other workers could run, and fewer messages wait out the visibility timeout.
        worker_prefetch_multiplier=1,
        # Visibility timeout set the same for the broker and the result backend (see above).
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        result_backend_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        # Time limits bound every task below the visibility timeout.
        task_soft_time_limit=TASK_SOFT_TIME_LIMIT,
        task_time_limit=TASK_TIME_LIMIT,
        result_expires=RESULT_EXPIRES,
        # Keep retrying the broker, also at startup (Celery 6 stops retrying at startup unless
        # told to); workers outlive Redis restarts. A canary task catches the known case of a
        # worker that reconnects but silently stops consuming (celery#8030, #10205, #10302).
        broker_connection_retry=True,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        # When the broker connection drops, tasks running under late ack will be redelivered;
        # cancel them instead of letting them finish a second copy (and silence the warning).
        worker_cancel_long_running_tasks_on_connection_loss=True,
        # Retry result-backend reads/writes across a Redis reconnect instead of failing the task.
        result_backend_always_retry=True,
        result_backend_max_retries=10,
        redis_backend_health_check_interval=15,
        redis_socket_keepalive=True,
        redis_retry_on_timeout=True,
        # No worker_max_tasks_per_child: recycled children leave dead-process files behind in
        # prometheus multiprocess mode (client_python#204, #367), and nothing here leaks.
        worker_max_tasks_per_child=None,
        # The canary: a tiny task every minute; its timestamp in Redis (uno:canary) is watched.
        beat_schedule={
            "canary": {"task": "workers.tasks.canary", "schedule": CANARY_INTERVAL},
        },
    )
    if overrides:
        app.conf.update(**overrides)
    return app


_stores: dict[tuple[int, str], Store] = {}
_stores_lock = threading.Lock()


def _forget_stores_after_fork() -> None:
    """A forked child (prefork pool) never reuses its parent's connections or lock."""
    global _stores_lock
    _stores.clear()
    _stores_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_stores_after_fork)


def get_store(celery_app: Celery | None = None) -> Store:
    """The store of ``celery_app`` (default :data:`app`), one per process and URL."""
    conf = (celery_app or app).conf
    url = str(conf.get("arena_redis_url") or redis_py_url(str(conf.broker_url)))
    key = (os.getpid(), url)
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = Store.from_url(url)
        return store


app = make_celery()
"""The app for ``celery -A workers.celery_app``, built from ``$REDIS_URL``."""
