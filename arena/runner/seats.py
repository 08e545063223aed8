"""The seat interface of the match runner: what a seat is asked and how it fails. A seat is a local bot in this
process (:class:`LocalSeat`) or a bot reached through the relay (:class:`arena.relay.RelaySeat`); the runner sees
only this interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.engine import Action, Observation
from arena.players import Bot, DecideStatus, MatchSummary, SeatStart
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS, DEFAULT_LAG_COMPENSATION_CAP_MS

DEFAULT_DECISION_DEADLINE_S = DEFAULT_DECISION_DEADLINE_MS / 1000.0
"""A decision's time limit when none is given, in seconds (the runner's unit)."""
DEFAULT_MAX_STRIKES = 3
DEFAULT_INFRA_GRACE_S = 30.0
"""Default of ``MatchConfig.infra_grace_s``, in seconds."""
DEFAULT_LAG_COMPENSATION_CAP_S = DEFAULT_LAG_COMPENSATION_CAP_MS / 1000.0
"""Default of ``MatchConfig.lag_compensation_cap_s``, in seconds."""
EVICTED_TEXT = ("the bot was called to a tournament match (games against people give way to tournament, ladder and "
                "gauntlet matches)")
"""Why a casual match ended when its bot left it for a rated match (:class:`SeatEvicted`)."""
DEFAULT_ADMIT_TIMEOUT_S = 600.0
"""Seconds a remote seat waits at the start of a match for a free match slot of its bot before the match aborts."""


class SeatTimeout(Exception):
    """The seat gave no valid answer before its deadline."""


class SeatGone(Exception):
    """The seat has no live connection (disconnected, never connected, or its gateway is gone)."""


class SeatUnreachable(Exception):
    """The arena could not reach the seat (its gateway gone, Redis unreachable): the arena's fault, no strike; the
    runner asks again within ``MatchConfig.infra_grace_s``, else aborts the match."""


class SeatNotAdmitted(Exception):
    """No match slot of the bot came free in time: the match is aborted, no strike."""


class SeatEvicted(Exception):
    """The bot left this casual match for a rated match that needed its slot: the match is aborted, no strike."""


@dataclass(slots=True)
class SeatRequest:
    """One decision asked of a seat. The seat fills the request-scoped counters (refusals, wire time)."""

    match_id: str
    seat: int
    decision_number: int
    observation: Observation
    legal: Sequence[Action]
    decision_deadline_s: float
    refusals: int = 0
    refusal_reasons: list[str] = field(default_factory=list)
    wire_s: float | None = None
    """Time the request spent outside the arena (written to the stream -> answer read), if measured."""
    lag_compensation_cap_s: float = 0.0
    lag_s: float = 0.0
    """The lag compensation the seat added (the bot's measured round trip, at most the cap)."""
    arena_s: float | None = None
    """Time the seat's own code ran for this request (encoding, reading the answer), if measured."""


class Seat(ABC):
    """One chair of one match. ``synchronous`` seats (in-process bots) are asked through :meth:`choose_now`
    without a coroutine, a request or a clock; ``wants_events`` seats are told about round ends."""

    name: str = "seat"
    version: str = ""
    synchronous: bool = False
    wants_events: bool = False

    async def start(self, info: SeatStart) -> None:  # noqa: B027 - optional hook
        """The match started; a remote seat waits here for a free match slot (:class:`SeatNotAdmitted`)."""

    @abstractmethod
    async def decide(self, request: SeatRequest) -> int:
        """The index of the chosen action in ``request.legal``; raise SeatTimeout, SeatGone or (the arena's fault)
        SeatUnreachable."""

    def choose_now(self, observation: Observation, legal: Sequence[Action]) -> int:
        """Synchronous seats only: the index of the chosen action."""
        raise NotImplementedError

    async def events(self, match_id: str, observation: Observation) -> None:  # noqa: B027 - optional hook
        """A round ended; ``observation`` carries its events."""

    async def end(self, match_id: str, summary: MatchSummary) -> None:  # noqa: B027 - optional hook
        """The match ended."""

    def late_refusals(self) -> int:
        """Answers refused after their request was settled (late, duplicate), charged to this seat."""
        return 0

    async def close_answers(self, match_id: str) -> int:
        """The match is over: take no more late answers and return :meth:`late_refusals` as final."""
        return self.late_refusals()


class LocalSeat(Seat):
    """An in-process bot: no deadline, no protobuf, no await (one that raises or answers out of range gets the
    fallback and a strike)."""

    synchronous = True

    def __init__(self, bot: Bot, name: str | None = None, version: str = "builtin") -> None:
        self.bot = bot
        self.name = name or bot.name
        self.version = version

    def choose_now(self, observation: Observation, legal: Sequence[Action]) -> int:
        return self.bot.choose(observation, legal)

    async def decide(self, request: SeatRequest) -> int:
        return self.bot.choose(request.observation, request.legal)


def settle(request: SeatRequest, status: DecideStatus, index: int | None, refusals: int, reasons: Sequence[str],
           wire_s: float | None) -> int:
    """Copy a transport's outcome into the request; the index, or :class:`SeatTimeout` / :class:`SeatGone` /
    :class:`SeatEvicted`."""
    request.refusals = refusals
    request.refusal_reasons = list(reasons)
    request.wire_s = wire_s
    if status == DecideStatus.ANSWERED and index is not None:
        return index
    if status == DecideStatus.GONE:
        raise SeatGone(f"match {request.match_id}, decision {request.decision_number}: the bot is not connected")
    if status == DecideStatus.EVICTED:
        raise SeatEvicted(EVICTED_TEXT)
    raise SeatTimeout(f"match {request.match_id}, decision {request.decision_number}: no valid answer in "
                      f"{request.decision_deadline_s:g} s")
