"""The seat interface of the match runner: what a seat is told, what it is asked, how it fails.

A seat (:class:`Seat`) is whoever plays one chair of one match: a local bot in this process
(:class:`LocalSeat`, an :class:`arena.players.Bot`, no deadline cost, no protobuf) or a bot reached through Redis and
whichever gateway holds its stream (:class:`arena.relay.RelaySeat`: the workers', `match`'s and `bot check`'s). The
runner sees only this interface; each transport lives beside the end it serves. What a seat is told at the start
and the end of its match (:class:`SeatStart`, :class:`MatchSummary`) and the fallback rule live below, in
:mod:`arena.players`.
"""

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
"""How long the runner waits for a seat the arena could not reach (:class:`SeatUnreachable`) to be back before it
aborts the match (an infrastructure fault: not scored, played again later)."""
DEFAULT_LAG_COMPENSATION_CAP_S = DEFAULT_LAG_COMPENSATION_CAP_MS / 1000.0
"""The most lag compensation a decision gets: a remote bot's measured round trip, up to this, is added to its
deadline (``MatchConfig.lag_compensation_cap_s``), so a bot far from the arena is not penalised for the network."""
EVICTED_TEXT = ("the bot was called to a tournament match (games against people give way to tournament, ladder and "
                "gauntlet matches)")
"""Why a casual match ended when its bot left it for a rated match (:class:`SeatEvicted`)."""
DEFAULT_ADMIT_TIMEOUT_S = 600.0
"""How long a remote seat waits at the start of a match for its bot to have a free match slot (a bot never sits
in more matches at once than its Hello offered); past it the match is aborted (not scored, played again later)."""


class SeatTimeout(Exception):
    """The seat gave no valid answer before its deadline."""


class SeatGone(Exception):
    """The seat has no live connection (disconnected, never connected, or its gateway is gone)."""


class SeatUnreachable(Exception):
    """The arena could not reach the seat: its gateway gone or not answering, Redis unreachable, the relay lost. An
    infrastructure fault, not the bot's (versus :class:`SeatGone`: the bot itself has no session): no strike, no
    timeout; the runner asks again until the bot is back within :attr:`MatchConfig.infra_grace_s
    <arena.runner.record.MatchConfig.infra_grace_s>`, else it aborts the match (not scored, played again)."""


class SeatNotAdmitted(Exception):
    """The arena could not seat the bot in time: it already plays as many matches as its Hello offered, and none
    ended within the wait. An infrastructure fault, not the bot's: the match is aborted, nobody gets a strike."""


class SeatEvicted(Exception):
    """The bot left this casual match (a game against a person) for a tournament, ladder or gauntlet match that
    needed its slot (:mod:`arena.server.gateway.admission`): the match is aborted, nobody gets a strike."""


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
    """The most lag compensation the seat may add to ``decision_deadline_s``
    (``MatchConfig.lag_compensation_cap_s``)."""
    lag_s: float = 0.0
    """The lag compensation the seat added, if any (the bot's measured round trip, at most
    ``lag_compensation_cap_s``)."""
    arena_s: float | None = None
    """Time the seat's own code ran for this request (encoding, bookkeeping, reading the answer), if measured."""


class Seat(ABC):
    """One chair of one match. Subclasses: LocalSeat, arena.relay.RelaySeat.

    ``synchronous`` seats (in-process bots) are asked through :meth:`choose_now` without a coroutine,
    a request object or a clock; ``wants_events`` seats are told about round ends (:meth:`events`).
    """

    name: str = "seat"
    version: str = ""
    synchronous: bool = False
    wants_events: bool = False

    async def start(self, info: SeatStart) -> None:  # noqa: B027 - optional hook
        """The match started. A remote seat waits here until its bot has a free match slot and raises
        :class:`SeatNotAdmitted` when none came in time (the runner then aborts the match)."""

    @abstractmethod
    async def decide(self, request: SeatRequest) -> int:
        """The index of the chosen action in ``request.legal``; raise SeatTimeout, SeatGone or (the arena's fault)
        SeatUnreachable."""

    def choose_now(self, observation: Observation, legal: Sequence[Action]) -> int:
        """Synchronous seats only: the index of the chosen action."""
        raise NotImplementedError

    async def events(self, match_id: str, observation: Observation) -> None:  # noqa: B027 - optional hook
        """Things happened outside a decision (a round ended); ``observation`` carries them."""

    async def end(self, match_id: str, summary: MatchSummary) -> None:  # noqa: B027 - optional hook
        """The match ended."""

    def late_refusals(self) -> int:
        """Answers refused after their request was settled (late, duplicate), charged to this seat."""
        return 0

    async def close_answers(self, match_id: str) -> int:
        """The match is over: take no more late answers for it and return :meth:`late_refusals` as final (the
        runner calls it before it builds the record and the MatchEnded summary, so both hold the same count)."""
        return self.late_refusals()


class LocalSeat(Seat):
    """An in-process bot: no deadline, no protobuf, no await; a bot that raises or answers out of range
    is refused (the fallback is played and the seat gets a strike, recorded as an error)."""

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
    :class:`SeatEvicted`. Shared by every remote transport."""
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
