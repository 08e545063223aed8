"""Sending work as Celery messages by task name: :class:`CeleryEnqueuer`, the Celery side of
:class:`arena.service.enqueuer.Enqueuer` (no task module imported, so the organizer and the scheduler send tasks
without loading them)."""

from __future__ import annotations

from celery import Celery

from .celery_app import get_store

START_TASK = "workers.tasks.start_tournament"
BATCH_TASK = "workers.tasks.run_batch"
CHECK_TASK = "workers.tasks.check_tournament"
GAUNTLET_TASK = "workers.tasks.run_gauntlet"


def batch_task_id(tournament_id: str, batch_id: str) -> str:
    """The Celery task id of a batch's message: the completeness check finds it in the queue by it."""
    return f"batch:{tournament_id}:{batch_id}"


class CeleryEnqueuer:
    """Sends follow-up work as Celery messages by task name. No send subscribes to a result (``ignore_result``): with
    Redis away, it fails at once instead of retrying the result channel for 20 s and ending in a traceback."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def start(self, tournament_id: str) -> None:
        self.app.send_task(START_TASK, args=[tournament_id], ignore_result=True)

    def gauntlet(self, gauntlet_id: str) -> None:
        self.app.send_task(GAUNTLET_TASK, args=[gauntlet_id], ignore_result=True)

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        self.app.send_task(BATCH_TASK, args=[tournament_id, batch_id, match_ids],
                           task_id=batch_task_id(tournament_id, batch_id), ignore_result=True)

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        """The ids of the tournament's batches whose messages wait in the broker's queue (their task ids, see
        :func:`batch_task_id`); None when the queue cannot be read (not a Redis broker, Redis unreachable)."""
        queue = str(self.app.conf.task_default_queue or "celery")
        try:
            return get_store(self.app).queued_task_ids(queue, batch_task_id(tournament_id, ""))
        except Exception:  # any failure means "cannot tell": the check falls back to its other rules
            return None

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        self.app.send_task(CHECK_TASK, args=[tournament_id], kwargs={"token": token}, countdown=countdown,
                           ignore_result=True)
