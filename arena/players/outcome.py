"""What a seat is told when its match starts (:class:`SeatStart`) and ends (:class:`MatchSummary`), and why a
match ended (:class:`EndReason`): plain data shared by the runner, the protocol's message builders, the tournament
maths and the stores."""

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
