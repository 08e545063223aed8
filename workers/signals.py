"""Worker process hooks: clients after fork, dead children in the metrics directory, queue depth.

* ``worker_process_init`` (in each prefork child, after the fork): freeze the inherited objects
  out of the garbage collector's way and set its thresholds (:func:`arena.gc_tuning.configure_gc`), and
  create the child's own Redis client (:func:`workers.celery_app.get_store`); nothing network-bound is
  inherited from the parent (gRPC channels and Redis sockets must not cross a fork).
* ``worker_process_shutdown`` (in the child, as it exits): drop its live-gauge files from the
  prometheus multiprocess directory (:func:`arena.metrics.mark_process_dead`).
* ``worker_ready`` (in the main process, once the pool runs): silence Celery's connection-loss reminder again
  (:func:`workers.celery_app.quiet_cancel_on_connection_loss_warning`), and start a daemon thread that
  publishes the broker queue depth (``uno_arena_queue_depth``) every
  :data:`QUEUE_POLL_INTERVAL` seconds, when ``$UNO_ARENA_QUEUE_METRICS`` is ``1`` (``uno-arena
  worker`` sets it).
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready

from arena.gc_tuning import configure_gc
from arena.store import StoreFailure

from .celery_app import quiet_cancel_on_connection_loss_warning

log = logging.getLogger(__name__)

QUEUE_POLL_INTERVAL = 15.0
QUEUE_METRICS_ENV = "UNO_ARENA_QUEUE_METRICS"

_queue_thread: threading.Thread | None = None


@worker_process_init.connect
def _child_started(**_: Any) -> None:
    from .celery_app import app, get_store

    # Everything alive at the fork (Celery, kombu, the modules) goes to the permanent
    # generation: the garbage collector stops walking it again and again while matches churn
    # through short-lived objects (measured: matches about 10% faster in a child), and fewer
    # copy-on-write pages are touched. The thresholds also hold for a child of a plain `celery worker`.
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


def queue_depths(app: Celery) -> dict[str, int]:
    """Messages waiting in each queue the app consumes (Redis list length; priorities summed)."""
    from .celery_app import get_store

    store = get_store(app)
    names = [q.name for q in app.amqp.queues.consume_from.values()] or [app.conf.task_default_queue]
    return {name: store.queue_depth(name) for name in names}


def _poll_queues(app: Celery, stop: threading.Event) -> None:
    from arena.metrics import get_metrics

    metrics = get_metrics()
    while True:
        try:
            for name, depth in queue_depths(app).items():
                metrics.set_queue(name, depth)
        except StoreFailure as exc:
            log.warning("queue depth not measured: %s", exc)
        except Exception:
            log.exception("queue depth not measured")
        if stop.wait(QUEUE_POLL_INTERVAL):
            return


_stop_polling = threading.Event()


@worker_ready.connect
def _worker_ready(sender: Any = None, **_: Any) -> None:
    global _queue_thread
    quiet_cancel_on_connection_loss_warning()
    app = getattr(sender, "app", None)
    if app is None or os.environ.get(QUEUE_METRICS_ENV, "0") != "1":
        return
    if _queue_thread is None or not _queue_thread.is_alive():
        _queue_thread = threading.Thread(
            target=_poll_queues, args=(app, _stop_polling), name="queue-depth", daemon=True
        )
        _queue_thread.start()
