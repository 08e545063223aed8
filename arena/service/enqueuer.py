"""What the organizer API sends to the workers: :class:`ArenaEnqueuer`, a small interface so that the API never
imports Celery or the workers. Whoever builds the API passes one in (``uno-arena serve`` builds
:class:`workers.enqueue.CeleryEnqueuer` on the store's Redis)."""

from __future__ import annotations

from typing import Protocol


class ArenaEnqueuer(Protocol):
    """Sends the work the organizer starts; every message it sends is idempotent on the workers' side."""

    def start(self, tournament_id: str) -> None:
        """Start a created tournament (:func:`arena.service.lifecycle.start_tournament`)."""

    def gauntlet(self, gauntlet_id: str) -> None:
        """Play a stored gauntlet on from its stored blocks (:func:`arena.service.gauntlet.resume_gauntlet`)."""


class NoWorkers:
    """The enqueuer of an API that sends no work: every send refuses, naming what is missing."""

    def start(self, tournament_id: str) -> None:
        raise WorkersUnavailable(f"tournament {tournament_id}: this arena sends no work to workers")

    def gauntlet(self, gauntlet_id: str) -> None:
        raise WorkersUnavailable(f"gauntlet {gauntlet_id}: this arena sends no work to workers")


class WorkersUnavailable(RuntimeError):
    """The work could not be sent to the workers."""
