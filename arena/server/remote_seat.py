"""The gateway's seat: :class:`RemoteSeat`, a bot on a gateway running in this process's event loop.

``RemoteSeat`` turns the runner's request into a ``DecisionRequest`` (full observation, legal actions in the
engine's order) and hands it to :meth:`arena.server.gateway.Gateway.decide`, which sends it on the bot's
stream, refuses bad answers in-band and waits up to the deadline. A bot that is not connected at the moment
is waited for until the deadline (a reconnect picks the request up); without a session at the deadline the
seat raises :class:`~arena.runner.SeatGone`, otherwise :class:`~arena.runner.SeatTimeout`.

For seats on another machine, see :class:`arena.relay.RelaySeat` (same interface, through Redis).
"""

from __future__ import annotations

from time import perf_counter

from arena.engine import Observation
from arena.protocol.encoding import request_body
from arena.protocol.messages import match_ended, match_events, match_started
from arena.runner import DEFAULT_ADMIT_TIMEOUT_S, MatchSummary, Seat, SeatNotAdmitted, SeatRequest, SeatStart, settle
from arena.server.match_api import DecideOutcome, MatchApi


class RemoteSeat(Seat):
    """A bot connected to ``gateway`` (an :class:`arena.server.gateway.Gateway` on this event loop)."""

    wants_events = True

    def __init__(self, gateway: MatchApi, bot_name: str, *, admit_timeout_s: float = DEFAULT_ADMIT_TIMEOUT_S,
                 casual: bool = False) -> None:
        self.gateway = gateway
        self.name = bot_name
        self.version = gateway.bot_version(bot_name) or "unknown"
        self.admit_timeout_s = admit_timeout_s
        self.casual = casual
        """A game against a person: seated only if the bot has a slot free now, and gives it up to a rated match
        (:mod:`arena.server.gateway.admission`)."""
        self._match_id = ""
        self._seat = -1
        self._late = 0
        self._attempt = 0
        self._admitted = False

    async def start(self, info: SeatStart) -> None:
        self._match_id, self._seat, self._attempt = info.match_id, info.seat, info.attempt
        self.version = self.gateway.bot_version(self.name) or self.version
        if not await self.gateway.admit(self.name, info.match_id, info.seat, match_started(info), self.admit_timeout_s,
                                        self.casual):
            if self.casual:
                raise SeatNotAdmitted(f"bot {self.name!r} has no slot free for a game against people now")
            raise SeatNotAdmitted(f"bot {self.name!r} already plays as many matches as its Hello offered and none "
                                  f"ended within {self.admit_timeout_s:g} s")
        self._admitted = True

    async def decide(self, request: SeatRequest) -> int:
        t_start = perf_counter()
        body = request_body(request.match_id, request.decision_number, request.observation, request.legal,
                            self._attempt)
        built = perf_counter() - t_start
        outcome: DecideOutcome = await self.gateway.decide(self.name, request.match_id, request.seat,
                                                           request.decision_number, body, len(request.legal),
                                                           request.decision_deadline_s, attempt=self._attempt,
                                                           lag_compensation_cap_s=request.lag_compensation_cap_s)
        request.arena_s = built + outcome.arena_s
        self._late = outcome.late_refusals
        request.lag_s = outcome.lag_s
        if outcome.version:
            self.version = outcome.version
        return settle(request, outcome.status, outcome.index, outcome.refusals, outcome.reasons, outcome.wire_s)

    async def events(self, match_id: str, observation: Observation) -> None:
        self.gateway.send_events(self.name, match_id, observation.seat, match_events(match_id, observation),
                                 self._attempt)

    async def close_answers(self, match_id: str) -> int:
        if self._admitted:
            self._late = self.gateway.close_match(self.name, match_id, self._seat, self._attempt)
        return self._late

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        if self._admitted:
            self._admitted = False
            self.gateway.end_match(self.name, match_id, self._seat, match_ended(match_id, summary))

    def late_refusals(self) -> int:
        return self._late
