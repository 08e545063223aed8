"""The Celery application: Redis as broker, result backend and state store, configured on purpose.

``celery -A workers.celery_app worker`` uses the module-level :data:`app`, built from ``$REDIS_URL``;
:func:`make_celery` builds another for a given URL. Every setting is chosen for "nothing lost, nothing counted
twice" (see the comments). :func:`get_store` gives a task its app's store, made in the process that uses it.
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

from celery import Celery
from celery.exceptions import CPendingDeprecationWarning

from arena.store import Store, kombu_url, redis_py_url
from arena.tournament.spec import DEFAULT_MATCHES_PER_PROCESS

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def quiet_cancel_on_connection_loss_warning() -> None:
    """Silence Celery's warning, at every broker connection loss, that cancelling running late-ack tasks will become
    its default: this app chose not to (see :func:`make_celery`). Called again once a worker is ready, as its
    logging set-up puts Celery's "always" filter first."""
    warnings.filterwarnings("ignore", message=r"\s*In Celery 5\.1 we introduced an optional breaking change",
                            category=CPendingDeprecationWarning)


quiet_cancel_on_connection_loss_warning()

TASK_SOFT_TIME_LIMIT = 55 * 60
"""Seconds before a batch stops starting new matches and returns (its results are stored one by one)."""
TASK_TIME_LIMIT = 60 * 60
"""Hard limit: the child process running the task is killed."""
VISIBILITY_TIMEOUT = 2 * TASK_TIME_LIMIT
"""Seconds an unacknowledged message stays invisible before Redis hands it to another worker: more than the
longest task and its wait in the prefetch buffer, or a long task runs twice (kombu#337, celery#3270, #5306)."""
RESULT_EXPIRES = 24 * 3600
"""Task results (not match results, which live in the store) are dropped after a day."""

# Seconds between two of each periodic task of `celery beat` (the scheduler loop has its own tick): the canary,
# the cron schedules (minute resolution), a ladder round of the competitions, and the sweep of every active
# tournament, which restarts a check chain whose message was lost.
CANARY_INTERVAL = 60.0
SCHEDULE_INTERVAL = 20.0
LADDER_INTERVAL = 5.0
SWEEP_INTERVAL = 15.0

# Timing of the tournament machinery (arena.service.lifecycle.Settings), each settable from the environment as
# UNO_ARENA_<NAME> (e.g. UNO_ARENA_HEARTBEAT_TIMEOUT=20). In seconds: a batch whose worker died is re-sent within
# about heartbeat_timeout + check_interval (15 s), a queued message lost with a dead worker within queued_grace +
# check_interval (13 s); the stall timeout is only the last resort.
ARENA_SETTINGS: dict[str, float] = {
    "arena_check_interval": 3.0,
    "arena_heartbeat_interval": 2.0,
    "arena_heartbeat_timeout": 12.0,
    "arena_queued_grace": 10.0,
    "arena_stall_timeout": 600.0,
    "arena_batch_size": 0,
    "arena_max_attempts": 5,
    "arena_pending_timeout": 60.0,
    "arena_store_retry_timeout": 300.0,
    "arena_infra_grace_s": 30.0,
    "arena_matches_per_process": DEFAULT_MATCHES_PER_PROCESS,
}


def make_celery(redis_url: str | None = None, *, main: str = "uno-arena", **overrides: Any) -> Celery:
    """A configured Celery app for ``redis_url`` (default ``$REDIS_URL``); ``overrides`` win."""
    from arena.service.schedules import missed_policy

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
        # Late ack: a worker killed mid-task leaves the message to be redelivered (early ack would lose it), and
        # a child that dies (OOM, SIGKILL) rejects it back to the queue instead of acknowledging it as failed.
        task_acks_late=True,
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
        # A write Redis refuses (MISCONF, READONLY, OOM) is a kombu channel error that ended the worker: retry
        # the consumer on it too, after a logged and counted back-off (workers.consumer).
        broker_channel_error_retry=True,
        worker_consumer="workers.consumer:ResilientConsumer",
        # When the broker connection drops, a running batch's message comes back; let the batch finish anyway (it
        # retries Redis through the outage and records its matches once; the copy skips them). Cancelling it would
        # cost a re-sent batch and a replayed match per Redis restart (the faults benchmark, docs/benchmarks.md).
        worker_cancel_long_running_tasks_on_connection_loss=False,
        # Retry result-backend reads/writes across a Redis reconnect instead of failing the task.
        result_backend_always_retry=True,
        result_backend_max_retries=10,
        redis_backend_health_check_interval=15,
        redis_socket_keepalive=True,
        redis_retry_on_timeout=True,
        # No worker_max_tasks_per_child: recycled children leave dead-process files behind in
        # prometheus multiprocess mode (client_python#204, #367), and nothing here leaks.
        worker_max_tasks_per_child=None,
        # For `celery beat` users (`uno-arena scheduler` does the same without beat): the canary, due cron
        # schedules (each due time fired once whatever the number of beats), the sweep, the ladder.
        beat_schedule={
            "canary": {"task": "workers.tasks.canary", "schedule": CANARY_INTERVAL},
            "fire-schedules": {"task": "workers.tasks.fire_schedules", "schedule": SCHEDULE_INTERVAL},
            "sweep-tournaments": {"task": "workers.tasks.sweep_tournaments", "schedule": SWEEP_INTERVAL},
            "ladder": {"task": "workers.tasks.ladder_tick", "schedule": LADDER_INTERVAL},
        },
        **ARENA_SETTINGS,
        # What a scheduler does with a cron due time it finds late (it was down): "fire-once-late" or
        # "skip" (arena.service.schedules; every missed firing is logged either way).
        arena_missed_firings=missed_policy(),
    )
    env_settings = {name: float(value) for name in ARENA_SETTINGS
                    if (value := os.environ.get(f"UNO_ARENA_{name.removeprefix('arena_').upper()}"))}
    app.conf.update({**env_settings, **overrides})
    return app


_stores: dict[str, Store] = {}
_stores_lock = threading.Lock()


def _forget_stores_after_fork() -> None:
    """A forked child (prefork pool) never reuses its parent's connections or lock."""
    global _stores_lock
    _stores.clear()
    _stores_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_stores_after_fork)


def get_store(celery_app: Celery) -> Store:
    """The store of ``celery_app``, one per process (see :func:`_forget_stores_after_fork`) and URL."""
    conf = celery_app.conf
    url = str(conf.get("arena_redis_url") or redis_py_url(str(conf.broker_url)))
    with _stores_lock:
        if url not in _stores:
            _stores[url] = Store.from_url(url)
        return _stores[url]


app = make_celery()
"""The app for ``celery -A workers.celery_app``, built from ``$REDIS_URL``."""
