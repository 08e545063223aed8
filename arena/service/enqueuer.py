"""How the arena sends work to the workers: :class:`Enqueuer`, so that neither the organizer API nor the tournament
service imports Celery (:class:`workers.enqueue.CeleryEnqueuer` in production; :class:`NoWorkers` for an API that
sends no work)."""

from __future__ import annotations

from typing import Protocol


class Enqueuer(Protocol):
    """Sends work to the workers; every message it sends is idempotent on the workers' side."""

    def start(self, tournament_id: str) -> None:
        """:func:`arena.service.lifecycle.start_tournament`."""

    def gauntlet(self, gauntlet_id: str) -> None:
        """:func:`arena.service.gauntlet_runs.resume_gauntlet`."""

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        """:func:`arena.service.batch_runner.run_batch`."""

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        """:func:`arena.service.recovery.check_tournament` in ``countdown`` seconds."""

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        """The ids of the tournament's batches whose messages wait in the queue; None when it cannot tell."""


class NoWorkers:
    """The enqueuer of an API that sends no work: every send refuses, naming what is missing."""

    def start(self, tournament_id: str) -> None:
        raise WorkersUnavailable(f"tournament {tournament_id}: this arena sends no work to workers")

    def gauntlet(self, gauntlet_id: str) -> None:
        raise WorkersUnavailable(f"gauntlet {gauntlet_id}: this arena sends no work to workers")

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        raise WorkersUnavailable(f"tournament {tournament_id}: this arena sends no work to workers")

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        raise WorkersUnavailable(f"tournament {tournament_id}: this arena sends no work to workers")

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        return None


class WorkersUnavailable(RuntimeError):
    """The work could not be sent to the workers."""
