"""Celery tasks of uno-arena (shared tasks: they run on every app built by ``make_celery``).

The logic lives in :mod:`arena.service`; these wrappers bind it to the app's store, configuration (``arena_*``
keys, :class:`arena.service.lifecycle.Settings`) and metrics. Every task is idempotent, as late acknowledgement
and redelivery demand.
"""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from arena.metrics import get_metrics
from arena.service import competitions, lifecycle
from arena.service.gauntlet_runs import resume_gauntlet
from arena.service.lifecycle import Settings
from arena.service.match_player import MatchPlayer
from arena.service.schedules import fire_due
from bots import make_bot

from . import signals  # noqa: F401  - connects the worker process hooks
from .celery_app import get_store
from .enqueue import BATCH_TASK, CHECK_TASK, GAUNTLET_TASK, START_TASK, CeleryEnqueuer


@shared_task(name="workers.tasks.canary", bind=True, ignore_result=False)
def canary(self: Task) -> float:
    """Write the current time and this worker's name into Redis: if it grows old while workers look alive, they
    have stopped consuming (alert on it)."""
    ts = time.time()
    worker = str(getattr(self.request, "hostname", None) or socket.gethostname())
    get_store(self.app).canary.beat(ts, worker)
    get_metrics().mark_canary_success(ts)
    return ts


@shared_task(name=START_TASK, bind=True, ignore_result=True)
def start_tournament(self: Task, tournament_id: str) -> str:
    return lifecycle.start_tournament(get_store(self.app), tournament_id, CeleryEnqueuer(self.app),
                                      Settings.from_conf(self.app.conf), get_metrics())


@shared_task(name=BATCH_TASK, bind=True, ignore_result=True)
def run_batch(self: Task, tournament_id: str, batch_id: str, match_ids: list[str]) -> dict[str, Any]:
    """Play the batch's matches that have no result yet; each result is written once."""
    store = get_store(self.app)
    settings = Settings.from_conf(self.app.conf)
    metrics = get_metrics()
    player = MatchPlayer(store, metrics, make_bot=make_bot, infra_grace_s=settings.infra_grace_s)
    try:
        outcome = lifecycle.run_batch(
            store,
            tournament_id,
            batch_id,
            match_ids,
            player,
            settings,
            metrics=metrics,
            enqueue=CeleryEnqueuer(self.app),
            stop_on=(SoftTimeLimitExceeded,),
            cancel=player.cancel,
        )
    finally:
        player.close()
    return vars(outcome)


@shared_task(name=CHECK_TASK, bind=True, ignore_result=True)
def check_tournament(self: Task, tournament_id: str, token: str | None = None) -> dict[str, Any]:
    """The completeness check of one tournament (see :func:`arena.service.lifecycle.check_tournament`)."""
    settings = Settings.from_conf(self.app.conf)
    return vars(lifecycle.check_tournament(get_store(self.app), tournament_id, CeleryEnqueuer(self.app), settings,
                                           token=token, metrics=get_metrics()))


@shared_task(name="workers.tasks.sweep_tournaments", bind=True, ignore_result=True)
def sweep_tournaments(self: Task) -> int:
    settings = Settings.from_conf(self.app.conf)
    return len(lifecycle.sweep(get_store(self.app), CeleryEnqueuer(self.app), settings, metrics=get_metrics()))


@shared_task(name="workers.tasks.ladder_tick", bind=True, ignore_result=True)
def ladder_tick(self: Task) -> int:
    return sum(len(r.started) for r in competitions.ladder_tick(get_store(self.app), CeleryEnqueuer(self.app)))


@shared_task(name="workers.tasks.fire_schedules", bind=True, ignore_result=True)
def fire_schedules(self: Task) -> int:
    """Fire the cron schedules that are due (each due time once, however many callers)."""
    return len(fire_due(get_store(self.app), CeleryEnqueuer(self.app), datetime.now(UTC),
                        missed=self.app.conf.get("arena_missed_firings")))


@shared_task(name=GAUNTLET_TASK, bind=True, ignore_result=True, acks_late=True)
def run_gauntlet(self: Task, gauntlet_id: str) -> str:
    """Play a gauntlet on from the blocks already stored, to its end (a block is stored once); stopped by its soft
    time limit, it sends itself again to go on."""
    outcome = resume_gauntlet(get_store(self.app), gauntlet_id, make_bot=make_bot,
                              stop_on=(SoftTimeLimitExceeded,))
    if outcome is None:
        CeleryEnqueuer(self.app).gauntlet(gauntlet_id)
        return "resent"
    return outcome.status
