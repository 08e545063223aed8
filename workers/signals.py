"""Worker process hooks: after the fork, the child's garbage-collector settings and its own Redis client (nothing
network-bound crosses a fork); as a child exits, its files in the metrics directory; once the worker is ready, the
connection-loss reminder silenced again and, with ``$UNO_ARENA_QUEUE_METRICS=1``, a thread publishing the queue
depth.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready

from arena.gc_tuning import configure_gc
from arena.store import StoreFailure

from .celery_app import get_store, quiet_cancel_on_connection_loss_warning

log = logging.getLogger(__name__)

QUEUE_POLL_INTERVAL = 15.0
QUEUE_METRICS_ENV = "UNO_ARENA_QUEUE_METRICS"

_queue_thread: threading.Thread | None = None


@worker_process_init.connect
def _child_started(**_: Any) -> None:
    from .celery_app import app

    # Everything alive at the fork goes to the permanent generation, which the collector stops walking while
    # matches churn (measured: matches about 10% faster in a child); also for a plain `celery worker`.
    try:
        configure_gc()
    except ValueError:
        log.exception("bad garbage-collector settings; CPython's own are kept")
    try:
        get_store(app)
    except Exception:  # the store is created lazily on first use anyway
        log.exception("could not create the Redis client of this worker process")


@worker_process_shutdown.connect
def _child_exiting(pid: int | None = None, **_: Any) -> None:
    from arena.metrics import mark_process_dead

    try:
        mark_process_dead(pid or os.getpid())
    except Exception:
        log.exception("could not mark process %s dead in the metrics directory", pid)


def _poll_queues(app: Celery) -> None:
    """Publish the messages waiting in each queue the app consumes, every :data:`QUEUE_POLL_INTERVAL`."""
    from arena.metrics import get_metrics

    metrics = get_metrics()
    names = [q.name for q in app.amqp.queues.consume_from.values()] or [app.conf.task_default_queue]
    while True:
        try:
            store = get_store(app)
            for name in names:
                metrics.set_queue(name, store.queue_depth(name))
        except StoreFailure as exc:
            log.warning("queue depth not measured: %s", exc)
        except Exception:
            log.exception("queue depth not measured")
        time.sleep(QUEUE_POLL_INTERVAL)


@worker_ready.connect
def _worker_ready(sender: Any = None, **_: Any) -> None:
    global _queue_thread
    quiet_cancel_on_connection_loss_warning()
    app = getattr(sender, "app", None)
    if app is None or os.environ.get(QUEUE_METRICS_ENV, "0") != "1":
        return
    if _queue_thread is None or not _queue_thread.is_alive():
        _queue_thread = threading.Thread(target=_poll_queues, args=(app,), name="queue-depth", daemon=True)
        _queue_thread.start()
