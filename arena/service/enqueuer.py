"""How the arena sends work to the workers: :class:`Enqueuer`, one small interface so that neither the organizer API
nor the tournament service imports Celery or the workers. Whoever puts a process together passes one in
(:class:`workers.enqueue.CeleryEnqueuer` in production; :class:`NoWorkers` for an API that sends no work)."""

from __future__ import annotations

from typing import Protocol


class Enqueuer(Protocol):
    """Sends work to the workers; every message it sends is idempotent on the workers' side."""

    def start(self, tournament_id: str) -> None:
        """Start a created tournament (:func:`arena.service.lifecycle.start_tournament`)."""

    def gauntlet(self, gauntlet_id: str) -> None:
        """Play a stored gauntlet on from its stored blocks (:func:`arena.service.gauntlet_runs.resume_gauntlet`)."""

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        """Play these matches of the tournament's schedule (:func:`arena.service.batch_runner.run_batch`)."""

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        """Run the tournament's completeness check in ``countdown`` seconds
        (:func:`arena.service.recovery.check_tournament`)."""

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        """The ids of the tournament's batches whose messages wait in the queue; None when it cannot tell (then
        the completeness check cannot know that a queued batch whose message left the queue was lost)."""


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
