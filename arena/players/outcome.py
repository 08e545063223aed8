"""What a seat is told when its match starts (:class:`SeatStart`) and ends (:class:`MatchSummary`), why a match
ended (:class:`EndReason`), and the vocabularies of one remote decision: how the gateway's request ended
(:class:`DecideStatus`), what became of the decision in the record and the metrics (:class:`DecisionOutcome`) and
how a match start was seated (:class:`Admission`). Plain data shared by the gateway, the relay, the runner, the
protocol's message builders, the tournament maths, the stores and the metrics."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine import Rules


class EndReason(StrEnum):
    """Why a match ended: the one list of end reasons (stored as its value, mapped to the protocol's
    ``EndReason`` in :mod:`arena.protocol.convert`)."""

    TARGET = "target"
    """A seat reached the target score (E4)."""
    FORFEIT = "forfeit"
    """At least one seat forfeited (too many strikes); the rest was played with fallbacks."""
    ABORTED = "aborted"
    """The arena gave up on the match (a fault of ours, not a bot's): not scored."""
    CANCELLED = "cancelled"
    """The tournament was cancelled before the match was played: not scored."""

    @property
    def scored(self) -> bool:
        """Whether the match counts in standings and ratings."""
        return self not in (EndReason.ABORTED, EndReason.CANCELLED)

    @classmethod
    def parse(cls, value: object) -> EndReason:
        """The reason named by a stored value (``ValueError`` naming the value otherwise)."""
        try:
            return cls(str(value))
        except ValueError:
            raise ValueError(f"unknown end reason {value!r}; expected one of {[r.value for r in cls]}") from None


class DecideStatus(StrEnum):
    """How one decision request ended on the gateway holding the bot (``DecideOutcome.status``, the relay's
    ``DecideReply``, :func:`arena.runner.seats.settle`)."""

    ANSWERED = "answered"
    """The bot answered in time with an index in range."""
    TIMEOUT = "timeout"
    """No valid answer before the deadline."""
    GONE = "gone"
    """The bot had no session when asked, or its stream broke while asked."""
    EVICTED = "evicted"
    """The casual match gave the bot's slot to a rated match (no strike: the match is aborted)."""


class DecisionOutcome(StrEnum):
    """What became of one decision asked of a seat: ``DecisionLog.outcome`` and the ``outcome`` label of
    ``uno_arena_decisions_total`` (:data:`arena.metrics.DECISION_OUTCOMES`)."""

    ANSWERED = "answered"
    """The seat answered in time with a legal index."""
    TIMEOUT = "timeout"
    """No valid answer before the deadline (a strike)."""
    REFUSED = "refused"
    """Metrics only: a timeout after refused answers (the record says ``timeout``)."""
    ERROR = "error"
    """An in-process bot raised or answered out of range (a strike)."""
    FALLBACK = "fallback"
    """The seat was gone (no connection): the fallback was played (a strike)."""
    FORFEITED = "forfeited"
    """The seat had forfeited: the fallback was played without asking."""
    UNREACHABLE = "unreachable"
    """The arena could not reach the seat at first (an infrastructure fault: gateway gone, Redis unreachable, relay
    lost); the runner waited for the bot to be back and asked again, and it answered in time: the action is the
    bot's, no strike. (A seat still unreachable after ``infra_grace_s`` aborts the match instead.)"""


class Admission(StrEnum):
    """The gateway's answer to a match start that asks to seat a remote bot (a bot never sits in more matches at
    once than its Hello offered)."""

    QUEUED = "queued"
    """The bot has no free slot now: the start waits (a second answer follows)."""
    ADMITTED = "admitted"
    """The bot is seated."""
    REFUSED = "refused"
    """No slot came in time (or a casual start found none free): the match is aborted, no strike."""
    DRAINING = "draining"
    """The gateway drains and the bot did not move in time: not seated there; the first decision looks for the
    bot again (the arena's doing, no strike)."""


@dataclass(frozen=True)
class SeatStart:
    """Told to every seat when its match starts."""

    match_id: str
    seat: int
    seats: tuple[str, ...]
    rules: Rules
    decision_deadline_s: float
    tournament_id: str = ""
    attempt: int = 1
    """Which attempt of the match this is (from 1): a match played again after an aborted attempt is a new one, and
    the bot starts it afresh (``MatchStarted.attempt``)."""


@dataclass(frozen=True)
class MatchSummary:
    """Told to every seat when its match ends."""

    match_id: str
    scores: tuple[int, ...]
    winner: int | None
    rounds: int
    end_reason: EndReason
    forfeits: tuple[int, ...]
    timeouts: tuple[int, ...]
    refusals: tuple[int, ...]
    detail: str = ""
    attempt: int = 1
    """The attempt of the match that ended (``MatchEnded.attempt``)."""
