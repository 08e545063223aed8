"""Celery tasks of uno-arena (shared tasks: they run on every app built by ``make_celery``).

=====================================  =========================================================
task                                   what it does
=====================================  =========================================================
``workers.tasks.canary``               writes a timestamp (``uno:canary``) and the canary metric
``workers.tasks.start_tournament``     expands a tournament into batches and sends them
``workers.tasks.run_batch``            plays the batch's matches that have no result yet
``workers.tasks.check_tournament``     completeness check (self-rescheduling while its token
                                       is current): finish, or re-send lost matches
``workers.tasks.sweep_tournaments``    checks every active tournament (beat entry; the
                                       ``uno-arena scheduler`` loop does the same in process)
``workers.tasks.fire_schedules``       fires due cron schedules, each due time once
=====================================  =========================================================

The logic lives in :mod:`workers.tournaments` and :mod:`workers.scheduler`; these wrappers bind
it to the app's store, configuration (``arena_*`` keys, see :class:`workers.tournaments.Settings`)
and metrics. Every task is idempotent, as late acknowledgement and redelivery demand.
"""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime
from typing import Any

from celery import Celery, Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from . import signals  # noqa: F401  - connects the worker process hooks
from .celery_app import get_store
from .tournaments import Settings

START_TASK = "workers.tasks.start_tournament"
BATCH_TASK = "workers.tasks.run_batch"
CHECK_TASK = "workers.tasks.check_tournament"


class CeleryEnqueuer:
    """Sends follow-up work as Celery messages by task name (no task import needed)."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def start(self, tournament_id: str) -> None:
        self.app.send_task(START_TASK, args=[tournament_id])

    def batch(self, tournament_id: str, batch_id: str, matches: list[list[Any]]) -> None:
        self.app.send_task(BATCH_TASK, args=[tournament_id, batch_id, matches])

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        self.app.send_task(CHECK_TASK, args=[tournament_id], kwargs={"token": token}, countdown=countdown)


def _metrics() -> Any:
    from arena.metrics import get_metrics

    return get_metrics()


@shared_task(name="workers.tasks.canary", bind=True, ignore_result=False)
def canary(self: Task) -> float:
    """Write the current time and this worker's name into Redis (``uno:canary``); return the time.

    Sent every minute by ``celery beat`` or ``uno-arena scheduler``; if its timestamp grows old
    while workers look alive, they have stopped consuming (alert on it).
    """
    ts = time.time()
    worker = str(getattr(self.request, "hostname", None) or socket.gethostname())
    get_store(self.app).canary.beat(ts, worker)
    _metrics().mark_canary_success(ts)
    return ts


@shared_task(name=START_TASK, bind=True, ignore_result=True)
def start_tournament(self: Task, tournament_id: str) -> str:
    """Expand a tournament into batches and send them (idempotent)."""
    from .tournaments import start_tournament as start

    settings = Settings.from_conf(self.app.conf)
    return start(get_store(self.app), tournament_id, CeleryEnqueuer(self.app), settings, _metrics())


@shared_task(name=BATCH_TASK, bind=True, ignore_result=True)
def run_batch(self: Task, tournament_id: str, batch_id: str, matches: list[list[Any]]) -> dict[str, Any]:
    """Play the batch's matches that have no result yet; each result is written once."""
    from .play import MatchPlayer
    from .tournaments import run_batch as run

    store = get_store(self.app)
    settings = Settings.from_conf(self.app.conf)
    metrics = _metrics()
    player = MatchPlayer(store, metrics)
    try:
        outcome = run(
            store,
            tournament_id,
            batch_id,
            matches,
            player,
            settings,
            metrics=metrics,
            enqueue=CeleryEnqueuer(self.app),
            stop_on=(SoftTimeLimitExceeded,),
        )
    finally:
        player.close()
    return vars(outcome)


@shared_task(name=CHECK_TASK, bind=True, ignore_result=True)
def check_tournament(self: Task, tournament_id: str, token: str | None = None) -> dict[str, Any]:
    """The completeness check of one tournament (see :func:`workers.tournaments.check_tournament`)."""
    from .tournaments import check_tournament as check

    settings = Settings.from_conf(self.app.conf)
    outcome = check(
        get_store(self.app), tournament_id, CeleryEnqueuer(self.app), settings, token=token, metrics=_metrics()
    )
    return vars(outcome)


@shared_task(name="workers.tasks.sweep_tournaments", bind=True, ignore_result=True)
def sweep_tournaments(self: Task) -> int:
    """Check every active tournament once; returns how many were looked at."""
    from .tournaments import sweep

    settings = Settings.from_conf(self.app.conf)
    return len(sweep(get_store(self.app), CeleryEnqueuer(self.app), settings, metrics=_metrics()))


@shared_task(name="workers.tasks.fire_schedules", bind=True, ignore_result=True)
def fire_schedules(self: Task) -> int:
    """Fire the cron schedules that are due (each due time once, however many callers)."""
    from .scheduler import fire_due

    return len(fire_due(get_store(self.app), CeleryEnqueuer(self.app), datetime.now(UTC)))
