"""The life cycles of what the arena runs, one StrEnum each: tournaments, their batches, competitions, gauntlets.
Stored as their words; the organizer API's enums map onto them by name in one place (:mod:`arena.protocol.convert`).
"""

from __future__ import annotations

from enum import StrEnum


class TournamentStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def ended(self) -> bool:
        """No further match starts (finished, failed or cancelled): its seed is revealed."""
        return self in ENDED_TOURNAMENT


ENDED_TOURNAMENT = frozenset({TournamentStatus.FINISHED, TournamentStatus.FAILED, TournamentStatus.CANCELLED})
ACTIVE_TOURNAMENT = frozenset({TournamentStatus.PENDING, TournamentStatus.RUNNING})


class BatchStatus(StrEnum):
    """A batch of a tournament's matches: queued for a worker, running in one, adopted (played by a worker child
    that had room besides its own batch; the batch's message is dropped while the adopter's heartbeat is fresh),
    done, or stopped (cancelled)."""

    QUEUED = "queued"
    RUNNING = "running"
    ADOPTED = "adopted"
    DONE = "done"
    STOPPED = "stopped"

    @property
    def played(self) -> bool:
        """Held by a worker child that keeps its heartbeat (running or adopted)."""
        return self in (BatchStatus.RUNNING, BatchStatus.ADOPTED)


class CompetitionStatus(StrEnum):
    """A competition's ladder: starting blocks, paused until resumed, or closed for good."""

    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


class GauntletStatus(StrEnum):
    """A gauntlet: accepted (H1: the candidate is better), rejected (H0), inconclusive (the cap came first), failed
    (a bot missing, matches aborted)."""

    RUNNING = "running"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    INCONCLUSIVE = "inconclusive"
    FAILED = "failed"
