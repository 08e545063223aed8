"""What a seat is told when its match starts (:class:`SeatStart`) and ends (:class:`MatchSummary`), why a match
ended (:class:`EndReason`), and the vocabularies of one remote decision (:class:`DecideStatus`,
:class:`DecisionOutcome`, :class:`Admission`): plain data shared from the gateway to the metrics."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine import Rules


class EndReason(StrEnum):
    """Why a match ended: the one list of end reasons (stored as its value)."""

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
    """How one decision request ended on the gateway holding the bot."""

    ANSWERED = "answered"
    """The bot answered in time with an index in range."""
    TIMEOUT = "timeout"
    GONE = "gone"
    """The bot had no session when asked, or its stream broke while asked."""
    EVICTED = "evicted"
    """The casual match gave the bot's slot to a rated match (no strike: the match is aborted)."""


class DecisionOutcome(StrEnum):
    """What became of one decision asked of a seat: ``DecisionLog.outcome`` and the ``outcome`` label of
    ``uno_arena_decisions_total``."""

    ANSWERED = "answered"
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
    """The arena could not reach the seat at first (its fault); asked again, the bot answered in time: no strike."""


class Admission(StrEnum):
    """The gateway's answer to a match start that asks to seat a remote bot."""

    QUEUED = "queued"
    """The bot has no free slot now: the start waits (a second answer follows)."""
    ADMITTED = "admitted"
    REFUSED = "refused"
    """No slot came in time (or a casual start found none free): the match is aborted, no strike."""
    DRAINING = "draining"
    """The gateway drains and the bot did not move in time: the first decision looks for it again (no strike)."""


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
    """Which attempt of the match this is (from 1): the bot starts each afresh (``MatchStarted.attempt``)."""


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
