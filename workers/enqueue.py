"""Sending follow-up work as Celery messages by task name: :class:`CeleryEnqueuer`, the Celery side of
:class:`arena.service.lifecycle.Enqueuer` (no task module is imported, so the organizer and the scheduler
can send tasks without loading them)."""

from __future__ import annotations

from typing import Any

from celery import Celery

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
