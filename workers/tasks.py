"""Celery tasks of uno-arena (shared tasks: they run on every app built by ``make_celery``).

Only the canary lives here so far; the tournament and batch tasks join it.
"""

from __future__ import annotations

import socket
import time

from celery import Task, shared_task

from .celery_app import get_store


@shared_task(name="workers.tasks.canary", bind=True, ignore_result=False)
def canary(self: Task) -> float:
    """Write the current time and this worker's name into Redis (``uno:canary``); return the time.

    Sent every minute by ``celery beat``; if its timestamp grows old while workers look alive,
    they have stopped consuming (alert on it).
    """
    ts = time.time()
    worker = str(getattr(self.request, "hostname", None) or socket.gethostname())
    get_store(self.app).canary.beat(ts, worker)
    return ts
